/* dialect.h - which kind of LLVM IR a module's bytes are. */
#ifndef CUPLUG__LOWERING_DIALECT_H
#define CUPLUG__LOWERING_DIALECT_H

#include <stddef.h>

typedef enum cuplug__dialect {
  CUPLUG__DIALECT_TYPED = 0, /* numba-cuda's LLVM 7 text (typed pointers), or text
                                of no pointer that LLVM 7 reads */
  CUPLUG__DIALECT_MODERN = 1, /* text of no typed pointer that spells the opaque
                                 `ptr` type, holds a debug record (`#dbg_value`),
                                 or has what LLVM 7 cannot read (dialect.c) */
  CUPLUG__DIALECT_BITCODE = 2 /* bitcode: raw, or in its 0x0B17C0DE wrapper */
} cuplug__dialect;

/* Tells the dialect from the bytes alone (no LLVM): text with a typed
 * pointer (`i8*`) is typed at its first one; other text takes one pass, in
 * which a `ptr` type is a bare word, never a name (%ptr, @ptr_x), a label
 * (ptr:), a string or a comment, and a debug record is `#dbg_` outside
 * strings and comments. */
cuplug__dialect cuplug__ir_dialect(const char *bytes, size_t size);

#endif
