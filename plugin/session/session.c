/* session.c - sessions. */
#include "plugin/session/session.h"

#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
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
  if (o)
    co.remote = (cuplug__remote_options){.url = o->cache_remote,
                                         .key_path = o->cache_remote_key,
                                         .timeout_ms = o->cache_remote_timeout_ms,
                                         .ttl_s = o->cache_remote_ttl_s,
                                         .max_entry_bytes = o->cache_remote_max_entry_bytes};
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

/* CUPLUG_ERR_OPTION_CC for a cc the toolkit lacks, with the ones it has. */
static cuplug_error *unsupported(uint32_t major, uint32_t minor, const int *archs, int n) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  for (int i = 0; i < n; i++)
    cuplug__buf_printf(&b, "%s%d.%d", i ? ", " : "", archs[i] / 10, archs[i] % 10);
  cuplug_error *e = cuplug__error(CUPLUG_ERR_OPTION_CC,
                                  "compute capability %u.%u is not one this toolkit supports "
                                  "(NVRTC's: %s)",
                                  major, minor, b.data ? b.data : "");
  cuplug__buf_free(&b);
  return e;
}

/* numba-cuda's find_closest_arch (numba_cuda/numba/cuda/cudadrv/nvrtc.py):
 * the cc itself, else the highest supported one below it; below them all
 * an error; beyond them all the highest.  That last stays for the device's
 * cc and the default (a GPU newer than the toolkit runs an older cc's
 * PTX), but a cc the caller gives names the GPU to build for: beyond the
 * toolkit's highest, or of a major none of its ccs has, no cc of this
 * toolkit is that GPU's, and it is refused.  Between two of the same
 * major (8.7 with 8.6 and 8.9) the lower one serves, as in numba-cuda. */
static cuplug_error *closest(const int *archs, int n, int want, bool given, int *out) {
  if (given) {
    bool has_major = false;
    for (int i = 0; i < n; i++) has_major |= archs[i] / 10 == want / 10;
    if (want > archs[n - 1] || (!has_major && want >= archs[0]))
      return unsupported((uint32_t)want / 10, (uint32_t)want % 10, archs, n);
  }
  int found = -1;
  for (int i = 0; i < n; i++)
    if (archs[i] <= want) found = archs[i];
  if (found < 0)
    return cuplug__error(CUPLUG_ERR_OPTION_CC,
                         "compute capability %d.%d is not supported (requires >= %d.%d)",
                         want / 10, want % 10, archs[0] / 10, archs[0] % 10);
  *out = found;
  return NULL;
}

static cuplug_error *choose_cc(cuplug_session *s, uint32_t major, uint32_t minor, char suffix,
                               bool given, cuplug__cc *out) {
  const int *archs;
  int n;
  cuplug__toolkit_nvrtc_archs(&s->toolkit, &archs, &n);
  /* compile's options refuse these too; link's come here */
  if (major > 99 || (major && minor > 9))
    return cuplug__error(CUPLUG_ERR_OPTION_CC, "compute capability %u.%u is not one", major,
                         minor);
  if (!major) {
    /* numba-cuda: max(CUDA_DEFAULT_PTX_CC, lowest cc NVRTC supports).
     * Without NVRTC, 7.5: the lowest cc CUDA 13's libNVVM supports. */
    uint32_t lowest = n ? (uint32_t)archs[0] : 75;
    uint32_t want = s->default_cc_major * 10 + s->default_cc_minor;
    if (want < lowest) want = lowest;
    major = want / 10;
    minor = want % 10;
    given = false;
  }
  int want = (int)(major * 10 + minor);
  CUPLUG__TRY(check_suffix(suffix, want));
  if (n) {
    int found = want;
    CUPLUG__TRY(closest(archs, n, want, given, &found));
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

cuplug_error *cuplug__session_cc(cuplug_session *s, uint32_t major, uint32_t minor, char suffix,
                                 cuplug__cc *out) {
  return choose_cc(s, major, minor, suffix, true, out);
}

cuplug_error *cuplug__session_device_cc(cuplug_session *s, uint32_t major, uint32_t minor,
                                        char suffix, cuplug__cc *out) {
  return choose_cc(s, major, minor, suffix, false, out);
}
