/* backend_bench.c - compile latency of cuplug's two GPU backends, in one
 * run: the same IR to PTX through libNVVM and through LLVM 22's NVPTX
 * backend (issue 20).
 *
 * For each conformance case (numba-cuda's typed IR, which both backends
 * take): cuplug's PTX through libNVVM, through the NVPTX backend in the
 * default (helper process) session, and through the NVPTX backend in a
 * trusted session (in this process).  Then Triton's own LLIR
 * (tests/triton/fixtures), which only the NVPTX backend reads, for cc 9.0a.
 * No cache; each repeat runs the builds in a new order (a fixed-seed
 * shuffle), medians reported, ratios per case and their geometric mean.
 *
 *   build/bin/backend_bench [CORPUS_DIR] [REPEATS] [TRITON_DIR]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"

enum { LIBNVVM, NVPTX, NVPTX_TRUSTED, WAYS };

static const cuplug_api *api;
static uint64_t seed = 42;

static double compile_ms(cuplug_compile_args *a) {
  double t0 = bench_now();
  cuplug_error *e = api->compile(a);
  double t = bench_now() - t0;
  if (e) {
    fprintf(stderr, "backend_bench: %s: %s\n", a->entry, api->error_message(e));
    exit(1);
  }
  api->artifact_destroy(a->artifact);
  return t * 1e3;
}

/* Medians of `reps` builds of each way (NULL args: the way is skipped). */
static void measure(cuplug_compile_args *const ways[WAYS], int reps, double med[WAYS]) {
  double *t[WAYS];
  for (int w = 0; w < WAYS; w++) {
    t[w] = calloc((size_t)reps, sizeof(double));
    if (ways[w]) compile_ms(ways[w]); /* one warm-up each */
  }
  for (int r = 0; r < reps; r++) {
    int order[WAYS] = {0, 1, 2};
    for (int k = WAYS - 1; k > 0; k--) { /* Fisher-Yates */
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      int pick = (int)((seed >> 33) % (uint64_t)(k + 1)), keep = order[k];
      order[k] = order[pick];
      order[pick] = keep;
    }
    for (int k = 0; k < WAYS; k++)
      if (ways[order[k]]) t[order[k]][r] = compile_ms(ways[order[k]]);
  }
  for (int w = 0; w < WAYS; w++) {
    med[w] = ways[w] ? bench_median(t[w], reps) : NAN;
    free(t[w]);
  }
}

static void triton(const char *dir, cuplug_session *s, cuplug_session *st, int reps) {
  static const char *const kernels[] = {"add", "softmax", "gelu", "matmul"};
  printf("Triton 3.6 LLIR, cc 9.0a, NVPTX backend only (libNVVM reads no opaque pointers "
         "below cc 10.0)\n");
  printf("%-14s %12s %12s\n", "kernel", "nvptx ms", "trusted ms");
  for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; k++) {
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/%s.ll", dir, kernels[k]);
    char *ir = bench_read_file(path, &n);
    if (!ir) {
      printf("%-14s skipped: no %s\n", kernels[k], path);
      continue;
    }
    char entry[64];
    snprintf(entry, sizeof entry, "%s_kernel", kernels[k]);
    cuplug_module m = {sizeof m, path, ir, n};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                             .num_modules = 1, .entry = entry, .kind = CUPLUG_KERNEL,
                             .output = CUPLUG_OUTPUT_PTX, .cc_major = 9, .cc_suffix = 'a'};
    cuplug_compile_args b = a;
    b.session = st;
    cuplug_compile_args *ways[WAYS] = {NULL, &a, &b};
    double med[WAYS];
    measure(ways, reps, med);
    printf("%-14s %12.3f %12.3f\n", kernels[k], med[NVPTX], med[NVPTX_TRUSTED]);
    free(ir);
  }
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/conformance/numba";
  int reps = argc > 2 ? atoi(argv[2]) : 11;
  const char *triton_dir = argc > 3 ? argv[3] : "tests/triton/fixtures";
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api) {
    fprintf(stderr, "backend_bench: needs libcuplug\n");
    return 1;
  }
  cuplug_session *s, *st;
  cuplug_session_options safe = {.struct_size = sizeof safe, .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session_options trusted = {.struct_size = sizeof trusted,
                                    .flags = CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE};
  bench_check(api, api->session_create(&safe, &s), "session_create");
  bench_check(api, api->session_create(&trusted, &st), "session_create");
  bench_case *cases;
  int nc = bench_cases(dir, &cases);
  if (nc < 0) {
    fprintf(stderr, "backend_bench: cannot read %s\n", dir);
    return 1;
  }
  printf("%-14s %12s %12s %12s %13s %13s\n", "case", "libnvvm ms", "nvptx ms", "trusted ms",
         "nvptx/nvvm", "trusted/nvvm");
  double logn = 0, logt = 0;
  for (int d = 0; d < nc; d++) {
    cuplug_compile_args a = cases[d].args;
    a.session = s;
    a.output = CUPLUG_OUTPUT_PTX;
    a.backend = CUPLUG_BACKEND_LIBNVVM;
    cuplug_compile_args b = a, c = a;
    b.backend = c.backend = CUPLUG_BACKEND_LLVM;
    c.session = st;
    cuplug_compile_args *ways[WAYS] = {&a, &b, &c};
    double med[WAYS];
    measure(ways, reps, med);
    printf("%-14.14s %12.3f %12.3f %12.3f %13.3f %13.3f\n", cases[d].name, med[LIBNVVM],
           med[NVPTX], med[NVPTX_TRUSTED], med[NVPTX] / med[LIBNVVM],
           med[NVPTX_TRUSTED] / med[LIBNVVM]);
    logn += log(med[NVPTX] / med[LIBNVVM]);
    logt += log(med[NVPTX_TRUSTED] / med[LIBNVVM]);
  }
  printf("geometric mean, ptx: nvptx/libnvvm %.3f, trusted nvptx/libnvvm %.3f (%d cases)\n",
         exp(logn / nc), exp(logt / nc), nc);
  bench_cases_free(cases, nc);
  triton(triton_dir, s, st, reps);
  api->session_destroy(s);
  api->session_destroy(st);
  return 0;
}
