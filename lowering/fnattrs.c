/* fnattrs.c - editing a function's attributes in place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lowering.h"

cuplug_error *cuplug__find_define(const ir_module *m, const char *symbol,
                                  ir_function *fn, bool *found) {
  const ir_item *it = ir_module_find(m, IR_ITEM_DEFINE, symbol);
  *found = it != NULL;
  if (!it) return NULL;
  return ir_function_parse(m, it, fn);
}

static bool word_in(const char *text, ir_tok t, const char *const *words) {
  if (t.kind != IR_WORD || !words) return false;
  for (size_t i = 0; words[i]; i++)
    if (ir_tok_is(text, t, words[i])) return true;
  return false;
}

/* Copies attribute group `grp` without the `remove` words as a new group;
 * returns its number, or -1 when the group holds none of them. */
static long copy_group_without(ir_rewrite *rw, const ir_item *grp,
                               const char *const *remove) {
  ir_tok *toks;
  size_t n;
  if (ir_tokens(&rw->m, grp->start, grp->end, &toks, &n)) {
    rw->edits.oom = true;
    return -1;
  }
  bool hit = false;
  for (size_t i = 0; i < n; i++) hit |= word_in(rw->m.text, toks[i], remove);
  long id = -1;
  if (hit) {
    id = ir_rewrite_attrs_id(rw);
    cuplug__buf_printf(&rw->tail, "attributes #%ld = {", id);
    /* tokens after "attributes #N = {" up to the closing "}" */
    size_t i = 0;
    while (i < n && !ir_tok_punct(rw->m.text, toks[i], '{')) i++;
    for (i++; i < n && !ir_tok_punct(rw->m.text, toks[i], '}'); i++) {
      if (word_in(rw->m.text, toks[i], remove)) continue;
      bool glue = i > 0 && toks[i].start == toks[i - 1].start + toks[i - 1].len;
      if (!glue) cuplug__buf_putc(&rw->tail, ' ');
      cuplug__buf_append(&rw->tail, rw->m.text + toks[i].start, toks[i].len);
    }
    cuplug__buf_puts(&rw->tail, " }\n");
  }
  free(toks);
  return id;
}

void cuplug__fn_attrs_edit(ir_rewrite *rw, const ir_function *fn, const char *add,
                           const char *const *remove) {
  ir_tok *toks;
  size_t n;
  if (ir_tokens(&rw->m, fn->fn_attrs.start, fn->fn_attrs.end, &toks, &n)) {
    rw->edits.oom = true;
    return;
  }
  /* Function attributes follow unnamed_addr and addrspace(N). */
  size_t add_at = fn->params_close + 1;
  for (size_t i = 0; i < n; i++) {
    ir_tok t = toks[i];
    if (ir_tok_is(rw->m.text, t, "unnamed_addr") ||
        ir_tok_is(rw->m.text, t, "local_unnamed_addr")) {
      add_at = t.start + t.len;
    } else if (ir_tok_is(rw->m.text, t, "addrspace") && i + 3 < n) {
      add_at = toks[i + 3].start + toks[i + 3].len; /* addrspace ( N ) */
      i += 3;
    } else {
      break;
    }
  }
  for (size_t i = 0; i < n; i++) {
    ir_tok t = toks[i];
    if (word_in(rw->m.text, t, remove)) {
      ir_edit_delete(&rw->edits, t.start, t.start + t.len);
    } else if (t.kind == IR_ATTRGRP) {
      char num[32];
      snprintf(num, sizeof num, "%.*s", (int)t.len - 1, rw->m.text + t.start + 1);
      const ir_item *grp = ir_module_find(&rw->m, IR_ITEM_ATTRS, num);
      long id = grp ? copy_group_without(rw, grp, remove) : -1;
      if (id >= 0) {
        char ref[32];
        snprintf(ref, sizeof ref, "#%ld", id);
        ir_edit_replace(&rw->edits, t.start, t.start + t.len, ref);
      }
    }
  }
  free(toks);
  if (add) {
    char buf[64];
    snprintf(buf, sizeof buf, " %s", add);
    ir_edit_insert(&rw->edits, add_at, buf);
  }
}
