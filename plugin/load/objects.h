/* objects.h - a library loaded for either target and the kernels got from
 * it: what the files of plugin/load share.  library.c makes and frees
 * them; gpu.c and cpu.c fill in their target's part. */
#ifndef CUPLUG__PLUGIN_LOAD_OBJECTS_H
#define CUPLUG__PLUGIN_LOAD_OBJECTS_H

#include <pthread.h>
#include <stdbool.h>

#include "cuplug/cuplug.h"
#include "plugin/session/session.h"

struct cuplug__cpu_lib;

struct cuplug_library {
  cuplug_session *session;
  /* the target's library: the CPU JIT's when cpu is set, else the driver's */
  struct cuplug__cpu_lib *cpu;
  cuplug__cu_library gpu;
  /* what the artifact said: its kernels (kernel_get's defaults, by name),
   * whether they launch cooperatively, and its entry (the default function
   * of host_function and host_call) */
  cuplug__artifact_kernel *artifact_kernels;
  size_t num_artifact_kernels;
  bool cooperative;
  char *entry;
  const cuplug_type *entry_signature;
  bool entry_numba; /* a device function exported under the Numba ABI */
  pthread_mutex_t lock;
  cuplug_kernel *kernels; /* kernel_get's, owned */
};

struct cuplug_kernel {
  cuplug_library *library;
  cuplug__cu_kernel gpu; /* the driver's handle (GPU libraries) */
  char *name;
  const cuplug_type *sig;
  bool debug, cooperative;
  size_t num_params; /* the signature flattened under the Numba ABI */
  unsigned dynamic_shared; /* the dynamic shared memory it may take, once raised past 48 KiB */
  cuplug_kernel *next;
};

#endif
