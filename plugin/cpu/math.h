/* math.h - the NVVM intrinsics libdevice calls, and its inline PTX, by
 * intrinsic name (after "llvm.nvvm."; "asm.<what>" for the assembly) (math.c). */
#ifndef CUPLUG__PLUGIN_CPU_MATH_H
#define CUPLUG__PLUGIN_CPU_MATH_H

#include <stddef.h>

#include "plugin/cpu/symbol.h"

const cuplug__cpu_symbol *cuplug__cpu_math_symbols(size_t *n);

#endif
