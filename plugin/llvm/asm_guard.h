/* asm_guard.h - what LLVM's text reader must not be handed. */
#ifndef CUPLUG__PLUGIN_LLVM_ASM_GUARD_H
#define CUPLUG__PLUGIN_LLVM_ASM_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "cuplug/cuplug.h"

/* Refuses an inline asm constraint string that holds '@' or '^' outside a
 * {register} (escapes decoded), before LLVM's parser sees the text: its
 * reader of those multi-letter codes (x86's and ARM's; NVPTX has none)
 * trusts the letters that should follow and reads past the string's end.
 * Errors: CUPLUG_ERR_IR_UNSUPPORTED, naming the module and the line. */
cuplug_error *cuplug__llvm_check_asm(const char *name, const char *text, size_t len);

/* The first '@' or '^' outside a {register} in the constraint string
 * [s, e) (with LLVM's \XX escapes decoded where `escaped`: the text's
 * form), and which it is; NULL when there is none.  Bitcode's constraint
 * strings are checked with it too (bitcode.h). */
const char *cuplug__asm_bad_constraint(const char *s, const char *e, bool escaped, char *which);

#endif
