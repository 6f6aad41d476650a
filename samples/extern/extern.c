/* extern.c - a CUDA C++ function called from a host JIT's kernel.
 *
 * The host registers ext_clamp (ext_clamp.cu) as numba-cuda's
 * declare_device does, compiles its kernel (kernel.ll, the IR a host JIT
 * emitted) to a cubin -- cuplug compiles the .cu with NVRTC and links both
 * with LTO, so ext_clamp is inlined -- then, on a GPU, launches it and
 * checks every element.  Without a GPU it stops after the cubin.
 *
 *   extern_demo [SAMPLE_DIR]     (default: this folder) */
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_NAME "extern_demo"
#include "common/sample.h"

static float clampf(float v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : SAMPLE_DIR;
  char path[PATH_MAX + 64];
  if (!sample_load_plugin(1)) return 1;
  cuplug_session *s;
  cuplug_error *e = api->session_create(NULL, &s);
  if (e) return sample_report(e);

  /* 1. ext_clamp, as numba-cuda's cuda.declare_device('ext_clamp',
   *    'float32(float32, float32, float32)', link='ext_clamp.cu') */
  snprintf(path, sizeof path, "%s/ext_clamp.cu", dir);
  cuplug_code cu = {.struct_size = sizeof cu, .path = path};
  const cuplug_code *link[] = {&cu};
  cuplug_declare_device_args d = {.struct_size = sizeof d,
                                  .registry = api->session_registry(s),
                                  .name = "ext_clamp",
                                  .signature = "float32(float32, float32, float32)",
                                  .link = link,
                                  .num_link = 1};
  if ((e = api->declare_device(&d))) return sample_report(e);

  /* 2. the kernel that calls it, compiled and linked with LTO into a cubin */
  char ir_path[PATH_MAX + 64];
  snprintf(ir_path, sizeof ir_path, "%s/kernel.ll", dir);
  size_t ir_size;
  char *ir = sample_slurp(ir_path, &ir_size);
  if (!ir) {
    fprintf(stderr, "extern_demo: cannot read %s\n", ir_path);
    return 1;
  }
  cuplug_info info = {.struct_size = sizeof info};
  if ((e = api->get_info(&info))) return sample_report(e);
  bool gpu = info.device_count > 0;
  cuplug_module m = {sizeof m, "kernel.ll", ir, ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a,
                           .session = s,
                           .modules = mods,
                           .num_modules = 1,
                           .entry = "clamp_kernel",
                           .signature = "void(float32[::1], float32[::1], float32)",
                           .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_CUBIN,
                           .cc_major = gpu ? 0 : 9,
                           .flags = (gpu ? CUPLUG_COMPILE_CURRENT_DEVICE : 0) |
                                    CUPLUG_COMPILE_LINKED_PTX};
  if ((e = api->compile(&a))) return sample_report(e);
  cuplug_artifact_info ai = {.struct_size = sizeof ai};
  cuplug_part ptx = {.struct_size = sizeof ptx};
  if ((e = api->artifact_info(a.artifact, &ai)) || (e = api->artifact_part(a.artifact, 1, &ptx)))
    return sample_report(e);
  printf("clamp_kernel + ext_clamp.cu: a %zu-byte cubin for sm_%u%u, linked with LTO\n", ai.size,
         ai.cc_major, ai.cc_minor);
  printf("ext_clamp inlined into the kernel: %s\n",
         strstr(ptx.data, "call.uni") || strstr(ptx.data, "ext_clamp") ? "no" : "yes");

  if (!gpu) {
    printf("stopping after the cubin: %s\n", info.driver_status);
    api->artifact_destroy(a.artifact);
    api->session_destroy(s);
    free(ir);
    return 0;
  }

  /* 3. on the GPU: load, launch over 1M elements, check each */
  enum { N = 1 << 20 };
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  cuplug_kernel_args k = {.struct_size = sizeof k};
  if ((e = api->load(&l))) return sample_report(e);
  k.library = l.library;
  if ((e = api->kernel_get(&k))) return sample_report(e);
  float *x = malloc(N * sizeof *x), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) x[i] = (float)((i % 1000) - 250) / 500.0f;
  uint64_t dx, dout;
  if ((e = api->mem_alloc(s, N * sizeof *x, &dx)) || (e = api->mem_alloc(s, N * sizeof *out, &dout)) ||
      (e = api->memcpy_to_device(s, dx, x, N * sizeof *x)))
    return sample_report(e);
  cuplug_array ax = {.data = dx, .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 1, .shape = {N}, .strides = {4}};
  cuplug_array aout = ax;
  aout.data = dout;
  float scale = 2.0f;
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &aout}, {CUPLUG_TYPE_ARRAY, &ax},
                      {CUPLUG_TYPE_FLOAT32, &scale}};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel, .grid = {N / 256, 1, 1},
                           .block = {256, 1, 1}, .args = v, .num_args = 3};
  if ((e = api->launch(&la)) || (e = api->memcpy_to_host(s, out, dout, N * sizeof *out)))
    return sample_report(e);
  int wrong = 0;
  for (int i = 0; i < N; i++) wrong += out[i] != clampf(x[i] * scale);
  printf("launched on %s: %d of %d elements wrong\n", info.device_name, wrong, N);
  api->mem_free(s, dx);
  api->mem_free(s, dout);
  api->library_unload(l.library);
  api->artifact_destroy(a.artifact);
  api->session_destroy(s);
  free(x);
  free(out);
  free(ir);
  return wrong ? 1 : 0;
}
