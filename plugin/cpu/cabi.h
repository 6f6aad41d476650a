/* cabi.h - the C ABI of this platform for the functions a host library
 * exports and the host functions it calls (cabi.c). */
#ifndef CUPLUG__PLUGIN_CPU_CABI_H
#define CUPLUG__PLUGIN_CPU_CABI_H

#include <stdbool.h>

#include <llvm-c/Core.h>

#include "base/types.h"

/* A function of the IR whose parameters are its signature flattened as
 * numba-cuda's C ABI flattens them (a complex as two parts, an array as
 * its 5 + 2N members, a tuple as its members'), returning a first-class
 * value; under the Numba ABI `i32 f(R *ret, parts...)`. */
typedef struct cuplug__cpu_cabi_fn {
  const char *name;
  const cuplug_type *sig;
  bool numba; /* int f(R *ret, args...) rather than R f(args...) */
} cuplug__cpu_cabi_fn;

/* The function the IR defines becomes `<name>.flat` (internal) and `name`
 * a wrapper that takes and returns each type as the C ABI passes its C
 * type.  CUPLUG_ERR_ENTRY_MISMATCH when the IR's parameters are not the
 * signature's. */
int cuplug__cpu_cabi_export(LLVMModuleRef m, const cuplug__cpu_cabi_fn *f, char **msg);

/* The function the IR declares gets a body that calls a new declaration
 * of `name`, the host's C function, as the C ABI calls it (nothing when
 * the IR does not declare it).  CUPLUG_ERR_DECLARATION_MISMATCH when the
 * IR's parameters are not the signature's. */
int cuplug__cpu_cabi_import(LLVMModuleRef m, const cuplug__cpu_cabi_fn *f, char **msg);

#endif
