/* test_builtins.c - the values of the built-in CUDA library on the GPU
 * (gpu.builtins.*): the checks of tests/support/builtins.c, each kernel a
 * cubin for the current device.  Without libNVVM, nvJitLink or a CUDA
 * device every case reports itself skipped (exit 77). */
#include "builtins.h"

static const t_target gpu = {.output = CUPLUG_OUTPUT_CUBIN,
                             .flags = CUPLUG_COMPILE_CURRENT_DEVICE,
                             .synchronize = true,
                             .needs = T_NVVM | T_NVJITLINK | T_GPU};

static Suite *suite_builtins(void) { return t_builtins_suite(&gpu); }

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"builtins", suite_builtins}};
  return t_main(argc, argv, suites, 1);
}
