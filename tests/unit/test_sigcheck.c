/* test_sigcheck.c - a signature that disagrees with the IR is caught
 * before anything runs (issue 19, part 1).
 *
 * Types as IR text spells them (lowering/irtype.h); every type of the
 * signature language against the IR header numba-cuda writes for it, and
 * the message of each kind of disagreement (lowering/sigcheck.h); then
 * compiles through the table: the issue's reproductions, a trusted session,
 * the GPU path, declared functions, opaque pointers, types only LLVM can
 * check, and every corpus case under its own signature. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/types.h"
#include "lowering/irtype.h"
#include "lowering/sigcheck.h"
#include "support.h"

#define ADD_I32                                                                \
  "_ZN8__main__7add_i32B2v1B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOI" \
  "gxJU0gCqOkEJoHkbttqdSBL3UrBuFYTAA_3d_3dEii"
#define SAXPY                                                                  \
  "_ZN8__main__5saxpyB3v19B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOI" \
  "gxJU0gCqOkEJoHkbttqdSBL3UrBuFYTAA_3d_3dE5ArrayIfLi1E1C7mutable7alignedE5Arr" \
  "ayIfLi1E1C7mutable7alignedE5ArrayIfLi1E1C7mutable7alignedEf"

/* ---- spellings ---- */

/* The spelling of `type` (a string), or "(unreadable)". */
static const char *spell(const char *type, bool opaque) {
  static char out[512];
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, "kept:"); /* what was there stays on failure */
  bool ok = cuplug__ir_type_spell_string(type, opaque, &b);
  ck_assert_str_eq(b.data ? b.data : "", ok ? b.data : "kept:");
  snprintf(out, sizeof out, "%s", ok ? b.data + 5 : "(unreadable)");
  cuplug__buf_free(&b);
  return out;
}

START_TEST(spellings_are_llvmlites) {
  ck_assert_str_eq(spell("i32", false), "i32");
  ck_assert_str_eq(spell("{ float,float }", false), "{float, float}");
  ck_assert_str_eq(spell("{}", false), "{}");
  ck_assert_str_eq(spell("<{ i8, i32 }>", false), "<{i8, i32}>");
  ck_assert_str_eq(spell("[ 4 x i8 ]*", false), "[4 x i8]*");
  ck_assert_str_eq(spell("[004 x [2 x double]]", false), "[4 x [2 x double]]");
  ck_assert_str_eq(spell("<4 x float>", false), "<4 x float>");
  ck_assert_str_eq(spell("i8**", false), "i8**");
  ck_assert_str_eq(spell("i8 addrspace(0)*", false), "i8*");
  ck_assert_str_eq(spell("i8 addrspace(1)* addrspace(3)*", false), "i8 addrspace(1)* addrspace(3)*");
  ck_assert_str_eq(spell("void (i8*, ...)*", false), "void (i8*, ...)*");
  ck_assert_str_eq(spell("i32 ()", false), "i32 ()");
  ck_assert_str_eq(spell("ptr", false), "ptr");
  ck_assert_str_eq(spell("ptr addrspace(0)", false), "ptr");
  ck_assert_str_eq(spell("ptr addrspace(5)", false), "ptr addrspace(5)");
  ck_assert_str_eq(spell("{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", false),
                   "{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}");
}
END_TEST

START_TEST(opaque_spellings_forget_pointees) {
  ck_assert_str_eq(spell("i8**", true), "ptr");
  ck_assert_str_eq(spell("{float, float}*", true), "ptr");
  ck_assert_str_eq(spell("i8 addrspace(1)* addrspace(3)*", true), "ptr addrspace(3)");
  ck_assert_str_eq(spell("float addrspace(1)*", true), "ptr addrspace(1)");
  ck_assert_str_eq(spell("{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}", true),
                   "{ptr, ptr, i64, i64, ptr, [1 x i64], [1 x i64]}");
  ck_assert_str_eq(spell("void (i8*)*", true), "ptr");
  ck_assert_str_eq(spell("double", true), "double");
}
END_TEST

START_TEST(unreadable_spellings) {
  static const char *const bad[] = {"",        "i8 i8",  "[4 x]",     "foo",      "{i8",
                                    "i8*)",    "[x 4 i8]", "<vscale x 4 x i32>", "target(\"t\")",
                                    "%T*",     "i8 addrspace(x)*", "[-1 x i8]", "{i8,}",
                                    "i32 (...", "x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(strcmp(spell(bad[i], false), "(unreadable)") == 0, "'%s' read as '%s'", bad[i],
                  spell(bad[i], false));
}
END_TEST

/* Named types in a module: followed to their bodies, unless opaque,
 * recursive or missing. */
START_TEST(named_types_are_their_bodies) {
  static const char text[] =
      "%C = type { float, float }\n"
      "%\"W x\" = type { %C, [2 x %C*] }\n"
      "%O = type opaque\n"
      "%L = type { %L*, i32 }\n"
      "declare void @f(%C*, %\"W x\", %O*, %L, %M)\n";
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "t.ll", text, strlen(text), NULL));
  ir_function fn;
  T_ASSERT_OK(cuplug__ir_function_parse(&m, &m.items[4], &fn));
  ck_assert_uint_eq(fn.num_params, 5);
  static const char *const want[] = {"{float, float}*", "{{float, float}, [2 x {float, float}*]}",
                                     NULL, NULL, NULL};
  for (size_t i = 0; i < 5; i++) {
    const ir_tok *toks;
    size_t n = cuplug__ir_slice(&m, fn.params[i].type.start, fn.params[i].type.end, &toks);
    ir_type_text t = {.m = &m, .text = text, .toks = toks, .n = n};
    cuplug__buf b;
    cuplug__buf_init(&b);
    bool ok = cuplug__ir_type_spell(&t, &b, NULL);
    ck_assert_msg(ok == (want[i] != NULL), "parameter %zu", i);
    if (want[i]) ck_assert_str_eq(b.data, want[i]);
    cuplug__buf_free(&b);
  }
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
}
END_TEST

/* ---- headers against signatures ---- */

/* Checks @f of `ir` (its first define or declare) against `sig` under
 * `abi`: NULL when they agree, else the message (a static copy). */
static const char *check(const char *ir, const char *sig, cuplug_abi abi, bool *known) {
  static char message[1024];
  const cuplug_type *t;
  T_ASSERT_OK(cuplug__signature_parse(sig, &t));
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "t.ll", ir, strlen(ir), NULL));
  const ir_item *it = cuplug__ir_module_find(&m, IR_ITEM_DECLARE, "f");
  if (!it) it = cuplug__ir_module_find(&m, IR_ITEM_DEFINE, "f");
  ck_assert_ptr_nonnull(it);
  ir_function fn;
  T_ASSERT_OK(cuplug__ir_function_parse(&m, it, &fn));
  cuplug__sig_check c = {"entry", "f", NULL, t, abi, CUPLUG_ERR_ENTRY_MISMATCH};
  cuplug_error *e = cuplug__ir_check_signature(&m, &fn, &c, known);
  cuplug__ir_function_free(&fn);
  cuplug__ir_module_free(&m);
  if (!e) return NULL;
  ck_assert_int_eq(t_api()->error_code(e), CUPLUG_ERR_ENTRY_MISMATCH);
  snprintf(message, sizeof message, "%s", t_api()->error_message(e));
  t_api()->error_destroy(e);
  return message;
}

#define AGREE(ir, sig, abi)                                                    \
  do {                                                                         \
    bool known_ = false;                                                       \
    const char *m_ = check((ir), (sig), (abi), &known_);                       \
    ck_assert_msg(m_ == NULL, "%s: %s", (sig), m_);                            \
    ck_assert_msg(known_, "%s: not read", (sig));                              \
  } while (0)

#define DISAGREE(ir, sig, abi, message)                                        \
  do {                                                                         \
    bool known_ = false;                                                       \
    const char *m_ = check((ir), (sig), (abi), &known_);                       \
    ck_assert_msg(m_ != NULL, "%s agrees", (sig));                             \
    ck_assert_str_eq(m_, (message));                                           \
    ck_assert(known_);                                                         \
  } while (0)

#define NUMBA CUPLUG_ABI_NUMBA
#define C_ABI CUPLUG_ABI_C

/* numba-cuda's spelling of each type of the signature language: bool an
 * i8 in memory and in calls, float16 an i16, complex a {re, im} struct
 * split in two as an argument, CPointer(T) T's memory type and '*', arrays
 * the seven members flattened, tuples [N x T] or a struct, flattened, an
 * integer literal an i64, a number class nothing; void returns through i8**. */
START_TEST(every_type_agrees_with_numbas_spelling) {
  AGREE("declare i32 @f(i64*, i32, i32)", "int64(int32, int32)", NUMBA);
  AGREE("declare i32 @f(i8* %r, i8 %a, i8 %b, i8 %c)", "bool(bool, bool, bool)", NUMBA);
  AGREE("declare i32 @f(i64*, i8, i8)", "uint64(uint8, uint8)", NUMBA);
  AGREE("declare i32 @f(i16*, i16, i16, i32, i64)", "float16(float16, int16, uint32, uint64)",
        NUMBA);
  AGREE("declare i32 @f(float*, float, double)", "float32(float32, float64)", NUMBA);
  AGREE("declare i32 @f(double*, float*, i32)", "float64(CPointer(float32), int32)", NUMBA);
  AGREE("declare i32 @f({float, float}*, float, float)", "complex64(complex64)", NUMBA);
  AGREE("declare i32 @f({double, double}*, double, double)", "complex128(complex128)", NUMBA);
  AGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, float*, i64, i64)", "void(float32[::1])",
        NUMBA);
  AGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, i8*, i64, i64, i64, i64, i32)",
        "void(bool[:, :], int32)", NUMBA);
  AGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, {float, float}*, i64, i64, i64, i64)",
        "void(complex64[:, ::1])", NUMBA);
  AGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, i16*, i64, i64)", "void(float16[::1])", NUMBA);
  AGREE("declare i32 @f({i8*, i8*, i64, i64, double*, [2 x i64], [2 x i64]}*, i32)",
        "float64[:, :](int32)", NUMBA);
  AGREE("declare i32 @f([2 x i64]*, i32, i32)", "UniTuple(int64 x 2)(UniTuple(int32 x 2))",
        NUMBA);
  AGREE("declare i32 @f({i32, double}*, i32, float, float)",
        "Tuple(int32, float64)(Tuple(int32, complex64))", NUMBA);
  AGREE("declare i32 @f({[2 x i8], {float, float}}*, i64)",
        "Tuple(UniTuple(bool x 2), complex64)(int64)", NUMBA);
  AGREE("declare i32 @f(i64*, i64, i32)", "int64(Literal[int](3), class(float32), int32)",
        NUMBA);
  /* numba's StructModel: the literal struct, where a UniTuple is an array */
  AGREE("declare i32 @f({i32, i32}*, i8*, i8*, i64, i64, {i32, i32}*, i64, i64)",
        "Struct(a: int32, b: int32)(Struct(a: int32, b: int32)[::1])", NUMBA);
  AGREE("declare i32 @f(i8***, {float, float}*)", "CPointer(CPointer(int8))(CPointer(complex64))",
        NUMBA);
  /* the C ABI: the value returned, the same arguments */
  AGREE("declare i64 @f(i32, i32)", "int64(int32, int32)", C_ABI);
  AGREE("declare void @f(float*)", "void(CPointer(float32))", C_ABI);
  AGREE("declare {float, float} @f(float, float)", "complex64(complex64)", C_ABI);
  AGREE("declare i8 @f(i8)", "bool(bool)", C_ABI);
  AGREE("declare [3 x double] @f(i8*, i8*, i64, i64, double*, i64, i64)",
        "UniTuple(float64 x 3)(float64[::1])", C_ABI);
}
END_TEST

/* Other spellings of the same types, and what follows a type. */
START_TEST(other_spellings_agree) {
  AGREE("define i32 @f(i64* noalias nocapture %\".ret\", i32 zeroext %\"x\") {\n"
        "  ret i32 0\n}\n",
        "int64(int32)", NUMBA);
  AGREE("declare i32 @f({ float , float }*, float, float)", "complex64(complex64)", NUMBA);
  AGREE("%C = type { float, float }\ndeclare i32 @f(%C*, float, float)", "complex64(complex64)",
        NUMBA);
  AGREE("declare i32 @f(i64 addrspace(0)*, i32)", "int64(int32)", NUMBA);
  AGREE("declare i32 @f(\n  i64*,\n  i32)", "int64(int32)", NUMBA);
  AGREE("declare i32 @f(i8**)", "void()", NUMBA);
  AGREE("declare void @f()", "void()", C_ABI);
}
END_TEST

START_TEST(the_return_slot_names_the_return_type) {
  DISAGREE("declare i32 @f(i64*, i32, i32)", "int8(int32, int32)", NUMBA,
           "entry @f does not match signature 'int8(int32, int32)' under the Numba ABI: "
           "parameter 0 (the return slot) is i64* in the IR; the signature's return type int8 "
           "wants i8*");
  DISAGREE("declare i32 @f(i64*, i32, i32)", "float64(int32, int32)", NUMBA,
           "entry @f does not match signature 'float64(int32, int32)' under the Numba ABI: "
           "parameter 0 (the return slot) is i64* in the IR; the signature's return type "
           "float64 wants double*");
  DISAGREE("declare i32 @f({float, float}*, float, float)", "complex128(complex64)", NUMBA,
           "entry @f does not match signature 'complex128(complex64)' under the Numba ABI: "
           "parameter 0 (the return slot) is {float, float}* in the IR; the signature's return "
           "type complex128 wants {double, double}*");
  DISAGREE("declare i32 @f(i64*)", "void()", NUMBA,
           "entry @f does not match signature 'void()' under the Numba ABI: parameter 0 (the "
           "return slot) is i64* in the IR; the signature's return type void wants i8**");
}
END_TEST

START_TEST(arguments_are_named_by_their_parts) {
  DISAGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, float*, i64, i64, float)",
           "void(int8[::1], float32)", NUMBA,
           "entry @f does not match signature 'void(int8[::1], float32)' under the Numba ABI: "
           "parameter 5 (the data pointer of argument 0) is float* in the IR; the signature's "
           "int8[::1] wants i8*");
  DISAGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, float*, i64, i64, i64, i32)",
           "void(float32[:, :])", NUMBA,
           "entry @f does not match signature 'void(float32[:, :])' under the Numba ABI: "
           "parameter 9 (strides[1] of argument 0) is i32 in the IR; the signature's "
           "float32[:, :] wants i64");
  DISAGREE("declare i32 @f(i8**, i8*, i8*, i32, i64, float*, i64, i64)", "void(float32[::1])",
           NUMBA,
           "entry @f does not match signature 'void(float32[::1])' under the Numba ABI: "
           "parameter 3 (nitems of argument 0) is i32 in the IR; the signature's float32[::1] "
           "wants i64");
  DISAGREE("declare i32 @f(i8**, i32, double, float)", "void(int32, complex128)", NUMBA,
           "entry @f does not match signature 'void(int32, complex128)' under the Numba ABI: "
           "parameter 3 (the imaginary part of argument 1) is float in the IR; the signature's "
           "complex128 wants double");
  DISAGREE("declare i32 @f(i8**, i32, float, double)", "void(Tuple(int32, complex64))", NUMBA,
           "entry @f does not match signature 'void(Tuple(int32, complex64))' under the Numba "
           "ABI: parameter 3 (the imaginary part of element 1 of argument 0) is double in the "
           "IR; the signature's Tuple(int32, complex64) wants float");
  DISAGREE("declare i32 @f(i8**, i32, i8*, i8*, i64, i64, i64*, i64, i64)",
           "void(Struct(n: int32, \"v w\": int32[::1]))", NUMBA,
           "entry @f does not match signature 'void(Struct(n: int32, \"v w\": int32[::1]))' "
           "under the Numba ABI: parameter 6 (the data pointer of field 'v w' of argument 0) is "
           "i64* in the IR; the signature's Struct(n: int32, \"v w\": int32[::1]) wants i32*");
  DISAGREE("declare i32 @f(i64*, i32, i32)", "int64(int32, float32)", NUMBA,
           "entry @f does not match signature 'int64(int32, float32)' under the Numba ABI: "
           "parameter 2 (argument 1) is i32 in the IR; the signature's float32 wants float");
  DISAGREE("declare i32 @f(i64*, i8*)", "int64(CPointer(int32))", NUMBA,
           "entry @f does not match signature 'int64(CPointer(int32))' under the Numba ABI: "
           "parameter 1 (argument 0) is i8* in the IR; the signature's CPointer(int32) wants "
           "i32*");
  DISAGREE("declare i32 @f(i64*, i8)", "int64(float16)", NUMBA,
           "entry @f does not match signature 'int64(float16)' under the Numba ABI: parameter "
           "1 (argument 0) is i8 in the IR; the signature's float16 wants i16");
  DISAGREE("declare i32 @f(i64*, i1)", "int64(bool)", NUMBA,
           "entry @f does not match signature 'int64(bool)' under the Numba ABI: parameter 1 "
           "(argument 0) is i1 in the IR; the signature's bool wants i8");
  DISAGREE("declare i32 @f(i64*, i64 addrspace(1)*)", "int64(CPointer(int64))", NUMBA,
           "entry @f does not match signature 'int64(CPointer(int64))' under the Numba ABI: "
           "parameter 1 (argument 0) is i64 addrspace(1)* in the IR; the signature's "
           "CPointer(int64) wants i64*");
}
END_TEST

START_TEST(counts_returns_and_varargs) {
  DISAGREE("declare i32 @f(i64*, i32, i32)", "int64(int32)", NUMBA,
           "entry @f does not match signature 'int64(int32)' under the Numba ABI: the IR has 3 "
           "parameters; the signature wants 2 (the return slot, then 1 for its arguments)");
  DISAGREE("declare i32 @f(i8**, i8*, i8*, i64, i64, float*, i64, i64)", "void(float32[:, :])",
           NUMBA,
           "entry @f does not match signature 'void(float32[:, :])' under the Numba ABI: the IR "
           "has 8 parameters; the signature wants 10 (the return slot, then 9 for its "
           "arguments)");
  DISAGREE("declare i32 @f(i8**, i32, i32)", "void(float32)", NUMBA,
           "entry @f does not match signature 'void(float32)' under the Numba ABI: parameter 1 "
           "(argument 0) is i32 in the IR; the signature's float32 wants float; and the IR has "
           "3 parameters, the signature 2");
  DISAGREE("declare i64 @f(i32, i32)", "int32(int32, int32)", C_ABI,
           "entry @f does not match signature 'int32(int32, int32)' under the C ABI: the IR "
           "returns i64; the signature's return type int32 wants i32");
  DISAGREE("declare float @f(float*, float)", "float32(float32)", NUMBA,
           "entry @f does not match signature 'float32(float32)' under the Numba ABI: the IR "
           "returns float; a Numba-ABI function returns i32 (a status) and its value through "
           "parameter 0, the return slot");
  DISAGREE("declare i32 @f(i64*, i32, ...)", "int64(int32)", NUMBA,
           "entry @f does not match signature 'int64(int32)' under the Numba ABI: the IR's "
           "function takes varargs (...), which no signature has");
  DISAGREE("declare i32 @f(i32, i32)", "int32(int32)", C_ABI,
           "entry @f does not match signature 'int32(int32)' under the C ABI: the IR has 2 "
           "parameters; the signature wants 1");
}
END_TEST

/* A header of the signature under the other ABI: the likely mistake is
 * the ABI, and the message says so. */
START_TEST(the_other_abis_form_is_named) {
  DISAGREE("declare i64 @f(i32, i32)", "int64(int32, int32)", NUMBA,
           "entry @f does not match signature 'int64(int32, int32)' under the Numba ABI: the IR "
           "has the C ABI's form of it, i64 (i32, i32): the value returned, no return slot");
  DISAGREE("declare i32 @f(i32*, i32, i32)", "int32(int32, int32)", C_ABI,
           "entry @f does not match signature 'int32(int32, int32)' under the C ABI: the IR has "
           "the Numba ABI's form of it, i32 (i32*, i32, i32): a status returned, the value "
           "through a return slot");
}
END_TEST

/* With `ptr`, a pointer is only a pointer; scalars and counts still count. */
START_TEST(opaque_pointers_check_counts_and_scalars) {
  AGREE("declare i32 @f(ptr, i32)", "int64(int32)", NUMBA);
  AGREE("declare i32 @f(ptr, i32)", "float64(int32)", NUMBA); /* what it points at is lost */
  AGREE("declare i32 @f(ptr, ptr, ptr, i64, i64, ptr, i64, i64)", "void(int8[::1])", NUMBA);
  AGREE("declare {ptr, i32} @f(i32)", "Tuple(CPointer(int8), int32)(int32)", C_ABI);
  DISAGREE("declare i32 @f(ptr, i32)", "int64(float32)", NUMBA,
           "entry @f does not match signature 'int64(float32)' under the Numba ABI: parameter 1 "
           "(argument 0) is i32 in the IR; the signature's float32 wants float");
  DISAGREE("declare i32 @f(ptr, ptr)", "int64(int32)", NUMBA,
           "entry @f does not match signature 'int64(int32)' under the Numba ABI: parameter 1 "
           "(argument 0) is ptr in the IR; the signature's int32 wants i32");
  DISAGREE("declare i32 @f(ptr addrspace(1), i32)", "int64(int32)", NUMBA,
           "entry @f does not match signature 'int64(int32)' under the Numba ABI: parameter 0 "
           "(the return slot) is ptr addrspace(1) in the IR; the signature's return type int64 "
           "wants i64*");
  DISAGREE("declare i32 @f(ptr, i32, i32)", "int64(int32)", NUMBA,
           "entry @f does not match signature 'int64(int32)' under the Numba ABI: the IR has 3 "
           "parameters; the signature wants 2 (the return slot, then 1 for its arguments)");
}
END_TEST

/* What cuplug cannot read is LLVM's to check; what it can read still
 * disagrees where it does. */
START_TEST(unreadable_types_are_left_to_llvm) {
  bool known = true;
  ck_assert_ptr_null(check("%O = type opaque\ndeclare i32 @f(%O*, i32)", "int64(int32)", NUMBA,
                           &known));
  ck_assert(!known);
  known = true;
  ck_assert_ptr_null(
      check("%L = type { %L*, i32 }\ndeclare i32 @f(%L*, i32)", "int64(int32)", NUMBA, &known));
  ck_assert(!known);
  DISAGREE("%O = type opaque\ndeclare i32 @f(%O*, i32)", "int64(float32)", NUMBA,
           "entry @f does not match signature 'int64(float32)' under the Numba ABI: parameter 1 "
           "(argument 0) is i32 in the IR; the signature's float32 wants float");
  DISAGREE("%C = type { double, double }\ndeclare i32 @f(%C*, float, float)",
           "complex64(complex64)", NUMBA,
           "entry @f does not match signature 'complex64(complex64)' under the Numba ABI: "
           "parameter 0 (the return slot) is {double, double}* in the IR; the signature's "
           "return type complex64 wants {float, float}*");
}
END_TEST

/* ---- compiles ---- */

static cuplug_session *session;
static t_case *cases;
static int num_cases;

static void setup(void) {
  session = t_session();
  num_cases = t_cases(&cases);
}

static void teardown(void) {
  t_cases_free(cases, num_cases);
  t_api()->session_destroy(session);
}

static const t_case *corpus(const char *name) {
  return t_case_named(cases, num_cases, name);
}

/* Compiles corpus case `name` as numba-cuda does, but with `sig`, to
 * `output` in session `s`. */
static cuplug_error *compile_case(cuplug_session *s, const char *name, const char *sig,
                                  cuplug_output output) {
  const t_case *c = corpus(name);
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  a.signature = sig;
  a.output = output;
  a.cc_major = output == CUPLUG_OUTPUT_HOST ? 0 : 9;
  cuplug_error *e = t_api()->compile(&a);
  if (!e) t_api()->artifact_destroy(a.artifact);
  ck_assert_ptr_null(e ? a.artifact : NULL);
  return e;
}

#define ADD_FLOAT64                                                            \
  "entry @" ADD_I32 " does not match signature 'float64(int32, int32)' under the Numba ABI: " \
  "parameter 0 (the return slot) is i64* in the IR; the signature's return type float64 "     \
  "wants double*"
#define ADD_INT8                                                               \
  "entry @" ADD_I32 " does not match signature 'int8(int32, int32)' under the Numba ABI: "    \
  "parameter 0 (the return slot) is i64* in the IR; the signature's return type int8 wants " \
  "i8*"
#define SAXPY_INT8                                                             \
  "entry @" SAXPY " does not match signature 'void(int8[::1], int8[::1], int8[::1], float32)' " \
  "under the Numba ABI: parameter 5 (the data pointer of argument 0) is float* in the IR; "  \
  "the signature's int8[::1] wants i8*"

/* The issue's reproductions, on the CPU target (no toolkit). */
START_TEST(wrong_signatures_are_refused) {
  T_ASSERT_ERROR(compile_case(session, "add_i32", "float64(int32, int32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_ENTRY_MISMATCH, ADD_FLOAT64);
  T_ASSERT_ERROR(compile_case(session, "add_i32", "int8(int32, int32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_ENTRY_MISMATCH, ADD_INT8);
  T_ASSERT_ERROR(compile_case(session, "saxpy_kernel", "void(int8[::1], int8[::1], int8[::1], "
                              "float32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_ENTRY_MISMATCH, SAXPY_INT8);
  T_ASSERT_OK(compile_case(session, "add_i32", "int64(int32, int32)", CUPLUG_OUTPUT_HOST));
}
END_TEST

/* A trusted session skips LLVM's verification, not this check. */
START_TEST(trusted_sessions_check_too) {
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_TRUSTED};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  T_ASSERT_ERROR(compile_case(s, "add_i32", "float64(int32, int32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_ENTRY_MISMATCH, ADD_FLOAT64);
  T_ASSERT_ERROR(compile_case(s, "saxpy_kernel", "void(int8[::1], int8[::1], int8[::1], float32)",
                              CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_ENTRY_MISMATCH, SAXPY_INT8);
  T_ASSERT_OK(compile_case(s, "saxpy_kernel", "void(float32[::1], float32[::1], float32[::1], "
                           "float32)", CUPLUG_OUTPUT_HOST));
  t_api()->session_destroy(s);
}
END_TEST

/* On the GPU path the wrong return type was libNVVM's "defined with type";
 * now it never reaches libNVVM. */
START_TEST(gpu_path_refuses_before_libnvvm) {
  T_ASSERT_ERROR(compile_case(session, "add_i32", "float64(int32, int32)", CUPLUG_OUTPUT_PTX),
                 CUPLUG_ERR_ENTRY_MISMATCH, ADD_FLOAT64);
  T_ASSERT_ERROR(compile_case(session, "add_i32", "int8(int32, int32)", CUPLUG_OUTPUT_LTOIR),
                 CUPLUG_ERR_ENTRY_MISMATCH, ADD_INT8);
  T_ASSERT_ERROR(compile_case(session, "saxpy_kernel", "void(int8[::1], int8[::1], int8[::1], "
                              "float32)", CUPLUG_OUTPUT_CUBIN),
                 CUPLUG_ERR_ENTRY_MISMATCH, SAXPY_INT8);
}
END_TEST

/* A C-ABI entry (entry_abi c) is compared under the C ABI. */
START_TEST(c_abi_entries) {
  static const char ir[] =
      "define i64 @add(i32 %x, i32 %y) {\n"
      "  %a = sext i32 %x to i64\n"
      "  %b = sext i32 %y to i64\n"
      "  %c = add i64 %a, %b\n"
      "  ret i64 %c\n"
      "}\n";
  cuplug_module m = {sizeof m, "c.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = "add", .signature = "int64(int32, float32)",
                           .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_HOST};
  T_ASSERT_ERROR(t_api()->compile(&a), CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @add does not match signature 'int64(int32, float32)' under the C ABI: "
                 "parameter 1 (argument 1) is i32 in the IR; the signature's float32 wants float");
  a.signature = "int64(int32, int32)";
  T_ASSERT_OK(t_api()->compile(&a));
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

static cuplug_error *declare(cuplug_session *s, const char *name, const char *sig) {
  cuplug_declare_device_args d = {.struct_size = sizeof d,
                                  .registry = t_api()->session_registry(s),
                                  .name = name,
                                  .signature = sig};
  return t_api()->declare_device(&d);
}

/* --declare-device 'ext_mul=float64(int32, int32)' against IR that calls
 * ext_mul with an i32 return slot. */
START_TEST(declarations_are_compared_with_their_pointees) {
  T_ASSERT_OK(declare(session, "ext_mul", "float64(int32, int32)"));
  T_ASSERT_ERROR(compile_case(session, "dev_ext_i32", "int64(int32, int32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_DECLARATION_MISMATCH,
                 "the IR's declaration of @ext_mul does not match signature 'float64(int32, "
                 "int32)' under the Numba ABI: parameter 0 (the return slot) is i32* in the IR; "
                 "the signature's return type float64 wants double*");
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_TRUSTED};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  T_ASSERT_OK(declare(s, "ext_mul", "int32(int32, CPointer(int32))"));
  T_ASSERT_ERROR(compile_case(s, "dev_ext_i32", "int64(int32, int32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_DECLARATION_MISMATCH,
                 "the IR's declaration of @ext_mul does not match signature 'int32(int32, "
                 "CPointer(int32))' under the Numba ABI: parameter 2 (argument 1) is i32 in the "
                 "IR; the signature's CPointer(int32) wants i32*");
  t_api()->session_destroy(s);
  /* the entry's mismatch is named first */
  T_ASSERT_ERROR(compile_case(session, "dev_ext_i32", "int8(int32, int32)", CUPLUG_OUTPUT_HOST),
                 CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @_ZN8__main__7dev_extB3v10B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJt"
                 "QYkOIgxJU0gCqOkEJoHkbttqdSBL3UrBuFYTAA_3d_3dEii does not match signature "
                 "'int8(int32, int32)' under the Numba ABI: parameter 0 (the return slot) is "
                 "i64* in the IR; the signature's return type int8 wants i8*");
}
END_TEST

/* A type only LLVM can read: valid input still compiles, and LLVM's check
 * of counts and pointer-ness still refuses what it sees. */
START_TEST(llvm_checks_what_cuplug_cannot_read) {
  static const char ir[] =
      "%O = type opaque\n"
      "define i32 @f(%O* %ret, i32 %x) {\n"
      "  ret i32 0\n"
      "}\n";
  cuplug_module m = {sizeof m, "o.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = "f", .signature = "int64(int32)",
                           .abi = CUPLUG_ABI_NUMBA, .output = CUPLUG_OUTPUT_HOST};
  T_ASSERT_OK(t_api()->compile(&a));
  t_api()->artifact_destroy(a.artifact);
  a.signature = "int64(int32, int32)";
  T_ASSERT_ERROR(t_api()->compile(&a), CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @f does not match signature 'int64(int32, int32)' under the Numba ABI: "
                 "the IR has 2 parameters; the signature wants 3 (the return slot, then 2 for its "
                 "arguments)");
  /* a trusted session asks LLVM too, for this type */
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_TRUSTED};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  a.session = s;
  a.signature = "int64(int32)";
  T_ASSERT_OK(t_api()->compile(&a));
  t_api()->artifact_destroy(a.artifact);
  t_api()->session_destroy(s);
}
END_TEST

/* Every corpus case, kernel or device function, agrees with its own
 * signature under both of its ABIs' readings (entry_abi numba). */
START_TEST(corpus_agrees_with_its_signatures) {
  for (int i = 0; i < num_cases; i++) {
    const t_case *c = &cases[i];
    const char *sig = json_string(c->json, "signature");
    const char *entry = json_string(c->json, "entry");
    /* read by cuplug, not left to LLVM */
    const cuplug_type *t;
    T_ASSERT_OK(cuplug__signature_parse(sig, &t));
    ir_module m;
    T_ASSERT_OK(cuplug__ir_module_parse(&m, c->name, c->ir, c->ir_size, NULL));
    ir_function fn;
    T_ASSERT_OK(cuplug__ir_function_parse(&m, cuplug__ir_module_find(&m, IR_ITEM_DEFINE, entry),
                                          &fn));
    cuplug__sig_check sc = {"entry", entry, NULL, t, CUPLUG_ABI_NUMBA, CUPLUG_ERR_ENTRY_MISMATCH};
    bool known = false;
    T_ASSERT_OK(cuplug__ir_check_signature(&m, &fn, &sc, &known));
    ck_assert_msg(known, "%s: not read", c->name);
    cuplug__ir_function_free(&fn);
    cuplug__ir_module_free(&m);
    /* and compiled, its declared functions declared */
    t_case_declare(c, session);
    cuplug_error *e = compile_case(session, c->name, sig, CUPLUG_OUTPUT_HOST);
    ck_assert_msg(e == NULL, "%s: %s", c->name, t_api()->error_message(e));
  }
}
END_TEST

Suite *suite_sigcheck(void) {
  Suite *s = suite_create("sigcheck");
  TCase *sp = t_tcase(s, "spellings", 0, NULL, NULL, 0);
  tcase_add_test(sp, spellings_are_llvmlites);
  tcase_add_test(sp, opaque_spellings_forget_pointees);
  tcase_add_test(sp, unreadable_spellings);
  tcase_add_test(sp, named_types_are_their_bodies);

  TCase *hd = t_tcase(s, "headers", 0, NULL, NULL, 0);
  tcase_add_test(hd, every_type_agrees_with_numbas_spelling);
  tcase_add_test(hd, other_spellings_agree);
  tcase_add_test(hd, the_return_slot_names_the_return_type);
  tcase_add_test(hd, arguments_are_named_by_their_parts);
  tcase_add_test(hd, counts_returns_and_varargs);
  tcase_add_test(hd, the_other_abis_form_is_named);
  tcase_add_test(hd, opaque_pointers_check_counts_and_scalars);
  tcase_add_test(hd, unreadable_types_are_left_to_llvm);

  TCase *en = t_tcase(s, "entry", 0, setup, teardown, 0);
  tcase_add_test(en, wrong_signatures_are_refused);
  tcase_add_test(en, trusted_sessions_check_too);
  tcase_add_test(en, c_abi_entries);
  tcase_add_test(en, llvm_checks_what_cuplug_cannot_read);
  tcase_add_test(en, corpus_agrees_with_its_signatures);

  TCase *gpu = t_tcase(s, "gpu_path", T_NVVM, setup, teardown, 0);
  tcase_add_test(gpu, gpu_path_refuses_before_libnvvm);

  TCase *dc = t_tcase(s, "declarations", 0, setup, teardown, 0);
  tcase_add_test(dc, declarations_are_compared_with_their_pointees);
  return s;
}
