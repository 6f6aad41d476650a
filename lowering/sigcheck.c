/* sigcheck.c - a function's header in IR text against a signature.
 *
 * Each type of the header is spelled as irtype.c writes it and compared
 * with the data model's (base/types.c), which is spelled the same way; a
 * message says which parameter disagrees in the signature's words first
 * (the return slot, argument 1, the data pointer of argument 0), then the
 * two types. */
#include "lowering/sigcheck.h"

#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "lowering/irtype.h"

typedef enum verdict { SAME, DIFFERENT, UNKNOWN } verdict;

/* The header's tokens, walked span by span: one search for them all. */
typedef struct header {
  const ir_module *m;
  const ir_tok *at, *end;
} header;

/* The tokens of `span`, which lies after the previous one asked for. */
static size_t tokens_of(header *h, ir_span span, const ir_tok **toks) {
  while (h->at < h->end && h->at->start < span.start) h->at++;
  const ir_tok *last = h->at;
  while (last < h->end && last->start < span.end) last++;
  *toks = h->at;
  return (size_t)(last - h->at);
}

/* Does the type written at `span` agree with `want` (a data-model type)?
 * *found gets the IR's spelling, for a message. */
static verdict compare(header *h, ir_span span, const char *want, cuplug__buf *found) {
  const ir_tok *toks;
  size_t n = tokens_of(h, span, &toks);
  ir_type_text t = {.m = h->m, .text = h->m->text, .toks = toks, .n = n};
  bool opaque;
  cuplug__buf_clear(found);
  if (!cuplug__ir_type_spell(&t, found, &opaque)) return UNKNOWN;
  if (!opaque && strcmp(found->data, want) == 0) return SAME; /* most types: no respelling */
  /* Against `ptr`, a pointer can only be a pointer: both lose their pointees. */
  cuplug__buf ir, model;
  cuplug__buf_init(&ir);
  cuplug__buf_init(&model);
  t.opaque = true;
  bool read = cuplug__ir_type_spell_string(want, opaque, &model) &&
              (!opaque || cuplug__ir_type_spell(&t, &ir, NULL));
  verdict v = UNKNOWN;
  if (read) v = strcmp(opaque ? ir.data : found->data, model.data) == 0 ? SAME : DIFFERENT;
  cuplug__buf_free(&ir);
  cuplug__buf_free(&model);
  return v;
}

/* Names part k of a value of type t as an argument ("the data pointer",
 * "shape[1]", "the real part of element 2"); nothing for a one-part value. */
static void name_part(cuplug__buf *b, const cuplug_type *t, size_t k) {
  static const char *const members[] = {"the meminfo pointer", "the parent pointer", "nitems",
                                        "itemsize", "the data pointer"};
  switch (t->kind) {
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128:
      cuplug__buf_puts(b, k == 0 ? "the real part" : "the imaginary part");
      return;
    case CUPLUG_TYPE_ARRAY:
      if (k < 5)
        cuplug__buf_puts(b, members[k]);
      else
        cuplug__buf_printf(b, "%s[%zu]", k - 5 < t->ndim ? "shape" : "strides",
                           (k - 5) % t->ndim);
      return;
    case CUPLUG_TYPE_TUPLE:
    case CUPLUG_TYPE_STRUCT:
      for (size_t e = 0; e < t->nargs; e++) {
        size_t parts = cuplug__type_lowered(t->args[e], CUPLUG_ABI_NUMBA,
                                            CUPLUG_POSITION_ARGUMENT)->num_parts;
        if (k >= parts) {
          k -= parts;
          continue;
        }
        size_t before = b->len;
        name_part(b, t->args[e], k);
        const char *of = b->len > before ? " of " : "";
        if (t->kind == CUPLUG_TYPE_STRUCT)
          cuplug__buf_printf(b, "%sfield '%s'", of, t->field_names[e]);
        else
          cuplug__buf_printf(b, "%selement %zu", of, e);
        return;
      }
      return;
    default:
      return;
  }
}

/* "parameter 5 (the data pointer of argument 0) is float* in the IR; the
 * signature's int8[::1] wants i8*" */
static void describe(cuplug__buf *b, const cuplug__sig_check *c, size_t index,
                     const char *found, const char *want) {
  cuplug__buf_printf(b, "parameter %zu (", index);
  if (c->abi == CUPLUG_ABI_NUMBA && index == 0) {
    cuplug__buf_printf(b, "the return slot) is %s in the IR; the signature's return type %s "
                          "wants %s", found, c->sig->restype->name, want);
    return;
  }
  size_t k = index - (c->abi == CUPLUG_ABI_NUMBA);
  for (size_t a = 0; a < c->sig->nargs; a++) {
    const cuplug_type *t = c->sig->args[a];
    size_t parts = cuplug__type_lowered(t, c->abi, CUPLUG_POSITION_ARGUMENT)->num_parts;
    if (k >= parts) {
      k -= parts;
      continue;
    }
    size_t before = b->len;
    name_part(b, t, k);
    cuplug__buf_printf(b, "%sargument %zu) is %s in the IR; the signature's %s wants %s",
                       b->len > before ? " of " : "", a, found, t->name, want);
    return;
  }
}

/* The type the function itself returns under the ABI. */
static const char *return_type(const cuplug__sig_check *c) {
  if (c->abi == CUPLUG_ABI_NUMBA) return "i32";
  return cuplug__type_lowered(c->sig->restype, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN)->ir_type;
}

/* The first disagreement, into why; UNKNOWN when none was seen but a type
 * could not be read. */
static verdict first_difference(const ir_module *m, const ir_function *fn,
                                const cuplug__sig_check *c, cuplug__buf *why,
                                cuplug__buf *found) {
  const char *ret = return_type(c);
  header h = {.m = m};
  size_t n = cuplug__ir_slice(m, fn->ret_type.start, fn->params_close, &h.at);
  h.end = h.at + n;
  verdict v = compare(&h, fn->ret_type, ret, found);
  if (v == DIFFERENT) {
    if (c->abi == CUPLUG_ABI_NUMBA)
      cuplug__buf_printf(why, "the IR returns %s; a Numba-ABI function returns i32 (a status) "
                              "and its value through parameter 0, the return slot", found->data);
    else
      cuplug__buf_printf(why, "the IR returns %s; the signature's return type %s wants %s",
                         found->data, c->sig->restype->name, ret);
    return DIFFERENT;
  }
  bool unknown = v == UNKNOWN;
  const cuplug__lowered *want = cuplug__type_lowered(c->sig, c->abi, CUPLUG_POSITION_ARGUMENT);
  size_t common = fn->num_params < want->num_parts ? fn->num_params : want->num_parts;
  for (size_t i = 0; i < common; i++) {
    v = compare(&h, fn->params[i].type, want->parts[i], found);
    if (v == DIFFERENT) {
      describe(why, c, i, found->data, want->parts[i]);
      if (fn->num_params != want->num_parts)
        cuplug__buf_printf(why, "; and the IR has %zu parameters, the signature %zu",
                           fn->num_params, want->num_parts);
      return DIFFERENT;
    }
    unknown |= v == UNKNOWN;
  }
  if (fn->num_params != want->num_parts) {
    cuplug__buf_printf(why, "the IR has %zu parameters; the signature wants %zu", fn->num_params,
                       want->num_parts);
    if (c->abi == CUPLUG_ABI_NUMBA)
      cuplug__buf_printf(why, " (the return slot, then %zu for its arguments)",
                         want->num_parts - 1);
    return DIFFERENT;
  }
  if (fn->varargs) {
    cuplug__buf_puts(why, "the IR's function takes varargs (...), which no signature has");
    return DIFFERENT;
  }
  return unknown ? UNKNOWN : SAME;
}

/* A header written for the signature under the other ABI is the likely
 * mistake (entry_abi, or declare_device's abi): said so, rather than the
 * first parameter that differs. */
static void other_abi(const ir_module *m, const ir_function *fn, const cuplug__sig_check *c,
                      cuplug__buf *why, cuplug__buf *found) {
  cuplug__sig_check o = *c;
  o.abi = c->abi == CUPLUG_ABI_C ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C;
  cuplug__buf scratch;
  cuplug__buf_init(&scratch);
  verdict v = first_difference(m, fn, &o, &scratch, found);
  cuplug__buf_free(&scratch);
  if (v != SAME) return;
  cuplug__buf_clear(why);
  cuplug__buf_printf(why, "the IR has the %s ABI's form of it, %s: %s",
                     o.abi == CUPLUG_ABI_C ? "C" : "Numba",
                     cuplug__type_lowered(c->sig, o.abi, CUPLUG_POSITION_ARGUMENT)->ir_type,
                     o.abi == CUPLUG_ABI_C ? "the value returned, no return slot"
                                           : "a status returned, the value through a return slot");
}

cuplug_error *cuplug__ir_check_signature(const ir_module *m, const ir_function *fn,
                                         const cuplug__sig_check *c, bool *known) {
  cuplug__buf why, found;
  cuplug__buf_init(&why);
  cuplug__buf_init(&found);
  verdict v = first_difference(m, fn, c, &why, &found);
  if (v == DIFFERENT) other_abi(m, fn, c, &why, &found);
  cuplug_error *e = NULL;
  if (why.oom || found.oom)
    e = cuplug__error_oom();
  else if (v == DIFFERENT)
    e = cuplug__error(c->code, "%s @%s%s%s%s does not match signature '%s' under the %s ABI: %s",
                      c->what, c->symbol, c->key ? " (" : "", c->key ? c->key : "",
                      c->key ? ")" : "", c->sig->name, c->abi == CUPLUG_ABI_C ? "C" : "Numba",
                      why.data);
  cuplug__buf_free(&why);
  cuplug__buf_free(&found);
  *known = v != UNKNOWN;
  return e;
}
