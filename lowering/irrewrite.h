/* irrewrite.h - edits of NVVM-dialect IR text, and the rewrite of a module
 * that passes share.
 *
 * libNVVM reads LLVM 7 IR with typed pointers; LLVM 22 can read that text
 * but not write it.  So every transformation cuplug makes (C-ABI wrapper,
 * kernel fix-up, exception store, legalisation) is an edit of the host's own
 * text: the module, parsed once (irparse.h), gives byte spans; passes record
 * edits that replace spans and new items to append; the module is written
 * once.  Everything that is not edited passes through byte for byte. */
#ifndef CUPLUG__LOWERING_IRREWRITE_H
#define CUPLUG__LOWERING_IRREWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "cuplug/cuplug.h"
#include "lowering/irparse.h"

/* ---- edits ---- */

typedef struct ir_edit {
  size_t start, end;
  char *text; /* replacement, owned */
  size_t seq; /* insertion order, to keep equal offsets stable */
} ir_edit;

typedef struct ir_edits {
  ir_edit *v;
  size_t n, cap;
  bool oom;
} ir_edits;

void cuplug__ir_edits_init(ir_edits *e);
void cuplug__ir_edits_free(ir_edits *e);
void cuplug__ir_edit_replace(ir_edits *e, size_t start, size_t end, const char *text);
void cuplug__ir_edit_insert(ir_edits *e, size_t at, const char *text);
void cuplug__ir_edit_delete(ir_edits *e, size_t start, size_t end);
/* Applies the edits to text into out.  Edits may not overlap, but one may
 * lie inside the span another replaces; it is then dropped. */
cuplug_error *cuplug__ir_edits_apply(ir_edits *e, const char *text, size_t len,
                             cuplug__buf *out);

/* ---- rewrites: a module, its edits, and the items to append ---- */

typedef struct ir_named_add {
  char *name;   /* named metadata, e.g. "nvvm.annotations" */
  cuplug__buf ids; /* ", !12, !13" to add */
} ir_named_add;

typedef struct ir_rewrite {
  ir_module m;
  ir_edits edits;
  cuplug__buf tail; /* new top-level items, appended at the end */
  long next_meta;
  long next_attrs;
  ir_named_add *named;
  size_t num_named;
} ir_rewrite;

/* Parses the module (with cuplug__ir_module_parse's `watch`) for passes to edit. */
cuplug_error *cuplug__ir_rewrite_begin(ir_rewrite *rw, const char *name, const char *text,
                               size_t len, ir_wordset *watch);
/* A fresh !N / #N number. */
long cuplug__ir_rewrite_meta_id(ir_rewrite *rw);
long cuplug__ir_rewrite_attrs_id(ir_rewrite *rw);
/* Adds node !id to the named metadata `name`, creating it if needed. */
void cuplug__ir_rewrite_named_meta(ir_rewrite *rw, const char *name, long id);
/* Applies everything; the result is malloc'd and NUL-terminated.  The
 * rewrite is released whether or not it succeeds.  Several passes may edit
 * one rewrite (see cuplug__ir_edits_apply for how their edits combine). */
cuplug_error *cuplug__ir_rewrite_finish(ir_rewrite *rw, char **out, size_t *out_len);
void cuplug__ir_rewrite_abort(ir_rewrite *rw);

#endif
