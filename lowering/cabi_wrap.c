/* cabi_wrap.c - the C-ABI function of a Numba-ABI device function.
 *
 * As numba-cuda's cabi_wrap_function: `R name(args)` allocates the return
 * slot, zeroes it, calls the Numba-ABI function, ignores its status (the C
 * ABI cannot carry it) and returns the slot's value.  The value is returned
 * in its memory form, so a bool comes back as i8 and a complex as a {re, im}
 * struct.  The wrapped function gets linkonce_odr linkage, so that only the
 * wrapper is visible in the PTX.
 *
 * numba-cuda puts the wrapper in a module of its own; cuplug appends it to
 * the module that defines the entry.  The PTX is the same, and libNVVM is
 * spared linking a second module, which costs a third of a small compile.
 *
 * When nothing else calls the entry (the pipeline looks at every module),
 * cuplug goes one step further and makes the entry itself the C-ABI
 * function: the return slot becomes an alloca in its entry block, each
 * `ret i32 <status>` loads the slot and returns its value, and the function
 * takes the export's name.  That is the wrapper with the call inlined, as
 * libNVVM would inline it, but libNVVM is handed one function rather than
 * two, and each function costs it a pass pipeline: a small device
 * function's LTO-IR compile takes about 0.87x the time (add_f32: 0.43 ms
 * against 0.50 ms), within a few percent of the bare Numba-ABI function.
 * The PTX is the same.  A function with debug info keeps the wrapper
 * (its subprogram's type describes the Numba ABI), as does one whose
 * return slot is unnamed or not of the signature's type.  Where every
 * return follows a store of its value to the slot, and the slot serves
 * nothing else (numba-cuda's functions that cannot raise), there is no
 * slot at all: each `store V, T* %slot; ret i32 <status>` becomes `ret T
 * V`, which spares libNVVM the mem2reg it would do (add_f32: 5% of its
 * compile). */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/lowering.h"

/* Appends the wrapper: define R @name(args) { slot; call; load; ret }. */
static void put_wrapper(cuplug__buf *b, const cuplug_type *sig, const char *callee,
                        const char *name, bool forceinline) {
  const cuplug__lowered *ret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN);
  const cuplug__lowered *cret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN);
  const char *slot = ret->ir_type;

  cuplug__buf_printf(b, "\n; C-ABI wrapper written by cuplug\ndefine %s ", cret->ir_type);
  cuplug__ir_put_name(b, '@', name);
  cuplug__buf_putc(b, '(');
  size_t k = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT);
    for (size_t j = 0; j < a->num_parts; j++, k++)
      cuplug__buf_printf(b, "%s%s %%\"arg.%zu\"", k ? ", " : "", a->parts[j], k);
  }
  cuplug__buf_printf(b, ")%s {\nentry:\n", forceinline ? " alwaysinline" : "");
  cuplug__buf_printf(b, "  %%ret = alloca %s\n", slot);
  cuplug__buf_printf(b, "  store %s zeroinitializer, %s* %%ret\n", slot, slot);
  cuplug__buf_puts(b, "  %status = call i32 ");
  cuplug__ir_put_name(b, '@', callee);
  cuplug__buf_printf(b, "(%s* %%ret", slot);
  k = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT);
    for (size_t j = 0; j < a->num_parts; j++, k++)
      cuplug__buf_printf(b, ", %s %%\"arg.%zu\"", a->parts[j], k);
  }
  cuplug__buf_puts(b, ")\n");
  if (sig->restype->kind == CUPLUG_TYPE_VOID) {
    cuplug__buf_puts(b, "  ret void\n}\n");
  } else {
    cuplug__buf_printf(b, "  %%value = load %s, %s* %%ret\n", slot, slot);
    cuplug__buf_printf(b, "  ret %s %%value\n}\n", cret->ir_type);
  }
}

static ir_wordset no_inline = CUPLUG__IR_WORDSET("noinline", "optnone");

/* Renames every reference to @from (definition, calls, constants). */
static cuplug_error *rename_global(ir_rewrite *rw, const char *from, const char *to) {
  cuplug__buf nb;
  cuplug__buf_init(&nb);
  cuplug__ir_put_name(&nb, '@', to);
  if (nb.oom) return cuplug__error_oom();
  for (size_t i = 0; i < rw->m.num_toks; i++) {
    ir_tok t = rw->m.toks[i];
    if (t.kind == IR_GLOBAL && cuplug__ir_tok_names(rw->m.text, t, from))
      cuplug__ir_edit_replace(&rw->edits, t.start, t.start + t.len, nb.data);
  }
  cuplug__buf_free(&nb);
  return NULL;
}

/* Every definition with external linkage but `keep` (may be NULL) becomes
 * linkonce_odr; `inline_symbol`, when not NULL, names one to mark
 * alwaysinline too. */
static cuplug_error *make_linkonce(ir_rewrite *rw, const char *inline_symbol,
                                   const char *keep) {
  const char *text = rw->m.text;
  for (size_t i = 0; i < rw->m.num_items; i++) {
    const ir_item *it = &rw->m.items[i];
    if (it->kind != IR_ITEM_DEFINE || (keep && strcmp(it->name, keep) == 0)) continue;
    ir_function fn;
    CUPLUG__TRY(cuplug__ir_function_parse(&rw->m, it, &fn));
    if (fn.linkage.start == fn.linkage.end)
      cuplug__ir_edit_insert(&rw->edits, it->start + strlen("define"), " linkonce_odr");
    else if (cuplug__ir_tok_is(text, (ir_tok){.start = (uint32_t)fn.linkage.start,
                                      .len = (uint32_t)(fn.linkage.end - fn.linkage.start),
                                      .kind = IR_WORD},
                       "external"))
      cuplug__ir_edit_replace(&rw->edits, fn.linkage.start, fn.linkage.end, "linkonce_odr");
    if (inline_symbol && strcmp(it->name, inline_symbol) == 0)
      cuplug__fn_attrs_edit(rw, &fn, "alwaysinline", &no_inline);
    cuplug__ir_function_free(&fn);
  }
  return NULL;
}

cuplug_error *cuplug__linkonce_definitions(ir_rewrite *rw) {
  return make_linkonce(rw, NULL, NULL);
}

/* ---- in place ---- */

/* Is text [p, p + n) `want`, blanks aside? */
static bool same_type_text(const char *p, size_t n, const char *want) {
  size_t i = 0;
  for (;; want++) {
    while (i < n && (p[i] == ' ' || p[i] == '\t')) i++;
    while (*want == ' ') want++;
    if (i == n || !*want) return i == n && !*want;
    if (p[i++] != *want) return false;
  }
}

static bool is_ret(const ir_module *m, const ir_stmt *s) {
  return cuplug__ir_tok_is(m->text, s->toks[0], "ret");
}

/* Can the entry become the C-ABI function?  Its return slot must be a
 * named parameter of the signature's slot type, each return must return a
 * status, and it must carry no debug info. */
static bool can_rewrite(const ir_rewrite *rw, const ir_function *fn, const cuplug_type *sig) {
  const ir_module *m = &rw->m;
  const char *text = m->text;
  const char *slot = cuplug__type_lowered(sig->restype, CUPLUG_ABI_NUMBA,
                                          CUPLUG_POSITION_RETURN)->ir_type;
  const char *cret = cuplug__type_lowered(sig->restype, CUPLUG_ABI_C,
                                          CUPLUG_POSITION_RETURN)->ir_type;
  if (fn->varargs || fn->num_params == 0 || fn->params[0].name.kind != IR_LOCAL ||
      cuplug__ir_tok_numbered(text, fn->params[0].name, NULL))
    return false;
  if (!same_type_text(text + fn->ret_type.start, fn->ret_type.end - fn->ret_type.start, "i32"))
    return false;
  /* the slot is `T*`, and T is what the C function returns */
  ir_span st = fn->params[0].type;
  if (st.end - st.start < 2 || text[st.end - 1] != '*' ||
      !same_type_text(text + st.start, st.end - 1 - st.start, slot) ||
      (sig->restype->kind != CUPLUG_TYPE_VOID && strcmp(slot, cret) != 0))
    return false;
  const ir_tok *toks;
  size_t n = cuplug__ir_slice(m, fn->fn_attrs.start, fn->fn_attrs.end, &toks);
  for (size_t i = 0; i < n; i++)
    if (cuplug__ir_tok_is(text, toks[i], "!dbg")) return false;
  /* the names it adds are its own */
  if (memmem(text + fn->body_open, fn->body_close - fn->body_open, "cuplug.ret", 10))
    return false;
  ir_stmt s;
  ir_stmt_cursor cursor = {0};
  while (cuplug__ir_next_stmt(m, fn, &cursor, &s))
    if (is_ret(m, &s) && s.n < 3) return false;
  return true;
}

/* Does t name the local `name` (%x and %"x" alike)? */
static bool is_local(const char *text, ir_tok t, const char *name) {
  return t.kind == IR_LOCAL && cuplug__ir_tok_names(text, t, name);
}

/* Is s `store SLOT VALUE, SLOT* %slot[, align N]`, VALUE one token?  Then
 * *value is that token. */
static bool stores_slot(const char *text, const ir_stmt *s, const char *slot,
                        const char *slot_name, ir_tok *value) {
  if (s->n < 6 || !cuplug__ir_tok_is(text, s->toks[0], "store")) return false;
  size_t comma[2], found = 0;
  int depth = 0;
  for (size_t i = 1; i < s->n && found < 2; i++) {
    depth += s->toks[i].depth;
    if (depth == 0 && cuplug__ir_tok_punct(text, s->toks[i], ',')) comma[found++] = i;
  }
  if (found == 0) return false;
  size_t c = comma[0], end = found == 2 ? comma[1] : s->n;
  ir_tok v = s->toks[c - 1], ptr = s->toks[end - 1];
  if (c < 3 || end < c + 3 || !is_local(text, ptr, slot_name) ||
      (v.kind != IR_LOCAL && v.kind != IR_NUMBER && v.kind != IR_WORD) ||
      !same_type_text(text + s->toks[1].start, v.start - s->toks[1].start, slot) ||
      !cuplug__ir_tok_punct(text, s->toks[end - 2], '*') ||
      !same_type_text(text + s->toks[c + 1].start, s->toks[end - 2].start - s->toks[c + 1].start,
                      slot))
    return false;
  /* nothing after but an alignment */
  if (found == 2 && !(end + 3 == s->n && cuplug__ir_tok_is(text, s->toks[end + 1], "align") &&
                      s->toks[end + 2].kind == IR_NUMBER))
    return false;
  *value = v;
  return true;
}

/* Does every return of the entry follow a store of its value to the slot,
 * and the slot serve nothing else?  Then each pair becomes `ret VALUE`, and
 * there is no slot: what mem2reg would make of it, made here so that
 * libNVVM need not (5% of a small device function's compile). */
static bool returns_stored(const ir_module *m, const ir_function *fn, const char *slot,
                           const char *slot_name) {
  const char *text = m->text;
  size_t uses = 0, rets = 0;
  ir_stmt_cursor cursor = {0};
  ir_stmt s, prev = {0};
  bool have_prev = false;
  ir_tok value;
  while (cuplug__ir_next_stmt(m, fn, &cursor, &s)) {
    for (size_t i = 0; i < s.n; i++) uses += is_local(text, s.toks[i], slot_name);
    if (is_ret(m, &s)) {
      if (!have_prev || !stores_slot(text, &prev, slot, slot_name, &value)) return false;
      rets++;
    }
    prev = s;
    have_prev = true;
  }
  return rets > 0 && uses == rets;
}

/* Rewrites the entry into `R name(args)`, as above. */
static cuplug_error *rewrite_entry(ir_rewrite *rw, const ir_function *fn,
                                   const cuplug__cabi_options *o) {
  const ir_module *m = &rw->m;
  const char *text = m->text;
  const cuplug_type *sig = o->sig;
  bool is_void = sig->restype->kind == CUPLUG_TYPE_VOID;
  const char *slot = cuplug__type_lowered(sig->restype, CUPLUG_ABI_NUMBA,
                                          CUPLUG_POSITION_RETURN)->ir_type;
  ir_tok slot_name = fn->params[0].name;
  cuplug__buf b;
  cuplug__buf_init(&b);

  /* the header: external, `R @name(args)` */
  if (fn->linkage.end > fn->linkage.start) {
    size_t end = fn->linkage.end;
    while (text[end] == ' ' || text[end] == '\t') end++;
    cuplug__ir_edit_delete(&rw->edits, fn->linkage.start, end);
  }
  cuplug__ir_edit_replace(&rw->edits, fn->ret_attrs.start, fn->ret_type.end,
                  is_void ? "void"
                          : cuplug__type_lowered(sig->restype, CUPLUG_ABI_C,
                                                 CUPLUG_POSITION_RETURN)->ir_type);
  if (strcmp(o->name, o->entry) != 0) {
    cuplug__ir_put_name(&b, '@', o->name);
    if (b.oom) return cuplug__error_oom();
    cuplug__ir_edit_replace(&rw->edits, fn->name.start, fn->name.start + fn->name.len, b.data);
    cuplug__buf_clear(&b);
  }
  cuplug__drop_first_param(rw, fn);
  if (o->forceinline) cuplug__fn_attrs_edit(rw, fn, "alwaysinline", &no_inline);

  ir_stmt s, prev = {0};
  ir_stmt_cursor cursor = {0};
  char *slot_str = is_void ? NULL : cuplug__ir_tok_name(text, slot_name);
  if (!is_void && !slot_str) return cuplug__error_oom();
  if (!is_void && returns_stored(m, fn, slot, slot_str)) {
    /* store SLOT VALUE, SLOT* %slot; ret i32 <status>  ->  ret SLOT VALUE.
     * The value's own bytes stay where they are, so that a later pass's
     * edit of it (legalisation's poison -> undef) still applies. */
    while (cuplug__ir_next_stmt(m, fn, &cursor, &s)) {
      if (is_ret(m, &s)) {
        ir_tok value;
        stores_slot(text, &prev, slot, slot_str, &value);
        size_t suffix = cuplug__ret_attachments(text, &s);
        cuplug__buf_clear(&b);
        cuplug__buf_printf(&b, "ret %s ", slot);
        if (b.oom) break;
        cuplug__ir_edit_replace(&rw->edits, prev.start, value.start, b.data);
        cuplug__buf_clear(&b);
        cuplug__buf_append(&b, text + suffix, s.end - suffix);
        if (b.oom) break;
        cuplug__ir_edit_replace(&rw->edits, value.start + value.len, s.end, b.data ? b.data : "");
      }
      prev = s;
    }
    bool oom = b.oom;
    cuplug__buf_free(&b);
    free(slot_str);
    return oom ? cuplug__error_oom() : NULL;
  }
  free(slot_str);

  /* the slot, zeroed, first thing in the entry block (after its label) */
  cuplug__ir_next_stmt(m, fn, &cursor, &s);
  bool label = s.n == 2 && cuplug__ir_tok_punct(text, s.toks[1], ':');
  if (label) cuplug__buf_puts(&b, "\n  ");
  cuplug__buf_append(&b, text + slot_name.start, slot_name.len);
  cuplug__buf_printf(&b, " = alloca %s\n  store %s zeroinitializer, %s* ", slot, slot, slot);
  cuplug__buf_append(&b, text + slot_name.start, slot_name.len);
  if (!label) cuplug__buf_puts(&b, "\n  ");
  if (b.oom) return cuplug__error_oom();
  cuplug__ir_edit_insert(&rw->edits, label ? s.end : s.start, b.data);

  /* ret i32 <status>[, !dbg !N]  ->  load the slot, return its value */
  size_t k = 0;
  for (cursor = (ir_stmt_cursor){0}; cuplug__ir_next_stmt(m, fn, &cursor, &s);) {
    if (!is_ret(m, &s)) continue;
    size_t suffix = cuplug__ret_attachments(text, &s); /* ", !dbg !N" */
    cuplug__buf_clear(&b);
    if (is_void) {
      cuplug__buf_puts(&b, "ret void");
    } else {
      cuplug__buf_printf(&b, "%%\"cuplug.ret.%zu\" = load %s, %s* ", k, slot, slot);
      cuplug__buf_append(&b, text + slot_name.start, slot_name.len);
      cuplug__buf_append(&b, text + suffix, s.end - suffix);
      cuplug__buf_printf(&b, "\n  ret %s %%\"cuplug.ret.%zu\"", slot, k++);
    }
    cuplug__buf_append(&b, text + suffix, s.end - suffix);
    if (b.oom) return cuplug__error_oom();
    cuplug__ir_edit_replace(&rw->edits, s.start, s.end, b.data);
  }
  cuplug__buf_free(&b);
  return NULL;
}

/* numba-cuda's C-ABI functions have no environment: the entry's
 * `@_ZN08NumbaEnv<name> = common global i8* null`, which its Numba-ABI body
 * declares, becomes internal, and libNVVM drops it unless it is used. */
static void internalize_env(ir_rewrite *rw, const char *entry) {
  if (strncmp(entry, "_ZN", 3) != 0) return;
  const char *text = rw->m.text;
  for (size_t i = 0; i < rw->m.num_items; i++) {
    const ir_item *it = &rw->m.items[i];
    if (it->kind != IR_ITEM_GLOBAL || strncmp(it->name, "_ZN08NumbaEnv", 13) != 0 ||
        strcmp(it->name + 13, entry + 3) != 0)
      continue;
    for (size_t k = it->first; k < it->last; k++) {
      ir_tok t = rw->m.toks[k];
      if (cuplug__ir_tok_is(text, t, "common")) {
        cuplug__ir_edit_replace(&rw->edits, t.start, t.start + t.len, "internal");
        return;
      }
    }
  }
}

cuplug_error *cuplug__cabi_wrap(ir_rewrite *rw, const cuplug__cabi_options *o) {
  if (o->has_entry) internalize_env(rw, o->entry);
  if (o->has_entry && o->sole_caller) {
    ir_function fn;
    bool found;
    CUPLUG__TRY(cuplug__find_define(&rw->m, o->entry, &fn, &found));
    cuplug_error *e = NULL;
    bool rewrite = found && can_rewrite(rw, &fn, o->sig);
    if (rewrite) e = rewrite_entry(rw, &fn, o);
    if (!e && rewrite) e = make_linkonce(rw, NULL, o->entry);
    if (found) cuplug__ir_function_free(&fn);
    if (e || rewrite) return e;
  }
  char *inner = NULL;
  if (strcmp(o->name, o->entry) == 0) {
    /* The export takes the entry's own name: the Numba-ABI function moves
     * aside, in this module and in every module that calls it. */
    cuplug__buf b;
    cuplug__buf_init(&b);
    cuplug__buf_printf(&b, "%s.numba", o->entry);
    inner = cuplug__buf_take(&b, NULL);
    cuplug_error *e = inner ? rename_global(rw, o->entry, inner) : cuplug__error_oom();
    if (e) {
      free(inner);
      return e;
    }
  }
  cuplug_error *e = make_linkonce(rw, o->forceinline ? o->entry : NULL, NULL);
  if (e) {
    free(inner);
    return e;
  }
  if (o->has_entry)
    put_wrapper(&rw->tail, o->sig, inner ? inner : o->entry, o->name, o->forceinline);
  free(inner);
  return NULL;
}

cuplug_error *cuplug__force_inline(ir_rewrite *rw, const char *symbol) {
  ir_function fn;
  bool found;
  CUPLUG__TRY(cuplug__find_define(&rw->m, symbol, &fn, &found));
  if (!found)
    return cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "%s: no definition of @%s", rw->m.name,
                         symbol);
  cuplug__fn_attrs_edit(rw, &fn, "alwaysinline", &no_inline);
  cuplug__ir_function_free(&fn);
  return NULL;
}
