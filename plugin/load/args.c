/* args.c - the arguments of a launch or a CPU call, checked and packed. */
#include "plugin/load/args.h"

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/structs.h"
#include "base/types.h"

static const char *kind_name(cuplug_type_kind k) {
  if (k == CUPLUG_TYPE_ARRAY) return "an array";
  if (k == CUPLUG_TYPE_POINTER) return "a pointer";
  if (k == CUPLUG_TYPE_RECORD) return "a record";
  if (k == CUPLUG_TYPE_OPAQUE) return "an opaque value";
  if (k == CUPLUG_TYPE_STRUCT) return "a struct";
  if (k == CUPLUG_TYPE_TUPLE) return "a tuple";
  const cuplug_type *t = cuplug__type_scalar(k);
  return t ? t->name : "an unknown kind";
}

cuplug_error *cuplug__arg_error(const cuplug__arg_site *site, size_t i, const char *fmt, ...) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  cuplug__buf_vprintf(&b, fmt, ap);
  va_end(ap);
  cuplug_error *e = cuplug__error(CUPLUG_ERR_LAUNCH_ARGS, "%s %s, argument %zu (%s): %s",
                                  site->what, site->name, i, site->sig->args[i]->name,
                                  b.data ? b.data : "");
  cuplug__buf_free(&b);
  return e;
}

/* The caller's value of signature argument i: an omitted argument has
 * none, so the values skip it. */
static size_t value_index(const cuplug_type *sig, size_t i) {
  size_t j = 0;
  for (size_t k = 0; k < i; k++) j += sig->args[k]->kind != CUPLUG_TYPE_OMITTED;
  return j;
}

cuplug_error *cuplug__args_check(const cuplug__arg_site *site, const cuplug__args *args) {
  const cuplug_type *sig = site->sig;
  size_t want = value_index(sig, sig->nargs);
  if (args->num != want)
    return cuplug__error(CUPLUG_ERR_LAUNCH_ARGS, "%s %s takes %zu arguments (%s), got %zu",
                         site->what, site->name, want, sig->name, args->num);
  if (args->num && !args->values && !args->arguments)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "%s %s: args is NULL", site->what,
                         site->name);
  if (args->num && args->values && args->arguments)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "%s %s: give args or arguments, not both", site->what, site->name);
  return NULL;
}

/* A struct of the growable form, imported: its own struct_size says how
 * much of it the caller's header knew. */
static cuplug_error *import(const cuplug__arg_site *site, size_t i, void *local, size_t size,
                            const void *caller, size_t first, const char *what) {
  if (!caller) return cuplug__arg_error(site, i, "its %s is NULL", what);
  cuplug_error *e = cuplug__struct_import(local, size, caller, first, what);
  if (!e) return NULL;
  cuplug_error *named = cuplug__error(e->code, "%s %s, argument %zu (%s): %s", site->what,
                                      site->name, i, site->sig->args[i]->name, e->message);
  cuplug__error_destroy(e);
  return named;
}

/* The first cuplug_ndarray of 1.3 ended at its strides: flags may be
 * missing, and read as zero (writable). */
#define MIN_NDARRAY (offsetof(cuplug_ndarray, strides) + sizeof(const int64_t *))

static cuplug_error *read_growable(const cuplug__arg_site *site, const cuplug_argument *caller,
                                   size_t i, cuplug__arg *out) {
  cuplug_argument a;
  CUPLUG__TRY(import(site, i, &a, sizeof a, caller, CUPLUG_ARGUMENT_STRUCT_SIZE,
                     "cuplug_argument"));
  out->kind = a.kind;
  out->data = a.data;
  if (a.kind != CUPLUG_TYPE_ARRAY || !a.data) return NULL;
  cuplug_ndarray n;
  CUPLUG__TRY(import(site, i, &n, sizeof n, a.data, MIN_NDARRAY, "cuplug_ndarray"));
  if (n.ndim && (!n.shape || !n.strides))
    return cuplug__arg_error(site, i, "its cuplug_ndarray has %u dimensions but no %s", n.ndim,
                             n.shape ? "strides" : "shape");
  if (n.flags & ~CUPLUG_ARRAY_READONLY)
    return cuplug__arg_error(site, i, "its cuplug_ndarray has unknown flags 0x%x",
                             n.flags & ~CUPLUG_ARRAY_READONLY);
  *out = (cuplug__arg){a.kind, a.data, n.data, n.dtype, n.ndim, n.shape, n.strides, n.flags};
  return NULL;
}

/* Nothing checks what a kernel stores, so read-only memory goes only where
 * the signature promises not to store: numba's readonly array. */
static cuplug_error *read_only(const cuplug__arg_site *site, size_t i) {
  const cuplug_type *declared;
  CUPLUG__TRY(cuplug__type_array_readonly(site->sig->args[i], true, &declared));
  return cuplug__arg_error(site, i,
                           "the array is read-only; the %s may write it (declare the "
                           "parameter %s if it does not)",
                           site->what, declared->name);
}

/* An opaque value's slot: nothing reads it, so a NULL i8* */
static const uint64_t null_address = 0;

cuplug_error *cuplug__arg_read(const cuplug__arg_site *site, const cuplug__args *args, size_t i,
                               cuplug__arg *out) {
  memset(out, 0, sizeof *out);
  const cuplug_type *t = site->sig->args[i];
  if (t->kind == CUPLUG_TYPE_OMITTED) {
    out->kind = CUPLUG_TYPE_OMITTED;
    return NULL;
  }
  size_t j = value_index(site->sig, i);
  if (args->arguments) {
    CUPLUG__TRY(read_growable(site, args->arguments[j], i, out));
  } else {
    const cuplug_value *v = &args->values[j];
    out->kind = v->kind;
    out->data = v->data;
    if (v->kind == CUPLUG_TYPE_ARRAY && v->data) {
      const cuplug_array *a = v->data;
      *out = (cuplug__arg){v->kind, v->data, a->data, a->dtype, a->ndim, a->shape, a->strides, 0};
    }
  }
  if (out->kind != t->kind) return cuplug__arg_error(site, i, "got %s", kind_name(out->kind));
  if (t->kind == CUPLUG_TYPE_OPAQUE) out->data = &null_address;
  if (!out->data) return cuplug__arg_error(site, i, "its value's data is NULL");
  if (t->kind == CUPLUG_TYPE_ARRAY && (out->dtype != t->element->kind || out->ndim != t->ndim))
    return cuplug__arg_error(site, i, "got an array of %s with %u dimensions",
                             kind_name(out->dtype), out->ndim);
  if ((out->flags & CUPLUG_ARRAY_READONLY) && !t->readonly) return read_only(site, i);
  return NULL;
}

/* Is the array laid out as its type says (C or F contiguous)? */
static bool contiguous(const cuplug__arg *a, cuplug_layout layout, int64_t itemsize) {
  int64_t expect = itemsize;
  for (uint32_t d = 0; d < a->ndim; d++) {
    uint32_t k = layout == CUPLUG_LAYOUT_C ? a->ndim - 1 - d : d;
    if (a->shape[k] > 1 && a->strides[k] != expect) return false;
    expect *= a->shape[k];
  }
  return true;
}

cuplug_error *cuplug__arg_array_struct(const cuplug__arg_site *site, size_t i,
                                       const cuplug__arg *arr, int64_t *slots) {
  const cuplug_type *t = site->sig->args[i];
  /* a tuple's or a struct's items lie as its data type lays them out */
  uint32_t size = cuplug__type_size(t->element), align;
  if (!size) cuplug__type_data_layout(t->element, &size, &align);
  int64_t itemsize = size;
  if (t->layout != CUPLUG_LAYOUT_ANY && !contiguous(arr, t->layout, itemsize))
    return cuplug__arg_error(site, i, "its strides are not %s-contiguous",
                             t->layout == CUPLUG_LAYOUT_C ? "C" : "Fortran");
  int64_t nitems = 1;
  for (uint32_t d = 0; d < arr->ndim; d++) nitems *= arr->shape[d];
  size_t q = 0;
  slots[q++] = 0; /* meminfo */
  slots[q++] = 0; /* parent */
  slots[q++] = nitems;
  slots[q++] = itemsize;
  slots[q++] = (int64_t)arr->array_data;
  for (uint32_t d = 0; d < arr->ndim; d++) slots[q++] = arr->shape[d];
  for (uint32_t d = 0; d < arr->ndim; d++) slots[q++] = arr->strides[d];
  return NULL;
}

static cuplug_error *pack_array(const cuplug__arg_site *site, size_t i, const cuplug__arg *arr,
                                void **params, size_t *p, int64_t *slots, size_t *q) {
  if (*p + 5 + 2 * arr->ndim > CUPLUG__MAX_PARAMS)
    return cuplug__arg_error(site, i, "more than %d parameters in all", CUPLUG__MAX_PARAMS);
  CUPLUG__TRY(cuplug__arg_array_struct(site, i, arr, slots + *q));
  for (size_t s = 0; s < 5 + 2 * (size_t)arr->ndim; s++) params[(*p)++] = &slots[(*q)++];
  return NULL;
}

cuplug_error *cuplug__args_pack(const cuplug__arg_site *site, const cuplug__args *args,
                                void **params, int64_t *slots, size_t *num_params) {
  CUPLUG__TRY(cuplug__args_check(site, args));
  size_t p = 0, q = 0;
  for (size_t i = 0; i < site->sig->nargs; i++) {
    cuplug__arg v;
    CUPLUG__TRY(cuplug__arg_read(site, args, i, &v));
    if (v.kind == CUPLUG_TYPE_OMITTED) {
      continue;
    } else if (v.kind == CUPLUG_TYPE_ARRAY) {
      CUPLUG__TRY(pack_array(site, i, &v, params, &p, slots, &q));
    } else {
      /* a complex is two parameters; the check comes before the writes */
      bool complex = v.kind == CUPLUG_TYPE_COMPLEX64 || v.kind == CUPLUG_TYPE_COMPLEX128;
      if (p + 1 + complex > CUPLUG__MAX_PARAMS)
        return cuplug__arg_error(site, i, "more than %d parameters in all", CUPLUG__MAX_PARAMS);
      params[p++] = (void *)v.data;
      if (complex) params[p++] = (char *)v.data + (v.kind == CUPLUG_TYPE_COMPLEX64 ? 4 : 8);
    }
  }
  *num_params = p;
  return NULL;
}
