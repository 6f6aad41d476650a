/* sample.h - what the C samples share: loading the plugin with dlopen,
 * reading a file whole, reporting an error, and counting ulps.  Each
 * sample defines SAMPLE_NAME (its program's name, for messages) and
 * CUPLUG_LIBRARY (where its build put the plugin) before including this.
 *
 * Header-only and static: a sample stays one program built from one .c. */
#ifndef CUPLUG_SAMPLE_H
#define CUPLUG_SAMPLE_H

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuplug/cuplug.h"

static const cuplug_api *api;

/* Prints e (its status, message and log) and frees it; returns 1, a
 * sample's exit status for an error. */
static inline int sample_report(cuplug_error *e) {
  fprintf(stderr, "%s: %s: %s\n", SAMPLE_NAME, api->status_name(api->error_code(e)),
          api->error_message(e));
  if (*api->error_log(e)) fprintf(stderr, "%s\n", api->error_log(e));
  api->error_destroy(e);
  return 1;
}

/* The file at path, NUL-terminated, its length in *size (size may be
 * NULL); NULL where it cannot be read.  Free the result. */
static inline char *sample_slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  char *b = NULL;
  long n;
  if (f && fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (b = malloc((size_t)n + 1)) && fread(b, 1, (size_t)n, f) == (size_t)n) {
    b[n] = '\0';
    if (size) *size = (size_t)n;
  } else {
    free(b);
    b = NULL;
  }
  if (f) fclose(f);
  return b;
}

/* The plugin beside this program (../lib), as a build folder lays it out
 * wherever it is moved, else where the build put it; sets `api` to its
 * table for ABI 1.minor or later.  Returns the handle, or NULL with the
 * reason printed. */
static inline void *sample_load_plugin(uint32_t minor) {
  char self[PATH_MAX], path[PATH_MAX + 32];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  snprintf(path, sizeof path, "%s/../lib/libcuplug.so", dirname(self));
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so && !(so = dlopen(CUPLUG_LIBRARY, RTLD_NOW | RTLD_LOCAL))) {
    fprintf(stderr, "%s: cannot load %s: %s\n", SAMPLE_NAME, CUPLUG_LIBRARY, dlerror());
    return NULL;
  }
  cuplug_get_api_fn get = (cuplug_get_api_fn)(uintptr_t)dlsym(so, "cuplug_get_api");
  api = get ? get(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR) : NULL;
  if (!api || api->abi_minor < minor) {
    fprintf(stderr, "%s: the plugin does not speak cuplug ABI %d.%u\n", SAMPLE_NAME,
            CUPLUG_ABI_MAJOR, minor);
    dlclose(so);
    api = NULL;
    return NULL;
  }
  return so;
}

/* A launch on the GPU with the device addresses of a sample's buffers. */
typedef cuplug_error *(*sample_launch_fn)(void *ctx, const uint64_t *dev);

/* Buffers 0..n-1 (host[k], bytes[k] long) copied to the GPU, launch()
 * called with their device addresses, the GPU waited for, and buffers
 * first_out..n-1 copied back; the device memory freed whatever failed. */
static inline cuplug_error *sample_on_gpu(cuplug_session *s, int n, void *const *host,
                                          const size_t *bytes, int first_out,
                                          sample_launch_fn launch, void *ctx) {
  uint64_t dev[8] = {0};
  cuplug_error *e = NULL;
  if (n > 8) n = 8;
  for (int k = 0; k < n && !e; k++)
    if (!(e = api->mem_alloc(s, bytes[k], &dev[k])))
      e = api->memcpy_to_device(s, dev[k], host[k], bytes[k]);
  if (!e) e = launch(ctx, dev);
  if (!e) e = api->synchronize(s);
  for (int k = first_out; k < n && !e; k++) e = api->memcpy_to_host(s, host[k], dev[k], bytes[k]);
  for (int k = 0; k < n; k++)
    if (dev[k]) api->error_destroy(api->mem_free(s, dev[k]));
  return e;
}

/* A float's place among the floats, so that ulps are a difference. */
static inline int64_t sample_ordered(float f) {
  int32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits < 0 ? -(int64_t)(bits & INT32_MAX) : bits;
}

/* How many floats apart a and b are. */
static inline int64_t sample_ulps(float a, float b) {
  int64_t d = sample_ordered(a) - sample_ordered(b);
  return d < 0 ? -d : d;
}

#endif
