/* test_backends.c - one compile call for every dialect (issue 20): which
 * backend takes which IR and output, and what each makes.
 *
 *   numba-cuda's typed text     libNVVM by default; the NVPTX backend asked
 *   modern text, bitcode        the NVPTX backend for PTX and cubins;
 *                               libNVVM for LTO-IR at cc 10.0 and up
 *   anything, output host       the CPU target
 *
 * The corpus (numba-cuda's own IR and PTX) and Triton 3.6's LLIR
 * (tests/triton/fixtures) are the inputs.  LLVM's NVPTX backend,
 * libcuplug-nvptx.so, is part of every build: its cases need no toolkit
 * (libdevice aside). */
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitcode_of.h"
#include "ptxsig.h"
#include "support.h"

static cuplug_session *session;
static t_case *cases;
static int num_cases;

static void setup(void) {
  session = t_session();
  num_cases = t_cases(&cases);
}

static void teardown(void) {
  t_api()->session_destroy(session);
  t_cases_free(cases, num_cases);
}

/* A compile of one module (text or bytes), its arguments otherwise zero. */
typedef struct one {
  cuplug_module m;
  const cuplug_module *mods[1];
  cuplug_compile_args a;
} one;

static void one_init(one *o, const char *name, const void *ir, size_t size, const char *entry) {
  o->m = (cuplug_module){sizeof o->m, name, ir, size};
  o->mods[0] = &o->m;
  o->a = (cuplug_compile_args){.struct_size = sizeof o->a, .session = session,
                               .modules = o->mods, .num_modules = 1, .entry = entry};
}

/* The same, for a kernel built for cc 9.0 (the H200's). */
static void kernel_init(one *o, const char *name, const void *ir, size_t size, const char *entry) {
  one_init(o, name, ir, size, entry);
  o->a.kind = CUPLUG_KERNEL;
  o->a.cc_major = 9;
}

static char *triton(const char *kernel, size_t *size) {
  char path[256];
  snprintf(path, sizeof path, "triton/fixtures/%s.ll", kernel);
  char *ir = t_read(t_path(path), size);
  ck_assert_msg(ir != NULL, "no %s", path);
  return ir;
}

static cuplug_artifact_info info_of(const cuplug_artifact *art) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->artifact_info(art, &i));
  return i;
}

/* LLVM bitcode of IR text, written by the test's own LLVM. */
static char *bitcode_of(const char *ir, size_t n, size_t *size) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, n, "ir");
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(!LLVMParseIRInContext(ctx, buf, &m, &msg), "%s", msg);
  return t_bitcode_of_module(ctx, m, size);
}

/* ---- the choice of backend: errors before any work ---- */

START_TEST(backend_choice_errors) {
  const char *typed = "define i32 @f(i32* %r, i32 %a) {\n  ret i32 0\n}\n";
  one o;
  one_init(&o, "f.ll", typed, strlen(typed), "f");
  o.a.signature = "int32(int32)";
  o.a.backend = (cuplug_backend)7;
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_OPTION_BACKEND,
                 "Unsupported backend: 7 (libnvvm or llvm)");
  o.a.backend = CUPLUG_BACKEND_LLVM;
  o.a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_OPTION_BACKEND,
                 "backend llvm makes GPU code: output host compiles for this CPU with LLVM's "
                 "own backend; leave backend unset");
  o.a.output = CUPLUG_OUTPUT_LTOIR;
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_OPTION_BACKEND,
                 "LLVM's NVPTX backend makes PTX and cubins, not LTO-IR: ask for output ptx or "
                 "cubin, or the libnvvm backend for LTO-IR");
  /* compile_all makes LTO-IR by default */
  o.a.output = CUPLUG_OUTPUT_DEFAULT;
  cuplug_error *e = t_api()->compile_all(&o.a);
  T_ASSERT_CODE(e, CUPLUG_ERR_OPTION_BACKEND);
  t_api()->error_destroy(e);
}
END_TEST

/* A kernel the IR marks, with no signature: the IR's parameters say it. */
START_TEST(signature_from_ir) {
  size_t n;
  char *ir = triton("add", &n);
  one o;
  kernel_init(&o, "add.ll", ir, n, "add_kernel");
  o.a.cc_suffix = 'a';
  T_ASSERT_OK(t_api()->compile(&o.a));
  cuplug_artifact_info i = info_of(o.a.artifact);
  ck_assert_int_eq(i.backend, CUPLUG_BACKEND_LLVM);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_PTX);
  cuplug_type_info ti = {.struct_size = sizeof ti, .type = i.signature};
  T_ASSERT_OK(t_api()->type_info(&ti));
  ck_assert_str_eq(ti.name, "void(CPointer(uint8), CPointer(uint8), CPointer(uint8), int32, "
                            "CPointer(uint8), CPointer(uint8))");
  const char *ptx = i.data;
  T_ASSERT_CONTAINS(ptx, ".visible .entry add_kernel(");
  T_ASSERT_CONTAINS(ptx, "\n.target sm_90a\n");
  t_api()->artifact_destroy(o.a.artifact);
  /* a struct passed by value (clang's byval) has no signature type yet:
   * launched as the pointer its IR type says, it would be read past */
  const char *byval = "%S = type { i32, i32, i32, i32 }\n"
                      "define ptx_kernel void @k(ptr byval(%S) align 4 %s) {\n"
                      "  ret void\n"
                      "}\n";
  kernel_init(&o, "byval.ll", byval, strlen(byval), "k");
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_IR_UNSUPPORTED,
                 "kernel @k takes parameter 0 (%s) by value (byval, a struct): cuplug's "
                 "signatures have no struct type to launch it with yet");
  /* a device function has no signature in the IR to read */
  one_init(&o, "add.ll", ir, n, "add_kernel");
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_OPTION_KIND,
                 "@add_kernel is a kernel in the IR (ptx_kernel): compile it as a kernel");
  free(ir);
}
END_TEST

/* A C-ABI device function of text that holds no pointer, compiled by
 * default (to PTX, the NVPTX backend taking modern text); o keeps the
 * artifact. */
static cuplug_artifact_info pointer_free_ptx(one *o, const char *name, const char *ir,
                                             const char *entry, const char *sig) {
  one_init(o, name, ir, strlen(ir), entry);
  o->a.signature = sig;
  o->a.entry_abi = CUPLUG_ABI_C;
  T_ASSERT_OK(t_api()->compile(&o->a));
  cuplug_artifact_info i = info_of(o->a.artifact);
  ck_assert_int_eq(i.backend, CUPLUG_BACKEND_LLVM);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_PTX);
  return i;
}

/* clang -g's device function of no pointer is modern by its debug record
 * (#dbg_value), and the NVPTX backend reads it: LLVM 7's reader in libNVVM
 * would stop at the record with "expected instruction opcode". */
START_TEST(debug_records_without_pointers) {
  static const char ir[] =
      "define float @triple(float %x) !dbg !4 {\n"
      "    #dbg_value(float %x, !5, !DIExpression(), !7)\n"
      "  %y = fmul float %x, 3.0, !dbg !7\n"
      "  ret float %y, !dbg !7\n"
      "}\n"
      "!llvm.module.flags = !{!0}\n"
      "!llvm.dbg.cu = !{!1}\n"
      "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"
      "!1 = distinct !DICompileUnit(language: DW_LANG_C, file: !2, emissionKind: FullDebug)\n"
      "!2 = !DIFile(filename: \"t.c\", directory: \"/\")\n"
      "!3 = !DISubroutineType(types: !{})\n"
      "!4 = distinct !DISubprogram(name: \"triple\", scope: !2, file: !2, line: 1, type: !3, "
      "unit: !1, spFlags: DISPFlagDefinition)\n"
      "!5 = !DILocalVariable(name: \"x\", arg: 1, scope: !4, file: !2, line: 1, type: !6)\n"
      "!6 = !DIBasicType(name: \"float\", size: 32, encoding: DW_ATE_float)\n"
      "!7 = !DILocation(line: 2, scope: !4)\n";
  one o;
  cuplug_artifact_info i = pointer_free_ptx(&o, "triple.ll", ir, "triple", "float32(float32)");
  T_ASSERT_CONTAINS(i.data, ".visible .func  (.param .b32 func_retval0) triple(\n"
                            "\t.param .b32 triple_param_0\n)");
  T_ASSERT_CONTAINS(i.data, "\tmul.f32 \t%r2, %r1, 0f40400000;\n"); /* x * 3.0 */
  t_api()->artifact_destroy(o.a.artifact);
}
END_TEST

/* clang -O2's device function of numbers only (clang-22 -x cuda
 * --cuda-device-only -emit-llvm -S -O2, trimmed): no pointer, yet modern by
 * its numbered parameters, its flag (`or disjoint`) and its call of
 * llvm.abs, none of which LLVM 7's reader in libNVVM takes ("expected ')'
 * at end of argument list" was all a user saw).  The NVPTX backend builds
 * it; LTO-IR, which libNVVM makes of modern IR from cc 10.0, is refused
 * for an older cc with the reason. */
START_TEST(numbers_only_from_a_modern_producer) {
  static const char ir[] =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none)\n"
      "define dso_local range(i32 0, -2) i32 @dist(i32 noundef %0, i32 noundef %1) "
      "local_unnamed_addr #0 {\n"
      "  %3 = sub nsw i32 %0, %1\n"
      "  %4 = tail call i32 @llvm.abs.i32(i32 %3, i1 true)\n"
      "  %5 = shl i32 %4, 2\n"
      "  %6 = and i32 %0, 1\n"
      "  %7 = or disjoint i32 %5, %6\n"
      "  ret i32 %7\n"
      "}\n"
      "declare i32 @llvm.abs.i32(i32, i1 immarg)\n"
      "attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) }\n";
  one o;
  cuplug_artifact_info i = pointer_free_ptx(&o, "dist.ll", ir, "dist", "int32(int32, int32)");
  T_ASSERT_CONTAINS(i.data, ".visible .func  (.param .b32 func_retval0) dist(\n"
                            "\t.param .b32 dist_param_0,\n\t.param .b32 dist_param_1\n)");
  T_ASSERT_CONTAINS(i.data, "\tabs.s32 \t%r4, %r3;\n");
  T_ASSERT_CONTAINS(i.data, "\tor.b32 \t%r7, %r5, %r6;\n");
  t_api()->artifact_destroy(o.a.artifact);
  o.a.output = CUPLUG_OUTPUT_LTOIR;
  o.a.cc_major = 9;
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_OPTION_BACKEND,
                 "libNVVM reads modern IR (LLVM 15 and later's text, or bitcode) only for cc "
                 "10.0 and up, not 9.0: compile it to ptx or cubin with the llvm backend");
}
END_TEST

/* Every corpus case through the NVPTX backend keeps numba-cuda's PTX
 * signature: the C-ABI wrapper's and the kernels' parameters. */
START_TEST(corpus_on_nvptx) {
  for (int c = 0; c < num_cases; c++) {
    cuplug_module m = {sizeof m, "input.ll", cases[c].ir, cases[c].ir_size};
    const cuplug_module *mods[1] = {&m};
    cuplug_compile_args a;
    t_case_declare(&cases[c], session);
    t_case_args(&cases[c], session, mods, &a);
    a.backend = CUPLUG_BACKEND_LLVM;
    a.output = CUPLUG_OUTPUT_PTX;
    a.cc_major = 9;
    cuplug_error *e = t_api()->compile(&a);
    ck_assert_msg(!e, "%s: %s", cases[c].name, e ? t_api()->error_message(e) : "");
    cuplug_artifact_info i = info_of(a.artifact);
    char path[9000];
    snprintf(path, sizeof path, "%s/expected.ptx", cases[c].dir);
    char *expected = t_read(path, NULL);
    ptxsig want, got;
    /* numba-cuda's kernel names carry a counter of its own run: its one .entry */
    const char *name = cases[c].kernel ? NULL : i.symbol;
    ck_assert_msg(ptxsig_read(expected, name, &want), "%s: no %s in expected.ptx", cases[c].name,
                  i.symbol);
    ck_assert_msg(ptxsig_read(i.data, i.symbol, &got), "%s: no %s in:\n%s", cases[c].name,
                  i.symbol, (const char *)i.data);
    char w[2048], g[2048];
    ptxsig_format(&want, w, sizeof w);
    ptxsig_format(&got, g, sizeof g);
    ck_assert_msg(ptxsig_same(&want, &got), "%s: numba-cuda's %s, the NVPTX backend's %s",
                  cases[c].name, w, g);
    free(expected);
    t_api()->artifact_destroy(a.artifact);
  }
}
END_TEST

/* The same kernel as text and as bitcode: the same PTX. */
START_TEST(bitcode_input) {
  size_t n, bn;
  char *ir = triton("softmax", &n);
  char *bc = bitcode_of(ir, n, &bn);
  const char *out[2];
  cuplug_artifact *arts[2];
  for (int k = 0; k < 2; k++) {
    one o;
    kernel_init(&o, k ? "softmax.bc" : "softmax.ll", k ? bc : ir, k ? bn : n, "softmax_kernel");
    T_ASSERT_OK(t_api()->compile(&o.a));
    arts[k] = o.a.artifact;
    out[k] = info_of(arts[k]).data;
  }
  ck_assert_str_eq(out[0], out[1]);
  for (int k = 0; k < 2; k++) t_api()->artifact_destroy(arts[k]);
  free(ir);
  free(bc);
}
END_TEST

/* LTO-IR from modern IR: libNVVM, for cc 10.0 and up, reads the module
 * cuplug writes in LLVM 20's dialect. */
START_TEST(modern_ltoir_by_libnvvm) {
  size_t n;
  char *ir = triton("softmax", &n);
  one o;
  one_init(&o, "softmax.ll", ir, n, "softmax_kernel");
  o.a.kind = CUPLUG_KERNEL;
  o.a.output = CUPLUG_OUTPUT_LTOIR;
  o.a.cc_major = 10;
  T_ASSERT_OK(t_api()->compile(&o.a));
  cuplug_artifact_info i = info_of(o.a.artifact);
  ck_assert_int_eq(i.backend, CUPLUG_BACKEND_LIBNVVM);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_LTOIR);
  ck_assert(i.size > 4 && memcmp(i.data, "\xed\x43\x4e\x7f", 4) == 0);
  t_api()->artifact_destroy(o.a.artifact);
  o.a.cc_major = 9;
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_OPTION_BACKEND,
                 "libNVVM reads modern IR (LLVM 15 and later's text, or bitcode) only for cc "
                 "10.0 and up, not 9.0: compile it to ptx or cubin with the llvm backend");
  free(ir);
}
END_TEST

/* A cubin through nvJitLink, and the cache's second answer. */
START_TEST(modern_cubin_cached) {
  cuplug_session_options so = {.struct_size = sizeof so, .cache_dir = ""};
  cuplug_session *s;
  T_ASSERT_OK(t_api()->session_create(&so, &s));
  size_t n;
  char *ir = triton("gelu", &n);
  for (int k = 0; k < 2; k++) {
    one o;
    one_init(&o, "gelu.ll", ir, n, "gelu_kernel");
    o.a.session = s;
    o.a.kind = CUPLUG_KERNEL;
    o.a.output = CUPLUG_OUTPUT_CUBIN;
    o.a.cc_major = 9;
    T_ASSERT_OK(t_api()->compile(&o.a));
    cuplug_artifact_info i = info_of(o.a.artifact);
    ck_assert_int_eq(i.output, CUPLUG_OUTPUT_CUBIN);
    ck_assert_int_eq(i.cache, k ? CUPLUG_CACHE_MEMORY : CUPLUG_CACHE_MISS);
    ck_assert_int_eq(i.backend, CUPLUG_BACKEND_LLVM);
    ck_assert(t_elf_has_symbol(i.data, i.size, "gelu_kernel"));
    t_api()->artifact_destroy(o.a.artifact);
  }
  free(ir);
  t_api()->session_destroy(s);
}
END_TEST

/* LLVM's code generator ends the process on what it cannot select: in the
 * helper, that is an error naming LLVM's reason, and the host goes on. */
START_TEST(codegen_fatal_error) {
  const char *ir =
      "target triple = \"nvptx64-nvidia-cuda\"\n"
      "define ptx_kernel void @fence() {\n"
      "  call void @llvm.nvvm.tcgen05.fence.before.thread.sync()\n"
      "  ret void\n"
      "}\n"
      "declare void @llvm.nvvm.tcgen05.fence.before.thread.sync()\n";
  one o;
  kernel_init(&o, "fence.ll", ir, strlen(ir), "fence");
  o.a.backend = CUPLUG_BACKEND_LLVM; /* text without pointers reads as either dialect */
  cuplug_error *e = t_api()->compile(&o.a);
  T_ASSERT_CODE(e, CUPLUG_ERR_NVPTX);
  T_ASSERT_CONTAINS(t_api()->error_message(e), "Cannot select");
  t_api()->error_destroy(e);
  size_t n;
  char *add = triton("add", &n);
  kernel_init(&o, "add.ll", add, n, "add_kernel");
  T_ASSERT_OK(t_api()->compile(&o.a));
  t_api()->artifact_destroy(o.a.artifact);
  free(add);
}
END_TEST

/* numba-cuda's atomic helpers, which its IR declares and its backend
 * defines, are defined on the NVPTX path too. */
START_TEST(numba_atomics_defined) {
  const char *ir =
      "define i32 @acc(i8** %ret, double* %p, double %v) {\n"
      "  %old = call double @___numba_atomic_double_sub(double* %p, double %v)\n"
      "  ret i32 0\n"
      "}\n"
      "declare double @___numba_atomic_double_sub(double*, double)\n";
  one o;
  one_init(&o, "acc.ll", ir, strlen(ir), "acc");
  o.a.kind = CUPLUG_KERNEL;
  o.a.signature = "void(CPointer(float64), float64)";
  o.a.backend = CUPLUG_BACKEND_LLVM;
  o.a.cc_major = 9;
  T_ASSERT_OK(t_api()->compile(&o.a));
  const char *ptx = info_of(o.a.artifact).data;
  ck_assert_msg(!strstr(ptx, "___numba_atomic"), "a helper left undefined:\n%s", ptx);
  T_ASSERT_CONTAINS(ptx, ".cas.b64");
  t_api()->artifact_destroy(o.a.artifact);
}
END_TEST

/* IR text as LLVM 22 prints it: numba-cuda's typed text upgraded to
 * opaque pointers, what a modern host would hand over. */
static char *upgraded(const char *ir, size_t n, size_t *size) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, n, "ir");
  LLVMModuleRef m;
  char *msg = NULL;
  ck_assert_msg(!LLVMParseIRInContext(ctx, buf, &m, &msg), "%s", msg);
  char *text = LLVMPrintModuleToString(m);
  char *out = strdup(text);
  *size = strlen(out);
  LLVMDisposeMessage(text);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return out;
}

/* Modern IR on the CPU: numba-cuda's add_i32 upgraded, compiled for the
 * host through LLVM, called through its C ABI; and the C-ABI wrapper's
 * PTX through the NVPTX backend. */
START_TEST(modern_on_the_cpu) {
  const t_case *c = t_case_named(cases, num_cases, "add_i32");
  size_t n;
  char *ir = upgraded(c->ir, c->ir_size, &n);
  ck_assert(strstr(ir, " ptr ") != NULL);
  cuplug_module m = {sizeof m, "add_i32.ll", ir, n};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, session, mods, &a);
  a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = a.artifact};
  T_ASSERT_OK(t_api()->load(&l));
  t_api()->artifact_destroy(a.artifact);
  int32_t x = 2147483647, y = 1;
  int64_t r = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_INT32, &x}, {CUPLUG_TYPE_INT32, &y}};
  cuplug_host_call_args call = {.struct_size = sizeof call, .library = l.library, .args = v,
                                .num_args = 2, .result = &r, .result_size = sizeof r};
  T_ASSERT_OK(t_api()->host_call(&call));
  ck_assert_int_eq(r, 2147483648LL); /* numba widens int32 + int32 to int64 */
  t_api()->library_unload(l.library);
  free(ir);
}
END_TEST

/* Triton's IR is PTX assembly inside: the CPU refuses it at load, naming
 * the assembly and its line. */
START_TEST(inline_ptx_on_the_cpu) {
  size_t n;
  char *ir = triton("add", &n);
  one o;
  one_init(&o, "add.ll", ir, n, "add_kernel");
  o.a.kind = CUPLUG_KERNEL;
  o.a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_OK(t_api()->compile(&o.a));
  cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = o.a.artifact};
  cuplug_error *e = t_api()->load(&l);
  T_ASSERT_CODE(e, CUPLUG_ERR_HOST_UNSUPPORTED);
  T_ASSERT_CONTAINS(t_api()->error_message(e), "inline PTX");
  T_ASSERT_CONTAINS(t_api()->error_message(e), "(add.ll:20)");
  t_api()->error_destroy(e);
  t_api()->artifact_destroy(o.a.artifact);
  free(ir);
}
END_TEST

/* LLVM's bitcode reader crashes on some malformed bitcode (fuzz_modern
 * found this input): cuplug reads bitcode's blocks through before LLVM
 * does (plugin/llvm/bitcode.c) and refuses what does not read as LLVM
 * writes it; what LLVM reads anyway it reads in a helper process, so that
 * a crash is an error naming the module, and the host goes on. */
START_TEST(bitcode_reader_crash) {
  size_t n;
  char *bytes = t_read(t_path("fuzz/regressions/modern/bitcode-reader-crash"), &n);
  ck_assert(bytes && n > 2);
  one o;
  kernel_init(&o, "bad.bc", bytes + 2, n - 2, "f"); /* past the harness's two choice bytes */
  T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_IR_PARSE,
                 "IR module bad.bc is malformed bitcode: its blocks do not read through as LLVM "
                 "writes them, and cuplug does not hand such bitcode to LLVM's reader (which "
                 "crashes on some)");
  o.a.output = CUPLUG_OUTPUT_HOST;
  cuplug_error *e = t_api()->compile(&o.a);
  T_ASSERT_CODE(e, CUPLUG_ERR_IR_PARSE);
  t_api()->error_destroy(e);
  free(bytes);
}
END_TEST

/* LLVM's bitcode reader crashing in the helper is malformed bitcode to the
 * caller, and the host goes on.  Fuzzing found bitcode that crashed it;
 * the host's own walk now refuses every such input known before the
 * helper sees it, so a helper that dies on its first job stands in. */
START_TEST(bitcode_reader_crash_in_the_helper) {
  const char *ir = "target triple = \"nvptx64-nvidia-cuda\"\n"
                   "define ptx_kernel void @k(ptr %p) {\n"
                   "  store i32 1, ptr %p\n"
                   "  ret void\n"
                   "}\n";
  size_t n;
  char *bc = bitcode_of(ir, strlen(ir), &n);
  char *real = strdup(getenv("CUPLUG_HELPER"));
  setenv("CUPLUG_HELPER", getenv("CUPLUG_FAKE_HELPER"), 1);
  setenv("FAKE_HELPER", "crash", 1);
  cuplug_session_options so = {.struct_size = sizeof so, .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&so, &s));
  one o;
  kernel_init(&o, "k.bc", bc, n, "k");
  o.a.session = s;
  for (int round = 0; round < 2; round++) /* a fresh helper each time */
    T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_IR_PARSE,
                   "IR module k.bc is malformed bitcode: LLVM's bitcode reader crashed on it "
                   "(in the helper process; the host goes on)");
  t_api()->session_destroy(s);
  setenv("CUPLUG_HELPER", real, 1);
  unsetenv("FAKE_HELPER");
  /* the same bytes with the real helper: they were never the trouble */
  kernel_init(&o, "k.bc", bc, n, "k");
  T_ASSERT_OK(t_api()->compile(&o.a));
  t_api()->artifact_destroy(o.a.artifact);
  free(real);
  free(bc);
}
END_TEST

/* An address space the backend lacks: LLVM's NVPTX backend would take it
 * as the generic one, silently; libNVVM lacks cluster shared memory (7). */
/* rustc 1.95's device function (rustc --target nvptx64-nvidia-cuda
 * --emit=llvm-ir -C opt-level=3, a #![no_core] crate: `pub extern "C" fn
 * axpy(a: f32, x: f32, y: f32) -> f32 { a * x + y }`), verbatim but for its
 * ident: no pointer and no mark of a modern producer, so libNVVM builds
 * it, with its attributes stripped and its module flag's behaviour (Min,
 * 8, LLVM 15's) made LLVM 7's Warning: libNVVM's verifier stopped at
 * "invalid behavior operand in module flag". */
START_TEST(rustc_function_through_libnvvm) {
  static const char ir[] =
      "; ModuleID = 'k.79f6e3749a3a7320-cgu.0'\n"
      "source_filename = \"k.79f6e3749a3a7320-cgu.0\"\n"
      "target datalayout = \"e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64\"\n"
      "target triple = \"nvptx64-nvidia-cuda\"\n\n"
      "; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(none)\n"
      "define noundef float @axpy(float noundef %a, float noundef %x, float noundef %y) "
      "unnamed_addr #0 {\n"
      "start:\n"
      "  %_4 = fmul float %a, %x\n"
      "  %_0 = fadd float %_4, %y\n"
      "  ret float %_0\n"
      "}\n\n"
      "attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(none) "
      "\"target-cpu\"=\"sm_30\" }\n\n"
      "!llvm.module.flags = !{!0}\n\n"
      "!0 = !{i32 8, !\"PIC Level\", i32 2}\n";
  for (int lto = 0; lto < 2; lto++) {
    one o;
    one_init(&o, "axpy.ll", ir, strlen(ir), "axpy");
    o.a.signature = "float32(float32, float32, float32)";
    o.a.entry_abi = CUPLUG_ABI_C;
    o.a.output = lto ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
    o.a.cc_major = 9;
    T_ASSERT_OK(t_api()->compile(&o.a));
    cuplug_artifact_info i = info_of(o.a.artifact);
    ck_assert_int_eq(i.backend, CUPLUG_BACKEND_LIBNVVM);
    if (!lto) T_ASSERT_CONTAINS(i.data, "fma.rn.f32"); /* a * x + y, fused as libNVVM does */
    t_api()->artifact_destroy(o.a.artifact);
  }
}
END_TEST

/* rustc 1.95's kernel (tests/rustc/saxpy.ll, LLVM 22's text): PTX through
 * the NVPTX backend, and LTO-IR through libNVVM at cc 10.0, whose LLVM 20
 * reader does not know LLVM 22's target memories in memory(...) (the
 * claim goes, which is safe). */
START_TEST(rustc_kernel) {
  size_t n;
  char *ir = t_read(t_path("rustc/saxpy.ll"), &n);
  T_ASSERT_CONTAINS(ir, "target_mem0: none");
  for (int lto = 0; lto < 2; lto++) {
    one o;
    kernel_init(&o, "saxpy.ll", ir, n, "saxpy");
    o.a.output = lto ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
    o.a.cc_major = lto ? 10 : 9;
    T_ASSERT_OK(t_api()->compile(&o.a));
    cuplug_artifact_info i = info_of(o.a.artifact);
    ck_assert_int_eq(i.backend, lto ? CUPLUG_BACKEND_LIBNVVM : CUPLUG_BACKEND_LLVM);
    if (!lto) T_ASSERT_CONTAINS(i.data, ".visible .entry saxpy(");
    t_api()->artifact_destroy(o.a.artifact);
  }
  free(ir);
}
END_TEST

START_TEST(address_spaces) {
  char ir[256];
  for (int k = 0; k < 2; k++) {
    snprintf(ir, sizeof ir,
             "define ptx_kernel void @k(ptr addrspace(%d) %%p) {\n"
             "  store i32 1, ptr addrspace(%d) %%p\n"
             "  ret void\n"
             "}\n",
             k ? 7 : 42, k ? 7 : 42);
    one o;
    one_init(&o, "spaces.ll", ir, strlen(ir), "k");
    o.a.kind = CUPLUG_KERNEL;
    o.a.cc_major = k ? 10 : 9;
    o.a.output = k ? CUPLUG_OUTPUT_LTOIR : CUPLUG_OUTPUT_PTX;
    T_ASSERT_ERROR(t_api()->compile(&o.a), CUPLUG_ERR_IR_UNSUPPORTED,
                   k ? "@k uses address space 7, which libNVVM lacks (it has generic 0, global "
                       "1, shared 3, constant 4, local 5)"
                     : "@k uses address space 42, which LLVM's NVPTX backend lacks (it has "
                       "generic 0, global 1, shared 3, constant 4, local 5, tensor memory 6, "
                       "cluster shared 7 and parameter 101)");
  }
}
END_TEST

Suite *suite_backends(void) {
  Suite *s = suite_create("backends");
  TCase *tc = t_tcase(s, "choice_errors", 0, setup, teardown, 60);
  tcase_add_test(tc, backend_choice_errors);
  tc = t_tcase(s, "signature_from_ir", 0, setup, teardown, 60);
  tcase_add_test(tc, debug_records_without_pointers);
  tcase_add_test(tc, numbers_only_from_a_modern_producer);
  tcase_add_test(tc, signature_from_ir);
  tc = t_tcase(s, "corpus_on_nvptx", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, corpus_on_nvptx);
  tc = t_tcase(s, "bitcode", 0, setup, teardown, 60);
  tcase_add_test(tc, bitcode_input);
  tcase_add_test(tc, bitcode_reader_crash);
  tcase_add_test(tc, bitcode_reader_crash_in_the_helper);
  tc = t_tcase(s, "modern_ltoir", T_NVVM | T_NVRTC, setup, teardown, 60);
  tcase_add_test(tc, modern_ltoir_by_libnvvm);
  tc = t_tcase(s, "modern_cubin", T_NVJITLINK, setup, teardown, 60);
  tcase_add_test(tc, modern_cubin_cached);
  tc = t_tcase(s, "modern_on_the_cpu", T_HOST, setup, teardown, 60);
  tcase_add_test(tc, modern_on_the_cpu);
  tcase_add_test(tc, inline_ptx_on_the_cpu);
  tc = t_tcase(s, "address_spaces", T_NVVM, setup, teardown, 60);
  tcase_add_test(tc, address_spaces);
  tc = t_tcase(s, "rustc", T_NVVM, setup, teardown, 60);
  tcase_add_test(tc, rustc_function_through_libnvvm);
  tcase_add_test(tc, rustc_kernel);
  tc = t_tcase(s, "numba_atomics", 0, setup, teardown, 60);
  tcase_add_test(tc, numba_atomics_defined);
  tc = t_tcase(s, "codegen_fatal_error", 0, setup, teardown, 60);
  tcase_add_test(tc, codegen_fatal_error);
  return s;
}
