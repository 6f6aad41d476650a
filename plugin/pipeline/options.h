/* options.h - numba-cuda's rules for a compile's options. */
#ifndef CUPLUG__PLUGIN_PIPELINE_OPTIONS_H
#define CUPLUG__PLUGIN_PIPELINE_OPTIONS_H

#include <stdbool.h>

#include "cuplug/cuplug.h"

/* What the options come to, defaults resolved. */
typedef struct cuplug__options {
  cuplug_abi entry_abi; /* NUMBA or C */
  cuplug_abi abi;       /* the exported ABI: NUMBA or C */
  int opt;              /* libNVVM's -opt level, 0..3 */
  bool lto;             /* cubin output links LTO-IR */
} cuplug__options;

/* Checks the options of a compile (`all`: compile_all's) in numba-cuda's
 * order, each rule with its own code, and resolves the defaults: a's
 * output becomes PTX or LTO-IR when it is DEFAULT. */
cuplug_error *cuplug__check_options(cuplug_compile_args *a, bool all, cuplug__options *out);

#endif
