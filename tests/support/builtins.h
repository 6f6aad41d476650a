/* builtins.h - the checks of the built-in CUDA library's values
 * (builtins.c), which each target's program runs on its target. */
#ifndef CUPLUG_TEST_BUILTINS_H
#define CUPLUG_TEST_BUILTINS_H

#include "support.h"

/* How a target builds and runs the checks' kernels. */
typedef struct t_target {
  cuplug_output output; /* what the kernels compile to */
  uint32_t flags;       /* and with which compile flags */
  bool synchronize;     /* a launch returns before its kernel is done */
  unsigned needs;       /* what every case needs (t_tcase) */
} t_target;

/* The suite "builtins" on `target` (which outlives it): a case per family
 * of built-ins (math, bits, half, warps, tuples, atomics, grid, arrays,
 * timers), each in a session of its own. */
Suite *t_builtins_suite(const t_target *target);

#endif
