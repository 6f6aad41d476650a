/* test_builtins.c - the values of the built-in CUDA library on the CPU
 * (host.builtins.*): the checks of tests/support/builtins.c, each kernel
 * compiled for the host (CUPLUG_OUTPUT_HOST) and run there, in host memory,
 * with the GPU's tolerances.  It needs no GPU, and no CUDA toolkit but for
 * the built-ins that call libdevice. */
#include "builtins.h"

/* a launch on the host returns when the kernel is done */
static const t_target host = {.output = CUPLUG_OUTPUT_HOST, .synchronize = false, .needs = T_HOST};

static Suite *suite_builtins(void) { return t_builtins_suite(&host); }

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"builtins", suite_builtins}};
  t_host_target = true; /* t_dev_* allocate host memory */
  return t_main(argc, argv, suites, 1);
}
