/* test_registry.c - typing templates, lowerings and resolve_call: numba's
 * choice of a signature, every registration error, host callbacks, what a
 * compile links in, and registry_list.  The built-in library's PTX is in
 * test_builtins.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static cuplug_session *session;
static cuplug_registry *reg; /* empty: no built-ins */

static void setup(void) {
  cuplug_registry_options o = {.struct_size = sizeof o, .flags = CUPLUG_REGISTRY_NO_BUILTINS};
  T_ASSERT_OK(t_api()->registry_create(&o, &reg));
  cuplug_session_options so = {.struct_size = sizeof so, .registry = reg};
  T_ASSERT_OK(t_api()->session_create(&so, &session));
}

static void teardown(void) {
  t_api()->session_destroy(session);
  t_api()->registry_destroy(reg);
}

static cuplug_error *add_template(cuplug_registry *r, const char *key, const char *sig) {
  cuplug_template_args a = {.struct_size = sizeof a, .registry = r, .key = key, .signature = sig};
  return t_api()->register_template(&a);
}

static cuplug_error *add_ir(cuplug_registry *r, const char *key, const char *sig,
                            const char *symbol, const char *ir) {
  cuplug_lowering_args a = {.struct_size = sizeof a, .registry = r, .key = key, .signature = sig,
                            .kind = CUPLUG_LOWER_IR, .symbol = symbol, .source = ir};
  return t_api()->register_lowering(&a);
}

/* resolve_call on "A, B" argument types, with CUPLUG_RESOLVE_* flags. */
static cuplug_error *resolve_with(cuplug_registry *r, const char *key, const char *argtypes,
                                  uint32_t flags, cuplug_resolve_args *out) {
  const cuplug_type *const *args;
  size_t n;
  t_argtypes(argtypes, &args, &n);
  *out = (cuplug_resolve_args){.struct_size = sizeof *out, .registry = r, .key = key,
                               .argtypes = args, .nargs = n, .flags = flags};
  return t_api()->resolve_call(out);
}

/* ...numba-cuda's rule (the default), and the strict one */
static cuplug_error *resolve(cuplug_registry *r, const char *key, const char *argtypes,
                             cuplug_resolve_args *out) {
  return resolve_with(r, key, argtypes, 0, out);
}

static cuplug_error *resolve_strict(cuplug_registry *r, const char *key, const char *argtypes,
                                    cuplug_resolve_args *out) {
  return resolve_with(r, key, argtypes, CUPLUG_RESOLVE_STRICT, out);
}

/* The signature's name (the call must resolve). */
static const char *resolved_with(cuplug_registry *r, const char *key, const char *argtypes,
                                 uint32_t flags) {
  cuplug_resolve_args a;
  T_ASSERT_OK(resolve_with(r, key, argtypes, flags, &a));
  return t_type_name(a.signature);
}

static const char *resolved(cuplug_registry *r, const char *key, const char *argtypes) {
  return resolved_with(r, key, argtypes, 0);
}

static const char twice_f32[] =
    "define float @twice_f32(float %x) {\n"
    "  %y = fmul float %x, 2.0\n"
    "  ret float %y\n"
    "}\n";

/* t.f: three concrete signatures, each with an IR lowering */
static void register_f(void) {
  static const char *sigs[] = {"float32(float32)", "float64(float64)", "int64(int64)"};
  static const char *syms[] = {"f_f32", "f_f64", "f_i64"};
  static const char *bodies[] = {"fmul float %x, 2.0", "fmul double %x, 2.0", "mul i64 %x, 2"};
  static const char *irt[] = {"float", "double", "i64"};
  for (int i = 0; i < 3; i++) {
    T_ASSERT_OK(add_template(reg, "t.f", sigs[i]));
    char ir[256];
    snprintf(ir, sizeof ir, "define %s @%s(%s %%x) {\n  %%y = %s\n  ret %s %%y\n}\n", irt[i],
             syms[i], irt[i], bodies[i], irt[i]);
    T_ASSERT_OK(add_ir(reg, "t.f", sigs[i], syms[i], ir));
  }
}

/* ---- numba's choice of a signature ---- */

/* numba-cuda's rule: an unsafe conversion is the last resort, and a
 * resolve says which conversions its choice needs; unknown flags are
 * refused; a host of ABI 1.2 (no flags in its struct) keeps the strict rule. */
START_TEST(unsafe_as_the_last_resort) {
  register_f();
  cuplug_resolve_args a;
  /* int64 to float32 is unsafe, to float64 safe, to int64 exact */
  T_ASSERT_OK(resolve(reg, "t.f", "int64", &a));
  ck_assert_str_eq(t_type_name(a.signature), "int64(int64)");
  ck_assert_int_eq(a.conversion, CUPLUG_CONV_EXACT);
  /* a complex converts to no real type, even as the last resort */
  T_ASSERT_ERROR_PREFIX(resolve(reg, "t.f", "complex64", &a), CUPLUG_ERR_NO_MATCH,
                        "no signature of t.f takes (complex64)");
  T_ASSERT_OK(add_template(reg, "t.narrow", "float32(float32, int32)"));
  cuplug_conversion each[2] = {CUPLUG_CONV_UNSAFE, CUPLUG_CONV_UNSAFE};
  const cuplug_type *const *args;
  size_t n;
  t_argtypes("float32, int16", &args, &n);
  a = (cuplug_resolve_args){.struct_size = sizeof a, .registry = reg, .key = "t.narrow",
                            .argtypes = args, .nargs = n, .arg_conversions = each};
  T_ASSERT_ERROR(t_api()->resolve_call(&a), CUPLUG_ERR_NO_LOWERING,
                 "t.narrow types as float32(float32, int32), but has no lowering for it");
  T_ASSERT_OK(add_ir(reg, "t.narrow", "float32(float32, int32)", "narrow",
                     "define float @narrow(float %x, i32 %n) {\n  ret float %x\n}\n"));
  T_ASSERT_OK(t_api()->resolve_call(&a));
  ck_assert_int_eq(a.conversion, CUPLUG_CONV_PROMOTE);
  ck_assert_int_eq(each[0], CUPLUG_CONV_EXACT);
  ck_assert_int_eq(each[1], CUPLUG_CONV_PROMOTE);
  t_argtypes("float64, int64", &args, &n);
  a.argtypes = args;
  T_ASSERT_OK(t_api()->resolve_call(&a));
  ck_assert_int_eq(a.conversion, CUPLUG_CONV_UNSAFE);
  ck_assert_int_eq(each[0], CUPLUG_CONV_UNSAFE);
  ck_assert_int_eq(each[1], CUPLUG_CONV_UNSAFE);
  T_ASSERT_OK(resolve(reg, "t.f", "float32", &a));
  ck_assert_int_eq(a.conversion, CUPLUG_CONV_EXACT);
  T_ASSERT_ERROR(resolve_with(reg, "t.f", "float32", 0x6, &a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "resolve_call t.f: unknown flags 0x6");
  /* a 1.2-sized struct: the strict rule */
  T_ASSERT_OK(add_template(reg, "t.g", "float64(int64, float64)"));
  T_ASSERT_OK(add_template(reg, "t.g", "float64(float64, int64)"));
  t_argtypes("int32, int32", &args, &n);
  a = (cuplug_resolve_args){.struct_size = offsetof(cuplug_resolve_args, flags),
                            .registry = reg, .key = "t.g", .argtypes = args, .nargs = n};
  T_ASSERT_ERROR_PREFIX(t_api()->resolve_call(&a), CUPLUG_ERR_AMBIGUOUS,
                        "ambiguous call t.g(int32, int32)");
}
END_TEST

START_TEST(exact_then_promotion_then_safe) {
  register_f();
  ck_assert_str_eq(resolved(reg, "t.f", "float32"), "float32(float32)");
  ck_assert_str_eq(resolved(reg, "t.f", "float64"), "float64(float64)");
  /* int32 promotes to int64 (better than the safe int32 -> float64) */
  ck_assert_str_eq(resolved(reg, "t.f", "int32"), "int64(int64)");
  ck_assert_str_eq(resolved(reg, "t.f", "int16"), "int64(int64)");
  /* float16 promotes to float32 */
  ck_assert_str_eq(resolved(reg, "t.f", "float16"), "float32(float32)");
  /* uint8 converts safely to each: numba-cuda takes the first declared;
   * the strict rule, the one that stays an integer */
  ck_assert_str_eq(resolved(reg, "t.f", "uint8"), "float32(float32)");
  ck_assert_str_eq(resolved(reg, "t.f", "bool"), "float32(float32)");
  ck_assert_str_eq(resolved_with(reg, "t.f", "uint8", CUPLUG_RESOLVE_STRICT), "int64(int64)");
  ck_assert_str_eq(resolved_with(reg, "t.f", "bool", CUPLUG_RESOLVE_STRICT), "int64(int64)");
  /* numba calls int64 -> float64 safe (float64 + int64 is a float64) */
  ck_assert_str_eq(resolved(reg, "t.f", "uint64"), "float64(float64)");
  /* a literal prefers an integer that holds it */
  ck_assert_str_eq(resolved(reg, "t.f", "Literal[int](3)"), "int64(int64)");
  T_ASSERT_OK(add_template(reg, "t.small", "void(int32)"));
  T_ASSERT_OK(add_template(reg, "t.small", "void(float32)"));
  cuplug_resolve_args big;
  T_ASSERT_ERROR(resolve(reg, "t.small", "Literal[int](-7)", &big), CUPLUG_ERR_NO_LOWERING,
                 "t.small types as void(int32), but has no lowering for it");
  /* 2**40 fits no int32; float32 holds it exactly (a power of two) */
  T_ASSERT_ERROR(resolve(reg, "t.small", "Literal[int](1099511627776)", &big),
                 CUPLUG_ERR_NO_LOWERING,
                 "t.small types as void(float32), but has no lowering for it");
  cuplug_resolve_args a;
  T_ASSERT_OK(resolve(reg, "t.f", "float32", &a));
  ck_assert_str_eq(a.symbol, "f_f32");
  ck_assert_int_eq(a.abi, CUPLUG_ABI_C);
  ck_assert_str_eq(a.declaration, "declare float @f_f32(float)");
}
END_TEST

START_TEST(no_match_names_the_candidates) {
  register_f();
  cuplug_resolve_args a;
  /* under the strict rule a complex converts to no real type */
  T_ASSERT_ERROR(resolve_strict(reg, "t.f", "complex64", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.f takes (complex64); it has: float32(float32), "
                 "float64(float64), int64(int64)");
  /* float64 -> float32 and int64 -> int32 lose values: unsafe, never taken */
  T_ASSERT_OK(add_template(reg, "t.narrow", "float32(float32, int32)"));
  T_ASSERT_ERROR(resolve_strict(reg, "t.narrow", "float64, int32", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.narrow takes (float64, int32); it has: "
                 "float32(float32, int32)");
  T_ASSERT_ERROR(resolve_strict(reg, "t.narrow", "float32, int64", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.narrow takes (float32, int64); it has: "
                 "float32(float32, int32)");
  T_ASSERT_ERROR(resolve(reg, "t.f", "float32, float32", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.f takes (float32, float32); it has: float32(float32), "
                 "float64(float64), int64(int64)");
  /* an array is no scalar */
  T_ASSERT_ERROR(resolve(reg, "t.f", "float32[:]", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.f takes (float32[:]); it has: float32(float32), "
                 "float64(float64), int64(int64)");
  T_ASSERT_ERROR(resolve(reg, "t.nothing", "int32", &a), CUPLUG_ERR_UNKNOWN_KEY,
                 "nothing is registered under the key 't.nothing'");
}
END_TEST

START_TEST(ambiguity_is_an_error) {
  T_ASSERT_OK(add_template(reg, "t.g", "float64(int64, float64)"));
  T_ASSERT_OK(add_template(reg, "t.g", "float64(float64, int64)"));
  cuplug_resolve_args a;
  /* each needs one promotion and one safe conversion: a tie, under the
   * strict rule; numba-cuda's takes the first declared */
  T_ASSERT_ERROR(resolve(reg, "t.g", "int32, int32", &a), CUPLUG_ERR_NO_LOWERING,
                 "t.g types as float64(int64, float64), but has no lowering for it");
  T_ASSERT_ERROR(resolve_strict(reg, "t.g", "int32, int32", &a), CUPLUG_ERR_AMBIGUOUS,
                 "ambiguous call t.g(int32, int32): float64(int64, float64) and "
                 "float64(float64, int64) match equally well (candidates: "
                 "float64(int64, float64), float64(float64, int64))");
  /* an exact argument settles it: the first needs no conversion of it */
  T_ASSERT_ERROR(resolve(reg, "t.g", "int64, float64", &a), CUPLUG_ERR_NO_LOWERING,
                 "t.g types as float64(int64, float64), but has no lowering for it");
}
END_TEST

START_TEST(arrays_and_layouts) {
  T_ASSERT_OK(add_template(reg, "t.sum", "float32(float32[:])"));
  T_ASSERT_OK(add_template(reg, "t.sum", "float64(float64[:, :])"));
  /* a contiguous array is also an array of any layout */
  cuplug_resolve_args a;
  T_ASSERT_ERROR(resolve(reg, "t.sum", "float32[::1]", &a), CUPLUG_ERR_NO_LOWERING,
                 "t.sum types as float32(float32[:]), but has no lowering for it");
  T_ASSERT_ERROR(resolve(reg, "t.sum", "float64[:, ::1]", &a), CUPLUG_ERR_NO_LOWERING,
                 "t.sum types as float64(float64[:, :]), but has no lowering for it");
  /* dtype and rank must agree */
  T_ASSERT_ERROR(resolve(reg, "t.sum", "float64[:]", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.sum takes (float64[:]); it has: float32(float32[:]), "
                 "float64(float64[:, :])");
  /* nor is a pointer an array */
  T_ASSERT_ERROR(resolve(reg, "t.sum", "CPointer(float32)", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.sum takes (CPointer(float32)); it has: "
                 "float32(float32[:]), float64(float64[:, :])");
}
END_TEST

START_TEST(resolve_argument_checks) {
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = reg, .key = "t.f", .nargs = 1};
  T_ASSERT_ERROR(t_api()->resolve_call(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "resolve_call t.f: nargs is 1 but argtypes is NULL");
  const cuplug_type *bad[] = {t_type("void")};
  a.argtypes = bad;
  T_ASSERT_ERROR(t_api()->resolve_call(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "resolve_call t.f: argument type 0 is void");
  a.registry = NULL;
  T_ASSERT_ERROR(t_api()->resolve_call(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "resolve_call: registry is NULL");
}
END_TEST

/* ---- registration errors ---- */

START_TEST(duplicates) {
  register_f();
  T_ASSERT_ERROR(add_template(reg, "t.f", "float32(float32)"), CUPLUG_ERR_DUPLICATE,
                 "t.f already has the signature float32(float32)");
  T_ASSERT_ERROR(add_ir(reg, "t.f", "float32(float32)", "twice_f32", twice_f32),
                 CUPLUG_ERR_DUPLICATE, "t.f already has a lowering for float32(float32)");
  T_ASSERT_OK(add_template(reg, "t.h", "float32(float32)"));
  T_ASSERT_ERROR(add_ir(reg, "t.h", "float32(float32)", "f_f32",
                        "define float @f_f32(float %x) {\n  ret float %x\n}\n"),
                 CUPLUG_ERR_DUPLICATE,
                 "symbol f_f32 is already the lowering of t.f (float32(float32))");
  /* a declared function's name is a symbol too */
  cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = reg, .name = "f_f64",
                                  .signature = "float64(float64)"};
  T_ASSERT_ERROR(t_api()->declare_device(&d), CUPLUG_ERR_DUPLICATE,
                 "f_f64 is already the symbol of t.f (float64(float64))");
}
END_TEST

START_TEST(duplicate_of_a_builtin) {
  cuplug_registry *r;
  T_ASSERT_OK(t_api()->registry_create(NULL, &r));
  T_ASSERT_ERROR(add_template(r, "math.sin", "float32(float32)"), CUPLUG_ERR_DUPLICATE,
                 "math.sin already has the signature float32(float32)");
  /* a new signature extends a built-in key; the built-in lowering is not
   * for it: a signature is lowered by the registry whose template gave it */
  T_ASSERT_OK(add_template(r, "math.sin", "complex64(complex64)"));
  cuplug_resolve_args a;
  T_ASSERT_ERROR(resolve(r, "math.sin", "complex64", &a), CUPLUG_ERR_NO_LOWERING,
                 "math.sin types as complex64(complex64), but has no lowering for it");
  T_ASSERT_OK(add_ir(r, "math.sin", "complex64(complex64)", "my_csin",
                     "define {float, float} @my_csin(float %re, float %im) {\n"
                     "  %a = insertvalue {float, float} undef, float %re, 0\n"
                     "  %b = insertvalue {float, float} %a, float %im, 1\n"
                     "  ret {float, float} %b\n}\n"));
  T_ASSERT_OK(resolve(r, "math.sin", "complex64", &a));
  ck_assert_str_eq(a.symbol, "my_csin");
  /* the built-ins still resolve for the rest */
  ck_assert_str_eq(resolved(r, "math.sin", "float32"), "float32(float32)");
  t_api()->registry_destroy(r);
}
END_TEST

START_TEST(lowering_ir_must_parse_and_define_its_symbol) {
  T_ASSERT_OK(add_template(reg, "t.f", "float32(float32)"));
  /* the message names the lowering, then quotes LLVM (whose words vary
   * with its version); the log holds LLVM's diagnostic */
  cuplug_error *e =
      add_ir(reg, "t.f", "float32(float32)", "f_bad", "define float @f_bad(float %x) {");
  T_ASSERT_CODE(e, CUPLUG_ERR_LOWERING);
  T_ASSERT_STARTS(t_api()->error_message(e),
                  "the lowering of t.f for float32(float32): IR does not parse: ");
  T_ASSERT_CONTAINS(t_api()->error_log(e), "found end of file when expecting more instructions");
  t_api()->error_destroy(e);
  T_ASSERT_ERROR(add_ir(reg, "t.f", "float32(float32)", "f_promised", twice_f32),
                 CUPLUG_ERR_LOWERING,
                 "the lowering of t.f for float32(float32) does not define the symbol "
                 "@f_promised it promises; its IR defines @twice_f32");
  T_ASSERT_ERROR(add_ir(reg, "t.f", "float32(float32)", "f_wrong",
                        "define double @f_wrong(double %x) {\n  ret double %x\n}\n"),
                 CUPLUG_ERR_LOWERING,
                 "the lowering of t.f: @f_wrong does not match signature 'float32(float32)' "
                 "under the C ABI: the return type is double, expected float (found double "
                 "(double), expected float (float))");
  /* nothing half-registered: the good one still goes in */
  T_ASSERT_OK(add_ir(reg, "t.f", "float32(float32)", "twice_f32", twice_f32));
}
END_TEST

START_TEST(registration_argument_errors) {
  T_ASSERT_ERROR(add_template(reg, "has space", "void()"), CUPLUG_ERR_OPTION_NAME,
                 "register_template: key 'has space' is empty or holds spaces");
  T_ASSERT_ERROR(add_template(reg, "t.x", "float32"), CUPLUG_ERR_SIGNATURE_SYNTAX,
                 "signature syntax error at position 7 of 'float32': expected '(' and an "
                 "argument list (a signature), found the end of the text");
  cuplug_template_args t = {.struct_size = sizeof t, .registry = reg, .key = "t.x"};
  T_ASSERT_ERROR(t_api()->register_template(&t), CUPLUG_ERR_INVALID_ARGUMENT,
                 "register_template t.x: give its signature");
  cuplug_lowering_args l = {.struct_size = sizeof l, .registry = reg, .key = "t.x",
                            .signature = "void()", .kind = CUPLUG_LOWER_IR,
                            .source = "define void @x() {\n ret void\n}\n"};
  T_ASSERT_ERROR(t_api()->register_lowering(&l), CUPLUG_ERR_OPTION_NAME,
                 "register_lowering t.x: give the symbol its code defines");
  l.symbol = "x";
  l.kind = 7;
  T_ASSERT_ERROR(t_api()->register_lowering(&l), CUPLUG_ERR_INVALID_ARGUMENT,
                 "register_lowering t.x: kind 7 is not IR (1), CUDA (2) or CALLBACK (3)");
  l.kind = CUPLUG_LOWER_CALLBACK;
  T_ASSERT_ERROR(t_api()->register_lowering(&l), CUPLUG_ERR_INVALID_ARGUMENT,
                 "register_lowering t.x: a CALLBACK lowering needs its lowerer");
  l.kind = CUPLUG_LOWER_CUDA;
  /* "x" appears in "extern", but not as a name */
  l.source = "extern \"C\" __device__ void y() {}\n";
  T_ASSERT_ERROR(t_api()->register_lowering(&l), CUPLUG_ERR_LOWERING,
                 "lowering of t.x: its CUDA C++ does not mention the symbol x it should define");
  l.abi = 5;
  T_ASSERT_ERROR(t_api()->register_lowering(&l), CUPLUG_ERR_OPTION_ABI,
                 "register_lowering t.x: unsupported ABI 5 (numba or c)");
}
END_TEST

/* ---- compiling with lowerings ---- */

START_TEST(ir_lowering_is_linked_and_inlined) {
  register_f();
  cuplug_resolve_args how;
  cuplug_artifact *a = t_compile_call(session, "t.f", "float64", CUPLUG_OUTPUT_PTX, 0, &how);
  ck_assert_str_eq(how.symbol, "f_f64");
  char *ptx = t_artifact_text(a);
  T_ASSERT_CONTAINS(ptx, "add.f64"); /* x * 2.0, as x + x */
  ck_assert_ptr_null(strstr(ptx, "f_f64"));  /* inlined, and gone */
  ck_assert_ptr_null(strstr(ptx, "f_f32"));  /* never called: never linked */
  free(ptx);
  t_api()->artifact_destroy(a);
}
END_TEST

/* The implementation's module joins the compile only when the IR calls it. */
START_TEST(only_called_lowerings_join) {
  register_f();
  cuplug_artifact *art;
  T_ASSERT_OK(t_try_compile_call(session, "t.f", "int64", CUPLUG_OUTPUT_PTX, 0,
                                 CUPLUG_COMPILE_KEEP_IR, NULL, &art));
  cuplug_artifact_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->artifact_info(art, &info));
  ck_assert_uint_eq(info.num_ir_modules, 2);
  cuplug_ir_view v = {.struct_size = sizeof v};
  T_ASSERT_OK(t_api()->artifact_ir(art, 1, &v));
  ck_assert_str_eq(v.name, "f_i64");
  /* linkonce_odr: two artifacts that both inline it still link */
  T_ASSERT_CONTAINS(v.text, "define linkonce_odr i64 @f_i64(i64 %x)");
  t_api()->artifact_destroy(art);
}
END_TEST

/* A host's generic typer: same-typed numeric pairs, T(T, T). */
static int typer_calls;
static cuplug_callback_status pair_typer(void *user, const char *key,
                                         const cuplug_type *const *args, size_t n,
                                         const cuplug_type **sig, char *message, size_t size) {
  ck_assert_ptr_eq(user, &typer_calls);
  ck_assert_str_eq(key, "t.pair");
  __atomic_add_fetch(&typer_calls, 1, __ATOMIC_RELAXED);
  if (n == 3) {
    snprintf(message, size, "three is too many");
    return CUPLUG_CALLBACK_FAILED;
  }
  if (n == 4) { /* a wrong answer: a signature of another arity */
    *sig = t_type("float32(float32)");
    return CUPLUG_CALLBACK_OK;
  }
  if (n != 2 || args[0] != args[1]) return CUPLUG_CALLBACK_NO_MATCH;
  const cuplug_type *pair[] = {args[0], args[1]};
  cuplug_error *e = t_api()->type_signature(args[0], pair, 2, sig);
  if (e) {
    t_api()->error_destroy(e);
    return CUPLUG_CALLBACK_FAILED;
  }
  return CUPLUG_CALLBACK_OK;
}

/* Its lowering: the IR of T sym(T a, T b) = a - b. */
static int lowerer_calls;
static char lowered_ir[1024];
static cuplug_callback_status pair_lowerer(void *user, const char *key, const cuplug_type *sig,
                                           const char *symbol, cuplug_abi abi, const char **ir,
                                           size_t *size, char *message, size_t msize) {
  (void)user;
  (void)message;
  (void)msize;
  ck_assert_str_eq(key, "t.pair");
  ck_assert_int_eq(abi, CUPLUG_ABI_C);
  __atomic_add_fetch(&lowerer_calls, 1, __ATOMIC_RELAXED);
  cuplug_type_info i = {.struct_size = sizeof i, .type = sig};
  T_ASSERT_OK(t_api()->type_info(&i));
  cuplug_type_lower_args l = {.struct_size = sizeof l, .type = i.restype, .abi = CUPLUG_ABI_C};
  T_ASSERT_OK(t_api()->type_lower(&l));
  bool fp = l.ir_type[0] == 'f' || l.ir_type[0] == 'd';
  snprintf(lowered_ir, sizeof lowered_ir,
           "define %s @%s(%s %%a, %s %%b) {\n  %%d = %s %s %%a, %%b\n  ret %s %%d\n}\n",
           l.ir_type, symbol, l.ir_type, l.ir_type, fp ? "fsub" : "sub", l.ir_type, l.ir_type);
  *ir = lowered_ir;
  *size = 0; /* NUL-terminated */
  return CUPLUG_CALLBACK_OK;
}

static void register_pair(cuplug_lowerer_fn lowerer) {
  cuplug_template_args t = {.struct_size = sizeof t, .registry = reg, .key = "t.pair",
                            .typer = pair_typer, .user_data = &typer_calls,
                            .description = "T(T, T) for any T"};
  T_ASSERT_OK(t_api()->register_template(&t));
  cuplug_lowering_args l = {.struct_size = sizeof l, .registry = reg, .key = "t.pair",
                            .kind = CUPLUG_LOWER_CALLBACK, .lowerer = lowerer};
  T_ASSERT_OK(t_api()->register_lowering(&l));
}

START_TEST(generic_typer_and_lowering_callbacks) {
  register_pair(pair_lowerer);
  cuplug_resolve_args a, b;
  T_ASSERT_OK(resolve(reg, "t.pair", "int32, int32", &a));
  ck_assert_str_eq(t_type_name(a.signature), "int32(int32, int32)");
  T_ASSERT_OK(resolve(reg, "t.pair", "float64, float64", &b));
  ck_assert_str_ne(a.symbol, b.symbol);
  /* the same call resolves to the same symbol: it is named from key and signature */
  cuplug_resolve_args again;
  T_ASSERT_OK(resolve(reg, "t.pair", "int32, int32", &again));
  ck_assert_str_eq(again.symbol, a.symbol);
  ck_assert_int_eq(strncmp(a.symbol, "__cuplug_t_pair_", 16), 0);
  T_ASSERT_ERROR(resolve(reg, "t.pair", "int32, int64", &a), CUPLUG_ERR_NO_MATCH,
                 "no signature of t.pair takes (int32, int64); it has: T(T, T) for any T");
  T_ASSERT_ERROR(resolve(reg, "t.pair", "int32, int32, int32", &a), CUPLUG_ERR_CALLBACK,
                 "the typing template of t.pair failed: three is too many");
  T_ASSERT_ERROR(resolve(reg, "t.pair", "int32, int32, int32, int32", &a), CUPLUG_ERR_CALLBACK,
                 "the typing template of t.pair answered float32(float32) for a call with 4 "
                 "arguments");

  /* the lowering is asked for once per symbol, however many compiles use it */
  lowerer_calls = 0;
  for (int round = 0; round < 2; round++) {
    cuplug_artifact *art = t_compile_call(session, "t.pair", "float32, float32",
                                          CUPLUG_OUTPUT_PTX, 0, NULL);
    char *ptx = t_artifact_text(art);
    T_ASSERT_CONTAINS(ptx, "sub.f32");
    free(ptx);
    t_api()->artifact_destroy(art);
  }
  ck_assert_int_eq(lowerer_calls, 1);
}
END_TEST

static cuplug_callback_status failing_lowerer(void *user, const char *key, const cuplug_type *sig,
                                              const char *symbol, cuplug_abi abi,
                                              const char **ir, size_t *size, char *message,
                                              size_t msize) {
  (void)user, (void)key, (void)sig, (void)abi, (void)ir, (void)size;
  (void)symbol;
  int call = lowerer_calls++;
  if (call == 0) {
    snprintf(message, msize, "no code for you");
    return CUPLUG_CALLBACK_FAILED;
  }
  *ir = call == 1 ? "define i32 @not_it(i32 %a) {\n  ret i32 %a\n}\n"
                  : "define i32 @broken(i32 %a) {\n  ret i32 %b\n}\n";
  *size = strlen(*ir);
  return CUPLUG_CALLBACK_OK;
}

/* A compile that needs a lowering the callback cannot give fails, naming the
 * key; the symbol cuplug named for the call goes to *symbol. */
static cuplug_error *compile_pair(const char **symbol) {
  cuplug_artifact *a;
  cuplug_resolve_args how;
  cuplug_error *e = t_try_compile_call(session, "t.pair", "int32, int32", CUPLUG_OUTPUT_PTX, 0,
                                       0, &how, &a);
  ck_assert_ptr_null(a);
  *symbol = how.symbol;
  return e;
}

START_TEST(lowering_callback_failures) {
  register_pair(failing_lowerer);
  lowerer_calls = 0;
  const char *symbol;
  T_ASSERT_ERROR(compile_pair(&symbol), CUPLUG_ERR_CALLBACK,
                 "the lowering of t.pair for int32(int32, int32) failed: no code for you");
  /* asked again (nothing was kept), it now answers IR without the symbol */
  cuplug_error *e = compile_pair(&symbol);
  ck_assert_int_eq(strncmp(symbol, "__cuplug_t_pair_", 16), 0);
  char want[512];
  snprintf(want, sizeof want,
           "the lowering of t.pair for int32(int32, int32) does not define the symbol @%s it "
           "promises; its IR defines @not_it",
           symbol);
  T_ASSERT_ERROR(e, CUPLUG_ERR_LOWERING, want);
  /* and then IR that does not parse: LLVM's words (which vary with its
   * version) follow the stable part, and its diagnostic is in the log */
  e = compile_pair(&symbol);
  T_ASSERT_CODE(e, CUPLUG_ERR_LOWERING);
  T_ASSERT_STARTS(t_api()->error_message(e),
                  "the lowering of t.pair for int32(int32, int32): IR does not parse: ");
  T_ASSERT_CONTAINS(t_api()->error_log(e), "use of undefined value '%b'");
  t_api()->error_destroy(e);
}
END_TEST

/* A CUDA C++ lowering is compiled by NVRTC and linked (with LTO) into a cubin. */
START_TEST(cuda_lowering_links) {
  T_ASSERT_OK(add_template(reg, "t.cube", "float32(float32)"));
  cuplug_lowering_args l = {
      .struct_size = sizeof l, .registry = reg, .key = "t.cube", .signature = "float32(float32)",
      .kind = CUPLUG_LOWER_CUDA, .symbol = "t_cube",
      .source = "extern \"C\" __device__ float t_cube(float x) { return x * x * x; }\n"};
  T_ASSERT_OK(t_api()->register_lowering(&l));
  cuplug_artifact *a = t_compile_call(session, "t.cube", "float32", CUPLUG_OUTPUT_CUBIN, 0, NULL);
  cuplug_artifact_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->artifact_info(a, &i));
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_CUBIN);
  ck_assert(t_elf_has_symbol(i.data, i.size, "k"));
  t_api()->artifact_destroy(a);
  /* PTX output leaves it external, as declared functions are */
  a = t_compile_call(session, "t.cube", "float32", CUPLUG_OUTPUT_PTX, 0, NULL);
  char *ptx = t_artifact_text(a);
  T_ASSERT_CONTAINS(ptx, ".extern .func  (.param .b32 func_retval0) t_cube");
  free(ptx);
  t_api()->artifact_destroy(a);
}
END_TEST

/* ---- registry_list ---- */

typedef struct listing {
  char lines[64][160];
  int n, stop_after;
} listing;

static int collect(void *user, const cuplug_listing *l) {
  listing *out = user;
  if (out->n < 64)
    snprintf(out->lines[out->n], sizeof out->lines[0], "%s %s %s %u", l->key,
             l->signature ? t_type_name(l->signature) : l->description,
             *l->symbol ? l->symbol : "-", l->builtin);
  out->n++;
  return out->stop_after && out->n == out->stop_after;
}

START_TEST(list_in_key_order) {
  register_f();
  register_pair(pair_lowerer);
  listing l = {0};
  T_ASSERT_OK(t_api()->registry_list(reg, "t.", collect, &l));
  ck_assert_int_eq(l.n, 4);
  ck_assert_str_eq(l.lines[0], "t.f float32(float32) f_f32 0");
  ck_assert_str_eq(l.lines[1], "t.f float64(float64) f_f64 0");
  ck_assert_str_eq(l.lines[2], "t.f int64(int64) f_i64 0");
  ck_assert_str_eq(l.lines[3], "t.pair T(T, T) for any T - 0");
  listing first = {.stop_after = 1};
  T_ASSERT_OK(t_api()->registry_list(reg, NULL, collect, &first));
  ck_assert_int_eq(first.n, 1);

  cuplug_registry *r;
  T_ASSERT_OK(t_api()->registry_create(NULL, &r));
  listing atomics = {0};
  T_ASSERT_OK(t_api()->registry_list(r, "cuda.atomic.", collect, &atomics));
  ck_assert_int_eq(atomics.n, 14);
  ck_assert_int_eq(strncmp(atomics.lines[0], "cuda.atomic.add T(T[...] ary, index, value)", 43), 0);
  listing sin = {0};
  T_ASSERT_OK(t_api()->registry_list(r, "math.sin", collect, &sin));
  ck_assert_int_eq(sin.n, 9); /* the prefix takes math.sin (5 signatures) and math.sinh (4) */
  t_api()->registry_destroy(r);
}
END_TEST

START_TEST(empty_registry_has_no_builtins) {
  cuplug_resolve_args a;
  T_ASSERT_ERROR(resolve(reg, "math.sin", "float32", &a), CUPLUG_ERR_UNKNOWN_KEY,
                 "nothing is registered under the key 'math.sin'");
}
END_TEST

/* ---- constant arrays ---- */

START_TEST(const_array_rules) {
  float data[6] = {1, 2, 3, 4, 5, 6};
  int64_t shape[2] = {2, 3};
  cuplug_const_array_args c = {.struct_size = sizeof c, .registry = reg,
                               .dtype = t_type("float32"), .ndim = 2, .shape = shape,
                               .data = data, .size = sizeof data};
  T_ASSERT_OK(t_api()->const_array(&c));
  ck_assert_str_eq(t_type_name(c.signature), "float32[:, ::1]()");
  ck_assert_int_eq(c.abi, CUPLUG_ABI_C);
  cuplug_const_array_args d = c;
  T_ASSERT_OK(t_api()->const_array(&d));
  ck_assert_str_ne(c.symbol, d.symbol); /* each its own */
  c.size = 20;
  T_ASSERT_ERROR(t_api()->const_array(&c), CUPLUG_ERR_INVALID_ARGUMENT,
                 "const_array: the shape holds 24 bytes of float32, but 20 were given");
  c.dtype = t_type("float32[:]");
  T_ASSERT_ERROR(t_api()->const_array(&c), CUPLUG_ERR_INVALID_TYPE,
                 "const_array: the dtype must be bool, an integer, a float or a complex, not "
                 "float32[:]");
}
END_TEST

Suite *suite_registry(void) {
  Suite *s = suite_create("registry");
  TCase *tc = t_tcase(s, "signature_choice", 0, setup, teardown, 60);
  tcase_add_test(tc, exact_then_promotion_then_safe);
  tcase_add_test(tc, unsafe_as_the_last_resort);
  tcase_add_test(tc, no_match_names_the_candidates);
  tcase_add_test(tc, ambiguity_is_an_error);
  tcase_add_test(tc, arrays_and_layouts);
  tcase_add_test(tc, resolve_argument_checks);

  tc = t_tcase(s, "registration_errors", 0, setup, teardown, 60);
  tcase_add_test(tc, duplicates);
  tcase_add_test(tc, duplicate_of_a_builtin);
  tcase_add_test(tc, lowering_ir_must_parse_and_define_its_symbol);
  tcase_add_test(tc, registration_argument_errors);

  tc = t_tcase(s, "lowerings", T_NVVM, setup, teardown, 60);
  tcase_add_test(tc, ir_lowering_is_linked_and_inlined);
  tcase_add_test(tc, only_called_lowerings_join);
  tcase_add_test(tc, generic_typer_and_lowering_callbacks);

  tc = t_tcase(s, "lowering_failures", 0, setup, teardown, 60);
  tcase_add_test(tc, lowering_callback_failures);

  tc = t_tcase(s, "cuda_lowering", T_TOOLKIT, setup, teardown, 60);
  tcase_add_test(tc, cuda_lowering_links);

  tc = t_tcase(s, "registry_list", 0, setup, teardown, 60);
  tcase_add_test(tc, list_in_key_order);
  tcase_add_test(tc, empty_registry_has_no_builtins);

  tc = t_tcase(s, "const_arrays", 0, setup, teardown, 60);
  tcase_add_test(tc, const_array_rules);
  return s;
}
