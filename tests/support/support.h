/* support.h - what the test programs share. */
#ifndef CUPLUG_TEST_SUPPORT_H
#define CUPLUG_TEST_SUPPORT_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "json.h"

/* Exit status that ctest reports as "skipped" (SKIP_RETURN_CODE). */
#define T_SKIP 77

/* The tests/ folder of the source tree ($CUPLUG_TEST_DIR). */
const char *t_test_dir(void);
/* "<tests>/<relative>" in a static buffer (one at a time). */
const char *t_path(const char *relative);
/* A whole file, NUL-terminated; fails the test when it cannot be read. */
char *t_read(const char *path, size_t *size);

/* The plugin's table (linked in or loaded: whichever the binary has). */
const cuplug_api *t_api(void);
/* Is libNVVM loadable?  Cases that compile need it (T_NVVM, below). */
bool t_have_nvvm(void);
/* Are NVRTC and nvJitLink loadable? */
bool t_have_nvrtc(void);
bool t_have_nvjitlink(void);
/* Is a CUDA device usable? */
bool t_have_gpu(void);
/* Does the CPU target's library (libcuplug-host.so) load? */
bool t_have_host(void);
bool t_have_clang(void);
bool t_have_mlir(void);
bool t_have_redis(void);

/* What this process writes to its standard output between the two calls
 * (a kernel's printf): t_stdout_capture() starts it, and returns what
 * t_stdout_captured() takes back, which returns the text (free it). */
int t_stdout_capture(void);
char *t_stdout_captured(int saved);

/* A session with the default toolkit search; fails the test on error. */
cuplug_session *t_session(void);
/* One without a cache: every compile runs the toolkit. */
cuplug_session *t_session_uncached(void);

/* Asserts that the error `e` (a variable: it stays alive, for checking its
 * message and log next, then error_destroy) has `code`. */
#define T_ASSERT_CODE(e, code)                                                 \
  do {                                                                         \
    const cuplug_error *t_c_ = (e);                                            \
    ck_assert_msg(t_c_ != NULL, "expected %s, got success", #code);            \
    ck_assert_msg(t_api()->error_code(t_c_) == (code), "expected %s, got %s: %s", \
                  #code, t_api()->status_name(t_api()->error_code(t_c_)),      \
                  t_api()->error_message(t_c_));                               \
  } while (0)

/* Asserts that `e` has `code` and exactly `message`, then destroys it.  The
 * message is required (NULL does not compile): a check of the code alone
 * also passes for the wrong failure.  Where part of the message is the
 * toolkit's or the driver's words, use T_ASSERT_ERROR_PREFIX. */
#define T_ASSERT_ERROR(e, code, message)                                       \
  do {                                                                         \
    _Static_assert(_Generic((message), void *: 0, default: 1),                 \
                   "T_ASSERT_ERROR checks the message: give it");              \
    cuplug_error *t_e_ = (e);                                                  \
    const char *t_m_ = (message);                                              \
    ck_assert_msg(t_m_ != NULL, "T_ASSERT_ERROR checks the message: give it"); \
    T_ASSERT_CODE(t_e_, code);                                                 \
    ck_assert_str_eq(t_api()->error_message(t_e_), t_m_);                      \
    t_api()->error_destroy(t_e_);                                              \
  } while (0)

/* Asserts that `e` has `code` and a message that begins with `prefix` (its
 * stable part: what follows is an LLVM, toolkit or driver text that varies
 * with the environment), then destroys it. */
#define T_ASSERT_ERROR_PREFIX(e, code, prefix)                                 \
  do {                                                                         \
    cuplug_error *t_e_ = (e);                                                  \
    T_ASSERT_CODE(t_e_, code);                                                 \
    T_ASSERT_STARTS(t_api()->error_message(t_e_), prefix);                     \
    t_api()->error_destroy(t_e_);                                              \
  } while (0)

/* Asserts success, showing the error otherwise. */
#define T_ASSERT_OK(e)                                                         \
  do {                                                                         \
    cuplug_error *t_e_ = (e);                                                  \
    ck_assert_msg(t_e_ == NULL, "unexpected %s: %s\n%s",                       \
                  t_api()->status_name(t_api()->error_code(t_e_)),             \
                  t_api()->error_message(t_e_), t_api()->error_log(t_e_));     \
  } while (0)

/* Asserts that `haystack` contains `needle`. */
#define T_ASSERT_CONTAINS(haystack, needle)                                    \
  ck_assert_msg(strstr((const char *)(haystack), (needle)) != NULL,            \
                "'%s' not found in:\n%s", (needle), (const char *)(haystack))

/* Asserts that `text` begins with `prefix` (and holds more than it). */
#define T_ASSERT_STARTS(text, prefix)                                          \
  ck_assert_msg(strncmp((const char *)(text), (prefix), strlen(prefix)) == 0 && \
                    strlen((const char *)(text)) > strlen(prefix),             \
                "'%s' does not begin:\n%s", (prefix), (const char *)(text))

/* One conformance case. */
typedef struct t_case {
  char name[256];
  char dir[8192];
  json *json;
  char *ir;
  size_t ir_size;
  bool kernel;
} t_case;

/* Every case folder of the corpus ($CUPLUG_CONFORMANCE_DIR, else
 * tests/conformance/numba); returns the count. */
int t_cases(t_case **cases);
void t_cases_free(t_case *cases, int n);
/* The case of that name among cases[0..n) (the test fails without one). */
const t_case *t_case_named(const t_case *cases, int n, const char *name);

/* Fills compile args for a case as numba-cuda compiles it (kernels with
 * the Numba ABI, device functions with the C ABI and the case's abi_name). */
void t_case_args(const t_case *c, cuplug_session *s, const cuplug_module **mods,
                 cuplug_compile_args *a);

/* Compiles the corpus case `name` as its case.json says, to `output`,
 * within time_limit_ms (0: the session's): its input.ll, or `ir` (n bytes)
 * when given, an edit of it.  *artifact, when asked for, receives the
 * result; else it is destroyed.  Returns the compile's error. */
cuplug_error *t_compile_case(cuplug_session *s, const char *name, const char *ir, size_t n,
                             cuplug_output output, uint32_t time_limit_ms,
                             cuplug_artifact **artifact);

/* Declares a case's external functions (case.json's declare_device, with
 * their link files) in the session's registry; an already declared name
 * is left as it is. */
void t_case_declare(const t_case *c, cuplug_session *s);

/* Does the ELF image (a cubin) define a symbol named `name`? */
bool t_elf_has_symbol(const void *elf, size_t size, const char *name);

/* Runs a Check suite; returns the process exit status. */
int t_run_suite(Suite *s);

/* ---- cases that say what they need (runner.c) ---- */

/* What a test case needs beyond the plugin and LLVM, which every test
 * has.  Where a need is missing the case is reported skipped: neither run
 * nor counted as passed. */
enum {
  T_NVVM = 1u << 0,      /* libNVVM, and libdevice beside it */
  T_NVRTC = 1u << 1,     /* NVRTC: CUDA C++ */
  T_NVJITLINK = 1u << 2, /* nvJitLink: cubins and link() */
  T_GPU = 1u << 3,       /* a CUDA device */
  T_NO_GPU = 1u << 4,    /* none: what the GPU calls say without one */
  T_HOST = 1u << 5,      /* the CPU target's library, libcuplug-host.so */
  T_ROOT = 1u << 6,      /* root: to give a file to another user (nobody) */
  T_CLANG = 1u << 7,     /* clang-22 ($CUPLUG_TEST_CLANG), to make modern IR at test time */
  T_REDIS = 1u << 8,     /* redis-server ($CUPLUG_TEST_REDIS, else PATH) and hiredis */
  T_MLIR = 1u << 9,      /* mlir-opt-22 and mlir-translate-22 ($CUPLUG_TEST_MLIR_OPT, ..._TRANSLATE) */
};
#define T_TOOLKIT (T_NVVM | T_NVRTC | T_NVJITLINK)

/* Adds to `suite` a case named for the feature its tests check (a-z, 0-9
 * and _), needing `needs`, with its fixture (NULL: none) and time limit in
 * seconds (0: Check's default). */
TCase *t_tcase(Suite *suite, const char *name, unsigned needs, void (*setup)(void),
               void (*teardown)(void), double timeout);

/* A program's suites, by name. */
typedef struct t_suite_def {
  const char *name;
  Suite *(*make)(void);
} t_suite_def;

/* main() of a program of suites made with t_tcase:
 *   PROGRAM SUITE[.CASE]  runs one case of a suite, or every case whose
 *                         needs are met; prints why each other is skipped
 *   PROGRAM --list        prints "SUITE.CASE NEED..." for every case, the
 *                         lines tests/cases.cmake makes ctest entries of
 * Returns the exit status: 1 when a test failed, else T_SKIP when a case
 * was skipped, else 0; 2 for a suite or case that is not there. */
int t_main(int argc, char **argv, const t_suite_def *suites, size_t num_suites);

/* A suite of one case, both called `name`, with its fixture (NULL: none)
 * and its time limit in seconds (0: Check's default): the case, for the
 * tests; *suite receives the suite. */
TCase *t_suite(Suite **suite, const char *name, void (*setup)(void), void (*teardown)(void),
               double timeout);


/* Links LTO-IR into a cubin with nvJitLink, loaded straight from the
 * toolkit (the test's own check, independent of cuplug).  Returns false
 * with the linker's log in *log when linking fails. */
bool t_nvjitlink(const void *ltoir, size_t size, unsigned cc, void **cubin,
                 size_t *cubin_size, char **log);

/* The NVVM IR of a kernel `k` (entry ABI C) whose thread i calls `symbol`
 * (C ABI, signature sig, scalar arguments and result) with in0[i], in1[i],
 * ... and stores the result in out[i]:
 *   void k(CPointer(R) out, CPointer(A0) in0, ...)   (no out for void)
 * The kernel's signature goes to kernel_sig.  Free the result. */
char *t_elementwise_kernel(const cuplug_type *sig, const char *symbol, char *kernel_sig,
                           size_t kernel_sig_size);
/* Types from "int32, float32[:]" (through a signature); returns that. */
const cuplug_type *t_argtypes(const char *list, const cuplug_type *const **args, size_t *n);
/* Resolves key(argtypes) in the session's registry (failing the test if
 * it does not resolve) and compiles the elementwise kernel of it for cc
 * 9.0 with `flags`; the resolution goes to *how when not NULL.  Returns the
 * compile's error; *artifact is its result. */
cuplug_error *t_try_compile_call(cuplug_session *s, const char *key, const char *argtypes,
                                 cuplug_output output, int32_t opt, uint32_t flags,
                                 cuplug_resolve_args *how, cuplug_artifact **artifact);
/* The same, failing the test on error. */
cuplug_artifact *t_compile_call(cuplug_session *s, const char *key, const char *argtypes,
                                cuplug_output output, int32_t opt, cuplug_resolve_args *how);

/* Small Numba-ABI kernels, for cubins that hold several:
 *   k_const(CPointer(int32) out):            out[0] = 11
 *   k_sum(CPointer(int32) out, int32 a, b):  out[0] = a + b
 *   k_neg(CPointer(int64) out, int64 a):     out[0] = -a */
typedef struct t_kernel {
  const char *name, *signature, *ir;
} t_kernel;
extern const t_kernel t_k_const, t_k_sum, t_k_neg;
/* A Numba-ABI kernel raiser(CPointer(int32) out) that raises exception 7
 * in thread 3 of block 1 and stores 1 everywhere else (the GPU's and the
 * host's exception tests). */
extern const char t_raising_ir[];
/* Compiles one as a kernel to `output` (LTO-IR to link), for cc 9.0 or,
 * with CUPLUG_COMPILE_CURRENT_DEVICE in flags, the current device's;
 * fails the test on error. */
cuplug_artifact *t_compile_kernel(cuplug_session *s, const t_kernel *k, cuplug_output output,
                                  uint32_t flags);
/* The same at -opt `opt`, without asserting (child processes, which must
 * not use Check's asserts, call it): compile()'s error. */
cuplug_error *t_try_compile_kernel(cuplug_session *s, const t_kernel *k, cuplug_output output,
                                   int32_t opt, uint32_t flags, cuplug_artifact **artifact);

/* A host library's C-ABI function (host_function) and a call of it
 * through host_call, failing the test on error; T_HOST_FN(type, l) is the
 * address as a C function pointer of that type. */
void *t_host_address(cuplug_library *l);
void t_host_call(cuplug_library *l, const cuplug_value *v, size_t n, void *result, size_t size);
#define T_HOST_FN(type, l) ((type)(uintptr_t)t_host_address(l))

/* Types: parsed, described, named, and as NVVM IR (a value's C-ABI type). */
const cuplug_type *t_type(const char *text);
cuplug_type_info t_type_info(const cuplug_type *t);
const char *t_type_name(const cuplug_type *t);
const char *t_ir_type(const cuplug_type *t);
/* A copy of an artifact's text (PTX): free it. */
char *t_artifact_text(const cuplug_artifact *a);

/* Device memory through the plugin; each fails the test on error.  With
 * t_host_target set (a suite run on the CPU), host memory instead: the
 * same addresses are what a host library's kernels take. */
extern bool t_host_target;
uint64_t t_dev_alloc(cuplug_session *s, size_t bytes);
uint64_t t_dev_copy(cuplug_session *s, const void *host, size_t bytes);
void t_to_host(cuplug_session *s, void *host, uint64_t dev, size_t bytes);
void t_dev_free(cuplug_session *s, uint64_t dev);

#endif
