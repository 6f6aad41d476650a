/* sample.h - what the C samples share: loading the plugin with dlopen,
 * reading a file whole, reporting an error, a GPU round trip, the main
 * program of a sample that runs on the CPU and the GPU, and counting ulps.  Each
 * sample defines SAMPLE_NAME (its program's name, for messages) and
 * CUPLUG_LIBRARY (where its build put the plugin) before including this.
 *
 * Header-only and static: a sample stays one program built from one .c. */
#ifndef CUPLUG_SAMPLE_H
#define CUPLUG_SAMPLE_H

#include <dlfcn.h>
#include <stdbool.h>
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

/* The artifact's info (*ai), with a line that says what it is: "PTX for
 * sm_90 from LLVM's NVPTX backend: N bytes; kernel K(...), its signature
 * read from the IR". */
static inline cuplug_error *sample_describe_ptx(cuplug_artifact *art, cuplug_artifact_info *ai) {
  *ai = (cuplug_artifact_info){.struct_size = sizeof *ai};
  cuplug_error *e = api->artifact_info(art, ai);
  if (e) return e;
  cuplug_type_info si = {.struct_size = sizeof si, .type = ai->signature};
  if ((e = api->type_info(&si))) return e;
  const char *params = strchr(si.name, '(');
  printf("PTX for sm_%u%u from %s: %zu bytes; kernel %s%s, its signature read from the IR\n",
         ai->cc_major, ai->cc_minor,
         ai->backend == CUPLUG_BACKEND_LLVM ? "LLVM's NVPTX backend" : "libNVVM", ai->size,
         ai->symbol, params ? params : "");
  return NULL;
}

/* A sample's launch of its kernel over its data: on the GPU, dev holds
 * the device addresses of its buffers; on this CPU dev is NULL. */
typedef cuplug_error *(*sample_launch_fn)(cuplug_library *lib, void *data, const uint64_t *dev);

/* Buffers 0..n-1 (host[k], bytes[k] long) copied to the GPU, launch()
 * called with their device addresses, the GPU waited for, and buffers
 * first_out..n-1 copied back; the device memory freed whatever failed. */
static inline cuplug_error *sample_on_gpu(cuplug_session *s, cuplug_library *lib, void *data,
                                          sample_launch_fn launch, int n, void *const *host,
                                          const size_t *bytes, int first_out) {
  uint64_t dev[8] = {0};
  cuplug_error *e = NULL;
  if (n > 8) n = 8;
  for (int k = 0; k < n && !e; k++)
    if (!(e = api->mem_alloc(s, bytes[k], &dev[k])))
      e = api->memcpy_to_device(s, dev[k], host[k], bytes[k]);
  if (!e) e = launch(lib, data, dev);
  if (!e) e = api->synchronize(s);
  for (int k = first_out; k < n && !e; k++) e = api->memcpy_to_host(s, host[k], dev[k], bytes[k]);
  for (int k = 0; k < n; k++)
    if (dev[k]) api->error_destroy(api->mem_free(s, dev[k]));
  return e;
}

/* What a sample does with its IR (the file at path): on this CPU when
 * cpu, on the GPU named gpu_name when gpu; returns its exit status. */
typedef int (*sample_run_fn)(cuplug_session *s, const char *path, bool cpu, bool gpu,
                             const char *gpu_name);

/* The main program of a sample that runs on this CPU and the GPU:
 *   SAMPLE_NAME [--no-gpu | --gpu-only] [FILE]   (FILE: default_path)
 * Exit 0: run() found every value as expected; 1: an error or a value
 * wrong; 77: --gpu-only where there is no GPU. */
static inline int sample_main(int argc, char **argv, const char *default_path,
                              const char *file_word, sample_run_fn run) {
  bool no_gpu = false, gpu_only = false;
  const char *path = default_path;
  for (int k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--no-gpu")) no_gpu = true;
    else if (!strcmp(argv[k], "--gpu-only")) gpu_only = true;
    else if (argv[k][0] != '-') path = argv[k];
    else no_gpu = gpu_only = true;
  }
  if (no_gpu && gpu_only) {
    fprintf(stderr, "usage: %s [--no-gpu | --gpu-only] [%s]\n", SAMPLE_NAME, file_word);
    return 1;
  }
  void *so = sample_load_plugin(3);
  if (!so) return 1;
  cuplug_info info = {.struct_size = sizeof info};
  cuplug_session *s = NULL;
  cuplug_error *e = api->get_info(&info);
  if (!e) e = api->session_create(NULL, &s);
  if (e) return sample_report(e);
  bool gpu = !no_gpu && info.device_count > 0;
  int rc;
  if (gpu_only && !gpu) {
    printf("%s: skipped: no GPU (%s)\n", SAMPLE_NAME, info.driver_status);
    rc = 77;
  } else {
    printf("cuplug %s on LLVM %s; %s\n", info.cuplug_version,
           info.llvm_version ? info.llvm_version : "(unknown)", path);
    rc = run(s, path, !gpu_only, gpu, info.device_name);
  }
  api->session_destroy(s);
  dlclose(so);
  return rc;
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
