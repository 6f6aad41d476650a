/* test_legalize.c - cuplug__legalize, which makes a module acceptable to
 * libNVVM (LLVM 7 IR): attributes newer than LLVM 7 stripped (with their
 * arguments), uwtable(sync), fneg and poison rewritten, opaque `ptr`
 * rejected, !nvvmir.version set or added, target triple and datalayout
 * added, libdevice use detected, numba's atomic helpers defined; also
 * cuplug__put_legal_attrs, and legalisation on the same rewrite as the C-ABI
 * wrapper or the kernel fix-up, as the compile pipeline runs them. */
#include <stdlib.h>
#include <string.h>

#include "lowering/lowering.h"
#include "support.h"

static const cuplug__ir_version IRV = {2, 0, 3, 2};

#define TARGET                                                                \
  "target triple = \"" CUPLUG__NVPTX_TRIPLE "\"\n"                            \
  "target datalayout = \"" CUPLUG__NVPTX_DATALAYOUT "\"\n"
#define VERSION_0 "!nvvmir.version = !{!0}\n!0 = !{i32 2, i32 0, i32 3, i32 2}\n"

/* ---- helpers ---- */

/* Parsed as the pipeline parses, with legalisation's watch set. */
static void begin(ir_rewrite *rw, const char *text) {
  T_ASSERT_OK(cuplug__ir_rewrite_begin(rw, "m.ll", text, strlen(text), cuplug__legalize_watch()));
}

static char *finish(ir_rewrite *rw) {
  char *out = NULL;
  size_t n = 0;
  T_ASSERT_OK(cuplug__ir_rewrite_finish(rw, &out, &n));
  ck_assert_uint_eq(n, strlen(out));
  return out;
}

/* Legalises `text`; *libdevice (may be NULL) tells whether it calls libdevice.
 * Every case is legalised twice: from the lexer's watch list, and, parsed
 * without it, token by token; the two must agree. */
static char *legalize(const char *text, bool *libdevice) {
  ir_rewrite rw;
  bool uses = false, uses_walked = false;
  begin(&rw, text);
  T_ASSERT_OK(cuplug__legalize(&rw, IRV, &uses));
  char *out = finish(&rw);
  T_ASSERT_OK(cuplug__ir_rewrite_begin(&rw, "m.ll", text, strlen(text), NULL));
  T_ASSERT_OK(cuplug__legalize(&rw, IRV, &uses_walked));
  char *walked = finish(&rw);
  ck_assert_str_eq(walked, out);
  ck_assert_int_eq(uses_walked, uses);
  free(walked);
  if (libdevice) *libdevice = uses;
  return out;
}

/* ---- attributes ---- */

START_TEST(strips_attributes_newer_than_llvm7) {
  char *out = legalize(TARGET
                       "define noundef i32 @f(i32 noundef %x) #0 {\n"
                       "hot:\n"
                       "  %r = call noundef i32 @g(i32 noundef %x)\n"
                       "  br label %cold\n"
                       "cold:\n"
                       "  ret i32 %r\n"
                       "}\n"
                       "declare void @llvm.h(i32 immarg)\n"
                       "declare range(i32 0, 10) i32 @g(i32)\n"
                       "attributes #0 = { nofree nosync willreturn mustprogress nounwind "
                       "memory(none) }\n"
                       "attributes #1 = { uwtable(sync) }\n",
                       NULL);
  ck_assert_str_eq(out, TARGET
                   "define  i32 @f(i32  %x) #0 {\n"
                   "hot:\n"
                   "  %r = call  i32 @g(i32  %x)\n"
                   "  br label %cold\n"
                   "cold:\n"
                   "  ret i32 %r\n"
                   "}\n"
                   "declare void @llvm.h(i32 )\n"
                   "declare  i32 @g(i32)\n"
                   "attributes #0 = {     nounwind  }\n"
                   "attributes #1 = { uwtable }\n"
                   VERSION_0);
  free(out);
}
END_TEST

START_TEST(keeps_attribute_words_used_as_names) {
  /* a label and a metadata field spelled like attributes */
  const char *in = TARGET
                   "define void @f() {\n"
                   "nofree:\n"
                   "  br label %hot\n"
                   "hot:\n"
                   "  ret void\n"
                   "}\n"
                   "!0 = !{i32 2, i32 0, i32 3, i32 2}\n"
                   "!nvvmir.version = !{!0}\n"
                   "!1 = !DIFoo(memory: 1, range: 2)\n";
  char *out = legalize(in, NULL);
  ck_assert_str_eq(out, TARGET
                   "define void @f() {\n"
                   "nofree:\n"
                   "  br label %hot\n"
                   "hot:\n"
                   "  ret void\n"
                   "}\n"
                   "!0 = !{i32 2, i32 0, i32 3, i32 2}\n"
                   "!nvvmir.version = !{!2}\n"
                   "!1 = !DIFoo(memory: 1, range: 2)\n"
                   "!2 = !{i32 2, i32 0, i32 3, i32 2}\n");
  free(out);
}
END_TEST

/* Attribute text a pass copies (an attribute group) comes out legal too. */
static ir_wordset no_inline = CUPLUG__IR_WORDSET("noinline");

START_TEST(legal_attrs_copy) {
  static const char text[] =
      "noinline nofree uwtable(sync) memory(argmem: read) nounwind \"frame-pointer\"=\"all\"";
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "attrs", text, sizeof text - 1, NULL));
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__put_legal_attrs(&b, text, m.toks, m.num_toks, &no_inline);
  ck_assert_str_eq(b.data, " uwtable nounwind \"frame-pointer\"=\"all\"");
  cuplug__buf_free(&b);
  cuplug__ir_module_free(&m);
}
END_TEST

/* ---- instructions ---- */

START_TEST(fneg_and_poison_rewritten) {
  char *out = legalize(TARGET
                       "define <2 x float> @f(float %y, double %d) {\n"
                       "  %x = fneg float %y\n"
                       "  %z = fneg fast float %x\n"
                       "  %e = fneg nnan ninf double %d\n"
                       "  %v = insertelement <2 x float> poison, float %z, i32 0\n"
                       "  ret <2 x float> %v\n"
                       "}\n",
                       NULL);
  ck_assert_str_eq(out, TARGET
                   "define <2 x float> @f(float %y, double %d) {\n"
                   "  %x = fsub float -0.0, %y\n"
                   "  %z = fsub fast float -0.0, %x\n"
                   "  %e = fsub nnan ninf double -0.0, %d\n"
                   "  %v = insertelement <2 x float> undef, float %z, i32 0\n"
                   "  ret <2 x float> %v\n"
                   "}\n"
                   VERSION_0);
  free(out);
}
END_TEST

START_TEST(opaque_pointer_rejected) {
  ir_rewrite rw;
  bool uses = false;
  begin(&rw, TARGET "define void @f(ptr %p) {\n  ret void\n}\n");
  T_ASSERT_ERROR(cuplug__legalize(&rw, IRV, &uses), CUPLUG_ERR_IR_UNSUPPORTED,
                 "m.ll:3: opaque pointer type 'ptr': libNVVM reads typed pointers "
                 "(LLVM 7 IR), such as 'i8*'");
  cuplug__ir_rewrite_abort(&rw);
}
END_TEST

/* ---- module-level items ---- */

START_TEST(version_replaced_when_present) {
  char *out = legalize(TARGET
                       "!nvvmir.version = !{ !0 }\n"
                       "!0 = !{ i32 1, i32 0 }\n",
                       NULL);
  ck_assert_str_eq(out, TARGET
                   "!nvvmir.version = !{!1}\n"
                   "!0 = !{ i32 1, i32 0 }\n"
                   "!1 = !{i32 2, i32 0, i32 3, i32 2}\n");
  free(out);
}
END_TEST

START_TEST(version_and_target_added_when_missing) {
  char *out = legalize("define void @f() {\n  ret void\n}\n", NULL);
  ck_assert_str_eq(out, TARGET
                   "define void @f() {\n  ret void\n}\n"
                   VERSION_0);
  free(out);
}
END_TEST

START_TEST(target_kept_when_present) {
  const char *in = "target triple = \"nvptx64-nvidia-cuda\"\n"
                   "target datalayout = \"e-i64:64\"\n"
                   "define void @f() {\n  ret void\n}\n";
  char *out = legalize(in, NULL);
  ck_assert_str_eq(out, "target triple = \"nvptx64-nvidia-cuda\"\n"
                        "target datalayout = \"e-i64:64\"\n"
                        "define void @f() {\n  ret void\n}\n"
                        VERSION_0);
  free(out);
}
END_TEST

/* rustc's and clang's "PIC Level" is LLVM 15's Min (8), which LLVM 7's
 * verifier refuses: Warning (2).  A node that is no flag, and a flag of a
 * behaviour LLVM 7 knows, stay as they are. */
START_TEST(module_flag_behaviour_newer_than_llvm7) {
  char *out = legalize(TARGET
                       "define void @f() {\n  ret void\n}\n"
                       "!llvm.module.flags = !{!0, !2}\n"
                       "!0 = !{i32 8, !\"PIC Level\", i32 2}\n"
                       "!1 = !{i32 8, !\"not a flag\", i32 2}\n"
                       "!2 = !{i32 7, !\"Dwarf Version\", i32 4}\n",
                       NULL);
  ck_assert_str_eq(out, TARGET
                   "define void @f() {\n  ret void\n}\n"
                   "!llvm.module.flags = !{!0, !2}\n"
                   "!0 = !{i32 2, !\"PIC Level\", i32 2}\n"
                   "!1 = !{i32 8, !\"not a flag\", i32 2}\n"
                   "!2 = !{i32 7, !\"Dwarf Version\", i32 4}\n"
                   "!nvvmir.version = !{!3}\n!3 = !{i32 2, i32 0, i32 3, i32 2}\n");
  free(out);
}
END_TEST

START_TEST(libdevice_use_detected) {
  bool uses = false;
  free(legalize(TARGET
                "declare float @__nv_sinf(float)\n"
                "define float @f(float %x) {\n"
                "  %y = call float @__nv_sinf(float %x)\n"
                "  ret float %y\n"
                "}\n",
                &uses));
  ck_assert(uses);
  uses = false;
  free(legalize(TARGET
                "define double @f(double %x) {\n"
                "  %y = call double @\"__nv_cos\"(double %x)\n"
                "  ret double %y\n"
                "}\n",
                &uses));
  ck_assert(uses);
  free(legalize(TARGET
                "declare i32 @__nvvm_reflect(i8*)\n"
                "define float @nv_sinf(float %x) {\n"
                "  ret float %x\n"
                "}\n",
                &uses));
  ck_assert(!uses);
}
END_TEST

/* ---- numba's atomic helpers ---- */

static const char ATOMICS[] =
    "declare double @\"___numba_atomic_double_add\"(double* %\".1\", double %\".2\")\n"
    "declare float @\"___numba_atomic_float_sub\"(float* %\".1\", float %\".2\")\n"
    "declare i64 @\"___numba_atomic_u64_inc\"(i64* %\".1\", i64 %\".2\")\n"
    "declare i64 @\"___numba_atomic_u64_dec\"(i64* %\".1\", i64 %\".2\")\n"
    "declare float @\"___numba_atomic_float_max\"(float* %\".1\", float %\".2\")\n"
    "declare double @\"___numba_atomic_double_min\"(double* %\".1\", double %\".2\")\n"
    "declare float @\"___numba_atomic_float_nanmax\"(float* %\".1\", float %\".2\")\n"
    "declare double @\"___numba_atomic_double_nanmin\"(double* %\".1\", double %\".2\")\n"
    "declare i32 @\"___numba_atomic_i32_xor\"(i32* %\".1\", i32 %\".2\")\n";

static const char *const ATOMIC_NAMES[] = {
    "___numba_atomic_double_add",   "___numba_atomic_float_sub",
    "___numba_atomic_u64_inc",      "___numba_atomic_u64_dec",
    "___numba_atomic_float_max",    "___numba_atomic_double_min",
    "___numba_atomic_float_nanmax", "___numba_atomic_double_nanmin",
};

START_TEST(atomic_helpers_defined) {
  char *out = legalize(TARGET "declare double @\"___numba_atomic_double_add\"(double* %\".1\", "
                              "double %\".2\")\n",
                       NULL);
  ck_assert_str_eq(out, TARGET
                   "define internal double @___numba_atomic_double_add(double* %ptr, "
                   "double %val) alwaysinline {\n"
                   "entry:\n"
                   "  %iptr = bitcast double* %ptr to i64*\n"
                   "  %first = load volatile i64, i64* %iptr\n"
                   "  br label %attempt\n"
                   "attempt:\n"
                   "  %old = phi i64 [ %first, %entry ], [ %seen, %attempt ]\n"
                   "  %fold = bitcast i64 %old to double\n"
                   "  %fnew = fadd double %fold, %val\n"
                   "  %new = bitcast double %fnew to i64\n"
                   "  %cas = cmpxchg volatile i64* %iptr, i64 %old, i64 %new "
                   "monotonic monotonic\n"
                   "  %seen = extractvalue { i64, i1 } %cas, 0\n"
                   "  %swapped = extractvalue { i64, i1 } %cas, 1\n"
                   "  br i1 %swapped, label %done, label %attempt\n"
                   "done:\n"
                   "  ret double %fold\n"
                   "}\n"
                   VERSION_0);
  free(out);
}
END_TEST

START_TEST(atomic_helpers_key_lines) {
  char *out = legalize(ATOMICS, NULL);
  /* float_sub: fsub on the float view of the i32 */
  T_ASSERT_CONTAINS(out, "define internal float @___numba_atomic_float_sub(float* %ptr, "
                         "float %val) alwaysinline {\n");
  T_ASSERT_CONTAINS(out, "  %fnew = fsub float %fold, %val\n"
                         "  %new = bitcast float %fnew to i32\n"
                         "  %cas = cmpxchg volatile i32* %iptr, i32 %old, i32 %new "
                         "monotonic monotonic\n");
  /* u64_inc: old >= val ? 0 : old + 1 */
  T_ASSERT_CONTAINS(out, "define internal i64 @___numba_atomic_u64_inc(i64* %ptr, i64 %val) "
                         "alwaysinline {\n"
                         "entry:\n"
                         "  %first = load volatile i64, i64* %ptr\n"
                         "  br label %attempt\n"
                         "attempt:\n"
                         "  %old = phi i64 [ %first, %entry ], [ %seen, %attempt ]\n"
                         "  %wrap = icmp uge i64 %old, %val\n"
                         "  %next = add i64 %old, 1\n"
                         "  %new = select i1 %wrap, i64 0, i64 %next\n"
                         "  %cas = cmpxchg volatile i64* %ptr, i64 %old, i64 %new "
                         "monotonic monotonic\n");
  /* u64_dec: old == 0 || old > val ? val : old - 1 */
  T_ASSERT_CONTAINS(out, "define internal i64 @___numba_atomic_u64_dec(i64* %ptr, i64 %val) "
                         "alwaysinline {\n");
  T_ASSERT_CONTAINS(out, "  %is_zero = icmp eq i64 %old, 0\n"
                         "  %above = icmp ugt i64 %old, %val\n"
                         "  %wrap = or i1 %is_zero, %above\n"
                         "  %next = sub i64 %old, 1\n"
                         "  %new = select i1 %wrap, i64 %val, i64 %next\n");
  /* max/min return early when either operand is NaN; nan variants only on val */
  T_ASSERT_CONTAINS(out, "define internal float @___numba_atomic_float_max(float* %ptr, "
                         "float %val) alwaysinline {\n"
                         "entry:\n"
                         "  %first = load volatile float, float* %ptr\n"
                         "  %unordered = fcmp uno float %val, %first\n"
                         "  br i1 %unordered, label %done, label %compare\n"
                         "compare:\n"
                         "  %cur = phi float [ %first, %entry ], [ %fseen, %attempt ]\n"
                         "  %replace = fcmp nnan olt float %cur, %val\n");
  T_ASSERT_CONTAINS(out, "define internal double @___numba_atomic_double_min(double* %ptr, "
                         "double %val) alwaysinline {\n"
                         "entry:\n"
                         "  %first = load volatile double, double* %ptr\n"
                         "  %unordered = fcmp uno double %val, %first\n");
  T_ASSERT_CONTAINS(out, "  %replace = fcmp nnan ogt double %cur, %val\n");
  T_ASSERT_CONTAINS(out, "define internal float @___numba_atomic_float_nanmax(float* %ptr, "
                         "float %val) alwaysinline {\n"
                         "entry:\n"
                         "  %first = load volatile float, float* %ptr\n"
                         "  %unordered = fcmp uno float %val, %val\n");
  T_ASSERT_CONTAINS(out, "  %replace = fcmp ult float %cur, %val\n");
  T_ASSERT_CONTAINS(out, "define internal double @___numba_atomic_double_nanmin(double* %ptr, "
                         "double %val) alwaysinline {\n");
  T_ASSERT_CONTAINS(out, "  %replace = fcmp ugt double %cur, %val\n");
  /* an unknown helper stays declared */
  T_ASSERT_CONTAINS(out, "\ndeclare i32 @\"___numba_atomic_i32_xor\"(i32* %\".1\", "
                         "i32 %\".2\")\n");
  ck_assert_ptr_null(strstr(out, "declare double"));
  ck_assert_ptr_null(strstr(out, "declare float"));
  ck_assert_ptr_null(strstr(out, "declare i64"));
  free(out);
}
END_TEST

START_TEST(atomic_helpers_parse) {
  char *out = legalize(ATOMICS, NULL);
  ir_module m;
  T_ASSERT_OK(cuplug__ir_module_parse(&m, "out.ll", out, strlen(out), NULL));
  for (size_t i = 0; i < sizeof ATOMIC_NAMES / sizeof ATOMIC_NAMES[0]; i++) {
    const ir_item *it = cuplug__ir_module_find(&m, IR_ITEM_DEFINE, ATOMIC_NAMES[i]);
    ck_assert_msg(it != NULL, "no definition of %s", ATOMIC_NAMES[i]);
    ir_function fn;
    T_ASSERT_OK(cuplug__ir_function_parse(&m, it, &fn));
    ck_assert_uint_eq(fn.num_params, 2);
    ck_assert_int_eq((int)(fn.linkage.end - fn.linkage.start), 8);
    ck_assert(strncmp(out + fn.linkage.start, "internal", 8) == 0);
    ck_assert_int_eq((int)(fn.fn_attrs.end - fn.fn_attrs.start), 13);
    ck_assert(strncmp(out + fn.fn_attrs.start, "alwaysinline ", 13) == 0);
    /* the last statement returns a value of the helper's type */
    ir_stmt st, last = {0};
    size_t stmts = 0;
    ir_stmt_cursor cursor = {0};
    while (cuplug__ir_next_stmt(&m, &fn, &cursor, &st)) {
      last = st;
      stmts++;
    }
    ck_assert_uint_ge(stmts, 10);
    ck_assert(cuplug__ir_tok_is(out, last.toks[0], "ret"));
    ck_assert(strncmp(out + last.toks[1].start, out + fn.ret_type.start,
                      fn.ret_type.end - fn.ret_type.start) == 0);
    cuplug__ir_function_free(&fn);
  }
  ck_assert_ptr_nonnull(cuplug__ir_module_find(&m, IR_ITEM_DECLARE, "___numba_atomic_i32_xor"));
  cuplug__ir_module_free(&m);
  free(out);
}
END_TEST

/* ---- legalisation on the same rewrite as a wrapping pass ---- */

START_TEST(kernel_fixup_then_legalize) {
  ir_rewrite rw;
  bool uses = false;
  begin(&rw, TARGET
        "define noundef i32 @k(i8** noundef %\".ret\", float* noundef %\"a\") #0 {\n"
        "entry:\n"
        "  store i8* poison, i8** %\".ret\"\n"
        "  ret i32 0\n"
        "}\n"
        "attributes #0 = { noinline nofree nounwind memory(argmem: readwrite) }\n");
  cuplug__kernel_options o = {0};
  T_ASSERT_OK(cuplug__kernel_fixup(&rw, "k", &o));
  T_ASSERT_OK(cuplug__legalize(&rw, IRV, &uses));
  char *out = finish(&rw);
  ck_assert_str_eq(out, TARGET
                   "define void @k(float*  %\"a\") #1 {\n"
                   "entry:\n"
                   "  ret void\n"
                   "}\n"
                   "attributes #0 = { noinline  nounwind  }\n"
                   "attributes #1 = { nounwind }\n"
                   "!0 = !{void (float*)* @\"k\", !\"kernel\", i32 1}\n"
                   "@llvm.used = appending global [1 x i8*] [i8* bitcast (void (float*)* @\"k\" "
                   "to i8*)], section \"llvm.metadata\"\n"
                   "!nvvmir.version = !{!1}\n"
                   "!1 = !{i32 2, i32 0, i32 3, i32 2}\n"
                   "!nvvm.annotations = !{!0}\n");
  free(out);
}
END_TEST

/* The attribute group that forceinline copies is legal too: legalisation
 * does not see the copy. */
START_TEST(cabi_wrap_forceinline_then_legalize) {
  ir_rewrite rw;
  bool uses = false;
  const cuplug_type *sig = NULL;
  T_ASSERT_OK(t_api()->type_parse("int32(int32)", &sig));
  begin(&rw, TARGET
        "define i32 @\"e\"(i32* noundef %\".ret\", i32 noundef %\"x\") #0 {\n"
        "  store i32 %\"x\", i32* %\".ret\"\n"
        "  ret i32 0\n"
        "}\n"
        "attributes #0 = { noinline uwtable(sync) nofree }\n");
  cuplug__cabi_options o = {.sig = sig,
                            .entry = "e",
                            .name = "f",
                            .forceinline = true,
                            .has_entry = true};
  T_ASSERT_OK(cuplug__cabi_wrap(&rw, &o));
  T_ASSERT_OK(cuplug__legalize(&rw, IRV, &uses));
  char *out = finish(&rw);
  ck_assert_str_eq(out, TARGET
                   "define linkonce_odr i32 @\"e\"(i32*  %\".ret\", i32  %\"x\") alwaysinline "
                   "#1 {\n"
                   "  store i32 %\"x\", i32* %\".ret\"\n"
                   "  ret i32 0\n"
                   "}\n"
                   "attributes #0 = { noinline uwtable  }\n"
                   "attributes #1 = { uwtable }\n"
                   "\n"
                   "; C-ABI wrapper written by cuplug\n"
                   "define i32 @\"f\"(i32 %\"arg.0\") alwaysinline {\n"
                   "entry:\n"
                   "  %ret = alloca i32\n"
                   "  store i32 zeroinitializer, i32* %ret\n"
                   "  %status = call i32 @\"e\"(i32* %ret, i32 %\"arg.0\")\n"
                   "  %value = load i32, i32* %ret\n"
                   "  ret i32 %value\n"
                   "}\n"
                   VERSION_0);
  free(out);
}
END_TEST

/* A host on a newer LLVM writes return attributes such as range(...), which
 * legalisation strips; the wrapper pass, which reads every definition's
 * header first, must accept them. */
START_TEST(cabi_wrap_range_return_attribute_then_legalize) {
  ir_rewrite rw;
  bool uses = false;
  const cuplug_type *sig = NULL;
  T_ASSERT_OK(t_api()->type_parse("int32(int32)", &sig));
  begin(&rw, TARGET
        "define i32 @\"e\"(i32* %\".ret\", i32 %\"x\") {\n"
        "  %\".3\" = call i32 @\"h\"(i32 %\"x\")\n"
        "  store i32 %\".3\", i32* %\".ret\"\n"
        "  ret i32 0\n"
        "}\n"
        "define internal range(i32 0, 10) i32 @\"h\"(i32 %\"v\") {\n"
        "  ret i32 %\"v\"\n"
        "}\n");
  cuplug__cabi_options o = {.sig = sig,
                            .entry = "e",
                            .name = "f",
                            .forceinline = false,
                            .has_entry = true};
  cuplug_error *e = cuplug__cabi_wrap(&rw, &o);
  if (e) cuplug__ir_rewrite_abort(&rw);
  T_ASSERT_OK(e);
  T_ASSERT_OK(cuplug__legalize(&rw, IRV, &uses));
  char *out = finish(&rw);
  ck_assert_str_eq(out, TARGET
                   "define linkonce_odr i32 @\"e\"(i32* %\".ret\", i32 %\"x\") {\n"
                   "  %\".3\" = call i32 @\"h\"(i32 %\"x\")\n"
                   "  store i32 %\".3\", i32* %\".ret\"\n"
                   "  ret i32 0\n"
                   "}\n"
                   "define internal  i32 @\"h\"(i32 %\"v\") {\n"
                   "  ret i32 %\"v\"\n"
                   "}\n"
                   "\n"
                   "; C-ABI wrapper written by cuplug\n"
                   "define i32 @\"f\"(i32 %\"arg.0\") {\n"
                   "entry:\n"
                   "  %ret = alloca i32\n"
                   "  store i32 zeroinitializer, i32* %ret\n"
                   "  %status = call i32 @\"e\"(i32* %ret, i32 %\"arg.0\")\n"
                   "  %value = load i32, i32* %ret\n"
                   "  ret i32 %value\n"
                   "}\n"
                   VERSION_0);
  free(out);
}
END_TEST

Suite *suite_legalize(void) {
  Suite *s = suite_create("legalize");
  TCase *tc = t_tcase(s, "attributes", 0, NULL, NULL, 0);
  tcase_add_test(tc, strips_attributes_newer_than_llvm7);
  tcase_add_test(tc, keeps_attribute_words_used_as_names);
  tcase_add_test(tc, legal_attrs_copy);

  tc = t_tcase(s, "instructions", 0, NULL, NULL, 0);
  tcase_add_test(tc, fneg_and_poison_rewritten);
  tcase_add_test(tc, opaque_pointer_rejected);

  tc = t_tcase(s, "module_items", 0, NULL, NULL, 0);
  tcase_add_test(tc, version_replaced_when_present);
  tcase_add_test(tc, version_and_target_added_when_missing);
  tcase_add_test(tc, target_kept_when_present);
  tcase_add_test(tc, module_flag_behaviour_newer_than_llvm7);
  tcase_add_test(tc, libdevice_use_detected);

  tc = t_tcase(s, "atomic_helpers", 0, NULL, NULL, 0);
  tcase_add_test(tc, atomic_helpers_defined);
  tcase_add_test(tc, atomic_helpers_key_lines);
  tcase_add_test(tc, atomic_helpers_parse);

  tc = t_tcase(s, "after_wrapping", 0, NULL, NULL, 0);
  tcase_add_test(tc, kernel_fixup_then_legalize);
  tcase_add_test(tc, cabi_wrap_forceinline_then_legalize);
  tcase_add_test(tc, cabi_wrap_range_return_attribute_then_legalize);
  return s;
}
