/* irtype.h - a type written in IR text, read into one spelling.
 *
 * LLVM 22 reads `i32*` as `ptr`: what a pointer points at is only in the
 * text.  A type read from its tokens is written back as llvmlite writes it
 * ({float, float}, [2 x i64], i8*, float addrspace(1)*), named types
 * (%T = type {...}) replaced by their bodies, so that two spellings of one
 * type compare equal as strings. */
#ifndef CUPLUG__LOWERING_IRTYPE_H
#define CUPLUG__LOWERING_IRTYPE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "lowering/irparse.h"

typedef struct ir_type_text {
  const ir_module *m; /* resolves named types; NULL: a named type is unreadable */
  const char *text;   /* the text the tokens index */
  const ir_tok *toks;
  size_t n;
  bool opaque;        /* write every pointer `ptr`: what an opaque pointer keeps */
} ir_type_text;

/* Appends the spelling of the type that toks[0..n) are to out.  False when
 * they are not exactly one type cuplug can read (an opaque or recursive
 * named type, a target type, a syntax it does not know); out is then left
 * as it was.  *saw_ptr (may be NULL) is set when the type writes `ptr`. */
bool cuplug__ir_type_spell(const ir_type_text *t, cuplug__buf *out, bool *saw_ptr);

/* The same for a type written in a string (NUL-terminated), as base/types.c
 * writes the data model's; out as above. */
bool cuplug__ir_type_spell_string(const char *type, bool opaque, cuplug__buf *out);

#endif
