/* builtin_bench.c - what a built-in call costs: a kernel written with the
 * built-in library against the same kernel with the intrinsics written out.
 *
 *   build/bin/builtin_bench [REPEATS]
 *
 * The kernel: i = cuda.grid(1); v = cuda.fma(x[i], x[i], 1); s =
 * cuda.shfl_down_sync(-1, v, 1); cuda.syncthreads(); cuda.atomic.add(acc,
 * s); out[i] = s.  "builtins": each call resolved through resolve_call and
 * lowered by cuplug.  "inline": the same kernel with NVVM's intrinsics in
 * its own IR (the anchor).  Measured in one run:
 *   - the PTX: instruction counts of the two kernels (equal when every
 *     built-in was inlined to its instruction);
 *   - compile time to PTX: cuplug on "builtins" / cuplug on "inline" (the
 *     cost of adding the lowerings' modules), and / bare libNVVM on
 *     "inline"; and bare libNVVM on the IR cuplug hands it for "builtins"
 *     ("final"), which splits that cost into libNVVM's (inlining the
 *     lowerings) and cuplug's own;
 *   - resolve_call: nanoseconds per call (a concrete template; a generic
 *     one whose symbol exists);
 *   - on a GPU, kernel time of the two cubins (CUDA events, medians). */
#include <string.h>

#include "bench.h"

static const cuplug_api *api;

static const char *resolve(cuplug_registry *r, const char *key, const char *argtypes) {
  char text[256];
  snprintf(text, sizeof text, "void(%s)", argtypes);
  const cuplug_type *sig;
  bench_check(api, api->type_parse(text, &sig), "type_parse");
  cuplug_type_info i = {.struct_size = sizeof i, .type = sig};
  bench_check(api, api->type_info(&i), "type_info");
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = r, .key = key,
                           .argtypes = i.args, .nargs = i.num_args};
  bench_check(api, api->resolve_call(&a), key);
  return a.symbol;
}

#define KERNEL_SIG "void(CPointer(float32), CPointer(float32), CPointer(float32))"

/* Complete NVVM IR, as bare libNVVM takes it (target, version, annotation). */
static const char inline_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-"
    "i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "define void @k(float* %out, float* %x, float* %acc) {\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %t64 = sext i32 %tid to i64\n"
    "  %n64 = sext i32 %ntid to i64\n"
    "  %c64 = sext i32 %ctaid to i64\n"
    "  %nc = mul i64 %n64, %c64\n"
    "  %i = add i64 %nc, %t64\n"
    "  %px = getelementptr float, float* %x, i64 %i\n"
    "  %xv = load float, float* %px\n"
    "  %v = call float @llvm.fma.f32(float %xv, float %xv, float 1.0)\n"
    "  %vb = bitcast float %v to i32\n"
    "  %pair = call {i32, i1} @llvm.nvvm.shfl.sync.i32(i32 -1, i32 2, i32 %vb, i32 1, i32 31)\n"
    "  %sb = extractvalue {i32, i1} %pair, 0\n"
    "  %s = bitcast i32 %sb to float\n"
    "  call void @llvm.nvvm.barrier0()\n"
    "  %old = call float @llvm.nvvm.atomic.load.add.f32.p0f32(float* %acc, float %s)\n"
    "  %po = getelementptr float, float* %out, i64 %i\n"
    "  store float %s, float* %po\n"
    "  ret void\n}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare float @llvm.fma.f32(float, float, float)\n"
    "declare {i32, i1} @llvm.nvvm.shfl.sync.i32(i32, i32, i32, i32, i32)\n"
    "declare void @llvm.nvvm.barrier0()\n"
    "declare float @llvm.nvvm.atomic.load.add.f32.p0f32(float*, float)\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{void (float*, float*, float*)* @k, !\"kernel\", i32 1}\n"
    "!nvvmir.version = !{!1}\n"
    "!1 = !{i32 2, i32 0}\n";

/* The same kernel through the registry. */
static char *builtins_ir(cuplug_registry *r) {
  const char *grid = resolve(r, "cuda.grid", "Literal[int](1)");
  const char *fma = resolve(r, "cuda.fma", "float32, float32, float32");
  const char *shfl = resolve(r, "cuda.shfl_down_sync", "int32, float32, int32");
  const char *sync = resolve(r, "cuda.syncthreads", "");
  const char *add = resolve(r, "cuda.atomic.add", "CPointer(float32), float32");
  char *ir = malloc(4096);
  snprintf(ir, 4096,
           "define void @k(float* %%out, float* %%x, float* %%acc) {\n"
           "  %%i = call i64 @%s(i32 1)\n"
           "  %%px = getelementptr float, float* %%x, i64 %%i\n"
           "  %%xv = load float, float* %%px\n"
           "  %%v = call float @%s(float %%xv, float %%xv, float 1.0)\n"
           "  %%s = call float @%s(i32 -1, float %%v, i32 1)\n"
           "  call void @%s()\n"
           "  %%old = call float @%s(float* %%acc, float %%s)\n"
           "  %%po = getelementptr float, float* %%out, i64 %%i\n"
           "  store float %%s, float* %%po\n"
           "  ret void\n}\n"
           "declare i64 @%s(i32)\ndeclare float @%s(float, float, float)\n"
           "declare float @%s(i32, float, i32)\ndeclare void @%s()\n"
           "declare float @%s(float*, float)\n",
           grid, fma, shfl, sync, add, grid, fma, shfl, sync, add);
  return ir;
}

static cuplug_artifact *compile(cuplug_session *s, const char *ir, cuplug_output output,
                                uint32_t flags) {
  cuplug_module m = {.struct_size = sizeof m, .text = ir, .size = strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args c = {.struct_size = sizeof c, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k", .signature = KERNEL_SIG,
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL, .output = output,
                           .cc_major = flags ? 0 : 9, .flags = flags};
  bench_check(api, api->compile(&c), "compile");
  return c.artifact;
}

/* Instructions in the PTX: lines that start with a tab and a letter. */
static int instructions(const char *ptx) {
  int n = 0;
  for (const char *p = strstr(ptx, ".entry"); p && *p; p = strchr(p, '\n')) {
    p++;
    if (p[0] == '\t' && p[1] >= 'a' && p[1] <= 'z') n++;
  }
  return n;
}

static const char *ptx_of(const cuplug_artifact *a) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  bench_check(api, api->artifact_info(a, &i), "artifact_info");
  return i.data;
}

/* Median kernel time (ms) of a cubin artifact over n threads. */
static double kernel_ms(cuplug_session *s, const bench_cuda *cu, cuplug_artifact *cubin,
                        uint64_t out, uint64_t x, uint64_t acc, unsigned n) {
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = cubin};
  bench_check(api, api->load(&l), "load");
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  bench_check(api, api->kernel_get(&k), "kernel_get");
  cuplug_value args[] = {{CUPLUG_TYPE_POINTER, &out}, {CUPLUG_TYPE_POINTER, &x},
                         {CUPLUG_TYPE_POINTER, &acc}};
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel, .grid = {n / 256},
                           .block = {256}, .args = args, .num_args = 3};
  double ms = bench_launch_ms(api, cu, &la, 0, 51);
  api->library_unload(l.library);
  return ms;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 21;
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  bench_nvvm v;
  if (!api || !bench_nvvm_load(&v)) {
    fprintf(stderr, "builtin_bench: needs libcuplug and libNVVM\n");
    return 1;
  }
  cuplug_session *s;
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
  bench_check(api, api->session_create(&o, &s), "session_create"); /* every compile is built */
  cuplug_registry *r = api->session_registry(s);
  char *bir = builtins_ir(r);

  /* the PTX */
  cuplug_artifact *pb = compile(s, bir, CUPLUG_OUTPUT_PTX, 0);
  cuplug_artifact *pi = compile(s, inline_ir, CUPLUG_OUTPUT_PTX, 0);
  int nb = instructions(ptx_of(pb)), ni = instructions(ptx_of(pi));
  printf("PTX instructions in the kernel: builtins %d, inline %d%s\n", nb, ni,
         nb == ni ? " (the same)" : "");
  api->artifact_destroy(pb);
  api->artifact_destroy(pi);

  /* the IR cuplug hands libNVVM for the builtins kernel */
  cuplug_module bm = {.struct_size = sizeof bm, .text = bir, .size = strlen(bir)};
  const cuplug_module *bmods[] = {&bm};
  cuplug_compile_args kc = {.struct_size = sizeof kc, .session = s, .modules = bmods,
                            .num_modules = 1, .entry = "k", .signature = KERNEL_SIG,
                            .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL, .cc_major = 9,
                            .flags = CUPLUG_COMPILE_KEEP_IR};
  bench_check(api, api->compile(&kc), "compile");
  cuplug_artifact_info ki = {.struct_size = sizeof ki};
  bench_check(api, api->artifact_info(kc.artifact, &ki), "artifact_info");
  const char *final_ir[8];
  size_t final_n[8], nf = ki.num_ir_modules < 8 ? ki.num_ir_modules : 8;
  for (size_t m = 0; m < nf; m++) {
    cuplug_ir_view view = {.struct_size = sizeof view};
    bench_check(api, api->artifact_ir(kc.artifact, m, &view), "artifact_ir");
    final_ir[m] = view.text;
    final_n[m] = view.size;
  }

  /* compile time */
  double tb[64], ti[64], tn[64], tf[64];
  if (reps > 64) reps = 64;
  size_t in = strlen(inline_ir);
  const char *mods[] = {inline_ir};
  for (int i = 0; i < reps; i++) {
    double t0 = bench_now();
    api->artifact_destroy(compile(s, bir, CUPLUG_OUTPUT_PTX, 0));
    double t1 = bench_now();
    api->artifact_destroy(compile(s, inline_ir, CUPLUG_OUTPUT_PTX, 0));
    double t2 = bench_now();
    char *bare = bench_nvvm_compile(&v, mods, &in, 1, "-arch=compute_90", false);
    double t3 = bench_now();
    if (!bare) {
      fprintf(stderr, "builtin_bench: bare libNVVM refused the inline kernel\n");
      return 1;
    }
    free(bare);
    free(bench_nvvm_compile(&v, final_ir, final_n, nf, "-arch=compute_90", false));
    double t4 = bench_now();
    tb[i] = t1 - t0;
    ti[i] = t2 - t1;
    tn[i] = t3 - t2;
    tf[i] = t4 - t3;
  }
  api->artifact_destroy(kc.artifact);
  double mb = bench_median(tb, reps), mi = bench_median(ti, reps), mn = bench_median(tn, reps);
  double mf = bench_median(tf, reps);
  printf("compile to PTX (medians of %d): builtins %.2f ms, inline %.2f ms; bare libNVVM: "
         "inline %.2f ms, final %.2f ms\n",
         reps, mb * 1e3, mi * 1e3, mn * 1e3, mf * 1e3);
  printf("  builtins / inline (through cuplug):  %.3fx\n", mb / mi);
  printf("  builtins / bare libNVVM on inline:   %.3fx\n", mb / mn);
  printf("  of which libNVVM inlining (final / inline, bare): %.3fx; cuplug's own (builtins / "
         "final): %.3fx\n",
         mf / mn, mb / mf);

  /* resolve_call */
  const cuplug_type *f32 = api->type_scalar(CUPLUG_TYPE_FLOAT32), *pf32;
  bench_check(api, api->type_pointer(f32, &pf32), "type_pointer");
  const cuplug_type *sin_args[] = {f32}, *add_args[] = {pf32, f32};
  enum { CALLS = 200000 };
  double t0 = bench_now();
  for (int i = 0; i < CALLS; i++) {
    cuplug_resolve_args a = {.struct_size = sizeof a, .registry = r, .key = "math.sin",
                             .argtypes = sin_args, .nargs = 1};
    bench_check(api, api->resolve_call(&a), "resolve");
  }
  double t1 = bench_now();
  for (int i = 0; i < CALLS; i++) {
    cuplug_resolve_args a = {.struct_size = sizeof a, .registry = r, .key = "cuda.atomic.add",
                             .argtypes = add_args, .nargs = 2};
    bench_check(api, api->resolve_call(&a), "resolve");
  }
  double t2 = bench_now();
  printf("resolve_call: math.sin(float32) %.0f ns (5 concrete signatures), "
         "cuda.atomic.add(CPointer(float32), float32) %.0f ns (generic)\n",
         (t1 - t0) / CALLS * 1e9, (t2 - t1) / CALLS * 1e9);

  /* kernel time */
  bench_cuda cu;
  cuplug_info info = {.struct_size = sizeof info};
  api->error_destroy(api->get_info(&info));
  if (info.device_count <= 0 || bench_cuda_load(&cu) != 0) {
    printf("kernel time: no GPU\n");
  } else {
    unsigned n = 1u << 22;
    uint64_t out, x, acc;
    bench_check(api, api->mem_alloc(s, n * 4, &out), "mem_alloc");
    bench_check(api, api->mem_alloc(s, n * 4, &x), "mem_alloc");
    bench_check(api, api->mem_alloc(s, 4, &acc), "mem_alloc");
    float *host = calloc(n, 4);
    for (unsigned i = 0; i < n; i++) host[i] = (float)(i % 97) * 0.01f;
    bench_check(api, api->memcpy_to_device(s, x, host, n * 4), "memcpy");
    cuplug_artifact *cb = compile(s, bir, CUPLUG_OUTPUT_CUBIN, CUPLUG_COMPILE_CURRENT_DEVICE);
    cuplug_artifact *ci = compile(s, inline_ir, CUPLUG_OUTPUT_CUBIN, CUPLUG_COMPILE_CURRENT_DEVICE);
    double kb = kernel_ms(s, &cu, cb, out, x, acc, n), ki = kernel_ms(s, &cu, ci, out, x, acc, n);
    printf("kernel time, %u threads (medians of 51): builtins %.4f ms, inline %.4f ms: %.3fx\n",
           n, kb, ki, kb / ki);
    api->artifact_destroy(cb);
    api->artifact_destroy(ci);
    free(host);
  }
  free(bir);
  api->session_destroy(s);
  return 0;
}
