/* test_safety.c - nothing a host passes takes the host down.
 *
 * The inputs issue 8 found crashing or hanging libNVVM are refused by
 * LLVM's verifier before libNVVM is trusted with them; libNVVM itself runs
 * in a helper process, so that a crash or a hang there is an error here
 * (the misbehaving helper is tests/unit/fake_helper.c); and a trusted
 * session runs the toolkit in this process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plugin/session/session.h"
#include "plugin/helper/helpers.h"
#include "plugin/load/args.h"
#include "base/types.h"
#include "support.h"

/* A case's input.ll with one edit: `from` replaced by `to`. */
static char *edited_case(const char *name, const char *from, const char *to, size_t *size) {
  char rel[256];
  snprintf(rel, sizeof rel, "conformance/numba/%s/input.ll", name);
  size_t n;
  char *text = t_read(t_path(rel), &n);
  char *at = strstr(text, from);
  ck_assert_msg(at != NULL, "%s has no '%s'", name, from);
  size_t before = (size_t)(at - text), fl = strlen(from), tl = strlen(to);
  char *out = malloc(n - fl + tl + 1);
  memcpy(out, text, before);
  memcpy(out + before, to, tl);
  memcpy(out + before + tl, at + fl, n - before - fl + 1);
  free(text);
  *size = n - fl + tl;
  return out;
}

/* Compiles a case's (edited) IR as the case says, to LTO-IR. */
static cuplug_error *compile_text(cuplug_session *s, const char *name, const char *ir, size_t n,
                                  uint32_t time_limit_ms) {
  return t_compile_case(s, name, ir, n, CUPLUG_OUTPUT_LTOIR, time_limit_ms, NULL);
}

/* Compiles a case as it is. */
static cuplug_error *compile_case(cuplug_session *s, const char *name) {
  return t_compile_case(s, name, NULL, 0, CUPLUG_OUTPUT_LTOIR, 0, NULL);
}

static void compiles(cuplug_session *s, const char *name) { T_ASSERT_OK(compile_case(s, name)); }

/* A session whose helper program is `program`, misbehaving as `mode`.  No
 * cache: every compile reaches the helper. */
static cuplug_session *session_with_helper(const char *program, const char *mode,
                                           uint32_t time_limit_ms) {
  setenv("CUPLUG_HELPER", program, 1);
  if (mode) setenv("FAKE_HELPER", mode, 1);
  cuplug_session_options o = {.struct_size = sizeof o,
                              .time_limit_ms = time_limit_ms,
                              .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  return s;
}

static const char *real_helper;

static void setup(void) { real_helper = getenv("CUPLUG_HELPER"); }

static void teardown(void) {
  setenv("CUPLUG_HELPER", real_helper, 1);
  unsetenv("FAKE_HELPER");
}

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- the inputs that crashed or hung libNVVM ---- */

START_TEST(use_before_definition) {
  /* dev_bool with a store moved above the alloca it stores to: SIGSEGV in
   * libNVVM, before */
  cuplug_session *s = t_session();
  size_t n;
  char *ir = edited_case("dev_bool", "  %\".15\" = alloca i1\n  store i1 0, i1* %\".15\"\n",
                         "  store i1 0, i1* %\".15\"\n  %\".15\" = alloca i1\n", &n);
  cuplug_error *e = compile_text(s, "dev_bool", ir, n, 0);
  T_ASSERT_ERROR(e, CUPLUG_ERR_IR_INVALID,
                 "IR of module input.ll is not valid: Instruction does not dominate all uses!");
  free(ir);
  compiles(s, "dev_bool"); /* the session goes on */
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(entry_label_after_its_instruction) {
  /* add_i32 with `entry:` below the block's first instruction: SIGSEGV */
  cuplug_session *s = t_session();
  size_t n;
  char *ir = edited_case("add_i32", "entry:\n  br label %\"B0\"\n", "  br label %\"B0\"\nentry:\n",
                         &n);
  T_ASSERT_ERROR(compile_text(s, "add_i32", ir, n, 0), CUPLUG_ERR_IR_PARSE,
                 "IR does not parse: input.ll:10:1: error: expected instruction opcode");
  free(ir);
  compiles(s, "add_i32");
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(instruction_using_itself) {
  /* dev_ext_i32 with %".20" = add %".20", 1: libNVVM never returned */
  cuplug_session *s = t_session();
  size_t n;
  char *ir = edited_case("dev_ext_i32", "%\".20\" = add nsw i64 %\".19\", 1",
                         "%\".20\" = add nsw i64 %\".20\", 1", &n);
  double t0 = seconds();
  T_ASSERT_ERROR(compile_text(s, "dev_ext_i32", ir, n, 0), CUPLUG_ERR_IR_INVALID,
                 "IR of module input.ll is not valid: Only PHI nodes may reference their own "
                 "value!");
  ck_assert_double_lt(seconds() - t0, 10.0);
  free(ir);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(debug_scope_that_is_its_own) {
  /* add_i32 returning at a location in a lexical block that is its own
   * scope: LLVM's verifier never returned */
  cuplug_session *s = t_session();
  size_t n;
  char *ir = edited_case(
      "add_i32", "  ret i32 0\n}\n",
      "  ret i32 0, !dbg !1\n}\n"
      "!1 = !DILocation(line: 3, scope: !2)\n"
      "!2 = distinct !DILexicalBlock(scope: !2, file: !3, line: 2)\n"
      "!3 = !DIFile(filename: \"add.py\", directory: \"/\")\n",
      &n);
  double t0 = seconds();
  T_ASSERT_ERROR(compile_text(s, "add_i32", ir, n, 0), CUPLUG_ERR_IR_INVALID,
                 "IR of module input.ll is not valid: in the debug info of "
                 "@_ZN8__main__7add_i32B2v1B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOIgxJU0g"
                 "CqOkEJoHkbttqdSBL3UrBuFYTAA_3d_3dEii, the scopes of a !DILexicalBlock (line 2) "
                 "lead back to it (a cycle of 1), where they must end at a !DISubprogram");
  ck_assert_double_lt(seconds() - t0, 10.0);
  free(ir);
  compiles(s, "add_i32");
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(verifier_stops_a_stuck_libnvvm) {
  /* invalid IR reaches a helper that never answers: the verifier's verdict
   * stops it, long before the time limit */
  cuplug_session *s = session_with_helper(getenv("CUPLUG_FAKE_HELPER"), "hang", 60000);
  size_t n;
  char *ir = edited_case("dev_ext_i32", "%\".20\" = add nsw i64 %\".19\", 1",
                         "%\".20\" = add nsw i64 %\".20\", 1", &n);
  double t0 = seconds();
  T_ASSERT_ERROR_PREFIX(compile_text(s, "dev_ext_i32", ir, n, 0), CUPLUG_ERR_IR_INVALID,
                        "IR of module input.ll is not valid: ");
  ck_assert_double_lt(seconds() - t0, 10.0);
  free(ir);
  t_api()->session_destroy(s);
}
END_TEST

/* ---- a helper that crashes, hangs, garbles or is missing ---- */

/* Each misbehaviour twice: a helper that takes its job from the socket,
 * and one that takes it from the shared memory (channel.h), where the host
 * then waits for the answer. */
static const char *const ways[] = {"", "shared-"};

static void setmode(char *buf, size_t n, int way, const char *mode) {
  snprintf(buf, n, "%s%s", ways[way], mode);
}

/* A session whose helper misbehaves as `mode` the given way: one that
 * shares memory is started, and waited for until it has attached, so that
 * the job goes there (a fresh helper's first job takes the socket). */
static cuplug_session *session_misbehaving(int way, const char *mode, uint32_t time_limit_ms) {
  char m[32];
  setmode(m, sizeof m, way, mode);
  cuplug_session *s = session_with_helper(getenv("CUPLUG_FAKE_HELPER"), m, time_limit_ms);
  if (way == 1) {
    cuplug__pending p;
    cuplug__helpers_reserve(&s->runner.helpers, &p);
    double t0 = seconds();
    while (!cuplug__helpers_attached(&p) && seconds() - t0 < 10) usleep(1000);
    ck_assert_msg(cuplug__helpers_attached(&p), "the fake helper did not attach");
    cuplug__helpers_unreserve(&s->runner.helpers, &p);
  }
  return s;
}

START_TEST(crash_is_an_error) {
  cuplug_session *s = session_misbehaving(_i, "crash", 0);
  for (int round = 0; round < 2; round++) /* a fresh helper each time */
    T_ASSERT_ERROR(compile_case(s, "add_i32"), CUPLUG_ERR_TOOLKIT_CRASH,
                   "libNVVM crashed: the helper process that ran it was killed by signal 11 "
                   "(Segmentation fault); this process goes on, and the next call starts a "
                   "fresh helper");
  ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 0);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(hang_is_stopped_at_the_time_limit) {
  cuplug_session *s = session_misbehaving(_i, "hang", 300);
  double t0 = seconds();
  T_ASSERT_ERROR(compile_case(s, "add_i32"), CUPLUG_ERR_TIMEOUT,
                 "libNVVM did not finish within the time limit of 300 ms: its helper process "
                 "was stopped (raise time_limit_ms if the work is that large)");
  double took = seconds() - t0;
  ck_assert_double_ge(took, 0.3);
  ck_assert_double_lt(took, 5.0);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(a_compile_sets_its_own_time_limit) {
  cuplug_session *s = session_with_helper(getenv("CUPLUG_FAKE_HELPER"), "hang", 60000);
  size_t n;
  char *text = t_read(t_path("conformance/numba/add_i32/input.ll"), &n);
  T_ASSERT_ERROR(compile_text(s, "add_i32", text, n, 200), CUPLUG_ERR_TIMEOUT,
                 "libNVVM did not finish within the time limit of 200 ms: its helper process "
                 "was stopped (raise time_limit_ms if the work is that large)");
  free(text);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(garbled_answer_is_an_error) {
  cuplug_session *s = session_misbehaving(_i, "garble", 0);
  T_ASSERT_ERROR(compile_case(s, "add_i32"), CUPLUG_ERR_TOOLKIT_CRASH,
                 "the helper process that ran libNVVM answered garbled bytes: it was stopped "
                 "(is $CUPLUG_HELPER the cuplug-helper of this build?)");
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(helper_that_cannot_start) {
  const char *fake = getenv("CUPLUG_FAKE_HELPER");
  cuplug_session *s = session_with_helper(fake, "exit", 0);
  char want[4096];
  snprintf(want, sizeof want,
           "the helper process exited as it started (status 3): run %s by hand to see why",
           fake);
  T_ASSERT_ERROR(compile_case(s, "add_i32"), CUPLUG_ERR_HELPER, want);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(helper_missing) {
  cuplug_session *s = session_with_helper("/nonexistent/cuplug-helper", NULL, 0);
  T_ASSERT_ERROR(compile_case(s, "add_i32"), CUPLUG_ERR_HELPER,
                 "the helper program cuplug-helper, which runs libNVVM, NVRTC and nvJitLink "
                 "apart from this process, is not there (tried /nonexistent/cuplug-helper "
                 "($CUPLUG_HELPER)): install it beside libcuplug.so, set CUPLUG_HELPER, or "
                 "trust the inputs (CUPLUG_SESSION_TRUSTED)");
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(trusted_session_needs_no_helper) {
  setenv("CUPLUG_HELPER", "/nonexistent/cuplug-helper", 1);
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_TRUSTED};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  compiles(s, "add_i32");
  compiles(s, "saxpy_kernel");
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(helpers_stay_warm) {
  cuplug_session *s = t_session();
  for (int i = 0; i < 3; i++) compiles(s, "add_i32");
  /* one compile at a time needs one helper, kept for the next */
  ck_assert_uint_eq(cuplug__helpers_idle(&s->runner.helpers), 1);
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(unknown_session_flags) {
  cuplug_session_options o = {.struct_size = sizeof o, .flags = 0x10};
  cuplug_session *s = (cuplug_session *)1;
  T_ASSERT_ERROR(t_api()->session_create(&o, &s), CUPLUG_ERR_INVALID_ARGUMENT,
                 "session_create: unknown flags 0x10");
  ck_assert_ptr_null(s);
}
END_TEST

/* A launch's parameters, flattened, fill a fixed array: 24 rank-8 arrays
 * (504 slots) then 9 scalars ask for 513.  The 9th is refused before it is
 * written (it once went one past the end of the launch's stack array). */
START_TEST(launch_parameters_past_the_limit) {
  char sig_text[1024] = "void(";
  for (int i = 0; i < 24; i++) strcat(sig_text, "float32[:, :, :, :, :, :, :, :], ");
  for (int i = 0; i < 9; i++) strcat(sig_text, i < 8 ? "int32, " : "int32)");
  const cuplug_type *sig;
  T_ASSERT_OK(cuplug__signature_parse(sig_text, &sig));
  int64_t dims[8] = {1, 1, 1, 1, 1, 1, 1, 1}, strides[8] = {4, 4, 4, 4, 4, 4, 4, 4};
  float data = 0;
  int32_t scalar = 7;
  cuplug_array arr = {.data = (uint64_t)(uintptr_t)&data, .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 8};
  memcpy(arr.shape, dims, sizeof dims);
  memcpy(arr.strides, strides, sizeof strides);
  cuplug_value values[33];
  for (int i = 0; i < 33; i++)
    values[i] = i < 24 ? (cuplug_value){CUPLUG_TYPE_ARRAY, &arr}
                       : (cuplug_value){CUPLUG_TYPE_INT32, &scalar};
  cuplug__arg_site site = {"kernel", "k", sig};
  cuplug__args args = {values, NULL, 33};
  void *params[CUPLUG__MAX_PARAMS + 1];
  params[CUPLUG__MAX_PARAMS] = &scalar; /* a canary just past the end */
  int64_t slots[CUPLUG__MAX_PARAMS];
  size_t n = 0;
  T_ASSERT_ERROR(cuplug__args_pack(&site, &args, params, slots, &n), CUPLUG_ERR_LAUNCH_ARGS,
                 "kernel k, argument 32 (int32): more than 512 parameters in all");
  ck_assert_ptr_eq(params[CUPLUG__MAX_PARAMS], &scalar);
}
END_TEST

Suite *suite_safety(void) {
  Suite *s = suite_create("safety");
  /* their point is that libNVVM never sees them: without it they would pass checking less */
  TCase *tc = t_tcase(s, "crashing_inputs", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, use_before_definition);
  tcase_add_test(tc, entry_label_after_its_instruction);
  tcase_add_test(tc, instruction_using_itself);
  tcase_add_test(tc, debug_scope_that_is_its_own);
  tcase_add_test(tc, verifier_stops_a_stuck_libnvvm);

  tc = t_tcase(s, "helper", T_NVVM, setup, teardown, 120);
  tcase_add_loop_test(tc, crash_is_an_error, 0, 2);
  tcase_add_loop_test(tc, hang_is_stopped_at_the_time_limit, 0, 2);
  tcase_add_test(tc, a_compile_sets_its_own_time_limit);
  tcase_add_loop_test(tc, garbled_answer_is_an_error, 0, 2);
  tcase_add_test(tc, helper_that_cannot_start);
  tcase_add_test(tc, helper_missing);
  tcase_add_test(tc, trusted_session_needs_no_helper);
  tcase_add_test(tc, helpers_stay_warm);

  tc = t_tcase(s, "session_flags", 0, setup, teardown, 120);
  tcase_add_test(tc, unknown_session_flags);
  tcase_add_test(tc, launch_parameters_past_the_limit);
  return s;
}
