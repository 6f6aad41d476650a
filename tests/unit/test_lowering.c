/* test_lowering.c - the wrapping passes on IR text: the C-ABI wrapper
 * (cuplug__cabi_wrap: linkonce_odr, the wrapper per return and argument
 * kind, the entry moved aside, forceinline), cuplug__force_inline, and the
 * kernel fix-up (cuplug__kernel_fixup: header, return slot, ret, annotations,
 * @llvm.used, launch bounds, unnamed values renumbered, the debug exception
 * store, the debug-info subroutine type, C-ABI kernels, and its errors).
 * Inputs are small modules in the shape numba-cuda writes; outputs are
 * compared whole where they are small. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lowering/lowering.h"
#include "support.h"

/* ---- helpers ---- */

static void begin(ir_rewrite *rw, const char *text) {
  T_ASSERT_OK(cuplug__ir_rewrite_begin(rw, "m.ll", text, strlen(text), NULL));
}

/* The rewritten text (malloc'd). */
static char *finish(ir_rewrite *rw) {
  char *out = NULL;
  size_t n = 0;
  T_ASSERT_OK(cuplug__ir_rewrite_finish(rw, &out, &n));
  ck_assert_uint_eq(n, strlen(out));
  return out;
}

static const cuplug_type *sig(const char *text) {
  const cuplug_type *t = NULL;
  T_ASSERT_OK(t_api()->type_parse(text, &t));
  return t;
}

static char *wrap(const char *text, const cuplug__cabi_options *o) {
  ir_rewrite rw;
  begin(&rw, text);
  T_ASSERT_OK(cuplug__cabi_wrap(&rw, o));
  return finish(&rw);
}

static char *fixup(const char *text, const cuplug__kernel_options *o) {
  ir_rewrite rw;
  begin(&rw, text);
  T_ASSERT_OK(cuplug__kernel_fixup(&rw, "k", o));
  return finish(&rw);
}

/* The error of a fix-up that fails. */
static cuplug_error *fixup_error(const char *text, const cuplug__kernel_options *o) {
  ir_rewrite rw;
  begin(&rw, text);
  cuplug_error *e = cuplug__kernel_fixup(&rw, "k", o);
  cuplug__ir_rewrite_abort(&rw);
  return e;
}

/* The wrapper `f` of entry `e` for a signature, appended to a one-line module. */
static char *wrapper_for(const char *signature) {
  cuplug__cabi_options o = {.sig = sig(signature),
                            .entry = "e",
                            .name = "f",
                            .forceinline = false,
                            .has_entry = true};
  return wrap("; ModuleID = \"m\"\n", &o);
}

/* Whole-text comparison that reports where the texts part (Check cannot
 * carry a message as long as a large golden). */
static void assert_text_eq(const char *actual, const char *expected) {
  size_t i = 0;
  while (actual[i] && actual[i] == expected[i]) i++;
  size_t from = i > 60 ? i - 60 : 0;
  ck_assert_msg(actual[i] == expected[i],
                "texts differ at byte %zu:\n--- actual from byte %zu:\n%.300s\n"
                "--- expected from byte %zu:\n%.300s",
                i, from, actual + from, from, expected + from);
}

static size_t count(const char *haystack, const char *needle) {
  size_t n = 0;
  for (const char *p = haystack; (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

#define WRAPPER_HEAD "; ModuleID = \"m\"\n\n; C-ABI wrapper written by cuplug\n"

/* ---- cuplug__cabi_wrap ---- */

static const char ADD_MODULE[] =
    "; ModuleID = \"add$1\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "\n"
    "@\"_ZN08NumbaEnv3addEii\" = common global i8* null\n"
    "define i32 @\"add\"(i64* %\".ret\", i32 %\"x\", i32 %\"y\")\n"
    "{\n"
    "entry:\n"
    "  %\".5\" = sext i32 %\"x\" to i64\n"
    "  %\".6\" = call i64 @\"twice\"(i64 %\".5\")\n"
    "  %\".7\" = sext i32 %\"y\" to i64\n"
    "  %\".8\" = add nsw i64 %\".6\", %\".7\"\n"
    "  store i64 %\".8\", i64* %\".ret\"\n"
    "  ret i32 0\n"
    "}\n"
    "define external i64 @\"twice\"(i64 %\"v\") {\n"
    "  %\".2\" = call i64 @\"keep\"(i64 %\"v\")\n"
    "  %\".3\" = add i64 %\".2\", %\".2\"\n"
    "  ret i64 %\".3\"\n"
    "}\n"
    "define internal i64 @\"keep\"(i64 %\"v\") {\n"
    "  ret i64 %\"v\"\n"
    "}\n"
    "declare i32 @\"ext\"(i32)\n";

START_TEST(cabi_wrap_int64_golden) {
  cuplug__cabi_options o = {.sig = sig("int64(int32, int32)"),
                            .entry = "add",
                            .name = "add_i32",
                            .forceinline = false,
                            .has_entry = true};
  char *out = wrap(ADD_MODULE, &o);
  ck_assert_str_eq(out,
                   "; ModuleID = \"add$1\"\n"
                   "target triple = \"nvptx64-nvidia-cuda\"\n"
                   "\n"
                   "@\"_ZN08NumbaEnv3addEii\" = common global i8* null\n"
                   "define linkonce_odr i32 @\"add\"(i64* %\".ret\", i32 %\"x\", i32 %\"y\")\n"
                   "{\n"
                   "entry:\n"
                   "  %\".5\" = sext i32 %\"x\" to i64\n"
                   "  %\".6\" = call i64 @\"twice\"(i64 %\".5\")\n"
                   "  %\".7\" = sext i32 %\"y\" to i64\n"
                   "  %\".8\" = add nsw i64 %\".6\", %\".7\"\n"
                   "  store i64 %\".8\", i64* %\".ret\"\n"
                   "  ret i32 0\n"
                   "}\n"
                   "define linkonce_odr i64 @\"twice\"(i64 %\"v\") {\n"
                   "  %\".2\" = call i64 @\"keep\"(i64 %\"v\")\n"
                   "  %\".3\" = add i64 %\".2\", %\".2\"\n"
                   "  ret i64 %\".3\"\n"
                   "}\n"
                   "define internal i64 @\"keep\"(i64 %\"v\") {\n"
                   "  ret i64 %\"v\"\n"
                   "}\n"
                   "declare i32 @\"ext\"(i32)\n"
                   "\n"
                   "; C-ABI wrapper written by cuplug\n"
                   "define i64 @\"add_i32\"(i32 %\"arg.0\", i32 %\"arg.1\") {\n"
                   "entry:\n"
                   "  %ret = alloca i64\n"
                   "  store i64 zeroinitializer, i64* %ret\n"
                   "  %status = call i32 @\"add\"(i64* %ret, i32 %\"arg.0\", i32 %\"arg.1\")\n"
                   "  %value = load i64, i64* %ret\n"
                   "  ret i64 %value\n"
                   "}\n");
  free(out);
}
END_TEST

/* ---- cuplug__cabi_wrap, in place: the entry becomes the C-ABI function ---- */

static char *in_place(const char *text, const char *signature, const char *name,
                      bool forceinline) {
  cuplug__cabi_options o = {.sig = sig(signature), .entry = "e", .name = name,
                            .forceinline = forceinline, .has_entry = true, .sole_caller = true};
  return wrap(text, &o);
}

START_TEST(cabi_in_place_golden) {
  cuplug__cabi_options o = {.sig = sig("int64(int32, int32)"), .entry = "add", .name = "add_i32",
                            .has_entry = true, .sole_caller = true};
  char *out = wrap(ADD_MODULE, &o);
  ck_assert_str_eq(out,
                   "; ModuleID = \"add$1\"\n"
                   "target triple = \"nvptx64-nvidia-cuda\"\n"
                   "\n"
                   "@\"_ZN08NumbaEnv3addEii\" = common global i8* null\n"
                   "define i64 @\"add_i32\"(i32 %\"x\", i32 %\"y\")\n"
                   "{\n"
                   "entry:\n"
                   "  %\".5\" = sext i32 %\"x\" to i64\n"
                   "  %\".6\" = call i64 @\"twice\"(i64 %\".5\")\n"
                   "  %\".7\" = sext i32 %\"y\" to i64\n"
                   "  %\".8\" = add nsw i64 %\".6\", %\".7\"\n"
                   "  ret i64 %\".8\"\n"
                   "}\n"
                   "define linkonce_odr i64 @\"twice\"(i64 %\"v\") {\n"
                   "  %\".2\" = call i64 @\"keep\"(i64 %\"v\")\n"
                   "  %\".3\" = add i64 %\".2\", %\".2\"\n"
                   "  ret i64 %\".3\"\n"
                   "}\n"
                   "define internal i64 @\"keep\"(i64 %\"v\") {\n"
                   "  ret i64 %\"v\"\n"
                   "}\n"
                   "declare i32 @\"ext\"(i32)\n");
  free(out);
}
END_TEST

START_TEST(cabi_in_place_returns_and_blocks) {
  /* an unlabelled entry block; several returns, with metadata; linkage and
   * the name kept when the export takes the entry's name.  Each return
   * follows the store of its value: they become returns of the value, and
   * the slot goes (with an alignment on the store, too) */
  char *out = in_place("define linkonce_odr i32 @e(float* %.ret, float %x) {\n"
                       "  %c = fcmp olt float %x, 0.0\n"
                       "  br i1 %c, label %neg, label %pos\n"
                       "neg:\n"
                       "  store float 0.0, float* %.ret\n"
                       "  ret i32 1, !range !0\n"
                       "pos:\n"
                       "  store float %x, float* %.ret, align 4\n"
                       "  ret i32 0\n"
                       "}\n"
                       "!0 = !{i32 0, i32 2}\n",
                       "float32(float32)", "e", false);
  ck_assert_str_eq(out,
                   "define float @e(float %x) {\n"
                   "  %c = fcmp olt float %x, 0.0\n"
                   "  br i1 %c, label %neg, label %pos\n"
                   "neg:\n"
                   "  ret float 0.0, !range !0\n"
                   "pos:\n"
                   "  ret float %x\n"
                   "}\n"
                   "!0 = !{i32 0, i32 2}\n");
  free(out);
}
END_TEST

/* A return that does not follow a store of the slot (an exception's), or
 * a slot put to other use, keeps the slot: each return loads it. */
START_TEST(cabi_in_place_keeps_the_slot) {
  char *out = in_place("define linkonce_odr i32 @e(float* %.ret, float %x) {\n"
                       "  %c = fcmp olt float %x, 0.0\n"
                       "  br i1 %c, label %neg, label %pos\n"
                       "neg:\n"
                       "  ret i32 1, !range !0\n"
                       "pos:\n"
                       "  store float %x, float* %.ret\n"
                       "  ret i32 0\n"
                       "}\n"
                       "!0 = !{i32 0, i32 2}\n",
                       "float32(float32)", "e", false);
  ck_assert_str_eq(out,
                   "define float @e(float %x) {\n"
                   "  %.ret = alloca float\n"
                   "  store float zeroinitializer, float* %.ret\n"
                   "  %c = fcmp olt float %x, 0.0\n"
                   "  br i1 %c, label %neg, label %pos\n"
                   "neg:\n"
                   "  %\"cuplug.ret.0\" = load float, float* %.ret, !range !0\n"
                   "  ret float %\"cuplug.ret.0\", !range !0\n"
                   "pos:\n"
                   "  store float %x, float* %.ret\n"
                   "  %\"cuplug.ret.1\" = load float, float* %.ret\n"
                   "  ret float %\"cuplug.ret.1\"\n"
                   "}\n"
                   "!0 = !{i32 0, i32 2}\n");
  free(out);
  static const char *const kept[] = {
      /* the slot read back */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  store i32 %x, i32* %r\n"
      "  %y = load i32, i32* %r\n  store i32 %y, i32* %r\n  ret i32 0\n}\n",
      /* a volatile store */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  store volatile i32 %x, i32* %r\n"
      "  ret i32 0\n}\n",
      /* a value of more than one token */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n"
      "  store i32 add (i32 1, i32 2), i32* %r\n  ret i32 0\n}\n",
      /* a store to another pointer before the return */
      "define i32 @e(i32* %r, i32 %x, i32* %p) {\nentry:\n  store i32 %x, i32* %r\n"
      "  store i32 %x, i32* %p\n  ret i32 0\n}\n",
      /* the slot read back under its other spelling */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  %y = load i32, i32* %\"r\"\n"
      "  store i32 %x, i32* %r\n  ret i32 0\n}\n",
      /* the slot handed to a call */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  call void @g(i32* %r)\n"
      "  store i32 %x, i32* %r\n  ret i32 0\n}\ndeclare void @g(i32*)\n",
      /* a store after its label, the return in the next block */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  store i32 %x, i32* %r\n  br label %b\n"
      "b:\n  ret i32 0\n}\n",
  };
  const char *sigs[] = {"int32(int32)", "int32(int32)", "int32(int32)",
                        "int32(int32, CPointer(int32))", "int32(int32)", "int32(int32)",
                        "int32(int32)"};
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
    out = in_place(kept[i], sigs[i], "f", false);
    ck_assert_msg(strstr(out, "%r = alloca i32") && strstr(out, "\"cuplug.ret.0\" = load i32"),
                  "case %zu: %s", i, out);
    free(out);
  }
}
END_TEST

/* The value returned keeps its bytes, so that legalisation, which runs
 * after, still mends it (poison, which libNVVM's reader does not know,
 * becomes undef); the slot is the same named either way. */
START_TEST(cabi_in_place_value_is_legalised) {
  static const cuplug__ir_version irv = {2, 0, 3, 2};
  ir_rewrite rw;
  static const char text[] = "define i32 @e(i64* %.ret, i64 %x) {\nentry:\n"
                             "  store i64 poison, i64* %\".ret\", align 8\n  ret i32 0\n}\n";
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "m.ll", text, strlen(text), cuplug__legalize_watch()));
  cuplug__cabi_options o = {.sig = sig("int64(int64)"), .entry = "e", .name = "f",
                            .has_entry = true, .sole_caller = true};
  T_ASSERT_OK(cuplug__cabi_wrap(&rw, &o));
  bool uses;
  T_ASSERT_OK(cuplug__legalize(&rw, irv, &uses));
  char *out = finish(&rw);
  T_ASSERT_CONTAINS(out, "\ndefine i64 @\"f\"(i64 %x) {\nentry:\n  ret i64 undef\n}\n");
  free(out);
}
END_TEST

START_TEST(cabi_in_place_void_complex_forceinline) {
  char *out = in_place("define i32 @e(i8** %r) {\nentry:\n  ret i32 0\n}\n", "void()", "f", false);
  ck_assert_str_eq(out,
                   "define void @\"f\"() {\n"
                   "entry:\n"
                   "  %r = alloca i8*\n"
                   "  store i8* zeroinitializer, i8** %r\n"
                   "  ret void\n"
                   "}\n");
  free(out);
  out = in_place("define i32 @e({float, float}* %r, float %a.0, float %a.1) noinline {\n"
                 "entry:\n"
                 "  ret i32 0\n"
                 "}\n",
                 "complex64(complex64)", "f", true);
  ck_assert_str_eq(out,
                   "define {float, float} @\"f\"(float %a.0, float %a.1) alwaysinline  {\n"
                   "entry:\n"
                   "  %r = alloca {float, float}\n"
                   "  store {float, float} zeroinitializer, {float, float}* %r\n"
                   "  %\"cuplug.ret.0\" = load {float, float}, {float, float}* %r\n"
                   "  ret {float, float} %\"cuplug.ret.0\"\n"
                   "}\n");
  free(out);
}
END_TEST

/* Where the entry cannot become the C-ABI function, it is wrapped. */
START_TEST(cabi_in_place_falls_back_to_the_wrapper) {
  static const char *const cases[] = {
      /* an unnamed return slot */
      "define i32 @e(i32*, i32 %x) {\nentry:\n  ret i32 0\n}\n",
      /* debug info: the subprogram's type is the Numba ABI's */
      "define i32 @e(i32* %r, i32 %x) !dbg !0 {\nentry:\n  ret i32 0\n}\n",
      /* a slot of another type than the signature's */
      "define i32 @e(i64* %r, i32 %x) {\nentry:\n  ret i32 0\n}\n",
      /* not a status return */
      "define i64 @e(i32* %r, i32 %x) {\nentry:\n  ret i64 0\n}\n",
      /* a return without a value */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  ret void\n}\n",
      /* names of the kind it would add */
      "define i32 @e(i32* %r, i32 %x) {\nentry:\n  %\"cuplug.ret.0\" = add i32 %x, 1\n"
      "  ret i32 0\n}\n",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *out = in_place(cases[i], "int32(int32)", "f", false);
    ck_assert_msg(strstr(out, "; C-ABI wrapper written by cuplug\n"
                              "define i32 @\"f\"(i32 %\"arg.0\")"),
                  "case %zu is not wrapped:\n%s", i, out);
    ck_assert_msg(strstr(out, "define linkonce_odr i"), "case %zu: the entry stays:\n%s", i, out);
    free(out);
  }
}
END_TEST

START_TEST(cabi_wrap_bool_return_is_i8) {
  char *out = wrapper_for("boolean(int32)");
  ck_assert_str_eq(out, WRAPPER_HEAD
                   "define i8 @\"f\"(i32 %\"arg.0\") {\n"
                   "entry:\n"
                   "  %ret = alloca i8\n"
                   "  store i8 zeroinitializer, i8* %ret\n"
                   "  %status = call i32 @\"e\"(i8* %ret, i32 %\"arg.0\")\n"
                   "  %value = load i8, i8* %ret\n"
                   "  ret i8 %value\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_complex_split_and_returned_by_value) {
  char *out = wrapper_for("complex64(complex64, float32)");
  ck_assert_str_eq(out, WRAPPER_HEAD
                   "define {float, float} @\"f\"(float %\"arg.0\", float %\"arg.1\", "
                   "float %\"arg.2\") {\n"
                   "entry:\n"
                   "  %ret = alloca {float, float}\n"
                   "  store {float, float} zeroinitializer, {float, float}* %ret\n"
                   "  %status = call i32 @\"e\"({float, float}* %ret, float %\"arg.0\", "
                   "float %\"arg.1\", float %\"arg.2\")\n"
                   "  %value = load {float, float}, {float, float}* %ret\n"
                   "  ret {float, float} %value\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_void_return) {
  char *out = wrapper_for("void(float32)");
  ck_assert_str_eq(out, WRAPPER_HEAD
                   "define void @\"f\"(float %\"arg.0\") {\n"
                   "entry:\n"
                   "  %ret = alloca i8*\n"
                   "  store i8* zeroinitializer, i8** %ret\n"
                   "  %status = call i32 @\"e\"(i8** %ret, float %\"arg.0\")\n"
                   "  ret void\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_cpointer_return) {
  char *out = wrapper_for("CPointer(float32)(CPointer(float32), int64)");
  ck_assert_str_eq(out, WRAPPER_HEAD
                   "define float* @\"f\"(float* %\"arg.0\", i64 %\"arg.1\") {\n"
                   "entry:\n"
                   "  %ret = alloca float*\n"
                   "  store float* zeroinitializer, float** %ret\n"
                   "  %status = call i32 @\"e\"(float** %ret, float* %\"arg.0\", i64 %\"arg.1\")\n"
                   "  %value = load float*, float** %ret\n"
                   "  ret float* %value\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_array_argument_flattened) {
  char *out = wrapper_for("float32(float32[::1])");
  ck_assert_str_eq(out, WRAPPER_HEAD
                   "define float @\"f\"(i8* %\"arg.0\", i8* %\"arg.1\", i64 %\"arg.2\", "
                   "i64 %\"arg.3\", float* %\"arg.4\", i64 %\"arg.5\", i64 %\"arg.6\") {\n"
                   "entry:\n"
                   "  %ret = alloca float\n"
                   "  store float zeroinitializer, float* %ret\n"
                   "  %status = call i32 @\"e\"(float* %ret, i8* %\"arg.0\", i8* %\"arg.1\", "
                   "i64 %\"arg.2\", i64 %\"arg.3\", float* %\"arg.4\", i64 %\"arg.5\", "
                   "i64 %\"arg.6\")\n"
                   "  %value = load float, float* %ret\n"
                   "  ret float %value\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_without_entry_only_relinks) {
  cuplug__cabi_options o = {.sig = sig("int64(int64)"),
                            .entry = "add",
                            .name = "add_c",
                            .forceinline = false,
                            .has_entry = false};
  char *out = wrap("define i64 @\"twice\"(i64 %\"v\") {\n"
                   "  ret i64 %\"v\"\n"
                   "}\n"
                   "define private i64 @\"p\"() {\n"
                   "  ret i64 0\n"
                   "}\n",
                   &o);
  ck_assert_str_eq(out,
                   "define linkonce_odr i64 @\"twice\"(i64 %\"v\") {\n"
                   "  ret i64 %\"v\"\n"
                   "}\n"
                   "define private i64 @\"p\"() {\n"
                   "  ret i64 0\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_name_of_entry_moves_entry_aside) {
  cuplug__cabi_options o = {.sig = sig("int64(int32)"),
                            .entry = "add",
                            .name = "add",
                            .forceinline = false,
                            .has_entry = true};
  char *out = wrap("define i32 @\"add\"(i64* %\".ret\", i32 %\"x\") {\n"
                   "entry:\n"
                   "  store i64 0, i64* %\".ret\"\n"
                   "  ret i32 0\n"
                   "}\n"
                   "define i32 @caller(i64* %\".ret\") {\n"
                   "entry:\n"
                   "  %\".3\" = call i32 @add(i64* %\".ret\", i32 1)\n"
                   "  ret i32 %\".3\"\n"
                   "}\n",
                   &o);
  ck_assert_str_eq(out,
                   "define linkonce_odr i32 @\"add.numba\"(i64* %\".ret\", i32 %\"x\") {\n"
                   "entry:\n"
                   "  store i64 0, i64* %\".ret\"\n"
                   "  ret i32 0\n"
                   "}\n"
                   "define linkonce_odr i32 @caller(i64* %\".ret\") {\n"
                   "entry:\n"
                   "  %\".3\" = call i32 @\"add.numba\"(i64* %\".ret\", i32 1)\n"
                   "  ret i32 %\".3\"\n"
                   "}\n"
                   "\n"
                   "; C-ABI wrapper written by cuplug\n"
                   "define i64 @\"add\"(i32 %\"arg.0\") {\n"
                   "entry:\n"
                   "  %ret = alloca i64\n"
                   "  store i64 zeroinitializer, i64* %ret\n"
                   "  %status = call i32 @\"add.numba\"(i64* %ret, i32 %\"arg.0\")\n"
                   "  %value = load i64, i64* %ret\n"
                   "  ret i64 %value\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_forceinline_inline_attributes) {
  cuplug__cabi_options o = {.sig = sig("int32(int32)"),
                            .entry = "e",
                            .name = "f",
                            .forceinline = true,
                            .has_entry = true};
  char *out = wrap("define i32 @\"e\"(i32* %\".ret\", i32 %\"x\") noinline optnone {\n"
                   "  ret i32 0\n"
                   "}\n",
                   &o);
  ck_assert_str_eq(out,
                   "define linkonce_odr i32 @\"e\"(i32* %\".ret\", i32 %\"x\") alwaysinline   {\n"
                   "  ret i32 0\n"
                   "}\n"
                   "\n"
                   "; C-ABI wrapper written by cuplug\n"
                   "define i32 @\"f\"(i32 %\"arg.0\") alwaysinline {\n"
                   "entry:\n"
                   "  %ret = alloca i32\n"
                   "  store i32 zeroinitializer, i32* %ret\n"
                   "  %status = call i32 @\"e\"(i32* %ret, i32 %\"arg.0\")\n"
                   "  %value = load i32, i32* %ret\n"
                   "  ret i32 %value\n"
                   "}\n");
  free(out);
}
END_TEST

START_TEST(cabi_wrap_forceinline_copies_shared_group) {
  cuplug__cabi_options o = {.sig = sig("int32(int32)"),
                            .entry = "e",
                            .name = "f",
                            .forceinline = true,
                            .has_entry = true};
  char *out = wrap("define i32 @\"e\"(i32* %\".ret\", i32 %\"x\") #0 {\n"
                   "  ret i32 0\n"
                   "}\n"
                   "define i32 @\"g\"(i32* %\".ret\") #0 {\n"
                   "  ret i32 0\n"
                   "}\n"
                   "attributes #0 = { noinline optnone nounwind \"frame-pointer\"=\"none\" }\n",
                   &o);
  ck_assert_str_eq(out,
                   "define linkonce_odr i32 @\"e\"(i32* %\".ret\", i32 %\"x\") alwaysinline #1 {\n"
                   "  ret i32 0\n"
                   "}\n"
                   "define linkonce_odr i32 @\"g\"(i32* %\".ret\") #0 {\n"
                   "  ret i32 0\n"
                   "}\n"
                   "attributes #0 = { noinline optnone nounwind \"frame-pointer\"=\"none\" }\n"
                   "attributes #1 = { nounwind \"frame-pointer\"=\"none\" }\n"
                   "\n"
                   "; C-ABI wrapper written by cuplug\n"
                   "define i32 @\"f\"(i32 %\"arg.0\") alwaysinline {\n"
                   "entry:\n"
                   "  %ret = alloca i32\n"
                   "  store i32 zeroinitializer, i32* %ret\n"
                   "  %status = call i32 @\"e\"(i32* %ret, i32 %\"arg.0\")\n"
                   "  %value = load i32, i32* %ret\n"
                   "  ret i32 %value\n"
                   "}\n");
  free(out);
}
END_TEST

/* ---- cuplug__force_inline ---- */

START_TEST(force_inline_marks_numba_function) {
  ir_rewrite rw;
  begin(&rw, "define i32 @\"e\"(i32* %\".ret\") noinline {\n  ret i32 0\n}\n");
  T_ASSERT_OK(cuplug__force_inline(&rw, "e"));
  char *out = finish(&rw);
  ck_assert_str_eq(out, "define i32 @\"e\"(i32* %\".ret\") alwaysinline  {\n  ret i32 0\n}\n");
  free(out);
}
END_TEST

START_TEST(force_inline_missing_symbol) {
  ir_rewrite rw;
  begin(&rw, "define i32 @\"e\"(i32* %\".ret\") {\n  ret i32 0\n}\n");
  T_ASSERT_ERROR(cuplug__force_inline(&rw, "nope"), CUPLUG_ERR_ENTRY_NOT_FOUND,
                 "m.ll: no definition of @nope");
  cuplug__ir_rewrite_abort(&rw);
}
END_TEST

/* ---- cuplug__kernel_fixup ---- */

static const char KERNEL[] =
    "define i32 @k(i8** %\".ret\", float* %\"a\", i64 %\"n\") noinline {\n"
    "entry:\n"
    "  %\".4\" = icmp slt i64 %\"n\", 1\n"
    "  br i1 %\".4\", label %\"exit\", label %\"body\"\n"
    "body:\n"
    "  store float 0.0, float* %\"a\"\n"
    "  store i8* null, i8** %\".ret\"\n"
    "  ret i32 0, !dbg !7\n"
    "exit:\n"
    "  store i8* null, i8** %\".ret\", align 8\n"
    "  ret i32 1\n"
    "}\n"
    "!6 = distinct !DISubprogram(name: \"k\", line: 1)\n"
    "!7 = !DILocation(line: 3, column: 5, scope: !6)\n";

/* KERNEL's fixed-up body, up to its metadata */
#define KERNEL_FIXED_BODY                                                \
  "define void @k(float* %\"a\", i64 %\"n\")  {\n"                       \
  "entry:\n"                                                             \
  "  %\".4\" = icmp slt i64 %\"n\", 1\n"                                 \
  "  br i1 %\".4\", label %\"exit\", label %\"body\"\n"                  \
  "body:\n"                                                              \
  "  store float 0.0, float* %\"a\"\n"                                   \
  "  ret void, !dbg !7\n"                                                \
  "exit:\n"                                                              \
  "  ret void\n"                                                         \
  "}\n"                                                                  \
  "!6 = distinct !DISubprogram(name: \"k\", line: 1)\n"                  \
  "!7 = !DILocation(line: 3, column: 5, scope: !6)\n"

#define KERNEL_USED                                                       \
  "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (float*, i64)* @\"k\" " \
  "to i8*)], section \"llvm.metadata\"\n"

START_TEST(kernel_fixup_golden) {
  cuplug__kernel_options o = {0};
  char *out = fixup(KERNEL, &o);
  ck_assert_str_eq(out, KERNEL_FIXED_BODY
                   "!8 = !{void (float*, i64)* @\"k\", !\"kernel\", i32 1}\n"
                   KERNEL_USED
                   "!nvvm.annotations = !{!8}\n");
  free(out);
}
END_TEST

START_TEST(kernel_launch_bounds_one_two_three) {
  static const uint32_t bounds[3] = {256, 2, 4};
  static const char *const expected[3] = {
      KERNEL_FIXED_BODY
      "!8 = !{void (float*, i64)* @\"k\", !\"kernel\", i32 1}\n"
      "!9 = !{void (float*, i64)* @\"k\", !\"maxntidx\", i32 256}\n"
      KERNEL_USED
      "!nvvm.annotations = !{!8, !9}\n",
      KERNEL_FIXED_BODY
      "!8 = !{void (float*, i64)* @\"k\", !\"kernel\", i32 1}\n"
      "!9 = !{void (float*, i64)* @\"k\", !\"maxntidx\", i32 256}\n"
      "!10 = !{void (float*, i64)* @\"k\", !\"minctasm\", i32 2}\n"
      KERNEL_USED
      "!nvvm.annotations = !{!8, !9, !10}\n",
      KERNEL_FIXED_BODY
      "!8 = !{void (float*, i64)* @\"k\", !\"kernel\", i32 1}\n"
      "!9 = !{void (float*, i64)* @\"k\", !\"maxntidx\", i32 256}\n"
      "!10 = !{void (float*, i64)* @\"k\", !\"minctasm\", i32 2}\n"
      "!11 = !{void (float*, i64)* @\"k\", !\"cluster_max_blocks\", i32 4}\n"
      KERNEL_USED
      "!nvvm.annotations = !{!8, !9, !10, !11}\n",
  };
  for (size_t n = 1; n <= 3; n++) {
    cuplug__kernel_options o = {false, bounds, n, false};
    char *out = fixup(KERNEL, &o);
    ck_assert_str_eq(out, expected[n - 1]);
    free(out);
  }
}
END_TEST

START_TEST(kernel_extends_used_and_annotations) {
  cuplug__kernel_options o = {0};
  char *out = fixup("@g = global i32 0\n"
                    "@llvm.used = appending global [1 x i8*] [i8* bitcast (i32* @g to i8*)], "
                    "section \"llvm.metadata\"\n"
                    "define void @other() {\n  ret void\n}\n"
                    "define i32 @k(i32* %\".ret\", i32 %\"x\") {\n"
                    "  ret i32 0\n"
                    "}\n"
                    "!nvvm.annotations = !{!0}\n"
                    "!0 = !{void ()* @other, !\"kernel\", i32 1}\n",
                    &o);
  ck_assert_str_eq(out,
                   "@g = global i32 0\n"
                   "@llvm.used = appending global [2 x i8*] [i8* bitcast (i32* @g to i8*), "
                   "i8* bitcast (void (i32)* @\"k\" to i8*)], section \"llvm.metadata\"\n"
                   "define void @other() {\n  ret void\n}\n"
                   "define void @k(i32 %\"x\") {\n"
                   "  ret void\n"
                   "}\n"
                   "!nvvm.annotations = !{!0, !1}\n"
                   "!0 = !{void ()* @other, !\"kernel\", i32 1}\n"
                   "!1 = !{void (i32)* @\"k\", !\"kernel\", i32 1}\n");
  free(out);
}
END_TEST

static const char UNNAMED_KERNEL[] =
    "define i32 @k(i8**, i32) {\n"
    "  %3 = add i32 %1, 1\n"
    "  store i8* null, i8** %0\n"
    "  br label %4\n"
    "\n"
    "4:\n"
    "  %5 = phi i32 [ %3, %2 ]\n"
    "  ret i32 %5\n"
    "}\n";

START_TEST(kernel_unnamed_slot_renumbers) {
  cuplug__kernel_options o = {0};
  char *out = fixup(UNNAMED_KERNEL, &o);
  ck_assert_str_eq(out,
                   "define void @k(i32) {\n"
                   "  %2 = add i32 %0, 1\n"
                   "  br label %3\n"
                   "\n"
                   "3:\n"
                   "  %4 = phi i32 [ %2, %1 ]\n"
                   "  ret void\n"
                   "}\n"
                   "!0 = !{void (i32)* @\"k\", !\"kernel\", i32 1}\n"
                   "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (i32)* @\"k\" "
                   "to i8*)], section \"llvm.metadata\"\n"
                   "!nvvm.annotations = !{!0}\n");
  free(out);
}
END_TEST

START_TEST(kernel_unnamed_slot_debug_status_renumbered) {
  cuplug__kernel_options o = {.debug = true};
  char *out = fixup(UNNAMED_KERNEL, &o);
  T_ASSERT_CONTAINS(out,
                    "  %4 = phi i32 [ %2, %1 ]\n"
                    "  call void @\"k__exc_helper__\"(i32 %4)\n"
                    "  ret void\n"
                    "}\n");
  free(out);
}
END_TEST

START_TEST(kernel_unnamed_slot_with_numbered_types_rejected) {
  cuplug__kernel_options o = {0};
  T_ASSERT_ERROR(fixup_error("%0 = type { i32 }\n"
                             "define i32 @k(i8**, %0*) {\n"
                             "  ret i32 0\n"
                             "}\n",
                             &o),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "m.ll:2: kernel @k: its return slot is unnamed and the module numbers its "
                 "types; name the parameters");
}
END_TEST

START_TEST(kernel_slot_loaded_rejected) {
  cuplug__kernel_options o = {0};
  T_ASSERT_ERROR(fixup_error("define i32 @k(i8** %\".ret\", i32 %\"x\") {\n"
                             "entry:\n"
                             "  %\".3\" = load i8*, i8** %\".ret\"\n"
                             "  ret i32 0\n"
                             "}\n",
                             &o),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "m.ll:3: kernel @k: the return slot is used other than by storing to it");
}
END_TEST

/* The body is searched for the slot's name: each spelling of it is found,
 * however far in, and names that only contain it are not it. */
START_TEST(kernel_slot_found_in_any_spelling) {
  cuplug__kernel_options o = {0};
  /* unquoted, after statements that name %".ret.x" and %".re" */
  T_ASSERT_ERROR(fixup_error("define i32 @k(i8** %\".ret\", i32 %\"x\") {\n"
                             "entry:\n"
                             "  %\".ret.x\" = add i32 %\"x\", 1\n"
                             "  %\".re\" = add i32 %\"x\", 2\n"
                             "  store i8* null, i8** %\".ret\"\n"
                             "  %\"y\" = load i8*, i8** %.ret\n"
                             "  ret i32 0\n"
                             "}\n",
                             &o),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "m.ll:6: kernel @k: the return slot is used other than by storing to it");
  /* escaped: %"\2Eret" is %".ret" */
  T_ASSERT_ERROR(fixup_error("define i32 @k(i8** %\".ret\", i32 %\"x\") {\n"
                             "entry:\n"
                             "  %\"y\" = load i8*, i8** %\"\\2Eret\"\n"
                             "  ret i32 0\n"
                             "}\n",
                             &o),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "m.ll:3: kernel @k: the return slot is used other than by storing to it");
  /* stores in every spelling go; the look-alikes stay */
  char *out = fixup("define i32 @k(i8** %\".ret\", i32 %\"x\") {\n"
                    "entry:\n"
                    "  %\".ret.x\" = add i32 %\"x\", 1\n"
                    "  store i8* null, i8** %.ret\n"
                    "  store i8* null, i8** %\"\\2Eret\"\n"
                    "  ret i32 0\n"
                    "}\n",
                    &o);
  T_ASSERT_CONTAINS(out, "define void @k(i32 %\"x\") {\n"
                         "entry:\n"
                         "  %\".ret.x\" = add i32 %\"x\", 1\n"
                         "  ret void\n"
                         "}\n");
  free(out);
}
END_TEST

START_TEST(kernel_not_numba_abi_rejected) {
  cuplug__kernel_options o = {0};
  const char *msg = "m.ll:2: kernel @k: a Numba-ABI function returns i32 and takes its "
                    "return slot pointer first";
  T_ASSERT_ERROR(fixup_error("; void\n"
                             "define void @k(i8** %\".ret\") {\n  ret void\n}\n",
                             &o),
                 CUPLUG_ERR_IR_UNSUPPORTED, msg);
  T_ASSERT_ERROR(fixup_error("; no slot\n"
                             "define i32 @k(i32 %\"x\") {\n  ret i32 0\n}\n",
                             &o),
                 CUPLUG_ERR_IR_UNSUPPORTED, msg);
}
END_TEST

START_TEST(kernel_entry_not_found) {
  cuplug__kernel_options o = {0};
  T_ASSERT_ERROR(fixup_error("declare i32 @k(i8**)\n", &o), CUPLUG_ERR_ENTRY_NOT_FOUND,
                 "m.ll: no definition of @k");
}
END_TEST

static const char DEBUG_KERNEL[] =
    "define i32 @k(i8** %\".ret\", i32 %\"x\") noinline {\n"
    "entry:\n"
    "  %\".3\" = icmp eq i32 %\"x\", 0\n"
    "  br i1 %\".3\", label %\"fail\", label %\"ok\"\n"
    "fail:\n"
    "  ret i32 1, !dbg !0\n"
    "ok:\n"
    "  store i8* null, i8** %\".ret\"\n"
    "  ret i32 0, !dbg !0\n"
    "}\n"
    "!0 = !DILocation(line: 2, column: 1, scope: !1)\n"
    "!1 = distinct !DISubprogram(name: \"k\", line: 1)\n";

START_TEST(kernel_debug_exception_store_golden) {
  cuplug__kernel_options o = {.debug = true};
  char *out = fixup(DEBUG_KERNEL, &o);
  assert_text_eq(out,
                   "define void @k(i32 %\"x\")  {\n"
                   "entry:\n"
                   "  %\".3\" = icmp eq i32 %\"x\", 0\n"
                   "  br i1 %\".3\", label %\"fail\", label %\"ok\"\n"
                   "fail:\n"
                   "  call void @\"k__exc_helper__\"(i32 1), !dbg !0\n"
                   "  ret void, !dbg !0\n"
                   "ok:\n"
                   "  call void @\"k__exc_helper__\"(i32 0), !dbg !0\n"
                   "  ret void, !dbg !0\n"
                   "}\n"
                   "!0 = !DILocation(line: 2, column: 1, scope: !1)\n"
                   "!1 = distinct !DISubprogram(name: \"k\", line: 1)\n"
                   "@\"k__errcode__\" = global i32 0\n"
                   "@\"k__tidx__\" = global i32 0\n"
                   "@\"k__ctaidx__\" = global i32 0\n"
                   "@\"k__tidy__\" = global i32 0\n"
                   "@\"k__ctaidy__\" = global i32 0\n"
                   "@\"k__tidz__\" = global i32 0\n"
                   "@\"k__ctaidz__\" = global i32 0\n"
                   "\n"
                   "define void @\"k__exc_helper__\"(i32 %status) {\n"
                   "entry:\n"
                   "  %is_ok = icmp eq i32 %status, 0\n"
                   "  %is_none = icmp eq i32 %status, -2\n"
                   "  %ok = or i1 %is_ok, %is_none\n"
                   "  br i1 %ok, label %done, label %not_ok\n"
                   "not_ok:\n"
                   "  %is_python_exc = icmp eq i32 %status, -1\n"
                   "  br i1 %is_python_exc, label %done, label %store\n"
                   "store:\n"
                   "  %xchg = cmpxchg i32* @\"k__errcode__\", i32 0, i32 %status "
                   "monotonic monotonic\n"
                   "  %changed = extractvalue { i32, i1 } %xchg, 1\n"
                   "  br i1 %changed, label %record, label %done\n"
                   "record:\n"
                   "  %tid.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                   "  store i32 %tid.x, i32* @\"k__tidx__\"\n"
                   "  %tid.y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
                   "  store i32 %tid.y, i32* @\"k__tidy__\"\n"
                   "  %tid.z = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()\n"
                   "  store i32 %tid.z, i32* @\"k__tidz__\"\n"
                   "  %ctaid.x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
                   "  store i32 %ctaid.x, i32* @\"k__ctaidx__\"\n"
                   "  %ctaid.y = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()\n"
                   "  store i32 %ctaid.y, i32* @\"k__ctaidy__\"\n"
                   "  %ctaid.z = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()\n"
                   "  store i32 %ctaid.z, i32* @\"k__ctaidz__\"\n"
                   "  br label %done\n"
                   "done:\n"
                   "  ret void\n"
                   "}\n"
                   "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                   "declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
                   "declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()\n"
                   "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
                   "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()\n"
                   "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()\n"
                   "!2 = !{void (i32)* @\"k\", !\"kernel\", i32 1}\n"
                   "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (i32)* @\"k\" "
                   "to i8*)], section \"llvm.metadata\"\n"
                   "!nvvm.annotations = !{!2}\n");
  free(out);
}
END_TEST

START_TEST(kernel_debug_keeps_declared_intrinsics) {
  cuplug__kernel_options o = {.debug = true};
  char *out = fixup("declare i32 @\"llvm.nvvm.read.ptx.sreg.tid.x\"()\n"
                    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()\n"
                    "define i32 @k(i8** %\".ret\") {\n"
                    "  ret i32 0\n"
                    "}\n",
                    &o);
  ck_assert_uint_eq(count(out, "declare "), 6);
  ck_assert_uint_eq(count(out, "sreg.tid.x\"()\n"), 1);
  ck_assert_uint_eq(count(out, "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()"), 0);
  ck_assert_uint_eq(count(out, "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()"), 1);
  T_ASSERT_CONTAINS(out, "}\n"
                         "declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
                         "declare i32 @llvm.nvvm.read.ptx.sreg.tid.z()\n"
                         "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
                         "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()\n"
                         "!0 = !{void ()* @\"k\", !\"kernel\", i32 1}\n");
  free(out);
}
END_TEST

static const char DEBUG_INFO_KERNEL[] =
    "define i32 @k(i8** %\".ret\", float* %\"a\") !dbg !5 {\n"
    "entry:\n"
    "  store i8* null, i8** %\".ret\", !dbg !11\n"
    "  ret i32 0, !dbg !11\n"
    "}\n"
    "!llvm.dbg.cu = !{!0}\n"
    "!0 = distinct !DICompileUnit(language: DW_LANG_Python, file: !1, producer: \"numba\", "
    "runtimeVersion: 0, emissionKind: FullDebug)\n"
    "!1 = !DIFile(filename: \"k.py\", directory: \"/tmp\")\n"
    "!5 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, line: 1, type: !6, "
    "unit: !0)\n"
    "!6 = !DISubroutineType(types: !7)\n"
    "!7 = !{!8, !9, !10}\n"
    "!8 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: null, size: 64)\n"
    "!9 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !10, size: 64)\n"
    "!10 = !DIBasicType(name: \"float32\", size: 32, encoding: DW_ATE_float)\n"
    "!11 = !DILocation(line: 2, column: 1, scope: !5)\n";

/* The kernel's own subroutine type, which nothing else uses, is edited
 * where it stands, as numba-cuda edits it: its return slot becomes null
 * (void), and the module has one subroutine type, as numba-cuda's has. */
static void assert_debug_type_fixed(const char *out) {
  T_ASSERT_CONTAINS(out, "define void @k(float* %\"a\") !dbg !5 {\n"
                         "entry:\n");
  T_ASSERT_CONTAINS(out, "\n!5 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, "
                         "line: 1, type: !6, unit: !0)\n");
  T_ASSERT_CONTAINS(out, "\n!6 = !DISubroutineType(types: !7)\n!7 = !{null, !9, !10}\n");
  ck_assert_uint_eq(count(out, "!DISubroutineType("), 1);
}

START_TEST(kernel_debug_subroutine_type_voids_slot) {
  cuplug__kernel_options o = {.debug = true};
  char *out = fixup(DEBUG_INFO_KERNEL, &o);
  assert_debug_type_fixed(out);
  T_ASSERT_CONTAINS(out, "  call void @\"k__exc_helper__\"(i32 0), !dbg !11\n"
                         "  ret void, !dbg !11\n}\n");
  T_ASSERT_CONTAINS(out, "!12 = !{void (float*)* @\"k\", !\"kernel\", i32 1}\n");
  free(out);
}
END_TEST

/* numba-cuda's kernel_fixup voids the slot in the subroutine type whenever
 * the kernel has debug metadata (lineinfo too), not only with debug=True. */
START_TEST(kernel_lineinfo_subroutine_type_voids_slot) {
  cuplug__kernel_options o = {0};
  char *out = fixup(DEBUG_INFO_KERNEL, &o);
  assert_debug_type_fixed(out);
  T_ASSERT_CONTAINS(out, "entry:\n  ret void, !dbg !11\n}\n");
  free(out);
}
END_TEST

/* A subroutine type another function's subprogram shares stays as it is:
 * the kernel's subprogram gets new nodes, the list spaced as numba-cuda's
 * llvmlite spaces it. */
START_TEST(kernel_shared_subroutine_type_is_copied) {
  static const char shared[] = "define i32 @d(i8** %\".ret\", float* %\"a\") !dbg !12 {\n"
                               "entry:\n"
                               "  ret i32 0\n"
                               "}\n"
                               "!12 = distinct !DISubprogram(name: \"d\", scope: !1, file: !1, "
                               "line: 3, type: !6, unit: !0)\n";
  char text[sizeof DEBUG_INFO_KERNEL + sizeof shared];
  snprintf(text, sizeof text, "%s%s", DEBUG_INFO_KERNEL, shared);
  cuplug__kernel_options o = {0};
  char *out = fixup(text, &o);
  T_ASSERT_CONTAINS(out, "\n!5 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, "
                         "line: 1, type: !14, unit: !0)\n");
  T_ASSERT_CONTAINS(out, "\n!6 = !DISubroutineType(types: !7)\n!7 = !{!8, !9, !10}\n");
  T_ASSERT_CONTAINS(out, "line: 3, type: !6, unit: !0)\n");
  T_ASSERT_CONTAINS(out, "\n!13 = !{ null, !9, !10 }\n!14 = !DISubroutineType(types: !13)\n");
  free(out);
}
END_TEST

START_TEST(kernel_c_entry_only_annotated) {
  cuplug__kernel_options o = {.c_entry = true};
  char *out = fixup("define void @k(float* %a) {\n"
                    "  store float 1.0, float* %a\n"
                    "  ret void\n"
                    "}\n",
                    &o);
  ck_assert_str_eq(out,
                   "define void @k(float* %a) {\n"
                   "  store float 1.0, float* %a\n"
                   "  ret void\n"
                   "}\n"
                   "!0 = !{void (float*)* @\"k\", !\"kernel\", i32 1}\n"
                   "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (float*)* @\"k\" "
                   "to i8*)], section \"llvm.metadata\"\n"
                   "!nvvm.annotations = !{!0}\n");
  free(out);
}
END_TEST

START_TEST(kernel_c_entry_returning_i32_rejected) {
  cuplug__kernel_options o = {.c_entry = true};
  T_ASSERT_ERROR(fixup_error("define i32 @k(float* %a) {\n  ret i32 0\n}\n", &o),
                 CUPLUG_ERR_IR_UNSUPPORTED, "m.ll:1: kernel @k: a C-ABI kernel returns void");
}
END_TEST

Suite *suite_lowering(void) {
  Suite *s = suite_create("lowering");
  TCase *tc = t_tcase(s, "cabi_wrap", 0, NULL, NULL, 0);
  tcase_add_test(tc, cabi_wrap_int64_golden);
  tcase_add_test(tc, cabi_in_place_golden);
  tcase_add_test(tc, cabi_in_place_returns_and_blocks);
  tcase_add_test(tc, cabi_in_place_keeps_the_slot);
  tcase_add_test(tc, cabi_in_place_value_is_legalised);
  tcase_add_test(tc, cabi_in_place_void_complex_forceinline);
  tcase_add_test(tc, cabi_in_place_falls_back_to_the_wrapper);
  tcase_add_test(tc, cabi_wrap_bool_return_is_i8);
  tcase_add_test(tc, cabi_wrap_complex_split_and_returned_by_value);
  tcase_add_test(tc, cabi_wrap_void_return);
  tcase_add_test(tc, cabi_wrap_cpointer_return);
  tcase_add_test(tc, cabi_wrap_array_argument_flattened);
  tcase_add_test(tc, cabi_wrap_without_entry_only_relinks);
  tcase_add_test(tc, cabi_wrap_name_of_entry_moves_entry_aside);
  tcase_add_test(tc, cabi_wrap_forceinline_inline_attributes);
  tcase_add_test(tc, cabi_wrap_forceinline_copies_shared_group);
  tcase_add_test(tc, force_inline_marks_numba_function);
  tcase_add_test(tc, force_inline_missing_symbol);

  tc = t_tcase(s, "kernel_fixup", 0, NULL, NULL, 0);
  tcase_add_test(tc, kernel_fixup_golden);
  tcase_add_test(tc, kernel_launch_bounds_one_two_three);
  tcase_add_test(tc, kernel_extends_used_and_annotations);
  tcase_add_test(tc, kernel_slot_found_in_any_spelling);
  tcase_add_test(tc, kernel_unnamed_slot_renumbers);
  tcase_add_test(tc, kernel_unnamed_slot_debug_status_renumbered);
  tcase_add_test(tc, kernel_unnamed_slot_with_numbered_types_rejected);
  tcase_add_test(tc, kernel_slot_loaded_rejected);
  tcase_add_test(tc, kernel_not_numba_abi_rejected);
  tcase_add_test(tc, kernel_entry_not_found);
  tcase_add_test(tc, kernel_debug_exception_store_golden);
  tcase_add_test(tc, kernel_debug_keeps_declared_intrinsics);
  tcase_add_test(tc, kernel_debug_subroutine_type_voids_slot);
  tcase_add_test(tc, kernel_lineinfo_subroutine_type_voids_slot);
  tcase_add_test(tc, kernel_shared_subroutine_type_is_copied);
  tcase_add_test(tc, kernel_c_entry_only_annotated);
  tcase_add_test(tc, kernel_c_entry_returning_i32_rejected);
  return s;
}
