/* bench.h - what the benchmarks share: timing, medians, the raw driver. */
#ifndef CUPLUG_BENCH_H
#define CUPLUG_BENCH_H

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cuplug/cuplug.h"

static inline double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline int bench_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static inline double bench_median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, bench_cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A whole file, NUL-terminated (free it), and its size in *n; NULL when it
 * cannot be read. */
static inline char *bench_read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *b = len >= 0 ? malloc((size_t)len + 1) : NULL;
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  if (b) b[len] = '\0';
  fclose(f);
  *n = b ? (size_t)len : 0;
  return b;
}

/* The raw Driver API, loaded straight from libcuda: the anchor. */
typedef struct bench_cuda {
  int (*init)(unsigned);
  int (*ctx_get_current)(void **);
  int (*library_load_data)(void **, const void *, void *, void **, unsigned, void *, void **,
                           unsigned);
  int (*library_get_kernel)(void **, void *, const char *);
  int (*launch_kernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, void *, void **, void **);
  int (*ctx_synchronize)(void);
  int (*event_create)(void **, unsigned);
  int (*event_record)(void *, void *);
  int (*event_synchronize)(void *);
  int (*event_elapsed)(float *, void *, void *);
  int (*memcpy_dtod_async)(uint64_t, uint64_t, size_t, void *);
  int (*memset_d32)(uint64_t, unsigned, size_t);
} bench_cuda;

static inline int bench_cuda_load(bench_cuda *cu) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) return -1;
  cu->init = (int (*)(unsigned))dlsym(h, "cuInit");
  cu->ctx_get_current = (int (*)(void **))dlsym(h, "cuCtxGetCurrent");
  cu->library_load_data = (int (*)(void **, const void *, void *, void **, unsigned, void *,
                                   void **, unsigned))dlsym(h, "cuLibraryLoadData");
  cu->library_get_kernel = (int (*)(void **, void *, const char *))dlsym(h, "cuLibraryGetKernel");
  cu->launch_kernel = (int (*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, void *, void **, void **))dlsym(h, "cuLaunchKernel");
  cu->ctx_synchronize = (int (*)(void))dlsym(h, "cuCtxSynchronize");
  cu->event_create = (int (*)(void **, unsigned))dlsym(h, "cuEventCreate");
  cu->event_record = (int (*)(void *, void *))dlsym(h, "cuEventRecord");
  cu->event_synchronize = (int (*)(void *))dlsym(h, "cuEventSynchronize");
  cu->event_elapsed = (int (*)(float *, void *, void *))dlsym(h, "cuEventElapsedTime_v2");
  if (!cu->event_elapsed) cu->event_elapsed = (int (*)(float *, void *, void *))dlsym(h, "cuEventElapsedTime");
  cu->memcpy_dtod_async =
      (int (*)(uint64_t, uint64_t, size_t, void *))dlsym(h, "cuMemcpyDtoDAsync_v2");
  cu->memset_d32 = (int (*)(uint64_t, unsigned, size_t))dlsym(h, "cuMemsetD32_v2");
  return cu->init && cu->launch_kernel && cu->event_elapsed ? cu->init(0) : -1;
}

/* Bare libNVVM, loaded straight from the toolkit: the compile anchor. */
typedef struct bench_nvvm {
  int (*create)(void **);
  int (*destroy)(void **);
  int (*add)(void *, const char *, size_t, const char *);
  int (*lazy_add)(void *, const char *, size_t, const char *);
  int (*compile)(void *, int, const char **);
  int (*size)(void *, size_t *);
  int (*result)(void *, char *);
} bench_nvvm;

static inline bool bench_nvvm_load(bench_nvvm *v) {
  const char *names[] = {"/usr/local/cuda/nvvm/lib64/libnvvm.so", "/usr/local/cuda/lib64/libnvvm.so",
                         "/usr/local/cuda/lib/libnvvm.so", "libnvvm.so.4", NULL};
  void *h = NULL;
  for (int i = 0; names[i] && !h; i++) h = dlopen(names[i], RTLD_NOW);
  if (!h) return false;
  v->create = (int (*)(void **))dlsym(h, "nvvmCreateProgram");
  v->destroy = (int (*)(void **))dlsym(h, "nvvmDestroyProgram");
  v->add = (int (*)(void *, const char *, size_t, const char *))dlsym(h, "nvvmAddModuleToProgram");
  v->lazy_add =
      (int (*)(void *, const char *, size_t, const char *))dlsym(h, "nvvmLazyAddModuleToProgram");
  v->compile = (int (*)(void *, int, const char **))dlsym(h, "nvvmCompileProgram");
  v->size = (int (*)(void *, size_t *))dlsym(h, "nvvmGetCompiledResultSize");
  v->result = (int (*)(void *, char *))dlsym(h, "nvvmGetCompiledResult");
  return v->create && v->destroy && v->add && v->compile && v->size && v->result;
}

/* Compiles the modules with bare libNVVM (-arch, -opt=3, and -gen-lto for
 * LTO-IR) and reads the result; returns it (free it), or NULL. */
static inline char *bench_nvvm_compile(const bench_nvvm *v, const char *const *ir,
                                       const size_t *n, size_t num_modules, const char *arch,
                                       bool lto) {
  void *prog;
  const char *opts[] = {arch, "-opt=3", "-gen-lto"};
  if (v->create(&prog)) return NULL;
  bool ok = true;
  for (size_t i = 0; i < num_modules && ok; i++) ok = v->add(prog, ir[i], n[i], "m") == 0;
  ok = ok && v->compile(prog, lto ? 3 : 2, opts) == 0;
  size_t size = 0;
  if (ok) ok = v->size(prog, &size) == 0;
  char *out = ok ? malloc(size + 1) : NULL;
  if (out && v->result(prog, out) != 0) {
    free(out);
    out = NULL;
  }
  if (out) out[size] = '\0';
  v->destroy(&prog);
  return out;
}

/* Bare NVRTC, loaded straight from the toolkit: the CUDA C++ anchor. */
typedef struct bench_nvrtc {
  int (*create)(void **, const char *, const char *, int, const char *const *,
                const char *const *);
  int (*destroy)(void **);
  int (*compile)(void *, int, const char *const *);
  int (*cubin_size)(void *, size_t *);
  int (*cubin)(void *, char *);
  int (*log_size)(void *, size_t *);
  int (*log)(void *, char *);
} bench_nvrtc;

static inline bool bench_nvrtc_load(bench_nvrtc *r) {
  char home[4096];
  const char *cuda_home = getenv("CUDA_HOME");
  snprintf(home, sizeof home, "%s/lib64/libnvrtc.so", cuda_home ? cuda_home : "/usr/local/cuda");
  const char *names[] = {home, "/usr/local/cuda/lib64/libnvrtc.so",
                         "/usr/local/cuda/lib/libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
                         "libnvrtc.so", NULL};
  void *h = NULL;
  for (int i = 0; names[i] && !h; i++) h = dlopen(names[i], RTLD_NOW);
  if (!h) return false;
  r->create = (int (*)(void **, const char *, const char *, int, const char *const *,
                       const char *const *))dlsym(h, "nvrtcCreateProgram");
  r->destroy = (int (*)(void **))dlsym(h, "nvrtcDestroyProgram");
  r->compile = (int (*)(void *, int, const char *const *))dlsym(h, "nvrtcCompileProgram");
  r->cubin_size = (int (*)(void *, size_t *))dlsym(h, "nvrtcGetCUBINSize");
  r->cubin = (int (*)(void *, char *))dlsym(h, "nvrtcGetCUBIN");
  r->log_size = (int (*)(void *, size_t *))dlsym(h, "nvrtcGetProgramLogSize");
  r->log = (int (*)(void *, char *))dlsym(h, "nvrtcGetProgramLog");
  return r->create && r->destroy && r->compile && r->cubin_size && r->cubin && r->log_size &&
         r->log;
}

/* CUDA C++ to a cubin for sm_<cc> with NVRTC's defaults (-O3 in ptxas,
 * -fmad=true, no fast math: numba-cuda's defaults too); returns it (free
 * it) and its size in *n, or NULL after printing NVRTC's log. */
static inline char *bench_nvrtc_cubin(const bench_nvrtc *r, const char *src, int cc, size_t *n) {
  void *prog;
  char arch[32];
  snprintf(arch, sizeof arch, "-arch=sm_%d", cc);
  const char *opts[] = {arch};
  if (r->create(&prog, src, "bench.cu", 0, NULL, NULL)) return NULL;
  char *out = NULL;
  if (r->compile(prog, 1, opts) == 0 && r->cubin_size(prog, n) == 0 && (out = malloc(*n)) &&
      r->cubin(prog, out) != 0) {
    free(out);
    out = NULL;
  }
  if (!out) {
    size_t ln = 0;
    char *log = r->log_size(prog, &ln) == 0 ? malloc(ln + 1) : NULL;
    if (log && r->log(prog, log) == 0) fprintf(stderr, "NVRTC: %s\n", log);
    free(log);
  }
  r->destroy(&prog);
  return out;
}

/* Exits with a message when a cuplug call fails. */
static inline void bench_check(const cuplug_api *api, cuplug_error *e, const char *what) {
  if (!e) return;
  fprintf(stderr, "%s: %s: %s\n%s\n", what, api->status_name(api->error_code(e)),
          api->error_message(e), api->error_log(e));
  exit(1);
}

/* The median time (ms, CUDA events) of `rounds` launches (at most 128),
 * after `warmup` untimed ones. */
static inline double bench_launch_ms(const cuplug_api *api, const bench_cuda *cu,
                                     cuplug_launch_args *la, int warmup, int rounds) {
  void *start, *stop;
  cu->event_create(&start, 0);
  cu->event_create(&stop, 0);
  double t[128];
  if (rounds > 128) rounds = 128;
  for (int r = -warmup; r < rounds; r++) {
    cu->event_record(start, NULL);
    bench_check(api, api->launch(la), "launch");
    cu->event_record(stop, NULL);
    cu->event_synchronize(stop);
    float ms;
    cu->event_elapsed(&ms, start, stop);
    if (r >= 0) t[r] = ms;
  }
  return bench_median(t, rounds);
}

#endif
