/* runtime.h - what the NVVM intrinsics and known inline PTX do on the CPU (runtime.c). */
#ifndef CUPLUG__PLUGIN_CPU_RUNTIME_H
#define CUPLUG__PLUGIN_CPU_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/cpu/symbol.h"

const cuplug__cpu_symbol *cuplug__cpu_runtime_symbols(size_t *n);
/* Is `name` (after "llvm.nvvm.") an intrinsic the runtime implements? */
bool cuplug__cpu_runtime_has(const char *intrinsic);
/* The runtime function for a known inline-assembly string, or NULL. */
const char *cuplug__cpu_runtime_asm(const char *asm_text);
/* Does the runtime function synchronise threads (a barrier, a warp op)? */
bool cuplug__cpu_runtime_collective(const char *intrinsic);

#endif
