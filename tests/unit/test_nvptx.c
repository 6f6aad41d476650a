/* test_nvptx.c - LLVM 22's NVPTX backend (libcuplug-nvptx.so) as a
 * toolkit library: modern IR to PTX, in a helper process or, for a
 * trusted session, here; LLVM's errors, fatal ones included, as cuplug's.
 *
 * It needs no CUDA (only libdevice's cases need the toolkit, for the file):
 * its cases also pass in unit.notoolkit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/compilers/nvptx.h"
#include "plugin/helper/run.h"
#include "plugin/toolkit/tool.h"
#include "support.h"

static cuplug__toolkit tk;
static cuplug__runner runner;

static void start(bool in_process) {
  T_ASSERT_OK(cuplug__toolkit_init(&tk, NULL));
  cuplug__runner_init(&runner, &tk, in_process, 0);
}

static void stop(void) {
  cuplug__runner_release(&runner);
  cuplug__toolkit_release(&tk);
}

/* Cases that change where the library or the helper is found: what the
 * test's environment said, put back after each (cases run in one process
 * where there is a GPU). */
static char *library_env, *helper_env;

static void restore(const char *name, char **saved) {
  if (*saved) setenv(name, *saved, 1);
  else unsetenv(name);
  free(*saved);
  *saved = NULL;
}

static void setup(void) {
  const char *library = getenv("CUPLUG_NVPTX_LIBRARY"), *helper = getenv("CUPLUG_HELPER");
  library_env = library ? strdup(library) : NULL;
  helper_env = helper ? strdup(helper) : NULL;
  start(false);
}

static void teardown(void) {
  stop();
  restore("CUPLUG_NVPTX_LIBRARY", &library_env);
  restore("CUPLUG_HELPER", &helper_env);
}

/* Options for cc 9.0 at -O3, keeping `entry`. */
static cuplug__nvptx_options options(const char *suffix, const char *const *entry) {
  cuplug__nvptx_options o = {.cc_major = 9, .cc_minor = 0, .opt = 3, .keep = entry,
                             .num_keep = entry ? 1 : 0, .name = "test.ll"};
  snprintf(o.cc_suffix, sizeof o.cc_suffix, "%s", suffix);
  return o;
}

/* PTX of `ir` (text), which must compile; the log is dropped. */
static char *ptx_of(const char *ir, const cuplug__nvptx_options *o) {
  char *ptx = NULL, *log = NULL;
  size_t size = 0;
  T_ASSERT_OK(cuplug__nvptx_compile(&runner, ir, strlen(ir), o, &ptx, &size, &log));
  ck_assert_uint_eq(size, strlen(ptx));
  free(log);
  return ptx;
}

static char *fixture_ptx(const char *name, const cuplug__nvptx_options *o) {
  char rel[128];
  snprintf(rel, sizeof rel, "triton/fixtures/%s.ll", name);
  char *ir = t_read(t_path(rel), NULL);
  char *ptx = ptx_of(ir, o);
  free(ir);
  return ptx;
}

static cuplug_error *compile_error(const char *ir, const cuplug__nvptx_options *o) {
  char *ptx = NULL, *log = NULL;
  size_t size = 0;
  cuplug_error *e = cuplug__nvptx_compile(&runner, ir, strlen(ir), o, &ptx, &size, &log);
  ck_assert_ptr_null(ptx);
  return e;
}

static void assert_lacks(const char *ptx, const char *what) {
  ck_assert_msg(strstr(ptx, what) == NULL, "'%s' found in:\n%s", what, ptx);
}

/* A kernel of today's dialect, as clang or MLIR write it. */
static const char fma_kernel[] =
    "define ptx_kernel void @axpy(ptr addrspace(1) %out, float %a, float %x, float %y) {\n"
    "  %m = fmul float %a, %x\n"
    "  %s = fadd float %m, %y\n"
    "  store float %s, ptr addrspace(1) %out\n"
    "  ret void\n"
    "}\n";

/* ---- modern IR to PTX ---- */

START_TEST(triton_add) {
  cuplug__nvptx_options o = options("a", NULL);
  char *ptx = fixture_ptx("add", &o);
  T_ASSERT_CONTAINS(ptx, "\n.version 9.0\n.target sm_90a\n.address_size 64\n");
  T_ASSERT_CONTAINS(ptx, "\n.visible .entry add_kernel(\n");
  T_ASSERT_CONTAINS(ptx, "\n.reqntid 128\n");
  assert_lacks(ptx, ", debug");
  assert_lacks(ptx, ".loc");
  free(ptx);
}
END_TEST

START_TEST(triton_softmax) {
  cuplug__nvptx_options o = options("a", NULL);
  char *ptx = fixture_ptx("softmax", &o);
  T_ASSERT_CONTAINS(ptx, "\n.target sm_90a\n");
  T_ASSERT_CONTAINS(ptx, "\n.visible .entry softmax_kernel(\n");
  free(ptx);
}
END_TEST

/* Triton's IR carries line tables: lineinfo keeps them without the
 * `, debug` that makes the driver compile debug code; only debug says it. */
START_TEST(line_tables_are_not_debug_code) {
  cuplug__nvptx_options o = options("a", NULL);
  o.lineinfo = true;
  char *ptx = fixture_ptx("add", &o);
  T_ASSERT_CONTAINS(ptx, "\n.target sm_90a\n");
  T_ASSERT_CONTAINS(ptx, "\t.loc\t1 15 25\n");
  free(ptx);
  o.lineinfo = false;
  o.debug = true;
  ptx = fixture_ptx("add", &o);
  T_ASSERT_CONTAINS(ptx, "\n.target sm_90a, debug\n");
  free(ptx);
}
END_TEST

START_TEST(multiply_add_fuses) {
  /* as libNVVM's default -fma=1: one fma.rn, which ptxas would not make of
   * mul.rn and add.rn */
  cuplug__nvptx_options o = options("", NULL);
  char *ptx = ptx_of(fma_kernel, &o);
  T_ASSERT_CONTAINS(ptx, "\tfma.rn.f32 \t");
  assert_lacks(ptx, "mul.rn.f32");
  free(ptx);
}
END_TEST

START_TEST(reflect_folds_the_arch) {
  static const char ir[] =
      "@arch = private unnamed_addr constant [12 x i8] c\"__CUDA_ARCH\\00\"\n"
      "declare i32 @__nvvm_reflect(ptr)\n"
      "define ptx_kernel void @arch_of(ptr addrspace(1) %out) {\n"
      "  %v = call i32 @__nvvm_reflect(ptr @arch)\n"
      "  store i32 %v, ptr addrspace(1) %out\n"
      "  ret void\n"
      "}\n";
  cuplug__nvptx_options o = options("", NULL);
  char *ptx = ptx_of(ir, &o);
  T_ASSERT_CONTAINS(ptx, "\n.target sm_90\n");
  T_ASSERT_CONTAINS(ptx, "], 900;\n");
  free(ptx);
  o.cc_major = 10;
  snprintf(o.cc_suffix, sizeof o.cc_suffix, "a");
  ptx = ptx_of(ir, &o);
  T_ASSERT_CONTAINS(ptx, "\n.target sm_100a\n");
  T_ASSERT_CONTAINS(ptx, "], 1000;\n");
  free(ptx);
}
END_TEST

START_TEST(internalize_keeps_the_entries) {
  static const char ir[] =
      "define i32 @twice(i32 %x) noinline {\n"
      "  %y = add i32 %x, %x\n"
      "  ret i32 %y\n"
      "}\n"
      "define i32 @entry(i32 %x) noinline {\n"
      "  %y = call i32 @twice(i32 %x)\n"
      "  ret i32 %y\n"
      "}\n";
  const char *const entry[] = {"entry"};
  cuplug__nvptx_options o = options("", entry);
  char *ptx = ptx_of(ir, &o);
  T_ASSERT_CONTAINS(ptx, "\n.visible .func  (.param .b32 func_retval0) entry(\n");
  assert_lacks(ptx, ".visible .func  (.param .b32 func_retval0) twice(");
  free(ptx);
}
END_TEST

START_TEST(typed_text_is_upgraded) {
  /* numba-cuda's dialect: typed pointers, the "kernel" annotation */
  static const char ir[] =
      "define void @old(i32* %p) {\n"
      "  store i32 7, i32* %p\n"
      "  ret void\n"
      "}\n"
      "!nvvm.annotations = !{!0}\n"
      "!0 = !{void (i32*)* @old, !\"kernel\", i32 1}\n";
  cuplug__nvptx_options o = options("", NULL);
  char *ptx = ptx_of(ir, &o);
  T_ASSERT_CONTAINS(ptx, "\n.visible .entry old(\n");
  free(ptx);
}
END_TEST

/* ---- libdevice ---- */

static const char sin_kernel[] =
    "declare float @__nv_sinf(float)\n"
    "define ptx_kernel void @sine(ptr addrspace(1) %out, float %x) {\n"
    "  %s = call float @__nv_sinf(float %x)\n"
    "  store float %s, ptr addrspace(1) %out\n"
    "  ret void\n"
    "}\n";

START_TEST(libdevice_only_where_used) {
  /* at -O0 nothing removes what is not called: had libdevice come whole,
   * its 350 functions would be in the PTX */
  cuplug__nvptx_options o = options("", NULL);
  o.libdevice = true;
  o.opt = 0;
  char *ptx = ptx_of(sin_kernel, &o);
  T_ASSERT_CONTAINS(ptx, "\n.global .align 4 .b8 __cudart_i2opi_f[24] = ");
  assert_lacks(ptx, "__nv_");
  assert_lacks(ptx, "__cudart_i2opi_d");
  free(ptx);
}
END_TEST

START_TEST(fastmath_is_libnvvms) {
  /* __nv_sqrtf rounds unless fastmath, as libNVVM's -prec-sqrt says
   * (LLVM's own reflect would make it approximate); fastmath flushes
   * subnormals and approximates division */
  static const char ir[] =
      "declare float @__nv_sqrtf(float)\n"
      "define ptx_kernel void @root(ptr addrspace(1) %out, float %x, float %y) {\n"
      "  %r = call float @__nv_sqrtf(float %x)\n"
      "  %q = fdiv float %r, %y\n"
      "  store float %q, ptr addrspace(1) %out\n"
      "  ret void\n"
      "}\n";
  cuplug__nvptx_options o = options("", NULL);
  o.libdevice = true;
  char *ptx = ptx_of(ir, &o);
  T_ASSERT_CONTAINS(ptx, "\tsqrt.rn.f32 \t");
  T_ASSERT_CONTAINS(ptx, "\tdiv.rn.f32 \t");
  free(ptx);
  o.fastmath = true;
  ptx = ptx_of(ir, &o);
  T_ASSERT_CONTAINS(ptx, "\tsqrt.approx.ftz.f32 \t");
  T_ASSERT_CONTAINS(ptx, "\tdiv.approx.ftz.f32 \t");
  free(ptx);
}
END_TEST

/* ---- errors ---- */

static const char tcgen05_kernel[] =
    "declare void @llvm.nvvm.tcgen05.fence.before.thread.sync()\n"
    "define ptx_kernel void @fence() {\n"
    "  call void @llvm.nvvm.tcgen05.fence.before.thread.sync()\n"
    "  ret void\n"
    "}\n";

START_TEST(fatal_error_ends_only_the_helper) {
  /* LLVM cannot select this on sm_90, and ends the process that tried */
  cuplug__nvptx_options o = options("", NULL);
  for (int round = 0; round < 2; round++) {
    T_ASSERT_ERROR(compile_error(tcgen05_kernel, &o), CUPLUG_ERR_NVPTX,
                   "LLVM's NVPTX backend stopped on a fatal error: Cannot select: intrinsic "
                   "%llvm.nvvm.tcgen05.fence.before.thread.sync (its helper process went with "
                   "it; the next call starts a fresh one)");
    ck_assert_uint_eq(cuplug__helpers_idle(&runner.helpers), 0);
    char *ptx = ptx_of(fma_kernel, &o);
    T_ASSERT_CONTAINS(ptx, ".visible .entry axpy(");
    free(ptx);
    ck_assert_uint_eq(cuplug__helpers_idle(&runner.helpers), 1);
  }
  o.cc_major = 10;
  snprintf(o.cc_suffix, sizeof o.cc_suffix, "a");
  char *ptx = ptx_of(tcgen05_kernel, &o);
  T_ASSERT_CONTAINS(ptx, "\ttcgen05.fence::before_thread_sync;\n");
  free(ptx);
}
END_TEST

START_TEST(error_diagnostic_fails_the_compile) {
  /* LLVM reports the constraint and goes on to write PTX */
  static const char ir[] =
      "define ptx_kernel void @bad(ptr addrspace(1) %p) {\n"
      "  %v = call i32 asm \"mov.u32 $0, 1;\", \"=z\"()\n"
      "  store i32 %v, ptr addrspace(1) %p\n"
      "  ret void\n"
      "}\n";
  cuplug__nvptx_options o = options("", NULL);
  cuplug_error *e = compile_error(ir, &o);
  T_ASSERT_CODE(e, CUPLUG_ERR_NVPTX);
  ck_assert_str_eq(t_api()->error_log(e),
                   "error: couldn't allocate output register for constraint 'z'\n");
  T_ASSERT_ERROR(e, CUPLUG_ERR_NVPTX,
                 "LLVM's NVPTX backend failed to compile test.ll: couldn't allocate output "
                 "register for constraint 'z'");
}
END_TEST

START_TEST(bad_input) {
  cuplug__nvptx_options o = options("", NULL);
  T_ASSERT_ERROR(compile_error("define void @f(i32 %x {\n", &o), CUPLUG_ERR_IR_PARSE,
                 "LLVM 22 cannot read test.ll: test.ll:1:23: error: expected ')' at end of "
                 "argument list");
  T_ASSERT_ERROR(compile_error("target triple = \"x86_64-pc-linux-gnu\"\n", &o),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "test.ll is for x86_64-pc-linux-gnu, not nvptx64-nvidia-cuda: LLVM's NVPTX "
                 "backend compiles device code for 64-bit CUDA");
  T_ASSERT_ERROR(compile_error("define i32 @f() {\n  ret i64 0\n}\n", &o), CUPLUG_ERR_IR_PARSE,
                 "LLVM 22 cannot read test.ll: test.ll:2:7: error: value doesn't match "
                 "function result type 'i32'");
  T_ASSERT_ERROR(compile_error("define i32 @f() {\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n"
                               "  ret i32 %a\n}\n",
                               &o),
                 CUPLUG_ERR_IR_INVALID,
                 "test.ll is not valid IR: Instruction does not dominate all uses!");
  o.cc_major = 13;
  T_ASSERT_ERROR(compile_error(fma_kernel, &o), CUPLUG_ERR_OPTION_CC,
                 "LLVM 22's NVPTX backend has no processor sm_130 (it knows sm_20 to sm_121f)");
}
END_TEST

START_TEST(missing_library) {
  stop();
  setenv("CUPLUG_NVPTX_LIBRARY", "/nonexistent/libcuplug-nvptx.so", 1);
  start(false);
  cuplug__nvptx_options o = options("", NULL);
  T_ASSERT_ERROR(compile_error(fma_kernel, &o), CUPLUG_ERR_NVPTX_NOT_FOUND,
                 "LLVM's NVPTX backend (libcuplug-nvptx.so) cannot be loaded: "
                 "/nonexistent/libcuplug-nvptx.so: cannot open shared object file: No such "
                 "file or directory");
}
END_TEST

/* ---- where it runs ---- */

START_TEST(trusted_session_runs_it_here) {
  stop();
  setenv("CUPLUG_HELPER", "/nonexistent/cuplug-helper", 1);
  start(true);
  cuplug__nvptx_options o = options("a", NULL);
  char *ptx = fixture_ptx("softmax", &o);
  T_ASSERT_CONTAINS(ptx, "\n.visible .entry softmax_kernel(\n");
  free(ptx);
}
END_TEST

START_TEST(info_names_llvm) {
  cuplug_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->get_info(&i));
  ck_assert_str_eq(i.llvm_version, "22.1.8");
  ck_assert_str_eq(i.nvptx_status, "ok");
}
END_TEST

/* ---- the PTX, to nvJitLink and the GPU ---- */

static char *cubin_of(const char *ptx, const char *arch, size_t *size) {
  const char *opts[] = {arch};
  cuplug__tool_input in = {CUPLUG__NVJL_PTX, "add.ptx", ptx, strlen(ptx)};
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVJITLINK, .options = opts, .num_options = 1,
                          .inputs = &in, .num_inputs = 1};
  cuplug__tool_output out;
  T_ASSERT_OK(cuplug__run(&runner, &job, 0, &out));
  free(out.log);
  *size = out.size;
  return out.data;
}

START_TEST(nvjitlink_takes_the_ptx) {
  /* PTX ISA 9.0, for an arch-specific target and a family one */
  cuplug__nvptx_options o = options("a", NULL);
  char *ptx = fixture_ptx("add", &o);
  size_t size;
  char *cubin = cubin_of(ptx, "-arch=sm_90a", &size);
  ck_assert_mem_eq(cubin, "\177ELF", 4);
  free(cubin);
  free(ptx);
  o.cc_major = 10;
  snprintf(o.cc_suffix, sizeof o.cc_suffix, "f");
  ptx = fixture_ptx("add", &o);
  T_ASSERT_CONTAINS(ptx, "\n.target sm_100f\n");
  cubin = cubin_of(ptx, "-arch=sm_100f", &size);
  ck_assert_mem_eq(cubin, "\177ELF", 4);
  free(cubin);
  free(ptx);
}
END_TEST

/* Triton's add_kernel, compiled here for the device: out = x + y, n not a
 * multiple of its 1024-element blocks; its two scratch pointers NULL. */
START_TEST(triton_add_runs) {
  const cuplug__driver_api *cu;
  T_ASSERT_OK(cuplug__toolkit_driver(&tk, &cu));
  int major, minor;
  T_ASSERT_OK(cuplug__toolkit_current_cc(&tk, &major, &minor));
  cuplug__nvptx_options o = options(major >= 9 ? "a" : "", NULL);
  o.cc_major = (uint32_t)major;
  o.cc_minor = (uint32_t)minor;
  char *ptx = fixture_ptx("add", &o);
  char arch[32];
  snprintf(arch, sizeof arch, "-arch=sm_%d%d%s", major, minor, o.cc_suffix);
  size_t size;
  char *cubin = cubin_of(ptx, arch, &size);
  cuplug__cu_device dev;
  cuplug__cu_ctx ctx;
  ck_assert_int_eq(cu->device_get(&dev, 0), 0);
  ck_assert_int_eq(cu->primary_ctx_retain(&ctx, dev), 0);
  ck_assert_int_eq(cu->ctx_set_current(ctx), 0);
  cuplug__cu_library lib;
  cuplug__cu_kernel kernel;
  ck_assert_int_eq(cu->library_load_data(&lib, cubin, NULL, NULL, 0, NULL, NULL, 0), 0);
  ck_assert_int_eq(cu->library_get_kernel(&kernel, lib, "add_kernel"), 0);
  enum { N = 3000 };
  static float x[N], y[N], sum[N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f, y[i] = 1.0f / (float)(i + 1);
  cuplug__cu_ptr dx, dy, dout;
  ck_assert_int_eq(cu->mem_alloc(&dx, sizeof x) | cu->mem_alloc(&dy, sizeof y) |
                       cu->mem_alloc(&dout, sizeof sum),
                   0);
  ck_assert_int_eq(cu->memcpy_htod(dx, x, sizeof x) | cu->memcpy_htod(dy, y, sizeof y), 0);
  int n = N;
  void *null = NULL;
  void *params[] = {&dx, &dy, &dout, &n, &null, &null};
  ck_assert_int_eq(cu->launch_kernel(kernel, (N + 1023) / 1024, 1, 1, 128, 1, 1, 0, NULL, params,
                                     NULL),
                   0);
  ck_assert_int_eq(cu->ctx_synchronize(), 0);
  ck_assert_int_eq(cu->memcpy_dtoh(sum, dout, sizeof sum), 0);
  for (int i = 0; i < N; i++) ck_assert_float_eq(sum[i], x[i] + y[i]);
  cu->mem_free(dx);
  cu->mem_free(dy);
  cu->mem_free(dout);
  cu->library_unload(lib);
  cu->ctx_set_current(NULL);
  cu->primary_ctx_release(dev);
  free(cubin);
  free(ptx);
}
END_TEST

Suite *suite_nvptx(void) {
  Suite *s = suite_create("nvptx");
  TCase *tc = t_tcase(s, "modern_ir", 0, setup, teardown, 120);
  tcase_add_test(tc, triton_add);
  tcase_add_test(tc, triton_softmax);
  tcase_add_test(tc, line_tables_are_not_debug_code);
  tcase_add_test(tc, multiply_add_fuses);
  tcase_add_test(tc, reflect_folds_the_arch);
  tcase_add_test(tc, internalize_keeps_the_entries);
  tcase_add_test(tc, typed_text_is_upgraded);
  tc = t_tcase(s, "libdevice", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, libdevice_only_where_used);
  tcase_add_test(tc, fastmath_is_libnvvms);
  tc = t_tcase(s, "errors", 0, setup, teardown, 120);
  tcase_add_test(tc, fatal_error_ends_only_the_helper);
  tcase_add_test(tc, error_diagnostic_fails_the_compile);
  tcase_add_test(tc, bad_input);
  tcase_add_test(tc, missing_library);
  tc = t_tcase(s, "where", 0, setup, teardown, 120);
  tcase_add_test(tc, trusted_session_runs_it_here);
  tcase_add_test(tc, info_names_llvm);
  tc = t_tcase(s, "nvjitlink", T_NVJITLINK, setup, teardown, 120);
  tcase_add_test(tc, nvjitlink_takes_the_ptx);
  tc = t_tcase(s, "gpu", T_NVJITLINK | T_GPU, setup, teardown, 120);
  tcase_add_test(tc, triton_add_runs);
  return s;
}
