/* compile_bench.c - cuplug's compile against bare libNVVM, in one run.
 *
 * For each conformance case, compiles input.ll to LTO-IR and to PTX
 *   - through cuplug (validation, wrapping, legalisation, libNVVM),
 *   - through bare libNVVM on input.ll (create a program, add the IR, compile
 *     with the same -arch and -opt, read the result): "bare",
 *   - through bare libNVVM on the IR cuplug hands libNVVM (the wrapped or
 *     fixed-up module): "final".
 * "bare" is the floor the issue names; but a kernel or a C-ABI wrapper is
 * more for libNVVM to compile than input.ll's plain function, so "final"
 * isolates cuplug's own cost: cuplug / final.  "cuplug" is the default,
 * safe path (LLVM verifies the IR while libNVVM runs in the helper
 * process); "trusted" is a CUPLUG_SESSION_TRUSTED session (no
 * verification, libNVVM in this process).  Prints medians, ratios per case
 * and their geometric means.
 *
 * Each repeat runs the four in a new order (a fixed-seed shuffle): what ran
 * just before moves a compile's time.  On the H200, measuring the safe path
 * always right after bare libNVVM, or always after a pause, moved its
 * geometric mean from 1.44x to 0.74x of bare in one session.
 *
 *   build/bin/compile_bench [--stages] [--loop N] [CORPUS_DIR] [REPEATS] [ltoir|ptx]
 *                                                      (both outputs by default)
 *
 * --loop N runs each of the four N times in a row, in each repeat, and
 * times the last N - 1 of each run: a compile after one of its own kind,
 * as a loop of compiles runs (a JIT's first calls, a batch), where each
 * keeps its working set warm; without it each compile follows whichever
 * the shuffle put before it.
 *
 * --stages also prints where the time of a cuplug compile goes: each stage
 * of the compile (artifact_stage), safe and trusted, the sum over the cases
 * of each stage's median, and what lies outside the stages (the call
 * itself, and the result's hand-over).  And the helper's pace: libNVVM's
 * own time in the helper against the trusted session's in this process,
 * on the same IR, and the safe path's geometric mean with the helper's
 * libNVVM time taken at this process's pace (each case: safe - libNVVM in
 * the helper + libNVVM here).  The helper runs on a vCPU of its own, and
 * on the H200 vCPUs run a quarter faster or slower than one another from
 * one run to the next: this separates that from what cuplug costs.
 *
 * Target (issue 2): cuplug's total at most 1.15x bare libNVVM for LTO-IR. */
#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corpus.h"

#define MAX_STAGES 48

/* Each stage's time in each repeat of one case, for a safe and a trusted
 * session, and the sums of their medians over the cases. */
typedef struct stage_times {
  char names[MAX_STAGES][40];
  size_t num;
  double *t[2][MAX_STAGES]; /* [trusted][stage][repeat], seconds */
  double sum[2][2][MAX_STAGES]; /* [lto][trusted][stage] */
  double total[2][2];           /* [lto][trusted]: the compile's median */
  double paced[2];              /* [lto]: sum of log(safe at this process's pace / bare) */
} stage_times;

/* The row of the stage that runs the library (libNVVM), or -1. */
static int library_row(const stage_times *st) {
  for (size_t i = 0; i < st->num; i++)
    if (strcmp(st->names[i], "run_nvvm") == 0) return (int)i;
  return -1;
}

/* Notes the stages of one compile, repeat r, by name: a stage the other
 * session does not run has its own row (0 where it did not run). */
static void note_stages(const cuplug_api *api, stage_times *st, const cuplug_artifact *art,
                        int trusted, int r) {
  cuplug_artifact_info info = {.struct_size = sizeof info};
  api->artifact_info(art, &info);
  for (size_t i = 0; i < info.num_stages; i++) {
    cuplug_artifact_stage_args s = {.struct_size = sizeof s, .artifact = art, .index = i};
    if (api->artifact_stage(&s)) continue;
    size_t row = 0;
    while (row < st->num && strcmp(st->names[row], s.name) != 0) row++;
    if (row == MAX_STAGES) continue;
    if (row == st->num) snprintf(st->names[st->num++], sizeof st->names[0], "%s", s.name);
    st->t[trusted][row][r] = (double)s.nanoseconds * 1e-9;
  }
}

static void print_stages(const stage_times *st, int lto, int cases) {
  printf("stages, %s, sums over %d cases of each stage's median (ms):\n", lto ? "ltoir" : "ptx",
         cases);
  printf("  %-20s %10s %10s %10s\n", "stage", "safe", "trusted", "safe-trust");
  double in[2] = {0, 0};
  for (size_t i = 0; i < st->num; i++) {
    double a = st->sum[lto][0][i] * 1e3, b = st->sum[lto][1][i] * 1e3;
    in[0] += a, in[1] += b;
    printf("  %-20s %10.3f %10.3f %10.3f\n", st->names[i], a, b, a - b);
  }
  double out0 = st->total[lto][0] * 1e3 - in[0], out1 = st->total[lto][1] * 1e3 - in[1];
  printf("  %-20s %10.3f %10.3f %10.3f\n", "(outside the stages)", out0, out1, out0 - out1);
  printf("  %-20s %10.3f %10.3f %10.3f\n", "(whole compile)", st->total[lto][0] * 1e3,
         st->total[lto][1] * 1e3, (st->total[lto][0] - st->total[lto][1]) * 1e3);
  int lib = library_row(st);
  if (lib >= 0)
    printf("helper's pace, %s: libNVVM in the helper / in this process %.3f; cuplug/bare with "
           "libNVVM at this process's pace %.3f\n",
           lto ? "ltoir" : "ptx", st->sum[lto][0][lib] / st->sum[lto][1][lib],
           exp(st->paced[lto] / cases));
}

/* Bare libNVVM: the floor cuplug is measured against. */
static bool bare(const bench_nvvm *v, const char *const *ir, const size_t *n, size_t num_modules,
                 const char *arch, bool lto) {
  char *out = bench_nvvm_compile(v, ir, n, num_modules, arch, lto);
  free(out);
  return out != NULL;
}

int main(int argc, char **argv) {
  bool stages = argc > 1 && strcmp(argv[1], "--stages") == 0;
  if (stages) argc--, argv++;
  int loop = 1; /* compiles of one kind in a row */
  if (argc > 2 && strcmp(argv[1], "--loop") == 0) {
    loop = atoi(argv[2]);
    argc -= 2, argv += 2;
  }
  const char *dir = argc > 1 ? argv[1] : "tests/conformance/numba";
  int reps = argc > 2 ? atoi(argv[2]) : 31;
  if (loop < 1 || loop > 100 || reps < 1) {
    fprintf(stderr, "usage: compile_bench [--stages] [--loop 1..100] [CORPUS_DIR] [REPEATS >= 1] "
                    "[ltoir|ptx]\n");
    return 2;
  }
  /* the samples of a case: a loop's first compile follows another kind */
  int per = loop > 1 ? loop - 1 : 1, samples = reps * per;
  uint64_t seed = 42;
  const char *only = argc > 3 ? argv[3] : NULL;
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  bench_nvvm v;
  if (!api || !bench_nvvm_load(&v)) {
    fprintf(stderr, "compile_bench: needs libcuplug and libNVVM\n");
    return 1;
  }
  cuplug_session *s, *st = NULL;
  /* no cache: every compile is built (the cache's own benchmark is cache_bench) */
  cuplug_session_options safe = {.struct_size = sizeof safe, .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session_options trusted = {.struct_size = sizeof trusted,
                                    .flags = CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE};
  cuplug_error *e = api->session_create(&safe, &s);
  if (!e) e = api->session_create(&trusted, &st);
  if (e) {
    fprintf(stderr, "compile_bench: %s\n", api->error_message(e));
    return 1;
  }
  bench_case *cases;
  int nc = bench_cases(dir, &cases);
  if (nc < 0) {
    fprintf(stderr, "compile_bench: cannot read %s\n", dir);
    return 1;
  }
  printf("%-14s %6s %9s %9s %9s %10s %12s %12s %13s\n", "case", "output", "bare ms",
         "final ms", "cuplug ms", "trusted ms", "cuplug/bare", "cuplug/final", "trusted/bare");
  double logsum[2] = {0, 0}, logown[2] = {0, 0}, logtrusted[2] = {0, 0};
  int count[2] = {0, 0};
  size_t bytes = sizeof(double) * (size_t)samples;
  double *tb = malloc(bytes), *tc = malloc(bytes), *tf = malloc(bytes), *tt = malloc(bytes);
  stage_times *st_times = calloc(1, sizeof *st_times);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < MAX_STAGES; i++)
      st_times->t[k][i] = calloc((size_t)samples, sizeof(double));
  for (int d = 0; d < nc; d++) {
    const char *name = cases[d].name, *ir = cases[d].ir;
    size_t irn = cases[d].ir_size;
    for (int lto = 1; lto >= 0; lto--) {
      if (only && strcmp(only, lto ? "ltoir" : "ptx") != 0) continue;
      cuplug_compile_args a = cases[d].args;
      a.session = s;
      a.output = lto ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
      /* the IR cuplug hands libNVVM, for the "final" floor */
      a.flags = CUPLUG_COMPILE_KEEP_IR;
      cuplug_error *err = api->compile(&a);
      a.flags = 0;
      if (err) {
        fprintf(stderr, "%s: %s\n", name, api->error_message(err));
        return 1;
      }
      cuplug_artifact_info info = {.struct_size = sizeof info};
      api->artifact_info(a.artifact, &info);
      size_t nf = info.num_ir_modules;
      const char *final_ir[8];
      size_t final_n[8];
      for (size_t k = 0; k < nf && k < 8; k++) {
        cuplug_ir_view view = {.struct_size = sizeof view};
        api->artifact_ir(a.artifact, k, &view);
        final_ir[k] = view.text;
        final_n[k] = view.size;
      }
      char arch[32];
      snprintf(arch, sizeof arch, "-arch=compute_%u%u", info.cc_major, info.cc_minor);
      const char *input_ir[] = {ir};
      size_t input_n[] = {irn};
      /* one warm-up each, then interleave, in a new order each time, so
       * that drift and the order hit all alike */
      bare(&v, input_ir, input_n, 1, arch, lto);
      bare(&v, final_ir, final_n, nf, arch, lto);
      double *times[4] = {tb, tf, tc, tt};
      for (int r = 0; r < reps; r++) {
        int order[4] = {0, 1, 2, 3};
        for (int k = 3; k > 0; k--) { /* Fisher-Yates */
          seed = seed * 6364136223846793005u + 1442695040888963407u;
          int pick = (int)((seed >> 33) % (uint64_t)(k + 1)), keep = order[k];
          order[k] = order[pick];
          order[pick] = keep;
        }
        for (int k = 0; k < 4; k++)
          for (int n = 0; n < loop; n++) {
            /* a loop's first compile follows another kind: not kept */
            bool kept = loop == 1 || n > 0;
            int i = r * per + (loop == 1 ? 0 : n - 1); /* the sample, when kept */
            double t0 = bench_now(), took;
            if (order[k] < 2) {
              bare(&v, order[k] ? final_ir : input_ir, order[k] ? final_n : input_n,
                   order[k] ? nf : 1, arch, lto);
              took = bench_now() - t0;
            } else {
              cuplug_compile_args b = a;
              b.session = order[k] == 2 ? s : st;
              api->compile(&b);
              took = bench_now() - t0;
              /* reading the stages is the benchmark's work, not the compile's */
              if (stages && b.artifact && kept)
                note_stages(api, st_times, b.artifact, order[k] == 3, i);
              double t1 = bench_now();
              api->artifact_destroy(b.artifact);
              took += bench_now() - t1;
            }
            if (kept) times[order[k]][i] = took;
          }
      }
      api->artifact_destroy(a.artifact);
      double mb = bench_median(tb, samples), mf = bench_median(tf, samples);
      double mc = bench_median(tc, samples), mt = bench_median(tt, samples);
      printf("%-14.14s %6s %9.3f %9.3f %9.3f %10.3f %12.3f %12.3f %13.3f\n", name,
             lto ? "ltoir" : "ptx", mb * 1e3, mf * 1e3, mc * 1e3, mt * 1e3, mc / mb, mc / mf,
             mt / mb);
      double lib_median[2] = {0, 0};
      int lib = library_row(st_times);
      for (size_t i = 0; stages && i < st_times->num; i++)
        for (int k = 0; k < 2; k++) {
          double m = bench_median(st_times->t[k][i], samples);
          st_times->sum[lto][k][i] += m;
          if ((int)i == lib) lib_median[k] = m;
          memset(st_times->t[k][i], 0, bytes); /* for the next case */
        }
      if (stages) st_times->paced[lto] += log((mc - lib_median[0] + lib_median[1]) / mb);
      st_times->total[lto][0] += mc;
      st_times->total[lto][1] += mt;
      logsum[lto] += log(mc / mb);
      logtrusted[lto] += log(mt / mb);
      logown[lto] += log(mc / mf);
      count[lto]++;
    }
  }
  bench_cases_free(cases, nc);
  free(tb);
  free(tc);
  free(tf);
  free(tt);
  for (int lto = 1; lto >= 0; lto--)
    if (count[lto])
      printf("geometric mean, %-5s: cuplug/bare %.3f, cuplug/final %.3f, trusted/bare %.3f "
             "(%d cases)\n",
             lto ? "ltoir" : "ptx", exp(logsum[lto] / count[lto]),
             exp(logown[lto] / count[lto]), exp(logtrusted[lto] / count[lto]), count[lto]);
  for (int lto = 1; stages && lto >= 0; lto--)
    if (count[lto]) print_stages(st_times, lto, count[lto]);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < MAX_STAGES; i++) free(st_times->t[k][i]);
  free(st_times);
  api->session_destroy(s);
  api->session_destroy(st);
  return 0;
}
