/* conformance.c - every case of the numba-cuda corpus, through the plugin.
 *
 * For each case folder (tests/conformance/numba, or $CUPLUG_CONFORMANCE_DIR):
 *   - its input.ll compiles to PTX whose visible function (device: named
 *     abi_name) or kernel has the same return and parameter layout as
 *     numba-cuda's own expected.ptx, beside the same module variables (a
 *     C-ABI function has no NumbaEnv; a kernel keeps its own);
 *   - it compiles to LTO-IR, which starts with the LTO-IR magic;
 *   - a kernel's LTO-IR links with nvJitLink into a cubin that keeps the
 *     kernel's symbol (@llvm.used at work).
 * The GPU tests (tests/gpu) run the same cases and compare values. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptxsig.h"
#include "support.h"

static t_case *cases;
static int num_cases;
static int *kernel_cases; /* indexes of the kernel cases in cases */
static int num_kernel_cases;

static cuplug_artifact *compile_case(const t_case *c, cuplug_output output) {
  cuplug_session *s = t_session();
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  a.output = output;
  a.cc_major = 9; /* the cc numba-cuda compiled the corpus for */
  a.cc_minor = 0;
  cuplug_error *e = t_api()->compile(&a);
  ck_assert_msg(e == NULL, "%s: %s: %s\n%s", c->name, t_api()->status_name(t_api()->error_code(e)),
                t_api()->error_message(e), t_api()->error_log(e));
  t_api()->session_destroy(s);
  return a.artifact;
}

/* The PTX's module-scope variables (.global, .common, .const, .shared
 * lines outside any function), one per line, in order; a NumbaEnv's name is
 * cut to "_ZN08NumbaEnv" (its hash and uid change from one numba run to the
 * next). */
static char *module_variables(const char *ptx) {
  size_t cap = strlen(ptx) + 1, n = 0;
  char *out = malloc(cap);
  int depth = 0;
  for (const char *line = ptx; *line;) {
    const char *end = strchr(line, '\n');
    size_t len = end ? (size_t)(end - line) : strlen(line);
    const char *p = line;
    while (p < line + len && (*p == ' ' || *p == '\t')) p++;
    if (depth == 0 && (!strncmp(p, ".global", 7) || !strncmp(p, ".common", 7) ||
                       !strncmp(p, ".const", 6) || !strncmp(p, ".shared", 7) ||
                       !strncmp(p, ".visible .global", 16) || !strncmp(p, ".extern .global", 15))) {
      size_t keep = (size_t)(line + len - p);
      const char *env = strstr(p, "_ZN08NumbaEnv");
      if (env && env < line + len) keep = (size_t)(env - p) + strlen("_ZN08NumbaEnv");
      memcpy(out + n, p, keep);
      n += keep;
      out[n++] = '\n';
    }
    for (const char *q = line; q < line + len; q++) depth += *q == '{' ? 1 : *q == '}' ? -1 : 0;
    line = end ? end + 1 : line + len;
  }
  out[n] = 0;
  return out;
}

static cuplug_artifact_info info_of(const cuplug_artifact *art) {
  cuplug_artifact_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->artifact_info(art, &info));
  return info;
}

START_TEST(ptx_layout_matches_numba_cuda) {
  const t_case *c = &cases[_i];
  cuplug_artifact *art = compile_case(c, CUPLUG_OUTPUT_PTX);
  cuplug_artifact_info info = info_of(art);
  char path[8448];
  snprintf(path, sizeof path, "%.8000s/expected.ptx", c->dir);
  char *expected = t_read(path, NULL);
  const char *name = c->kernel ? NULL : json_string(c->json, "abi_name");
  ptxsig want, got;
  ck_assert_msg(ptxsig_read(expected, name, &want), "%s: no %s in expected.ptx", c->name,
                name ? name : "kernel");
  ck_assert_msg(ptxsig_read(info.data, name, &got), "%s: no %s in cuplug's PTX:\n%s", c->name,
                name ? name : "kernel", (const char *)info.data);
  char a[4096], b[4096];
  ptxsig_format(&got, a, sizeof a);
  ptxsig_format(&want, b, sizeof b);
  ck_assert_msg(ptxsig_same(&got, &want), "%s: layouts differ\n  cuplug:   %s\n  expected: %s",
                c->name, a, b);
  if (c->kernel) ck_assert_str_eq(info.symbol, json_string(c->json, "entry"));
  else ck_assert_str_eq(info.symbol, name);
  char *got_vars = module_variables(info.data), *want_vars = module_variables(expected);
  ck_assert_msg(strcmp(got_vars, want_vars) == 0,
                "%s: module variables differ\n  cuplug:\n%s  expected:\n%s", c->name, got_vars,
                want_vars);
  free(got_vars);
  free(want_vars);
  free(expected);
  t_api()->artifact_destroy(art);
}
END_TEST

START_TEST(ltoir_has_magic) {
  const t_case *c = &cases[_i];
  cuplug_artifact *art = compile_case(c, CUPLUG_OUTPUT_LTOIR);
  cuplug_artifact_info info = info_of(art);
  static const unsigned char magic[4] = {0xed, 0x43, 0x4e, 0x7f};
  ck_assert_uint_gt(info.size, 4);
  ck_assert_msg(memcmp(info.data, magic, 4) == 0, "%s: LTO-IR magic missing", c->name);
  t_api()->artifact_destroy(art);
}
END_TEST

/* Over the kernel cases only (device functions link in the external-code
 * tests): _i indexes kernel_cases. */
START_TEST(kernel_survives_lto_link) {
  const t_case *c = &cases[kernel_cases[_i]];
  ck_assert(c->kernel);
  cuplug_artifact *art = compile_case(c, CUPLUG_OUTPUT_LTOIR);
  cuplug_artifact_info info = info_of(art);
  void *cubin = NULL;
  size_t size = 0;
  char *log = NULL;
  ck_assert_msg(t_nvjitlink(info.data, info.size, 90, &cubin, &size, &log),
                "%s: nvJitLink failed: %s", c->name, log);
  ck_assert_msg(t_elf_has_symbol(cubin, size, info.symbol), "%s: kernel %s dropped by LTO",
                c->name, info.symbol);
  free(cubin);
  free(log);
  t_api()->artifact_destroy(art);
}
END_TEST

int main(void) {
  if (!t_have_nvvm()) {
    printf("skipped: libNVVM not found (set CUDA_HOME)\n");
    return T_SKIP;
  }
  num_cases = t_cases(&cases);
  kernel_cases = malloc((size_t)(num_cases > 0 ? num_cases : 1) * sizeof *kernel_cases);
  for (int i = 0; i < num_cases; i++)
    if (cases[i].kernel) kernel_cases[num_kernel_cases++] = i;
  printf("conformance: %d cases\n", num_cases);
  printf("conformance: %d kernel cases\n", num_kernel_cases);
  /* an empty corpus, or one without kernels, would pass by checking nothing */
  if (num_cases == 0 || num_kernel_cases == 0) {
    fprintf(stderr, "conformance: the corpus needs cases, and kernel cases among them\n");
    free(kernel_cases);
    t_cases_free(cases, num_cases);
    return 1;
  }
  Suite *s = suite_create("conformance");
  TCase *tc = tcase_create("cases");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, ptx_layout_matches_numba_cuda, 0, num_cases);
  tcase_add_loop_test(tc, ltoir_has_magic, 0, num_cases);
  tcase_add_loop_test(tc, kernel_survives_lto_link, 0, num_kernel_cases);
  suite_add_tcase(s, tc);
  int rc = t_run_suite(s);
  free(kernel_cases);
  t_cases_free(cases, num_cases);
  return rc;
}
