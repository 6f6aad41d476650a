/* extern.c - a CUDA C++ function called from a host JIT's kernel.
 *
 * The host registers ext_clamp (ext_clamp.cu) as numba-cuda's
 * declare_device does, compiles its kernel (kernel.ll, the IR a host JIT
 * emitted) to a cubin -- cuplug compiles the .cu with NVRTC and links both
 * with LTO, so ext_clamp is inlined -- then, on a GPU, launches it and
 * checks every element.  Without a GPU it stops after the cubin.
 *
 *   extern_demo [SAMPLE_DIR]     (default: this folder) */
#include <dlfcn.h>
#include <stdbool.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuplug/cuplug.h"

static const cuplug_api *api;

static int fail(cuplug_error *e) {
  fprintf(stderr, "extern_demo: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  if (*api->error_log(e)) fprintf(stderr, "%s\n", api->error_log(e));
  api->error_destroy(e);
  return 1;
}

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *b = malloc((size_t)len + 1);
  if (b && fread(b, 1, (size_t)len, f) == (size_t)len) {
    b[len] = '\0';
    *n = (size_t)len;
  } else {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static float clampf(float v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : SAMPLE_DIR;
  char self[PATH_MAX], path[PATH_MAX + 64];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  self[n > 0 ? n : 0] = '\0';
  snprintf(path, sizeof path, "%s/../lib/libcuplug.so", dirname(self));
  void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  cuplug_get_api_fn get = plugin ? (cuplug_get_api_fn)dlsym(plugin, "cuplug_get_api") : NULL;
  api = get ? get(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR) : NULL;
  if (!api || !CUPLUG_API_HAS(api, launch)) {
    fprintf(stderr, "extern_demo: cannot load %s with ABI 1.1\n", path);
    return 1;
  }
  cuplug_session *s;
  cuplug_error *e = api->session_create(NULL, &s);
  if (e) return fail(e);

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
  if ((e = api->declare_device(&d))) return fail(e);

  /* 2. the kernel that calls it, compiled and linked with LTO into a cubin */
  char ir_path[PATH_MAX + 64];
  snprintf(ir_path, sizeof ir_path, "%s/kernel.ll", dir);
  size_t ir_size;
  char *ir = slurp(ir_path, &ir_size);
  if (!ir) {
    fprintf(stderr, "extern_demo: cannot read %s\n", ir_path);
    return 1;
  }
  cuplug_info info = {.struct_size = sizeof info};
  if ((e = api->get_info(&info))) return fail(e);
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
  if ((e = api->compile(&a))) return fail(e);
  cuplug_artifact_info ai = {.struct_size = sizeof ai};
  cuplug_part ptx = {.struct_size = sizeof ptx};
  if ((e = api->artifact_info(a.artifact, &ai)) || (e = api->artifact_part(a.artifact, 1, &ptx)))
    return fail(e);
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
  if ((e = api->load(&l))) return fail(e);
  k.library = l.library;
  if ((e = api->kernel_get(&k))) return fail(e);
  float *x = malloc(N * sizeof *x), *out = malloc(N * sizeof *out);
  for (int i = 0; i < N; i++) x[i] = (float)((i % 1000) - 250) / 500.0f;
  uint64_t dx, dout;
  if ((e = api->mem_alloc(s, N * sizeof *x, &dx)) || (e = api->mem_alloc(s, N * sizeof *out, &dout)) ||
      (e = api->memcpy_to_device(s, dx, x, N * sizeof *x)))
    return fail(e);
  cuplug_array ax = {.data = dx, .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 1, .shape = {N}, .strides = {4}};
  cuplug_array aout = ax;
  aout.data = dout;
  float scale = 2.0f;
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &aout}, {CUPLUG_TYPE_ARRAY, &ax},
                      {CUPLUG_TYPE_FLOAT32, &scale}};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel, .grid = {N / 256, 1, 1},
                           .block = {256, 1, 1}, .args = v, .num_args = 3};
  if ((e = api->launch(&la)) || (e = api->memcpy_to_host(s, out, dout, N * sizeof *out)))
    return fail(e);
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
