/* function_edits.c - editing a function's header and attributes in place, and
 * what the passes that rewrite a Numba-ABI function share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "lowering/lowering.h"

void cuplug__drop_first_param(ir_rewrite *rw, const ir_function *fn) {
  if (fn->num_params > 1)
    cuplug__ir_edit_delete(&rw->edits, fn->params[0].all.start, fn->params[1].all.start);
  else if (fn->num_params == 1)
    cuplug__ir_edit_delete(&rw->edits, fn->params[0].all.start, fn->params[0].all.end);
}

size_t cuplug__ret_attachments(const char *text, const ir_stmt *s) {
  size_t md = cuplug__ir_operand_start(text, s->toks, s->n, 2, 1); /* ret <type> <value> */
  return md < s->n ? s->toks[md - 1].start : s->end;
}

cuplug_error *cuplug__find_define(const ir_module *m, const char *symbol,
                                  ir_function *fn, bool *found) {
  const ir_item *it = cuplug__ir_module_find(m, IR_ITEM_DEFINE, symbol);
  *found = it != NULL;
  if (!it) return NULL;
  return cuplug__ir_function_parse(m, it, fn);
}

/* Copies attribute group `grp` without the `remove` words as a new group;
 * returns its number, or -1 when the group holds none of them. */
static long copy_group_without(ir_rewrite *rw, const ir_item *grp, ir_wordset *remove) {
  const ir_tok *toks = rw->m.toks + grp->first;
  size_t n = grp->last - grp->first;
  bool hit = false;
  for (size_t i = 0; i < n; i++) hit |= cuplug__ir_word_in(remove, rw->m.text, toks[i]);
  if (!hit) return -1;
  long id = cuplug__ir_rewrite_attrs_id(rw);
  cuplug__buf_printf(&rw->tail, "attributes #%ld = {", id);
  /* the tokens between "attributes #N = {" and the closing "}" */
  size_t i = 0;
  while (i < n && !cuplug__ir_tok_punct(rw->m.text, toks[i], '{')) i++;
  size_t close = n;
  while (close > i && !cuplug__ir_tok_punct(rw->m.text, toks[close - 1], '}')) close--;
  if (close > i + 1)
    cuplug__put_legal_attrs(&rw->tail, rw->m.text, toks + i + 1, close - 1 - (i + 1), remove);
  cuplug__buf_puts(&rw->tail, " }\n");
  return id;
}

void cuplug__fn_attrs_edit(ir_rewrite *rw, const ir_function *fn, const char *add,
                           ir_wordset *remove) {
  const ir_tok *toks;
  size_t n = cuplug__ir_slice(&rw->m, fn->fn_attrs.start, fn->fn_attrs.end, &toks);
  /* Function attributes follow unnamed_addr and addrspace(N). */
  size_t add_at = fn->params_close + 1;
  for (size_t i = 0; i < n; i++) {
    ir_tok t = toks[i];
    if (cuplug__ir_tok_is(rw->m.text, t, "unnamed_addr") ||
        cuplug__ir_tok_is(rw->m.text, t, "local_unnamed_addr")) {
      add_at = t.start + t.len;
    } else if (cuplug__ir_tok_is(rw->m.text, t, "addrspace") && i + 3 < n) {
      add_at = toks[i + 3].start + toks[i + 3].len; /* addrspace ( N ) */
      i += 3;
    } else {
      break;
    }
  }
  for (size_t i = 0; i < n; i++) {
    ir_tok t = toks[i];
    if (cuplug__ir_word_in(remove, rw->m.text, t)) {
      cuplug__ir_edit_delete(&rw->edits, t.start, t.start + t.len);
    } else if (t.kind == IR_ATTRGRP) {
      char num[32];
      snprintf(num, sizeof num, "%.*s", (int)t.len - 1, rw->m.text + t.start + 1);
      const ir_item *grp = cuplug__ir_module_find(&rw->m, IR_ITEM_ATTRS, num);
      long id = grp ? copy_group_without(rw, grp, remove) : -1;
      if (id >= 0) {
        char ref[32];
        snprintf(ref, sizeof ref, "#%ld", id);
        cuplug__ir_edit_replace(&rw->edits, t.start, t.start + t.len, ref);
      }
    }
  }
  if (add) {
    char buf[64];
    snprintf(buf, sizeof buf, " %s", add);
    cuplug__ir_edit_insert(&rw->edits, add_at, buf);
  }
}
