/* host.c - a host on a modern LLVM: the LLVM IR clang-22 made of a CUDA
 * C++ kernel (kernel.cu: opaque pointers, the kernel marked ptx_kernel),
 * compiled through cuplug as it is.
 *
 *   1. resolve_call types cuda.atomic.add on (CPointer(int32), int32) and
 *      names the built-in's symbol; a module of the host's own, three lines
 *      of LLVM IR, binds the kernel's sample_atomic_add to it, as a front
 *      end writes the call it resolved;
 *   2. the kernel and that module compile with no signature (the IR gives
 *      the parameters) to PTX through LLVM's NVPTX backend: libdevice's
 *      sinf and the built-in inlined;
 *   3. they run on this CPU (CUPLUG_OUTPUT_HOST) and, where there is one,
 *      on the GPU (a cubin), and every value is checked against the
 *      host's own.
 *
 *   clang_sample [--no-gpu | --gpu-only] [KERNEL.ll]
 *
 * Exit 0: every value as expected; 1: an error or a value wrong; 77:
 * --gpu-only where there is no GPU.
 *
 * sin: y[i] is libdevice's __nv_sinf on either target, which CUDA's
 * programming guide bounds at 2 ulp from sin (its table of single-precision
 * errors).  The host compares with sin in double rounded once to float,
 * which is within half an ulp of sin: so the two may differ by 2 ulp and
 * no more (2.5 as reals, and ulps are whole).  The host's own sinf is not
 * libdevice's algorithm and is bounded differently, so it is not the
 * reference.  The sums are integers: exact. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_NAME "clang_sample"
#include "common/sample.h"

enum { N = 4096 + 37, BLOCK = 128, BINS = 16, MAX_ULPS = 2 };

/* The kernel's `target` lines, which the host's module repeats. */
static void target_lines(const char *ir, char *out, size_t cap) {
  size_t n = 0;
  out[0] = '\0';
  for (const char *line = ir; *line;) {
    size_t len = strcspn(line, "\n");
    if (!strncmp(line, "target ", 7) && n + len + 2 < cap) {
      memcpy(out + n, line, len);
      n += len;
      out[n++] = '\n';
      out[n] = '\0';
    }
    line += len + (line[len] == '\n');
  }
}

/* 1. The module that binds sample_atomic_add to the built-in that
 *    resolve_call chose for cuda.atomic.add(CPointer(int32), int32). */
static cuplug_error *bind_atomic_add(cuplug_session *s, const char *kernel_ir, char *glue,
                                     size_t cap) {
  const cuplug_type *args[2] = {NULL, api->type_scalar(CUPLUG_TYPE_INT32)};
  cuplug_error *e = api->type_parse("CPointer(int32)", &args[0]);
  cuplug_resolve_args r = {.struct_size = sizeof r, .registry = api->session_registry(s),
                           .key = "cuda.atomic.add", .argtypes = args, .nargs = 2};
  if (e || (e = api->resolve_call(&r))) return e;
  cuplug_type_info si = {.struct_size = sizeof si, .type = r.signature};
  if ((e = api->type_info(&si))) return e;
  printf("cuda.atomic.add(CPointer(int32), int32) resolves to %s: %s, under the %s ABI\n",
         si.name, r.symbol, r.abi == CUPLUG_ABI_C ? "C" : "Numba");
  char target[1024];
  target_lines(kernel_ir, target, sizeof target);
  snprintf(glue, cap,
           "%s\n"
           "define i32 @sample_atomic_add(ptr %%p, i32 %%v) alwaysinline {\n"
           "  %%old = call i32 @%s(ptr %%p, i32 %%v)\n"
           "  ret i32 %%old\n"
           "}\n\n"
           "declare i32 @%s(ptr, i32)\n",
           target, r.symbol, r.symbol);
  return NULL;
}

/* What one run computed, and the host's values for it. */
typedef struct data {
  float x[N], y[N];
  int32_t sums[BINS];
} data;

static void fill_inputs(data *d) {
  for (int i = 0; i < N; i++) d->x[i] = (float)(i - N / 2) * 0.0123f;
  memset(d->y, 0, sizeof d->y);
  memset(d->sums, 0, sizeof d->sums);
}

/* Every value of a run against the host's: 0 when all agree. */
static int check(const data *d, const char *where) {
  int wrong = 0, exact = 0, worst = 0;
  for (int i = 0; i < N; i++) {
    float want = (float)sin((double)d->x[i]);
    int64_t ulps = sample_ulps(d->y[i], want);
    exact += ulps == 0;
    worst = ulps > worst ? (int)ulps : worst;
    if (ulps > MAX_ULPS && wrong++ < 5)
      printf("  y[%d] = sin(%.9g) is %.9g, %lld ulp from %.9g\n", i, (double)d->x[i],
             (double)d->y[i], (long long)ulps, (double)want);
  }
  for (int b = 0; b < BINS; b++) {
    int64_t want = 0;
    for (int i = b; i < N; i += BINS) want += i;
    if (d->sums[b] != want && wrong++ < 5)
      printf("  sums[%d] is %d, the host says %lld\n", b, d->sums[b], (long long)want);
  }
  printf("%s: %d sines (%d as sin rounded once, none more than %d ulp from it: at most %d) "
         "and %d sums checked, %d wrong\n",
         where, N, exact, worst, MAX_ULPS, BINS, wrong);
  return wrong != 0;
}

/* The kernel's launch over N threads: on the GPU (dev holds device
 * addresses of x, y and sums), or on this CPU (dev NULL: host memory). */
static cuplug_error *launch(cuplug_library *lib, void *arg, const uint64_t *dev) {
  data *d = arg;
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = lib};
  cuplug_error *e = api->kernel_get(&k);
  if (e) return e;
  uint64_t ptr[3] = {(uint64_t)(uintptr_t)d->x, (uint64_t)(uintptr_t)d->y,
                     (uint64_t)(uintptr_t)d->sums};
  if (dev) memcpy(ptr, dev, sizeof ptr);
  int32_t n = N;
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &ptr[0]}, {CUPLUG_TYPE_POINTER, &ptr[1]},
                      {CUPLUG_TYPE_POINTER, &ptr[2]}, {CUPLUG_TYPE_INT32, &n}};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel,
                           .grid = {(N + BLOCK - 1) / BLOCK, 1, 1}, .block = {BLOCK, 1, 1},
                           .args = v, .num_args = 4};
  return api->launch(&la);
}

/* The inputs to the GPU, the launch, and the outputs back. */
static cuplug_error *launch_on_gpu(cuplug_session *s, cuplug_library *lib, data *d) {
  void *host[3] = {d->x, d->y, d->sums};
  size_t bytes[3] = {sizeof d->x, sizeof d->y, sizeof d->sums};
  return sample_on_gpu(s, lib, d, launch, 3, host, bytes, 1);
}

/* 2. The kernel and the binding compiled, with no signature. */
static cuplug_error *compile(cuplug_session *s, const cuplug_module *const *mods,
                             cuplug_output output, bool current, cuplug_artifact **art) {
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 2, .entry = "sin_sums", .kind = CUPLUG_KERNEL,
                           .output = output, .cc_major = current ? 0 : 9,
                           .flags = current ? CUPLUG_COMPILE_CURRENT_DEVICE : 0};
  cuplug_error *e = api->compile(&a);
  *art = a.artifact;
  return e;
}

/* The PTX for sm_90, as LLVM's NVPTX backend made it: what it says. */
static int show_ptx(cuplug_session *s, const cuplug_module *const *mods) {
  cuplug_artifact *art;
  cuplug_error *e = compile(s, mods, CUPLUG_OUTPUT_PTX, false, &art);
  cuplug_artifact_info ai;
  if (e || (e = sample_describe_ptx(art, &ai))) {
    api->artifact_destroy(art);
    return sample_report(e);
  }
  const char *ptx = ai.data;
  printf("__nv_sinf %s; the atomic add %s\n",
         strstr(ptx, "__nv_sinf") ? "called, not inlined" : "inlined",
         strstr(ptx, "atom.") || strstr(ptx, "red.") ? "an atom or red instruction" : "absent");
  bool llvm = ai.backend == CUPLUG_BACKEND_LLVM;
  api->artifact_destroy(art);
  if (!llvm) fprintf(stderr, "clang_sample: modern IR went to libNVVM, not LLVM's backend\n");
  return llvm ? 0 : 1;
}

/* 3. One target's build loaded, launched and checked. */
static int run_on(cuplug_session *s, const cuplug_module *const *mods, bool gpu,
                  const char *where) {
  static data d;
  cuplug_artifact *art;
  cuplug_error *e = compile(s, mods, gpu ? CUPLUG_OUTPUT_CUBIN : CUPLUG_OUTPUT_HOST, gpu, &art);
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = art};
  if (!e) e = api->load(&l);
  fill_inputs(&d);
  if (!e) e = gpu ? launch_on_gpu(s, l.library, &d) : launch(l.library, &d, NULL);
  api->library_unload(l.library);
  api->artifact_destroy(art);
  return e ? sample_report(e) : check(&d, where);
}

static int run(cuplug_session *s, const char *path, bool cpu, bool gpu, const char *gpu_name) {
  size_t size;
  char *ir = sample_slurp(path, &size), glue[4096];
  if (!ir) {
    fprintf(stderr, "clang_sample: cannot read %s\n", path);
    return 1;
  }
  cuplug_error *e = bind_atomic_add(s, ir, glue, sizeof glue);
  if (e) {
    free(ir);
    return sample_report(e);
  }
  cuplug_module kernel = {sizeof kernel, path, ir, size};
  cuplug_module binding = {sizeof binding, "binding.ll", glue, strlen(glue)};
  const cuplug_module *mods[] = {&kernel, &binding};
  int rc = show_ptx(s, mods);
  if (!rc && cpu) rc = run_on(s, mods, false, "this CPU");
  if (!rc && gpu) rc = run_on(s, mods, true, gpu_name);
  free(ir);
  return rc;
}

int main(int argc, char **argv) {
  return sample_main(argc, argv, KERNEL_LL, "KERNEL.ll", run);
}
