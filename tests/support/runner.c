/* runner.c - test cases that say what they need.  A case whose need is
 * missing (the CUDA toolkit, a GPU) is reported skipped, never run and never
 * counted as passed, while the other cases of its suite run: a contributor
 * without CUDA runs every test that needs none.  Each case is one ctest
 * entry, listed by the program itself (--list). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static bool have_no_gpu(void) { return !t_have_gpu(); }
static bool is_root(void) { return geteuid() == 0; }

static const struct need {
  unsigned bit;
  const char *word; /* the case's Check tag, and its word in --list */
  bool (*have)(void);
  const char *without; /* why the case is skipped */
} needs[] = {
    {T_NVVM, "nvvm", t_have_nvvm, "libNVVM not found (set CUDA_HOME)"},
    {T_NVRTC, "nvrtc", t_have_nvrtc, "NVRTC not found (set CUDA_HOME)"},
    {T_NVJITLINK, "nvjitlink", t_have_nvjitlink, "nvJitLink not found (set CUDA_HOME)"},
    {T_GPU, "gpu", t_have_gpu, "no CUDA device"},
    {T_NO_GPU, "nogpu", have_no_gpu,
     "a CUDA device is present (the gpu suite covers these calls)"},
    {T_HOST, "host", t_have_host, "the CPU target's library is not in this build"},
    {T_ROOT, "root", is_root, "not root (it gives a folder to another user)"},
    {T_CLANG, "clang", t_have_clang, "clang-22 not found (the case compiles CUDA C++ with it)"},
    {T_MLIR, "mlir", t_have_mlir,
     "mlir-opt-22 or mlir-translate-22 not found (the case lowers a gpu-dialect kernel)"},
    {T_REDIS, "redis", t_have_redis,
     "redis-server or hiredis not found (scripts/deps.sh: redis-server, libhiredis-dev)"},
};
enum { NUM_NEEDS = sizeof needs / sizeof needs[0] };

/* Check keeps no names a runner can read back: the cases are kept here. */
typedef struct known_case {
  const Suite *suite;
  char name[48];
  unsigned needs;
} known_case;

static known_case known[256];
static size_t num_known;

/* The words of `bits` (all of them, or only the missing ones), space-separated. */
static void words(unsigned bits, bool missing_only, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (size_t i = 0; i < NUM_NEEDS; i++) {
    if (!(bits & needs[i].bit) || (missing_only && needs[i].have())) continue;
    n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? " " : "", needs[i].word);
  }
}

/* Why a case of `bits` cannot run here (the first missing need), or NULL. */
static const char *missing(unsigned bits) {
  for (size_t i = 0; i < NUM_NEEDS; i++)
    if ((bits & needs[i].bit) && !needs[i].have()) return needs[i].without;
  return NULL;
}

TCase *t_tcase(Suite *suite, const char *name, unsigned needs_of_case, void (*setup)(void),
               void (*teardown)(void), double timeout) {
  if (num_known == sizeof known / sizeof known[0] || strlen(name) >= sizeof known[0].name ||
      name[strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_")] != '\0') {
    fprintf(stderr, "t_tcase: case '%s' is not a name, or one too many\n", name);
    abort();
  }
  for (size_t i = 0; i < num_known; i++) {
    if (known[i].suite == suite && !strcmp(known[i].name, name)) {
      fprintf(stderr, "t_tcase: two cases named '%s'\n", name);
      abort();
    }
  }
  known_case *k = &known[num_known++];
  k->suite = suite;
  snprintf(k->name, sizeof k->name, "%s", name);
  k->needs = needs_of_case;

  TCase *tc = tcase_create(name);
  char tags[128];
  words(needs_of_case, false, tags, sizeof tags);
  if (tags[0]) tcase_set_tags(tc, tags);
  if (setup || teardown) tcase_add_checked_fixture(tc, setup, teardown);
  if (timeout > 0) tcase_set_timeout(tc, timeout);
  suite_add_tcase(suite, tc);
  return tc;
}

/* Forgets the cases of a suite about to be freed: a later suite may get
 * its address. */
static void forget(const Suite *suite) {
  size_t kept = 0;
  for (size_t i = 0; i < num_known; i++)
    if (known[i].suite != suite) known[kept++] = known[i];
  num_known = kept;
}

static void release(Suite *suite) {
  forget(suite);
  srunner_free(srunner_create(suite));
}

/* Runs the cases of `suite` (only `name`, unless NULL) that are not
 * skipped; the exclusion is by the tags of the needs missing here. */
static int run_cases(Suite *suite, const char *name, unsigned all_needs) {
  char exclude[128];
  words(all_needs, true, exclude, sizeof exclude);
  SRunner *sr = srunner_create(suite);
  /* Once this process has initialised CUDA (asking what is there does), a
   * forked child cannot use it: where there is a GPU, tests run in-process.
   * Cases that need nothing ask nothing, and fork. */
  if (all_needs && !getenv("CK_FORK") && t_have_gpu()) srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_tagged(sr, NULL, name, NULL, exclude[0] ? exclude : NULL, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  forget(suite);
  srunner_free(sr);
  return failed;
}

/* Runs `suite`'s case `name`, or (NULL) every case whose needs are met. */
static int run(Suite *suite, const char *name) {
  size_t matched = 0, skipped = 0;
  unsigned all_needs = 0;
  for (size_t i = 0; i < num_known; i++) {
    const known_case *k = &known[i];
    if (k->suite != suite || (name && strcmp(k->name, name) != 0)) continue;
    matched++;
    all_needs |= k->needs;
    const char *why = missing(k->needs);
    if (why) {
      printf("skipped: %s: %s\n", k->name, why);
      skipped++;
    }
  }
  if (!matched) {
    fprintf(stderr, "no case '%s'\n", name ? name : "");
    release(suite);
    return 2;
  }
  if (skipped == matched) {
    release(suite);
    return T_SKIP;
  }
  fflush(stdout); /* before Check forks: a child would print it again */
  int failed = run_cases(suite, name, all_needs);
  return failed ? 1 : skipped ? T_SKIP : 0;
}

static void list(Suite *suite, const char *suite_name) {
  for (size_t i = 0; i < num_known; i++) {
    if (known[i].suite != suite) continue;
    char w[128];
    words(known[i].needs, false, w, sizeof w);
    printf("%s.%s%s%s\n", suite_name, known[i].name, w[0] ? " " : "", w);
  }
  release(suite);
}

int t_main(int argc, char **argv, const t_suite_def *suites, size_t num_suites) {
  if (argc == 2 && !strcmp(argv[1], "--list")) {
    for (size_t i = 0; i < num_suites; i++) list(suites[i].make(), suites[i].name);
    return 0;
  }
  if (argc != 2 || argv[1][0] == '-') {
    fprintf(stderr, "usage: %s SUITE[.CASE] | --list\n", argv[0]);
    return 2;
  }
  const char *dot = strchr(argv[1], '.');
  size_t len = dot ? (size_t)(dot - argv[1]) : strlen(argv[1]);
  for (size_t i = 0; i < num_suites; i++) {
    if (strlen(suites[i].name) != len || strncmp(suites[i].name, argv[1], len) != 0) continue;
    return run(suites[i].make(), dot ? dot + 1 : NULL);
  }
  fprintf(stderr, "%s: no suite '%.*s'\n", argv[0], (int)len, argv[1]);
  return 2;
}
