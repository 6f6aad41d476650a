/* kernel_fixup.c - turn a Numba-ABI function into a kernel.
 *
 * As numba-cuda's kernel_fixup: every `ret i32 <status>` becomes `ret void`
 * (in debug mode after a call to the exception helper with the status),
 * stores to the return slot go, the return slot parameter goes, `noinline`
 * goes, the debug-info subroutine type loses its first element (the return
 * slot), and the function is marked as a kernel, with its launch bounds, in
 * !nvvm.annotations and kept alive by @llvm.used.
 *
 * When the return slot is an unnamed parameter (%0), every numbered value
 * of the function is renumbered down by one, since LLVM requires numbered
 * values to be consecutive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lowering.h"

typedef struct fixup {
  ir_rewrite *rw;
  const char *text;
  const char *entry;
  const ir_function *fn;
  ir_tok slot;    /* the return slot's name token, or IR_EOF if unnamed */
  char *slot_name; /* decoded, or NULL when unnamed (then it is %0) */
  bool renumber;
  bool debug;
} fixup;

/* Is token t a reference to the return slot? */
static bool is_slot(const fixup *f, ir_tok t) {
  if (t.kind != IR_LOCAL) return false;
  if (f->renumber) {
    unsigned long num;
    return ir_tok_numbered(f->text, t, &num) && num == 0;
  }
  char *name = ir_tok_name(f->text, t);
  bool same = name && strcmp(name, f->slot_name) == 0;
  free(name);
  return same;
}

/* Appends text [start, end) with numbered locals shifted down by one when
 * renumbering. */
static cuplug_error *put_renumbered(const fixup *f, cuplug__buf *b, size_t start,
                                    size_t end) {
  if (!f->renumber) {
    cuplug__buf_append(b, f->text + start, end - start);
    return NULL;
  }
  ir_tok *toks;
  size_t n;
  CUPLUG_TRY(ir_tokens(&f->rw->m, start, end, &toks, &n));
  size_t pos = start;
  for (size_t i = 0; i < n; i++) {
    unsigned long num;
    if (ir_tok_numbered(f->text, toks[i], &num) && toks[i].kind == IR_LOCAL && num > 0) {
      cuplug__buf_append(b, f->text + pos, toks[i].start - pos);
      cuplug__buf_printf(b, "%%%lu", num - 1);
      pos = toks[i].start + toks[i].len;
    }
  }
  cuplug__buf_append(b, f->text + pos, end - pos);
  free(toks);
  return NULL;
}

/* Renumbers the numbered locals of [start, end) in place (as edits). */
static cuplug_error *renumber_span(fixup *f, size_t start, size_t end,
                                   bool labels_too) {
  if (!f->renumber) return NULL;
  ir_tok *toks;
  size_t n;
  CUPLUG_TRY(ir_tokens(&f->rw->m, start, end, &toks, &n));
  for (size_t i = 0; i < n; i++) {
    unsigned long num;
    char buf[32];
    if (toks[i].kind == IR_LOCAL && ir_tok_numbered(f->text, toks[i], &num) && num > 0) {
      snprintf(buf, sizeof buf, "%%%lu", num - 1);
      ir_edit_replace(&f->rw->edits, toks[i].start, toks[i].start + toks[i].len, buf);
    } else if (labels_too && i == 0 && toks[i].kind == IR_NUMBER && n > 1 &&
               ir_tok_punct(f->text, toks[1], ':')) {
      num = strtoul(f->text + toks[i].start, NULL, 10);
      snprintf(buf, sizeof buf, "%lu", num ? num - 1 : 0);
      ir_edit_replace(&f->rw->edits, toks[i].start, toks[i].start + toks[i].len, buf);
    }
  }
  free(toks);
  return NULL;
}

/* Splits the tokens of a statement at its top-level commas; returns the
 * index of the token that starts operand `which` (0-based), or n. */
static size_t operand_start(const char *text, const ir_tok *toks, size_t n,
                            size_t first, size_t which) {
  int depth = 0;
  size_t k = 0;
  if (which == 0) return first;
  for (size_t i = first; i < n; i++) {
    ir_tok t = toks[i];
    if (t.kind == IR_PUNCT && t.len == 1) {
      char c = text[t.start];
      if (c == '(' || c == '[' || c == '{' || c == '<') depth++;
      if (c == ')' || c == ']' || c == '}' || c == '>') depth--;
      if (c == ',' && depth == 0 && ++k == which) return i + 1;
    }
  }
  return n;
}

static cuplug_error *unsupported(const fixup *f, size_t at, const char *what) {
  return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED, "%s:%zu: kernel @%s: %s",
                       f->rw->m.name, ir_line_of(&f->rw->m, at), f->entry, what);
}

/* ret i32 <status>[, !dbg !N]  ->  [call exc_helper(status)] ret void */
static cuplug_error *fix_ret(fixup *f, const ir_stmt *s, const ir_tok *toks, size_t n) {
  size_t val = 2; /* ret <type> <value> */
  if (n < 3) {
    if (n == 2 && ir_tok_is(f->text, toks[1], "void")) return NULL;
    return unsupported(f, s->start, "a return without a status value");
  }
  size_t md = operand_start(f->text, toks, n, val, 1); /* ", !dbg ..." */
  size_t val_end = md < n ? toks[md - 1].start : s->end;
  size_t md_text = md < n ? toks[md - 1].start : s->end; /* from the comma */
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (f->debug) {
    char *helper_name = NULL;
    cuplug__buf hn;
    cuplug__buf_init(&hn);
    cuplug__buf_puts(&hn, f->entry);
    cuplug__buf_puts(&hn, "__exc_helper__");
    helper_name = cuplug__buf_take(&hn, NULL);
    cuplug__buf_puts(&b, "call void ");
    ir_put_name(&b, '@', helper_name ? helper_name : "");
    free(helper_name);
    cuplug__buf_puts(&b, "(i32 ");
    cuplug_error *e = put_renumbered(f, &b, toks[val].start, val_end);
    if (e) {
      cuplug__buf_free(&b);
      return e;
    }
    cuplug__buf_putc(&b, ')');
    cuplug__buf_append(&b, f->text + md_text, s->end - md_text);
    cuplug__buf_puts(&b, "\n  ");
  }
  cuplug__buf_puts(&b, "ret void");
  cuplug__buf_append(&b, f->text + md_text, s->end - md_text);
  char *repl = cuplug__buf_take(&b, NULL);
  if (!repl) return cuplug__error_oom();
  ir_edit_replace(&f->rw->edits, s->start, s->end, repl);
  free(repl);
  return NULL;
}

static cuplug_error *fix_body(fixup *f) {
  ir_stmt *stmts;
  size_t num;
  CUPLUG_TRY(ir_function_body(&f->rw->m, f->fn, &stmts, &num));
  cuplug_error *e = NULL;
  for (size_t i = 0; i < num && !e; i++) {
    const ir_stmt *s = &stmts[i];
    ir_tok *toks;
    size_t n;
    e = ir_tokens(&f->rw->m, s->start, s->end, &toks, &n);
    if (e) break;
    if (n && ir_tok_is(f->text, toks[0], "ret")) {
      e = fix_ret(f, s, toks, n);
      free(toks);
      continue;
    }
    bool removed = false;
    if (n && ir_tok_is(f->text, toks[0], "store")) {
      size_t ptr = operand_start(f->text, toks, n, 1, 1);
      size_t ptr_end = operand_start(f->text, toks, n, ptr, 1);
      /* the pointer operand is the last token of "<ty>* <ptr>" */
      size_t last = (ptr_end < n ? ptr_end - 1 : n) - 1;
      if (ptr < n && last < n && is_slot(f, toks[last])) {
        ir_edit_delete(&f->rw->edits, s->line_start, s->line_end);
        removed = true;
      }
    }
    if (!removed) {
      for (size_t j = 0; j < n && !e; j++) {
        if (!is_slot(f, toks[j])) continue;
        /* a debug intrinsic that describes the slot goes with it */
        bool dbg = false;
        for (size_t k = 0; k < n; k++)
          if (toks[k].kind == IR_GLOBAL && toks[k].len > 10 &&
              memcmp(f->text + toks[k].start, "@llvm.dbg.", 10) == 0)
            dbg = true;
        if (dbg) {
          ir_edit_delete(&f->rw->edits, s->line_start, s->line_end);
          removed = true;
          break;
        }
        e = unsupported(f, s->start,
                        "the return slot is used other than by storing to it");
      }
    }
    if (!removed && !e) e = renumber_span(f, s->start, s->end, true);
    free(toks);
  }
  free(stmts);
  return e;
}

/* The debug-info subroutine type loses its first element, the return slot,
 * so that debuggers see the kernel's own parameters.  The subprogram gets
 * new nodes rather than editing shared ones. */
static cuplug_error *fix_debug_type(fixup *f) {
  ir_rewrite *rw = f->rw;
  ir_tok *toks;
  size_t n;
  CUPLUG_TRY(ir_tokens(&rw->m, f->fn->fn_attrs.start, f->fn->fn_attrs.end, &toks, &n));
  char *sp_id = NULL;
  for (size_t i = 0; i + 1 < n; i++)
    if (ir_tok_is(f->text, toks[i], "!dbg") && toks[i + 1].kind == IR_META)
      sp_id = ir_tok_name(f->text, toks[i + 1]);
  free(toks);
  if (!sp_id) return NULL;
  const ir_item *sp = ir_module_find(&rw->m, IR_ITEM_META, sp_id);
  free(sp_id);
  if (!sp) return NULL;

  /* type: !M in the DISubprogram */
  CUPLUG_TRY(ir_tokens(&rw->m, sp->start, sp->end, &toks, &n));
  ir_tok type_ref = {IR_EOF, 0, 0};
  for (size_t i = 0; i + 2 < n; i++)
    if (ir_tok_is(f->text, toks[i], "type") && ir_tok_punct(f->text, toks[i + 1], ':') &&
        toks[i + 2].kind == IR_META)
      type_ref = toks[i + 2];
  free(toks);
  if (type_ref.kind == IR_EOF) return NULL;
  char *st_id = ir_tok_name(f->text, type_ref);
  const ir_item *st = st_id ? ir_module_find(&rw->m, IR_ITEM_META, st_id) : NULL;
  free(st_id);
  if (!st) return NULL;

  /* types: !K in the DISubroutineType */
  CUPLUG_TRY(ir_tokens(&rw->m, st->start, st->end, &toks, &n));
  ir_tok types_ref = {IR_EOF, 0, 0};
  for (size_t i = 0; i + 2 < n; i++)
    if (ir_tok_is(f->text, toks[i], "types") && ir_tok_punct(f->text, toks[i + 1], ':') &&
        toks[i + 2].kind == IR_META)
      types_ref = toks[i + 2];
  size_t st_eq = 0;
  while (st_eq < n && !ir_tok_punct(f->text, toks[st_eq], '=')) st_eq++;
  size_t st_body = st_eq + 1 < n ? toks[st_eq + 1].start : st->end;
  size_t st_end = n ? toks[n - 1].start + toks[n - 1].len : st->end;
  free(toks);
  if (types_ref.kind == IR_EOF) return NULL;
  char *tl_id = ir_tok_name(f->text, types_ref);
  const ir_item *tl = tl_id ? ir_module_find(&rw->m, IR_ITEM_META, tl_id) : NULL;
  free(tl_id);
  if (!tl) return NULL;

  /* !K = !{a, b, c}  ->  !K2 = !{b, c} */
  CUPLUG_TRY(ir_tokens(&rw->m, tl->start, tl->end, &toks, &n));
  size_t open = 0;
  while (open < n && !ir_tok_punct(f->text, toks[open], '{')) open++;
  size_t second = operand_start(f->text, toks, n, open + 1, 1);
  size_t close = n ? n - 1 : 0;
  long new_list = ir_rewrite_meta_id(rw), new_type = ir_rewrite_meta_id(rw);
  cuplug__buf_printf(&rw->tail, "!%ld = !{", new_list);
  if (second < close)
    cuplug__buf_append(&rw->tail, f->text + toks[second].start,
                       toks[close].start - toks[second].start);
  cuplug__buf_puts(&rw->tail, "}\n");
  free(toks);

  /* !M2 = <the DISubroutineType with types: !K2> */
  cuplug__buf_printf(&rw->tail, "!%ld = ", new_type);
  cuplug__buf_append(&rw->tail, f->text + st_body, types_ref.start - st_body);
  cuplug__buf_printf(&rw->tail, "!%ld", new_list);
  size_t after = types_ref.start + types_ref.len;
  cuplug__buf_append(&rw->tail, f->text + after, st_end - after);
  cuplug__buf_putc(&rw->tail, '\n');

  char ref[32];
  snprintf(ref, sizeof ref, "!%ld", new_type);
  ir_edit_replace(&rw->edits, type_ref.start, type_ref.start + type_ref.len, ref);
  return NULL;
}

static bool has_numbered_types(const ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++) {
    const ir_item *it = &m->items[i];
    if (it->kind == IR_ITEM_TYPE && it->name[0] >= '0' && it->name[0] <= '9') return true;
  }
  return false;
}

static const char *const kernel_removes[] = {"noinline", NULL};

/* Annotates the kernel, whose parameters are fn's from `first` on. */
static cuplug_error *mark_kernel(ir_rewrite *rw, const ir_function *fn, const char *text,
                                 const char *entry, size_t first,
                                 const cuplug__kernel_options *o) {
  cuplug__buf ty;
  cuplug__buf_init(&ty);
  cuplug__buf_puts(&ty, "void (");
  for (size_t i = first; i < fn->num_params; i++) {
    if (i > first) cuplug__buf_puts(&ty, ", ");
    cuplug__buf_append(&ty, text + fn->params[i].type.start,
                       fn->params[i].type.end - fn->params[i].type.start);
  }
  if (fn->varargs) cuplug__buf_puts(&ty, fn->num_params > first ? ", ..." : "...");
  cuplug__buf_puts(&ty, ")*");
  char *fnptr = cuplug__buf_take(&ty, NULL);
  if (!fnptr) return cuplug__error_oom();
  cuplug_error *e =
      cuplug__annotate_kernel(rw, entry, fnptr, o->launch_bounds, o->num_launch_bounds);
  free(fnptr);
  return e;
}

cuplug_error *cuplug__kernel_fixup(const char *modname, const char *text, size_t len,
                                   const char *entry, const cuplug__kernel_options *o,
                                   char **out, size_t *out_len) {
  ir_rewrite rw;
  CUPLUG_TRY(ir_rewrite_begin(&rw, modname, text, len));
  ir_function fn;
  bool found;
  cuplug_error *e = cuplug__find_define(&rw.m, entry, &fn, &found);
  if (e || !found) {
    ir_rewrite_abort(&rw);
    return e ? e
             : cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "%s: no definition of @%s",
                             modname, entry);
  }
  fixup f = {&rw, text, entry, &fn, {IR_EOF, 0, 0}, NULL, false, o->debug};
  ir_tok ret = {IR_WORD, fn.ret_type.start, fn.ret_type.end - fn.ret_type.start};

  if (o->c_entry) {
    /* Already `void k(args)`: only the marking is missing. */
    if (!ir_tok_is(text, ret, "void")) {
      e = unsupported(&f, fn.item->start, "a C-ABI kernel returns void");
      goto fail;
    }
    cuplug__fn_attrs_edit(&rw, &fn, NULL, kernel_removes);
    e = mark_kernel(&rw, &fn, text, entry, 0, o);
    if (e) goto fail;
    ir_function_free(&fn);
    return ir_rewrite_finish(&rw, out, out_len);
  }

  if (fn.num_params == 0 || text[fn.params[0].type.end - 1] != '*' ||
      !ir_tok_is(text, ret, "i32")) {
    e = unsupported(&f, fn.item->start,
                    "a Numba-ABI function returns i32 and takes its return slot "
                    "pointer first");
    goto fail;
  }
  f.slot = fn.params[0].name;
  if (f.slot.kind == IR_EOF || ir_tok_numbered(text, f.slot, NULL)) {
    if (has_numbered_types(&rw.m)) {
      e = unsupported(&f, fn.item->start,
                      "its return slot is unnamed and the module numbers its types; "
                      "name the parameters");
      goto fail;
    }
    f.renumber = true;
  } else if (!(f.slot_name = ir_tok_name(text, f.slot))) {
    e = cuplug__error_oom();
    goto fail;
  }

  /* The header: void return, no return slot, no noinline. */
  ir_edit_replace(&rw.edits, fn.ret_attrs.start, fn.ret_type.end, "void");
  if (fn.num_params > 1)
    ir_edit_delete(&rw.edits, fn.params[0].all.start, fn.params[1].all.start);
  else
    ir_edit_delete(&rw.edits, fn.params[0].all.start, fn.params[0].all.end);
  for (size_t i = 1; i < fn.num_params && !e; i++)
    if (fn.params[i].name.kind != IR_EOF)
      e = renumber_span(&f, fn.params[i].name.start,
                        fn.params[i].name.start + fn.params[i].name.len, false);
  if (e) goto fail;
  cuplug__fn_attrs_edit(&rw, &fn, NULL, kernel_removes);

  if ((e = fix_body(&f))) goto fail;
  if (o->debug) {
    if ((e = fix_debug_type(&f))) goto fail;
    cuplug__exc_store_add(&rw, entry);
  }

  if ((e = mark_kernel(&rw, &fn, text, entry, 1, o))) goto fail;

  free(f.slot_name);
  ir_function_free(&fn);
  return ir_rewrite_finish(&rw, out, out_len);

fail:
  free(f.slot_name);
  ir_function_free(&fn);
  ir_rewrite_abort(&rw);
  return e;
}
