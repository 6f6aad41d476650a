/* main.c - runs one unit suite by name: cuplug_unit <suite>. */
#include <stdio.h>
#include <string.h>

#include "support.h"

Suite *suite_types(void);
Suite *suite_irtext(void);
Suite *suite_lowering(void);
Suite *suite_legalize(void);
Suite *suite_options(void);
Suite *suite_compile(void);
Suite *suite_link(void);
Suite *suite_registry(void);
Suite *suite_builtins(void);
Suite *suite_nogpu(void);
Suite *suite_safety(void);
Suite *suite_limits(void);
Suite *suite_handoff(void);
Suite *suite_cache(void);

static const struct {
  const char *name;
  Suite *(*make)(void);
  bool needs_nvvm; /* compiles through libNVVM */
  bool no_gpu;     /* checks what the GPU calls say without a GPU */
} suites[] = {
    {"types", suite_types, false, false},       {"irtext", suite_irtext, false, false},
    {"lowering", suite_lowering, false, false}, {"legalize", suite_legalize, false, false},
    {"options", suite_options, true, false},    {"compile", suite_compile, true, false},
    {"link", suite_link, true, false},          {"registry", suite_registry, true, false},
    {"builtins", suite_builtins, true, false},  {"nogpu", suite_nogpu, false, true},
    {"safety", suite_safety, true, false},      {"limits", suite_limits, true, false},
    {"handoff", suite_handoff, true, false},   {"cache", suite_cache, true, false},
};

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: cuplug_unit SUITE\n");
    return 2;
  }
  for (size_t i = 0; i < sizeof suites / sizeof suites[0]; i++) {
    if (strcmp(argv[1], suites[i].name) != 0) continue;
    if (suites[i].needs_nvvm && !t_have_nvvm()) {
      printf("skipped: libNVVM not found (set CUDA_HOME)\n");
      return T_SKIP;
    }
    if (suites[i].no_gpu && t_have_gpu()) {
      /* there the calls succeed: skipped, never counted as passed */
      printf("skipped: a CUDA device is present (the gpu suite covers these calls)\n");
      return T_SKIP;
    }
    return t_run_suite(suites[i].make());
  }
  fprintf(stderr, "cuplug_unit: no suite '%s'\n", argv[1]);
  return 2;
}
