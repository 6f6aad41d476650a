/* builtins_array.c - cuda.shared.array, cuda.local.array and constant arrays.
 *
 * numba-cuda types shared.array(shape, dtype) and local.array(shape, dtype)
 * from a literal shape (an integer, or a tuple of them) and a dtype, as a
 * C-layout array.  Here the dtype comes as a number class, "class(float32)",
 * and the result is a function that returns the array struct:
 *
 *   shared  an internal addrspace(3) global of its own; each resolve makes
 *           a new symbol, so that every call site has its own array, as in
 *           numba-cuda.  A 1-d shape of 0 is the dynamic shared memory of
 *           the launch (its length from %dynamic_smem_size).
 *   local   an alloca in the function, which is always inlined: the array
 *           lives in the caller's frame.
 *   const   (cuplug_const_array) an internal addrspace(4) constant holding
 *           the bytes. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/builtins.h"

enum { SHARED, LOCAL };

/* The shape's extents, from a literal or a tuple of literals; false when
 * the type is neither. */
static bool read_shape(const cuplug_type *t, int64_t *shape, uint32_t *ndim) {
  if (t->kind == CUPLUG_TYPE_INT_LITERAL) {
    shape[0] = t->value;
    *ndim = 1;
    return true;
  }
  if (t->kind != CUPLUG_TYPE_TUPLE || t->nargs < 1 || t->nargs > 8) return false;
  for (size_t d = 0; d < t->nargs; d++) {
    if (t->args[d]->kind != CUPLUG_TYPE_INT_LITERAL) return false;
    shape[d] = t->args[d]->value;
  }
  *ndim = (uint32_t)t->nargs;
  return true;
}

static cuplug_error *type_array(const cuplug__builtin *b, const cuplug_type *const *args,
                                size_t n, const cuplug_type **sig) {
  *sig = NULL;
  int64_t shape[8];
  uint32_t ndim;
  if (n != 2 || !read_shape(args[0], shape, &ndim) ||
      args[1]->kind != CUPLUG_TYPE_NUMBER_CLASS)
    return NULL;
  for (uint32_t d = 0; d < ndim; d++) {
    /* only a 1-d shared array may be 0 long: the dynamic shared memory */
    bool dynamic = b->op == SHARED && ndim == 1 && shape[0] == 0;
    if (shape[d] <= 0 && !dynamic) return NULL;
  }
  const cuplug_type *array;
  CUPLUG__TRY(cuplug__type_array(args[1]->element, ndim, CUPLUG_LAYOUT_C, &array));
  return cuplug__bi_sig(sig, array, 2, args[0], args[1]);
}

/* Alignment of an element: its size, or its part's for a complex. */
static unsigned alignment(const cuplug_type *dtype) {
  unsigned size = cuplug__type_size(dtype);
  if (dtype->kind == CUPLUG_TYPE_COMPLEX64 || dtype->kind == CUPLUG_TYPE_COMPLEX128) size /= 2;
  return size;
}

/* Returns the array struct over %ptr (a T*) with C-order strides; %nitems
 * is the element count when `dynamic_count` is set. */
static void put_struct(cuplug__buf *out, const cuplug_type *array, const int64_t *shape,
                       bool dynamic_count) {
  const char *st = cuplug__bi_ir(array);
  const char *et = cuplug__bi_ir(array->element);
  uint32_t nd = array->ndim;
  int64_t itemsize = cuplug__type_size(array->element), count = 1, strides[8];
  for (uint32_t d = nd; d-- > 0;) {
    strides[d] = d == nd - 1 ? itemsize : strides[d + 1] * shape[d + 1];
    count *= shape[d];
  }
  cuplug__buf_printf(out,
                     "  %%s0 = insertvalue %s undef, i8* null, 0\n"
                     "  %%s1 = insertvalue %s %%s0, i8* null, 1\n",
                     st, st);
  if (dynamic_count)
    cuplug__buf_printf(out, "  %%s2 = insertvalue %s %%s1, i64 %%nitems, 2\n", st);
  else
    cuplug__buf_printf(out, "  %%s2 = insertvalue %s %%s1, i64 %lld, 2\n", st, (long long)count);
  cuplug__buf_printf(out,
                     "  %%s3 = insertvalue %s %%s2, i64 %lld, 3\n"
                     "  %%s4 = insertvalue %s %%s3, %s* %%ptr, 4\n",
                     st, (long long)itemsize, st, et);
  cuplug__buf_printf(out, "  %%s5 = insertvalue %s %%s4, [%u x i64] [", st, nd);
  for (uint32_t d = 0; d < nd; d++) {
    if (dynamic_count)
      cuplug__buf_puts(out, "i64 undef");
    else
      cuplug__buf_printf(out, "%si64 %lld", d ? ", " : "", (long long)shape[d]);
  }
  cuplug__buf_printf(out, "], 5\n  %%s6 = insertvalue %s %%s5, [%u x i64] [", st, nd);
  for (uint32_t d = 0; d < nd; d++)
    cuplug__buf_printf(out, "%si64 %lld", d ? ", " : "", (long long)strides[d]);
  cuplug__buf_puts(out, "], 6\n");
  if (dynamic_count)
    cuplug__buf_printf(out,
                       "  %%s7 = insertvalue %s %%s6, i64 %%nitems, 5, 0\n  ret %s %%s7\n}\n", st,
                       st);
  else
    cuplug__buf_printf(out, "  ret %s %%s6\n}\n", st);
}

static cuplug_error *lower_array(const cuplug__builtin *b, const cuplug_type *sig,
                                 const char *symbol, cuplug__buf *out) {
  const cuplug_type *array = sig->restype;
  const char *et = cuplug__bi_ir(array->element);
  int64_t shape[8];
  uint32_t nd;
  read_shape(sig->args[0], shape, &nd);
  int64_t count = 1;
  for (uint32_t d = 0; d < nd; d++) count *= shape[d];
  unsigned align = alignment(array->element);
  bool dynamic = b->op == SHARED && count == 0;
  if (b->op == SHARED && dynamic)
    cuplug__buf_printf(out, "@%s_mem = external addrspace(3) global [0 x %s], align %u\n\n", symbol,
                       et, align);
  else if (b->op == SHARED)
    cuplug__buf_printf(out, "@%s_mem = internal addrspace(3) global [%lld x %s] undef, align %u\n\n",
                       symbol, (long long)count, et, align);
  cuplug__bi_begin(out, sig, symbol);
  if (b->op == LOCAL) {
    cuplug__buf_printf(out,
                       "  %%mem = alloca [%lld x %s], align %u\n"
                       "  %%ptr = getelementptr [%lld x %s], [%lld x %s]* %%mem, i64 0, i64 0\n",
                       (long long)count, et, align, (long long)count, et, (long long)count, et);
  } else {
    cuplug__buf_printf(out,
                       "  %%mem = addrspacecast [%lld x %s] addrspace(3)* @%s_mem to [%lld x %s]*\n"
                       "  %%ptr = getelementptr [%lld x %s], [%lld x %s]* %%mem, i64 0, i64 0\n",
                       (long long)count, et, symbol, (long long)count, et, (long long)count, et,
                       (long long)count, et);
  }
  if (dynamic)
    cuplug__buf_printf(out,
                       "  %%bytes = call i32 asm sideeffect \"mov.u32 $0, %%dynamic_smem_size;\", "
                       "\"=r\"()\n"
                       "  %%bytes64 = zext i32 %%bytes to i64\n"
                       "  %%nitems = udiv i64 %%bytes64, %u\n",
                       cuplug__type_size(array->element));
  put_struct(out, array, shape, dynamic);
  return NULL;
}

void cuplug__const_array_ir(cuplug__buf *b, const char *symbol, const cuplug_type *array,
                            const int64_t *shape, const void *data, size_t size) {
  const char *et = cuplug__bi_ir(array->element);
  unsigned size_align = cuplug__type_size(array->element), align = 1;
  while (align < size_align) align *= 2;
  cuplug__buf_printf(b, "@%s_data = internal addrspace(4) constant [%zu x i8] ", symbol, size);
  if (!size) {
    cuplug__buf_puts(b, "zeroinitializer");
  } else {
    cuplug__buf_puts(b, "c\"");
    for (size_t i = 0; i < size; i++) cuplug__buf_printf(b, "\\%02X", ((const unsigned char *)data)[i]);
    cuplug__buf_putc(b, '"');
  }
  cuplug__buf_printf(b, ", align %u\n\n", align);
  const cuplug_type *sig;
  if (cuplug__type_signature(array, NULL, 0, &sig)) {
    b->oom = true;
    return;
  }
  cuplug__bi_begin(b, sig, symbol);
  cuplug__buf_printf(b,
                     "  %%mem = addrspacecast [%zu x i8] addrspace(4)* @%s_data to [%zu x i8]*\n"
                     "  %%bytes = getelementptr [%zu x i8], [%zu x i8]* %%mem, i64 0, i64 0\n"
                     "  %%ptr = bitcast i8* %%bytes to %s*\n",
                     size, symbol, size, size, size, et);
  put_struct(b, array, shape, false);
}

const cuplug__builtin cuplug__builtins_array[] = {
    {"cuda.shared.array", NULL,
     "T[::1] or T[:, ::1]...(Literal[int](n) or a tuple of them, class(T)); n 0: dynamic", type_array,
     lower_array, NULL, SHARED, true},
    {"cuda.local.array", NULL,
     "T[::1] or T[:, ::1]...(Literal[int](n) or a tuple of them, class(T))", type_array,
     lower_array, NULL, LOCAL, false},
};
const size_t cuplug__num_builtins_array =
    sizeof cuplug__builtins_array / sizeof cuplug__builtins_array[0];
