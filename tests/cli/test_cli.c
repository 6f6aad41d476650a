/* test_cli.c - the command-line tool, run as a user runs it.
 *
 *   cuplug_cli_test path/to/cuplug
 *
 * Each test runs the binary with arguments and checks its exit status and
 * exactly what it printed (or the lines that matter in it). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ext_mul.h"
#include "support.h"

extern char **environ;

static const char *cli;
static char tmp[256]; /* a scratch folder per test */

typedef struct result {
  int status;
  char *out, *err;
} result;

static char *slurp_fd(int fd) {
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  for (ssize_t r; (r = read(fd, b + n, cap - n - 1)) > 0;) {
    n += (size_t)r;
    if (cap - n < 2) b = realloc(b, cap *= 2);
  }
  b[n] = '\0';
  return b;
}

/* Runs cli with the NULL-terminated arguments, standard input read from
 * the file `in` (NULL: this process's). */
static result run_in(const char *in, const char *const *args) {
  const char *argv[32] = {cli};
  size_t n = 1;
  while (args[n - 1] && n < 31) {
    argv[n] = args[n - 1];
    n++;
  }
  argv[n] = NULL;
  char out_path[300], err_path[300];
  snprintf(out_path, sizeof out_path, "%s/stdout", tmp);
  snprintf(err_path, sizeof err_path, "%s/stderr", tmp);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (in) posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  ck_assert_int_eq(posix_spawn(&pid, cli, &fa, NULL, (char *const *)argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  result r = {WEXITSTATUS(status), NULL, NULL};
  int fd = open(out_path, O_RDONLY);
  r.out = slurp_fd(fd);
  close(fd);
  fd = open(err_path, O_RDONLY);
  r.err = slurp_fd(fd);
  close(fd);
  return r;
}

static result run(const char *const *args) { return run_in(NULL, args); }

static void result_free(result *r) {
  free(r->out);
  free(r->err);
}

static char corpus_ir[4200], corpus_case[4096];

static const char *entry_of(const char *case_name) {
  static char entry[1024];
  char path[8448];
  snprintf(path, sizeof path, "%s/conformance/numba/%s/case.json", t_test_dir(), case_name);
  char *text = t_read(path, NULL);
  json *j = json_parse(text, NULL, 0);
  snprintf(entry, sizeof entry, "%s", json_string(j, "entry"));
  json_free(j);
  free(text);
  return entry;
}

static void setup(void) {
  snprintf(tmp, sizeof tmp, "/tmp/cuplug-cli-XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmp));
  snprintf(corpus_case, sizeof corpus_case, "%.4000s/conformance/numba/add_i32", t_test_dir());
  snprintf(corpus_ir, sizeof corpus_ir, "%s/input.ll", corpus_case);
}

static void teardown(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp);
  ck_assert_int_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

START_TEST(help_documents_every_flag) {
  result r = run((const char *[]){"--help", NULL});
  ck_assert_int_eq(r.status, 0);
  static const char *const flags[] = {
      "compile FILE.ll", "case DIR", "info", "--entry", "--sig", "--entry-abi", "--kernel",
      "--abi ", "--abi-name", "--output", "--cc", "--opt", "--debug", "--lineinfo",
      "--fastmath", "--forceinline", "--launch-bounds", "--max-registers", "--emit-ir",
      "-o OUT", "--check", "link FILE", "resolve [--strict] KEY", "list [PREFIX]", "--declare-device ",
      "--declare-device-c", "--link FILE", "--include DIR", "--no-lto", "--ptx OUT.ptx",
      "cache [info|clear]", "--cache-dir DIR", "--no-cache", "--backend libnvvm|llvm",
      "run FILE.ll... --entry SYMBOL [--sig SIG] [compile options] -- ARG..."};
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) T_ASSERT_CONTAINS(r.out, flags[i]);
  result_free(&r);
}
END_TEST

/* `cuplug run`: one line, as Python prints the value. */
static void expect_run(const char *case_name, const char *sig, const char *abi_name,
                       const char *const *values, const char *want) {
  char ir[4200];
  snprintf(ir, sizeof ir, "%.4000s/conformance/numba/%s/input.ll", t_test_dir(), case_name);
  const char *args[32] = {"run", ir, "--entry", entry_of(case_name), "--sig", sig,
                          "--abi-name", abi_name, "--"};
  size_t n = 9;
  for (; *values && n < 31; values++) args[n++] = *values;
  args[n] = NULL;
  result r = run(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_str_eq(r.out, want);
  ck_assert_str_eq(r.err, "");
  result_free(&r);
}

/* A build carried without libcuplug-host.so (41 MB) cannot run on the
 * host: the `run` tests then say so and pass nothing off as checked. */
static bool no_host_library(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s", cli);
  char *slash = strrchr(path, '/');
  if (slash) snprintf(slash, sizeof path - (size_t)(slash - path), "/../lib/libcuplug-host.so");
  if (access(path, R_OK) == 0 || getenv("CUPLUG_HOST_LIBRARY")) return false;
  printf("skipping cuplug run: no %s\n", path);
  return true;
}

START_TEST(run_prints_the_result) {
  if (no_host_library()) return;
  expect_run("add_i32", "int64(int32, int32)", "add_i32", (const char *[]){"2147483647", "1", NULL},
             "2147483648\n");
  expect_run("add_i32", "int64(int32, int32)", "add_i32", (const char *[]){"-7", "0x10", NULL},
             "9\n");
  /* float32 + float32: the shortest text that reads back to the float */
  expect_run("add_f32", "float32(float32, float32)", "add_f32", (const char *[]){"0.1", "0.2", NULL},
             "0.3\n");
  expect_run("add_f32", "float32(float32, float32)", "add_f32", (const char *[]){"1", "2", NULL},
             "3.0\n");
  expect_run("add_f32", "float32(float32, float32)", "add_f32",
             (const char *[]){"3.4e38", "3.4e38", NULL}, "inf\n");
  expect_run("poly_f64", "float64(float64)", "poly_f64", (const char *[]){"0.1", NULL},
             "1.23\n");
  expect_run("poly_f64", "float64(float64)", "poly_f64", (const char *[]){"1e-3", NULL},
             "1.002003\n");
  expect_run("dev_bool", "bool(bool, bool, bool)", "dev_bool",
             (const char *[]){"True", "False", "False", NULL}, "True\n");
  expect_run("dev_bool", "bool(bool, bool, bool)", "dev_bool",
             (const char *[]){"true", "1", "0", NULL}, "False\n");
  expect_run("dev_u8", "uint64(uint8, uint8)", "dev_u8", (const char *[]){"255", "255", NULL},
             "510\n");
  expect_run("pred_i32", "bool(int32)", "pred", (const char *[]){"-1", NULL}, "False\n");
}
END_TEST

START_TEST(run_errors) {
  if (no_host_library()) return;
  char ir[4200];
  snprintf(ir, sizeof ir, "%.4000s/conformance/numba/add_i32/input.ll", t_test_dir());
  result r = run((const char *[]){"run", ir, "--entry", entry_of("add_i32"), "--sig",
                                  "int64(int32, int32)", "--", "1", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_STARTS(r.err, "cuplug: int64(int32, int32) takes 2 arguments, 1 given after --\n");
  result_free(&r);
  r = run((const char *[]){"run", ir, "--entry", entry_of("add_i32"), "--sig",
                           "int64(int32, int32)", "--", "1", "2147483648", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_STARTS(r.err, "cuplug: argument 1: '2147483648' is not a int32\n");
  result_free(&r);
  snprintf(ir, sizeof ir, "%.4000s/conformance/numba/dev_ext_i32/input.ll", t_test_dir());
  r = run((const char *[]){"run", ir, "--entry", entry_of("dev_ext_i32"), "--sig",
                           "int64(int32, int32)", "--", "1", "2", NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_CONTAINS(r.err, "cuplug: error: CUPLUG_ERR_HOST_UNSUPPORTED: the IR calls @ext_mul, "
                           "which has no host implementation (CUDA C++ cannot run on the host: "
                           "declare_device's host_function gives one) (");
  T_ASSERT_CONTAINS(r.err, "dev_ext_i32/input.ll:14)\n");
  result_free(&r);
  /* no host object where it is looked for */
  snprintf(ir, sizeof ir, "%.4000s/conformance/numba/add_i32/input.ll", t_test_dir());
  setenv("CUPLUG_HOST_LIBRARY", "/nonexistent/libcuplug-host.so", 1);
  r = run((const char *[]){"run", ir, "--entry", entry_of("add_i32"), "--sig",
                           "int64(int32, int32)", "--", "1", "2", NULL});
  unsetenv("CUPLUG_HOST_LIBRARY");
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_HOST_NOT_FOUND: running on the host needs "
                          "libcuplug-host.so: cannot load /nonexistent/libcuplug-host.so: "
                          "/nonexistent/libcuplug-host.so: cannot open shared object file: No "
                          "such file or directory\n");
  result_free(&r);
}
END_TEST

/* A signature the IR contradicts is refused before anything runs (run
 * printed 2.08e-322 for this one). */
START_TEST(run_refuses_a_signature_the_ir_contradicts) {
  char ir[4200], want[2048];
  snprintf(ir, sizeof ir, "%.4000s/conformance/numba/add_i32/input.ll", t_test_dir());
  result r = run((const char *[]){"run", ir, "--entry", entry_of("add_i32"), "--sig",
                                  "float64(int32, int32)", "--", "2", "40", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.out, "");
  snprintf(want, sizeof want,
           "cuplug: error: CUPLUG_ERR_ENTRY_MISMATCH: entry @%s does not match signature "
           "'float64(int32, int32)' under the Numba ABI: parameter 0 (the return slot) is i64* "
           "in the IR; the signature's return type float64 wants double*\n",
           entry_of("add_i32"));
  ck_assert_str_eq(r.err, want);
  result_free(&r);
}
END_TEST

/* case --run host with a declared function's host implementation
 * (case.json's declare_device "host"): dev_ext_i32 runs as numba-cuda's,
 * and a host file that is missing, or an entry without its signature, is
 * a clear error. */
START_TEST(case_run_host_with_host_implementation) {
  if (no_host_library()) return;
  char dir[4200], ir[4300];
  snprintf(dir, sizeof dir, "%.4000s/conformance/numba/dev_ext_i32", t_test_dir());
  result r = run((const char *[]){"case", dir, "--run", "host", NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_CONTAINS(r.out, "dev_ext_i32: 64 values, 64 as numba-cuda's (64 bit for bit), 0 differ");
  result_free(&r);
  /* a copy of the case whose declaration names host files that are not there */
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "cp %s/input.ll %s/", dir, tmp);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(ir, sizeof ir, "%s/case.json", tmp);
  static const char head[] =
      "{\"kind\": \"device\", \"entry\": \"%s\", \"entry_abi\": \"numba\", \"abi\": \"c\", "
      "\"abi_name\": \"dev_ext\", \"signature\": \"int64(int32, int32)\", "
      "\"declare_device\": [{\"name\": \"ext_mul\", \"signature\": \"int32(int32, int32)\", "
      "\"host\": %s}]}\n";
  char text[2048];
  snprintf(text, sizeof text, head, entry_of("dev_ext_i32"),
           "{\"ir\": \"gone.ll\", \"signature\": \"int32(CPointer(int32), int32, int32)\"}");
  write_text(ir, text);
  r = run((const char *[]){"case", tmp, "--run", "host", NULL});
  ck_assert_int_eq(r.status, 1);
  char want[600];
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IO: cannot read %s/gone.ll (the host "
                              "implementation of ext_mul): No such file or directory\n", tmp);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  snprintf(text, sizeof text, head, entry_of("dev_ext_i32"), "{\"ir\": \"gone.ll\"}");
  write_text(ir, text);
  r = run((const char *[]){"case", tmp, "--run", "host", NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_CONTAINS(r.err, "/case.json: declare_device 0: host needs ir and signature");
  result_free(&r);
}
END_TEST

/* A values.json number that is not a value of its argument's type (out of
 * int32's range) is named, not wrapped around. */
START_TEST(case_run_host_value_out_of_range) {
  if (no_host_library()) return;
  char dir[4200], path[4300];
  snprintf(dir, sizeof dir, "%.4000s/conformance/numba/add_i32", t_test_dir());
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "cp %s/input.ll %s/case.json %s/", dir, dir, tmp);
  ck_assert_int_eq(system(cmd), 0);
  snprintf(path, sizeof path, "%s/values.json", tmp);
  write_text(path, "{\"calls\": [{\"args\": [4294967296, 1], \"result\": 1}]}\n");
  result r = run((const char *[]){"case", tmp, "--run", "host", NULL});
  ck_assert_int_eq(r.status, 1);
  char want[600];
  snprintf(want, sizeof want, "cuplug: %s/values.json: calls[0].args[0] is no int32\n", tmp);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
}
END_TEST

/* case --run gpu: cuplug's GPU build against numba-cuda's values (a
 * device function through a kernel that calls it); without a GPU, the
 * error that says so.  A wrong target is a usage error. */
START_TEST(case_run_gpu) {
  char dir[4200];
  snprintf(dir, sizeof dir, "%.4000s/conformance/numba/dev_ptr_f32", t_test_dir());
  result r = run((const char *[]){"case", dir, "--run", "gpu", NULL});
  if (strstr(r.err, "CUPLUG_ERR_NO_DEVICE")) {
    ck_assert_int_eq(r.status, 1);
    T_ASSERT_STARTS(r.err, "cuplug: error: CUPLUG_ERR_NO_DEVICE: no CUDA device");
  } else {
    ck_assert_msg(r.status == 0, "%s", r.err);
    T_ASSERT_CONTAINS(r.out, "dev_ptr_f32: 64 values, 64 as numba-cuda's (64 bit for bit), 0 "
                             "differ");
  }
  result_free(&r);
  /* a device function of complex64: the host runs it; the GPU's caller
   * kernel cannot pass a complex, and says so */
  static const char cf[] =
      "define i32 @\"cf\"({float, float}* %\"ret\", float %\"z.0\", float %\"z.1\") {\n"
      "entry:\n"
      "  %\"a\" = insertvalue {float, float} undef, float %\"z.0\", 0\n"
      "  %\"b\" = insertvalue {float, float} %\"a\", float %\"z.1\", 1\n"
      "  store {float, float} %\"b\", {float, float}* %\"ret\"\n"
      "  ret i32 0\n"
      "}\n";
  char path[4300];
  snprintf(path, sizeof path, "%s/input.ll", tmp);
  write_text(path, cf);
  snprintf(path, sizeof path, "%s/case.json", tmp);
  write_text(path, "{\"kind\": \"device\", \"entry\": \"cf\", \"entry_abi\": \"numba\", "
                   "\"abi\": \"c\", \"abi_name\": \"cf\", \"signature\": \"complex64(complex64)\"}");
  snprintf(path, sizeof path, "%s/values.json", tmp);
  write_text(path, "{\"calls\": [{\"args\": [[1.5, -2.0]], \"result\": [1.5, -2.0]}]}");
  if (!no_host_library()) {
    result h = run((const char *[]){"case", tmp, "--run", "host", NULL});
    ck_assert_msg(h.status == 0, "%s", h.err);
    T_ASSERT_CONTAINS(h.out, ": 1 values, 1 as numba-cuda's (1 bit for bit), 0 differ");
    result_free(&h);
  }
  r = run((const char *[]){"case", tmp, "--run", "gpu", NULL});
  ck_assert_int_eq(r.status, 1);
  if (!strstr(r.err, "CUPLUG_ERR_NO_DEVICE"))
    ck_assert_str_eq(r.err, "cuplug: error: --run gpu: the kernel that calls complex64(complex64) "
                            "cannot pass complex64\n");
  result_free(&r);
  r = run((const char *[]){"case", dir, "--run", "tpu", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_STARTS(r.err, "cuplug: --run takes 'host' or 'gpu', not 'tpu'");
  result_free(&r);
  r = run((const char *[]){"case", dir, "--run", "gpu", "--check", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_STARTS(r.err, "cuplug: --run takes no --check or -o");
  result_free(&r);
}
END_TEST

START_TEST(usage_errors_exit_2) {
  result r = run((const char *[]){NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "usage: cuplug <command> [arguments]");
  result_free(&r);
  r = run((const char *[]){"frobnicate", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: unknown command 'frobnicate'\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--sig", "int64(int32, int32)", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: compile needs --entry SYMBOL\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--entry", "x", "--sig", "void()", "--cc", "nine",
                           NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: --cc is MAJOR.MINOR[a|f] (such as 9.0 or 9.0a) or 'current', "
                           "not 'nine'\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--entry", "x", "--sig", "void()", "--cc", "9.0b",
                           NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: --cc is MAJOR.MINOR[a|f] (such as 9.0 or 9.0a) or 'current', "
                           "not '9.0b'\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--frob", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: unknown option '--frob'\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--opt", "7", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: --opt is 0, 1, 2 or 3, not '7'\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--backend", "nvcc", NULL});
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "cuplug: --backend is 'libnvvm' or 'llvm', not 'nvcc'\n"
                          "(cuplug compile --help lists its options)\n");
  result_free(&r);
}
END_TEST

START_TEST(info_lists_versions) {
  result r = run((const char *[]){"info", NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_CONTAINS(r.out, "cuplug       " CUPLUG_TEST_PLUGIN_VERSION " (ABI 1.3)\n");
  T_ASSERT_CONTAINS(r.out, "libNVVM      2.0\n");
  T_ASSERT_CONTAINS(r.out, "NVVM IR      2.0 (debug metadata 3.2)\n");
  T_ASSERT_CONTAINS(r.out, "LLVM         22.1.8\nNVPTX        ok\n");
  T_ASSERT_CONTAINS(r.out, "GPUs         ");
  result_free(&r);
}
END_TEST

START_TEST(compile_device_function_to_ptx) {
  result r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                                  "int64(int32, int32)", "--abi-name", "add_i32", "--cc", "9.0",
                                  NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, ".target sm_90\n");
  T_ASSERT_CONTAINS(r.out, ".visible .func  (.param .b64 func_retval0) add_i32(\n"
                           "\t.param .b32 add_i32_param_0,\n"
                           "\t.param .b32 add_i32_param_1\n)");
  ck_assert_str_eq(r.err, "");
  result_free(&r);
  /* arch-specific, as numba-cuda compiles for an H100 or H200: sm_90a */
  r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                           "int64(int32, int32)", "--cc", "9.0a", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, ".target sm_90a\n");
  result_free(&r);
}
END_TEST

START_TEST(compile_to_ltoir_file) {
  char out[300];
  snprintf(out, sizeof out, "%s/add.ltoir", tmp);
  result r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                                  "int64(int32, int32)", "--output", "ltoir", "-o", out, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  size_t n;
  char *bytes = t_read(out, &n);
  ck_assert_uint_gt(n, 4);
  ck_assert_mem_eq(bytes, "\xed\x43\x4e\x7f", 4);
  free(bytes);
  result_free(&r);
}
END_TEST

START_TEST(plugin_errors_exit_1_with_code_and_message) {
  result r = run((const char *[]){"compile", corpus_ir, "--entry", "x", "--sig", "int32(int32,,)",
                                  NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err,
                   "cuplug: error: CUPLUG_ERR_SIGNATURE_SYNTAX: signature syntax error at "
                   "position 12 of 'int32(int32,,)': expected a type, found ','\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--entry", "x", "--sig", "void(int32)",
                           "--kernel", "--launch-bounds", "1,2,3,4", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err,
                   "cuplug: error: CUPLUG_ERR_LAUNCH_BOUNDS: Got 4 launch bounds: (1, 2, 3, 4). A "
                   "maximum of three are supported: (max_threads_per_block, min_blocks_per_sm, "
                   "max_blocks_per_cluster)\n");
  result_free(&r);
  char empty[300];
  snprintf(empty, sizeof empty, "%s/empty.ll", tmp);
  write_text(empty, "\n\n");
  r = run((const char *[]){"compile", empty, "--entry", "x", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  char want[600];
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IR_EMPTY: IR module %s is empty\n", empty);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  snprintf(empty, sizeof empty, "%s/missing.ll", tmp);
  r = run((const char *[]){"compile", empty, "--entry", "x", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IO: cannot read %s: No such file or "
                              "directory\n", empty);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
}
END_TEST

START_TEST(warnings_go_to_stderr) {
  char dir[8448];
  snprintf(dir, sizeof dir, "%s/conformance/numba/saxpy_kernel/input.ll", t_test_dir());
  result r = run((const char *[]){"compile", dir, "--entry", entry_of("saxpy_kernel"), "--sig",
                                  "void(float32[::1], float32[::1], float32[::1], float32)",
                                  "--kernel", "--debug", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.err, "cuplug: warning: CUPLUG_WARN_DEBUG_WITH_OPT: debug=True with "
                           "opt=True is not supported by CUDA. This may result in a crash - set "
                           "debug=False or opt=False.\n");
  T_ASSERT_CONTAINS(r.out, "__errcode__");
  result_free(&r);
}
END_TEST

START_TEST(case_check_compares_with_expected_ptx) {
  result r = run((const char *[]){"case", corpus_case, "--check", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.err, "cuplug: check: .func (.b64) add_i32(.b32, .b32) matches ");
  ck_assert_str_eq(r.out, "");
  result_free(&r);

  /* a case whose expected layout differs is reported, exit 1 */
  char path[9000];
  snprintf(path, sizeof path, "cp %s/case.json %s/input.ll %s/", corpus_case, corpus_case, tmp);
  ck_assert_int_eq(system(path), 0);
  snprintf(path, sizeof path, "%s/expected.ptx", tmp);
  write_text(path, ".visible .func  (.param .b32 func_retval0) add_i32(\n"
                   "\t.param .b32 add_i32_param_0\n)\n");
  r = run((const char *[]){"case", tmp, "--check", NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_CONTAINS(r.err, "cuplug: check: layouts differ\n"
                           "  cuplug:   .func (.b64) add_i32(.b32, .b32)\n"
                           "  expected: .func (.b32) add_i32(.b32)\n");
  result_free(&r);
}
END_TEST

/* The cache: a second compile is found in the folder, the same bytes;
 * info counts it, clear empties it, --no-cache and CUPLUG_CACHE=0 leave it be. */
START_TEST(cache_command_and_options) {
  char folder[300], out1[300], out2[300];
  snprintf(folder, sizeof folder, "%s/cache", tmp);
  snprintf(out1, sizeof out1, "%s/one.ltoir", tmp);
  snprintf(out2, sizeof out2, "%s/two.ltoir", tmp);
  const char *outs[] = {out1, out2};
  for (int i = 0; i < 2; i++) {
    result r = run((const char *[]){"case", corpus_case, "--output", "ltoir", "-o", outs[i],
                                    "--cache-dir", folder, NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.err, "");
    result_free(&r);
  }
  size_t n1, n2;
  char *a = t_read(out1, &n1), *b = t_read(out2, &n2);
  ck_assert_uint_eq(n1, n2);
  ck_assert_mem_eq(a, b, n1);
  free(a);
  free(b);
  result r = run((const char *[]){"cache", "--cache-dir", folder, NULL});
  ck_assert_int_eq(r.status, 0);
  char want[700];
  snprintf(want, sizeof want, "folder     %s\nstate      ok\nentries    1, ", folder);
  T_ASSERT_STARTS(r.out, want);
  T_ASSERT_CONTAINS(r.out, " bytes (at most 1073741824)\nremote     (none)\n");
  result_free(&r);
  /* --verbose: where the result came from, and its stages */
  r = run((const char *[]){"case", corpus_case, "--output", "ltoir", "-o", out2, "--cache-dir",
                           folder, "--verbose", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_STARTS(r.err, "cuplug: result: disk cache\ncuplug: stage check_options ");
  T_ASSERT_CONTAINS(r.err, "\ncuplug: stage look_up ");
  result_free(&r);
  r = run((const char *[]){"case", corpus_case, "--output", "ltoir", "-o", out2, "--no-cache",
                           "--verbose", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_STARTS(r.err, "cuplug: result: built (no cache)\n");
  T_ASSERT_CONTAINS(r.err, "\ncuplug: stage run_nvvm ");
  result_free(&r);
  /* a remote URL cuplug cannot use, and one without a key */
  r = run((const char *[]){"case", corpus_case, "-o", out2, "--cache-remote", "rediss://c", NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_STARTS(r.err, "cuplug: error: CUPLUG_ERR_OPTION_CACHE_REMOTE: cache_remote "
                         "'rediss://c': rediss:// (TLS) needs hiredis with TLS");
  result_free(&r);
  unsetenv("CUPLUG_CACHE_REMOTE_KEY");
  r = run((const char *[]){"cache", "--cache-dir", folder, "--cache-remote", "redis://h:7", NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_CONTAINS(r.out, "\nremote     redis://h:7/0\nits state  no key: entries are signed");
  T_ASSERT_CONTAINS(r.out, "\nthis run   0 hits, 0 misses, 0 stores, 0 refused, 0 errors\n");
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                           "int64(int32, int32)", "--no-cache", "--cache-dir", folder, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  result_free(&r);
  r = run((const char *[]){"cache", "info", "--cache-dir", folder, NULL});
  T_ASSERT_CONTAINS(r.out, "entries    1, "); /* --no-cache stored nothing */
  result_free(&r);
  r = run((const char *[]){"cache", "clear", "--cache-dir", folder, NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_CONTAINS(r.out, "entries    0, 0 bytes");
  result_free(&r);
  setenv("CUPLUG_CACHE", "0", 1);
  r = run((const char *[]){"cache", "--cache-dir", folder, NULL});
  unsetenv("CUPLUG_CACHE");
  ck_assert_str_eq(r.out, "folder     (none)\nstate      off\nentries    0, 0 bytes (at most "
                          "1073741824)\nremote     (none)\n");
  result_free(&r);
  r = run((const char *[]){"cache", "frobnicate", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: cache takes 'info' or 'clear' and --cache-dir DIR, not "
                           "'frobnicate'\n");
  result_free(&r);
}
END_TEST

START_TEST(case_errors) {
  result r = run((const char *[]){"case", tmp, NULL});
  ck_assert_int_eq(r.status, 1);
  char want[600];
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IO: cannot read %s/case.json: No such "
                              "file or directory\n", tmp);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  char path[400];
  snprintf(path, sizeof path, "%s/case.json", tmp);
  write_text(path, "{\"kind\": \"device\", \"entry\": \"f\", \"signature\": \"void()\", "
                   "\"options\": {\"frobnicate\": true}}");
  r = run((const char *[]){"case", tmp, NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: case.json: unknown option 'frobnicate'\n");
  result_free(&r);
  write_text(path, "{\"kind\": ");
  r = run((const char *[]){"case", tmp, NULL});
  ck_assert_int_eq(r.status, 1);
  snprintf(want, sizeof want, "cuplug: error: %s/case.json: unexpected character at byte 9\n", tmp);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
}
END_TEST

START_TEST(emit_ir_writes_what_libnvvm_compiled) {
  char dir[300];
  snprintf(dir, sizeof dir, "%s/ir", tmp);
  result r = run((const char *[]){"case", corpus_case, "--emit-ir", dir, "-o", "/dev/null", NULL});
  ck_assert_int_eq(r.status, 2); /* case takes --output, --check, -o only */
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                           "int64(int32, int32)", "--abi-name", "add_i32", "--emit-ir", dir, "-o",
                           "/dev/null", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  char path[700];
  snprintf(path, sizeof path, "ls %s > %s/listing", dir, tmp);
  ck_assert_int_eq(system(path), 0);
  snprintf(path, sizeof path, "%s/listing", tmp);
  char *listing = t_read(path, NULL);
  ck_assert_str_eq(listing, "0-input.ll\n");
  snprintf(path, sizeof path, "%s/0-input.ll", dir);
  char *ir = t_read(path, NULL);
  /* the entry itself, made the C-ABI function, its value returned where
   * the Numba-ABI function stored it */
  T_ASSERT_CONTAINS(ir, "define i64 @\"add_i32\"(i32 %\"x\", i32 %\"y\")\n{\nentry:\n"
                        "  br label %\"B0\"\n");
  T_ASSERT_CONTAINS(ir, "  ret i64 %\".7\"\n}\n");
  ck_assert_ptr_null(strstr(ir, "alloca"));
  ck_assert_ptr_null(strstr(ir, "_ZN8__main__7add_i32"));
  free(ir);
  free(listing);
  result_free(&r);
}
END_TEST


/* ---- external code: --declare-device, --link, cubin output, link ---- */


/* tmp/<name>, written with text when text is not NULL */
static const char *scratch(const char *name, const char *text) {
  static char paths[8][300];
  static int next;
  char *p = paths[next++ % 8];
  snprintf(p, sizeof paths[0], "%s/%s", tmp, name);
  if (text) write_text(p, text);
  return p;
}

static void assert_cubin_with(const char *path, const char *symbol) {
  size_t n;
  char *bytes = t_read(path, &n);
  ck_assert_uint_gt(n, 4);
  ck_assert_mem_eq(bytes, "\x7f" "ELF", 4);
  ck_assert_msg(t_elf_has_symbol(bytes, n, symbol), "%s holds no symbol %s", path, symbol);
  free(bytes);
}

START_TEST(compile_declared_function_to_cubin) {
  const char *cu = scratch("ext.cu", t_ext_mul_cu), *ll = scratch("k.ll", t_calls_ext_mul_ir);
  const char *cubin = scratch("k.cubin", NULL);
  result r = run((const char *[]){"compile", ll, "--entry", "k", "--sig",
                                  "void(CPointer(int32), int32, int32)", "--kernel",
                                  "--declare-device", "ext_mul=int32(int32, int32)", "--link", cu,
                                  "--output", "cubin", "--cc", "9.0", "-o", cubin, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  assert_cubin_with(cubin, "k");
  result_free(&r);
  /* without its code the link fails, with nvJitLink's log */
  r = run((const char *[]){"compile", ll, "--entry", "k", "--sig",
                           "void(CPointer(int32), int32, int32)", "--kernel", "--declare-device",
                           "ext_mul=int32(int32, int32)", "--output", "cubin", "--cc", "9.0", "-o",
                           cubin, NULL});
  ck_assert_int_eq(r.status, 1);
  /* the rest of the line is nvJitLink's words, which vary with its version */
  T_ASSERT_STARTS(r.err, "cuplug: error: CUPLUG_ERR_LINK: nvJitLink failed to link: ");
  T_ASSERT_CONTAINS(r.err, "Unresolved extern function 'ext_mul'");
  result_free(&r);
  /* a declaration the IR contradicts */
  r = run((const char *[]){"compile", ll, "--entry", "k", "--sig",
                           "void(CPointer(int32), int32, int32)", "--kernel", "--declare-device-c",
                           "ext_mul=int32(int32, int32)", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_DECLARATION_MISMATCH: the IR's declaration "
                          "of @ext_mul does not match signature 'int32(int32, int32)' under the "
                          "C ABI: the IR has the Numba ABI's form of it, i32 (i32*, i32, i32): a "
                          "status returned, the value through a return slot\n");
  result_free(&r);
  r = run((const char *[]){"compile", ll, "--entry", "k", "--sig", "void()", "--declare-device",
                           "ext_mul", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: --declare-device is 'NAME=SIGNATURE', such as "
                           "'ext_mul=int32(int32, int32)'\n");
  result_free(&r);
}
END_TEST

START_TEST(link_command) {
  const char *cu = scratch("ext.cu", t_ext_mul_cu), *ll = scratch("k.ll", t_calls_ext_mul_ir);
  const char *ltoir = scratch("k.ltoir", NULL), *cubin = scratch("linked.cubin", NULL);
  const char *ptx = scratch("linked.ptx", NULL);
  result r = run((const char *[]){"compile", ll, "--entry", "k", "--sig",
                                  "void(CPointer(int32), int32, int32)", "--kernel", "--output",
                                  "ltoir", "--cc", "9.0", "-o", ltoir, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  result_free(&r);
  r = run((const char *[]){"link", ltoir, cu, "--cc", "9.0", "-o", cubin, "--ptx", ptx, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  assert_cubin_with(cubin, "k");
  char *text = t_read(ptx, NULL);
  T_ASSERT_CONTAINS(text, "mul.lo.s32"); /* ext_mul, inlined by LTO */
  free(text);
  result_free(&r);
  /* --verbose: a link's stages too (the suite's cache is memory only: built) */
  r = run((const char *[]){"link", ltoir, cu, "--cc", "9.0", "-o", cubin, "--verbose", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_STARTS(r.err, "cuplug: result: built, and stored\ncuplug: stage look_up ");
  T_ASSERT_CONTAINS(r.err, "\ncuplug: stage run_nvjitlink ");
  result_free(&r);
  /* without the .cu, ext_mul is undefined: nvJitLink's words, then its log */
  r = run((const char *[]){"link", ltoir, "--cc", "9.0", "-o", cubin, NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_STARTS(r.err, "cuplug: error: CUPLUG_ERR_LINK: nvJitLink failed to link: ");
  T_ASSERT_CONTAINS(r.err, "Unresolved extern function 'ext_mul'");
  result_free(&r);
  r = run((const char *[]){"link", ltoir, NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: link needs -o OUT.cubin\n");
  result_free(&r);
  const char *what = scratch("what.xyz", "hello");
  r = run((const char *[]){"link", what, "-o", cubin, NULL});
  ck_assert_int_eq(r.status, 1);
  char want[1024];
  snprintf(want, sizeof want,
           "cuplug: error: CUPLUG_ERR_CODE_KIND: cannot tell what kind of code %s is: give its "
           "kind, or a name ending in .cu, .ptx, .ltoir, .cubin, .fatbin, .o or .a\n",
           what);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
}
END_TEST

/* A corpus kernel links into a cubin; a device function (this one calls
 * declared CUDA C++) has none: nvJitLink would keep nothing of it. */
START_TEST(case_to_cubin) {
  char dir[8448];
  snprintf(dir, sizeof dir, "%s/conformance/numba/saxpy_kernel", t_test_dir());
  const char *cubin = scratch("case.cubin", NULL);
  result r = run((const char *[]){"case", dir, "--output", "cubin", "-o", cubin, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  assert_cubin_with(cubin, entry_of("saxpy_kernel"));
  result_free(&r);
  snprintf(dir, sizeof dir, "%s/conformance/numba/dev_ext_i32", t_test_dir());
  cubin = scratch("device.cubin", NULL);
  r = run((const char *[]){"case", dir, "--output", "cubin", "-o", cubin, NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_OPTION_OUTPUT: a device function has no "
                          "cubin of its own: nvJitLink keeps only kernels and what they call; "
                          "compile it to ptx or ltoir and link it into a kernel's cubin\n");
  ck_assert_int_ne(access(cubin, F_OK), 0);
  result_free(&r);
}
END_TEST

/* ---- the registry: resolve and list ---- */

START_TEST(resolve_prints_signature_symbol_abi) {
  result r = run((const char *[]){"resolve", "math.sin", "float32", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  /* SIGNATURE SYMBOL ABI; the symbol hashes key and signature */
  ck_assert_int_eq(strncmp(r.out, "float32(float32) __cuplug_math_sin_", 35), 0);
  ck_assert_str_eq(r.out + strlen(r.out) - 3, " c\n");
  ck_assert_uint_eq(strlen(r.out), 35 + 16 + 3);
  result_free(&r);
  r = run((const char *[]){"resolve", "cuda.atomic.add", "(float32[::1], int32, float64)", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, "float32(float32[::1], int64, float32) __cuplug_cuda_atomic_add_");
  result_free(&r);
  r = run((const char *[]){"resolve", "cuda.grid", "Literal[int](2)", NULL});
  T_ASSERT_CONTAINS(r.out, "UniTuple(int64 x 2)(int32) __cuplug_cuda_grid_");
  result_free(&r);
  r = run((const char *[]){"resolve", "cuda.syncthreads", "", NULL});
  T_ASSERT_CONTAINS(r.out, "void() __cuplug_cuda_syncthreads_");
  result_free(&r);
  /* numba-cuda's rule takes an unsafe conversion as the last resort, and
   * says so; --strict refuses it */
  r = run((const char *[]){"resolve", "cuda.brev", "int32", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, "uint32(uint32) __cuplug_cuda_brev_");
  ck_assert_str_eq(r.err, "cuplug: warning: argument 0 converts unsafely, int32 to uint32\n");
  result_free(&r);
  r = run((const char *[]){"resolve", "--strict", "cuda.brev", "int32", NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_CONTAINS(r.err, "CUPLUG_ERR_NO_MATCH: no signature of cuda.brev takes (int32)");
  result_free(&r);
}
END_TEST

START_TEST(resolve_errors) {
  result r = run((const char *[]){"resolve", "math.sin", "float32[:]", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_NO_MATCH: no signature of math.sin takes "
                          "(float32[:]); it has: float64(int64), float64(uint64), "
                          "float32(float32), float64(float64), float16(float16)\n");
  result_free(&r);
  r = run((const char *[]){"resolve", "math.nope", "float32", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_UNKNOWN_KEY: nothing is registered under "
                          "the key 'math.nope'\n");
  result_free(&r);
  /* the position is in the signature the command makes of the argument types */
  r = run((const char *[]){"resolve", "math.sin", "flaot32", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_UNKNOWN_TYPE: unknown type 'flaot32' at "
                          "position 5 of 'void(flaot32)'\n");
  result_free(&r);
  r = run((const char *[]){"resolve", "math.sin", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_CONTAINS(r.err, "cuplug: resolve takes [--strict] a KEY and its 'ARGTYPES'\n");
  result_free(&r);
}
END_TEST

/* ---- the conventions of LLVM's tools (issue 19) ---- */

START_TEST(version_and_command_help) {
  result r = run((const char *[]){"--version", NULL});
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "cuplug " CUPLUG_TEST_PLUGIN_VERSION " (ABI 1.3)\n");
  ck_assert_str_eq(r.err, "");
  result_free(&r);
  /* a command's page: its own options, not the tool's */
  static const char run_page[] =
      "usage: cuplug run FILE.ll... --entry SYMBOL [--sig SIG] [compile options] -- ARG...\n"
      "\n"
      "  Compile a device function for this CPU (LLVM's ORC JIT, no GPU or CUDA\n"
      "  needed), call it with the arguments and print its result on one line,\n"
      "  as Python writes it: 3, 0.1, True, (1.5-2j).\n"
      "\n"
      "options:\n"
      "  --entry SYMBOL          the entry function in the IR (required)\n"
      "  --sig SIG               its numba-style signature, e.g. 'int64(int32, float32[::1])';\n"
      "                          a kernel that modern IR marks ptx_kernel needs none\n"
      "  --entry-abi numba|c     the entry's ABI in the IR (default numba)\n"
      "  --abi-name NAME         the C-ABI function's name (default: the entry's)\n"
      "  --fastmath              ftz, approximate division and sqrt, fma\n"
      "  -h, --help              this text\n"
      "\n"
      "(cuplug --help: every command, the exit status and the environment)\n";
  r = run((const char *[]){"run", "--help", NULL});
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, run_page);
  result_free(&r);
  r = run((const char *[]){"help", "run", NULL});
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, run_page);
  result_free(&r);
  r = run((const char *[]){"cache", "-h", NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_STARTS(r.out, "usage: cuplug cache [info|clear] [--cache-dir DIR] [--cache-remote "
                         "URL]\n");
  T_ASSERT_CONTAINS(r.out, "\noptions:\n  --cache-dir DIR         the result cache's folder");
  ck_assert_ptr_null(strstr(r.out, "--no-cache"));
  ck_assert_ptr_null(strstr(r.out, "commands:"));
  result_free(&r);
  r = run((const char *[]){"help", "frobnicate", NULL});
  ck_assert_int_eq(r.status, 2);
  T_ASSERT_STARTS(r.err, "cuplug: unknown command 'frobnicate'\n");
  result_free(&r);
}
END_TEST

/* `-o -` is standard output, not a file named "-". */
START_TEST(dash_o_writes_standard_output) {
  unlink("-");
  result r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                                  "int64(int32, int32)", "--cc", "9.0", "-o", "-", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, ".target sm_90\n");
  ck_assert_int_eq(access("-", F_OK), -1);
  result_free(&r);
  r = run((const char *[]){"case", corpus_case, "--output", "ltoir", "-o", "-", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_mem_eq(r.out, "\xed\x43\x4e\x7f", 4);
  ck_assert_int_eq(access("-", F_OK), -1);
  result_free(&r);
}
END_TEST

/* An option the command does not take is a usage error naming both. */
START_TEST(options_a_command_does_not_take) {
  const char *out = scratch("out.txt", NULL);
  static const char *const cases[][2] = {
      {"-o", "run does not take -o"}, {"--output", "run does not take --output"},
      {"--kernel", "run does not take --kernel"}, {"--abi", "run does not take --abi"},
      {"--backend", "run does not take --backend"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *value = !strcmp(cases[i][0], "-o")        ? out
                        : !strcmp(cases[i][0], "--abi")     ? "c"
                        : !strcmp(cases[i][0], "--backend") ? "llvm"
                                                            : "ptx";
    const char *args[] = {"run", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                          "int64(int32, int32)", cases[i][0], value, "--", "2", "40", NULL};
    if (!strcmp(cases[i][0], "--kernel")) args[7] = NULL;
    result r = run(args);
    ck_assert_int_eq(r.status, 2);
    char want[200];
    snprintf(want, sizeof want, "cuplug: %s\n(cuplug run --help lists its options)\n",
             cases[i][1]);
    ck_assert_str_eq(r.err, want);
    ck_assert_str_eq(r.out, "");
    result_free(&r);
  }
  ck_assert_int_eq(access(out, F_OK), -1);
  result r = run((const char *[]){"link", "x.ltoir", "--kernel", "-o", out, NULL});
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "cuplug: link does not take --kernel\n"
                          "(cuplug link --help lists its options)\n");
  result_free(&r);
  r = run((const char *[]){"cache", "--no-cache", NULL});
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "cuplug: cache does not take --no-cache\n"
                          "(cuplug cache --help lists its options)\n");
  result_free(&r);
  r = run((const char *[]){"info", "-o", out, NULL});
  ck_assert_int_eq(r.status, 2);
  ck_assert_str_eq(r.err, "cuplug: info does not take -o\n(cuplug info --help lists its options)\n");
  ck_assert_str_eq(r.out, "");
  result_free(&r);
}
END_TEST

/* The tool's own errors read as the plugin's: a code, and the system's
 * reason. */
START_TEST(tool_errors_have_code_and_reason) {
  char want[700];
  result r = run((const char *[]){"compile", tmp, "--entry", "x", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IO: cannot read %s: Is a directory\n", tmp);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  const char *out = scratch("none/add.ptx", NULL);
  r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                           "int64(int32, int32)", "-o", out, NULL});
  ck_assert_int_eq(r.status, 1);
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IO: cannot write %s: No such file or "
                              "directory\n", out);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
}
END_TEST

/* CUPLUG_MAX_MODULE_SIZE holds while reading: an endless input ends, with
 * the plugin's code and words. */
START_TEST(input_limit_applies_while_reading) {
  result r = run((const char *[]){"compile", "/dev/zero", "--entry", "x", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_LIMIT: IR module /dev/zero is more than "
                          "67108864 bytes: modules hold at most 67108864\n");
  result_free(&r);
  r = run_in("/dev/zero", (const char *[]){"compile", "-", "--entry", "x", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_LIMIT: IR module <stdin> is more than "
                          "67108864 bytes: modules hold at most 67108864\n");
  result_free(&r);
  /* a file's size is known before a byte is read */
  const char *big = scratch("big.ll", NULL);
  int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ck_assert_int_eq(ftruncate(fd, 67108865), 0);
  close(fd);
  r = run((const char *[]){"compile", big, "--entry", "x", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  char want[600];
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_LIMIT: IR module %s is 67108865 bytes: "
                              "modules hold at most 67108864\n", big);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  /* standard input within the limit compiles, named as LLVM names it */
  r = run_in(corpus_ir, (const char *[]){"compile", "-", "--entry", entry_of("add_i32"), "--sig",
                                         "int64(int32, int32)", "--abi-name", "add_i32", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, ".visible .func  (.param .b64 func_retval0) add_i32(\n");
  result_free(&r);
  r = run_in(scratch("bad.ll", "define void @f() {\n  bogus\n}\n"),
             (const char *[]){"compile", "-", "--entry", "f", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_IR_PARSE: IR does not parse: <stdin>:2:3: "
                          "error: expected instruction opcode\n  bogus\n  ^\n");
  result_free(&r);
}
END_TEST

/* Occurrences of needle in haystack. */
static int count(const char *haystack, const char *needle) {
  int n = 0;
  for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* The line of the log an error quotes is printed once: in the message. */
START_TEST(toolkit_errors_print_their_line_once) {
  const char *bad = scratch("bad.ll", "define void @f() {\n  bogus\n}\n");
  result r = run((const char *[]){"compile", bad, "--entry", "f", "--sig", "void()", NULL});
  ck_assert_int_eq(r.status, 1);
  char want[700];
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_IR_PARSE: IR does not parse: %s:2:3: "
                              "error: expected instruction opcode\n  bogus\n  ^\n", bad);
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  if (!t_have_nvrtc() || !t_have_nvjitlink()) {
    printf("skipping NVRTC's and nvJitLink's errors: no NVRTC or nvJitLink\n");
    return;
  }
  const char *cu = scratch("bad.cu", "extern \"C\" __device__ int f(int x) { return x +; }\n");
  const char *cubin = scratch("x.cubin", NULL);
  r = run((const char *[]){"link", cu, "--cc", "9.0", "-o", cubin, NULL});
  ck_assert_int_eq(r.status, 1);
  snprintf(want, sizeof want, "cuplug: error: CUPLUG_ERR_NVRTC: NVRTC failed to compile %s: ", cu);
  T_ASSERT_STARTS(r.err, want);
  ck_assert_int_eq(count(r.err, "error: expected an expression"), 1);
  T_ASSERT_CONTAINS(r.err, "return x +; }\n");
  result_free(&r);
  /* the kernel's LTO-IR without the function it calls */
  const char *ll = scratch("k.ll", t_calls_ext_mul_ir), *ltoir = scratch("k.ltoir", NULL);
  r = run((const char *[]){"compile", ll, "--entry", "k", "--sig",
                           "void(CPointer(int32), int32, int32)", "--kernel", "--output", "ltoir",
                           "--cc", "9.0", "-o", ltoir, NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  result_free(&r);
  r = run((const char *[]){"link", ltoir, "--cc", "9.0", "-o", cubin, NULL});
  ck_assert_int_eq(r.status, 1);
  static const char head[] = "cuplug: error: CUPLUG_ERR_LINK: nvJitLink failed to link: ";
  T_ASSERT_STARTS(r.err, head);
  char quoted[512]; /* nvJitLink's words, which vary with its version */
  snprintf(quoted, sizeof quoted, "%.*s", (int)strcspn(r.err + strlen(head), "\n"),
           r.err + strlen(head));
  ck_assert_uint_gt(strlen(quoted), 0);
  ck_assert_int_eq(count(r.err, quoted), 1);
  T_ASSERT_CONTAINS(r.err, "Unresolved extern function 'ext_mul'");
  result_free(&r);
}
END_TEST

/* `cache` says why a folder cannot hold the cache, before a store finds it. */
START_TEST(cache_state_of_an_unusable_folder) {
  result r = run((const char *[]){"cache", "--cache-dir", "/proc/cuplug-cache", NULL});
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "folder     /proc/cuplug-cache\n"
                          "state      cannot make the cache folder /proc/cuplug-cache: No such "
                          "file or directory\n"
                          "entries    0, 0 bytes (at most 1073741824)\n"
                          "remote     (none)\n");
  result_free(&r);
  const char *file = scratch("file", "not a folder");
  char dir[400], want[1200];
  snprintf(dir, sizeof dir, "%s/cache", file);
  r = run((const char *[]){"cache", "--cache-dir", dir, NULL});
  ck_assert_int_eq(r.status, 0);
  snprintf(want, sizeof want, "folder     %s\nstate      cannot make the cache folder %s: Not a "
                              "directory\nentries    0, 0 bytes (at most 1073741824)\nremote     (none)\n",
           dir, dir);
  ck_assert_str_eq(r.out, want);
  result_free(&r);
  /* a folder that can be made is ok, and is not left behind by asking */
  snprintf(dir, sizeof dir, "%s/new/cache", tmp);
  r = run((const char *[]){"cache", "--cache-dir", dir, NULL});
  snprintf(want, sizeof want, "folder     %s\nstate      ok\n", dir);
  T_ASSERT_STARTS(r.out, want);
  snprintf(dir, sizeof dir, "%s/new", tmp);
  ck_assert_int_eq(access(dir, F_OK), -1);
  result_free(&r);
}
END_TEST

/* Every variable the tool and the plugin read (getenv in their C files) is
 * in --help, with the exit status. */
START_TEST(help_documents_exit_status_and_environment) {
  result r = run((const char *[]){"--help", NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_CONTAINS(r.out, "\nexit status:\n  0    done\n  1    an error, printed as 'cuplug: "
                           "error: CODE: message'");
  T_ASSERT_CONTAINS(r.out, "\n  2    the command line is wrong, printed as 'cuplug: message'\n");
  char cmd[4400];
  snprintf(cmd, sizeof cmd,
           "cd %.4000s/.. && grep -rhoE 'getenv\\(\"[A-Z_]+\"\\)' cli plugin base lowering "
           "| sort -u",
           t_test_dir());
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  char line[200];
  int found = 0;
  while (fgets(line, sizeof line, p)) {
    char name[200]; /* getenv("NAME") */
    snprintf(name, sizeof name, "\n  %.*s ", (int)(strlen(line) - 11), line + 8);
    ck_assert_msg(strstr(r.out, name), "--help does not document %s", name + 3);
    found++;
  }
  ck_assert_int_eq(pclose(p), 0);
  ck_assert_int_ge(found, 10);
  result_free(&r);
}
END_TEST


START_TEST(list_keys_with_a_prefix) {
  result r = run((const char *[]){"list", "math.floor", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_str_eq(r.out,
                   "math.floor                     float64(int64)\n"
                   "math.floor                     float64(uint64)\n"
                   "math.floor                     float32(float32)\n"
                   "math.floor                     float64(float64)\n"
                   "math.floor                     float16(float16)\n");
  result_free(&r);
  r = run((const char *[]){"list", "cuda.atomic.a", NULL});
  ck_assert_str_eq(r.out,
                   "cuda.atomic.add                T(T[...] ary, index, value) or T(CPointer(T), "
                   "value) for T in int32, uint32, int64, uint64, float32, float64  "
                   "[extension: CPointer(T) targets]\n"
                   "cuda.atomic.and_               T(T[...] ary, index, value) or T(CPointer(T), "
                   "value) for T in int32, uint32, int64, uint64  "
                   "[extension: CPointer(T) targets]\n");
  result_free(&r);
  /* what cuplug takes beyond numba-cuda is marked */
  r = run((const char *[]){"list", "cuda.atomic.exch", NULL});
  T_ASSERT_CONTAINS(r.out, "[extension: float32 and float64 arrays; CPointer(T) targets]\n");
  result_free(&r);
  r = run((const char *[]){"list", NULL});
  ck_assert_int_eq(r.status, 0);
  T_ASSERT_CONTAINS(r.out, "cuda.threadIdx.x               int32()\n");
  T_ASSERT_CONTAINS(r.out, "math.sqrt                      float32(float32)\n");
  result_free(&r);
  r = run((const char *[]){"list", "nothing.here", NULL});
  ck_assert_int_eq(r.status, 0);
  ck_assert_str_eq(r.out, "");
  result_free(&r);
}
END_TEST

/* `cuplug run` of a C-ABI function of complex numbers: the platform's C
 * ABI passes and returns each in one register (issue 19's (1-1j)). */
START_TEST(run_complex_values) {
  if (no_host_library()) return;
  char ir[300];
  snprintf(ir, sizeof ir, "%s/cmul.ll", tmp);
  write_text(ir, "define {double, double} @cmul(double %ar, double %ai, double %br, double %bi) {\n"
                 "  %rr1 = fmul double %ar, %br\n  %rr2 = fmul double %ai, %bi\n"
                 "  %rr = fsub double %rr1, %rr2\n  %ri1 = fmul double %ar, %bi\n"
                 "  %ri2 = fmul double %ai, %br\n  %ri = fadd double %ri1, %ri2\n"
                 "  %v0 = insertvalue {double, double} undef, double %rr, 0\n"
                 "  %v1 = insertvalue {double, double} %v0, double %ri, 1\n"
                 "  ret {double, double} %v1\n}\n"
                 "define {float, float} @cmul32(float %ar, float %ai, float %br, float %bi) {\n"
                 "  %a = fpext float %ar to double\n  %b = fpext float %ai to double\n"
                 "  %c = fpext float %br to double\n  %d = fpext float %bi to double\n"
                 "  %r = call {double, double} @cmul(double %a, double %b, double %c, double %d)\n"
                 "  %re = extractvalue {double, double} %r, 0\n"
                 "  %im = extractvalue {double, double} %r, 1\n"
                 "  %re32 = fptrunc double %re to float\n  %im32 = fptrunc double %im to float\n"
                 "  %v0 = insertvalue {float, float} undef, float %re32, 0\n"
                 "  %v1 = insertvalue {float, float} %v0, float %im32, 1\n"
                 "  ret {float, float} %v1\n}\n");
  const char *sigs[] = {"complex64(complex64, complex64)", "complex128(complex128, complex128)"};
  const char *entries[] = {"cmul32", "cmul"};
  for (int i = 0; i < 2; i++) {
    result r = run((const char *[]){"run", ir, "--entry", entries[i], "--entry-abi", "c", "--sig",
                                    sigs[i], "--", "1+2j", "3-1j", NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.out, "(5+5j)\n");
    result_free(&r);
    r = run((const char *[]){"run", ir, "--entry", entries[i], "--entry-abi", "c", "--sig",
                             sigs[i], "--", "0.5-2j", "-4+0.25j", NULL});
    ck_assert_str_eq(r.out, "(-1.5+8.125j)\n");
    result_free(&r);
  }
}
END_TEST

/* Ctrl-C stops `cuplug run` of a function that spins for ever: the call
 * returns CUPLUG_ERR_INTERRUPTED and the tool exits 130. */
START_TEST(run_interrupted_exits_130) {
  if (no_host_library()) return;
  char ir[300], out_path[300], err_path[300];
  snprintf(ir, sizeof ir, "%s/spin.ll", tmp);
  snprintf(out_path, sizeof out_path, "%s/stdout", tmp);
  snprintf(err_path, sizeof err_path, "%s/stderr", tmp);
  write_text(ir, "define i32 @spin(i32 %x) {\nentry:\n  br label %loop\nloop:\n"
                 "  %i = phi i32 [ %x, %entry ], [ %n, %loop ]\n  %n = mul i32 %i, 3\n"
                 "  %c = icmp ne i32 %n, 7\n  br i1 %c, label %loop, label %done\n"
                 "done:\n  ret i32 %n\n}\n");
  const char *argv[] = {cli, "run", ir, "--entry", "spin", "--entry-abi", "c", "--sig",
                        "int32(int32)", "--", "2", NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawnattr_t sa; /* SIGINT as a terminal delivers it, whatever ours is */
  posix_spawnattr_init(&sa);
  sigset_t dfl;
  sigemptyset(&dfl);
  sigaddset(&dfl, SIGINT);
  posix_spawnattr_setsigdefault(&sa, &dfl);
  posix_spawnattr_setflags(&sa, POSIX_SPAWN_SETSIGDEF);
  pid_t pid;
  ck_assert_int_eq(posix_spawn(&pid, cli, &fa, &sa, (char *const *)argv, environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&sa);
  sleep(2); /* compiled, loaded and spinning */
  kill(pid, SIGINT);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 130);
  int fd = open(err_path, O_RDONLY);
  char *err = slurp_fd(fd);
  close(fd);
  ck_assert_str_eq(err, "cuplug: error: CUPLUG_ERR_INTERRUPTED: call spin: interrupted (the host "
                        "set the call's interrupt flag)\n");
  free(err);
}
END_TEST

/* ---- modern LLVM IR and the backend choice (issue 20) ---- */

/* The corpus case `name` as upgrade.sh wrote it at build time: form "text"
 * (input.ll, opaque pointers) or "bitcode" (input.bc). */
static const char *modern_case(const char *form, const char *name) {
  static char dir[4200];
  const char *build = getenv("CUPLUG_BUILD_DIR");
  snprintf(dir, sizeof dir, "%.4000s/tests/conformance-modern/%s/%s", build ? build : ".", form,
           name);
  return dir;
}

/* That case's IR file. */
static const char *modern_input(const char *form, const char *name) {
  static char path[4300];
  snprintf(path, sizeof path, "%s/input.%s", modern_case(form, name),
           strcmp(form, "text") ? "bc" : "ll");
  return path;
}

/* A kernel as clang or Triton write one: modern text, marked ptx_kernel. */
static const char scale_kernel[] =
    "target datalayout = \"e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n\n"
    "define ptx_kernel void @scale(ptr %out, ptr %in, float %k, i32 %n) {\n"
    "entry:\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %inside = icmp slt i32 %tid, %n\n"
    "  br i1 %inside, label %body, label %done\n"
    "body:\n"
    "  %i = sext i32 %tid to i64\n"
    "  %src = getelementptr float, ptr %in, i64 %i\n"
    "  %v = load float, ptr %src\n"
    "  %r = fmul float %v, %k\n"
    "  %dst = getelementptr float, ptr %out, i64 %i\n"
    "  store float %r, ptr %dst\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";

static const char add_i32_ptx[] = ".visible .func  (.param .b64 func_retval0) add_i32(\n"
                                  "\t.param .b32 add_i32_param_0,\n"
                                  "\t.param .b32 add_i32_param_1\n)";

/* --backend llvm: numba-cuda's typed IR through LLVM's NVPTX backend, with
 * numba-cuda's C-ABI signature, and nothing printed but the PTX; libnvvm
 * asked for by name is the default's build; LTO-IR is libNVVM's alone. */
START_TEST(compile_with_either_backend) {
  const char *args[] = {"compile", corpus_ir, "--entry", entry_of("add_i32"), "--sig",
                        "int64(int32, int32)", "--abi-name", "add_i32", "--cc", "9.0",
                        "--backend", "llvm", NULL, NULL, NULL};
  result r = run(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_STARTS(r.out, "//\n// Generated by LLVM NVPTX Back-End\n//\n");
  T_ASSERT_CONTAINS(r.out, ".target sm_90\n");
  T_ASSERT_CONTAINS(r.out, add_i32_ptx);
  ck_assert_str_eq(r.err, "");
  result_free(&r);
  args[11] = "libnvvm";
  r = run(args);
  ck_assert_msg(r.status == 0, "%s", r.err);
  ck_assert_ptr_null(strstr(r.out, "LLVM NVPTX Back-End"));
  T_ASSERT_CONTAINS(r.out, add_i32_ptx);
  ck_assert_str_eq(r.err, "");
  result_free(&r);
  args[11] = "llvm";
  args[12] = "--output";
  args[13] = "ltoir";
  r = run(args);
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_OPTION_BACKEND: LLVM's NVPTX backend makes "
                          "PTX and cubins, not LTO-IR: ask for output ptx or cubin, or the "
                          "libnvvm backend for LTO-IR\n");
  result_free(&r);
}
END_TEST

/* Modern IR, as text and as bitcode (NUL bytes and all), goes to LLVM's
 * NVPTX backend by default; libNVVM takes it for cc 10.0 and up only. */
START_TEST(compile_modern_text_and_bitcode) {
  const char *forms[] = {"text", "bitcode"};
  for (int i = 0; i < 2; i++) {
    result r = run((const char *[]){"compile", modern_input(forms[i], "add_i32"), "--entry",
                                    entry_of("add_i32"), "--sig", "int64(int32, int32)",
                                    "--abi-name", "add_i32", "--cc", "9.0", NULL});
    ck_assert_msg(r.status == 0, "%s: %s", forms[i], r.err);
    T_ASSERT_STARTS(r.out, "//\n// Generated by LLVM NVPTX Back-End\n//\n");
    T_ASSERT_CONTAINS(r.out, add_i32_ptx);
    ck_assert_str_eq(r.err, "");
    result_free(&r);
  }
  result r = run((const char *[]){"compile", modern_input("bitcode", "add_i32"), "--entry",
                                  entry_of("add_i32"), "--sig", "int64(int32, int32)",
                                  "--backend", "libnvvm", "--cc", "8.6", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_OPTION_BACKEND: libNVVM reads modern IR "
                          "(LLVM 15 and later's text, or bitcode) only for cc 10.0 and up, not "
                          "8.6: compile it to ptx or cubin with the llvm backend\n");
  result_free(&r);
  r = run((const char *[]){"compile", modern_input("bitcode", "add_i32"), "--entry",
                           entry_of("add_i32"), "--sig", "int64(int32, int32)", "--abi-name",
                           "add_i32", "--backend", "libnvvm", "--cc", "10.0", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_STARTS(r.out, "//\n// Generated by NVIDIA NVVM Compiler\n");
  T_ASSERT_CONTAINS(r.out, "\n.target sm_100\n");
  T_ASSERT_CONTAINS(r.out, add_i32_ptx);
  result_free(&r);
}
END_TEST

/* Bitcode cut short is the plugin's error, naming the file it was read
 * from (the module's name is its path, as for text). */
START_TEST(compile_truncated_bitcode) {
  size_t n;
  char *bc = t_read(modern_input("bitcode", "add_i32"), &n);
  ck_assert_uint_gt(n, 200);
  const char *cut = scratch("cut.bc", NULL);
  FILE *f = fopen(cut, "wb");
  ck_assert_uint_eq(fwrite(bc, 1, n / 2, f), n / 2);
  fclose(f);
  free(bc);
  result r = run((const char *[]){"compile", cut, "--entry", entry_of("add_i32"), "--sig",
                                  "int64(int32, int32)", NULL});
  ck_assert_int_eq(r.status, 1);
  T_ASSERT_STARTS(r.err, "cuplug: error: CUPLUG_ERR_IR_PARSE: ");
  T_ASSERT_CONTAINS(r.err, cut);
  ck_assert_str_eq(r.out, "");
  result_free(&r);
}
END_TEST

/* A kernel the IR marks ptx_kernel needs no --sig: its parameters are read
 * from the IR.  Without --kernel, or for an entry the IR does not mark,
 * the plugin says what it needs. */
START_TEST(compile_kernel_without_signature) {
  const char *k = scratch("scale.ll", scale_kernel);
  result r = run((const char *[]){"compile", k, "--entry", "scale", "--kernel", "--cc", "9.0",
                                  NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, ".visible .entry scale(\n"
                           "\t.param .u64 .ptr .align 1 scale_param_0,\n"
                           "\t.param .u64 .ptr .align 1 scale_param_1,\n"
                           "\t.param .f32 scale_param_2,\n"
                           "\t.param .u32 scale_param_3\n)");
  ck_assert_str_eq(r.err, "");
  result_free(&r);
  r = run((const char *[]){"compile", k, "--entry", "scale", "--cc", "9.0", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_OPTION_KIND: @scale is a kernel in the IR "
                          "(ptx_kernel): compile it as a kernel\n");
  result_free(&r);
  r = run((const char *[]){"compile", modern_input("text", "add_i32"), "--entry",
                           entry_of("add_i32"), NULL});
  ck_assert_int_eq(r.status, 1);
  char want[1024];
  snprintf(want, sizeof want,
           "cuplug: error: CUPLUG_ERR_INVALID_ARGUMENT: compile: entry @%s needs its signature: "
           "only a kernel the IR marks (ptx_kernel) has it read from the IR\n",
           entry_of("add_i32"));
  ck_assert_str_eq(r.err, want);
  result_free(&r);
  r = run((const char *[]){"compile", corpus_ir, "--entry", entry_of("add_i32"), NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_INVALID_ARGUMENT: compile: give the entry's "
                          "signature (signature or signature_type)\n");
  result_free(&r);
}
END_TEST

/* case through either backend: numba-cuda's PTX signature from LLVM's
 * NVPTX backend, and from a case whose IR is bitcode (input.bc); a
 * backend for the host is the plugin's error. */
START_TEST(case_through_either_backend) {
  result r = run((const char *[]){"case", corpus_case, "--backend", "llvm", "--check", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_STARTS(r.err, "cuplug: check: .func (.b64) add_i32(.b32, .b32) matches ");
  ck_assert_str_eq(r.out, "");
  result_free(&r);
  char cmd[4500];
  const char *bc = modern_case("bitcode", "add_i32");
  snprintf(cmd, sizeof cmd, "cd %.4000s && cp case.json input.bc expected.ptx %s/", bc, tmp);
  ck_assert_int_eq(system(cmd), 0);
  char want[600];
  snprintf(want, sizeof want, "cuplug: check: .func (.b64) add_i32(.b32, .b32) matches "
                              "%s/expected.ptx\n", tmp);
  /* through LLVM's NVPTX backend, the default here, then through libNVVM at
   * a cc that reads modern IR (--cc over case.json's) */
  const char *const extra[][4] = {{NULL}, {"--backend", "libnvvm", "--cc", "10.0"}};
  for (int i = 0; i < 2; i++) {
    r = run((const char *[]){"case", tmp, "--check", extra[i][0], extra[i][1], extra[i][2],
                             extra[i][3], NULL});
    ck_assert_msg(r.status == 0, "%s", r.err);
    ck_assert_str_eq(r.err, want);
    result_free(&r);
  }
  r = run((const char *[]){"case", corpus_case, "--cc", "8.6", "-o", "-", NULL});
  ck_assert_msg(r.status == 0, "%s", r.err);
  T_ASSERT_CONTAINS(r.out, "\n.target sm_86\n");
  result_free(&r);
  r = run((const char *[]){"case", corpus_case, "--run", "host", "--backend", "llvm", NULL});
  ck_assert_int_eq(r.status, 1);
  ck_assert_str_eq(r.err, "cuplug: error: CUPLUG_ERR_OPTION_BACKEND: backend llvm makes GPU "
                          "code: output host compiles for this CPU with LLVM's own backend; "
                          "leave backend unset\n");
  result_free(&r);
}
END_TEST

/* case --run gpu --backend llvm: a device function's PTX (the backend
 * makes no LTO-IR) linked into the kernel that calls it, and a kernel's
 * cubin, against numba-cuda's values; without a GPU, the error that says
 * so. */
START_TEST(case_run_gpu_llvm_backend) {
  const char *names[] = {"dev_ptr_f32", "saxpy_kernel"};
  for (int i = 0; i < 2; i++) {
    char dir[4200];
    snprintf(dir, sizeof dir, "%.4000s/conformance/numba/%s", t_test_dir(), names[i]);
    result r = run((const char *[]){"case", dir, "--run", "gpu", "--backend", "llvm", NULL});
    if (strstr(r.err, "CUPLUG_ERR_NO_DEVICE")) {
      ck_assert_int_eq(r.status, 1);
      T_ASSERT_STARTS(r.err, "cuplug: error: CUPLUG_ERR_NO_DEVICE: no CUDA device");
    } else {
      ck_assert_msg(r.status == 0, "%s: %s", names[i], r.err);
      T_ASSERT_CONTAINS(r.out, ", 0 differ");
    }
    result_free(&r);
  }
}
END_TEST

/* run: modern IR on the CPU, text and bitcode; without --sig the plugin
 * says that a device function needs one. */
START_TEST(run_modern_ir) {
  if (no_host_library()) return;
  const char *forms[] = {"text", "bitcode"};
  for (int i = 0; i < 2; i++) {
    result r = run((const char *[]){"run", modern_input(forms[i], "add_i32"), "--entry",
                                    entry_of("add_i32"), "--sig", "int64(int32, int32)",
                                    "--abi-name", "add_i32", "--", "2", "40", NULL});
    ck_assert_msg(r.status == 0, "%s: %s", forms[i], r.err);
    ck_assert_str_eq(r.out, "42\n");
    ck_assert_str_eq(r.err, "");
    result_free(&r);
  }
  result r = run((const char *[]){"run", modern_input("text", "add_i32"), "--entry",
                                  entry_of("add_i32"), "--", "2", "40", NULL});
  ck_assert_int_eq(r.status, 1);
  char want[1024];
  snprintf(want, sizeof want,
           "cuplug: error: CUPLUG_ERR_INVALID_ARGUMENT: compile: entry @%s needs its signature: "
           "only a kernel the IR marks (ptx_kernel) has it read from the IR\n",
           entry_of("add_i32"));
  ck_assert_str_eq(r.err, want);
  ck_assert_str_eq(r.out, "");
  result_free(&r);
}
END_TEST

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/cuplug\n", argv[0]);
    return 2;
  }
  cli = argv[1];
  if (!t_have_nvvm()) {
    printf("skipped: libNVVM not found (set CUDA_HOME)\n");
    return T_SKIP;
  }
  Suite *s;
  TCase *tc = t_suite(&s, "cli", setup, teardown, 60);
  tcase_add_test(tc, help_documents_every_flag);
  tcase_add_test(tc, usage_errors_exit_2);
  tcase_add_test(tc, version_and_command_help);
  tcase_add_test(tc, dash_o_writes_standard_output);
  tcase_add_test(tc, options_a_command_does_not_take);
  tcase_add_test(tc, tool_errors_have_code_and_reason);
  tcase_add_test(tc, input_limit_applies_while_reading);
  tcase_add_test(tc, toolkit_errors_print_their_line_once);
  tcase_add_test(tc, cache_state_of_an_unusable_folder);
  tcase_add_test(tc, help_documents_exit_status_and_environment);
  tcase_add_test(tc, run_prints_the_result);
  tcase_add_test(tc, run_errors);
  tcase_add_test(tc, run_refuses_a_signature_the_ir_contradicts);
  tcase_add_test(tc, case_run_host_with_host_implementation);
  tcase_add_test(tc, case_run_gpu);
  tcase_add_test(tc, case_run_host_value_out_of_range);
  tcase_add_test(tc, info_lists_versions);
  tcase_add_test(tc, compile_device_function_to_ptx);
  tcase_add_test(tc, compile_to_ltoir_file);
  tcase_add_test(tc, plugin_errors_exit_1_with_code_and_message);
  tcase_add_test(tc, warnings_go_to_stderr);
  tcase_add_test(tc, case_check_compares_with_expected_ptx);
  tcase_add_test(tc, case_errors);
  tcase_add_test(tc, cache_command_and_options);
  tcase_add_test(tc, emit_ir_writes_what_libnvvm_compiled);
  tcase_add_test(tc, compile_declared_function_to_cubin);
  tcase_add_test(tc, link_command);
  tcase_add_test(tc, case_to_cubin);
  tcase_add_test(tc, resolve_prints_signature_symbol_abi);
  tcase_add_test(tc, resolve_errors);
  tcase_add_test(tc, list_keys_with_a_prefix);
  tcase_add_test(tc, run_complex_values);
  tcase_add_test(tc, run_interrupted_exits_130);
  tcase_add_test(tc, compile_with_either_backend);
  tcase_add_test(tc, compile_modern_text_and_bitcode);
  tcase_add_test(tc, compile_truncated_bitcode);
  tcase_add_test(tc, compile_kernel_without_signature);
  tcase_add_test(tc, case_through_either_backend);
  tcase_add_test(tc, case_run_gpu_llvm_backend);
  tcase_add_test(tc, run_modern_ir);
  return t_run_suite(s);
}
