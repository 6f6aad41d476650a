/* builtins.c - the list of built-ins and the helpers their IR writers share. */
#include "lowering/builtins.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"

static const cuplug__builtin **all;
static size_t num_all;
static pthread_once_t all_once = PTHREAD_ONCE_INIT;

static void gather(void) {
  const struct {
    const cuplug__builtin *table;
    size_t n;
  } families[] = {
      {cuplug__builtins_thread, cuplug__num_builtins_thread},
      {cuplug__builtins_atomic, cuplug__num_builtins_atomic},
      {cuplug__builtins_math, cuplug__num_builtins_math},
      {cuplug__builtins_array, cuplug__num_builtins_array},
  };
  size_t n = 0;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++) n += families[f].n;
  all = malloc(n * sizeof *all);
  if (!all) return;
  for (size_t f = 0; f < sizeof families / sizeof families[0]; f++)
    for (size_t i = 0; i < families[f].n; i++) all[num_all++] = &families[f].table[i];
}

__attribute__((destructor)) static void release(void) { free(all); }

const cuplug__builtin *const *cuplug__builtins(size_t *count) {
  pthread_once(&all_once, gather);
  *count = num_all;
  return all;
}

/* What cuplug's built-ins take beyond numba-cuda 0.30's typing (the README
 * lists them; tests/numba_cuda/typing_matrix.py allows them). */
const char *cuplug__builtin_extension(const cuplug__builtin *b) {
  if (strcmp(b->key, "cuda.atomic.exch") == 0)
    return "float32 and float64 arrays; CPointer(T) targets";
  if (strncmp(b->key, "cuda.atomic.", 12) == 0 && strcmp(b->key, "cuda.atomic.compare_and_swap"))
    return "CPointer(T) targets";
  if (strcmp(b->key, "cuda.clock64") == 0 || strcmp(b->key, "cuda.globaltimer") == 0)
    return "not in numba-cuda 0.30";
  return "";
}

/* ---- writing IR ---- */

size_t cuplug__bi_param(const cuplug_type *sig, size_t arg) {
  size_t p = 0;
  for (size_t i = 0; i < arg; i++)
    p += cuplug__type_lowered(sig->args[i], CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT)->num_parts;
  return p;
}

void cuplug__bi_begin(cuplug__buf *b, const cuplug_type *sig, const char *symbol) {
  const cuplug__lowered *ret =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN);
  cuplug__buf_printf(b, "; %s, written by cuplug\ndefine linkonce_odr %s @%s(", sig->name,
                     ret->ir_type, symbol);
  size_t p = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT);
    for (size_t j = 0; j < a->num_parts; j++, p++)
      cuplug__buf_printf(b, "%s%s %%p%zu", p ? ", " : "", a->parts[j], p);
  }
  cuplug__buf_puts(b, ") alwaysinline {\nentry:\n");
}

const char *cuplug__bi_ir(const cuplug_type *t) {
  return cuplug__type_lowered(t, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN)->ir_type;
}

unsigned cuplug__bi_bits(const cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_INT_LITERAL) return 64;
  return cuplug__type_size(t) * 8;
}

void cuplug__bi_int(cuplug__buf *b, const char *dst, const char *src, const cuplug_type *from,
                    unsigned bits) {
  unsigned have = cuplug__bi_bits(from);
  const char *op = have == bits                        ? "bitcast"
                   : have > bits                       ? "trunc"
                   : cuplug__type_is_signed(from)      ? "sext"
                                                       : "zext";
  cuplug__buf_printf(b, "  %%%s = %s i%u %%%s to i%u\n", dst, op, have, src, bits);
}

cuplug_error *cuplug__bi_sig(const cuplug_type **sig, const cuplug_type *restype, size_t n, ...) {
  const cuplug_type *args[16];
  va_list ap;
  va_start(ap, n);
  for (size_t i = 0; i < n && i < 16; i++) args[i] = va_arg(ap, const cuplug_type *);
  va_end(ap);
  return cuplug__type_signature(restype, args, n, sig);
}

void cuplug__bi_forward(cuplug__buf *b, const cuplug_type *sig, const char *symbol,
                        const char *callee, const char *trailing) {
  const char *ret = cuplug__bi_ir(sig->restype);
  bool is_void = sig->restype->kind == CUPLUG_TYPE_VOID;
  cuplug__buf params;
  cuplug__buf_init(&params);
  cuplug__buf types;
  cuplug__buf_init(&types);
  size_t p = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT);
    for (size_t j = 0; j < a->num_parts; j++, p++) {
      cuplug__buf_printf(&params, "%s%s %%p%zu", p ? ", " : "", a->parts[j], p);
      cuplug__buf_printf(&types, "%s%s", p ? ", " : "", a->parts[j]);
    }
  }
  if (trailing) {
    /* "i1 false": the type is the first word */
    cuplug__buf_printf(&params, "%s%s", p ? ", " : "", trailing);
    cuplug__buf_printf(&types, "%s%.*s", p ? ", " : "", (int)strcspn(trailing, " "), trailing);
  }
  cuplug__bi_begin(b, sig, symbol);
  if (is_void) {
    cuplug__buf_printf(b, "  call void @%s(%s)\n  ret void\n}\n", callee,
                       params.data ? params.data : "");
  } else {
    cuplug__buf_printf(b, "  %%v = call %s @%s(%s)\n  ret %s %%v\n}\n", ret, callee,
                       params.data ? params.data : "", ret);
  }
  cuplug__buf_printf(b, "\ndeclare %s @%s(%s)\n", ret, callee, types.data ? types.data : "");
  b->oom |= params.oom || types.oom;
  cuplug__buf_free(&params);
  cuplug__buf_free(&types);
}
