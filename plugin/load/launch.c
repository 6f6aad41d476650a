/* launch.c - launching a kernel with the Driver API.
 *
 * The arguments are packed from the kernel's signature, as numba-cuda's
 * dispatcher packs them: scalars point at the caller's values, arrays
 * expand to meminfo (NULL), parent (NULL), nitems, itemsize, data,
 * shape[N] and strides[N].  A debug kernel's exception store is cleared
 * before the launch and read after it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/load/load.h"

#define MAX_PARAMS 512

static const char *kind_name(cuplug_type_kind k) {
  if (k == CUPLUG_TYPE_ARRAY) return "an array";
  if (k == CUPLUG_TYPE_POINTER) return "a pointer";
  const cuplug_type *t = cuplug__type_scalar(k);
  return t ? t->name : "an unknown kind";
}

static cuplug_error *arg_error(const cuplug_kernel *k, size_t i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static cuplug_error *arg_error(const cuplug_kernel *k, size_t i, const char *fmt, ...) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  cuplug__buf_vprintf(&b, fmt, ap);
  va_end(ap);
  cuplug_error *e = cuplug__error(CUPLUG_ERR_LAUNCH_ARGS, "kernel %s, argument %zu (%s): %s",
                                  k->name, i, k->sig->args[i]->name, b.data ? b.data : "");
  cuplug__buf_free(&b);
  return e;
}

/* Is the array laid out as its type says (C or F contiguous)? */
static bool contiguous(const cuplug_array *a, cuplug_layout layout, int64_t itemsize) {
  int64_t expect = itemsize;
  for (uint32_t d = 0; d < a->ndim; d++) {
    uint32_t k = layout == CUPLUG_LAYOUT_C ? a->ndim - 1 - d : d;
    if (a->shape[k] > 1 && a->strides[k] != expect) return false;
    expect *= a->shape[k];
  }
  return true;
}

/* Packs the flattened parameters; `slots` holds the values that are not
 * the caller's own (array fields). */
cuplug_error *cuplug__launch_pack(const cuplug_kernel *k, const cuplug_launch_args *a,
                                  void **params, int64_t *slots, size_t *num_params) {
  const cuplug_type *sig = k->sig;
  if (a->num_args != sig->nargs)
    return cuplug__error(CUPLUG_ERR_LAUNCH_ARGS, "kernel %s takes %zu arguments (%s), got %zu",
                         k->name, sig->nargs, sig->name, a->num_args);
  if (a->num_args && !a->args)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "launch: args is NULL");
  size_t p = 0, q = 0;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug_type *t = sig->args[i];
    const cuplug_value *v = &a->args[i];
    if (v->kind != t->kind)
      return arg_error(k, i, "got %s", kind_name(v->kind));
    if (!v->data) return arg_error(k, i, "its value's data is NULL");
    if (t->kind == CUPLUG_TYPE_ARRAY) {
      const cuplug_array *arr = v->data;
      if (arr->dtype != t->element->kind || arr->ndim != t->ndim)
        return arg_error(k, i, "got an array of %s with %u dimensions", kind_name(arr->dtype),
                         arr->ndim);
      int64_t itemsize = cuplug__type_size(t->element);
      if (t->layout != CUPLUG_LAYOUT_ANY && !contiguous(arr, t->layout, itemsize))
        return arg_error(k, i, "its strides are not %s-contiguous",
                         t->layout == CUPLUG_LAYOUT_C ? "C" : "Fortran");
      if (p + 5 + 2 * arr->ndim > MAX_PARAMS)
        return arg_error(k, i, "more than %d parameters in all", MAX_PARAMS);
      int64_t nitems = 1;
      for (uint32_t d = 0; d < arr->ndim; d++) nitems *= arr->shape[d];
      size_t first = q;
      slots[q++] = 0;        /* meminfo */
      slots[q++] = 0;        /* parent */
      slots[q++] = nitems;
      slots[q++] = itemsize;
      slots[q++] = (int64_t)arr->data;
      for (uint32_t d = 0; d < arr->ndim; d++) slots[q++] = arr->shape[d];
      for (uint32_t d = 0; d < arr->ndim; d++) slots[q++] = arr->strides[d];
      for (size_t s = first; s < q; s++) params[p++] = &slots[s];
    } else if (t->kind == CUPLUG_TYPE_COMPLEX64 || t->kind == CUPLUG_TYPE_COMPLEX128) {
      size_t half = t->kind == CUPLUG_TYPE_COMPLEX64 ? 4 : 8;
      params[p++] = (void *)v->data;
      params[p++] = (char *)v->data + half;
    } else {
      params[p++] = (void *)v->data;
    }
    if (p > MAX_PARAMS) return arg_error(k, i, "more than %d parameters in all", MAX_PARAMS);
  }
  *num_params = p;
  return NULL;
}

static cuplug_error *check_config(const cuplug_kernel *k, const cuplug__device *g,
                                  const unsigned *grid, const unsigned *block, unsigned shared) {
  static const char dims[] = "xyz";
  unsigned long threads = (unsigned long)block[0] * block[1] * block[2];
  if (threads > (unsigned long)g->max_threads)
    return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                         "kernel %s: block (%u, %u, %u) has %lu threads; the device allows %d",
                         k->name, block[0], block[1], block[2], threads, g->max_threads);
  for (int d = 0; d < 3; d++) {
    if (block[d] > (unsigned)g->max_block[d])
      return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                           "kernel %s: block.%c is %u; the device allows %d", k->name, dims[d],
                           block[d], g->max_block[d]);
    if (grid[d] > (unsigned)g->max_grid[d])
      return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                           "kernel %s: grid.%c is %u; the device allows %d", k->name, dims[d],
                           grid[d], g->max_grid[d]);
  }
  if (shared > (unsigned)g->max_shared)
    return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                         "kernel %s: %u bytes of dynamic shared memory; the device allows %d",
                         k->name, shared, g->max_shared);
  return NULL;
}

/* The address of a debug kernel's store global <kernel><suffix>. */
static int store_global(const cuplug__driver_api *cu, const cuplug_kernel *k, const char *suffix,
                        cuplug__cu_ptr *ptr) {
  char name[4096];
  snprintf(name, sizeof name, "%s%s", k->name, suffix);
  size_t bytes;
  return cu->library_get_global(ptr, &bytes, k->library->lib, name);
}

/* After a debug launch: the exception the kernel stored, if any. */
static cuplug_error *read_exception(const cuplug__driver_api *cu, const cuplug_kernel *k,
                                    cuplug__cu_ptr errcode) {
  int32_t code = 0;
  int rc = cu->memcpy_dtoh(&code, errcode, sizeof code);
  if (rc) return cuplug__driver_error(cu, rc, "reading the exception store");
  if (!code) return NULL;
  static const char *const names[] = {"__tidz__",   "__tidy__",   "__tidx__",
                                      "__ctaidz__", "__ctaidy__", "__ctaidx__"};
  int32_t v[6] = {0};
  for (int i = 0; i < 6 && !rc; i++) {
    cuplug__cu_ptr p;
    rc = store_global(cu, k, names[i], &p);
    if (!rc) rc = cu->memcpy_dtoh(&v[i], p, sizeof v[i]);
  }
  if (rc) return cuplug__driver_error(cu, rc, "reading the exception store");
  /* numba-cuda's order: z, y, x */
  return cuplug__error(CUPLUG_ERR_KERNEL_EXCEPTION,
                       "kernel %s raised exception %d: tid=[%d, %d, %d] ctaid=[%d, %d, %d]",
                       k->name, code, v[0], v[1], v[2], v[3], v[4], v[5]);
}

cuplug_error *cuplug__launch(const cuplug_launch_args *a) {
  const cuplug_kernel *k = a->kernel;
  if (!k) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "launch: kernel is NULL");
  void *params[MAX_PARAMS];
  int64_t slots[MAX_PARAMS];
  size_t num_params;
  CUPLUG__TRY(cuplug__launch_pack(k, a, params, slots, &num_params));
  if (k->library->host) return cuplug__host_launch_grid(k, a, params, num_params);
  cuplug_session *s = k->library->session;
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  unsigned grid[3], block[3];
  for (int d = 0; d < 3; d++) {
    grid[d] = a->grid[d] ? a->grid[d] : 1;
    block[d] = a->block[d] ? a->block[d] : 1;
  }
  CUPLUG__TRY(check_config(k, &s->device, grid, block, a->shared_mem));

  cuplug__cu_ptr errcode = 0;
  int rc;
  if (k->debug) {
    rc = store_global(cu, k, "__errcode__", &errcode);
    if (!rc) rc = cu->memset_d32(errcode, 0, 1);
    if (rc) return cuplug__driver_error(cu, rc, "clearing the exception store");
  }
  cuplug__cu_stream stream = a->stream;
  if (a->cooperative || k->cooperative)
    rc = cu->launch_cooperative_kernel(k->handle, grid[0], grid[1], grid[2], block[0], block[1],
                                       block[2], a->shared_mem, stream, params);
  else
    rc = cu->launch_kernel(k->handle, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                           a->shared_mem, stream, params, NULL);
  if (rc == CUPLUG__CU_INVALID_VALUE || rc == CUPLUG__CU_LAUNCH_OUT_OF_RESOURCES ||
      rc == CUPLUG__CU_COOPERATIVE_LAUNCH_TOO_LARGE) {
    char why[256];
    cuplug__driver_describe(cu, rc, why, sizeof why);
    return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                         "kernel %s: grid (%u, %u, %u), block (%u, %u, %u): %s", k->name, grid[0],
                         grid[1], grid[2], block[0], block[1], block[2], why);
  }
  if (rc) return cuplug__driver_error(cu, rc, k->name);
  if (k->debug) {
    rc = cu->stream_synchronize(stream);
    if (rc) return cuplug__driver_error(cu, rc, k->name);
    return read_exception(cu, k, errcode);
  }
  return NULL;
}

