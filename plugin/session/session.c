/* session.c - sessions. */
#include "plugin/session/session.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

cuplug_error *cuplug__session_create(const cuplug_session_options *o, cuplug_session **out) {
  cuplug_session *s = calloc(1, sizeof *s);
  if (!s) return cuplug__error_oom();
  s->trusted = o && (o->flags & CUPLUG_SESSION_TRUSTED);
  cuplug_error *e = cuplug__toolkit_init(&s->toolkit, o ? o->cuda_home : NULL);
  if (!e && o && o->registry) {
    s->registry = o->registry;
    cuplug__registry_retain(s->registry);
  } else if (!e) {
    e = cuplug__registry_create(0, &s->registry);
  }
  cuplug__cache_options co = {.off = o && (o->flags & CUPLUG_SESSION_NO_CACHE),
                              .dir = o ? o->cache_dir : NULL,
                              .max_bytes = o ? o->cache_max_bytes : 0,
                              .memory_bytes = o ? o->cache_memory_bytes : 0};
  if (!e) e = cuplug__cache_create(&co, &s->cache);
  if (!e && cuplug__cache_on(s->cache)) {
    /* what every cache key starts with, found now: the first compile (a
     * cold process's, whose result the cache may well hold) need not */
    cuplug__build_digest();
    cuplug__toolkit_identity(&s->toolkit);
  }
  if (e) {
    if (s->registry) cuplug__registry_release(s->registry);
    cuplug__toolkit_release(&s->toolkit);
    free(s);
    return e;
  }
  cuplug__runner_init(&s->runner, &s->toolkit, s->trusted, o ? o->time_limit_ms : 0);
  cuplug__pool_init(&s->validators);
  cuplug__nvrtc_cache_init(&s->nvrtc);
  cuplug__device_init(&s->device);
  pthread_mutex_init(&s->cpu_lock, NULL);
  s->default_cc_major = o && o->default_cc_major ? o->default_cc_major : 5;
  s->default_cc_minor = o && o->default_cc_major ? o->default_cc_minor : 0;
  *out = s;
  return NULL;
}

void cuplug__session_destroy(cuplug_session *s) {
  if (!s) return;
  if (s->cpu_jit) s->cpu_jit_destroy(s->cpu_jit);
  pthread_mutex_destroy(&s->cpu_lock);
  cuplug__device_release(&s->device, &s->toolkit);
  cuplug__pool_release(&s->validators);
  cuplug__nvrtc_cache_release(&s->nvrtc);
  cuplug__registry_release(s->registry);
  cuplug__runner_release(&s->runner);
  cuplug__toolkit_release(&s->toolkit);
  cuplug__cache_destroy(s->cache);
  free(s);
}

cuplug_error *cuplug__check_cc_suffix(uint32_t suffix) {
  if (suffix != 0 && suffix != 'a' && suffix != 'f')
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "cc_suffix %u: give 0, 'a' (arch-specific) or 'f' (family)", suffix);
  return NULL;
}

/* A suffix for a cc: 'a' from 9.0 on, 'f' from 10.0 on. */
static cuplug_error *check_suffix(char suffix, int cc) {
  CUPLUG__TRY(cuplug__check_cc_suffix((uint32_t)(unsigned char)suffix));
  if (suffix == 'a' && cc < 90)
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "arch-specific code (cc_suffix 'a') needs compute capability 9.0 or "
                         "higher, not %d.%d", cc / 10, cc % 10);
  if (suffix == 'f' && cc < 100)
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "family code (cc_suffix 'f') needs compute capability 10.0 or higher, "
                         "not %d.%d", cc / 10, cc % 10);
  return NULL;
}

cuplug_error *cuplug__session_cc(cuplug_session *s, uint32_t major, uint32_t minor, char suffix,
                                 cuplug__cc *out) {
  const int *archs;
  int n;
  cuplug__toolkit_nvrtc_archs(&s->toolkit, &archs, &n);
  int want;
  if (major) {
    want = (int)(major * 10 + minor);
  } else {
    /* numba-cuda: max(CUDA_DEFAULT_PTX_CC, lowest cc NVRTC supports).
     * Without NVRTC, 7.5: the lowest cc CUDA 13's libNVVM supports. */
    int lowest = n ? archs[0] : 75;
    want = (int)(s->default_cc_major * 10 + s->default_cc_minor);
    if (want < lowest) want = lowest;
  }
  CUPLUG__TRY(check_suffix(suffix, want));
  /* As numba-cuda's find_closest_arch: the cc itself, else the highest
   * supported cc below it. */
  if (n) {
    int found = -1;
    for (int i = 0; i < n; i++)
      if (archs[i] <= want) found = archs[i];
    if (found < 0)
      return cuplug__error(CUPLUG_ERR_OPTION_CC,
                           "compute capability %d.%d is not supported (requires >= %d.%d)",
                           want / 10, want % 10, archs[0] / 10, archs[0] % 10);
    if (suffix && found != want)
      return cuplug__error(CUPLUG_ERR_OPTION_CC,
                           "arch-specific compute_%d%c needs that compute capability; the "
                           "closest this toolkit supports is %d.%d",
                           want, suffix, found / 10, found % 10);
    want = found;
  }
  out->major = (uint32_t)want / 10;
  out->minor = (uint32_t)want % 10;
  out->suffix[0] = suffix;
  out->suffix[1] = 0;
  return NULL;
}
