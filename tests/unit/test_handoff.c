/* test_handoff.c - the switches of the host-helper handoff
 * (plugin/helper/handoff.h): read from the environment as documented, and
 * under every one a compile makes the same bytes and a stuck helper is
 * still stopped at the time limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "plugin/session/session.h"
#include "plugin/helper/handoff.h"
#include "plugin/helper/helpers.h"
#include "plugin/helper/wire.h"
#include "support.h"

static const char *const switches[] = {"CUPLUG_HELPER_PIN", "CUPLUG_HOST_SPIN_US",
                                       "CUPLUG_HELPER_SPIN_US"};
static const char *real_helper;

static void setup(void) {
  real_helper = getenv("CUPLUG_HELPER");
  for (size_t i = 0; i < 3; i++) unsetenv(switches[i]);
}

static void teardown(void) {
  setenv("CUPLUG_HELPER", real_helper, 1);
  unsetenv("FAKE_HELPER");
  for (size_t i = 0; i < 3; i++) unsetenv(switches[i]);
}

/* The switches under pin, host and helper (NULL: unset). */
static cuplug__handoff read_with(const char *pin, const char *host, const char *helper) {
  const char *values[] = {pin, host, helper};
  for (size_t i = 0; i < 3; i++) {
    if (values[i])
      setenv(switches[i], values[i], 1);
    else
      unsetenv(switches[i]);
  }
  cuplug__handoff o;
  cuplug__handoff_from_env(&o);
  return o;
}

#define ASSERT_HANDOFF(o, want_pin, want_host_ns, want_helper_ns) \
  do {                                                            \
    ck_assert_int_eq((o).pin, (want_pin));                        \
    ck_assert_uint_eq((o).host_spin_ns, (want_host_ns));          \
    ck_assert_uint_eq((o).helper_spin_ns, (want_helper_ns));      \
  } while (0)

START_TEST(defaults) {
  ASSERT_HANDOFF(read_with(NULL, NULL, NULL), false, 1000000u, 5000000u);
}
END_TEST

START_TEST(values) {
  ASSERT_HANDOFF(read_with("1", "0", "250"), true, 0u, 250000u);
  ASSERT_HANDOFF(read_with("0", "0", "0"), false, 0u, 0u);
  ASSERT_HANDOFF(read_with(NULL, "2000", NULL), false, 2000000u, 5000000u);
  /* a pin asked for leaves the host no poll unless that is asked for too */
  ASSERT_HANDOFF(read_with("1", NULL, NULL), true, 0u, 5000000u);
}
END_TEST

START_TEST(a_spinning_host_is_never_pinned_beside) {
  ASSERT_HANDOFF(read_with("1", "1", "0"), false, 1000u, 0u);
}
END_TEST

START_TEST(not_a_number_leaves_the_default) {
  ASSERT_HANDOFF(read_with("2", "abc", "-5"), false, 1000000u, 5000000u);
  ASSERT_HANDOFF(read_with("yes", "12x", ""), false, 1000000u, 5000000u);
  ASSERT_HANDOFF(read_with("11", "99999999999999999999999", " 7"), false, 1000000u, 5000000u);
}
END_TEST

START_TEST(a_long_spin_is_capped) {
  ASSERT_HANDOFF(read_with("0", "100001", "3000000"), false, 100000000u, 100000000u);
}
END_TEST

/* The CPU a job names reaches the helper as sent; -1 is any. */
START_TEST(the_job_names_its_cpu) {
  const char *opts[] = {"-opt=3"};
  cuplug__tool_input in = {0, "m", "ir", 2};
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVVM, .options = opts, .num_options = 1,
                          .inputs = &in, .num_inputs = 1};
  const int cpus[] = {0, 7, -1};
  for (size_t i = 0; i < 3; i++) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    cuplug__wire_put_job(&b, "/lib/libnvvm.so", cpus[i], &job);
    cuplug__wire_job got;
    ck_assert(cuplug__wire_get_job(b.data, b.len, &got));
    ck_assert_int_eq(got.cpu, cpus[i]);
    ck_assert_str_eq(got.library, "/lib/libnvvm.so");
    ck_assert_str_eq(got.job.options[0], "-opt=3");
    ck_assert_uint_eq(got.job.inputs[0].size, 2);
    cuplug__wire_job_free(&got);
    cuplug__buf_free(&b);
  }
}
END_TEST

/* The result carries when the library call ran, in the helper's clock
 * stamps, which the host's compare with (compile.c splits a stage by them). */
START_TEST(the_result_says_when_it_ran) {
  cuplug__tool_output out = {.data = "ptx", .size = 3, .log = "",
                             .times = {.started = 1234567, .finished = 7654321}};
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__wire_put_result(&b, NULL, &out);
  cuplug__tool_output got;
  ck_assert_ptr_null(cuplug__wire_get_result(b.data, b.len, &got));
  ck_assert_uint_eq(got.times.started, 1234567);
  ck_assert_uint_eq(got.times.finished, 7654321);
  ck_assert_str_eq(got.data, "ptx");
  cuplug__tool_output_free(&got);
  /* a result cut short of its stamps is garbled */
  cuplug_error *e = cuplug__wire_get_result(b.data, b.len - 1, &got);
  ck_assert_int_eq(e->code, CUPLUG_ERR_TOOLKIT_CRASH);
  cuplug__error_destroy(e);
  cuplug__buf_free(&b);
}
END_TEST

/* Compiles a corpus case as its case.json says, to `output`; its text in
 * *text when it compiled. */
static cuplug_error *compile_case(cuplug_session *s, const char *name, cuplug_output output,
                                  uint32_t time_limit_ms, char **text) {
  cuplug_artifact *art;
  cuplug_error *e = t_compile_case(s, name, NULL, 0, output, time_limit_ms, &art);
  if (!e) {
    *text = t_artifact_text(art);
    t_api()->artifact_destroy(art);
  }
  return e;
}

static char *saxpy_ptx(cuplug_session *s) {
  char *ptx = NULL;
  T_ASSERT_OK(compile_case(s, "saxpy_kernel", CUPLUG_OUTPUT_PTX, 0, &ptx));
  return ptx;
}

START_TEST(every_switch_compiles_alike) {
  cuplug_session_options trusted = {.struct_size = sizeof trusted,
                                    .flags = CUPLUG_SESSION_TRUSTED};
  cuplug_session *st = NULL;
  T_ASSERT_OK(t_api()->session_create(&trusted, &st));
  char *want = saxpy_ptx(st);
  t_api()->session_destroy(st);
  const char *settings[][3] = {
      {"0", "0", "0"}, {"1", "0", "0"}, {"0", "2000", "0"}, {"0", "0", "5000"}, {"1", "0", "5000"}};
  for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++) {
    read_with(settings[i][0], settings[i][1], settings[i][2]);
    cuplug_session *s = t_session_uncached();
    for (int round = 0; round < 2; round++) { /* a fresh helper, then a warm one */
      char *got = saxpy_ptx(s);
      ck_assert_msg(!strcmp(got, want), "PIN=%s HOST_SPIN_US=%s HELPER_SPIN_US=%s: other PTX",
                    settings[i][0], settings[i][1], settings[i][2]);
      free(got);
    }
    ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 1);
    ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 0); /* what gates the host's poll */
    t_api()->session_destroy(s);
  }
  free(want);
}
END_TEST

/* A compile that fails after it took a helper (here: IR LLVM cannot read,
 * found after wake_helper, and named by the validator that then runs on
 * the calling thread) gives it back and no longer counts among the hosts
 * at work. */
START_TEST(a_failed_compile_gives_its_helper_back) {
  cuplug_session *s = t_session_uncached();
  static const char bad[] = "define i32 @f(i32 %a) {\n  ret i32 %a\n";
  cuplug_error *e = t_compile_case(s, "add_i32", bad, sizeof bad - 1, CUPLUG_OUTPUT_LTOIR, 0, NULL);
  ck_assert_ptr_nonnull(e);
  ck_assert_int_eq(e->code, CUPLUG_ERR_IR_PARSE);
  cuplug__error_destroy(e);
  ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 0);
  ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 1);
  t_api()->session_destroy(s);
}
END_TEST

/* A forked child counts none of its parent's hosts at work (their threads
 * stayed behind), and giving back a helper its parent reserved takes
 * nothing from its own count. */
START_TEST(a_forked_child_counts_its_own_hosts) {
  cuplug_session *s = t_session_uncached();
  char *text = NULL;
  T_ASSERT_OK(compile_case(s, "add_i32", CUPLUG_OUTPUT_LTOIR, 0, &text)); /* a helper to reserve */
  free(text);
  cuplug__pending p;
  cuplug__helpers_reserve(&s->runner.helpers, &p);
  ck_assert_ptr_nonnull(p.helper);
  ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 1);
  pid_t pid = fork();
  if (pid == 0) {
    int before = cuplug__helpers_hosts_at_work();
    cuplug__helpers_unreserve(&s->runner.helpers, &p);
    _exit(before == 0 && cuplug__helpers_hosts_at_work() == 0 ? 0 : 1);
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %d", status);
  ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 1);
  cuplug__helpers_unreserve(&s->runner.helpers, &p);
  ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 0);
  t_api()->session_destroy(s);
}
END_TEST

/* A host spinning for longer than the time limit still stops the helper
 * at the limit.  The fastest of five tries counts: a loaded machine (a
 * sanitizer build beside other builds) can delay any one of them past the
 * 100 ms spin, but not all five. */
START_TEST(a_spinning_host_keeps_the_time_limit) {
  read_with("0", "100000", "0");
  setenv("CUPLUG_HELPER", getenv("CUPLUG_FAKE_HELPER"), 1);
  setenv("FAKE_HELPER", "hang", 1);
  double fastest = 1e9;
  for (int attempt = 0; attempt < 5 && fastest >= 0.09; attempt++) {
    cuplug_session *s = t_session();
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    char *text = NULL;
    T_ASSERT_ERROR(compile_case(s, "add_i32", CUPLUG_OUTPUT_LTOIR, 20, &text), CUPLUG_ERR_TIMEOUT,
                   "libNVVM did not finish within the time limit of 20 ms: its helper process "
                   "was stopped (raise time_limit_ms if the work is that large)");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    ck_assert_double_ge(took, 0.02);
    if (took < fastest) fastest = took;
    ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 0); /* the stopped job counts no more */
    t_api()->session_destroy(s);
  }
  ck_assert_double_lt(fastest, 0.09); /* not the 100 ms spin */
}
END_TEST

Suite *suite_handoff(void) {
  Suite *s = suite_create("handoff");
  TCase *tc = t_tcase(s, "switches", 0, setup, teardown, 120);
  tcase_add_test(tc, defaults);
  tcase_add_test(tc, values);
  tcase_add_test(tc, a_spinning_host_is_never_pinned_beside);
  tcase_add_test(tc, not_a_number_leaves_the_default);
  tcase_add_test(tc, a_long_spin_is_capped);

  tc = t_tcase(s, "wire", 0, setup, teardown, 120);
  tcase_add_test(tc, the_job_names_its_cpu);
  tcase_add_test(tc, the_result_says_when_it_ran);

  tc = t_tcase(s, "compiles", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, every_switch_compiles_alike);
  tcase_add_test(tc, a_spinning_host_keeps_the_time_limit);
  tcase_add_test(tc, a_failed_compile_gives_its_helper_back);
  tcase_add_test(tc, a_forked_child_counts_its_own_hosts);
  return s;
}
