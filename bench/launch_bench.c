/* launch_bench.c - host cost of a launch: cuplug's launch() against raw
 * cuLaunchKernel with pre-packed arguments, in one run, on one kernel.
 *
 *   build/bin/launch_bench [LAUNCHES]
 *
 * The kernel takes 5 arguments (three pointers, a float, an int).  Each
 * round times a burst of launches (host time only: the GPU work is tiny,
 * and a synchronisation between rounds, untimed, keeps the queue short);
 * rounds alternate between the two ways, and the medians are compared.
 * Target (issue 3): cuplug at most 1.10x raw cuLaunchKernel. */
#include <string.h>

#include "bench.h"

static const char kernel_ir[] =
    "define i32 @axpy5(i8** %ret, float* %out, float* %x, float* %y, float %a, i32 %n) {\n"
    "entry:\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %in = icmp slt i32 %t, %n\n"
    "  br i1 %in, label %body, label %done\n"
    "body:\n"
    "  %px = getelementptr float, float* %x, i32 %t\n"
    "  %py = getelementptr float, float* %y, i32 %t\n"
    "  %po = getelementptr float, float* %out, i32 %t\n"
    "  %vx = load float, float* %px\n"
    "  %vy = load float, float* %py\n"
    "  %m = fmul float %a, %vx\n"
    "  %s = fadd float %m, %vy\n"
    "  store float %s, float* %po\n"
    "  br label %done\n"
    "done:\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n";

int main(int argc, char **argv) {
  int launches = argc > 1 ? atoi(argv[1]) : 2000;
  enum { ROUNDS = 21 };
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  bench_cuda cu;
  if (!api || bench_cuda_load(&cu)) {
    printf("launch_bench: skipped: no CUDA device\n");
    return 77;
  }
  cuplug_session *s;
  bench_check(api, api->session_create(NULL, &s), "session_create");
  cuplug_module m = {sizeof m, "axpy5.ll", kernel_ir, sizeof kernel_ir - 1};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "axpy5",
                           .signature = "void(CPointer(float32), CPointer(float32), "
                                        "CPointer(float32), float32, int32)",
                           .kind = CUPLUG_KERNEL, .output = CUPLUG_OUTPUT_CUBIN,
                           .flags = CUPLUG_COMPILE_CURRENT_DEVICE};
  bench_check(api, api->compile(&a), "compile");
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  bench_check(api, api->load(&l), "load");
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  bench_check(api, api->kernel_get(&k), "kernel_get");

  uint64_t out, x, y;
  bench_check(api, api->mem_alloc(s, 4096, &out), "mem_alloc");
  bench_check(api, api->mem_alloc(s, 4096, &x), "mem_alloc");
  bench_check(api, api->mem_alloc(s, 4096, &y), "mem_alloc");
  float alpha = 2;
  int32_t n = 32;

  /* the anchor: the same cubin through the driver alone, arguments packed once */
  cuplug_artifact_info info = {.struct_size = sizeof info};
  bench_check(api, api->artifact_info(a.artifact, &info), "artifact_info");
  void *lib, *raw;
  if (cu.library_load_data(&lib, info.data, NULL, NULL, 0, NULL, NULL, 0) ||
      cu.library_get_kernel(&raw, lib, "axpy5")) {
    fprintf(stderr, "launch_bench: the driver would not load the cubin\n");
    return 1;
  }
  void *params[] = {&out, &x, &y, &alpha, &n};

  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &out}, {CUPLUG_TYPE_POINTER, &x},
                      {CUPLUG_TYPE_POINTER, &y},   {CUPLUG_TYPE_FLOAT32, &alpha},
                      {CUPLUG_TYPE_INT32, &n}};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel, .grid = {1, 1, 1},
                           .block = {32, 1, 1}, .args = v, .num_args = 5};

  double raw_t[ROUNDS], plug_t[ROUNDS];
  for (int r = -2; r < ROUNDS; r++) { /* two rounds of warm-up */
    double t0 = bench_now();
    for (int i = 0; i < launches; i++)
      if (cu.launch_kernel(raw, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL)) return 1;
    double t1 = bench_now();
    cu.ctx_synchronize();
    double t2 = bench_now();
    for (int i = 0; i < launches; i++) bench_check(api, api->launch(&la), "launch");
    double t3 = bench_now();
    cu.ctx_synchronize();
    if (r >= 0) {
      raw_t[r] = (t1 - t0) / launches;
      plug_t[r] = (t3 - t2) / launches;
    }
  }
  double mr = bench_median(raw_t, ROUNDS), mp = bench_median(plug_t, ROUNDS);
  printf("launch host cost, 5 arguments, %d launches x %d rounds (medians):\n", launches, ROUNDS);
  printf("  raw cuLaunchKernel, arguments packed once: %7.3f us\n", mr * 1e6);
  printf("  cuplug launch():                           %7.3f us\n", mp * 1e6);
  printf("  ratio cuplug / raw: %.3f\n", mp / mr);
  api->library_unload(l.library);
  api->artifact_destroy(a.artifact);
  api->session_destroy(s);
  return 0;
}
