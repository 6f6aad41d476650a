/* test_builtins.c - the built-in CUDA library without a GPU: how each
 * built-in types (numba-cuda's signatures) and the PTX it lowers to, inlined
 * at the call.  Values on the GPU are in tests/gpu/test_builtins.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static cuplug_session *session;

static void setup(void) { session = t_session(); }
static void teardown(void) { t_api()->session_destroy(session); }

static cuplug_error *resolve(const char *key, const char *argtypes, cuplug_resolve_args *out) {
  const cuplug_type *const *args;
  size_t n;
  t_argtypes(argtypes, &args, &n);
  *out = (cuplug_resolve_args){.struct_size = sizeof *out,
                               .registry = t_api()->session_registry(session),
                               .key = key, .argtypes = args, .nargs = n};
  return t_api()->resolve_call(out);
}

/* ---- one call in a kernel: the signature and the instruction ---- */

static const struct {
  const char *key, *args, *signature, *ptx;
} calls[] = {
    {"cuda.threadIdx.x", "", "int32()", "mov.u32 \t%r1, %tid.x;"},
    {"cuda.blockIdx.y", "", "int32()", "%ctaid.y"},
    {"cuda.blockDim.z", "", "int32()", "%ntid.z"},
    {"cuda.gridDim.x", "", "int32()", "%nctaid.x"},
    {"cuda.laneid", "", "int32()", "%laneid"},
    {"cuda.warpsize", "", "int32()", "WARP_SZ"},
    {"cuda.syncthreads", "", "void()", "bar.sync \t0;"},
    {"cuda.syncthreads_count", "int32", "int32(int32)", "bar.red.popc.u32"},
    {"cuda.syncthreads_and", "int64", "int32(int32)", "bar.red.and.pred"},
    {"cuda.syncthreads_or", "uint8", "int32(int32)", "bar.red.or.pred"},
    {"cuda.syncwarp", "", "void()", "bar.warp.sync \t-1;"},
    {"cuda.syncwarp", "int32", "void(int32)", "bar.warp.sync \t%r"},
    {"cuda.threadfence", "", "void()", "membar.gl;"},
    {"cuda.threadfence_block", "", "void()", "membar.cta;"},
    {"cuda.threadfence_system", "", "void()", "membar.sys;"},
    {"cuda.shfl_sync", "int32, float32, int32", "float32(int32, float32, int32)",
     "shfl.sync.idx.b32"},
    {"cuda.shfl_up_sync", "uint32, int32, int32", "int32(uint32, int32, int32)",
     "shfl.sync.up.b32"},
    {"cuda.shfl_down_sync", "int32, int64, int32", "int64(int32, int64, int32)",
     "shfl.sync.down.b32"},
    {"cuda.shfl_xor_sync", "int32, float64, int32", "float64(int32, float64, int32)",
     "shfl.sync.bfly.b32"},
    {"cuda.all_sync", "int32, bool", "bool(int32, bool)", "vote.sync.all.pred"},
    {"cuda.any_sync", "int32, int32", "bool(int32, int32)", "vote.sync.any.pred"},
    {"cuda.eq_sync", "int32, int64", "bool(int32, int64)", "vote.sync.uni.pred"},
    {"cuda.ballot_sync", "int32, int32", "int32(int32, int32)", "vote.sync.ballot.b32"},
    {"cuda.activemask", "", "uint32()", "activemask.b32"},
    {"cuda.lanemask_lt", "", "uint32()", "%lanemask_lt"},
    {"cuda.popc", "int32", "int32(int32)", "popc.b32"},
    {"cuda.popc", "uint64", "uint64(uint64)", "popc.b64"},
    {"cuda.clz", "int64", "int64(int64)", "clz.b64"},
    {"cuda.ffs", "uint32", "uint32(uint32)", "bfind.shiftamt.u32"},
    {"cuda.ffs", "int8", "uint32(int8)", "bfind.shiftamt.u32"},
    {"cuda.brev", "uint32", "uint32(uint32)", "brev.b32"},
    {"cuda.brev", "uint64", "uint64(uint64)", "brev.b64"},
    {"cuda.fma", "float32, float32, float32", "float32(float32, float32, float32)", "fma.rn.f32"},
    {"cuda.fma", "float64, float64, float64", "float64(float64, float64, float64)", "fma.rn.f64"},
    {"cuda.cbrt", "float32", "float32(float32)", "lg2.approx"},
    {"cuda.nanosleep", "uint32", "void(uint32)", "nanosleep.u32"},
    {"cuda.clock64", "", "uint64()", "mov.u64 %rd1, %clock64;"},
    {"cuda.globaltimer", "", "uint64()", "%globaltimer"},
    {"math.sqrt", "float32", "float32(float32)", "sqrt.rn.f32"},
    {"math.sqrt", "float64", "float64(float64)", "sqrt.rn.f64"},
    {"math.floor", "float32", "float32(float32)", "cvt.rmi.f32.f32"},
    {"math.ceil", "float64", "float64(float64)", "cvt.rpi.f64.f64"},
    {"math.trunc", "int64", "float64(int64)", "cvt.rn.f64.s64"},
    {"math.fabs", "float32", "float32(float32)", "abs.f32"},
    {"math.copysign", "float64, float64", "float64(float64, float64)", "copysign.f64"},
    {"math.isnan", "float32", "bool(float32)", "setp.gtu.f32"},
    {"math.isfinite", "int64", "bool(int64)", "mov.u16 \t%rs1, 1;"},
    {"math.degrees", "float32", "float32(float32)", "mul.f32 \t%f2, %f1, 0f42652EE1;"},
    {"math.radians", "float64", "float64(float64)", "0d3F91DF46A2529D39"},
    {"math.sin", "float16", "float16(float16)", "cvt.f32.f16"},
    {"math.sin", "int32", "float64(int64)", "cvt.rn.f64.s64"},
    {"math.exp", "float32", "float32(float32)", "ex2.approx"},
    {"math.pow", "float64, int32", "float64(float64, int32)", "rcp.rn.f64"},
    {"math.atan2", "int32, float32", "float64(float64, float64)", "abs.f64"},
    {"cuda.fp16.hadd", "float16, float16", "float16(float16, float16)", "add.f16 %rs1, %rs2, %rs3;"},
    {"cuda.fp16.hmul", "float16, float16", "float16(float16, float16)", "mul.f16"},
    {"cuda.fp16.hfma", "float16, float16, float16", "float16(float16, float16, float16)",
     "fma.rn.f16 %rs1, %rs2, %rs3, %rs4;"},
    {"cuda.fp16.hneg", "float16", "float16(float16)", "neg.f16"},
    {"cuda.fp16.habs", "float16", "float16(float16)", "abs.f16"},
    {"cuda.fp16.hdiv", "float16, float16", "float16(float16, float16)", "div.rn.f32"},
    {"cuda.fp16.heq", "float16, float16", "bool(float16, float16)", "setp.eq.f16"},
    {"cuda.fp16.hne", "float16, float16", "bool(float16, float16)", "setp.neu.f16"},
    {"cuda.fp16.hmax", "float16, float16", "float16(float16, float16)", "setp.gt.f16"},
    {"cuda.atomic.add", "CPointer(float32), float32", "float32(CPointer(float32), float32)",
     "atom.global.add.f32"},
    {"cuda.atomic.add", "CPointer(int32), int64", "int32(CPointer(int32), int32)", "atom.add.u32"},
    {"cuda.atomic.add", "CPointer(float64), float64", "float64(CPointer(float64), float64)",
     "atom.global.add.f64"},
    {"cuda.atomic.sub", "CPointer(float32), float32", "float32(CPointer(float32), float32)",
     "atom.cas.b32"},
    {"cuda.atomic.and_", "CPointer(uint64), uint64", "uint64(CPointer(uint64), uint64)",
     "atom.and.b64"},
    {"cuda.atomic.or_", "CPointer(int32), int32", "int32(CPointer(int32), int32)", "atom.or.b32"},
    {"cuda.atomic.xor", "CPointer(int64), int64", "int64(CPointer(int64), int64)", "atom.xor.b64"},
    {"cuda.atomic.max", "CPointer(int32), int32", "int32(CPointer(int32), int32)", "atom.max.s32"},
    {"cuda.atomic.max", "CPointer(uint32), uint32", "uint32(CPointer(uint32), uint32)",
     "atom.max.u32"},
    {"cuda.atomic.min", "CPointer(uint64), uint64", "uint64(CPointer(uint64), uint64)",
     "atom.min.u64"},
    {"cuda.atomic.max", "CPointer(float64), float64", "float64(CPointer(float64), float64)",
     "atom.cas.b64"},
    {"cuda.atomic.exch", "CPointer(float32), float32", "float32(CPointer(float32), float32)",
     "atom.exch.b32"},
    {"cuda.atomic.inc", "CPointer(uint32), uint32", "uint32(CPointer(uint32), uint32)",
     "atom.global.inc.u32"},
    {"cuda.atomic.dec", "CPointer(uint32), uint32", "uint32(CPointer(uint32), uint32)",
     "atom.global.dec.u32"},
    {"cuda.atomic.inc", "CPointer(uint64), uint64", "uint64(CPointer(uint64), uint64)",
     "atom.cas.b64"},
    {"cuda.atomic.cas", "CPointer(int32), int32, int32", "int32(CPointer(int32), int32, int32)",
     "atom.cas.b32"},
};

/* Each call compiles (opt 3) to its instruction, with the built-in inlined:
 * no trace of its symbol is left. */
START_TEST(call_lowers_to_its_instruction) {
  int i = _i;
  cuplug_resolve_args how;
  cuplug_artifact *a =
      t_compile_call(session, calls[i].key, calls[i].args, CUPLUG_OUTPUT_PTX, 0, &how);
  ck_assert_str_eq(t_type_name(how.signature), calls[i].signature);
  ck_assert_int_eq(how.abi, CUPLUG_ABI_C);
  ck_assert_int_eq(strncmp(how.declaration, "declare ", 8), 0);
  T_ASSERT_CONTAINS(how.declaration, how.symbol);
  char *ptx = t_artifact_text(a);
  T_ASSERT_CONTAINS(ptx, calls[i].ptx);
  ck_assert_msg(!strstr(ptx, "__cuplug_"), "%s(%s) was not inlined:\n%s", calls[i].key,
                calls[i].args, ptx);
  free(ptx);
  t_api()->artifact_destroy(a);
}
END_TEST

/* Inlined even without optimisation (-opt=0): alwaysinline. */
START_TEST(inlined_at_opt_0) {
  cuplug_artifact *a = t_compile_call(session, "math.sqrt", "float32", CUPLUG_OUTPUT_PTX,
                                      CUPLUG_OPT_NONE, NULL);
  char *ptx = t_artifact_text(a);
  T_ASSERT_CONTAINS(ptx, "sqrt.rn.f32");
  ck_assert_ptr_null(strstr(ptx, ".func"));
  free(ptx);
  t_api()->artifact_destroy(a);
}
END_TEST

/* ---- typing: numba-cuda's rules ---- */

START_TEST(builtin_typing) {
  static const struct {
    const char *key, *args, *signature; /* NULL signature: no match */
  } cases[] = {
      {"cuda.grid", "Literal[int](1)", "int64(int32)"},
      {"cuda.grid", "Literal[int](3)", "UniTuple(int64 x 3)(int32)"},
      {"cuda.gridsize", "Literal[int](2)", "UniTuple(int64 x 2)(int32)"},
      {"cuda.grid", "int32", NULL},           /* the dimension must be a literal */
      {"cuda.grid", "Literal[int](4)", NULL}, /* 1 to 3 */
      {"cuda.shfl_sync", "int32, uint32, int32", NULL}, /* 32/64-bit ints and floats only */
      {"cuda.syncthreads_count", "bool", NULL}, /* an integer predicate */
      {"cuda.atomic.add", "float32[::1], int32, float64", "float32(float32[::1], int64, float32)"},
      {"cuda.atomic.add", "float32[:, :], UniTuple(int32 x 2), float32",
       "float32(float32[:, :], UniTuple(int64 x 2), float32)"},
      {"cuda.atomic.add", "float32[:, :], int64, float32", NULL}, /* a 2-d array wants a tuple */
      {"cuda.atomic.add", "float32[:, :], UniTuple(int64 x 3), float32", NULL},
      {"cuda.atomic.add", "int16[:], int64, int16", NULL},
      {"cuda.atomic.and_", "float32[:], int64, float32", NULL},
      {"cuda.atomic.inc", "int32[:], int64, int32", NULL},
      {"cuda.atomic.inc", "uint64[:], int64, uint64", "uint64(uint64[:], int64, uint64)"},
      {"cuda.atomic.cas", "int32[:], int64, int32, int32", "int32(int32[:], int64, int32, int32)"},
      {"cuda.atomic.compare_and_swap", "int64[::1], int64, int64",
       "int64(int64[::1], int64, int64)"},
      {"cuda.atomic.compare_and_swap", "int64[:, :], int64, int64", NULL},
      {"cuda.shared.array", "Literal[int](128), class(float32)",
       "float32[::1](Literal[int](128), class(float32))"},
      {"cuda.shared.array", "UniTuple(Literal[int](4) x 2), class(int32)",
       "int32[:, ::1](UniTuple(Literal[int](4) x 2), class(int32))"},
      {"cuda.shared.array", "Literal[int](0), class(float64)",
       "float64[::1](Literal[int](0), class(float64))"},
      {"cuda.local.array", "Literal[int](0), class(float64)", NULL}, /* no dynamic local */
      {"cuda.local.array", "int64, class(float64)", NULL},          /* a literal shape */
      {"math.floor", "float32", "float32(float32)"}, /* a float on CUDA, as numba-cuda */
      {"math.frexp", "float64", "Tuple(float64, int32)(float64)"},
      {"math.modf", "float32", "UniTuple(float32 x 2)(float32)"},
      {"math.copysign", "int64, int64", "float64(float64, float64)"}, /* int64 -> float64 */
      /* numba-cuda's rule: an unsafe conversion as the last resort */
      {"math.copysign", "complex64, float32", NULL}, /* a complex becomes no real */
      {"math.copysign", "float64, float32", "float64(float64, float64)"},
      {"math.copysign", "float32[:], float32", NULL}, /* an array is no number */
      {"math.nextafter", "float32, float32", "float32(float32, float32)"},
      {"cuda.any_sync", "int32, float32", NULL}, /* numba-cuda 0.30: integer or bool */
      {"math.tanh", "float16", "float16(float16)"},
      {"math.modf", "bool", "UniTuple(float64 x 2)(float64)"},
      /* a generic template's answer stands, as in numba-cuda: any number goes */
      {"cuda.atomic.add", "float32[::1], int32, complex64", "float32(float32[::1], int64, float32)"},
      {"cuda.atomic.add", "float32[::1], float64, int8", "float32(float32[::1], int64, float32)"},
      {"math.pow", "float32, Literal[int](2)", "float32(float32, int32)"}, /* powi */
      {"math.pow", "float32, float64", "float64(float64, float64)"},
      {"cuda.syncwarp", "Literal[int](-1)", "void(int32)"},
      {"cuda.syncwarp", "int64", "void(int32)"}, /* int64 -> int32: unsafe, the only one */
      {"cuda.brev", "int32", "uint32(uint32)"},  /* two unsafe: the first declared */
      {"math.sin", "bool", "float64(int64)"},    /* four safe: the first declared */
      {"cuda.ffs", "int8", "uint32(int8)"},
      {"cuda.popc", "int8", "int8(int8)"},
      {"cuda.ffs", "int64", "uint32(int64)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cuplug_resolve_args a;
    cuplug_error *e = resolve(cases[i].key, cases[i].args, &a);
    if (cases[i].signature) {
      T_ASSERT_OK(e);
      ck_assert_msg(strcmp(t_type_name(a.signature), cases[i].signature) == 0, "%s(%s): %s, not %s",
                    cases[i].key, cases[i].args, t_type_name(a.signature), cases[i].signature);
    } else {
      ck_assert_msg(e && t_api()->error_code(e) == CUPLUG_ERR_NO_MATCH,
                    "%s(%s) should not type", cases[i].key, cases[i].args);
      /* about this call (the candidates it lists follow) */
      char want[512];
      snprintf(want, sizeof want, "no signature of %s takes (%s); it has: ", cases[i].key,
               cases[i].args);
      T_ASSERT_STARTS(t_api()->error_message(e), want);
      t_api()->error_destroy(e);
    }
  }
}
END_TEST

/* ---- built-ins that take or give aggregates: hand-written kernels ---- */

static char *compile_ir(const char *ir, const char *sig, int32_t opt) {
  cuplug_module m = {.struct_size = sizeof m, .text = ir, .size = strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args c = {.struct_size = sizeof c, .session = session, .modules = mods,
                           .num_modules = 1, .entry = "k", .signature = sig,
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL, .cc_major = 9,
                           .opt = opt};
  c.flags = getenv("SHOWIR") ? CUPLUG_COMPILE_KEEP_IR : 0;
  cuplug_error *e = t_api()->compile(&c);
  if (e) fprintf(stderr, "%s\n", ir);
  for (size_t k = 0; !e && getenv("SHOWIR"); k++) {
    cuplug_ir_view v = {.struct_size = sizeof v};
    cuplug_error *x = t_api()->artifact_ir(c.artifact, k, &v);
    if (x) { t_api()->error_destroy(x); break; }
    fprintf(stderr, "---- %s\n%s\n", v.name, v.text);
  }
  T_ASSERT_OK(e);
  char *ptx = t_artifact_text(c.artifact);
  t_api()->artifact_destroy(c.artifact);
  return ptx;
}

/* a 1-d array's parameters, flattened, for a printf format */
#define ARRAY1(t) "i8* %%m, i8* %%p, i64 %%n, i64 %%is, " t "* %%d, i64 %%s0, i64 %%st0"

/* numba's array-and-index form; the array is a kernel parameter, so the
 * element is in global memory. */
START_TEST(atomic_on_an_array_element) {
  cuplug_resolve_args r;
  T_ASSERT_OK(resolve("cuda.atomic.add", "float32[::1], int64, float32", &r));
  char ir[2048];
  snprintf(ir, sizeof ir,
           "define void @k(" ARRAY1("float") ", float %%v) {\n"
           "  %%old = call float @%s(" ARRAY1("float") ", i64 -1, float %%v)\n"
           "  ret void\n}\n"
           "declare float @%s(i8*, i8*, i64, i64, float*, i64, i64, i64, float)\n",
           r.symbol, r.symbol);
  char *ptx = compile_ir(ir, "void(float32[::1], float32)", 0);
  /* index -1 wraps to the last element: data + (shape - 1) * stride */
  T_ASSERT_CONTAINS(ptx, "add.s64 \t%rd5, %rd2, -1;\n\tmul.lo.s64 \t%rd6, %rd5, %rd3;");
  T_ASSERT_CONTAINS(ptx, "atom.global.add.f32");
  free(ptx);
}
END_TEST

START_TEST(grid_returns_a_tuple) {
  cuplug_resolve_args r;
  T_ASSERT_OK(resolve("cuda.grid", "Literal[int](2)", &r));
  char ir[2048];
  snprintf(ir, sizeof ir,
           "define void @k(i64* %%out) {\n"
           "  %%g = call [2 x i64] @%s(i32 2)\n"
           "  %%x = extractvalue [2 x i64] %%g, 0\n"
           "  %%y = extractvalue [2 x i64] %%g, 1\n"
           "  %%s = add i64 %%x, %%y\n"
           "  store i64 %%s, i64* %%out\n"
           "  ret void\n}\n"
           "declare [2 x i64] @%s(i32)\n",
           r.symbol, r.symbol);
  char *ptx = compile_ir(ir, "void(CPointer(int64))", 0);
  T_ASSERT_CONTAINS(ptx, "%ctaid.y");
  T_ASSERT_CONTAINS(ptx, "%tid.x");
  free(ptx);
}
END_TEST

/* Each shared.array resolve is an array of its own, in shared memory. */
START_TEST(shared_arrays_are_distinct) {
  cuplug_resolve_args a, b;
  T_ASSERT_OK(resolve("cuda.shared.array", "Literal[int](64), class(float32)", &a));
  T_ASSERT_OK(resolve("cuda.shared.array", "Literal[int](64), class(float32)", &b));
  ck_assert_str_ne(a.symbol, b.symbol);
  const char *st = "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}";
  char ir[4096];
  snprintf(ir, sizeof ir,
           "define void @k(float %%v) {\n"
           "  %%a = call %s @%s(i64 64)\n"
           "  %%b = call %s @%s(i64 64)\n"
           "  %%pa = extractvalue %s %%a, 4\n"
           "  %%pb = extractvalue %s %%b, 4\n"
           "  store volatile float %%v, float* %%pa\n"
           "  store volatile float %%v, float* %%pb\n"
           "  ret void\n}\n"
           "declare %s @%s(i64)\ndeclare %s @%s(i64)\n",
           st, a.symbol, st, b.symbol, st, st, st, a.symbol, st, b.symbol);
  char *ptx = compile_ir(ir, "void(float32)", 0);
  /* two 256-byte arrays, stored to through the shared window */
  const char *first = strstr(ptx, ".shared .align 4 .b8");
  ck_assert_ptr_nonnull(first);
  T_ASSERT_CONTAINS(first + 1, ".shared .align 4 .b8");
  T_ASSERT_CONTAINS(ptx, "[256]");
  T_ASSERT_CONTAINS(ptx, "st.volatile.shared.f32");
  free(ptx);
}
END_TEST

/* local.array lives in the caller's frame, even unoptimised. */
START_TEST(local_array_in_the_callers_frame) {
  cuplug_resolve_args r;
  T_ASSERT_OK(resolve("cuda.local.array", "Literal[int](8), class(int32)", &r));
  const char *st = "{i8*, i8*, i64, i64, i32*, [1 x i64], [1 x i64]}";
  char ir[4096];
  snprintf(ir, sizeof ir,
           "define void @k(i32* %%out, i32 %%i) {\n"
           "  %%a = call %s @%s(i64 8)\n"
           "  %%data = extractvalue %s %%a, 4\n"
           "  %%n = extractvalue %s %%a, 2\n"
           "  %%n32 = trunc i64 %%n to i32\n"
           "  %%slot = getelementptr i32, i32* %%data, i32 %%i\n"
           "  store i32 %%n32, i32* %%slot\n"
           "  %%back = load i32, i32* %%data\n"
           "  store i32 %%back, i32* %%out\n"
           "  ret void\n}\n"
           "declare %s @%s(i64)\n",
           st, r.symbol, st, st, st, r.symbol);
  char *ptx = compile_ir(ir, "void(CPointer(int32), int32)", CUPLUG_OPT_NONE);
  T_ASSERT_CONTAINS(ptx, ".local .align 4 .b8 \t__local_depot0[32];");
  ck_assert_ptr_null(strstr(ptx, ".func"));
  free(ptx);
}
END_TEST

START_TEST(const_array_in_constant_memory) {
  int32_t data[4] = {1, 2, 3, 0x01020304};
  int64_t shape[1] = {4};
  const cuplug_type *i32;
  T_ASSERT_OK(t_api()->type_parse("int32", &i32));
  cuplug_const_array_args c = {.struct_size = sizeof c,
                               .registry = t_api()->session_registry(session),
                               .dtype = i32, .ndim = 1, .shape = shape, .data = data,
                               .size = sizeof data};
  T_ASSERT_OK(t_api()->const_array(&c));
  const char *st = "{i8*, i8*, i64, i64, i32*, [1 x i64], [1 x i64]}";
  char ir[4096];
  snprintf(ir, sizeof ir,
           "define void @k(i32* %%out, i32 %%i) {\n"
           "  %%a = call %s @%s()\n"
           "  %%data = extractvalue %s %%a, 4\n"
           "  %%slot = getelementptr i32, i32* %%data, i32 %%i\n"
           "  %%v = load i32, i32* %%slot\n"
           "  store i32 %%v, i32* %%out\n"
           "  ret void\n}\n"
           "declare %s @%s()\n",
           st, c.symbol, st, st, c.symbol);
  char *ptx = compile_ir(ir, "void(CPointer(int32), int32)", 0);
  T_ASSERT_CONTAINS(ptx, ".const .align 4 .b8");
  T_ASSERT_CONTAINS(ptx, "[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 3, 2, 1};");
  T_ASSERT_CONTAINS(ptx, "ld.const.u32");
  free(ptx);
}
END_TEST

/* frexp and modf return tuples by value. */
START_TEST(tuple_returning_math) {
  cuplug_resolve_args r;
  T_ASSERT_OK(resolve("math.frexp", "float64", &r));
  char ir[2048];
  snprintf(ir, sizeof ir,
           "define void @k(double* %%m, i32* %%e, double %%x) {\n"
           "  %%t = call {double, i32} @%s(double %%x)\n"
           "  %%a = extractvalue {double, i32} %%t, 0\n"
           "  %%b = extractvalue {double, i32} %%t, 1\n"
           "  store double %%a, double* %%m\n"
           "  store i32 %%b, i32* %%e\n"
           "  ret void\n}\n"
           "declare {double, i32} @%s(double)\n",
           r.symbol, r.symbol);
  char *ptx = compile_ir(ir, "void(CPointer(float64), CPointer(int32), float64)", 0);
  T_ASSERT_CONTAINS(ptx, "st.global.f64");
  T_ASSERT_CONTAINS(ptx, "st.global.u32");
  ck_assert_ptr_null(strstr(ptx, "__nv_frexp")); /* libdevice inlined too */
  free(ptx);
}
END_TEST

/* Shape 0: the launch's dynamic shared memory, its length read at run
 * time.  Linked to a cubin: ptxas takes the extern array's name. */
START_TEST(dynamic_shared_array_links) {
  cuplug_resolve_args r;
  T_ASSERT_OK(resolve("cuda.shared.array", "Literal[int](0), class(float32)", &r));
  const char *st = "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}";
  char ir[4096];
  snprintf(ir, sizeof ir,
           "define void @k(i64* %%out, float %%v) {\n"
           "  %%a = call %s @%s(i64 0)\n"
           "  %%n = extractvalue %s %%a, 2\n"
           "  %%p = extractvalue %s %%a, 4\n"
           "  store volatile float %%v, float* %%p\n"
           "  store i64 %%n, i64* %%out\n"
           "  ret void\n}\n"
           "declare %s @%s(i64)\n",
           st, r.symbol, st, st, st, r.symbol);
  char *ptx = compile_ir(ir, "void(CPointer(int64), float32)", 0);
  T_ASSERT_CONTAINS(ptx, ".extern .shared .align 4 .b8 __cuplug_cuda_shared_array_");
  T_ASSERT_CONTAINS(ptx, "%dynamic_smem_size");
  free(ptx);
  cuplug_module m = {.struct_size = sizeof m, .text = ir, .size = strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args c = {.struct_size = sizeof c, .session = session, .modules = mods,
                           .num_modules = 1, .entry = "k", .signature = "void(CPointer(int64), float32)",
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL, .cc_major = 9,
                           .output = CUPLUG_OUTPUT_CUBIN};
  T_ASSERT_OK(t_api()->compile(&c));
  t_api()->artifact_destroy(c.artifact);
}
END_TEST

Suite *suite_builtins(void) {
  Suite *s = suite_create("builtins");
  TCase *tc = t_tcase(s, "calls", T_NVVM, setup, teardown, 120);
  tcase_add_loop_test(tc, call_lowers_to_its_instruction, 0, sizeof calls / sizeof calls[0]);
  tcase_add_test(tc, inlined_at_opt_0);

  tc = t_tcase(s, "typing", 0, setup, teardown, 120);
  tcase_add_test(tc, builtin_typing);

  tc = t_tcase(s, "aggregates", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, atomic_on_an_array_element);
  tcase_add_test(tc, grid_returns_a_tuple);
  tcase_add_test(tc, shared_arrays_are_distinct);
  tcase_add_test(tc, local_array_in_the_callers_frame);
  tcase_add_test(tc, const_array_in_constant_memory);
  tcase_add_test(tc, tuple_returning_math);

  tc = t_tcase(s, "dynamic_shared", T_NVVM | T_NVJITLINK, setup, teardown, 120);
  tcase_add_test(tc, dynamic_shared_array_links);
  return s;
}
