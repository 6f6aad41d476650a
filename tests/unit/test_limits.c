/* test_limits.c - inputs far beyond what a front end writes get a clear
 * error or succeed, in bounded memory and without overflowing the stack:
 * a 100 MB module, 100,000 functions, types nested 100,000 deep, a
 * signature of 10,000 parameters, a registry of 1,000,000 keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "support.h"

static cuplug_session *session;

static void setup(void) { session = t_session(); }
static void teardown(void) { t_api()->session_destroy(session); }

static cuplug_error *compile_ir(const char *ir, size_t n, const char *entry, const char *sig) {
  cuplug_module m = {sizeof m, "big.ll", ir, n};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = session, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = sig,
                           .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_LTOIR,
                           .cc_major = 9};
  cuplug_error *e = t_api()->compile(&a);
  if (!e) t_api()->artifact_destroy(a.artifact);
  return e;
}

static long peak_rss_mb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

START_TEST(module_of_100_mb) {
  size_t n = 100u << 20;
  char *ir = malloc(n + 1);
  static const char line[] = "; a comment line of sixty-four bytes that pads this module out\n";
  for (size_t i = 0; i < n; i += 64) memcpy(ir + i, line, 64);
  ir[n] = '\0';
  T_ASSERT_ERROR(compile_ir(ir, n, "f", "int32()"), CUPLUG_ERR_LIMIT,
                 "IR module big.ll is 104857600 bytes: modules hold at most 67108864");
  free(ir);
}
END_TEST

START_TEST(functions_100000) {
  /* 100,000 functions (5.5 MB): each is checked, rewritten and compiled,
   * none is lost */
  size_t cap = 100000 * 64 + 256, n = 0;
  char *ir = malloc(cap);
  for (int i = 0; i < 100000; i++)
    n += (size_t)snprintf(ir + n, cap - n, "define internal i32 @g%d(i32 %%x) {\n  ret i32 %%x\n}\n",
                          i);
  n += (size_t)snprintf(ir + n, cap - n,
                        "define i32 @f(i32 %%x) {\n  %%y = call i32 @g99999(i32 %%x)\n"
                        "  ret i32 %%y\n}\n");
  T_ASSERT_OK(compile_ir(ir, n, "f", "int32(int32)"));
  free(ir);
}
END_TEST

/* A module whose global's type nests arrays `depth` deep: [1 x [1 x ...]]. */
static char *nested_ir(size_t depth, size_t *size) {
  size_t cap = depth * 8 + 256, n = 0;
  char *ir = malloc(cap);
  n += (size_t)snprintf(ir, cap, "@g = global ");
  for (size_t i = 0; i < depth; i++) n += (size_t)snprintf(ir + n, cap - n, "[1 x ");
  n += (size_t)snprintf(ir + n, cap - n, "i32");
  for (size_t i = 0; i < depth; i++) ir[n++] = ']';
  n += (size_t)snprintf(ir + n, cap - n, " zeroinitializer\ndefine i32 @f() {\n  ret i32 0\n}\n");
  *size = n;
  return ir;
}

START_TEST(ir_nested_100000_deep) {
  /* LLVM's parser recurses on nesting: 100,000 levels would overflow its
   * stack; cuplug refuses before LLVM reads it */
  size_t n;
  char *ir = nested_ir(100000, &n);
  T_ASSERT_ERROR(compile_ir(ir, n, "f", "int32()"), CUPLUG_ERR_LIMIT,
                 "IR module big.ll nests brackets more than 256 deep on line 1");
  free(ir);
}
END_TEST

START_TEST(ir_nested_to_the_limit) {
  size_t n;
  char *ir = nested_ir(200, &n); /* 200 levels are fine */
  T_ASSERT_OK(compile_ir(ir, n, "f", "int32()"));
  free(ir);
}
END_TEST

/* Nesting counts as LLVM's parser recurses: every kind of bracket, < >
 * too, in every module; brackets in strings and comments are text.  The
 * lexer counts it, before the validator starts, in a trusted session too. */
START_TEST(ir_nesting_counts_brackets_outside_strings) {
  char deep[301], ir[2048];
  memset(deep, '(', 300);
  deep[300] = '\0';
  snprintf(ir, sizeof ir,
           "@s = constant [300 x i8] c\"%s\"\n; %s\ndefine i32 @f() {\n  ret i32 0\n}\n", deep,
           deep);
  T_ASSERT_OK(compile_ir(ir, strlen(ir), "f", "int32()"));
  size_t n = (size_t)snprintf(ir, sizeof ir, "define i32 @f() {\n  ret i32 0\n}\n@v = global ");
  for (int i = 0; i < 300; i++) n += (size_t)snprintf(ir + n, sizeof ir - n, "<1 x ");
  memset(deep, '>', 300);
  n += (size_t)snprintf(ir + n, sizeof ir - n, "i32%s zeroinitializer\n", deep);
  T_ASSERT_ERROR(compile_ir(ir, n, "f", "int32()"), CUPLUG_ERR_LIMIT,
                 "IR module big.ll nests brackets more than 256 deep on line 4");
  cuplug_session_options o = {.struct_size = sizeof o,
                              .flags = CUPLUG_SESSION_TRUSTED | CUPLUG_SESSION_NO_CACHE};
  cuplug_session *plain = session;
  T_ASSERT_OK(t_api()->session_create(&o, &session));
  T_ASSERT_ERROR(compile_ir(ir, n, "f", "int32()"), CUPLUG_ERR_LIMIT,
                 "IR module big.ll nests brackets more than 256 deep on line 4");
  t_api()->session_destroy(session);
  session = plain;
}
END_TEST

/* Metadata numbers beyond LLVM's 32 bits (fuzzing found one that
 * overflowed the numbers a rewrite hands out after it): LLVM's error names
 * the place (cuplug's lexer refuses it too: test_irtext); a large number
 * within them is fine. */
START_TEST(metadata_number_beyond_32_bits) {
  static const char head[] = "define i32 @f() {\n  ret i32 7\n}\n!named = !{!%s}\n!%s = !{}\n";
  char ir[256];
  snprintf(ir, sizeof ir, head, "4294967296", "4294967296");
  T_ASSERT_ERROR(compile_ir(ir, strlen(ir), "f", "int32()"), CUPLUG_ERR_IR_PARSE,
                 "IR does not parse: big.ll:4:13: error: expected 32-bit integer (too large)");
  snprintf(ir, sizeof ir, head, "08888888888888888888888888888", "08888888888888888888888888888");
  T_ASSERT_ERROR_PREFIX(compile_ir(ir, strlen(ir), "f", "int32()"), CUPLUG_ERR_IR_PARSE,
                        "IR does not parse: big.ll:4:");
  snprintf(ir, sizeof ir, head, "1000000", "1000000");
  T_ASSERT_OK(compile_ir(ir, strlen(ir), "f", "int32()"));
}
END_TEST

START_TEST(types_nested_100000_deep) {
  size_t depth = 100000, cap = depth * 10 + 16, n = 0;
  char *text = malloc(cap);
  for (size_t i = 0; i < depth; i++) n += (size_t)snprintf(text + n, cap - n, "CPointer(");
  n += (size_t)snprintf(text + n, cap - n, "int32");
  for (size_t i = 0; i < depth; i++) text[n++] = ')';
  text[n] = '\0';
  const cuplug_type *t = NULL;
  T_ASSERT_ERROR(t_api()->type_parse(text, &t), CUPLUG_ERR_LIMIT,
                 "the type at position 585 of 'CPointer(CPointer(CPointer(CPointer(CPointer(CPointer"
                 "(CPointer(C...' nests more than 64 deep");
  free(text);
  /* built a call at a time, the same */
  t = t_api()->type_scalar(CUPLUG_TYPE_INT32);
  cuplug_error *e = NULL;
  int built = 0;
  while (!e && built < 100000) {
    e = t_api()->type_pointer(t, &t);
    built += !e;
  }
  ck_assert_int_eq(built, 64);
  T_ASSERT_ERROR(e, CUPLUG_ERR_LIMIT, "a type nested 65 deep: types nest at most 64 deep");
  /* the deepest type's name parses back to it (fuzz_signature found that
   * it did not: tests/fuzz/regressions/signature/pointer-64-deep-name) */
  const cuplug_type *again = NULL;
  T_ASSERT_OK(t_api()->type_parse(t_type_name(t), &again));
  ck_assert_ptr_eq(again, t);
}
END_TEST

START_TEST(signature_of_10000_parameters) {
  size_t cap = 10000 * 8 + 16, n = 0;
  char *text = malloc(cap);
  n += (size_t)snprintf(text, cap, "int32(");
  for (int i = 0; i < 10000; i++) n += (size_t)snprintf(text + n, cap - n, "%sint32", i ? ", " : "");
  snprintf(text + n, cap - n, ")");
  const cuplug_type *t = NULL;
  char want[256];
  snprintf(want, sizeof want, "signature '%.64s...' has more than 256 arguments", text);
  T_ASSERT_ERROR(t_api()->type_parse(text, &t), CUPLUG_ERR_LIMIT, want);
  free(text);
  const cuplug_type **args = malloc(10000 * sizeof *args);
  for (int i = 0; i < 10000; i++) args[i] = t_api()->type_scalar(CUPLUG_TYPE_INT32);
  T_ASSERT_ERROR(t_api()->type_signature(args[0], args, 10000, &t), CUPLUG_ERR_LIMIT,
                 "a signature of 10000 arguments: at most 256");
  /* 256 is fine */
  T_ASSERT_OK(t_api()->type_signature(args[0], args, 256, &t));
  free(args);
}
END_TEST

START_TEST(registry_of_a_million_keys) {
  cuplug_registry *r;
  T_ASSERT_OK(t_api()->registry_create(NULL, &r));
  long before = peak_rss_mb();
  char key[32];
  for (int i = 0; i < 1000000; i++) {
    snprintf(key, sizeof key, "k.%d", i);
    cuplug_template_args t = {.struct_size = sizeof t, .registry = r, .key = key,
                              .signature = "float32(float32)"};
    T_ASSERT_OK(t_api()->register_template(&t));
  }
  /* about 200 bytes a key */
  ck_assert_int_lt(peak_rss_mb() - before, 600);
  const cuplug_type *f32 = t_api()->type_scalar(CUPLUG_TYPE_FLOAT32);
  cuplug_resolve_args q = {.struct_size = sizeof q, .registry = r, .key = "k.999999",
                           .argtypes = &f32, .nargs = 1};
  T_ASSERT_ERROR(t_api()->resolve_call(&q), CUPLUG_ERR_NO_LOWERING,
                 "k.999999 types as float32(float32), but has no lowering for it");
  t_api()->registry_destroy(r);
}
END_TEST

Suite *suite_limits(void) {
  Suite *s = suite_create("limits");
  TCase *tc = t_tcase(s, "ir_refused", 0, setup, teardown, 300);
  tcase_add_test(tc, module_of_100_mb);
  tcase_add_test(tc, ir_nested_100000_deep);

  tc = t_tcase(s, "ir_compiled", T_NVVM, setup, teardown, 300);
  tcase_add_test(tc, functions_100000);
  tcase_add_test(tc, ir_nested_to_the_limit);
  tcase_add_test(tc, ir_nesting_counts_brackets_outside_strings);
  tcase_add_test(tc, metadata_number_beyond_32_bits);

  tc = t_tcase(s, "types", 0, setup, teardown, 300);
  tcase_add_test(tc, types_nested_100000_deep);
  tcase_add_test(tc, signature_of_10000_parameters);

  tc = t_tcase(s, "registry", 0, setup, teardown, 300);
  tcase_add_test(tc, registry_of_a_million_keys);
  return s;
}
