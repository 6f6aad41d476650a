/* numba_atomics.c - definitions of numba's atomic helpers.
 *
 * numba-cuda's lowering declares ___numba_atomic_<type>_<op> for the atomic
 * operations PTX lacks (float subtraction, double addition on old targets,
 * floating min/max with numba's NaN rules, wrapping u64 inc/dec) and its
 * backend replaces the declarations with compare-and-swap loops before
 * libNVVM sees the IR.  cuplug does the same, with its own loops. */
#include <string.h>

#include "lowering/lowering.h"

typedef enum { BINARY, MINMAX, INCDEC } shape;

static const struct helper {
  const char *name;
  shape shape;
  const char *t, *ti; /* value type and same-size integer type */
  const char *op;     /* binary: the instruction; minmax: the fcmp predicate */
  bool nan_variant;   /* nanmin/nanmax: only a NaN operand returns early */
} helpers[] = {
    {"___numba_atomic_double_add", BINARY, "double", "i64", "fadd", false},
    {"___numba_atomic_float_sub", BINARY, "float", "i32", "fsub", false},
    {"___numba_atomic_double_sub", BINARY, "double", "i64", "fsub", false},
    {"___numba_atomic_u64_inc", INCDEC, "i64", "i64", "inc", false},
    {"___numba_atomic_u64_dec", INCDEC, "i64", "i64", "dec", false},
    {"___numba_atomic_float_max", MINMAX, "float", "i32", "nnan olt", false},
    {"___numba_atomic_double_max", MINMAX, "double", "i64", "nnan olt", false},
    {"___numba_atomic_float_min", MINMAX, "float", "i32", "nnan ogt", false},
    {"___numba_atomic_double_min", MINMAX, "double", "i64", "nnan ogt", false},
    {"___numba_atomic_float_nanmax", MINMAX, "float", "i32", "ult", true},
    {"___numba_atomic_double_nanmax", MINMAX, "double", "i64", "ult", true},
    {"___numba_atomic_float_nanmin", MINMAX, "float", "i32", "ugt", true},
    {"___numba_atomic_double_nanmin", MINMAX, "double", "i64", "ugt", true},
};

/* old = *p; loop { new = old OP val; if cas(p, old, new) succeeds break }
 * and return the value replaced. */
static void binary(cuplug__buf *b, const struct helper *h) {
  cuplug__buf_printf(
      b,
      "define internal %1$s @%3$s(%1$s* %%ptr, %1$s %%val) alwaysinline {\n"
      "entry:\n"
      "  %%iptr = bitcast %1$s* %%ptr to %2$s*\n"
      "  %%first = load volatile %2$s, %2$s* %%iptr\n"
      "  br label %%attempt\n"
      "attempt:\n"
      "  %%old = phi %2$s [ %%first, %%entry ], [ %%seen, %%attempt ]\n"
      "  %%fold = bitcast %2$s %%old to %1$s\n"
      "  %%fnew = %4$s %1$s %%fold, %%val\n"
      "  %%new = bitcast %1$s %%fnew to %2$s\n"
      "  %%cas = cmpxchg volatile %2$s* %%iptr, %2$s %%old, %2$s %%new monotonic monotonic\n"
      "  %%seen = extractvalue { %2$s, i1 } %%cas, 0\n"
      "  %%swapped = extractvalue { %2$s, i1 } %%cas, 1\n"
      "  br i1 %%swapped, label %%done, label %%attempt\n"
      "done:\n"
      "  ret %1$s %%fold\n"
      "}\n",
      h->t, h->ti, h->name, h->op);
}

/* CUDA's atomicInc/atomicDec on u64:
 *   inc: old >= val ? 0 : old + 1      dec: old == 0 || old > val ? val : old - 1 */
static void incdec(cuplug__buf *b, const struct helper *h) {
  bool inc = strcmp(h->op, "inc") == 0;
  cuplug__buf_printf(
      b,
      "define internal i64 @%s(i64* %%ptr, i64 %%val) alwaysinline {\n"
      "entry:\n"
      "  %%first = load volatile i64, i64* %%ptr\n"
      "  br label %%attempt\n"
      "attempt:\n"
      "  %%old = phi i64 [ %%first, %%entry ], [ %%seen, %%attempt ]\n",
      h->name);
  if (inc)
    cuplug__buf_puts(b,
                     "  %wrap = icmp uge i64 %old, %val\n"
                     "  %next = add i64 %old, 1\n"
                     "  %new = select i1 %wrap, i64 0, i64 %next\n");
  else
    cuplug__buf_puts(b,
                     "  %is_zero = icmp eq i64 %old, 0\n"
                     "  %above = icmp ugt i64 %old, %val\n"
                     "  %wrap = or i1 %is_zero, %above\n"
                     "  %next = sub i64 %old, 1\n"
                     "  %new = select i1 %wrap, i64 %val, i64 %next\n");
  cuplug__buf_puts(b,
                   "  %cas = cmpxchg volatile i64* %ptr, i64 %old, i64 %new monotonic monotonic\n"
                   "  %seen = extractvalue { i64, i1 } %cas, 0\n"
                   "  %swapped = extractvalue { i64, i1 } %cas, 1\n"
                   "  br i1 %swapped, label %done, label %attempt\n"
                   "done:\n"
                   "  ret i64 %old\n"
                   "}\n");
}

/* numba's floating min/max: return early when the operands are unordered
 * (min/max: either is NaN; nanmin/nanmax: val is NaN); otherwise swap val in
 * while the stored value compares (PRED) against it.  Returns the value
 * first read. */
static void minmax(cuplug__buf *b, const struct helper *h) {
  cuplug__buf_printf(
      b,
      "define internal %1$s @%3$s(%1$s* %%ptr, %1$s %%val) alwaysinline {\n"
      "entry:\n"
      "  %%first = load volatile %1$s, %1$s* %%ptr\n"
      "  %%unordered = fcmp uno %1$s %%val, %5$s\n"
      "  br i1 %%unordered, label %%done, label %%compare\n"
      "compare:\n"
      "  %%cur = phi %1$s [ %%first, %%entry ], [ %%fseen, %%attempt ]\n"
      "  %%replace = fcmp %4$s %1$s %%cur, %%val\n"
      "  br i1 %%replace, label %%attempt, label %%done\n"
      "attempt:\n"
      "  %%iptr = bitcast %1$s* %%ptr to %2$s*\n"
      "  %%old = bitcast %1$s %%cur to %2$s\n"
      "  %%new = bitcast %1$s %%val to %2$s\n"
      "  %%cas = cmpxchg volatile %2$s* %%iptr, %2$s %%old, %2$s %%new monotonic monotonic\n"
      "  %%seen = extractvalue { %2$s, i1 } %%cas, 0\n"
      "  %%fseen = bitcast %2$s %%seen to %1$s\n"
      "  br label %%compare\n"
      "done:\n"
      "  ret %1$s %%first\n"
      "}\n",
      h->t, h->ti, h->name, h->op, h->nan_variant ? "%val" : "%first");
}

bool cuplug__numba_atomic_definition(const char *name, cuplug__buf *out) {
  for (size_t i = 0; i < sizeof helpers / sizeof helpers[0]; i++) {
    const struct helper *h = &helpers[i];
    if (strcmp(h->name, name) != 0) continue;
    if (h->shape == BINARY)
      binary(out, h);
    else if (h->shape == INCDEC)
      incdec(out, h);
    else
      minmax(out, h);
    return true;
  }
  return false;
}
