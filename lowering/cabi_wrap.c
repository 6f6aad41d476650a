/* cabi_wrap.c - the C-ABI wrapper of a Numba-ABI device function.
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
 * spared linking a second module, which costs a third of a small compile. */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "lowering.h"
#include "types.h"

/* Appends the wrapper: define R @name(args) { slot; call; load; ret }. */
static void put_wrapper(cuplug__buf *b, const cuplug_type *sig, const char *callee,
                        const char *name, bool forceinline) {
  const cuplug__lowered *ret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN);
  const cuplug__lowered *cret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN);
  const char *slot = ret->ir_type;

  cuplug__buf_printf(b, "\n; C-ABI wrapper written by cuplug\ndefine %s ", cret->ir_type);
  ir_put_name(b, '@', name);
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
  ir_put_name(b, '@', callee);
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

static ir_wordset no_inline = IR_WORDSET("noinline", "optnone");

/* Renames every reference to @from (definition, calls, constants). */
static cuplug_error *rename_global(ir_rewrite *rw, const char *from, const char *to) {
  cuplug__buf nb;
  cuplug__buf_init(&nb);
  ir_put_name(&nb, '@', to);
  if (nb.oom) return cuplug__error_oom();
  for (size_t i = 0; i < rw->m.num_toks; i++) {
    ir_tok t = rw->m.toks[i];
    if (t.kind == IR_GLOBAL && ir_tok_names(rw->m.text, t, from))
      ir_edit_replace(&rw->edits, t.start, t.start + t.len, nb.data);
  }
  cuplug__buf_free(&nb);
  return NULL;
}

/* Every definition with external linkage becomes linkonce_odr; `inline`,
 * when not NULL, names one to mark alwaysinline too. */
static cuplug_error *make_linkonce(ir_rewrite *rw, const char *inline_symbol) {
  const char *text = rw->m.text;
  for (size_t i = 0; i < rw->m.num_items; i++) {
    const ir_item *it = &rw->m.items[i];
    if (it->kind != IR_ITEM_DEFINE) continue;
    ir_function fn;
    CUPLUG_TRY(ir_function_parse(&rw->m, it, &fn));
    if (fn.linkage.start == fn.linkage.end)
      ir_edit_insert(&rw->edits, it->start + strlen("define"), " linkonce_odr");
    else if (ir_tok_is(text, (ir_tok){.start = (uint32_t)fn.linkage.start,
                                      .len = (uint32_t)(fn.linkage.end - fn.linkage.start),
                                      .kind = IR_WORD},
                       "external"))
      ir_edit_replace(&rw->edits, fn.linkage.start, fn.linkage.end, "linkonce_odr");
    if (inline_symbol && strcmp(it->name, inline_symbol) == 0)
      cuplug__fn_attrs_edit(rw, &fn, "alwaysinline", &no_inline);
    ir_function_free(&fn);
  }
  return NULL;
}

cuplug_error *cuplug__linkonce_definitions(ir_rewrite *rw) { return make_linkonce(rw, NULL); }

cuplug_error *cuplug__cabi_wrap(ir_rewrite *rw, const cuplug__cabi_options *o) {
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
  cuplug_error *e = make_linkonce(rw, o->forceinline ? o->entry : NULL);
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
  CUPLUG_TRY(cuplug__find_define(&rw->m, symbol, &fn, &found));
  if (!found)
    return cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "%s: no definition of @%s", rw->m.name,
                         symbol);
  cuplug__fn_attrs_edit(rw, &fn, "alwaysinline", &no_inline);
  ir_function_free(&fn);
  return NULL;
}
