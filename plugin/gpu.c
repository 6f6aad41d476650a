/* gpu.c - loading and launching with the Driver API, and device memory.
 *
 * Context: a call uses the calling thread's current context when it has
 * one (a host with its own CUDA work keeps control), else the session's:
 * the primary context of device 0, retained on first use.  Libraries are
 * loaded with cuLibraryLoadData, which is context-independent, so a kernel
 * handle serves every context and survives device_reset.
 *
 * Launch: the arguments are packed from the kernel's signature, as
 * numba-cuda's dispatcher packs them: scalars point at the caller's values,
 * arrays expand to meminfo (NULL), parent (NULL), nitems, itemsize, data,
 * shape[N] and strides[N]. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "types.h"

/* CUresult values cuplug tells apart */
enum {
  CU_SUCCESS = 0,
  CU_INVALID_VALUE = 1,
  CU_OUT_OF_MEMORY = 2,
  CU_INVALID_IMAGE = 200,
  CU_NO_BINARY_FOR_GPU = 209,
  CU_INVALID_PTX = 218,
  CU_NOT_FOUND = 500,
  CU_ILLEGAL_ADDRESS = 700,
  CU_LAUNCH_OUT_OF_RESOURCES = 701,
  CU_LAUNCH_TIMEOUT = 702,
  CU_ASSERT = 710,
  CU_HARDWARE_STACK_ERROR = 714,
  CU_ILLEGAL_INSTRUCTION = 715,
  CU_MISALIGNED_ADDRESS = 716,
  CU_INVALID_ADDRESS_SPACE = 717,
  CU_INVALID_PC = 718,
  CU_LAUNCH_FAILED = 719,
  CU_COOPERATIVE_LAUNCH_TOO_LARGE = 720
};

/* Errors after which the context is unusable. */
static bool sticky(int rc) {
  switch (rc) {
    case CU_ILLEGAL_ADDRESS:
    case CU_LAUNCH_TIMEOUT:
    case CU_ASSERT:
    case CU_HARDWARE_STACK_ERROR:
    case CU_ILLEGAL_INSTRUCTION:
    case CU_MISALIGNED_ADDRESS:
    case CU_INVALID_ADDRESS_SPACE:
    case CU_INVALID_PC:
    case CU_LAUNCH_FAILED:
      return true;
    default:
      return false;
  }
}

/* A driver error as a cuplug error: faults are CUPLUG_ERR_KERNEL_FAULT. */
static cuplug_error *driver_error(const cuplug__driver_api *cu, int rc, const char *what) {
  char why[256];
  cuplug__driver_describe(cu, rc, why, sizeof why);
  if (sticky(rc))
    return cuplug__error(CUPLUG_ERR_KERNEL_FAULT,
                         "%s: a kernel faulted: %s; the context is lost: device_reset() asks "
                         "the driver for a fresh one",
                         what, why);
  if (rc == CU_OUT_OF_MEMORY)
    return cuplug__error(CUPLUG_ERR_OUT_OF_MEMORY, "%s: %s", what, why);
  return cuplug__error(CUPLUG_ERR_DRIVER, "%s: %s", what, why);
}

void cuplug__gpu_init(cuplug__gpu *g) {
  memset(g, 0, sizeof *g);
  pthread_mutex_init(&g->lock, NULL);
}

void cuplug__gpu_release(cuplug__gpu *g, cuplug__toolkit *tk) {
  if (g->own_primary && tk->driver_lib.state == 1) tk->driver.primary_ctx_release(g->dev);
  pthread_mutex_destroy(&g->lock);
}

/* Reads the device's limits (the caller holds the lock). */
static int read_limits(const cuplug__driver_api *cu, cuplug__gpu *g) {
  static const int attrs[] = {CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                              CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  int *out[] = {&g->max_block[0], &g->max_block[1], &g->max_block[2],
                &g->max_grid[0],  &g->max_grid[1],  &g->max_grid[2]};
  int rc = cu->device_get_attribute(&g->max_threads,
                                    CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, g->dev);
  for (int i = 0; i < 6 && !rc; i++) rc = cu->device_get_attribute(out[i], attrs[i], g->dev);
  if (!rc)
    rc = cu->device_get_attribute(&g->max_shared,
                                  CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_SHARED_PER_BLOCK_OPTIN, g->dev);
  return rc;
}

/* Makes sure this thread has a context: its own, or the session's. */
static cuplug_error *enter(cuplug_session *s, const cuplug__driver_api **out) {
  const cuplug__driver_api *cu;
  CUPLUG_TRY(cuplug__toolkit_driver(&s->toolkit, &cu));
  cuplug__gpu *g = &s->gpu;
  cuplug__cu_ctx cur = NULL;
  int rc = cu->ctx_get_current(&cur);
  if (rc) return driver_error(cu, rc, "cuCtxGetCurrent");
  pthread_mutex_lock(&g->lock);
  cuplug_error *e = NULL;
  if (!g->ready) {
    if (cur) {
      rc = cu->ctx_get_device(&g->dev);
    } else {
      rc = cu->device_get(&g->dev, 0);
      if (!rc) rc = cu->primary_ctx_retain(&g->ctx, g->dev);
      if (!rc) g->own_primary = true;
    }
    if (!rc) rc = read_limits(cu, g);
    if (rc)
      e = driver_error(cu, rc, "cannot set up the CUDA device");
    else
      g->ready = true;
  }
  if (!e && !cur && g->ctx) {
    rc = cu->ctx_set_current(g->ctx);
    if (rc) e = driver_error(cu, rc, "cuCtxSetCurrent");
  } else if (!e && !cur) {
    e = cuplug__error(CUPLUG_ERR_DRIVER,
                      "this thread has no CUDA context, and the session's first GPU call "
                      "used another thread's: make a context current");
  }
  pthread_mutex_unlock(&g->lock);
  *out = cu;
  return e;
}

/* ---- libraries and kernels ---- */

cuplug_error *cuplug__load(cuplug_load_args *a) {
  if (!a->session)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "load: session is NULL");
  const void *image = a->image;
  const cuplug_artifact *art = a->artifact;
  if (!!art == !!image)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "load: give exactly one of artifact and image");
  if (art) {
    const cuplug__code *p = &art->parts[0];
    if (p->kind != CUPLUG_CODE_CUBIN && p->kind != CUPLUG_CODE_PTX)
      return cuplug__error(CUPLUG_ERR_LOAD,
                           "load: the artifact holds %s, which the driver cannot load: link it "
                           "to a cubin first (output CUPLUG_OUTPUT_CUBIN, or link())",
                           cuplug__code_kind_name(p->kind));
    image = p->data;
  } else if (!a->size) {
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "load: the image is empty");
  }
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(a->session, &cu));
  cuplug_library *l = calloc(1, sizeof *l);
  if (!l) return cuplug__error_oom();
  int rc = cu->library_load_data(&l->lib, image, NULL, NULL, 0, NULL, NULL, 0);
  if (rc) {
    free(l);
    char why[256];
    cuplug__driver_describe(cu, rc, why, sizeof why);
    return cuplug__error(CUPLUG_ERR_LOAD, "the driver cannot load the image: %s", why);
  }
  l->session = a->session;
  pthread_mutex_init(&l->lock, NULL);
  if (art) {
    l->symbol = art->symbol ? cuplug__strdup(art->symbol) : NULL;
    l->signature = art->signature;
    l->debug = art->debug && art->kind == CUPLUG_KERNEL;
    l->cooperative = art->cooperative;
  }
  a->library = l;
  return NULL;
}

void cuplug__library_unload(cuplug_library *l) {
  if (!l) return;
  const cuplug__driver_api *cu;
  cuplug_error *e = cuplug__toolkit_driver(&l->session->toolkit, &cu);
  if (!e) cu->library_unload(l->lib);
  cuplug__error_destroy(e);
  while (l->kernels) {
    cuplug_kernel *k = l->kernels;
    l->kernels = k->next;
    free(k->name);
    free(k);
  }
  pthread_mutex_destroy(&l->lock);
  free(l->symbol);
  free(l);
}

cuplug_error *cuplug__kernel_get(cuplug_kernel_args *a) {
  cuplug_library *l = a->library;
  if (!l) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "kernel_get: library is NULL");
  const char *name = a->name ? a->name : l->symbol;
  if (!name)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get: give the kernel's name (the library came from bytes)");
  if (a->signature && a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get: give at most one of signature and signature_type");
  const cuplug_type *sig = a->signature_type;
  if (a->signature) CUPLUG_TRY(cuplug__signature_parse(a->signature, &sig));
  bool named_default = !a->name || (l->symbol && strcmp(a->name, l->symbol) == 0);
  if (!sig && named_default) sig = l->signature;
  if (!sig)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get %s: give the kernel's signature", name);
  if (sig->kind != CUPLUG_TYPE_SIGNATURE || sig->restype->kind != CUPLUG_TYPE_VOID)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "kernel_get %s: %s is not a kernel's signature (it returns void)", name,
                         sig->name);
  const cuplug__driver_api *cu;
  CUPLUG_TRY(cuplug__toolkit_driver(&l->session->toolkit, &cu));
  cuplug__cu_kernel handle;
  int rc = cu->library_get_kernel(&handle, l->lib, name);
  if (rc == CU_NOT_FOUND)
    return cuplug__error(CUPLUG_ERR_KERNEL_NOT_FOUND, "no kernel named '%s' in the library", name);
  if (rc == CU_NO_BINARY_FOR_GPU) {
    cuplug__gpu *g = &l->session->gpu;
    int major = 0, minor = 0;
    cu->device_get_attribute(&major, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MAJOR, g->dev);
    cu->device_get_attribute(&minor, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MINOR, g->dev);
    return cuplug__error(CUPLUG_ERR_LOAD,
                         "kernel %s: the library has no code for this device (cc %d.%d): "
                         "compile for it (cc %d.%d, or CUPLUG_COMPILE_CURRENT_DEVICE)",
                         name, major, minor, major, minor);
  }
  if (rc) return driver_error(cu, rc, "cuLibraryGetKernel");
  cuplug_kernel *k = calloc(1, sizeof *k);
  if (!k || !(k->name = cuplug__strdup(name))) {
    free(k);
    return cuplug__error_oom();
  }
  k->library = l;
  k->handle = handle;
  k->sig = sig;
  k->debug = named_default ? l->debug || a->debug : a->debug != 0;
  k->cooperative = l->cooperative;
  k->num_params = cuplug__type_lowered(sig, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT)->num_parts - 1;
  pthread_mutex_lock(&l->lock);
  k->next = l->kernels;
  l->kernels = k;
  pthread_mutex_unlock(&l->lock);
  a->kernel = k;
  return NULL;
}

/* ---- launching ---- */

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
static cuplug_error *pack(const cuplug_kernel *k, const cuplug_launch_args *a, void **params,
                          int64_t *slots) {
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
  return NULL;
}

static cuplug_error *check_config(const cuplug_kernel *k, const cuplug__gpu *g,
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
  if (rc) return driver_error(cu, rc, "reading the exception store");
  if (!code) return NULL;
  static const char *const names[] = {"__tidz__",   "__tidy__",   "__tidx__",
                                      "__ctaidz__", "__ctaidy__", "__ctaidx__"};
  int32_t v[6] = {0};
  for (int i = 0; i < 6 && !rc; i++) {
    cuplug__cu_ptr p;
    rc = store_global(cu, k, names[i], &p);
    if (!rc) rc = cu->memcpy_dtoh(&v[i], p, sizeof v[i]);
  }
  if (rc) return driver_error(cu, rc, "reading the exception store");
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
  CUPLUG_TRY(pack(k, a, params, slots));
  cuplug_session *s = k->library->session;
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(s, &cu));
  unsigned grid[3], block[3];
  for (int d = 0; d < 3; d++) {
    grid[d] = a->grid[d] ? a->grid[d] : 1;
    block[d] = a->block[d] ? a->block[d] : 1;
  }
  CUPLUG_TRY(check_config(k, &s->gpu, grid, block, a->shared_mem));

  cuplug__cu_ptr errcode = 0;
  int rc;
  if (k->debug) {
    rc = store_global(cu, k, "__errcode__", &errcode);
    if (!rc) rc = cu->memset_d32(errcode, 0, 1);
    if (rc) return driver_error(cu, rc, "clearing the exception store");
  }
  cuplug__cu_stream stream = a->stream;
  if (a->cooperative || k->cooperative)
    rc = cu->launch_cooperative_kernel(k->handle, grid[0], grid[1], grid[2], block[0], block[1],
                                       block[2], a->shared_mem, stream, params);
  else
    rc = cu->launch_kernel(k->handle, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                           a->shared_mem, stream, params, NULL);
  if (rc == CU_INVALID_VALUE || rc == CU_LAUNCH_OUT_OF_RESOURCES ||
      rc == CU_COOPERATIVE_LAUNCH_TOO_LARGE) {
    char why[256];
    cuplug__driver_describe(cu, rc, why, sizeof why);
    return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                         "kernel %s: grid (%u, %u, %u), block (%u, %u, %u): %s", k->name, grid[0],
                         grid[1], grid[2], block[0], block[1], block[2], why);
  }
  if (rc) return driver_error(cu, rc, k->name);
  if (k->debug) {
    rc = cu->stream_synchronize(stream);
    if (rc) return driver_error(cu, rc, k->name);
    return read_exception(cu, k, errcode);
  }
  return NULL;
}

/* ---- memory ---- */

cuplug_error *cuplug__mem_alloc(cuplug_session *s, size_t bytes, uint64_t *ptr) {
  if (!s || !ptr) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "mem_alloc: NULL argument");
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(s, &cu));
  int rc = cu->mem_alloc(ptr, bytes);
  return rc ? driver_error(cu, rc, "cuMemAlloc") : NULL;
}

cuplug_error *cuplug__mem_free(cuplug_session *s, uint64_t ptr) {
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "mem_free: session is NULL");
  if (!ptr) return NULL;
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(s, &cu));
  int rc = cu->mem_free(ptr);
  return rc ? driver_error(cu, rc, "cuMemFree") : NULL;
}

cuplug_error *cuplug__memcpy_to_device(cuplug_session *s, uint64_t dst, const void *src,
                                       size_t bytes) {
  if (!s || (!src && bytes))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "memcpy_to_device: NULL argument");
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(s, &cu));
  int rc = bytes ? cu->memcpy_htod(dst, src, bytes) : 0;
  return rc ? driver_error(cu, rc, "cuMemcpyHtoD") : NULL;
}

cuplug_error *cuplug__memcpy_to_host(cuplug_session *s, void *dst, uint64_t src, size_t bytes) {
  if (!s || (!dst && bytes))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "memcpy_to_host: NULL argument");
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(s, &cu));
  int rc = bytes ? cu->memcpy_dtoh(dst, src, bytes) : 0;
  return rc ? driver_error(cu, rc, "cuMemcpyDtoH") : NULL;
}

cuplug_error *cuplug__synchronize(cuplug_session *s) {
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "synchronize: session is NULL");
  const cuplug__driver_api *cu;
  CUPLUG_TRY(enter(s, &cu));
  int rc = cu->ctx_synchronize();
  return rc ? driver_error(cu, rc, "cuCtxSynchronize") : NULL;
}

cuplug_error *cuplug__device_reset(cuplug_session *s) {
  if (!s) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "device_reset: session is NULL");
  const cuplug__driver_api *cu;
  CUPLUG_TRY(cuplug__toolkit_driver(&s->toolkit, &cu));
  cuplug__gpu *g = &s->gpu;
  pthread_mutex_lock(&g->lock);
  cuplug_error *e = NULL;
  if (g->ready) {
    /* Reset the primary context, then take its handle afresh (retain
     * once more, release the extra reference): the handle may change. */
    cu->ctx_set_current(NULL);
    int rc = cu->primary_ctx_reset(g->dev);
    if (!rc && g->own_primary) {
      cuplug__cu_ctx fresh;
      rc = cu->primary_ctx_retain(&fresh, g->dev);
      if (!rc) {
        cu->primary_ctx_release(g->dev);
        g->ctx = fresh;
        rc = cu->ctx_set_current(fresh);
      }
    }
    if (sticky(rc)) {
      /* CUDA's rule for these errors: the process must be relaunched.
       * Drivers that keep to it refuse every new context. */
      char why[256];
      cuplug__driver_describe(cu, rc, why, sizeof why);
      e = cuplug__error(CUPLUG_ERR_KERNEL_FAULT,
                        "device_reset: the CUDA driver keeps this process from the device "
                        "after the fault (%s): GPU work needs a new process; compiling and "
                        "linking go on",
                        why);
    } else if (rc) {
      e = driver_error(cu, rc, "cuDevicePrimaryCtxReset");
    }
  }
  pthread_mutex_unlock(&g->lock);
  return e;
}
