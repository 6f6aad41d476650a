/* ffi.c - a C-ABI function called by a signature known at run time.
 *
 * The CLI, and hosts without a compiler of their own (LuaJIT's, Python's),
 * call a device function compiled for the host through libffi, from the
 * types of its signature: no glue is generated.  Each type is the C type
 * that cabi.c gives it: a complex is a struct of two floats (which the
 * x86-64 ABI passes as it passes `float _Complex`), a tuple or a struct a
 * struct of its members, an array numba's array struct by value.
 *
 * A call whose host sets its interrupt flag jumps back here from the
 * JIT'd code's next poll (interrupt.c): libffi's frames and the JIT'd
 * code's hold nothing to release. */
#include <ffi.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/cpu/ffi.h"
#include "plugin/cpu/fail.h"
#include "plugin/cpu/interrupt.h"

#define MAX_ARGS 256

/* The struct types a call makes, freed after it. */
typedef struct structs {
  void **blocks;
  size_t n, cap;
  bool oom;
} structs;

static void *keep(structs *s, size_t size) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 16;
    void **b = realloc(s->blocks, cap * sizeof *b);
    if (!b) return s->oom = true, NULL;
    s->blocks = b;
    s->cap = cap;
  }
  void *p = calloc(1, size);
  if (!p) return s->oom = true, NULL;
  return s->blocks[s->n++] = p;
}

static void structs_free(structs *s) {
  for (size_t i = 0; i < s->n; i++) free(s->blocks[i]);
  free(s->blocks);
}

/* A struct of n members, member(i) each. */
static ffi_type *struct_of(structs *s, size_t n, ffi_type *(*member)(structs *, const void *, size_t),
                           const void *of) {
  ffi_type *t = keep(s, sizeof *t);
  ffi_type **elements = keep(s, (n + 1) * sizeof *elements);
  if (!t || !elements) return NULL;
  t->type = FFI_TYPE_STRUCT;
  t->elements = elements;
  for (size_t i = 0; i < n; i++)
    if (!(elements[i] = member(s, of, i))) return NULL;
  return t;
}

static ffi_type *ffi_of(structs *s, const cuplug_type *t);

static ffi_type *complex_part(structs *s, const void *t, size_t i) {
  (void)s, (void)i;
  return ((const cuplug_type *)t)->kind == CUPLUG_TYPE_COMPLEX64 ? &ffi_type_float
                                                                 : &ffi_type_double;
}

static ffi_type *tuple_member(structs *s, const void *t, size_t i) {
  return ffi_of(s, ((const cuplug_type *)t)->args[i]);
}

/* meminfo, parent, nitems, itemsize, data, shape[N], strides[N] */
static ffi_type *array_field(structs *s, const void *t, size_t i) {
  (void)s, (void)t;
  return i == 0 || i == 1 || i == 4 ? &ffi_type_pointer : &ffi_type_sint64;
}

static ffi_type *ffi_of(structs *s, const cuplug_type *t) {
  switch (t->kind) {
    case CUPLUG_TYPE_VOID: return &ffi_type_void;
    case CUPLUG_TYPE_BOOL: return &ffi_type_uint8;
    case CUPLUG_TYPE_INT8: return &ffi_type_sint8;
    case CUPLUG_TYPE_INT16: return &ffi_type_sint16;
    case CUPLUG_TYPE_INT32: return &ffi_type_sint32;
    case CUPLUG_TYPE_INT64: return &ffi_type_sint64;
    case CUPLUG_TYPE_UINT8: return &ffi_type_uint8;
    case CUPLUG_TYPE_UINT16: return &ffi_type_uint16;
    case CUPLUG_TYPE_UINT32: return &ffi_type_uint32;
    case CUPLUG_TYPE_UINT64: return &ffi_type_uint64;
    case CUPLUG_TYPE_FLOAT16: return &ffi_type_uint16; /* its bits, as CUDA's __half */
    case CUPLUG_TYPE_BFLOAT16: return &ffi_type_uint16; /* its bits, as __nv_bfloat16 */
    case CUPLUG_TYPE_FLOAT32: return &ffi_type_float;
    case CUPLUG_TYPE_FLOAT64: return &ffi_type_double;
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: return struct_of(s, 2, complex_part, t);
    case CUPLUG_TYPE_POINTER:
    case CUPLUG_TYPE_RECORD: /* by reference */
    case CUPLUG_TYPE_OPAQUE: return &ffi_type_pointer;
    case CUPLUG_TYPE_ARRAY: return struct_of(s, 5 + 2 * (size_t)t->ndim, array_field, t);
    case CUPLUG_TYPE_TUPLE:
    case CUPLUG_TYPE_STRUCT: return t->nargs ? struct_of(s, t->nargs, tuple_member, t) : NULL;
    default: return NULL;
  }
}

/* The argument types; an empty tuple, a number class and an omitted
 * argument take no parameter (cabi.c), so they and their values are left
 * out. */
static int arg_types(structs *s, const cuplug__cpu_ffi *c, ffi_type **types, void **values,
                     unsigned *n, char **msg) {
  *n = 0;
  for (size_t i = 0; i < c->sig->nargs; i++) {
    const cuplug_type *t = c->sig->args[i];
    if (t->kind == CUPLUG_TYPE_NUMBER_CLASS || t->kind == CUPLUG_TYPE_OMITTED ||
        (t->kind == CUPLUG_TYPE_TUPLE && !t->nargs))
      continue;
    if (!(types[*n] = ffi_of(s, t)))
      return s->oom ? cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory")
                    : cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE,
                                       "call: argument %zu is of a type libffi cannot pass (%s)",
                                       i, t->name);
    values[(*n)++] = c->args[i];
  }
  return 0;
}

/* The call, watched: true when its host stopped it, or its code faulted
 * (*fault, then, says how; NULL when it was stopped). */
static bool interruptible_call(const cuplug__cpu_ffi *c, ffi_cif *cif, void *result,
                               void **values, char **fault) {
  cuplug__cpu_watch watch;
  cuplug__cpu_watch_begin(&watch, c->interrupt);
  sigjmp_buf escape;
  cuplug__cpu_call_exit way_out = {&watch.stopping, &escape, NULL};
  cuplug__cpu_call_exit *outer = cuplug__cpu_calling;
  volatile bool stopped = cuplug__cpu_stopping(&watch.stopping);
  if (!stopped && !sigsetjmp(escape, 0)) {
    cuplug__cpu_calling = &way_out;
    ffi_call(cif, FFI_FN(c->fn), result, values);
  } else {
    stopped = true;
  }
  cuplug__cpu_calling = outer;
  cuplug__cpu_watch_end(&watch);
  *fault = ((volatile cuplug__cpu_call_exit *)&way_out)->fault; /* set across the jump */
  return stopped || *fault;
}

static int call(structs *s, const cuplug__cpu_ffi *c, char **msg) {
  if (c->sig->nargs > MAX_ARGS)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_LIMIT, "call: %zu arguments, more than %d",
                             c->sig->nargs, MAX_ARGS);
  ffi_type *types[MAX_ARGS + 1];
  void *values[MAX_ARGS + 1];
  unsigned n;
  int rc = arg_types(s, c, types, values, &n, msg);
  if (rc) return rc;
  ffi_type *ret = ffi_of(s, c->sig->restype);
  if (!ret)
    return s->oom ? cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory")
                  : cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE,
                                     "call: the result is of a type libffi cannot return (%s)",
                                     c->sig->restype->name);
  ffi_cif cif;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, n, ret, types) != FFI_OK)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE, "call: libffi cannot make the call");
  /* libffi widens an integer result to a full register (its low bytes
   * come first: x86-64 is little-endian), and may write a struct's whole
   * registers */
  size_t room = ret->size > 2 * sizeof(ffi_arg) ? ret->size : 2 * sizeof(ffi_arg);
  unsigned char small[2 * sizeof(ffi_arg)] __attribute__((aligned(16)));
  unsigned char *result = room > sizeof small ? malloc(room) : small;
  if (!result) return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  memset(result, 0, room);
  char *fault = NULL;
  if (!interruptible_call(c, &cif, result, values, &fault)) {
    if (ret->size) memcpy(c->result, result, ret->size);
  } else if (fault) {
    rc = cuplug__cpu_fail(msg, CUPLUG_ERR_KERNEL_FAULT, "call %s: %s", c->name, fault);
    free(fault);
  } else {
    rc = cuplug__cpu_fail(msg, CUPLUG_ERR_INTERRUPTED,
                          "call %s: interrupted (the host set the call's interrupt flag)",
                          c->name);
  }
  if (result != small) free(result);
  return rc;
}

int cuplug__cpu_ffi_call(const cuplug__cpu_ffi *c, char **msg) {
  structs s = {0};
  int rc = call(&s, c, msg);
  structs_free(&s);
  return rc;
}
