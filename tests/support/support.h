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
/* Is libNVVM loadable?  Suites that compile skip (T_SKIP) without it. */
bool t_have_nvvm(void);
/* Is a CUDA device usable? */
bool t_have_gpu(void);

/* A session with the default toolkit search; fails the test on error. */
cuplug_session *t_session(void);

/* Asserts that `e` has `code` and exactly `message` (when not NULL), then
 * destroys it. */
#define T_ASSERT_ERROR(e, code, message)                                      \
  do {                                                                         \
    cuplug_error *t_e_ = (e);                                                  \
    ck_assert_msg(t_e_ != NULL, "expected %s, got success", #code);            \
    ck_assert_msg(t_api()->error_code(t_e_) == (code), "expected %s, got %s: %s", \
                  #code, t_api()->status_name(t_api()->error_code(t_e_)),      \
                  t_api()->error_message(t_e_));                               \
    if ((message) != NULL) ck_assert_str_eq(t_api()->error_message(t_e_), (const char *)(message)); \
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

/* Fills compile args for a case as numba-cuda compiles it (kernels with
 * the Numba ABI, device functions with the C ABI and the case's abi_name). */
void t_case_args(const t_case *c, cuplug_session *s, const cuplug_module **mods,
                 cuplug_compile_args *a);

/* Declares a case's external functions (case.json's declare_device, with
 * their link files) in the session's registry; an already declared name
 * is left as it is. */
void t_case_declare(const t_case *c, cuplug_session *s);

/* Does the ELF image (a cubin) define a symbol named `name`? */
bool t_elf_has_symbol(const void *elf, size_t size, const char *name);

/* Runs a Check suite; returns the process exit status. */
int t_run_suite(Suite *s);


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

/* Types: parsed, described, named, and as NVVM IR (a value's C-ABI type). */
const cuplug_type *t_type(const char *text);
cuplug_type_info t_type_info(const cuplug_type *t);
const char *t_type_name(const cuplug_type *t);
const char *t_ir_type(const cuplug_type *t);
/* A copy of an artifact's text (PTX): free it. */
char *t_artifact_text(const cuplug_artifact *a);

/* Device memory through the plugin; each fails the test on error. */
uint64_t t_dev_alloc(cuplug_session *s, size_t bytes);
uint64_t t_dev_copy(cuplug_session *s, const void *host, size_t bytes);
void t_to_host(cuplug_session *s, void *host, uint64_t dev, size_t bytes);
void t_dev_free(cuplug_session *s, uint64_t dev);

#endif
