/* session.h - a session: the toolkit it found, its registry, its caches
 * and its GPU. */
#ifndef CUPLUG__PLUGIN_SESSION_SESSION_H
#define CUPLUG__PLUGIN_SESSION_SESSION_H

#include <pthread.h>
#include <stdbool.h>

#include "base/worker.h"
#include "cuplug/cuplug.h"
#include "plugin/cache/cache.h"
#include "plugin/registry/registry.h"
#include "plugin/session/artifact.h"
#include "plugin/compilers/nvrtc.h"
#include "plugin/helper/run.h"
#include "plugin/toolkit/device.h"
#include "plugin/toolkit/toolkit.h"

struct cuplug_session {
  cuplug__toolkit toolkit;
  cuplug__runner runner;     /* where the toolkit's jobs run: helpers, or here if trusted */
  cuplug__pool validators;   /* threads that validate IR beside compiles */
  cuplug_registry *registry; /* a reference */
  cuplug__nvrtc_cache nvrtc; /* .cu code compiled so far */
  cuplug__device device;     /* the GPU, set up on first use */
  cuplug__cache *cache;      /* compile and link results */
  uint32_t default_cc_major, default_cc_minor; /* numba's CUDA_DEFAULT_PTX_CC */
  bool trusted; /* CUPLUG_SESSION_TRUSTED: no verification, the toolkit in process */
  /* the CPU target's JIT (plugin/load/cpu.c), made on the first CPU load */
  pthread_mutex_t cpu_lock;
  void *cpu_jit;
  void (*cpu_jit_destroy)(void *jit);
};

cuplug_error *cuplug__session_create(const cuplug_session_options *o, cuplug_session **out);
void cuplug__session_destroy(cuplug_session *s);
/* A compute capability as the toolkit's -arch takes it: 9.0 with suffix
 * "a" is compute_90a (arch-specific), 10.0 with "f" compute_100f (family). */
typedef struct cuplug__cc {
  uint32_t major, minor;
  char suffix[2]; /* "", "a" or "f" */
} cuplug__cc;

/* The cc to compile for (numba-cuda's rule): the one given (major 0: max of
 * the session's default and the lowest cc NVRTC supports), then the
 * closest cc NVRTC has at or below it.  A cc given must be one the toolkit
 * supports: beyond NVRTC's highest, or of a major none of its ccs has, is
 * CUPLUG_ERR_OPTION_CC.  A suffix (0, 'a' or 'f') holds for that cc only:
 * moving to another one is an error, as in numba-cuda. */
cuplug_error *cuplug__session_cc(cuplug_session *s, uint32_t major, uint32_t minor, char suffix,
                                 cuplug__cc *out);
/* The same for the current device's cc, which numba-cuda's rule takes to
 * NVRTC's highest when the GPU is newer than the toolkit. */
cuplug_error *cuplug__session_device_cc(cuplug_session *s, uint32_t major, uint32_t minor,
                                        char suffix, cuplug__cc *out);
/* A caller's cc_suffix: 0, 'a' or 'f'. */
cuplug_error *cuplug__check_cc_suffix(uint32_t suffix);

#endif
