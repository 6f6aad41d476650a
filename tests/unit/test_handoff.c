/* test_handoff.c - the switches of the host-helper handoff
 * (plugin/helper/handoff.h): read from the environment as documented, and
 * under every one a compile makes the same bytes and a stuck helper is
 * still stopped at the time limit. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "plugin/session/session.h"
#include "plugin/helper/channel.h"
#include "plugin/helper/handoff.h"
#include "plugin/helper/helpers.h"
#include "plugin/helper/wire.h"
#include "support.h"

static const char *const switches[] = {"CUPLUG_HELPER_PIN", "CUPLUG_HOST_SPIN_US",
                                       "CUPLUG_HELPER_SPIN_US", "CUPLUG_HELPER_SHARED",
                                       "CUPLUG_HELPER_HEAP_MB"};
#define NUM_SWITCHES (sizeof switches / sizeof switches[0])
static const char *real_helper;

static void setup(void) {
  real_helper = getenv("CUPLUG_HELPER");
  for (size_t i = 0; i < NUM_SWITCHES; i++) unsetenv(switches[i]);
}

static void teardown(void) {
  setenv("CUPLUG_HELPER", real_helper, 1);
  unsetenv("FAKE_HELPER");
  for (size_t i = 0; i < NUM_SWITCHES; i++) unsetenv(switches[i]);
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

/* The shared memory is on unless CUPLUG_HELPER_SHARED is 0; the helper
 * keeps 64 MiB of its heap unless CUPLUG_HELPER_HEAP_MB says otherwise, at
 * most 4096. */
static cuplug__handoff read_shared_heap(const char *shared, const char *heap) {
  if (shared) setenv("CUPLUG_HELPER_SHARED", shared, 1); else unsetenv("CUPLUG_HELPER_SHARED");
  if (heap) setenv("CUPLUG_HELPER_HEAP_MB", heap, 1); else unsetenv("CUPLUG_HELPER_HEAP_MB");
  cuplug__handoff o;
  cuplug__handoff_from_env(&o);
  return o;
}

START_TEST(shared_memory_and_heap) {
  const uint64_t mib = 1u << 20;
  cuplug__handoff o = read_shared_heap(NULL, NULL);
  ck_assert(o.shared);
  ck_assert_uint_eq(o.heap_bytes, 64 * mib);
  o = read_shared_heap("0", "0");
  ck_assert(!o.shared);
  ck_assert_uint_eq(o.heap_bytes, 0);
  o = read_shared_heap("1", "256");
  ck_assert(o.shared);
  ck_assert_uint_eq(o.heap_bytes, 256 * mib);
  o = read_shared_heap("no", "1000000");
  ck_assert(o.shared);
  ck_assert_uint_eq(o.heap_bytes, 4096 * mib);
  o = read_shared_heap("00", "-1");
  ck_assert(o.shared);
  ck_assert_uint_eq(o.heap_bytes, 64 * mib);
}
END_TEST

/* ---- the channel (channel.h): two mappings of one memfd, as host and
 * helper have ---- */

START_TEST(channel_carries_messages_both_ways) {
  cuplug__channel host, helper;
  int fd = cuplug__channel_create(&host);
  ck_assert_int_gt(fd, CUPLUG__CHANNEL_FD); /* above the fds the helper gets */
  ck_assert(!cuplug__channel_attached(&host));
  ck_assert(cuplug__channel_attach(&helper, fd));
  close(fd);
  ck_assert(cuplug__channel_attached(&host)); /* the helper's mark, seen by the host */
  bool wake = true;
  ck_assert(cuplug__channel_post(&host, CUPLUG__CHANNEL_JOB, "job one", 7, &wake));
  ck_assert(!wake); /* the helper did not say it sleeps */
  ck_assert_uint_eq(cuplug__channel_count(&helper, CUPLUG__CHANNEL_JOB), 1);
  ck_assert_uint_eq(cuplug__channel_count(&helper, CUPLUG__CHANNEL_RESULT), 0);
  size_t n;
  const unsigned char *m = cuplug__channel_message(&helper, CUPLUG__CHANNEL_JOB, &n);
  ck_assert_uint_eq(n, 7);
  ck_assert_mem_eq(m, "job one", 7);
  /* the host sleeps: the helper's answer says it must be woken */
  cuplug__channel_sleep(&host, CUPLUG__CHANNEL_RESULT, true);
  ck_assert(cuplug__channel_asleep(&helper, CUPLUG__CHANNEL_RESULT));
  ck_assert(cuplug__channel_post(&helper, CUPLUG__CHANNEL_RESULT, "result", 6, &wake));
  ck_assert(wake);
  cuplug__channel_sleep(&host, CUPLUG__CHANNEL_RESULT, false);
  m = cuplug__channel_message(&host, CUPLUG__CHANNEL_RESULT, &n);
  ck_assert_uint_eq(n, 6);
  ck_assert_mem_eq(m, "result", 6);
  ck_assert_uint_eq(cuplug__channel_count(&host, CUPLUG__CHANNEL_RESULT), 1);
  /* the job area is the job's still */
  m = cuplug__channel_message(&host, CUPLUG__CHANNEL_JOB, &n);
  ck_assert_mem_eq(m, "job one", 7);
  cuplug__channel_release(&helper);
  cuplug__channel_release(&host);
}
END_TEST

START_TEST(channel_refuses_what_does_not_fit) {
  cuplug__channel host, helper;
  int fd = cuplug__channel_create(&host);
  ck_assert(cuplug__channel_attach(&helper, fd));
  close(fd);
  char *big = calloc(1, CUPLUG__CHANNEL_AREA + 1);
  bool wake = true;
  ck_assert(cuplug__channel_post(&host, CUPLUG__CHANNEL_JOB, big, CUPLUG__CHANNEL_AREA, &wake));
  ck_assert(!cuplug__channel_post(&host, CUPLUG__CHANNEL_JOB, big, CUPLUG__CHANNEL_AREA + 1,
                                  &wake));
  ck_assert(!wake);
  ck_assert_uint_eq(cuplug__channel_count(&helper, CUPLUG__CHANNEL_JOB), 1); /* the one that fit */
  free(big);
  cuplug__channel_release(&helper);
  cuplug__channel_release(&host);
  /* no channel: nothing posts */
  cuplug__channel none = {0};
  ck_assert(!cuplug__channel_post(&none, CUPLUG__CHANNEL_JOB, "x", 1, &wake));
  ck_assert(!cuplug__channel_attached(&none));
}
END_TEST

/* A helper started by hand, whose fd 4 is something else, has no channel
 * (and the host then keeps to the socket). */
START_TEST(channel_attaches_only_to_a_channel) {
  cuplug__channel c;
  int null = open("/dev/null", O_RDWR);
  ck_assert(!cuplug__channel_attach(&c, null));
  ck_assert_ptr_null(c.base);
  close(null);
  int p[2];
  ck_assert_int_eq(pipe(p), 0);
  ck_assert(!cuplug__channel_attach(&c, p[0]));
  close(p[0]);
  close(p[1]);
  int small = memfd_create("small", MFD_CLOEXEC);
  ck_assert_int_eq(ftruncate(small, 4096), 0);
  ck_assert(!cuplug__channel_attach(&c, small));
  close(small);
  ck_assert(!cuplug__channel_attach(&c, 9999)); /* not open */
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
  for (size_t i = 0; i < 2 * sizeof settings / sizeof settings[0]; i++) {
    const char *const *set = settings[i / 2], *shared = i % 2 ? "0" : "1";
    read_with(set[0], set[1], set[2]);
    setenv("CUPLUG_HELPER_SHARED", shared, 1);
    cuplug_session *s = t_session_uncached();
    /* a fresh helper (its job on the socket), then a warm one (in the
     * shared memory, once it has attached), asleep or not as the switches
     * say */
    for (int round = 0; round < 3; round++) {
      char *got = saxpy_ptx(s);
      ck_assert_msg(!strcmp(got, want),
                    "PIN=%s HOST_SPIN_US=%s HELPER_SPIN_US=%s SHARED=%s: other PTX", set[0],
                    set[1], set[2], shared);
      free(got);
    }
    cuplug__pending p;
    cuplug__helpers_reserve(&s->runner.helpers, &p);
    ck_assert_int_eq(cuplug__helpers_attached(&p), shared[0] == '1');
    cuplug__helpers_unreserve(&s->runner.helpers, &p);
    ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 1);
    ck_assert_int_eq(cuplug__helpers_hosts_at_work(), 0); /* what gates the host's poll */
    t_api()->session_destroy(s);
  }
  free(want);
}
END_TEST

/* A helper the system killed while idle is found gone before its next
 * job is handed over (a wake-up note it left unread notwithstanding): the
 * job goes to a fresh helper rather than being reported as a crash. */
START_TEST(a_helper_killed_while_idle_is_replaced) {
  char *want = NULL, *got = NULL;
  for (int way = 0; way < 4; way++) {
    setenv("CUPLUG_HELPER_SHARED", way & 1 ? "1" : "0", 1);
    setenv("CUPLUG_HOST_SPIN_US", way & 2 ? "0" : "1000", 1); /* 0: the host sleeps, notes */
    /* a long poll after each job: the host takes the helper for polling
     * still, and sends no wake-up that would find it gone */
    setenv("CUPLUG_HELPER_SPIN_US", "100000", 1);
    cuplug_session *s = t_session_uncached();
    for (int round = 0; round < 2; round++) { /* the second on an attached helper */
      free(want);
      T_ASSERT_OK(compile_case(s, "add_i32", CUPLUG_OUTPUT_LTOIR, 0, &want));
    }
    cuplug__pending p;
    cuplug__helpers_reserve(&s->runner.helpers, &p);
    pid_t pid = cuplug__helpers_pid(&p);
    ck_assert_int_gt(pid, 0);
    cuplug__helpers_unreserve(&s->runner.helpers, &p);
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    /* until it has gone, every thread of it (its sockets close with the
     * last), left for the session to reap */
    siginfo_t info;
    ck_assert_int_eq(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
    ck_assert_int_eq(info.si_status, SIGKILL);
    T_ASSERT_OK(compile_case(s, "add_i32", CUPLUG_OUTPUT_LTOIR, 0, &got));
    ck_assert_str_eq(got, want);
    free(got);
    ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 1);
    t_api()->session_destroy(s);
  }
  free(want);
}
END_TEST

/* A job too big for the shared memory takes the socket, and the next
 * small one the memory again: the same bytes as in this process. */
START_TEST(a_job_too_big_to_share_takes_the_socket) {
  size_t n;
  char *small = t_read(t_path("conformance/numba/add_i32/input.ll"), &n);
  size_t pad = CUPLUG__CHANNEL_AREA + 4096, big_n = n + pad + 4;
  char *big = malloc(big_n + 1);
  memcpy(big, small, n);
  memcpy(big + n, "\n; ", 3);
  memset(big + n + 3, 'x', pad);
  memcpy(big + n + 3 + pad, "\n", 2); /* a comment libNVVM reads past */
  big_n = n + 3 + pad + 1;
  cuplug_session_options trusted = {.struct_size = sizeof trusted,
                                    .flags = CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE};
  cuplug_session *st = NULL, *s = t_session_uncached();
  T_ASSERT_OK(t_api()->session_create(&trusted, &st));
  const char *texts[] = {small, big, small};
  size_t sizes[] = {n, big_n, n};
  for (int round = 0; round < 2; round++) /* the second round: an attached helper */
    for (int k = 0; k < 3; k++) {
      cuplug_artifact *want, *got;
      T_ASSERT_OK(t_compile_case(st, "add_i32", texts[k], sizes[k], CUPLUG_OUTPUT_LTOIR, 0, &want));
      T_ASSERT_OK(t_compile_case(s, "add_i32", texts[k], sizes[k], CUPLUG_OUTPUT_LTOIR, 0, &got));
      cuplug_artifact_info a = {.struct_size = sizeof a}, b = {.struct_size = sizeof b};
      T_ASSERT_OK(t_api()->artifact_info(want, &a));
      T_ASSERT_OK(t_api()->artifact_info(got, &b));
      ck_assert_uint_eq(a.size, b.size);
      ck_assert_mem_eq(a.data, b.data, a.size);
      t_api()->artifact_destroy(want);
      t_api()->artifact_destroy(got);
    }
  ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 1); /* one helper did it all */
  cuplug__pending p;
  cuplug__helpers_reserve(&s->runner.helpers, &p);
  ck_assert(cuplug__helpers_attached(&p));
  cuplug__helpers_unreserve(&s->runner.helpers, &p);
  t_api()->session_destroy(s);
  t_api()->session_destroy(st);
  free(big);
  free(small);
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
  tcase_add_test(tc, shared_memory_and_heap);

  tc = t_tcase(s, "channel", 0, setup, teardown, 60);
  tcase_add_test(tc, channel_carries_messages_both_ways);
  tcase_add_test(tc, channel_refuses_what_does_not_fit);
  tcase_add_test(tc, channel_attaches_only_to_a_channel);

  tc = t_tcase(s, "wire", 0, setup, teardown, 120);
  tcase_add_test(tc, the_job_names_its_cpu);
  tcase_add_test(tc, the_result_says_when_it_ran);

  tc = t_tcase(s, "compiles", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, every_switch_compiles_alike);
  tcase_add_test(tc, a_spinning_host_keeps_the_time_limit);
  tcase_add_test(tc, a_failed_compile_gives_its_helper_back);
  tcase_add_test(tc, a_job_too_big_to_share_takes_the_socket);
  tcase_add_test(tc, a_helper_killed_while_idle_is_replaced);
  tcase_add_test(tc, a_forked_child_counts_its_own_hosts);
  return s;
}
