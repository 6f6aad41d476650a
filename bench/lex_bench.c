/* lex_bench.c - cuplug's first pass over a module: the lexer, with the
 * list of tokens legalisation watches, and the split into items
 * (cuplug__ir_module_parse, the parse_modules stage of a compile).
 *
 *   build/bin/lex_bench [CORPUS_DIR] [REPEATS]
 *
 * For each conformance case's input.ll, REPEATS parses back to back
 * ("warm": the text, the code and the branch history in the caches) and
 * REPEATS parses each after 8 MiB of other memory was read ("cold"), and,
 * where libNVVM loads, REPEATS parses each right after a bare libNVVM
 * compile ("after libNVVM": as in a compile loop, where the lexer's code,
 * its branch history and its data have gone cold; the figure to follow);
 * the medians, in ns per token and per byte, and over the corpus the sum
 * of the medians.  There is no
 * anchor to divide by: LLVM's own reader does more (it builds the module),
 * so the figure is followed from build to build (bench/RESULTS.md). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "bench.h"
#include "lowering/irparse.h"
#include "lowering/lowering.h"

#define EVICT_BYTES (8u << 20)

static volatile unsigned char sink;

/* Reads every cache line of `junk`: what the caches held is gone. */
static void evict(const unsigned char *junk) {
  unsigned char s = 0;
  for (size_t i = 0; i < EVICT_BYTES; i += 64) s ^= junk[i];
  sink = s;
}

/* What runs before each parse: nothing, reading 8 MiB, or a bare libNVVM
 * compile of a small module. */
typedef struct before {
  const unsigned char *junk;
  const bench_nvvm *nvvm;
  const char *ir;
  size_t ir_size;
} before;

static void run_before(const before *b) {
  if (b->junk) evict(b->junk);
  if (b->nvvm)
    free(bench_nvvm_compile(b->nvvm, &b->ir, &b->ir_size, 1, "-arch=compute_75", true));
}

/* The median time of one parse of text, in seconds, and its token count. */
static double parse_time(const char *text, size_t n, int reps, const before *b, double *times,
                         size_t *num_toks) {
  for (int r = 0; r < reps; r++) {
    run_before(b);
    ir_module m;
    double t0 = bench_now();
    cuplug_error *e = cuplug__ir_module_parse(&m, "input.ll", text, n, cuplug__legalize_watch());
    times[r] = bench_now() - t0;
    if (e) {
      fprintf(stderr, "lex_bench: cannot parse: %s\n", e->message);
      exit(1);
    }
    *num_toks = m.num_toks;
    cuplug__ir_module_free(&m);
  }
  return bench_median(times, reps);
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/conformance/numba";
  int reps = argc > 2 ? atoi(argv[2]) : 201;
  if (reps < 1) reps = 1;
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "lex_bench: cannot read %s\n", dir);
    return 1;
  }
  char *names[256];
  int nc = 0;
  for (struct dirent *e; (e = readdir(d)) && nc < 256;)
    if (e->d_name[0] != '.') names[nc++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)nc, sizeof *names, by_name);
  unsigned char *junk = malloc(EVICT_BYTES);
  double *times = malloc(sizeof(double) * (size_t)reps);
  if (!junk || !times) return 1;
  memset(junk, 1, EVICT_BYTES);
  /* the smallest case's text is what libNVVM compiles before each parse */
  bench_nvvm nvvm;
  bool have_nvvm = bench_nvvm_load(&nvvm);
  char *small = NULL;
  size_t small_size = 0;
  for (int i = 0; i < nc && have_nvvm; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/input.ll", dir, names[i]);
    size_t n;
    char *text = bench_read_file(path, &n);
    if (text && (!small || n < small_size)) {
      free(small);
      small = text, small_size = n;
    } else {
      free(text);
    }
  }
  have_nvvm = small != NULL;
  const before nothing = {0}, evicting = {.junk = junk},
               compiling = {.nvvm = have_nvvm ? &nvvm : NULL, .ir = small, .ir_size = small_size};
  printf("%-14s %8s %7s %10s %10s %9s %9s %9s %9s\n", "case", "bytes", "tokens", "warm us",
         "cold us", "warm ns/t", "cold ns/t", "cold ns/B", "nvvm ns/t");
  double sum_warm = 0, sum_cold = 0, sum_nvvm = 0;
  size_t sum_bytes = 0, sum_toks = 0;
  for (int i = 0; i < nc; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/input.ll", dir, names[i]);
    size_t n;
    char *text = bench_read_file(path, &n);
    if (!text) continue;
    size_t toks = 0;
    double warm = parse_time(text, n, reps, &nothing, times, &toks);
    double cold = parse_time(text, n, reps, &evicting, times, &toks);
    double after = have_nvvm ? parse_time(text, n, reps, &compiling, times, &toks) : 0;
    printf("%-14.14s %8zu %7zu %10.2f %10.2f %9.2f %9.2f %9.2f %9.2f\n", names[i], n, toks,
           warm * 1e6, cold * 1e6, warm * 1e9 / (double)toks, cold * 1e9 / (double)toks,
           cold * 1e9 / (double)n, after * 1e9 / (double)toks);
    sum_warm += warm;
    sum_cold += cold;
    sum_nvvm += after;
    sum_bytes += n;
    sum_toks += toks;
    free(text);
  }
  printf("corpus: %zu bytes, %zu tokens; warm %.1f us (%.2f ns/token), cold %.1f us (%.2f "
         "ns/token, %.2f ns/byte)\n",
         sum_bytes, sum_toks, sum_warm * 1e6, sum_warm * 1e9 / (double)sum_toks, sum_cold * 1e6,
         sum_cold * 1e9 / (double)sum_toks, sum_cold * 1e9 / (double)sum_bytes);
  if (have_nvvm)
    printf("after libNVVM: %.1f us (%.2f ns/token)\n", sum_nvvm * 1e6,
           sum_nvvm * 1e9 / (double)sum_toks);
  else
    printf("after libNVVM: not measured (libNVVM did not load)\n");
  for (int i = 0; i < nc; i++) free(names[i]);
  free(small);
  free(junk);
  free(times);
  return 0;
}
