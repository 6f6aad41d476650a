/* sigcheck.h - a function's header in IR text against a signature.
 *
 * A signature that disagrees with the IR makes code that reads and writes
 * memory at the wrong size: a float64 stored through the IR's i64* return
 * slot, a float kernel handed int8 arrays.  The pipeline compares the
 * entry's definition, and the IR's declaration of each registered
 * function, with its signature before anything runs.  LLVM reads `i8*` as
 * `ptr`; the text still says what each pointer points at (irtype.h). */
#ifndef CUPLUG__LOWERING_SIGCHECK_H
#define CUPLUG__LOWERING_SIGCHECK_H

#include <stdbool.h>

#include "cuplug/cuplug.h"
#include "lowering/irparse.h"

typedef struct cuplug__sig_check {
  /* the function, for messages: "<what> @<symbol>", and " (<key>)" where
   * the registry's key differs from the symbol (key may be NULL); only an
   * error formats them */
  const char *what;       /* "entry", "the IR's declaration of" */
  const char *symbol;
  const char *key;
  const cuplug_type *sig; /* a signature */
  cuplug_abi abi;         /* NUMBA or C */
  cuplug_status code;     /* the error's: ENTRY_MISMATCH or DECLARATION_MISMATCH */
} cuplug__sig_check;

/* Compares the header of fn, a definition or declaration in m, with the
 * signature under its ABI (base/types.h: the return type, and each
 * parameter's type, pointees, array members and struct fields included).
 * Returns NULL with *known set when they agree; an error of c->code that
 * names the first parameter that disagrees (its index, what it is in the
 * signature, its type in the IR and the signature's); or NULL with *known
 * false when a type that matters is one cuplug cannot read (a named type
 * with an opaque body, a target type), which leaves the word to LLVM.
 * Where the IR writes an opaque `ptr`, only that it is a pointer (and its
 * address space) can be compared: not what it points at. */
cuplug_error *cuplug__ir_check_signature(const ir_module *m, const ir_function *fn,
                                         const cuplug__sig_check *c, bool *known);

#endif
