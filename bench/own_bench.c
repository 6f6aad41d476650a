/* own_bench.c - cuplug's own work in a compile, alone: a trusted session
 * (libNVVM in this process) compiles every corpus case to LTO-IR, meant to
 * run with a libNVVM that does nothing (bench/own_cost.sh arranges it), so
 * that what it times is cuplug's passes, its bookkeeping and the C
 * library's, none of libNVVM's.
 *
 *   build/bin/own_bench [CORPUS_DIR] [REPEATS] [COLD_MIB] [CASE]
 *
 * For each case, the mean time of a compile (the artifact destroyed with
 * it) back to back ("warm"), and after COLD_MIB MiB of other memory was
 * read before each ("cold", as a compile runs after libNVVM or the host's
 * own work; 0 leaves it out).  CASE keeps one case, for a profiler or for
 * valgrind (own_cost.sh --instructions counts instructions a compile as
 * the difference of two runs).  There is no anchor: the figures are
 * followed from build to build and compared with libNVVM's time in
 * compile_bench's output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "corpus.h"

static volatile unsigned char sink;

/* Reads every cache line of `junk`. */
static void evict(const unsigned char *junk, size_t size) {
  unsigned char s = 0;
  for (size_t i = 0; i < size; i += 64) s ^= junk[i];
  sink = s;
}

/* The mean time of one compile of `c`, in seconds, after `junk` is read
 * (when given) before each. */
static double compile_time(const cuplug_api *api, cuplug_session *s, const bench_case *c,
                           long reps, const unsigned char *junk, size_t junk_size) {
  double sum = 0;
  for (long r = 0; r < reps; r++) {
    if (junk) evict(junk, junk_size);
    cuplug_compile_args a = c->args;
    a.session = s;
    a.output = CUPLUG_OUTPUT_LTOIR;
    double t0 = bench_now();
    cuplug_error *e = api->compile(&a);
    if (e) {
      fprintf(stderr, "own_bench: %s: %s\n", c->name, api->error_message(e));
      exit(1);
    }
    api->artifact_destroy(a.artifact);
    sum += bench_now() - t0;
  }
  return sum / reps;
}

/* argv[i] as a count of at most `max`, or `fallback` when absent; -1 when
 * it is not one. */
static long count_arg(int argc, char **argv, int i, long fallback, long max) {
  if (argc <= i) return fallback;
  char *end;
  long v = strtol(argv[i], &end, 10);
  return *argv[i] && !*end && v >= 0 && v <= max ? v : -1;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "tests/conformance/numba";
  long reps = count_arg(argc, argv, 2, 200, 1000000);
  long cold_mib = count_arg(argc, argv, 3, 32, 4096);
  const char *only = argc > 4 ? argv[4] : NULL;
  if (reps < 1 || cold_mib < 0) {
    fprintf(stderr, "usage: own_bench [CORPUS_DIR] [REPEATS >= 1] [COLD_MIB 0..4096] [CASE]\n");
    return 2;
  }
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api) {
    fprintf(stderr, "own_bench: libcuplug does not offer ABI %d.%d\n", CUPLUG_ABI_MAJOR,
            CUPLUG_ABI_MINOR);
    return 1;
  }
  cuplug_session *s;
  cuplug_session_options o = {.struct_size = sizeof o,
                              .flags = CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE};
  cuplug_error *e = api->session_create(&o, &s);
  if (e) {
    fprintf(stderr, "own_bench: %s\n", api->error_message(e));
    return 1;
  }
  bench_case *cases;
  int nc = bench_cases(dir, &cases);
  if (nc < 0) {
    fprintf(stderr, "own_bench: cannot read %s\n", dir);
    api->session_destroy(s);
    return 1;
  }
  size_t junk_size = (size_t)cold_mib << 20;
  unsigned char *junk = NULL;
  if (junk_size) {
    junk = malloc(junk_size);
    if (!junk) {
      fprintf(stderr, "own_bench: cannot allocate %ld MiB to read between compiles\n", cold_mib);
      bench_cases_free(cases, nc);
      api->session_destroy(s);
      return 1;
    }
    memset(junk, 1, junk_size);
  }
  printf("%-14s %10s %10s\n", "case", "warm us", "cold us");
  double warm_sum = 0, cold_sum = 0;
  int counted = 0;
  for (int d = 0; d < nc; d++) {
    if (only && strcmp(only, cases[d].name) != 0) continue;
    compile_time(api, s, &cases[d], 1, NULL, 0); /* the first of a kind loads what it needs */
    double warm = compile_time(api, s, &cases[d], reps, NULL, 0);
    double cold = junk ? compile_time(api, s, &cases[d], reps, junk, junk_size) : 0;
    printf("%-14.14s %10.1f %10.1f\n", cases[d].name, warm * 1e6, cold * 1e6);
    warm_sum += warm;
    cold_sum += cold;
    counted++;
  }
  if (only && !counted) fprintf(stderr, "own_bench: no case %s in %s\n", only, dir);
  printf("sum over %d cases: warm %.1f us, cold %.1f us (%ld MiB read before each)\n", counted,
         warm_sum * 1e6, cold_sum * 1e6, cold_mib);
  free(junk);
  bench_cases_free(cases, nc);
  api->session_destroy(s);
  return counted ? 0 : 1;
}
