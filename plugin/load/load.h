/* gpu.h - loading and launching with the Driver API, and device memory. */
#ifndef CUPLUG__PLUGIN_LOAD_LOAD_H
#define CUPLUG__PLUGIN_LOAD_LOAD_H

#include "cuplug/cuplug.h"
#include "plugin/session/session.h"

struct cuplug_library {
  cuplug_session *session;
  cuplug__cu_library lib;
  /* the kernels its artifact held: kernel_get's defaults, by name */
  cuplug__artifact_kernel *known;
  size_t num_known;
  bool cooperative;
  pthread_mutex_t lock;
  cuplug_kernel *kernels; /* owned */
  /* a host library (CUPLUG_OUTPUT_HOST): the JIT's, and what the
   * artifact said of its entry */
  struct cuplug__host_lib *host;
  char *host_symbol;
  const cuplug_type *host_signature;
};

struct cuplug_kernel {
  cuplug_library *library;
  cuplug__cu_kernel handle;
  char *name;
  const cuplug_type *sig;
  bool debug, cooperative;
  size_t num_params; /* the signature flattened under the Numba ABI */
  cuplug_kernel *next;
};

/* library.c */
cuplug_error *cuplug__load(cuplug_load_args *a);
void cuplug__library_unload(cuplug_library *l);
cuplug_error *cuplug__kernel_get(cuplug_kernel_args *a);
cuplug_error *cuplug__kernel_info(cuplug_kernel_info *a);
/* launch.c */
cuplug_error *cuplug__launch(const cuplug_launch_args *a);
/* host.c: host libraries (CUPLUG_OUTPUT_HOST), through libcuplug-host.so */
cuplug_error *cuplug__host_load(cuplug_load_args *a);
void cuplug__host_unload(cuplug_library *l);
/* What every library holds (its kernels, the names it knows), and the
 * library itself, freed: after the driver or the host let go of it. */
void cuplug__library_free(cuplug_library *l);
bool cuplug__host_has(cuplug_library *l, const char *name);
cuplug_error *cuplug__host_launch_grid(const cuplug_kernel *k, const cuplug_launch_args *a,
                                       void **params, size_t num_params);
cuplug_error *cuplug__host_function(cuplug_host_function_args *a);
cuplug_error *cuplug__host_call(cuplug_host_call_args *a);
/* launch.c */
cuplug_error *cuplug__launch_pack(const cuplug_kernel *k, const cuplug_launch_args *a,
                                  void **params, int64_t *slots, size_t *num_params);
/* memory.c */
cuplug_error *cuplug__mem_alloc(cuplug_session *s, size_t bytes, uint64_t *ptr);
cuplug_error *cuplug__mem_free(cuplug_session *s, uint64_t ptr);
cuplug_error *cuplug__memcpy_to_device(cuplug_session *s, uint64_t dst, const void *src,
                                       size_t bytes);
cuplug_error *cuplug__memcpy_to_host(cuplug_session *s, void *dst, uint64_t src, size_t bytes);
cuplug_error *cuplug__synchronize(cuplug_session *s);
cuplug_error *cuplug__device_reset(cuplug_session *s);

#endif
