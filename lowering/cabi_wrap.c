/* cabi_wrap.c - the C-ABI wrapper of a Numba-ABI device function.
 *
 * As numba-cuda's cabi_wrap_function: a separate module defines
 * `R name(args)`, which allocates the return slot, zeroes it, calls the
 * Numba-ABI function, ignores its status (the C ABI cannot carry it) and
 * returns the slot's value.  The value is returned in its memory form, so a
 * bool comes back as i8 and a complex as a {re, im} struct.  The wrapped
 * function is then given linkonce_odr linkage so that only the wrapper is
 * visible in the PTX. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lowering.h"
#include "types.h"

cuplug_error *cuplug__cabi_wrapper(const cuplug_type *sig, const char *callee,
                                   const char *name, bool forceinline,
                                   cuplug__ir_version v, char **out, size_t *len) {
  const cuplug__lowered *ret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN);
  const cuplug__lowered *cret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN);
  const char *slot = ret->ir_type;
  bool is_void = sig->restype->kind == CUPLUG_TYPE_VOID;

  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, "; C-ABI wrapper written by cuplug\n");
  cuplug__buf_puts(&b, "target triple = \"" CUPLUG_NVPTX_TRIPLE "\"\n");
  cuplug__buf_puts(&b, "target datalayout = \"" CUPLUG_NVPTX_DATALAYOUT "\"\n\n");

  /* define R @"name"(T0 %"arg.0", ...) */
  cuplug__buf_printf(&b, "define %s ", cret->ir_type);
  ir_put_name(&b, '@', name);
  cuplug__buf_putc(&b, '(');
  size_t k = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT);
    for (size_t j = 0; j < a->num_parts; j++, k++)
      cuplug__buf_printf(&b, "%s%s %%\"arg.%zu\"", k ? ", " : "", a->parts[j], k);
  }
  cuplug__buf_printf(&b, ")%s {\nentry:\n", forceinline ? " alwaysinline" : "");
  cuplug__buf_printf(&b, "  %%ret = alloca %s\n", slot);
  cuplug__buf_printf(&b, "  store %s zeroinitializer, %s* %%ret\n", slot, slot);
  cuplug__buf_printf(&b, "  %%status = call i32 ");
  ir_put_name(&b, '@', callee);
  cuplug__buf_printf(&b, "(%s* %%ret", slot);
  k = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT);
    for (size_t j = 0; j < a->num_parts; j++, k++)
      cuplug__buf_printf(&b, ", %s %%\"arg.%zu\"", a->parts[j], k);
  }
  cuplug__buf_puts(&b, ")\n");
  if (is_void) {
    cuplug__buf_puts(&b, "  ret void\n}\n\n");
  } else {
    cuplug__buf_printf(&b, "  %%value = load %s, %s* %%ret\n", slot, slot);
    cuplug__buf_printf(&b, "  ret %s %%value\n}\n\n", cret->ir_type);
  }

  /* declare i32 @"callee"(R*, T0, ...) */
  const cuplug__lowered *fnty = cuplug__type_lowered(sig, CUPLUG_ABI_NUMBA, 0);
  cuplug__buf_puts(&b, "declare i32 ");
  ir_put_name(&b, '@', callee);
  cuplug__buf_putc(&b, '(');
  for (size_t i = 0; i < fnty->num_parts; i++)
    cuplug__buf_printf(&b, "%s%s", i ? ", " : "", fnty->parts[i]);
  cuplug__buf_puts(&b, ")\n\n");
  cuplug__buf_printf(&b, "!nvvmir.version = !{!0}\n!0 = !{i32 %d, i32 %d, i32 %d, i32 %d}\n",
                     v.ir_major, v.ir_minor, v.dbg_major, v.dbg_minor);
  *out = cuplug__buf_take(&b, len);
  return *out ? NULL : cuplug__error_oom();
}

static const char *const no_inline[] = {"noinline", "optnone", NULL};

/* Renames every reference to @from (definition, calls, constants). */
static cuplug_error *rename_global(ir_rewrite *rw, const char *from, const char *to) {
  cuplug__buf nb;
  cuplug__buf_init(&nb);
  ir_put_name(&nb, '@', to);
  if (nb.oom) return cuplug__error_oom();
  ir_tok *toks = NULL;
  size_t n = 0;
  cuplug_error *e = ir_tokens(&rw->m, 0, rw->m.len, &toks, &n);
  for (size_t i = 0; !e && i < n; i++) {
    if (toks[i].kind != IR_GLOBAL) continue;
    char *name = ir_tok_name(rw->m.text, toks[i]);
    if (!name) {
      e = cuplug__error_oom();
      break;
    }
    if (strcmp(name, from) == 0)
      ir_edit_replace(&rw->edits, toks[i].start, toks[i].start + toks[i].len, nb.data);
    free(name);
  }
  free(toks);
  cuplug__buf_free(&nb);
  return e;
}

cuplug_error *cuplug__link_once(const char *modname, const char *text, size_t len,
                                const char *inline_symbol, const char *rename_from,
                                const char *rename_to, char **out, size_t *out_len) {
  ir_rewrite rw;
  CUPLUG_TRY(ir_rewrite_begin(&rw, modname, text, len));
  if (rename_from && rename_to) {
    cuplug_error *e = rename_global(&rw, rename_from, rename_to);
    if (e) {
      ir_rewrite_abort(&rw);
      return e;
    }
  }
  for (size_t i = 0; i < rw.m.num_items; i++) {
    const ir_item *it = &rw.m.items[i];
    if (it->kind != IR_ITEM_DEFINE) continue;
    ir_function fn;
    cuplug_error *e = ir_function_parse(&rw.m, it, &fn);
    if (e) {
      ir_rewrite_abort(&rw);
      return e;
    }
    if (fn.linkage.start == fn.linkage.end)
      ir_edit_insert(&rw.edits, it->start + strlen("define"), " linkonce_odr");
    else if (ir_tok_is(text, (ir_tok){IR_WORD, fn.linkage.start,
                                      fn.linkage.end - fn.linkage.start},
                       "external"))
      ir_edit_replace(&rw.edits, fn.linkage.start, fn.linkage.end, "linkonce_odr");
    if (inline_symbol && strcmp(it->name, inline_symbol) == 0)
      cuplug__fn_attrs_edit(&rw, &fn, "alwaysinline", no_inline);
    ir_function_free(&fn);
  }
  return ir_rewrite_finish(&rw, out, out_len);
}

cuplug_error *cuplug__force_inline(const char *modname, const char *text, size_t len,
                                   const char *symbol, char **out, size_t *out_len) {
  ir_rewrite rw;
  CUPLUG_TRY(ir_rewrite_begin(&rw, modname, text, len));
  ir_function fn;
  bool found;
  cuplug_error *e = cuplug__find_define(&rw.m, symbol, &fn, &found);
  if (e || !found) {
    ir_rewrite_abort(&rw);
    return e ? e
             : cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "%s: no definition of @%s",
                             modname, symbol);
  }
  cuplug__fn_attrs_edit(&rw, &fn, "alwaysinline", no_inline);
  ir_function_free(&fn);
  return ir_rewrite_finish(&rw, out, out_len);
}
