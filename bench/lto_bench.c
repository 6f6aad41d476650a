/* lto_bench.c - what link-time optimisation buys: a kernel that calls a
 * small external CUDA C++ function in a loop, linked with LTO (the
 * function inlined) and without (a real call through the return slot);
 * and the same kernel through LLVM's NVPTX backend, whose PTX nvJitLink
 * links as it is (issue 20: what the NVPTX path loses without
 * cross-inlining).
 *
 *   build/bin/lto_bench
 *
 * GPU time per launch (CUDA events, median of 21), and the speed-up. */
#include <stdbool.h>
#include <string.h>

#include "bench.h"

static const char step_cu[] =
    "extern \"C\" __device__ int ext_step(unsigned *ret, unsigned acc, unsigned v) {\n"
    "  *ret = acc * 2654435761u + (v ^ (acc >> 7));\n"
    "  return 0;\n"
    "}\n";

/* out[i] = fold of ext_step over 4096 steps, each thread its own seed */
static const char loop_ir[] =
    "define i32 @loop(i8** %ret, i32* %out) {\n"
    "entry:\n"
    "  %slot = alloca i32\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %bw = mul i32 %b, %w\n"
    "  %i = add i32 %bw, %t\n"
    "  br label %head\n"
    "head:\n"
    "  %k = phi i32 [ 0, %entry ], [ %k1, %head ]\n"
    "  %acc = phi i32 [ %i, %entry ], [ %acc1, %head ]\n"
    "  %st = call i32 @ext_step(i32* %slot, i32 %acc, i32 %k)\n"
    "  %acc1 = load i32, i32* %slot\n"
    "  %k1 = add i32 %k, 1\n"
    "  %more = icmp slt i32 %k1, 4096\n"
    "  br i1 %more, label %head, label %done\n"
    "done:\n"
    "  %p = getelementptr i32, i32* %out, i32 %i\n"
    "  store i32 %acc1, i32* %p\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @ext_step(i32*, i32, i32)\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n";

enum { BLOCKS = 1024, THREADS = 256, ROUNDS = 21 };

static double time_kernel(const cuplug_api *api, bench_cuda *cu, cuplug_session *s, bool lto,
                          cuplug_backend backend, uint64_t out, uint32_t *result) {
  cuplug_module m = {sizeof m, "loop.ll", loop_ir, sizeof loop_ir - 1};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "loop",
                           .signature = "void(CPointer(uint32))", .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_CUBIN, .flags = CUPLUG_COMPILE_CURRENT_DEVICE,
                           .no_lto = !lto, .backend = backend};
  bench_check(api, api->compile(&a), "compile");
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  bench_check(api, api->load(&l), "load");
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  bench_check(api, api->kernel_get(&k), "kernel_get");
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &out}};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel, .grid = {BLOCKS, 1, 1},
                           .block = {THREADS, 1, 1}, .args = v, .num_args = 1};
  double ms = bench_launch_ms(api, cu, &la, 2, ROUNDS);
  bench_check(api, api->memcpy_to_host(s, result, out, 4), "memcpy_to_host");
  api->library_unload(l.library);
  api->artifact_destroy(a.artifact);
  return ms;
}

int main(void) {
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  bench_cuda cu;
  if (!api || bench_cuda_load(&cu)) {
    printf("lto_bench: skipped: no CUDA device\n");
    return 77;
  }
  cuplug_session *s;
  bench_check(api, api->session_create(NULL, &s), "session_create");
  cuplug_code code = {.struct_size = sizeof code, .name = "ext_step.cu", .data = step_cu,
                      .size = sizeof step_cu - 1};
  const cuplug_code *codes[] = {&code};
  cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = api->session_registry(s),
                                  .name = "ext_step", .signature = "uint32(uint32, uint32)",
                                  .link = codes, .num_link = 1};
  bench_check(api, api->declare_device(&d), "declare_device");
  uint64_t out;
  bench_check(api, api->mem_alloc(s, BLOCKS * THREADS * 4, &out), "mem_alloc");
  uint32_t with, without;
  uint32_t nvptx_result;
  double lto = time_kernel(api, &cu, s, true, CUPLUG_BACKEND_LIBNVVM, out, &with);
  double plain = time_kernel(api, &cu, s, false, CUPLUG_BACKEND_LIBNVVM, out, &without);
  double nvptx = time_kernel(api, &cu, s, true, CUPLUG_BACKEND_LLVM, out, &nvptx_result);
  printf("a kernel calling an external CUDA C++ function 4096 times per thread, %d x %d threads:\n",
         BLOCKS, THREADS);
  printf("  linked without LTO: %8.3f ms\n", plain);
  printf("  linked with LTO:    %8.3f ms\n", lto);
  printf("  speed-up from LTO: %.2fx (same result: %s)\n", plain / lto,
         with == without ? "yes" : "NO");
  printf("  NVPTX backend (PTX linked, the call kept): %8.3f ms, %.2fx the LTO build's (same "
         "result: %s)\n",
         nvptx, nvptx / lto, nvptx_result == with ? "yes" : "NO");
  api->session_destroy(s);
  return with == without && nvptx_result == with ? 0 : 1;
}
