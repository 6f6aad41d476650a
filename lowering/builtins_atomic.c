/* builtins_atomic.c - cuda.atomic.*.
 *
 * numba-cuda's forms: op(ary, idx, val) on an element of an array (idx an
 * integer for 1-d arrays, a tuple of integers otherwise; negative indices
 * count from the end), cas(ary, idx, old, val) and compare_and_swap(ary,
 * old, val) on element 0 of a 1-d array; each returns the value the
 * element had.  cuplug adds a pointer form, op(ptr, val) and cas(ptr, old,
 * val), for hosts that address memory themselves.
 *
 * Lowering is numba-cuda's: atomicrmw where LLVM has the operation, NVVM's
 * atomic intrinsics for float addition and 32-bit inc/dec, and numba's
 * compare-and-swap helpers (___numba_atomic_*, defined by legalisation)
 * for the rest.  Memory order is monotonic, as numba-cuda's. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/builtins.h"

enum { ADD, SUB, AND, OR, XOR, MAX, MIN, NANMAX, NANMIN, EXCH, INC, DEC, CAS, CAS1 };

/* Which dtypes each operation takes. */
enum { INTS = 1, FLOATS = 2, UNSIGNED_ONLY = 4 };

static unsigned takes(int op) {
  switch (op) {
    case ADD: case SUB: case MAX: case MIN: case NANMAX: case NANMIN: case EXCH:
      return INTS | FLOATS;
    case INC: case DEC:
      return UNSIGNED_ONLY;
    default:
      return INTS;
  }
}

static bool dtype_ok(int op, const cuplug_type *t) {
  unsigned k = takes(op);
  switch (t->kind) {
    case CUPLUG_TYPE_UINT32: case CUPLUG_TYPE_UINT64:
      return true;
    case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_INT64:
      return k & INTS;
    case CUPLUG_TYPE_FLOAT32: case CUPLUG_TYPE_FLOAT64:
      return k & FLOATS;
    default:
      return false;
  }
}

static bool is_int(const cuplug_type *t) {
  return cuplug__type_is_integer(t) || t->kind == CUPLUG_TYPE_INT_LITERAL;
}

static cuplug_error *type_atomic(const cuplug__builtin *b, const cuplug_type *const *args,
                                 size_t n, const cuplug_type **sig) {
  *sig = NULL;
  int op = b->op;
  size_t values = op == CAS || op == CAS1 ? 2 : 1;
  if (n < 1) return NULL;
  const cuplug_type *target = args[0], *dtype;
  bool array = target->kind == CUPLUG_TYPE_ARRAY;
  if (array)
    dtype = target->element;
  else if (target->kind == CUPLUG_TYPE_POINTER && op != CAS1)
    dtype = target->element;
  else
    return NULL;
  if (!dtype_ok(op, dtype)) return NULL;
  const cuplug_type *index = NULL;
  size_t first_value = 1;
  if (array && op != CAS1) {
    /* the index: an integer for a 1-d array, a tuple of ndim integers */
    if (n < 2) return NULL;
    const cuplug_type *i64 = cuplug__type_scalar(CUPLUG_TYPE_INT64);
    if (target->ndim == 1 && cuplug__type_is_number(args[1])) { /* numba-cuda: any index, as intp */
      index = i64;
    } else if (args[1]->kind == CUPLUG_TYPE_TUPLE && args[1]->nargs == target->ndim) {
      for (size_t d = 0; d < args[1]->nargs; d++)
        if (!is_int(args[1]->args[d])) return NULL;
      const cuplug_type *elems[8];
      for (size_t d = 0; d < target->ndim; d++) elems[d] = i64;
      CUPLUG__TRY(cuplug__type_tuple(elems, target->ndim, &index));
    } else {
      return NULL;
    }
    first_value = 2;
  }
  if (op == CAS1 && target->ndim != 1) return NULL;
  if (n != first_value + values) return NULL;
  for (size_t i = first_value; i < n; i++)
    if (!cuplug__type_is_number(args[i])) return NULL;
  if (index && values == 2) return cuplug__bi_sig(sig, dtype, 4, target, index, dtype, dtype);
  if (index) return cuplug__bi_sig(sig, dtype, 3, target, index, dtype);
  if (values == 2) return cuplug__bi_sig(sig, dtype, 3, target, dtype, dtype);
  return cuplug__bi_sig(sig, dtype, 2, target, dtype);
}

/* %ptr: the element's address.  An array's element is at data + sum of
 * index * stride (bytes), a negative index counting from the end. */
static void address(cuplug__buf *out, const cuplug_type *sig, int op) {
  const cuplug_type *target = sig->args[0];
  const char *ty = cuplug__bi_ir(target->element);
  if (target->kind == CUPLUG_TYPE_POINTER) {
    cuplug__buf_printf(out, "  %%ptr = bitcast %s* %%p0 to %s*\n", ty, ty);
    return;
  }
  uint32_t nd = target->ndim;
  size_t ip = cuplug__bi_param(sig, 1);
  cuplug__buf_printf(out, "  %%base = bitcast %s* %%p4 to i8*\n  %%off.0 = add i64 0, 0\n", ty);
  for (uint32_t d = 0; d < nd; d++) {
    if (op == CAS1)
      cuplug__buf_printf(out, "  %%i%u = add i64 0, 0\n", d);
    else
      cuplug__buf_printf(out, "  %%i%u = add i64 %%p%zu, 0\n", d, ip + d);
    cuplug__buf_printf(out,
                       "  %%neg%u = icmp slt i64 %%i%u, 0\n"
                       "  %%wrapped%u = add i64 %%i%u, %%p%u\n"
                       "  %%j%u = select i1 %%neg%u, i64 %%wrapped%u, i64 %%i%u\n"
                       "  %%bytes%u = mul i64 %%j%u, %%p%u\n"
                       "  %%off.%u = add i64 %%off.%u, %%bytes%u\n",
                       d, d, d, d, 5 + d, d, d, d, d, d, d, 5 + nd + d, d + 1, d, d);
  }
  cuplug__buf_printf(out,
                     "  %%addr = getelementptr i8, i8* %%base, i64 %%off.%u\n"
                     "  %%ptr = bitcast i8* %%addr to %s*\n",
                     nd, ty);
}

static const char *const rmw_ops[] = {[ADD] = "add", [SUB] = "sub", [AND] = "and", [OR] = "or",
                                      [XOR] = "xor", [MAX] = "max", [MIN] = "min",
                                      [NANMAX] = "max", [NANMIN] = "min", [EXCH] = "xchg"};
static const char *const helper_ops[] = {[SUB] = "sub", [MAX] = "max", [MIN] = "min",
                                         [NANMAX] = "nanmax", [NANMIN] = "nanmin"};

static cuplug_error *lower_atomic(const cuplug__builtin *b, const cuplug_type *sig,
                                  const char *symbol, cuplug__buf *out) {
  int op = b->op;
  const cuplug_type *dt = sig->restype;
  const char *ty = cuplug__bi_ir(dt);
  unsigned bits = cuplug__bi_bits(dt);
  bool is_float = cuplug__type_is_float(dt);
  bool is_unsigned = dt->kind == CUPLUG_TYPE_UINT32 || dt->kind == CUPLUG_TYPE_UINT64;
  size_t vp = cuplug__bi_param(sig, sig->nargs - (op == CAS || op == CAS1 ? 2 : 1));
  cuplug__bi_begin(out, sig, symbol);
  address(out, sig, op);
  char decl[160] = "";
  if (op == CAS || op == CAS1) {
    cuplug__buf_printf(out,
                       "  %%pair = cmpxchg %s* %%ptr, %s %%p%zu, %s %%p%zu monotonic monotonic\n"
                       "  %%v = extractvalue {%s, i1} %%pair, 0\n",
                       ty, ty, vp, ty, vp + 1, ty);
  } else if (is_float && op == ADD) {
    const char *w = bits == 32 ? "f32.p0f32" : "f64.p0f64";
    cuplug__buf_printf(out, "  %%v = call %s @llvm.nvvm.atomic.load.add.%s(%s* %%ptr, %s %%p%zu)\n",
                       ty, w, ty, ty, vp);
    snprintf(decl, sizeof decl, "declare %s @llvm.nvvm.atomic.load.add.%s(%s*, %s)\n", ty, w, ty,
             ty);
  } else if (is_float && op == EXCH) {
    cuplug__buf_printf(out,
                       "  %%iptr = bitcast %s* %%ptr to i%u*\n"
                       "  %%ival = bitcast %s %%p%zu to i%u\n"
                       "  %%iold = atomicrmw xchg i%u* %%iptr, i%u %%ival monotonic\n"
                       "  %%v = bitcast i%u %%iold to %s\n",
                       ty, bits, ty, vp, bits, bits, bits, bits, ty);
  } else if (is_float) {
    char helper[64];
    snprintf(helper, sizeof helper, "___numba_atomic_%s_%s", bits == 32 ? "float" : "double",
             helper_ops[op]);
    cuplug__buf_printf(out, "  %%v = call %s @%s(%s* %%ptr, %s %%p%zu)\n", ty, helper, ty, ty, vp);
    snprintf(decl, sizeof decl, "declare %s @%s(%s*, %s)\n", ty, helper, ty, ty);
  } else if ((op == INC || op == DEC) && bits == 32) {
    const char *w = op == INC ? "inc" : "dec";
    cuplug__buf_printf(out, "  %%v = call i32 @llvm.nvvm.atomic.load.%s.32.p0i32(i32* %%ptr, i32 %%p%zu)\n",
                       w, vp);
    snprintf(decl, sizeof decl, "declare i32 @llvm.nvvm.atomic.load.%s.32.p0i32(i32*, i32)\n", w);
  } else if (op == INC || op == DEC) {
    const char *w = op == INC ? "inc" : "dec";
    cuplug__buf_printf(out, "  %%v = call i64 @___numba_atomic_u64_%s(i64* %%ptr, i64 %%p%zu)\n", w,
                       vp);
    snprintf(decl, sizeof decl, "declare i64 @___numba_atomic_u64_%s(i64*, i64)\n", w);
  } else {
    const char *rmw = rmw_ops[op];
    if (is_unsigned && (op == MAX || op == NANMAX)) rmw = "umax";
    if (is_unsigned && (op == MIN || op == NANMIN)) rmw = "umin";
    cuplug__buf_printf(out, "  %%v = atomicrmw %s %s* %%ptr, %s %%p%zu monotonic\n", rmw, ty, ty,
                       vp);
  }
  cuplug__buf_printf(out, "  ret %s %%v\n}\n%s", ty, decl);
  return NULL;
}

#define ATOMIC(name, op, what)                                                                   \
  {"cuda.atomic." name, NULL,                                                                    \
   "T(T[...] ary, index, value) or T(CPointer(T), value) for T in " what, type_atomic,          \
   lower_atomic, NULL, op, false}
#define ALL "int32, uint32, int64, uint64, float32, float64"
#define INT "int32, uint32, int64, uint64"

const cuplug__builtin cuplug__builtins_atomic[] = {
    ATOMIC("add", ADD, ALL),
    ATOMIC("sub", SUB, ALL),
    ATOMIC("and_", AND, INT),
    ATOMIC("or_", OR, INT),
    ATOMIC("xor", XOR, INT),
    ATOMIC("max", MAX, ALL),
    ATOMIC("min", MIN, ALL),
    ATOMIC("nanmax", NANMAX, ALL),
    ATOMIC("nanmin", NANMIN, ALL),
    ATOMIC("exch", EXCH, ALL),
    ATOMIC("inc", INC, "uint32, uint64"),
    ATOMIC("dec", DEC, "uint32, uint64"),
    {"cuda.atomic.cas", NULL,
     "T(T[...] ary, index, old, value) or T(CPointer(T), old, value) for T in " INT,
     type_atomic, lower_atomic, NULL, CAS, false},
    {"cuda.atomic.compare_and_swap", NULL, "T(T[:] ary, old, value) for T in " INT, type_atomic,
     lower_atomic, NULL, CAS1, false},
};
const size_t cuplug__num_builtins_atomic =
    sizeof cuplug__builtins_atomic / sizeof cuplug__builtins_atomic[0];
