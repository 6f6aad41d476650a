/* test_types.c - the types of 1.3 through a whole compile, on the CPU: a
 * record, a function pointer, bfloat16, an omitted and an opaque argument,
 * a struct by value and an array of structs.
 * The IR is written by hand with numba-cuda 0.30.4's data model for each
 * (a record is a [16 x i8]*, a function pointer R (A)*, an opaque value an
 * i8* nothing reads, an omitted argument no parameter, a struct its
 * members, one parameter each, and {i32, i32} in memory), exported under the
 * C ABI, its wrapper's header checked in the IR handed on, and called: by
 * its C pointer, and by host_call. */
#include <stdlib.h>
#include <string.h>

#include "support.h"

static cuplug_session *s;

#define REC "Record(a: int32 @ 0, b: float64 @ 8, size=16)"

typedef struct rec { /* REC, as a C struct */
  int32_t a;
  double b;
} rec;

/* Compiles `ir` (a Numba-ABI entry) for the host under `abi`, keeps the
 * IR, and loads it; *ir_out gets the IR's text (freed by the caller). */
static cuplug_library *library_abi(const char *ir, const char *entry, const char *sig,
                                   cuplug_abi abi, char **ir_out) {
  cuplug_module m = {sizeof m, "types.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = sig,
                           .entry_abi = CUPLUG_ABI_NUMBA, .abi = abi,
                           .output = CUPLUG_OUTPUT_HOST, .flags = CUPLUG_COMPILE_KEEP_IR};
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_ir_view view = {.struct_size = sizeof view};
  T_ASSERT_OK(t_api()->artifact_ir(a.artifact, 0, &view));
  *ir_out = strdup(view.text);
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  T_ASSERT_OK(t_api()->load(&l));
  t_api()->artifact_destroy(a.artifact);
  return l.library;
}

/* ... under the C ABI */
static cuplug_library *library(const char *ir, const char *entry, const char *sig,
                               char **ir_out) {
  return library_abi(ir, entry, sig, CUPLUG_ABI_C, ir_out);
}


/* a + (int)b, read from the record's bytes */
static const char record_ir[] =
    "define i32 @sum(i32* %ret, [16 x i8]* %r) {\n"
    "  %pa = bitcast [16 x i8]* %r to i32*\n"
    "  %a = load i32, i32* %pa\n"
    "  %p8 = getelementptr [16 x i8], [16 x i8]* %r, i64 0, i64 8\n"
    "  %pb = bitcast i8* %p8 to double*\n"
    "  %b = load double, double* %pb\n"
    "  %bi = fptosi double %b to i32\n"
    "  %s = add i32 %a, %bi\n"
    "  store i32 %s, i32* %ret\n"
    "  ret i32 0\n}\n";

START_TEST(record_argument) {
  char *ir;
  cuplug_library *l = library(record_ir, "sum", "int32(" REC ")", &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine i32 @sum([16 x i8]* %r) {\n");
  free(ir);
  rec r = {5, 2.75};
  ck_assert_int_eq(T_HOST_FN(int32_t(*)(const rec *), l)(&r), 7);
  uint64_t at = (uint64_t)(uintptr_t)&r;
  int32_t got = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_RECORD, &at}};
  r.a = -40;
  t_host_call(l, v, 1, &got, sizeof got);
  ck_assert_int_eq(got, -38);
  t_api()->library_unload(l);
}
END_TEST

/* the record back, by reference, with its field b doubled in place */
static const char record_return_ir[] =
    "define i32 @twice_b([16 x i8]** %ret, [16 x i8]* %r) {\n"
    "  %p8 = getelementptr [16 x i8], [16 x i8]* %r, i64 0, i64 8\n"
    "  %pb = bitcast i8* %p8 to double*\n"
    "  %b = load double, double* %pb\n"
    "  %b2 = fadd double %b, %b\n"
    "  store double %b2, double* %pb\n"
    "  store [16 x i8]* %r, [16 x i8]** %ret\n"
    "  ret i32 0\n}\n";

START_TEST(record_return) {
  char *ir;
  cuplug_library *l = library(record_return_ir, "twice_b", REC "(" REC ")", &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine [16 x i8]* @twice_b([16 x i8]* %r) {\n");
  free(ir);
  rec r = {1, 1.25};
  ck_assert_ptr_eq(T_HOST_FN(rec * (*)(rec *), l)(&r), &r);
  ck_assert(r.b == 2.5);
  uint64_t at = (uint64_t)(uintptr_t)&r, back = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_RECORD, &at}};
  t_host_call(l, v, 1, &back, sizeof back);
  ck_assert_uint_eq(back, at);
  ck_assert(r.b == 5.0);
  t_api()->library_unload(l);
}
END_TEST

/* x * 2: an omitted argument has no parameter, an opaque one an i8* */
static const char omitted_ir[] =
    "define i32 @dbl(i32* %ret, i32 %x, i8* %module) {\n"
    "  %d = shl i32 %x, 1\n"
    "  store i32 %d, i32* %ret\n"
    "  ret i32 0\n}\n";

START_TEST(omitted_and_opaque_arguments) {
  char *ir;
  cuplug_library *l = library(omitted_ir, "dbl",
                              "int32(int32, Omitted(\"3\"), Opaque(\"Module(math)\"))", &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine i32 @dbl(i32 %x, i8* %module) {\n");
  free(ir);
  ck_assert_int_eq(T_HOST_FN(int32_t(*)(int32_t, void *), l)(21, NULL), 42);
  int32_t x = -8, got = 0;
  /* the values skip the omitted argument; the opaque one's data may be NULL */
  cuplug_value v[] = {{CUPLUG_TYPE_INT32, &x}, {CUPLUG_TYPE_OPAQUE, NULL}};
  t_host_call(l, v, 2, &got, sizeof got);
  ck_assert_int_eq(got, -16);
  cuplug_value three[] = {{CUPLUG_TYPE_INT32, &x}, {CUPLUG_TYPE_INT32, &x},
                          {CUPLUG_TYPE_OPAQUE, NULL}};
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = three,
                             .num_args = 3, .result = &got, .result_size = sizeof got};
  T_ASSERT_ERROR(t_api()->host_call(&c), CUPLUG_ERR_LAUNCH_ARGS,
                 "call dbl takes 2 arguments (int32(int32, Omitted(\"3\"), "
                 "Opaque(\"Module(math)\"))), got 3");
  t_api()->library_unload(l);
}
END_TEST

/* f(x) + 1 through a function pointer */
static const char fnptr_ir[] =
    "define i32 @apply(double* %ret, double (double)* %f, double %x) {\n"
    "  %y = call double %f(double %x)\n"
    "  %z = fadd double %y, 1.0\n"
    "  store double %z, double* %ret\n"
    "  ret i32 0\n}\n";

static double square(double x) { return x * x; }

START_TEST(function_pointer_argument) {
  char *ir;
  cuplug_library *l = library(fnptr_ir, "apply", "float64(CPointer(float64(float64)), float64)",
                              &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine double @apply(double (double)* %f, double %x) {\n");
  free(ir);
  ck_assert(T_HOST_FN(double (*)(double (*)(double), double), l)(square, 3.0) == 10.0);
  uint64_t f = (uint64_t)(uintptr_t)square;
  double x = 0.5, got = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &f}, {CUPLUG_TYPE_FLOAT64, &x}};
  t_host_call(l, v, 2, &got, sizeof got);
  ck_assert(got == 1.25);
  t_api()->library_unload(l);
}
END_TEST

/* -x for a bfloat16: its sign bit flipped */
static const char bf16_ir[] =
    "define i32 @neg(i16* %ret, i16 %x) {\n"
    "  %n = xor i16 %x, -32768\n"
    "  store i16 %n, i16* %ret\n"
    "  ret i32 0\n}\n";

START_TEST(bfloat16_bits) {
  char *ir;
  cuplug_library *l = library(bf16_ir, "neg", "bfloat16(bfloat16)", &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine i16 @neg(i16 %x) {\n");
  free(ir);
  /* bfloat16 1.5 is 0x3fc0, -1.5 0xbfc0 */
  ck_assert_uint_eq(T_HOST_FN(uint16_t(*)(uint16_t), l)(0x3fc0), 0xbfc0);
  uint16_t x = 0xbfc0, got = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_BFLOAT16, &x}};
  t_host_call(l, v, 1, &got, sizeof got);
  ck_assert_uint_eq(got, 0x3fc0);
  t_api()->library_unload(l);
}
END_TEST

/* {x * k, y * k}: a struct by value, its members one parameter each, and
 * returned through its struct's slot */
static const char struct_ir[] =
    "define i32 @scale({i32, float}* %ret, i32 %x, float %y, i32 %k) {\n"
    "  %x2 = mul i32 %x, %k\n"
    "  %kf = sitofp i32 %k to float\n"
    "  %y2 = fmul float %y, %kf\n"
    "  %s0 = insertvalue {i32, float} undef, i32 %x2, 0\n"
    "  %s1 = insertvalue {i32, float} %s0, float %y2, 1\n"
    "  store {i32, float} %s1, {i32, float}* %ret\n"
    "  ret i32 0\n}\n";

typedef struct xy { /* Struct(x: int32, y: float32) */
  int32_t x;
  float y;
} xy;

/* {b, a}: of one type throughout, still the struct {i32, i32} */
static const char swap_ir[] =
    "define i32 @swap({i32, i32}* %ret, i32 %a, i32 %b) {\n"
    "  %s0 = insertvalue {i32, i32} undef, i32 %b, 0\n"
    "  %s1 = insertvalue {i32, i32} %s0, i32 %a, 1\n"
    "  store {i32, i32} %s1, {i32, i32}* %ret\n"
    "  ret i32 0\n}\n";

typedef struct ab { /* Struct(a: int32, b: int32) */
  int32_t a, b;
} ab;

START_TEST(struct_by_value) {
  char *ir;
  cuplug_library *l = library(struct_ir, "scale",
                              "Struct(x: int32, y: float32)(Struct(x: int32, y: float32), int32)",
                              &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine {i32, float} @scale(i32 %x, float %y, i32 %k) {\n");
  free(ir);
  xy r = T_HOST_FN(xy(*)(xy, int32_t), l)((xy){-7, 1.25f}, 3);
  ck_assert_int_eq(r.x, -21);
  ck_assert(r.y == 3.75f);
  xy in = {100000, -0.5f}, out = {0, 0};
  int32_t k = -4;
  cuplug_value v[] = {{CUPLUG_TYPE_STRUCT, &in}, {CUPLUG_TYPE_INT32, &k}};
  t_host_call(l, v, 2, &out, sizeof out);
  ck_assert_int_eq(out.x, -400000);
  ck_assert(out.y == 2.0f);
  /* a struct is no tuple: a tuple's value is refused */
  cuplug_value t[] = {{CUPLUG_TYPE_TUPLE, &in}, {CUPLUG_TYPE_INT32, &k}};
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = t, .num_args = 2,
                             .result = &out, .result_size = sizeof out};
  T_ASSERT_ERROR(t_api()->host_call(&c), CUPLUG_ERR_LAUNCH_ARGS,
                 "call scale, argument 0 (Struct(x: int32, y: float32)): got a tuple");
  t_api()->library_unload(l);
  /* exported under the Numba ABI, host_call gives the function a slot of the struct's size */
  l = library_abi(struct_ir, "scale",
                  "Struct(x: int32, y: float32)(Struct(x: int32, y: float32), int32)",
                  CUPLUG_ABI_NUMBA, &ir);
  free(ir);
  out = (xy){0, 0};
  t_host_call(l, v, 2, &out, sizeof out);
  ck_assert_int_eq(out.x, -400000);
  ck_assert(out.y == 2.0f);
  t_api()->library_unload(l);

  l = library(swap_ir, "swap", "Struct(a: int32, b: int32)(Struct(a: int32, b: int32))", &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine {i32, i32} @swap(i32 %a, i32 %b) {\n");
  free(ir);
  ab s = T_HOST_FN(ab(*)(ab), l)((ab){1, -2});
  ck_assert(s.a == -2 && s.b == 1);
  ab sin = {INT32_MIN, 9}, sout = {0, 0};
  cuplug_value sv[] = {{CUPLUG_TYPE_STRUCT, &sin}};
  t_host_call(l, sv, 1, &sout, sizeof sout);
  ck_assert(sout.a == 9 && sout.b == INT32_MIN);
  t_api()->library_unload(l);
}
END_TEST

/* sum of a * b over an array of Struct(a: int32, b: int32), plus 1000 *
 * its itemsize: its data is {i32, i32}*, as numba-cuda's IR has it */
static const char struct_array_ir[] =
    "define i32 @dot(i64* %ret, i8* %mi, i8* %pa, i64 %n, i64 %size, {i32, i32}* %data,\n"
    "                i64 %shape, i64 %stride) {\n"
    "entry:\n  br label %loop\n"
    "loop:\n"
    "  %i = phi i64 [0, %entry], [%i1, %loop]\n"
    "  %acc = phi i64 [0, %entry], [%acc1, %loop]\n"
    "  %pa_i = getelementptr {i32, i32}, {i32, i32}* %data, i64 %i, i32 0\n"
    "  %pb_i = getelementptr {i32, i32}, {i32, i32}* %data, i64 %i, i32 1\n"
    "  %a = load i32, i32* %pa_i\n  %b = load i32, i32* %pb_i\n"
    "  %ab = mul i32 %a, %b\n  %ab64 = sext i32 %ab to i64\n"
    "  %acc1 = add i64 %acc, %ab64\n  %i1 = add i64 %i, 1\n"
    "  %more = icmp slt i64 %i1, %n\n  br i1 %more, label %loop, label %done\n"
    "done:\n  %k = mul i64 %size, 1000\n  %r = add i64 %acc1, %k\n"
    "  store i64 %r, i64* %ret\n  ret i32 0\n}\n";

START_TEST(struct_array_argument) {
  char *ir;
  cuplug_library *l = library(struct_array_ir, "dot", "int64(Struct(a: int32, b: int32)[::1])",
                              &ir);
  T_ASSERT_CONTAINS(ir, "\ndefine i64 @dot(i8* %mi, i8* %pa, i64 %n, i64 %size, {i32, i32}* "
                        "%data,");
  free(ir);
  ab items[3] = {{2, 3}, {-4, 5}, {7, -1}};
  cuplug_array arr = {.data = (uint64_t)(uintptr_t)items, .dtype = CUPLUG_TYPE_STRUCT,
                      .ndim = 1, .shape = {3}, .strides = {8}};
  int64_t got = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &arr}};
  t_host_call(l, v, 1, &got, sizeof got);
  ck_assert_int_eq(got, 6 - 20 - 7 + 8000);
  /* an item is 8 bytes: a stride of 4 is no C-contiguous array of them */
  arr.strides[0] = 4;
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = v, .num_args = 1,
                             .result = &got, .result_size = sizeof got};
  T_ASSERT_ERROR(t_api()->host_call(&c), CUPLUG_ERR_LAUNCH_ARGS,
                 "call dot, argument 0 (Struct(a: int32, b: int32)[::1]): its strides are not "
                 "C-contiguous");
  t_api()->library_unload(l);
}
END_TEST

static void setup(void) { T_ASSERT_OK(t_api()->session_create(NULL, &s)); }
static void teardown(void) { t_api()->session_destroy(s); }

static Suite *suite_types(void) {
  Suite *suite = suite_create("types");
  TCase *tc = t_tcase(suite, "records", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, record_argument);
  tcase_add_test(tc, record_return);
  tc = t_tcase(suite, "no_value", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, omitted_and_opaque_arguments);
  tc = t_tcase(suite, "function_pointers", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, function_pointer_argument);
  tc = t_tcase(suite, "bfloat16", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, bfloat16_bits);
  tc = t_tcase(suite, "structs", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, struct_by_value);
  tcase_add_test(tc, struct_array_argument);
  return suite;
}

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"types", suite_types}};
  return t_main(argc, argv, suites, 1);
}
