/* irrewrite.c - edits recorded against a module's text, and applied once. */
#include "lowering/irrewrite.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* ---- edits ---- */

void cuplug__ir_edits_init(ir_edits *e) { memset(e, 0, sizeof *e); }

void cuplug__ir_edits_free(ir_edits *e) {
  for (size_t i = 0; i < e->n; i++) free(e->v[i].text);
  free(e->v);
  cuplug__ir_edits_init(e);
}

void cuplug__ir_edit_replace(ir_edits *e, size_t start, size_t end, const char *text) {
  if (e->oom) return;
  if (e->n == e->cap) {
    size_t nc = e->cap ? e->cap * 2 : 16;
    ir_edit *v = realloc(e->v, nc * sizeof *v);
    if (!v) {
      e->oom = true;
      return;
    }
    e->v = v;
    e->cap = nc;
  }
  char *copy = cuplug__strdup(text ? text : "");
  if (!copy) {
    e->oom = true;
    return;
  }
  e->v[e->n] = (ir_edit){start, end, copy, e->n};
  e->n++;
}

void cuplug__ir_edit_insert(ir_edits *e, size_t at, const char *text) {
  cuplug__ir_edit_replace(e, at, at, text);
}

void cuplug__ir_edit_delete(ir_edits *e, size_t start, size_t end) {
  cuplug__ir_edit_replace(e, start, end, "");
}

static int edit_cmp(const void *a, const void *b) {
  const ir_edit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  /* insertions (empty spans) before replacements at the same offset, and
   * the longer of two replacements first, so that it swallows the other */
  bool xi = x->start == x->end, yi = y->start == y->end;
  if (xi != yi) return xi ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* Into text order.  A compile makes a few dozen edits, pass by pass, each
 * pass's in text order: a short list is sorted by insertion, with no call
 * of qsort's (which a compile, running cold after the toolkit's, feels). */
static void sort_edits(ir_edits *e) {
  if (e->n > 32) {
    qsort(e->v, e->n, sizeof *e->v, edit_cmp);
    return;
  }
  for (size_t i = 1; i < e->n; i++) {
    ir_edit d = e->v[i];
    size_t k = i;
    for (; k > 0 && edit_cmp(&e->v[k - 1], &d) > 0; k--) e->v[k] = e->v[k - 1];
    e->v[k] = d;
  }
}

cuplug_error *cuplug__ir_edits_apply(ir_edits *e, const char *text, size_t len,
                             cuplug__buf *out) {
  if (e->oom) return cuplug__error_oom();
  sort_edits(e);
  size_t pos = 0;
  if (!cuplug__buf_reserve(out, len + 256)) return cuplug__error_oom();
  for (size_t i = 0; i < e->n; i++) {
    const ir_edit *d = &e->v[i];
    /* An edit inside text another edit replaced goes with that text: a
     * pass that deletes a statement outranks one that tidies a token in it. */
    if (d->start < pos && d->end <= pos && i > 0) continue;
    if (d->end < d->start || d->end > len)
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                           "internal error: an IR edit of bytes %zu..%zu outside the text of "
                           "%zu bytes",
                           d->start, d->end, len);
    if (d->start < pos)
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                           "internal error: overlapping IR edits at byte %zu", d->start);
    cuplug__buf_append(out, text + pos, d->start - pos);
    cuplug__buf_puts(out, d->text);
    pos = d->end;
  }
  cuplug__buf_append(out, text + pos, len - pos);
  return out->oom ? cuplug__error_oom() : NULL;
}

/* ---- rewrites ---- */

cuplug_error *cuplug__ir_rewrite_begin(ir_rewrite *rw, const char *name, const char *text,
                               size_t len, ir_wordset *watch) {
  memset(rw, 0, sizeof *rw);
  CUPLUG__TRY(cuplug__ir_module_parse(&rw->m, name, text, len, watch));
  cuplug__ir_edits_init(&rw->edits);
  cuplug__buf_init(&rw->tail);
  rw->next_meta = rw->m.max_meta + 1;
  rw->next_attrs = rw->m.max_attrs + 1;
  return NULL;
}

long cuplug__ir_rewrite_meta_id(ir_rewrite *rw) { return rw->next_meta++; }
long cuplug__ir_rewrite_attrs_id(ir_rewrite *rw) { return rw->next_attrs++; }

void cuplug__ir_rewrite_named_meta(ir_rewrite *rw, const char *name, long id) {
  ir_named_add *a = NULL;
  for (size_t i = 0; i < rw->num_named; i++)
    if (strcmp(rw->named[i].name, name) == 0) a = &rw->named[i];
  if (!a) {
    ir_named_add *v = realloc(rw->named, (rw->num_named + 1) * sizeof *v);
    if (!v) {
      rw->edits.oom = true;
      return;
    }
    rw->named = v;
    a = &v[rw->num_named];
    a->name = cuplug__strdup(name);
    cuplug__buf_init(&a->ids);
    if (!a->name) {
      rw->edits.oom = true;
      return;
    }
    rw->num_named++;
  }
  cuplug__buf_printf(&a->ids, ", !%ld", id);
}

/* Adds the pending named-metadata nodes: into the existing list when the
 * module has one, else as a new item. */
static void flush_named(ir_rewrite *rw) {
  for (size_t i = 0; i < rw->num_named; i++) {
    ir_named_add *a = &rw->named[i];
    const char *ids = a->ids.data ? a->ids.data : "";
    const ir_item *it = cuplug__ir_module_find(&rw->m, IR_ITEM_NAMED_META, a->name);
    if (it) {
      /* before the list's closing brace: the item's last '}' token (a
       * trailing comment is no token) */
      const ir_tok *toks = rw->m.toks + it->first;
      size_t n = it->last - it->first;
      while (n && !cuplug__ir_tok_punct(rw->m.text, toks[n - 1], '}')) n--;
      if (!n) continue;
      bool empty = n >= 2 && cuplug__ir_tok_punct(rw->m.text, toks[n - 2], '{');
      cuplug__ir_edit_insert(&rw->edits, toks[n - 1].start, empty ? ids + 2 : ids);
    } else {
      cuplug__buf_putc(&rw->tail, '!');
      cuplug__buf_puts(&rw->tail, a->name);
      cuplug__buf_printf(&rw->tail, " = !{%s}\n", ids + 2);
    }
  }
}

static void rewrite_release(ir_rewrite *rw) {
  for (size_t i = 0; i < rw->num_named; i++) {
    free(rw->named[i].name);
    cuplug__buf_free(&rw->named[i].ids);
  }
  free(rw->named);
  cuplug__ir_edits_free(&rw->edits);
  cuplug__buf_free(&rw->tail);
  cuplug__ir_module_free(&rw->m);
  memset(rw, 0, sizeof *rw);
}

void cuplug__ir_rewrite_abort(ir_rewrite *rw) { rewrite_release(rw); }

cuplug_error *cuplug__ir_rewrite_finish(ir_rewrite *rw, char **out, size_t *out_len) {
  flush_named(rw);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug_error *e = cuplug__ir_edits_apply(&rw->edits, rw->m.text, rw->m.len, &b);
  if (!e && rw->tail.len) {
    if (b.len && b.data[b.len - 1] != '\n') cuplug__buf_putc(&b, '\n');
    cuplug__buf_append(&b, rw->tail.data, rw->tail.len);
  }
  if (!e && rw->tail.oom) e = cuplug__error_oom();
  rewrite_release(rw);
  if (e) {
    cuplug__buf_free(&b);
    return e;
  }
  *out = cuplug__buf_take(&b, out_len);
  return *out ? NULL : cuplug__error_oom();
}
