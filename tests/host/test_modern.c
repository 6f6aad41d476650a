/* test_modern.c - modern (opaque-pointer) IR on the CPU: CUDA C++ that
 * clang-22 compiles at test time, and IR as llvm-dis-22 prints it, run by
 * libcuplug-host.so from the text the compile hands it
 * (cuplug__cpu_lib_args.mods), with exact values; what the host cannot
 * run (inline PTX, NVVM intrinsics without a CPU meaning, address spaces
 * it lacks) refused by name and line before anything runs.
 *
 * These tests call the library's own table, as plugin/load/cpu.c does; one,
 * clang_math_without_pointers, compiles clang's device functions of numbers
 * only through the public API instead, for the dialect the compile takes
 * them for. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#include "plugin/cpu/cpu.h"
#include "printf_kernel.h"

static const cuplug__cpu_api *cpu;
static cuplug__cpu_jit *jit;

static void setup(void) {
  void *so = dlopen(CUPLUG_TEST_HOST_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(so != NULL, "%s", dlerror());
  cuplug__cpu_get_fn get = (cuplug__cpu_get_fn)(uintptr_t)dlsym(so, "cuplug__cpu_get");
  ck_assert_ptr_nonnull(get);
  cpu = get(CUPLUG__CPU_VERSION);
  ck_assert_ptr_nonnull(cpu);
  char *msg = NULL;
  ck_assert_msg(cpu->jit_create(&jit, &msg) == 0, "%s", msg);
}

static void teardown(void) { cpu->jit_destroy(jit); }

/* The modern IR clang-22 makes of a CUDA C++ source, for sm_90 at -O2,
 * without CUDA's headers (the built-in variables and attributes come from
 * clang's own).  Free the result. */
static char *cuda_ir(const char *source) {
  char dir[] = "/tmp/cuplug-modern-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char cu[64], ll[64], cmd[512];
  snprintf(cu, sizeof cu, "%s/k.cu", dir);
  snprintf(ll, sizeof ll, "%s/k.ll", dir);
  FILE *f = fopen(cu, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#define __device__ __attribute__((device))\n"
             "#define __global__ __attribute__((global))\n"
             "#define __shared__ __attribute__((shared))\n"
             "#include <__clang_cuda_builtin_vars.h>\n%s",
          source);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "%s -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib "
           "-Wno-unknown-cuda-version -emit-llvm -S -O2 -o %s %s",
           CUPLUG_TEST_CLANG, ll, cu);
  ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
  char *ir = t_read(ll, NULL);
  unlink(cu);
  unlink(ll);
  rmdir(dir);
  return ir;
}

/* libdevice.10.bc beside the libNVVM that cuplug found, where the toolkit
 * looks for it. */
static char *libdevice(size_t *size) {
  cuplug_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->get_info(&info));
  static const char *const dirs[] = {"../libdevice", "../nvvm/libdevice", "../../nvvm/libdevice"};
  const char *slash = strrchr(info.nvvm_path, '/');
  ck_assert_ptr_nonnull(slash);
  char path[4096];
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
    snprintf(path, sizeof path, "%.*s/%s/libdevice.10.bc", (int)(slash - info.nvvm_path),
             info.nvvm_path, dirs[i]);
    if (access(path, R_OK) == 0) return t_read(path, size);
  }
  ck_abort_msg("no libdevice.10.bc beside %s", info.nvvm_path);
  return NULL;
}

/* A library of the modules `mods` with a launcher for `kernel`; libdevice
 * linked when given.  Returns the library's status, its message in *msg. */
static int library_of(const cuplug__text *mods, size_t n, const char *kernel, const char *ld,
                      size_t ld_size, cuplug__cpu_lib **lib, char **msg) {
  const char *kernels[] = {kernel};
  cuplug__cpu_lib_args a = {.mods = mods,
                            .num_mods = n,
                            .sources = mods,
                            .num_sources = n,
                            .kernels = kernels,
                            .num_kernels = 1,
                            .libdevice = ld,
                            .libdevice_size = ld_size};
  *lib = NULL;
  *msg = NULL;
  return cpu->lib_create(jit, &a, lib, msg);
}

/* ... of one module, `text` named `name` */
static int library(const char *name, const char *text, const char *kernel, const char *ld,
                   size_t ld_size, cuplug__cpu_lib **lib, char **msg) {
  cuplug__text mod = {name, text, strlen(text)};
  return library_of(&mod, 1, kernel, ld, ld_size, lib, msg);
}

static cuplug__cpu_lib *library_ok(const char *name, const char *text, const char *kernel,
                                   const char *ld, size_t ld_size) {
  cuplug__cpu_lib *lib;
  char *msg;
  int rc = library(name, text, kernel, ld, ld_size, &lib, &msg);
  ck_assert_msg(rc == 0, "%s: %s", name, msg);
  return lib;
}

static void run(cuplug__cpu_lib *lib, const char *kernel, uint32_t grid, uint32_t block,
                uint32_t shared, void **params, size_t n) {
  cuplug__cpu_grid g = {.kernel = kernel, .grid = {grid, 1, 1}, .block = {block, 1, 1},
                        .shared_mem = shared, .params = params, .num_params = n};
  char *msg = NULL;
  int rc = cpu->launch(lib, &g, &msg);
  ck_assert_msg(rc == 0, "%s: %s", kernel, msg);
}

/* run() of one block, returning what the kernel printed (free it) */
static char *run_printing(cuplug__cpu_lib *lib, const char *kernel, uint32_t block,
                          uint32_t shared, void **params, size_t n) {
  cuplug__cpu_grid g = {.kernel = kernel, .grid = {1, 1, 1}, .block = {block, 1, 1},
                        .shared_mem = shared, .params = params, .num_params = n};
  char *msg = NULL;
  int saved = t_stdout_capture();
  int rc = cpu->launch(lib, &g, &msg);
  char *printed = t_stdout_captured(saved); /* before an assertion can leave the test */
  ck_assert_msg(rc == 0, "%s: %s", kernel, msg);
  return printed;
}

static void assert_refused(const char *name, const char *text, const char *kernel,
                           const char *message) {
  cuplug__cpu_lib *lib;
  char *msg;
  ck_assert_int_eq(library(name, text, kernel, NULL, 0, &lib, &msg), CUPLUG_ERR_HOST_UNSUPPORTED);
  ck_assert_ptr_null(lib);
  ck_assert_str_eq(msg, message);
  free(msg);
}

/* ---- CUDA C++ through clang-22 ---- */

/* Special registers, static and dynamic shared memory, syncthreads and its
 * reductions, LLVM's shfl.sync and vote intrinsics, an atomic, and a
 * struct passed by value (byval): 2 blocks of 64. */
static const char collectives_cu[] =
    "struct scale { int add; double mul; };\n"
    "extern \"C\" __global__ void collectives(int *out, float *fout, int *count, scale s) {\n"
    "  __shared__ int tile[64];\n"
    "  extern __shared__ int dyn[];\n"
    "  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;\n"
    "  tile[t] = i;\n"
    "  dyn[t] = i * s.add;\n"
    "  __syncthreads();\n"
    "  int *o = out + i * 12;\n"
    "  o[0] = tile[blockDim.x - 1 - t];\n"
    "  o[1] = dyn[(t + 1) % blockDim.x];\n"
    "  o[2] = __nvvm_shfl_sync_idx_i32(0xffffffff, i, 3, 31);\n"
    "  o[3] = __nvvm_shfl_sync_down_i32(0xffffffff, i, 1, 31);\n"
    "  o[4] = __nvvm_shfl_sync_up_i32(0xffffffff, i, 2, 0);\n"
    "  o[5] = __nvvm_vote_ballot_sync(0xffffffff, t & 1);\n"
    "  o[6] = __nvvm_vote_all_sync(0xffffffff, t < 100);\n"
    "  o[7] = __nvvm_vote_any_sync(0xffffffff, t == 5);\n"
    "  o[8] = __nvvm_bar0_popc(t & 1);\n"
    "  o[9] = __nvvm_bar0_and(t < 63);\n"
    "  o[10] = __nvvm_bar0_or(t == 63);\n"
    "  o[11] = gridDim.x * 1000 + blockDim.x;\n"
    "  fout[i] = __nvvm_shfl_sync_bfly_f32(0xffffffff, (float)(i * s.mul), 1, 31);\n"
    "  __nvvm_atom_add_gen_i(count, i);\n"
    "}\n";

START_TEST(clang_kernel_values) {
  char *ir = cuda_ir(collectives_cu);
  T_ASSERT_CONTAINS(ir, "define dso_local ptx_kernel void @collectives(ptr");
  T_ASSERT_CONTAINS(ir, "byval(%struct.scale)");
  cuplug__cpu_lib *lib = library_ok("collectives.ll", ir, "collectives", NULL, 0);
  enum { N = 128 };
  static int32_t out[N * 12];
  static float fout[N];
  int32_t count = 0;
  struct { int32_t add; double mul; } scale = {3, 0.5};
  int32_t *pout = out, *pcount = &count;
  float *pfout = fout;
  void *params[] = {&pout, &pfout, &pcount, &scale};
  run(lib, "collectives", 2, 64, 64 * sizeof(int32_t), params, 4);
  for (int i = 0; i < N; i++) {
    int t = i % 64, block = i / 64 * 64, lane = i % 32, warp = i & ~31;
    const int32_t *o = out + i * 12;
    ck_assert_int_eq(o[0], block + 63 - t);
    ck_assert_int_eq(o[1], (block + (t + 1) % 64) * 3);
    ck_assert_int_eq(o[2], warp + 3);
    ck_assert_int_eq(o[3], lane < 31 ? i + 1 : i);
    ck_assert_int_eq(o[4], lane >= 2 ? i - 2 : i);
    ck_assert_int_eq(o[5], (int32_t)0xaaaaaaaau);
    ck_assert_int_eq(o[6], 1);
    ck_assert_int_eq(o[7], t < 32);
    ck_assert_int_eq(o[8], 32);
    ck_assert_int_eq(o[9], 0);
    ck_assert_int_eq(o[10], 1);
    ck_assert_int_eq(o[11], 2064);
    ck_assert(fout[i] == (float)((i ^ 1) * 0.5));
  }
  ck_assert_int_eq(count, N * (N - 1) / 2);
  cpu->lib_destroy(lib);
  free(ir);
}
END_TEST

/* CUDA C++'s printf, which clang lowers to vprintf with its arguments
 * packed in a struct (a float promoted to double, a char to int) */
START_TEST(clang_printf_values) {
  char *ir = cuda_ir("extern \"C\" __device__ int printf(const char *, ...);\n"
                     "extern \"C\" __global__ void hello(float f, long long big, "
                     "const char *s) {\n"
                     "  printf(\"t%u %d %5.2f %lld %s %c%%\\n\", threadIdx.x, -7, f * threadIdx.x, "
                     "big, s, 'A' + (int)threadIdx.x);\n"
                     "}\n");
  T_ASSERT_CONTAINS(ir, "call i32 @vprintf(");
  cuplug__cpu_lib *lib = library_ok("hello.ll", ir, "hello", NULL, 0);
  float f = 1.5f;
  long long big = 1ll << 40;
  const char *s = "xyz";
  void *params[] = {&f, &big, &s};
  char *printed = run_printing(lib, "hello", 3, 0, params, 3);
  ck_assert_str_eq(printed, "t0 -7  0.00 1099511627776 xyz A%\n"
                            "t1 -7  1.50 1099511627776 xyz B%\n"
                            "t2 -7  3.00 1099511627776 xyz C%\n");
  free(printed);
  cpu->lib_destroy(lib);
  free(ir);
}
END_TEST

/* Device functions of numbers only, as clang writes them at -O2: no
 * pointer in the text, numbered parameters, newer flags and intrinsics
 * (llvm.abs, llvm.smax, llvm.fshl).  The compile takes them for modern IR
 * (lowering/dialect.c) and LLVM's NVPTX backend builds each, where libNVVM's
 * LLVM 7 reader stopped at the first parameter. */
START_TEST(clang_math_without_pointers) {
  char *ir = cuda_ir("extern \"C\" __device__ int dist(int x, int y) {\n"
                     "  int r = x > y ? x - y : y - x;\n  return (r << 2) | (x & 1);\n}\n"
                     "extern \"C\" __device__ unsigned rot(unsigned x, int s) {\n"
                     "  return (x << s) | (x >> (32 - s));\n}\n"
                     "extern \"C\" __device__ int clampz(int x) { return x < 0 ? 0 : x; }\n");
  ck_assert_ptr_null(strstr(ir, "ptr"));
  T_ASSERT_CONTAINS(ir, "@dist(i32 noundef %0, i32 noundef %1)");
  static const struct {
    const char *name, *sig, *ptx;
  } fns[] = {{"dist", "int32(int32, int32)", "abs.s32"},
             {"rot", "uint32(uint32, int32)", "shf.l.wrap.b32"},
             {"clampz", "int32(int32)", "max.s32"}};
  cuplug_session *s = t_session_uncached();
  for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
    cuplug_module m = {sizeof m, "math.ll", ir, strlen(ir)};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                             .num_modules = 1, .entry = fns[i].name, .signature = fns[i].sig,
                             .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_PTX,
                             .cc_major = 9};
    T_ASSERT_OK(t_api()->compile(&a));
    cuplug_artifact_info info = {.struct_size = sizeof info};
    T_ASSERT_OK(t_api()->artifact_info(a.artifact, &info));
    ck_assert_int_eq(info.backend, CUPLUG_BACKEND_LLVM);
    T_ASSERT_CONTAINS(info.data, fns[i].ptx);
    t_api()->artifact_destroy(a.artifact);
  }
  t_api()->session_destroy(s);
  free(ir);
}
END_TEST

static const char sines_cu[] =
    "extern \"C\" __device__ float __nv_sinf(float);\n"
    "extern \"C\" __global__ void sines(float *out, const float *in) {\n"
    "  out[threadIdx.x] = __nv_sinf(in[threadIdx.x]);\n"
    "}\n";

/* The same kernel in numba's dialect (typed pointers, libNVVM's text). */
static const char sines_typed[] =
    "define void @sines(float* %out, float* %in) {\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %i = zext i32 %t to i64\n"
    "  %p = getelementptr float, float* %in, i64 %i\n"
    "  %x = load float, float* %p\n"
    "  %y = call float @__nv_sinf(float %x)\n"
    "  %q = getelementptr float, float* %out, i64 %i\n"
    "  store float %y, float* %q\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare float @__nv_sinf(float)\n";

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* __nv_sinf from libdevice: the bits numba's dialect gets, within
 * libdevice's 2 ulp of libm */
START_TEST(clang_kernel_calls_libdevice) {
  size_t ld_size;
  char *ld = libdevice(&ld_size);
  char *ir = cuda_ir(sines_cu);
  cuplug__cpu_lib *modern = library_ok("sines.ll", ir, "sines", ld, ld_size);
  cuplug__cpu_lib *typed = library_ok("sines_typed.ll", sines_typed, "sines", ld, ld_size);
  static const float in[] = {0.0f, -0.0f, 0.5f, 1.0f, -3.0f, 100.0f, 1e6f, 1e30f};
  enum { N = sizeof in / sizeof in[0] };
  float got[N], want[N];
  const float *pin = in;
  float *pout = got;
  void *params[] = {&pout, &pin};
  run(modern, "sines", 1, N, 0, params, 2);
  pout = want;
  run(typed, "sines", 1, N, 0, params, 2);
  for (int i = 0; i < N; i++) {
    ck_assert_uint_eq(bits(got[i]), bits(want[i]));
    float libm = sinf(in[i]);
    ck_assert_msg(fabsf(got[i] - libm) <= 2 * (nextafterf(fabsf(libm), INFINITY) - fabsf(libm)),
                  "sinf(%g): %.9g, libm %.9g", in[i], got[i], libm);
  }
  ck_assert_uint_eq(bits(got[1]), 0x80000000u); /* sin(-0) is -0 */
  cpu->lib_destroy(modern);
  cpu->lib_destroy(typed);
  free(ir);
  free(ld);
}
END_TEST

/* ---- IR as llvm-dis-22 prints it ---- */

/* LLVM's forms clang does not write here: ptx_device functions and their
 * calls, the shfl.sync forms with their predicate ({i32, i1} and {float,
 * i1}), vote.uni.sync, and the lanemask and clock registers. */
static const char forms_ll[] =
    "define internal ptx_device i32 @twice(i32 %x) {\n"
    "  %y = shl i32 %x, 1\n"
    "  ret i32 %y\n"
    "}\n"
    "define ptx_kernel void @forms(ptr %out, ptr %fout) {\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %tw = call ptx_device i32 @twice(i32 %t)\n"
    "  %s = call { i32, i1 } @llvm.nvvm.shfl.sync.down.i32p(i32 -1, i32 %tw, i32 16, i32 31)\n"
    "  %sv = extractvalue { i32, i1 } %s, 0\n"
    "  %sp = extractvalue { i32, i1 } %s, 1\n"
    "  %f = uitofp i32 %t to float\n"
    "  %g = call { float, i1 } @llvm.nvvm.shfl.sync.idx.f32p(i32 -1, float %f, i32 7, i32 31)\n"
    "  %gv = extractvalue { float, i1 } %g, 0\n"
    "  %gp = extractvalue { float, i1 } %g, 1\n"
    "  %odd = trunc i32 %t to i1\n"
    "  %uni = call i1 @llvm.nvvm.vote.uni.sync(i32 -1, i1 %odd)\n"
    "  %lt = call i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()\n"
    "  %c0 = call i64 @llvm.nvvm.read.ptx.sreg.clock64()\n"
    "  %c1 = call i64 @llvm.nvvm.read.ptx.sreg.clock64()\n"
    "  %ticks = icmp uge i64 %c1, %c0\n"
    "  %i = zext i32 %t to i64\n"
    "  %row = mul i64 %i, 6\n"
    "  %o0 = getelementptr i32, ptr %out, i64 %row\n"
    "  store i32 %sv, ptr %o0\n"
    "  %o1 = getelementptr i32, ptr %o0, i64 1\n"
    "  %spi = zext i1 %sp to i32\n"
    "  store i32 %spi, ptr %o1\n"
    "  %o2 = getelementptr i32, ptr %o0, i64 2\n"
    "  %gpi = zext i1 %gp to i32\n"
    "  store i32 %gpi, ptr %o2\n"
    "  %o3 = getelementptr i32, ptr %o0, i64 3\n"
    "  %unii = zext i1 %uni to i32\n"
    "  store i32 %unii, ptr %o3\n"
    "  %o4 = getelementptr i32, ptr %o0, i64 4\n"
    "  store i32 %lt, ptr %o4\n"
    "  %o5 = getelementptr i32, ptr %o0, i64 5\n"
    "  %ticksi = zext i1 %ticks to i32\n"
    "  store i32 %ticksi, ptr %o5\n"
    "  %fo = getelementptr float, ptr %fout, i64 %i\n"
    "  store float %gv, ptr %fo\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare { i32, i1 } @llvm.nvvm.shfl.sync.down.i32p(i32, i32, i32, i32)\n"
    "declare { float, i1 } @llvm.nvvm.shfl.sync.idx.f32p(i32, float, i32, i32)\n"
    "declare i1 @llvm.nvvm.vote.uni.sync(i32, i1)\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.lanemask.lt()\n"
    "declare i64 @llvm.nvvm.read.ptx.sreg.clock64()\n";

START_TEST(llvm_forms_values) {
  cuplug__cpu_lib *lib = library_ok("forms.ll", forms_ll, "forms", NULL, 0);
  int32_t out[32 * 6];
  float fout[32];
  int32_t *pout = out;
  float *pfout = fout;
  void *params[] = {&pout, &pfout};
  run(lib, "forms", 1, 32, 0, params, 2);
  for (int t = 0; t < 32; t++) {
    const int32_t *o = out + t * 6;
    ck_assert_int_eq(o[0], t < 16 ? 2 * (t + 16) : 2 * t); /* past lane 31: its own */
    ck_assert_int_eq(o[1], t < 16);
    ck_assert_int_eq(o[2], 1);
    ck_assert_int_eq(o[3], 0); /* odd and even lanes: not uniform */
    ck_assert_int_eq(o[4], (int32_t)((1u << t) - 1));
    ck_assert_int_eq(o[5], 1);
    ck_assert(fout[t] == 7.0f);
  }
  cpu->lib_destroy(lib);
}
END_TEST

/* A modern kernel calling a function that numba's dialect defines (as the
 * registry's implementations are NVVM text): one library of both. */
static const char caller_ll[] =
    "target datalayout = \"e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define ptx_kernel void @caller(ptr %out) {\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %v = call i32 @cube(i32 %t)\n"
    "  %i = zext i32 %t to i64\n"
    "  %p = getelementptr i32, ptr %out, i64 %i\n"
    "  store i32 %v, ptr %p\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @cube(i32)\n";
static const char cube_typed[] =
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-"
    "f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define i32 @cube(i32 %x) {\n"
    "  %a = alloca i32\n"
    "  store i32 %x, i32* %a\n"
    "  %y = load i32, i32* %a\n"
    "  %s = mul i32 %y, %y\n"
    "  %c = mul i32 %s, %y\n"
    "  ret i32 %c\n"
    "}\n";

/* rustc 1.95's kernel (tests/rustc/saxpy.ll): an i64, a float and two
 * pointers, its own index arithmetic through ptrtoint and inttoptr */
START_TEST(rustc_kernel_values) {
  char *ir = t_read(t_path("rustc/saxpy.ll"), NULL);
  cuplug__cpu_lib *lib = library_ok("saxpy.ll", ir, "saxpy", NULL, 0);
  enum { N = 200 };
  float x[N + 8], y[N + 8];
  for (int i = 0; i < N + 8; i++) {
    x[i] = (float)i;
    y[i] = (float)(3 * i);
  }
  int64_t n = N;
  float a = 2.0f, *px = x, *py = y;
  void *params[] = {&n, &a, &px, &py};
  run(lib, "saxpy", 2, 128, 0, params, 4);
  for (int i = 0; i < N + 8; i++) ck_assert(y[i] == (float)(i < N ? 5 * i : 3 * i));
  cpu->lib_destroy(lib);
  free(ir);
}
END_TEST

/* CUDA's vprintf: the arguments in a buffer, read as the format says */
START_TEST(printf_as_cuda_prints) {
  cuplug__cpu_lib *lib = library_ok("say.ll", t_printf_ir, "say", NULL, 0);
  int32_t base = 0;
  void *params[] = {&base};
  char *printed = run_printing(lib, "say", 1, 0, params, 1);
  ck_assert_str_eq(printed, t_printf_expected);
  free(printed);
  cpu->lib_destroy(lib);
  /* a width past 4096 is printed as it is, not padded to a gigabyte; the
   * argument is still taken */
  static const char wide_ll[] =
      "@fmt = private constant [16 x i8] c\"%999999999d|%d\\0A\\00\"\n"
      "define ptx_kernel void @wide() {\n"
      "  %buf = alloca { i32, i32 }, align 4\n"
      "  store { i32, i32 } { i32 1, i32 2 }, ptr %buf\n"
      "  %n = call i32 @vprintf(ptr @fmt, ptr %buf)\n"
      "  ret void\n"
      "}\n"
      "declare i32 @vprintf(ptr, ptr)\n";
  lib = library_ok("wide.ll", wide_ll, "wide", NULL, 0);
  printed = run_printing(lib, "wide", 1, 0, NULL, 0);
  ck_assert_str_eq(printed, "%999999999d|2\n");
  free(printed);
  cpu->lib_destroy(lib);
}
END_TEST

/* __trap(): the launch fails, the library runs on; a thread run as a
 * plain call (no barrier in the library) leaves through the worker's
 * escape, where an assert in a fiber switches out */
START_TEST(trap_fails_the_launch) {
  static const char trap_ll[] =
      "define ptx_kernel void @stop_at(ptr %out, i32 %at) {\n"
      "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "  %c = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
      "  %hit = icmp eq i32 %c, %at\n"
      "  br i1 %hit, label %trap, label %go\n"
      "trap:\n"
      "  call void @llvm.trap()\n"
      "  unreachable\n"
      "go:\n"
      "  %i = zext i32 %c to i64\n"
      "  %p = getelementptr i32, ptr %out, i64 %i\n"
      "  atomicrmw add ptr %p, i32 1 monotonic\n"
      "  ret void\n"
      "}\n"
      "define ptx_kernel void @brk() {\n"
      "  call void @llvm.debugtrap()\n"
      "  ret void\n"
      "}\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
      "declare void @llvm.trap()\n"
      "declare void @llvm.debugtrap()\n";
  const char *kernels[] = {"stop_at", "brk"};
  cuplug__text mod = {"trap.ll", trap_ll, strlen(trap_ll)};
  cuplug__cpu_lib_args la = {.mods = &mod, .num_mods = 1, .sources = &mod, .num_sources = 1,
                             .kernels = kernels, .num_kernels = 2};
  cuplug__cpu_lib *lib = NULL;
  char *made = NULL;
  ck_assert_msg(cpu->lib_create(jit, &la, &lib, &made) == 0, "%s", made);
  int32_t counts[4] = {0}, *pc = counts, at = 2;
  void *params[] = {&pc, &at};
  cuplug__cpu_grid g = {.kernel = "stop_at", .grid = {4, 1, 1}, .block = {32, 1, 1},
                        .params = params, .num_params = 2, .threads = 1};
  char *msg = NULL;
  ck_assert_int_eq(cpu->launch(lib, &g, &msg), CUPLUG_ERR_KERNEL_FAULT);
  ck_assert_str_eq(msg, "kernel stop_at: a trap (__trap() or llvm.trap) in block: [2,0,0], "
                        "thread: [0,0,0]");
  free(msg);
  /* one host thread takes the blocks in order: 0 and 1 ran, none after 2 */
  ck_assert_int_eq(counts[0], 32);
  ck_assert_int_eq(counts[1], 32);
  ck_assert_int_eq(counts[2], 0);
  ck_assert_int_eq(counts[3], 0);
  at = -1;
  memset(counts, 0, sizeof counts);
  run(lib, "stop_at", 4, 32, 0, params, 2);
  for (int b = 0; b < 4; b++) ck_assert_int_eq(counts[b], 32);
  /* a debug trap (int3 on the host) likewise */
  cuplug__cpu_grid brk = {.kernel = "brk", .grid = {1, 1, 1}, .block = {1, 1, 1}};
  ck_assert_int_eq(cpu->launch(lib, &brk, &msg), CUPLUG_ERR_KERNEL_FAULT);
  ck_assert_str_eq(msg, "kernel brk: a trap (__trap() or llvm.trap) in block: [0,0,0], "
                        "thread: [0,0,0]");
  free(msg);
  cpu->lib_destroy(lib);
}
END_TEST

START_TEST(dialects_linked) {
  cuplug__text mods[] = {{"caller.ll", caller_ll, sizeof caller_ll - 1},
                         {"cube.ll", cube_typed, sizeof cube_typed - 1}};
  cuplug__cpu_lib *lib;
  char *msg;
  ck_assert_msg(library_of(mods, 2, "caller", NULL, 0, &lib, &msg) == 0, "%s", msg);
  int32_t out[8];
  int32_t *pout = out;
  void *params[] = {&pout};
  run(lib, "caller", 1, 8, 0, params, 1);
  for (int t = 0; t < 8; t++) ck_assert_int_eq(out[t], t * t * t);
  cpu->lib_destroy(lib);
}
END_TEST

/* ---- what the host cannot run ---- */

START_TEST(triton_inline_ptx_refused) {
  char *add = t_read(t_path("triton/fixtures/add.ll"), NULL);
  assert_refused("add.ll", add, "add_kernel",
                 "inline PTX assembly \"mov.u32 $0, 0x0;\\0A\\09mov.u32 $1, 0x0;\\0A\\09mov.u32 "
                 "$2, 0x0;\\0A\\09mov.u32 $3, 0x0;\\0A\\09@$5 ld.global.v4.b32 { $0, $1, $2, $3 "
                 "}, [ $4 + 0 ];\" has no host equivalent (add.ll:20)");
  free(add);
}
END_TEST

START_TEST(triton_intrinsics_refused) {
  char *matmul = t_read(t_path("triton/fixtures/matmul.ll"), NULL);
  assert_refused("matmul.ll", matmul, "matmul_kernel",
                 "the NVVM intrinsic @llvm.nvvm.cp.async.commit.group has no host equivalent "
                 "(matmul.ll:135)");
  free(matmul);
}
END_TEST

/* Of the C library, only what means the same on a GPU: exit would end the
 * host, glibc's vprintf takes a va_list (CUDA's is the runtime's own) */
START_TEST(libc_refused) {
  static const char exit_ll[] =
      "define ptx_kernel void @k(i32 %code) {\n"
      "  call void @exit(i32 %code)\n"
      "  ret void\n"
      "}\n"
      "declare void @exit(i32)\n";
  assert_refused("exit.ll", exit_ll, "k",
                 "the IR calls @exit, which device code may not call on the host (of the host's "
                 "C library it may call libm's functions, the mem* functions, malloc and free) "
                 "(exit.ll:2)");
}
END_TEST

START_TEST(address_spaces_refused) {
  static const char global_ll[] =
      "@cluster = external addrspace(7) global [4 x i32]\n"
      "define ptx_kernel void @k(ptr %out) {\n"
      "  %p = addrspacecast ptr addrspace(7) @cluster to ptr\n"
      "  %v = load i32, ptr %p\n"
      "  store i32 %v, ptr %out\n"
      "  ret void\n"
      "}\n";
  assert_refused("cluster.ll", global_ll, "k",
                 "@cluster uses address space 7, which the host lacks (it has the generic 0, "
                 "global 1, shared 3, constant 4 and local 5) (cluster.ll:1)");
  static const char param_ll[] =
      "define ptx_kernel void @k(ptr %out, ptr addrspace(101) %in) {\n"
      "  %v = load i32, ptr addrspace(101) %in\n"
      "  store i32 %v, ptr %out\n"
      "  ret void\n"
      "}\n";
  assert_refused("param.ll", param_ll, "k",
                 "@k uses address space 101, which the host lacks (it has the generic 0, "
                 "global 1, shared 3, constant 4 and local 5) (param.ll:1)");
}
END_TEST

/* ---- MLIR's gpu dialect through mlir-opt-22 and mlir-translate-22 ---- */

/* Runs `cmd`, failing the test with what it printed where it fails. */
static void run_tool(const char *cmd, const char *log) {
  char line[8192];
  snprintf(line, sizeof line, "%s 2>%s", cmd, log);
  if (system(line) != 0) {
    char *said = t_read(log, NULL);
    ck_abort_msg("%s failed: %s", cmd, said ? said : "");
  }
}

/* The LLVM IR MLIR makes of a container module holding one gpu.module
 * (`source`): lowered as a compiler built on MLIR lowers a kernel for
 * NVIDIA GPUs (scf to cf, then convert-gpu-to-nvvm with 64-bit indices),
 * the gpu.module's body taken out as a module of its own (the command-line
 * tools translate only the top-level module; a compiler hands the
 * gpu.module to translateModuleToLLVMIR), and translated.  Free the
 * result. */
static char *mlir_ir(const char *source) {
  char dir[] = "/tmp/cuplug-mlir-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char in[64], lowered[64], body[64], ll[64], log[64], cmd[1024];
  snprintf(in, sizeof in, "%s/k.mlir", dir);
  snprintf(lowered, sizeof lowered, "%s/lowered.mlir", dir);
  snprintf(body, sizeof body, "%s/body.mlir", dir);
  snprintf(ll, sizeof ll, "%s/k.ll", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  FILE *f = fopen(in, "w");
  ck_assert_ptr_nonnull(f);
  fputs(source, f);
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "%s %s '--pass-pipeline=builtin.module(gpu.module(convert-scf-to-cf,"
           "convert-gpu-to-nvvm{index-bitwidth=64}),reconcile-unrealized-casts)' -o %s",
           getenv("CUPLUG_TEST_MLIR_OPT"), in, lowered);
  run_tool(cmd, log);
  /* from the line after "gpu.module @name {" to before the container's
   * closing brace, the last line: the gpu.module's own closes the module */
  char *text = t_read(lowered, NULL);
  char *open = strstr(text, "gpu.module @");
  ck_assert_ptr_nonnull(open);
  char *start = strchr(open, '\n');
  char *end = text + strlen(text);
  while (end > start && (end[-1] == '\n' || end[-1] == ' ')) end--;
  ck_assert_msg(end > start && end[-1] == '}', "%s: no closing brace", lowered);
  end--;
  f = fopen(body, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "module {%.*s\n", (int)(end - start), start);
  fclose(f);
  free(text);
  snprintf(cmd, sizeof cmd, "%s --mlir-to-llvmir %s -o %s", getenv("CUPLUG_TEST_MLIR_TRANSLATE"),
           body, ll);
  run_tool(cmd, log);
  char *ir = t_read(ll, NULL);
  const char *files[] = {in, lowered, body, ll, log};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) unlink(files[i]);
  rmdir(dir);
  return ir;
}

/* A memref<?xT> as MLIR passes it: five parameters, the allocated and
 * aligned pointers, the offset, the size and the stride. */
typedef struct memref1 {
  void *allocated, *aligned;
  int64_t offset, size, stride;
} memref1;

/* The parameters of a kernel of a memref and an index: m describes
 * data[0..size), params[0..5) point at its parts and params[5] at index. */
static void memref_params(memref1 *m, void *data, int64_t size, int64_t *index, void **params) {
  *m = (memref1){data, data, 0, size, 1};
  void *parts[] = {&m->allocated, &m->aligned, &m->offset, &m->size, &m->stride, index};
  memcpy(params, parts, sizeof parts);
}

/* Dynamic shared memory (a [0 x i8] global, viewed as f32), a barrier,
 * lane ids, an index shuffle and gpu.printf, one block of 64. */
static const char shared_mlir[] =
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @kernels {\n"
    "    gpu.func @neighbours(%out: memref<?xf32>, %n: index) kernel {\n"
    "      %c0 = arith.constant 0 : index\n"
    "      %c1 = arith.constant 1 : index\n"
    "      %tid = gpu.thread_id x\n"
    "      %lane = gpu.lane_id\n"
    "      %shm = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>\n"
    "      %view = memref.view %shm[%c0][%n] : memref<?xi8, #gpu.address_space<workgroup>>\n"
    "          to memref<?xf32, #gpu.address_space<workgroup>>\n"
    "      %t32 = arith.index_cast %tid : index to i32\n"
    "      %f = arith.sitofp %t32 : i32 to f32\n"
    "      memref.store %f, %view[%tid] : memref<?xf32, #gpu.address_space<workgroup>>\n"
    "      gpu.barrier\n"
    "      %next = arith.addi %tid, %c1 : index\n"
    "      %wrap = arith.remui %next, %n : index\n"
    "      %v = memref.load %view[%wrap] : memref<?xf32, #gpu.address_space<workgroup>>\n"
    "      %three = arith.constant 3 : i32\n"
    "      %width = arith.constant 32 : i32\n"
    "      %r, %ok = gpu.shuffle idx %v, %three, %width : f32\n"
    "      %k = arith.constant 1000.0 : f32\n"
    "      %rk = arith.mulf %r, %k : f32\n"
    "      %sum = arith.addf %v, %rk : f32\n"
    "      memref.store %sum, %out[%tid] : memref<?xf32>\n"
    "      gpu.printf \"tid %lld lane %lld\\n\", %tid, %lane : index, index\n"
    "      gpu.return\n"
    "    }\n"
    "  }\n"
    "}\n";

START_TEST(mlir_kernel_values) {
  char *ir = mlir_ir(shared_mlir);
  T_ASSERT_CONTAINS(ir, "define ptx_kernel void @neighbours(ptr %0, ptr %1, i64 %2, i64 %3, "
                        "i64 %4, i64 %5)");
  T_ASSERT_CONTAINS(ir, "@__dynamic_shmem__0 = internal addrspace(3) global [0 x i8]");
  T_ASSERT_CONTAINS(ir, "call i32 @vprintf(ptr @printfFormat_0");
  cuplug__cpu_lib *lib = library_ok("neighbours.ll", ir, "neighbours", NULL, 0);
  enum { N = 64 };
  float out[N];
  memref1 m;
  int64_t n = N;
  void *params[6];
  memref_params(&m, out, N, &n, params);
  char *printed = run_printing(lib, "neighbours", N, N * sizeof(float), params, 6);
  char want[N * 32], *w = want;
  for (int i = 0; i < N; i++) {
    int warp = i / 32 * 32;
    ck_assert_msg(out[i] == (float)((i + 1) % N + 1000 * ((warp + 4) % N)), "out[%d] = %g", i,
                  out[i]);
    w += sprintf(w, "tid %d lane %d\n", i, i % 32);
  }
  ck_assert_str_eq(printed, want);
  free(printed);
  cpu->lib_destroy(lib);
  free(ir);
}
END_TEST

/* cf.assert: CUDA's __assertfail, with the op's location */
static const char guarded_mlir[] =
    "module attributes {gpu.container_module} {\n"
    "  gpu.module @kernels {\n"
    "    gpu.func @guarded(%out: memref<?xi32>, %limit: index) kernel {\n"
    "      %tid = gpu.thread_id x\n"
    "      %ok = arith.cmpi ult, %tid, %limit : index\n"
    "      cf.assert %ok, \"tid < limit\" loc(\"guard.mlir\":7:3)\n"
    "      %t = arith.index_cast %tid : index to i32\n"
    "      memref.store %t, %out[%tid] : memref<?xi32>\n"
    "      gpu.return\n"
    "    }\n"
    "  }\n"
    "}\n";

START_TEST(mlir_assert_fails_the_launch) {
  char *ir = mlir_ir(guarded_mlir);
  T_ASSERT_CONTAINS(ir, "call void @__assertfail(");
  cuplug__cpu_lib *lib = library_ok("guarded.ll", ir, "guarded", NULL, 0);
  enum { N = 64 };
  int32_t out[N];
  memref1 m;
  int64_t limit = N;
  void *params[6];
  memref_params(&m, out, N, &limit, params);
  memset(out, 0xff, sizeof out);
  run(lib, "guarded", 1, N, 0, params, 6); /* every thread under the limit */
  for (int i = 0; i < N; i++) ck_assert_int_eq(out[i], i);
  limit = 5;
  cuplug__cpu_grid g = {.kernel = "guarded", .grid = {1, 1, 1}, .block = {N, 1, 1},
                        .params = params, .num_params = 6};
  char *msg = NULL;
  ck_assert_int_eq(cpu->launch(lib, &g, &msg), CUPLUG_ERR_KERNEL_FAULT);
  ck_assert_str_eq(msg, "kernel guarded: guard.mlir:7: (unknown): block: [0,0,0], "
                        "thread: [5,0,0] Assertion `tid < limit` failed.");
  free(msg);
  limit = N; /* the library runs on */
  run(lib, "guarded", 1, N, 0, params, 6);
  cpu->lib_destroy(lib);
  free(ir);
}
END_TEST

static Suite *suite_modern(void) {
  Suite *suite = suite_create("modern");
  TCase *tc = t_tcase(suite, "clang", T_HOST | T_CLANG, setup, teardown, 120);
  tcase_add_test(tc, clang_kernel_values);
  tcase_add_test(tc, clang_math_without_pointers);
  tcase_add_test(tc, clang_printf_values);
  /* libdevice is libNVVM's */
  tc = t_tcase(suite, "libdevice", T_HOST | T_NVVM | T_CLANG, setup, teardown, 120);
  tcase_add_test(tc, clang_kernel_calls_libdevice);
  tc = t_tcase(suite, "llvm_forms", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, llvm_forms_values);
  tcase_add_test(tc, rustc_kernel_values);
  tcase_add_test(tc, printf_as_cuda_prints);
  tcase_add_test(tc, trap_fails_the_launch);
  tc = t_tcase(suite, "dialects", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, dialects_linked);
  tc = t_tcase(suite, "mlir", T_HOST | T_MLIR, setup, teardown, 120);
  tcase_add_test(tc, mlir_kernel_values);
  tcase_add_test(tc, mlir_assert_fails_the_launch);
  tc = t_tcase(suite, "refused", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, triton_inline_ptx_refused);
  tcase_add_test(tc, triton_intrinsics_refused);
  tcase_add_test(tc, address_spaces_refused);
  tcase_add_test(tc, libc_refused);
  return suite;
}

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"modern", suite_modern}};
  return t_main(argc, argv, suites, 1);
}
