/* ffi.c - a C-ABI function called by a signature known at run time.
 *
 * The CLI, and hosts without a compiler of their own (LuaJIT's, Python's),
 * call a device function compiled for the host through libffi, from the
 * kinds of its signature: no glue is generated. */
#include <ffi.h>
#include <string.h>

#include "plugin/cpu/ffi.h"
#include "plugin/cpu/fail.h"

#define MAX_ARGS 256

/* complex64 and complex128: a struct of two floats, as the C ABI passes
 * `float _Complex` (and as cuplug's C-ABI wrapper returns it). */
static ffi_type *complex_pair(ffi_type *part) {
  static ffi_type *f32[3] = {&ffi_type_float, &ffi_type_float, NULL};
  static ffi_type *f64[3] = {&ffi_type_double, &ffi_type_double, NULL};
  static ffi_type c64 = {0, 0, FFI_TYPE_STRUCT, f32};
  static ffi_type c128 = {0, 0, FFI_TYPE_STRUCT, f64};
  return part == &ffi_type_float ? &c64 : &c128;
}

static ffi_type *ffi_of(uint32_t kind) {
  switch ((cuplug_type_kind)kind) {
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
    case CUPLUG_TYPE_FLOAT16: return &ffi_type_uint16; /* its bits, as the C ABI passes them */
    case CUPLUG_TYPE_FLOAT32: return &ffi_type_float;
    case CUPLUG_TYPE_FLOAT64: return &ffi_type_double;
    case CUPLUG_TYPE_COMPLEX64: return complex_pair(&ffi_type_float);
    case CUPLUG_TYPE_COMPLEX128: return complex_pair(&ffi_type_double);
    case CUPLUG_TYPE_POINTER: return &ffi_type_pointer;
    default: return NULL;
  }
}

int cuplug__cpu_ffi_call(const cuplug__cpu_ffi *c, char **msg) {
  if (c->nargs > MAX_ARGS)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_LIMIT, "call: %zu arguments, more than %d",
                             c->nargs, MAX_ARGS);
  ffi_type *types[MAX_ARGS + 1];
  for (size_t i = 0; i < c->nargs; i++)
    if (!(types[i] = ffi_of(c->argtypes[i])))
      return cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE,
                               "call: argument %zu is of a kind libffi cannot pass (%u)", i,
                               c->argtypes[i]);
  ffi_type *ret = ffi_of(c->restype);
  if (!ret)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE,
                             "call: the result is of a kind libffi cannot return (%u)",
                             c->restype);
  ffi_cif cif;
  if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, (unsigned)c->nargs, ret, types) != FFI_OK)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE, "call: libffi cannot make the call");
  /* libffi widens integer results to a full register */
  union {
    ffi_arg word;
    unsigned char bytes[32];
  } result;
  memset(&result, 0, sizeof result);
  ffi_call(&cif, FFI_FN(c->fn), &result, c->args);
  if (ret == &ffi_type_void) return 0;
  if (ret->type == FFI_TYPE_STRUCT || ret == &ffi_type_float || ret == &ffi_type_double ||
      ret == &ffi_type_pointer || ret->size == sizeof(ffi_arg)) {
    memcpy(c->result, result.bytes, ret->size);
  } else { /* a narrower integer, in the low bytes of the word */
    uint64_t v = result.word;
    memcpy(c->result, &v, ret->size); /* little-endian: the low bytes first */
  }
  return 0;
}
