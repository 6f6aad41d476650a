/* demo.c - the smallest complete host of cuplug.
 *
 * A host JIT has produced NVVM IR for a function under the Numba ABI (here
 * written out by hand, in the form numba-cuda's front end emits).  This
 * program loads the plugin with dlopen, negotiates the ABI, and compiles
 * the function to a C-ABI device function, `float axpy(float, float,
 * float)`, that CUDA C++ code can call: as PTX, and as LTO-IR for linking.
 * Then it compiles the same function for this CPU and calls it, with no
 * GPU (CUPLUG_OUTPUT_HOST).
 *
 *   demo [path/to/libcuplug.so]
 *
 * Without an argument it looks beside itself, in ../lib. */
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuplug/cuplug.h"

/* axpy(a, x, y) = a * x + y, under the Numba ABI: the result goes through
 * the return slot, the i32 return is a status (0: ok). */
static const char axpy_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-"
    "i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "\n"
    "define i32 @\"_ZN4demo4axpyEfff\"(float* %\".ret\", float %\"a\", float %\"x\", float %\"y\")\n"
    "{\n"
    "entry:\n"
    "  %\".5\" = fmul float %\"a\", %\"x\"\n"
    "  %\".6\" = fadd float %\".5\", %\"y\"\n"
    "  store float %\".6\", float* %\".ret\"\n"
    "  ret i32 0\n"
    "}\n";

static const cuplug_api *api;

static int fail(cuplug_error *e) {
  fprintf(stderr, "demo: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  if (*api->error_log(e)) fprintf(stderr, "%s\n", api->error_log(e));
  api->error_destroy(e);
  return 1;
}

/* Prints the PTX declaration of `name`: from ".visible .func" to ")". */
static void print_ptx_signature(const char *ptx, const char *name) {
  for (const char *p = strstr(ptx, ".visible .func"); p; p = strstr(p + 1, ".visible .func")) {
    const char *close = strchr(p, ')');
    const char *at = strstr(p, name);
    if (!at || !close || at > strchr(p, '(') + strlen(name) + 64) continue;
    close = strchr(at, ')');
    printf("  ");
    for (const char *c = p; c <= close; c++) {
      if (*c == '\n') {
        fputs(" ", stdout);
        while (c[1] == '\t' || c[1] == ' ') c++;
      } else {
        putchar(*c);
      }
    }
    putchar('\n');
    return;
  }
}

static int compile(cuplug_session *s, cuplug_output output, cuplug_artifact **out) {
  cuplug_module m = {sizeof m, "axpy.ll", axpy_ir, sizeof axpy_ir - 1};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {
      .struct_size = sizeof a,
      .session = s,
      .modules = mods,
      .num_modules = 1,
      .entry = "_ZN4demo4axpyEfff",
      .signature = "float32(float32, float32, float32)",
      .abi = CUPLUG_ABI_C, /* a device function that C++ can call */
      .abi_name = "axpy",
      .output = output,
  };
  cuplug_error *e = api->compile(&a);
  if (e) return fail(e);
  *out = a.artifact;
  return 0;
}

int main(int argc, char **argv) {
  char path[PATH_MAX];
  if (argc > 1) {
    snprintf(path, sizeof path, "%s", argv[1]);
  } else {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    self[n > 0 ? n : 0] = '\0';
    snprintf(path, sizeof path, "%s/../lib/libcuplug.so", dirname(self));
  }
  void *plugin = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!plugin) {
    fprintf(stderr, "demo: cannot load %s: %s\n", path, dlerror());
    return 1;
  }
  cuplug_get_api_fn get_api = (cuplug_get_api_fn)dlsym(plugin, "cuplug_get_api");
  api = get_api ? get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR) : NULL;
  if (!api) {
    fprintf(stderr, "demo: %s does not speak cuplug ABI %d\n", path, CUPLUG_ABI_MAJOR);
    return 1;
  }

  cuplug_info info = {.struct_size = sizeof info};
  cuplug_error *e = api->get_info(&info);
  if (e) return fail(e);
  printf("cuplug %s (ABI %u.%u), libNVVM %d.%d, %d GPU(s)\n", info.cuplug_version,
         info.abi_major, info.abi_minor, info.nvvm_major, info.nvvm_minor, info.device_count);

  cuplug_session *s;
  if ((e = api->session_create(NULL, &s))) return fail(e);

  cuplug_artifact *ptx, *ltoir;
  if (compile(s, CUPLUG_OUTPUT_PTX, &ptx) || compile(s, CUPLUG_OUTPUT_LTOIR, &ltoir)) return 1;
  cuplug_artifact_info pi = {.struct_size = sizeof pi}, li = {.struct_size = sizeof li};
  if ((e = api->artifact_info(ptx, &pi)) || (e = api->artifact_info(ltoir, &li))) return fail(e);

  printf("\nfloat32(float32, float32, float32) as a C-ABI device function '%s':\n", pi.symbol);
  printf("PTX for sm_%u%u, %zu bytes:\n", pi.cc_major, pi.cc_minor, pi.size);
  print_ptx_signature(pi.data, pi.symbol);
  const unsigned char *b = li.data;
  printf("LTO-IR for sm_%u%u, %zu bytes, magic %02x %02x %02x %02x\n", li.cc_major, li.cc_minor,
         li.size, b[0], b[1], b[2], b[3]);

  /* the same function on this CPU: a native function pointer */
  cuplug_artifact *host;
  if (compile(s, CUPLUG_OUTPUT_HOST, &host)) return 1;
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = host};
  cuplug_host_function_args f = {.struct_size = sizeof f};
  if (!(e = api->load(&l))) {
    f.library = l.library;
    e = api->host_function(&f);
  }
  if (e) {
    printf("on this CPU: %s\n", api->error_message(e)); /* no libcuplug-host.so, say */
    api->error_destroy(e);
  } else {
    float (*axpy)(float, float, float) = (float (*)(float, float, float))(uintptr_t)f.address;
    printf("on this CPU: axpy(2, 3, 4) = %g\n", axpy(2.0f, 3.0f, 4.0f));
  }
  api->library_unload(l.library);
  api->artifact_destroy(host);

  api->artifact_destroy(ptx);
  api->artifact_destroy(ltoir);
  api->session_destroy(s);
  dlclose(plugin);
  return 0;
}
