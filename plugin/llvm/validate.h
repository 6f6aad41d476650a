/* validate.h - checking the input IR with LLVM before libNVVM sees it. */
#ifndef CUPLUG__PLUGIN_LLVM_VALIDATE_H
#define CUPLUG__PLUGIN_LLVM_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/ir.h"
#include "cuplug/cuplug.h"

/* What the IR's declaration of a function must say: the signature and ABI
 * it was registered with, and the key it was registered under. */
typedef struct cuplug__declared {
  const char *key;
  const cuplug_type *sig;
  cuplug_abi abi;
} cuplug__declared;

/* Looks a declared symbol (its first len bytes) up: true and *out when the
 * IR's declaration of it must be checked, false for other symbols.  The
 * caller of cuplug__validate supplies it (the registry, for a compile). */
typedef bool (*cuplug__declared_fn)(void *ctx, const char *symbol, size_t len,
                                    cuplug__declared *out);

/* Parses every module with LLVM (each text NUL-terminated: text[size] is
 * NUL), finds the definition of `entry` and checks its type against `sig`
 * under `abi` (NULL: the caller checked it), and checks every function the
 * modules declare for which `declared` (may be NULL) answers.  On success *entry_module is the index
 * of the module that defines the entry. */
cuplug_error *cuplug__validate(const cuplug__text *modules, size_t num_modules,
                               const char *entry, const cuplug_type *sig, cuplug_abi abi,
                               cuplug__declared_fn declared, void *ctx, size_t *entry_module);

/* Checks a lowering's IR: it parses, and defines `symbol` with the type of
 * `sig` under `abi`.  Errors are CUPLUG_ERR_LOWERING, naming `key`. */
cuplug_error *cuplug__validate_lowering(const cuplug__text *module, const char *key,
                                        const char *symbol, const cuplug_type *sig,
                                        cuplug_abi abi);

#endif
