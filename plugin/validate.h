/* validate.h - checking the input IR with LLVM before libNVVM sees it. */
#ifndef CUPLUG_VALIDATE_H
#define CUPLUG_VALIDATE_H

#include <stddef.h>

#include "cuplug/cuplug.h"
#include "registry.h"

typedef struct cuplug__text {
  const char *name;
  const char *text;
  size_t size;
} cuplug__text;

/* Parses every module with LLVM (each text NUL-terminated: text[size] is
 * NUL), finds the definition of `entry` and checks its type against `sig`
 * under `abi`, and the type of every function the modules declare that
 * `registry` (may be NULL) holds against its declared signature.  On
 * success *entry_module is the index of the module that defines the entry. */
cuplug_error *cuplug__validate(const cuplug__text *modules, size_t num_modules,
                               const char *entry, const cuplug_type *sig, cuplug_abi abi,
                               cuplug_registry *registry, size_t *entry_module);

/* Checks a lowering's IR: it parses, and defines `symbol` with the type of
 * `sig` under `abi`.  Errors are CUPLUG_ERR_LOWERING, naming `key`. */
cuplug_error *cuplug__validate_lowering(const cuplug__text *module, const char *key,
                                        const char *symbol, const cuplug_type *sig,
                                        cuplug_abi abi);

#endif
