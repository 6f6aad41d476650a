/* host.c - a host built on MLIR: the LLVM IR mlir-translate-22 made of a
 * gpu-dialect kernel (kernels.mlir, lowered by mlir-opt-22's
 * convert-gpu-to-nvvm: opaque pointers, the kernel marked ptx_kernel, no
 * target triple), compiled through cuplug as it is.
 *
 *   1. the kernel compiles with no signature (the IR gives its sixteen
 *      parameters: three memref descriptors and n) to PTX through LLVM's
 *      NVPTX backend: libdevice's expf and log1pf inlined, the shuffles,
 *      the barrier and the atomics as PTX instructions;
 *   2. it runs on this CPU (CUPLUG_OUTPUT_HOST) and, where there is one,
 *      on the GPU (a cubin), and every value is checked against the
 *      host's own.
 *
 *   mlir_sample [--no-gpu | --gpu-only] [KERNELS.ll]
 *
 * Exit 0: every value as expected; 1: an error or a value wrong; 77:
 * --gpu-only where there is no GPU.
 *
 * softplus: y[i] is log1pf(expf(x)) of libdevice on either target, which
 * CUDA's programming guide bounds at 2 ulp (expf) and 1 ulp (log1pf).
 * expf's relative error d (at most 2^-22) moves log1p by d * e^x / (1 +
 * e^x) at most, which is at most d * y, as softplus(x) >= sigmoid(x): 4
 * ulps of y at the most, as an ulp is 2^-23 to 2^-24 of a float.  With
 * log1pf's own ulp and the host's half ulp (it rounds log1p(exp(x)) in
 * double to float once), 5 ulps whole.  x stays in [-20, 20]: no result
 * is subnormal.  The sums are integers: exact. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_NAME "mlir_sample"
#include "common/sample.h"

enum { N = 4096 + 37, BLOCK = 128, BINS = 16, MAX_ULPS = 5 };

/* What one run computed, and the host's values for it: sums[BINS] is the
 * total (the warps'), sums[b] the i with i % 16 == b (the blocks'). */
typedef struct data {
  float x[N], y[N];
  int32_t sums[BINS + 1];
} data;

static void fill_inputs(data *d) {
  for (int i = 0; i < N; i++) d->x[i] = (float)(i - N / 2) * 0.0097f;
  memset(d->y, 0, sizeof d->y);
  memset(d->sums, 0, sizeof d->sums);
}

/* Every value of a run against the host's: 0 when all agree. */
static int check(const data *d, const char *where) {
  int wrong = 0, exact = 0, worst = 0;
  for (int i = 0; i < N; i++) {
    float want = (float)log1p(exp((double)d->x[i]));
    int64_t ulps = sample_ulps(d->y[i], want);
    exact += ulps == 0;
    worst = ulps > worst ? (int)ulps : worst;
    if (ulps > MAX_ULPS && wrong++ < 5)
      printf("  y[%d] = softplus(%.9g) is %.9g, %lld ulp from %.9g\n", i, (double)d->x[i],
             (double)d->y[i], (long long)ulps, (double)want);
  }
  int64_t total = 0;
  for (int b = 0; b <= BINS; b++) {
    int64_t want = 0;
    for (int i = b < BINS ? b : 0; i < N; i += b < BINS ? BINS : 1) want += i;
    total += b < BINS ? want : 0;
    if (d->sums[b] != want && wrong++ < 5)
      printf("  sums[%d] is %d, the host says %lld\n", b, d->sums[b], (long long)want);
  }
  printf("%s: %d softplus values (%d as the host's, none more than %d ulp from it: at most %d), "
         "%d bins and their total %lld checked, %d wrong\n",
         where, N, exact, worst, MAX_ULPS, BINS, (long long)total, wrong);
  return wrong != 0;
}

/* A memref<?xT> or memref<KxT> as MLIR passes it: five parameters. */
typedef struct descriptor {
  uint64_t allocated, aligned;
  int64_t offset, size, stride;
} descriptor;

static void describe(descriptor *m, uint64_t address, int64_t size) {
  *m = (descriptor){address, address, 0, size, 1};
}

static void add_descriptor(cuplug_value *v, descriptor *m) {
  v[0] = (cuplug_value){CUPLUG_TYPE_POINTER, &m->allocated};
  v[1] = (cuplug_value){CUPLUG_TYPE_POINTER, &m->aligned};
  v[2] = (cuplug_value){CUPLUG_TYPE_INT64, &m->offset};
  v[3] = (cuplug_value){CUPLUG_TYPE_INT64, &m->size};
  v[4] = (cuplug_value){CUPLUG_TYPE_INT64, &m->stride};
}

/* The kernel's launch over N threads: on the GPU (dev holds device
 * addresses of x, y and sums), or on this CPU (dev NULL: host memory). */
static cuplug_error *launch(cuplug_library *lib, void *arg, const uint64_t *dev) {
  data *d = arg;
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = lib};
  cuplug_error *e = api->kernel_get(&k);
  if (e) return e;
  uint64_t at[3] = {(uint64_t)(uintptr_t)d->x, (uint64_t)(uintptr_t)d->y,
                    (uint64_t)(uintptr_t)d->sums};
  if (dev) memcpy(at, dev, sizeof at);
  descriptor x, y, sums;
  describe(&x, at[0], N);
  describe(&y, at[1], N);
  describe(&sums, at[2], BINS + 1);
  int64_t n = N;
  cuplug_value v[16];
  add_descriptor(v, &x);
  add_descriptor(v + 5, &y);
  add_descriptor(v + 10, &sums);
  v[15] = (cuplug_value){CUPLUG_TYPE_INT64, &n};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel,
                           .grid = {(N + BLOCK - 1) / BLOCK, 1, 1}, .block = {BLOCK, 1, 1},
                           .args = v, .num_args = 16};
  return api->launch(&la);
}

/* 1. The kernel compiled, with no signature. */
static cuplug_error *compile(cuplug_session *s, const cuplug_module *kernels,
                             cuplug_output output, bool current, cuplug_artifact **art) {
  const cuplug_module *mods[] = {kernels};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "softplus_sums", .kind = CUPLUG_KERNEL,
                           .output = output, .cc_major = current ? 0 : 9,
                           .flags = current ? CUPLUG_COMPILE_CURRENT_DEVICE : 0};
  cuplug_error *e = api->compile(&a);
  *art = a.artifact;
  return e;
}

/* The PTX for sm_90, as LLVM's NVPTX backend made it: what it says. */
static int show_ptx(cuplug_session *s, const cuplug_module *kernels) {
  cuplug_artifact *art;
  cuplug_error *e = compile(s, kernels, CUPLUG_OUTPUT_PTX, false, &art);
  cuplug_artifact_info ai;
  if (e || (e = sample_describe_ptx(art, &ai))) {
    api->artifact_destroy(art);
    return sample_report(e);
  }
  const char *ptx = ai.data;
  bool inlined = !strstr(ptx, "__nv_expf") && !strstr(ptx, "__nv_log1pf");
  bool shuffles = strstr(ptx, "shfl.sync.bfly.b32") != NULL;
  bool barrier = strstr(ptx, "bar.sync") != NULL || strstr(ptx, "barrier.sync") != NULL;
  bool atomics = strstr(ptx, "atom.") != NULL || strstr(ptx, "red.") != NULL;
  printf("libdevice's expf and log1pf %s; shuffles %s; barrier %s; atomic adds %s\n",
         inlined ? "inlined" : "called, not inlined", shuffles ? "shfl.sync.bfly" : "absent",
         barrier ? "bar.sync" : "absent", atomics ? "atom or red" : "absent");
  bool llvm = ai.backend == CUPLUG_BACKEND_LLVM;
  api->artifact_destroy(art);
  if (!llvm) fprintf(stderr, "mlir_sample: modern IR went to libNVVM, not LLVM's backend\n");
  if (!(inlined && shuffles && barrier && atomics))
    fprintf(stderr, "mlir_sample: the PTX lacks what the kernel asks for\n");
  return llvm && inlined && shuffles && barrier && atomics ? 0 : 1;
}

/* 2. One target's build loaded, launched and checked. */
static int run_on(cuplug_session *s, const cuplug_module *kernels, bool gpu, const char *where) {
  static data d;
  cuplug_artifact *art;
  cuplug_error *e = compile(s, kernels, gpu ? CUPLUG_OUTPUT_CUBIN : CUPLUG_OUTPUT_HOST, gpu, &art);
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = art};
  if (!e) e = api->load(&l);
  fill_inputs(&d);
  if (!e && gpu) {
    void *host[3] = {d.x, d.y, d.sums};
    size_t bytes[3] = {sizeof d.x, sizeof d.y, sizeof d.sums};
    e = sample_on_gpu(s, l.library, &d, launch, 3, host, bytes, 1);
  } else if (!e) {
    e = launch(l.library, &d, NULL);
  }
  api->library_unload(l.library);
  api->artifact_destroy(art);
  return e ? sample_report(e) : check(&d, where);
}

static int run(cuplug_session *s, const char *path, bool cpu, bool gpu, const char *gpu_name) {
  size_t size;
  char *ir = sample_slurp(path, &size);
  if (!ir) {
    fprintf(stderr, "mlir_sample: cannot read %s\n", path);
    return 1;
  }
  cuplug_module kernels = {sizeof kernels, path, ir, size};
  int rc = show_ptx(s, &kernels);
  if (!rc && cpu) rc = run_on(s, &kernels, false, "this CPU");
  if (!rc && gpu) rc = run_on(s, &kernels, true, gpu_name);
  free(ir);
  return rc;
}

int main(int argc, char **argv) {
  return sample_main(argc, argv, KERNELS_LL, "KERNELS.ll", run);
}
