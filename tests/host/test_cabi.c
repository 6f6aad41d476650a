/* test_cabi.c - a host library's C-ABI functions, and the host functions
 * it calls, follow the platform's C ABI for every type of the signature
 * language: C callers call them through host_function's pointer with C
 * types, host_call calls them through libffi, and the JIT'd code calls
 * declare_device's host_function implementations as C functions.  The IR
 * is written as numba-cuda's C ABI writes it: arguments flattened (a
 * complex as two parts, a tuple as its members, an array as numba's 5 + 2N
 * members), the result first-class. */
#include <complex.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static cuplug_session *s;

/* C types of cuplug's types (cuplug.h, host_function) */
typedef struct f3 { float v[3]; } f3;                 /* UniTuple(float32 x 3) */
typedef struct id { int64_t i; double d; } id;         /* Tuple(int64, float64) */
typedef struct di { double d; int32_t i; } di;         /* Tuple(float64, int32) */
typedef struct h3 { int16_t v[3]; } h3;                /* UniTuple(int16 x 3) */
typedef struct l3 { int64_t v[3]; } l3;                /* UniTuple(int64 x 3) */
typedef struct ci { float _Complex c; int32_t i; } ci; /* Tuple(complex64, int32) */
typedef struct array1 {                                /* float32[::1] */
  void *meminfo, *parent;
  int64_t nitems, itemsize;
  float *data;
  int64_t shape[1], strides[1];
} array1;

/* Compiles `ir` for the host with entry `entry`, written and exported
 * under `abi`, and loads it. */
static cuplug_library *library_abi(const char *ir, const char *entry, const char *sig,
                                   cuplug_abi abi) {
  cuplug_module m = {sizeof m, "cabi.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = sig,
                           .entry_abi = abi, .abi = abi, .output = CUPLUG_OUTPUT_HOST};
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  T_ASSERT_OK(t_api()->load(&l));
  t_api()->artifact_destroy(a.artifact);
  return l.library;
}

/* ... under the C ABI. */
static cuplug_library *library(const char *ir, const char *entry, const char *sig) {
  return library_abi(ir, entry, sig, CUPLUG_ABI_C);
}


/* ---- scalars: narrow integers, bool, float16's bits ---- */

static const char narrow_ir[] =
    "define i64 @narrow(i8 %a, i8 %b, i16 %c, i16 %d, i8 %e, i16 %h) {\n"
    "  %a64 = sext i8 %a to i64\n  %b64 = zext i8 %b to i64\n"
    "  %c64 = sext i16 %c to i64\n  %d64 = zext i16 %d to i64\n"
    "  %e1 = trunc i8 %e to i1\n  %e64 = zext i1 %e1 to i64\n  %h64 = zext i16 %h to i64\n"
    "  %s1 = add i64 %a64, %b64\n  %s2 = add i64 %s1, %c64\n  %s3 = add i64 %s2, %d64\n"
    "  %s4 = add i64 %s3, %e64\n  %s5 = shl i64 %h64, 32\n  %s6 = add i64 %s4, %s5\n"
    "  ret i64 %s6\n}\n";

static const char half_neg_ir[] =
    "define i16 @hneg(i16 %a) {\n  %r = xor i16 %a, -32768\n  ret i16 %r\n}\n";

static const char int8_neg_ir[] =
    "define i8 @neg8(i8 %a) {\n  %r = sub i8 0, %a\n  ret i8 %r\n}\n";

/* A failed assert in a function the host calls (host_call): the call
 * fails with the GPU's message, and the library runs on */
static const char checked_sqrt_ir[] =
    "@msg = private constant [7 x i8] c\"x >= 0\\00\"\n"
    "@file = private constant [5 x i8] c\"f.cu\\00\"\n"
    "@fn = private constant [5 x i8] c\"root\\00\"\n"
    "define double @root(double %x) {\n"
    "  %neg = fcmp olt double %x, 0.0\n"
    "  br i1 %neg, label %fail, label %ok\n"
    "fail:\n"
    "  call void @__assertfail(ptr @msg, ptr @file, i32 3, ptr @fn, i64 1)\n"
    "  unreachable\n"
    "ok:\n"
    "  %r = call double @llvm.sqrt.f64(double %x)\n"
    "  ret double %r\n"
    "}\n"
    "declare void @__assertfail(ptr, ptr, i32, ptr, i64)\n"
    "declare double @llvm.sqrt.f64(double)\n";

START_TEST(assert_in_a_call) {
  cuplug_library *l = library(checked_sqrt_ir, "root", "float64(float64)");
  double x = -4.0, r = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_FLOAT64, &x}};
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = v, .num_args = 1,
                             .result = &r, .result_size = sizeof r};
  T_ASSERT_ERROR(t_api()->host_call(&c), CUPLUG_ERR_KERNEL_FAULT,
                 "call root: f.cu:3: root: block: [0,0,0], thread: [0,0,0] Assertion `x >= 0` "
                 "failed.");
  x = 6.25;
  t_host_call(l, v, 1, &r, sizeof r);
  ck_assert(r == 2.5);
  t_api()->library_unload(l);
}
END_TEST

START_TEST(scalars) {
  cuplug_library *l =
      library(narrow_ir, "narrow", "int64(int8, uint8, int16, uint16, bool, float16)");
  int64_t (*narrow)(int8_t, uint8_t, int16_t, uint16_t, _Bool, uint16_t) =
      T_HOST_FN(int64_t(*)(int8_t, uint8_t, int16_t, uint16_t, _Bool, uint16_t), l);
  /* -5 + 250 - 300 + 65000 + 1, and float16 1.0 (0x3c00) in the high half */
  ck_assert_int_eq(narrow(-5, 250, -300, 65000, 1, 0x3c00), 64946 + (0x3c00ll << 32));
  int8_t a = -5, c8 = 1;
  uint8_t b = 250;
  int16_t c = -300;
  uint16_t d = 65000, h = 0x3c00;
  int64_t r = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_INT8, &a},  {CUPLUG_TYPE_UINT8, &b}, {CUPLUG_TYPE_INT16, &c},
                      {CUPLUG_TYPE_UINT16, &d}, {CUPLUG_TYPE_BOOL, &c8}, {CUPLUG_TYPE_FLOAT16, &h}};
  t_host_call(l, v, 6, &r, sizeof r);
  ck_assert_int_eq(r, 64946 + (0x3c00ll << 32));
  t_api()->library_unload(l);

  l = library(half_neg_ir, "hneg", "float16(float16)");
  ck_assert_uint_eq(T_HOST_FN(uint16_t(*)(uint16_t), l)(0x3c00), 0xbc00); /* -1.0 */
  uint16_t hr = 0;
  cuplug_value vh[] = {{CUPLUG_TYPE_FLOAT16, &h}};
  t_host_call(l, vh, 1, &hr, sizeof hr);
  ck_assert_uint_eq(hr, 0xbc00);
  t_api()->library_unload(l);

  l = library(int8_neg_ir, "neg8", "int8(int8)");
  ck_assert_int_eq(T_HOST_FN(int8_t(*)(int8_t), l)(100), -100);
  ck_assert_int_eq(T_HOST_FN(int8_t(*)(int8_t), l)(-128), -128);
  t_api()->library_unload(l);
}
END_TEST

/* ---- complex numbers ---- */

static const char cmul_ir[] =
    "define {float, float} @cmul(float %ar, float %ai, float %br, float %bi) {\n"
    "  %rr1 = fmul float %ar, %br\n  %rr2 = fmul float %ai, %bi\n  %rr = fsub float %rr1, %rr2\n"
    "  %ri1 = fmul float %ar, %bi\n  %ri2 = fmul float %ai, %br\n  %ri = fadd float %ri1, %ri2\n"
    "  %v0 = insertvalue {float, float} undef, float %rr, 0\n"
    "  %v1 = insertvalue {float, float} %v0, float %ri, 1\n"
    "  ret {float, float} %v1\n}\n";

/* seven doubles take xmm0-6: z's two eightbytes no longer fit, and go on
 * the stack whole */
static const char zsum_ir[] =
    "define {double, double} @zsum(double %a, double %b, double %c, double %d, double %e,\n"
    "                              double %f, double %g, double %zr, double %zi) {\n"
    "  %s1 = fadd double %a, %b\n  %s2 = fadd double %s1, %c\n  %s3 = fadd double %s2, %d\n"
    "  %s4 = fadd double %s3, %e\n  %s5 = fadd double %s4, %f\n  %s6 = fadd double %s5, %g\n"
    "  %re = fadd double %zr, %s6\n  %im = fmul double %zi, %a\n"
    "  %v0 = insertvalue {double, double} undef, double %re, 0\n"
    "  %v1 = insertvalue {double, double} %v0, double %im, 1\n"
    "  ret {double, double} %v1\n}\n";

START_TEST(complex_numbers) {
  cuplug_library *l = library(cmul_ir, "cmul", "complex64(complex64, complex64)");
  float _Complex (*cmul)(float _Complex, float _Complex) =
      T_HOST_FN(float _Complex(*)(float _Complex, float _Complex), l);
  float _Complex z = cmul(1.0f + 2.0f * I, 3.0f - 1.0f * I);
  ck_assert(crealf(z) == 5.0f && cimagf(z) == 5.0f);
  float a[2] = {1, 2}, b[2] = {3, -1}, r[2] = {0, 0};
  cuplug_value v[] = {{CUPLUG_TYPE_COMPLEX64, a}, {CUPLUG_TYPE_COMPLEX64, b}};
  t_host_call(l, v, 2, r, sizeof r);
  ck_assert(r[0] == 5.0f && r[1] == 5.0f);
  t_api()->library_unload(l);

  l = library(zsum_ir, "zsum",
              "complex128(float64, float64, float64, float64, float64, float64, float64, "
              "complex128)");
  double _Complex (*zsum)(double, double, double, double, double, double, double,
                          double _Complex) =
      T_HOST_FN(double _Complex(*)(double, double, double, double, double, double, double,
                            double _Complex), l);
  double _Complex w = zsum(2, 3, 4, 5, 6, 7, 8, 0.5 + 1.5 * I);
  ck_assert(creal(w) == 35.5 && cimag(w) == 3.0);
  double x[7] = {2, 3, 4, 5, 6, 7, 8}, zz[2] = {0.5, 1.5}, wr[2] = {0, 0};
  cuplug_value vz[8];
  for (int i = 0; i < 7; i++) vz[i] = (cuplug_value){CUPLUG_TYPE_FLOAT64, &x[i]};
  vz[7] = (cuplug_value){CUPLUG_TYPE_COMPLEX128, zz};
  t_host_call(l, vz, 8, wr, sizeof wr);
  ck_assert(wr[0] == 35.5 && wr[1] == 3.0);
  t_api()->library_unload(l);
}
END_TEST

/* ---- tuples: structs of their members ---- */

/* Each returns its argument with its first member doubled (integers) or
 * incremented (floats). */
static const char f3_ir[] =
    "define [3 x float] @f3(float %a, float %b, float %c) {\n"
    "  %a1 = fadd float %a, 1.0\n"
    "  %v0 = insertvalue [3 x float] undef, float %a1, 0\n"
    "  %v1 = insertvalue [3 x float] %v0, float %b, 1\n"
    "  %v2 = insertvalue [3 x float] %v1, float %c, 2\n  ret [3 x float] %v2\n}\n";
static const char id_ir[] =
    "define {i64, double} @id(i64 %i, double %d) {\n  %i2 = mul i64 %i, 2\n"
    "  %v0 = insertvalue {i64, double} undef, i64 %i2, 0\n"
    "  %v1 = insertvalue {i64, double} %v0, double %d, 1\n  ret {i64, double} %v1\n}\n";
static const char di_ir[] =
    "define {double, i32} @di(double %d, i32 %i) {\n  %d1 = fadd double %d, 1.0\n"
    "  %v0 = insertvalue {double, i32} undef, double %d1, 0\n"
    "  %v1 = insertvalue {double, i32} %v0, i32 %i, 1\n  ret {double, i32} %v1\n}\n";
static const char h3_ir[] =
    "define [3 x i16] @h3(i16 %a, i16 %b, i16 %c) {\n  %a2 = mul i16 %a, 2\n"
    "  %v0 = insertvalue [3 x i16] undef, i16 %a2, 0\n"
    "  %v1 = insertvalue [3 x i16] %v0, i16 %b, 1\n"
    "  %v2 = insertvalue [3 x i16] %v1, i16 %c, 2\n  ret [3 x i16] %v2\n}\n";
static const char l3_ir[] =
    "define [3 x i64] @l3(i64 %a, i64 %b, i64 %c) {\n  %a2 = mul i64 %a, 2\n"
    "  %v0 = insertvalue [3 x i64] undef, i64 %a2, 0\n"
    "  %v1 = insertvalue [3 x i64] %v0, i64 %b, 1\n"
    "  %v2 = insertvalue [3 x i64] %v1, i64 %c, 2\n  ret [3 x i64] %v2\n}\n";
static const char ci_ir[] =
    "define {{float, float}, i32} @ci(float %re, float %im, i32 %i) {\n"
    "  %re1 = fadd float %re, 1.0\n"
    "  %c0 = insertvalue {float, float} undef, float %re1, 0\n"
    "  %c1 = insertvalue {float, float} %c0, float %im, 1\n"
    "  %v0 = insertvalue {{float, float}, i32} undef, {float, float} %c1, 0\n"
    "  %v1 = insertvalue {{float, float}, i32} %v0, i32 %i, 1\n"
    "  ret {{float, float}, i32} %v1\n}\n";

START_TEST(tuples) {
  cuplug_library *l = library(f3_ir, "f3", "UniTuple(float32 x 3)(UniTuple(float32 x 3))");
  f3 a = T_HOST_FN(f3(*)(f3), l)((f3){{1.5f, 2.5f, 3.5f}});
  ck_assert(a.v[0] == 2.5f && a.v[1] == 2.5f && a.v[2] == 3.5f);
  f3 in = {{1.5f, 2.5f, 3.5f}}, out = {{0}};
  cuplug_value v = {CUPLUG_TYPE_TUPLE, &in};
  t_host_call(l, &v, 1, &out, sizeof out);
  ck_assert(out.v[0] == 2.5f && out.v[1] == 2.5f && out.v[2] == 3.5f);
  t_api()->library_unload(l);

  l = library(id_ir, "id", "Tuple(int64, float64)(Tuple(int64, float64))");
  id b = T_HOST_FN(id(*)(id), l)((id){-21, 0.25});
  ck_assert(b.i == -42 && b.d == 0.25);
  t_api()->library_unload(l);

  l = library(di_ir, "di", "Tuple(float64, int32)(Tuple(float64, int32))");
  di c = T_HOST_FN(di(*)(di), l)((di){0.5, -7});
  ck_assert(c.d == 1.5 && c.i == -7);
  t_api()->library_unload(l);

  l = library(h3_ir, "h3", "UniTuple(int16 x 3)(UniTuple(int16 x 3))");
  h3 d = T_HOST_FN(h3(*)(h3), l)((h3){{-300, 2, 3}});
  ck_assert(d.v[0] == -600 && d.v[1] == 2 && d.v[2] == 3);
  t_api()->library_unload(l);

  /* 24 bytes: in memory both ways (byval, sret) */
  l = library(l3_ir, "l3", "UniTuple(int64 x 3)(UniTuple(int64 x 3))");
  l3 e = T_HOST_FN(l3(*)(l3), l)((l3){{1ll << 40, -2, 3}});
  ck_assert(e.v[0] == 1ll << 41 && e.v[1] == -2 && e.v[2] == 3);
  l3 lin = {{5, 6, 7}}, lout = {{0}};
  cuplug_value vl = {CUPLUG_TYPE_TUPLE, &lin};
  t_host_call(l, &vl, 1, &lout, sizeof lout);
  ck_assert(lout.v[0] == 10 && lout.v[1] == 6 && lout.v[2] == 7);
  t_api()->library_unload(l);

  l = library(ci_ir, "ci", "Tuple(complex64, int32)(Tuple(complex64, int32))");
  ci f = T_HOST_FN(ci(*)(ci), l)((ci){0.5f - 2.0f * I, 9});
  ck_assert(crealf(f.c) == 1.5f && cimagf(f.c) == -2.0f && f.i == 9);
  t_api()->library_unload(l);
}
END_TEST

/* ---- CPointer and arrays ---- */

static const char ptr_ir[] =
    "define double @at(double* %p, i32 %i) {\n  %q = getelementptr double, double* %p, i32 %i\n"
    "  %v = load double, double* %q\n  ret double %v\n}\n";

/* data[1] + nitems, and the array from its second element on */
static const char arr_ir[] =
    "define float @second(i8* %mi, i8* %pa, i64 %n, i64 %size, float* %data, i64 %shape,\n"
    "                     i64 %stride) {\n"
    "  %q = getelementptr float, float* %data, i64 1\n  %v = load float, float* %q\n"
    "  %nf = sitofp i64 %n to float\n  %r = fadd float %v, %nf\n  ret float %r\n}\n";
static const char tail_ir[] =
    "%arr = type {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}\n"
    "define %arr @tail(i8* %mi, i8* %pa, i64 %n, i64 %size, float* %data, i64 %shape,\n"
    "                  i64 %stride) {\n"
    "  %q = getelementptr float, float* %data, i64 1\n  %n1 = sub i64 %n, 1\n"
    "  %v0 = insertvalue %arr undef, i8* %mi, 0\n  %v1 = insertvalue %arr %v0, i8* %pa, 1\n"
    "  %v2 = insertvalue %arr %v1, i64 %n1, 2\n  %v3 = insertvalue %arr %v2, i64 %size, 3\n"
    "  %v4 = insertvalue %arr %v3, float* %q, 4\n  %v5 = insertvalue %arr %v4, i64 %n1, 5, 0\n"
    "  %v6 = insertvalue %arr %v5, i64 %stride, 6, 0\n  ret %arr %v6\n}\n";

START_TEST(pointers_and_arrays) {
  cuplug_library *l = library(ptr_ir, "at", "float64(CPointer(float64), int32)");
  double xs[3] = {0.5, 1.5, 2.5};
  ck_assert(T_HOST_FN(double (*)(double *, int32_t), l)(xs, 2) == 2.5);
  t_api()->library_unload(l);

  float data[4] = {1.0f, 2.25f, 3.0f, 4.0f};
  array1 a = {NULL, NULL, 4, 4, data, {4}, {4}};
  l = library(arr_ir, "second", "float32(float32[::1])");
  ck_assert(T_HOST_FN(float (*)(array1), l)(a) == 6.25f);
  cuplug_array ca = {.data = (uint64_t)(uintptr_t)data, .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 1,
                     .shape = {4}, .strides = {4}};
  cuplug_value v = {CUPLUG_TYPE_ARRAY, &ca};
  float r = 0;
  t_host_call(l, &v, 1, &r, sizeof r);
  ck_assert(r == 6.25f);
  t_api()->library_unload(l);

  l = library(tail_ir, "tail", "float32[::1](float32[::1])");
  array1 t = T_HOST_FN(array1(*)(array1), l)(a);
  ck_assert(t.nitems == 3 && t.itemsize == 4 && t.data == data + 1 && t.shape[0] == 3 &&
            t.strides[0] == 4 && !t.meminfo && !t.parent);
  array1 tr;
  memset(&tr, 0xff, sizeof tr);
  t_host_call(l, &v, 1, &tr, sizeof tr);
  ck_assert(tr.nitems == 3 && tr.data == data + 1 && tr.shape[0] == 3 && !tr.meminfo);
  t_api()->library_unload(l);
}
END_TEST

/* ---- declare_device's host functions, called from the JIT'd code ---- */

static float _Complex host_cmul(float _Complex a, float _Complex b) { return a * b; }
static int host_swap(id *ret, id t) { /* the Numba ABI */
  *ret = (id){(int64_t)t.d, (double)t.i};
  return 0;
}
static int32_t host_narrow(int8_t a, uint16_t b) { return a * (int32_t)b; }
static l3 host_rev(l3 t) { return (l3){{t.v[2], t.v[1], t.v[0]}}; }
static float host_first(array1 a) { return a.data[0] * (float)a.nitems; }

static void declare(const char *name, const char *sig, cuplug_abi abi, void *fn) {
  cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = t_api()->session_registry(s),
                                  .name = name, .signature = sig, .abi = abi,
                                  .host_function = fn};
  T_ASSERT_OK(t_api()->declare_device(&d));
}

static const char calls_ir[] =
    "%arr = type {i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}\n"
    "declare {float, float} @ext_cmul(float, float, float, float)\n"
    "declare i32 @ext_swap({i64, double}*, i64, double)\n"
    "declare i32 @ext_narrow(i8, i16)\n"
    "declare [3 x i64] @ext_rev(i64, i64, i64)\n"
    "declare float @ext_first(i8*, i8*, i64, i64, float*, i64, i64)\n"
    /* (re, im) * (3 - 1j) + ext_swap((7, 2.5)) + narrow(-3, 40000) + rev(1, 2, 3)[0]
     * + first(data): every call's result summed into the real part */
    "define {float, float} @use(float %re, float %im, float* %data) {\n"
    "  %c = call {float, float} @ext_cmul(float %re, float %im, float 3.0, float -1.0)\n"
    "  %cr = extractvalue {float, float} %c, 0\n  %ci = extractvalue {float, float} %c, 1\n"
    "  %slot = alloca {i64, double}\n"
    "  %st = call i32 @ext_swap({i64, double}* %slot, i64 7, double 2.5)\n"
    "  %sw = load {i64, double}, {i64, double}* %slot\n"
    "  %s0 = extractvalue {i64, double} %sw, 0\n  %s1 = extractvalue {i64, double} %sw, 1\n"
    "  %n = call i32 @ext_narrow(i8 -3, i16 40000)\n"
    "  %rv = call [3 x i64] @ext_rev(i64 1, i64 2, i64 3)\n"
    "  %r0 = extractvalue [3 x i64] %rv, 0\n"
    "  %f = call float @ext_first(i8* null, i8* null, i64 2, i64 4, float* %data, i64 2, i64 4)\n"
    "  %s0f = sitofp i64 %s0 to float\n  %s1f = fptrunc double %s1 to float\n"
    "  %nf = sitofp i32 %n to float\n  %r0f = sitofp i64 %r0 to float\n"
    "  %a1 = fadd float %cr, %s0f\n  %a2 = fadd float %a1, %s1f\n  %a3 = fadd float %a2, %nf\n"
    "  %a4 = fadd float %a3, %r0f\n  %a5 = fadd float %a4, %f\n"
    "  %v0 = insertvalue {float, float} undef, float %a5, 0\n"
    "  %v1 = insertvalue {float, float} %v0, float %ci, 1\n  ret {float, float} %v1\n}\n";

START_TEST(host_functions_called_by_the_c_abi) {
  declare("ext_cmul", "complex64(complex64, complex64)", CUPLUG_ABI_C,
          (void *)(uintptr_t)host_cmul);
  declare("ext_swap", "Tuple(int64, float64)(Tuple(int64, float64))", CUPLUG_ABI_NUMBA,
          (void *)(uintptr_t)host_swap);
  declare("ext_narrow", "int32(int8, uint16)", CUPLUG_ABI_C, (void *)(uintptr_t)host_narrow);
  declare("ext_rev", "UniTuple(int64 x 3)(UniTuple(int64 x 3))", CUPLUG_ABI_C,
          (void *)(uintptr_t)host_rev);
  declare("ext_first", "float32(float32[::1])", CUPLUG_ABI_C, (void *)(uintptr_t)host_first);
  cuplug_library *l = library(calls_ir, "use", "complex64(complex64, CPointer(float32))");
  float data[2] = {0.75f, 9.0f};
  typedef float _Complex (*cf_fn)(float _Complex, float *);
  cf_fn fn = T_HOST_FN(cf_fn, l);
  float _Complex z = fn(1.0f + 2.0f * I, data);
  /* (1+2j)(3-1j) = 5+5j; swap gives (2, 7.0); -3 * 40000; rev's first is 3;
   * first gives 0.75 * 2 */
  ck_assert_msg(crealf(z) == 5.0f + 2 + 7 - 120000 + 3 + 1.5f && cimagf(z) == 5.0f,
                "got %.9g%+.9gj", crealf(z), cimagf(z));
  t_api()->library_unload(l);
}
END_TEST

/* ---- a device function exported under the Numba ABI ---- */

/* int conj(complex64 *ret, complex64 z): its result through the slot */
static const char conj_ir[] =
    "define i32 @conj({float, float}* %ret, float %re, float %im) {\n"
    "  %n = fneg float %im\n"
    "  %v0 = insertvalue {float, float} undef, float %re, 0\n"
    "  %v1 = insertvalue {float, float} %v0, float %n, 1\n"
    "  store {float, float} %v1, {float, float}* %ret\n  ret i32 0\n}\n";

START_TEST(numba_abi_export) {
  cuplug_library *l = library_abi(conj_ir, "conj", "complex64(complex64)", CUPLUG_ABI_NUMBA);
  float _Complex r = 0;
  ck_assert_int_eq(T_HOST_FN(int (*)(float _Complex *, float _Complex), l)(&r, 1.5f + 2.0f * I), 0);
  ck_assert(crealf(r) == 1.5f && cimagf(r) == -2.0f);
  /* host_call knows the entry's ABI: the slot is its own, the result the
   * value (before, it called the Numba-ABI function as a C-ABI one, which
   * crashed the host) */
  float z[2] = {3.0f, 4.0f};
  float got[2] = {0, 0};
  cuplug_value v[] = {{CUPLUG_TYPE_COMPLEX64, z}};
  t_host_call(l, v, 1, got, sizeof got);
  ck_assert(got[0] == 3.0f && got[1] == -4.0f);
  t_api()->library_unload(l);
}
END_TEST

/* int raise7(int64 *ret, int32 x): numba's status 7, a user exception */
static const char raise_ir[] =
    "define i32 @raise7(i64* %ret, i32 %x) {\n"
    "  %w = sext i32 %x to i64\n  store i64 %w, i64* %ret\n  ret i32 7\n}\n";

START_TEST(numba_abi_status) {
  cuplug_library *l = library_abi(raise_ir, "raise7", "int64(int32)", CUPLUG_ABI_NUMBA);
  int32_t x = 5;
  int64_t r = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_INT32, &x}};
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = v,
                             .num_args = 1, .result = &r, .result_size = sizeof r};
  T_ASSERT_ERROR(t_api()->host_call(&c), CUPLUG_ERR_KERNEL_EXCEPTION,
                 "call raise7 raised exception 7");
  t_api()->library_unload(l);
}
END_TEST

static void setup(void) { T_ASSERT_OK(t_api()->session_create(NULL, &s)); }
static void teardown(void) { t_api()->session_destroy(s); }

static Suite *suite_cabi(void) {
  Suite *suite = suite_create("cabi");
  TCase *tc = t_tcase(suite, "scalars", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, scalars);
  tcase_add_test(tc, assert_in_a_call);
  tc = t_tcase(suite, "complex", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, complex_numbers);
  tc = t_tcase(suite, "tuples", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, tuples);
  tc = t_tcase(suite, "arrays", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, pointers_and_arrays);
  tc = t_tcase(suite, "host_functions", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, host_functions_called_by_the_c_abi);
  tc = t_tcase(suite, "numba_abi", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, numba_abi_export);
  tcase_add_test(tc, numba_abi_status);
  return suite;
}

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"cabi", suite_cabi}};
  return t_main(argc, argv, suites, 1);
}
