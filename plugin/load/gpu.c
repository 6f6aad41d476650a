/* gpu.c - libraries on the GPU, through the Driver API (see gpu.h). */
#include "plugin/load/gpu.h"

#include <pthread.h>
#include <stdio.h>

#include "base/error.h"
#include "plugin/load/objects.h"

cuplug_error *cuplug__load_gpu(cuplug_session *s, const void *image, cuplug__cu_library *out) {
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  int rc = cu->library_load_data(out, image, NULL, NULL, 0, NULL, NULL, 0);
  if (!rc) return NULL;
  char why[256];
  cuplug__driver_describe(cu, rc, why, sizeof why);
  return cuplug__error(CUPLUG_ERR_LOAD, "the driver cannot load the image: %s", why);
}

void cuplug__unload_gpu(cuplug_session *s, cuplug__cu_library lib) {
  const cuplug__driver_api *cu;
  cuplug_error *e = cuplug__toolkit_driver(&s->toolkit, &cu);
  if (!e) cu->library_unload(lib);
  cuplug__error_destroy(e);
}

cuplug_error *cuplug__kernel_gpu(cuplug_session *s, cuplug__cu_library lib, const char *name,
                                 cuplug__cu_kernel *out) {
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__toolkit_driver(&s->toolkit, &cu));
  int rc = cu->library_get_kernel(out, lib, name);
  if (rc == CUPLUG__CU_NOT_FOUND)
    return cuplug__error(CUPLUG_ERR_KERNEL_NOT_FOUND, "no kernel named '%s' in the library", name);
  if (rc == CUPLUG__CU_NO_BINARY_FOR_GPU) {
    cuplug__cu_device dev = s->device.dev;
    int major = 0, minor = 0;
    cu->device_get_attribute(&major, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MAJOR, dev);
    cu->device_get_attribute(&minor, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MINOR, dev);
    return cuplug__error(CUPLUG_ERR_LOAD,
                         "kernel %s: the library has no code for this device (cc %d.%d): "
                         "compile for it (cc %d.%d, or CUPLUG_COMPILE_CURRENT_DEVICE)",
                         name, major, minor, major, minor);
  }
  return rc ? cuplug__driver_error(cu, rc, "cuLibraryGetKernel") : NULL;
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

/* A launch whose shared memory, static and dynamic, comes to more than 48
 * KiB (Triton's matmul takes 96 KiB) must first raise the kernel's limit.
 * The limit only grows, under a lock, so that a thread that raised it less
 * cannot lower it under another's launch. */
static cuplug_error *allow_shared(const cuplug__driver_api *cu, cuplug_kernel *k,
                                  cuplug__cu_device dev, unsigned shared) {
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  if (!shared || shared <= __atomic_load_n(&k->dynamic_shared, __ATOMIC_ACQUIRE)) return NULL;
  pthread_mutex_lock(&lock);
  int rc = 0;
  if (shared > k->dynamic_shared) {
    int fixed = 0; /* static: within the default, nothing is raised */
    rc = cu->kernel_get_attribute(&fixed, CUPLUG__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->gpu,
                                  dev);
    if (!rc && shared + (unsigned)fixed > CUPLUG__CU_DEFAULT_DYNAMIC_SHARED)
      rc = cu->kernel_set_attribute(CUPLUG__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    (int)shared, k->gpu, dev);
    if (!rc) __atomic_store_n(&k->dynamic_shared, shared, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  if (!rc) return NULL;
  char why[256];
  cuplug__driver_describe(cu, rc, why, sizeof why);
  return cuplug__error(CUPLUG_ERR_LAUNCH_CONFIG,
                       "kernel %s: %u bytes of dynamic shared memory, beyond what it can take "
                       "with its static shared memory: %s",
                       k->name, shared, why);
}

/* The address of a debug kernel's store global <kernel><suffix>. */
static int store_global(const cuplug__driver_api *cu, const cuplug_kernel *k, const char *suffix,
                        cuplug__cu_ptr *ptr) {
  char name[4096];
  snprintf(name, sizeof name, "%s%s", k->name, suffix);
  size_t bytes;
  return cu->library_get_global(ptr, &bytes, k->library->gpu, name);
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

cuplug_error *cuplug__launch_gpu(cuplug_kernel *k, const cuplug_launch_args *a,
                                 void **params) {
  cuplug_session *s = k->library->session;
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__device_enter(&s->device, &s->toolkit, &cu));
  unsigned grid[3], block[3];
  for (int d = 0; d < 3; d++) {
    grid[d] = a->grid[d] ? a->grid[d] : 1;
    block[d] = a->block[d] ? a->block[d] : 1;
  }
  CUPLUG__TRY(check_config(k, &s->device, grid, block, a->shared_mem));
  CUPLUG__TRY(allow_shared(cu, k, s->device.dev, a->shared_mem));

  cuplug__cu_ptr errcode = 0;
  int rc;
  if (k->debug) {
    rc = store_global(cu, k, "__errcode__", &errcode);
    if (!rc) rc = cu->memset_d32(errcode, 0, 1);
    if (rc) return cuplug__driver_error(cu, rc, "clearing the exception store");
  }
  cuplug__cu_stream stream = a->stream;
  if (a->cooperative || k->cooperative)
    rc = cu->launch_cooperative_kernel(k->gpu, grid[0], grid[1], grid[2], block[0], block[1],
                                       block[2], a->shared_mem, stream, params);
  else
    rc = cu->launch_kernel(k->gpu, grid[0], grid[1], grid[2], block[0], block[1], block[2],
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

