/* nvrtc.h - CUDA C++ to LTO-IR or PTX with NVRTC, cached per session. */
#ifndef CUPLUG__PLUGIN_COMPILERS_NVRTC_H
#define CUPLUG__PLUGIN_COMPILERS_NVRTC_H

#include <pthread.h>
#include <stdbool.h>

#include "base/code.h"
#include "plugin/helper/run.h"

typedef struct cuplug__nvrtc_options {
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" or "f" */
  bool ltoir;    /* --dlink-time-opt: LTO-IR, else PTX */
  bool debug;    /* -G */
  bool lineinfo; /* -lineinfo */
  const char *const *include_paths; /* searched before the toolkit's, as -I */
  size_t num_include_paths;
  /* what the headers the .cu includes hold (the pipeline's headers_key):
   * the cache's key, for a header can change while the .cu does not */
  const char *headers;
  size_t headers_size;
  uint32_t time_limit_ms; /* 0: the runner's (the session's) */
} cuplug__nvrtc_options;

/* What a session has compiled: the same source, options and headers
 * compile once. */
typedef struct cuplug__nvrtc_cache {
  pthread_mutex_t lock;
  struct cuplug__nvrtc_entry *entries;
} cuplug__nvrtc_cache;

void cuplug__nvrtc_cache_init(cuplug__nvrtc_cache *c);
void cuplug__nvrtc_cache_release(cuplug__nvrtc_cache *c);

/* Compiles one .cu (as numba-cuda does: relocatable device code, the
 * caller's include paths, then the CUDA and CCCL headers) into *out.  A
 * failure carries NVRTC's log; a success sets *log to what NVRTC said (its
 * warnings), or to NULL when it said nothing, for the caller to free.  A
 * cache may be NULL; a result from it says again what NVRTC said. */
cuplug_error *cuplug__nvrtc_compile(cuplug__runner *r, cuplug__nvrtc_cache *cache,
                                    const cuplug__code *cu, const cuplug__nvrtc_options *o,
                                    cuplug__code *out, char **log);

#endif
