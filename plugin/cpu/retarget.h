/* retarget.h - NVVM IR made IR for this CPU (retarget.c). */
#ifndef CUPLUG__PLUGIN_CPU_RETARGET_H
#define CUPLUG__PLUGIN_CPU_RETARGET_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>

#include "base/ir.h"
#include "plugin/cpu/cabi.h"

typedef struct cuplug__cpu_retarget_args {
  LLVMModuleRef module;
  const char *triple, *layout;
  const cuplug__text *sources; /* the caller's texts, for line numbers */
  size_t num_sources;
  const char *const *kernels;
  size_t num_kernels;
  const char *const *externs; /* functions the host provides */
  size_t num_externs;
  const cuplug__cpu_cabi_fn *exports; /* given the C ABI (cabi.c) */
  size_t num_exports;
  const cuplug__cpu_cabi_fn *imports; /* host functions called by the C ABI */
  size_t num_imports;
  bool uses_collectives; /* out */
} cuplug__cpu_retarget_args;
int cuplug__cpu_retarget(cuplug__cpu_retarget_args *a, char **msg);

#endif
