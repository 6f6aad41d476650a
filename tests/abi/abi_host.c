/* abi_host.c - a host built against a frozen copy of a released header.
 *
 * This file compiles against tests/abi/frozen/<version>/cuplug/cuplug.h (the
 * include path picks the version) and loads the plugin with dlopen, as any
 * host does.  It checks the negotiation, that the plugin exports nothing
 * but its entry point, and that argument structs of other sizes work:
 * shorter (an older caller) read as defaults, longer (a newer caller) are
 * accepted when the unknown bytes are zero and refused otherwise.  Every
 * struct it passes is first filled with 0xAB, padding included, as a host's
 * stack may leave it: a plugin that read an older struct's padding as a
 * newer field would see 0xAB there.
 *
 *   cuplug_abi_1_0 path/to/libcuplug.so */
#include <check.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuplug/cuplug.h"
#include "fields.h" /* the frozen header's fields, struct by struct (tests/abi/layout.py) */

/* FILLED(T, x, .field = value, ...): x is 0xAB in every byte, then each
 * field the header knows is set from the initialiser (zero where it names
 * none): a caller's struct as its stack may hold it. */
#define COPY_FIELD(f) memcpy(&dst->f, &src->f, sizeof dst->f);
#define DEFINE_FILL(T)                                                         \
  static void fill_##T(T *dst, const T *src) {                                 \
    memset(dst, 0xAB, sizeof *dst);                                            \
    CUPLUG_FIELDS_##T(COPY_FIELD)                                              \
  }
#define FILLED(T, x, ...)                                                      \
  T x;                                                                         \
  fill_##T(&x, &(T){.struct_size = sizeof(T), __VA_ARGS__})
DEFINE_FILL(cuplug_compile_args)
DEFINE_FILL(cuplug_artifact_info)
DEFINE_FILL(cuplug_info)
#if CUPLUG_ABI_MINOR >= 2
DEFINE_FILL(cuplug_resolve_args)
DEFINE_FILL(cuplug_type_info)
#endif
#if CUPLUG_ABI_MINOR >= 3
DEFINE_FILL(cuplug_session_options)
DEFINE_FILL(cuplug_kernel_info)
DEFINE_FILL(cuplug_cache_info)
DEFINE_FILL(cuplug_cache_clear_args)
#endif

static const char *plugin_path;
static void *plugin;
static const cuplug_api *api;

static const char add_i32_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define i32 @add(i64* %ret, i32 %x, i32 %y) {\n"
    "  %a = sext i32 %x to i64\n"
    "  %b = sext i32 %y to i64\n"
    "  %s = add nsw i64 %a, %b\n"
    "  store i64 %s, i64* %ret\n"
    "  ret i32 0\n"
    "}\n";


static void setup(void) {
  plugin = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(plugin != NULL, "dlopen %s: %s", plugin_path, dlerror());
  cuplug_get_api_fn get = (cuplug_get_api_fn)dlsym(plugin, "cuplug_get_api");
  ck_assert_ptr_nonnull(get);
  api = get(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  ck_assert_ptr_nonnull(api);
}

static void teardown(void) { dlclose(plugin); }

START_TEST(negotiation) {
  cuplug_get_api_fn get = (cuplug_get_api_fn)dlsym(plugin, "cuplug_get_api");
  ck_assert_uint_eq(api->abi_major, 1);
  ck_assert_uint_ge(api->abi_minor, CUPLUG_ABI_MINOR);
  ck_assert_ptr_null(get(2, 0));
  ck_assert_ptr_null(get(0, 0));
  /* a newer minor than the plugin's still gets the table; it says which */
  ck_assert_ptr_eq(get(1, 999), api);
  ck_assert_uint_ge(api->struct_size, sizeof(cuplug_api));
  ck_assert(CUPLUG_API_HAS(api, artifact_destroy));
}
END_TEST

START_TEST(exports_only_the_entry_point) {
  static const char *const hidden[] = {"cuplug__compile", "cuplug__error", "cuplug__ir_module_parse",
                                       "cuplug__type_parse", "LLVMContextCreate",
                                       "LLVMParseIRInContext", "_ZN4llvm11LLVMContextC1Ev"};
  for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
    ck_assert_msg(dlsym(plugin, hidden[i]) == NULL, "%s is exported", hidden[i]);
}
END_TEST

static cuplug_error *compile_add(cuplug_session *s, cuplug_compile_args *a, size_t size) {
  static cuplug_module m = {sizeof m, "add.ll", add_i32_ir, sizeof add_i32_ir - 1};
  static const cuplug_module *mods[] = {&m};
  a->struct_size = size;
  a->session = s;
  a->modules = mods;
  a->num_modules = 1;
  a->entry = "add";
  a->signature = "int64(int32, int32)";
  return api->compile(a);
}

START_TEST(full_struct_compiles) {
  cuplug_session *s = NULL;
  ck_assert_ptr_null(api->session_create(NULL, &s));
  FILLED(cuplug_compile_args, a, .abi_name = "add_i32");
  cuplug_error *e = compile_add(s, &a, sizeof a);
  ck_assert_msg(e == NULL, "%s", api->error_message(e));
  FILLED(cuplug_artifact_info, info, .output = 0);
  ck_assert_ptr_null(api->artifact_info(a.artifact, &info));
  ck_assert_str_eq(info.symbol, "add_i32");
  ck_assert_ptr_nonnull(strstr(info.data, ".visible .func  (.param .b64 func_retval0) add_i32("));
  api->artifact_destroy(a.artifact);
  api->session_destroy(s);
}
END_TEST

/* A caller whose struct ends at the last required field: every option is
 * at its default (a device function, C ABI, named as the entry, PTX). */
START_TEST(shorter_struct_reads_defaults) {
  cuplug_session *s = NULL;
  ck_assert_ptr_null(api->session_create(NULL, &s));
  cuplug_compile_args a;
  size_t size = offsetof(cuplug_compile_args, entry_abi);
  memset(&a, 0xAB, sizeof a); /* what lies past struct_size must not matter */
  memset(&a, 0, size);
  cuplug_error *e = compile_add(s, &a, size);
  ck_assert_msg(e == NULL, "%s", api->error_message(e));
  FILLED(cuplug_artifact_info, info, .output = 0);
  ck_assert_ptr_null(api->artifact_info(a.artifact, &info));
  ck_assert_int_eq(info.output, CUPLUG_OUTPUT_PTX);
  ck_assert_int_eq(info.kind, CUPLUG_DEVICE_FUNCTION);
  ck_assert_str_eq(info.symbol, "add");
  ck_assert_ptr_nonnull(strstr(info.data, ".visible .func  (.param .b64 func_retval0) add("));
  api->artifact_destroy(a.artifact);
  api->session_destroy(s);
}
END_TEST

START_TEST(struct_below_first_version_refused) {
  cuplug_compile_args a;
  memset(&a, 0, sizeof a);
  cuplug_error *e = compile_add(NULL, &a, offsetof(cuplug_compile_args, signature));
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_INVALID_ARGUMENT);
  char want[256];
  snprintf(want, sizeof want,
           "cuplug_compile_args has struct_size %zu, less than the %zu bytes of its first version: set "
           "struct_size = sizeof(cuplug_compile_args)",
           offsetof(cuplug_compile_args, signature), offsetof(cuplug_compile_args, entry_abi));
  ck_assert_str_eq(api->error_message(e), want);
  api->error_destroy(e);
}
END_TEST

/* A newer caller's struct: known fields plus fields this plugin lacks.  The
 * plugin may itself be newer than this header, so "beyond the plugin's
 * struct" is made far beyond: a field at the end of 4 KiB. */
typedef struct newer_args {
  cuplug_compile_args known;
  unsigned char future[4096];
} newer_args;

START_TEST(longer_struct_with_zero_tail_accepted) {
  cuplug_session *s = NULL;
  ck_assert_ptr_null(api->session_create(NULL, &s));
  newer_args n;
  memset(&n, 0, sizeof n);
  cuplug_error *e = compile_add(s, &n.known, sizeof n);
  ck_assert_msg(e == NULL, "%s", api->error_message(e));
  ck_assert_ptr_nonnull(n.known.artifact);
  api->artifact_destroy(n.known.artifact);
  api->session_destroy(s);
}
END_TEST

START_TEST(longer_struct_with_unknown_field_refused) {
  newer_args n;
  memset(&n, 0, sizeof n);
  n.future[sizeof n.future - 1] = 1;
  cuplug_error *e = compile_add(NULL, &n.known, sizeof n);
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_ABI_FIELD);
  /* the plugin names the byte: its own struct may be longer than ours */
  ck_assert_ptr_nonnull(strstr(api->error_message(e), "cuplug_compile_args sets byte "));
  ck_assert_ptr_nonnull(strstr(api->error_message(e), "a field of a newer ABI"));
  ck_assert_ptr_null(n.known.artifact);
  api->error_destroy(e);
}
END_TEST

/* An output struct shorter than the plugin's: filled up to its end only. */
START_TEST(shorter_info_filled_to_its_size) {
  union {
    cuplug_info info;
    unsigned char bytes[sizeof(cuplug_info)];
  } u;
  memset(&u, 0x5A, sizeof u);
  size_t short_size = offsetof(cuplug_info, nvvm_major);
  u.info.struct_size = short_size;
  ck_assert_ptr_null(api->get_info(&u.info));
  ck_assert_uint_eq(u.info.struct_size, short_size);
  ck_assert_uint_eq(u.info.abi_major, 1);
  ck_assert_uint_ge(u.info.abi_minor, CUPLUG_ABI_MINOR);
  /* the plugin under test is this build's, whatever header the host saw */
  ck_assert_str_eq(u.info.cuplug_version, CUPLUG_TEST_PLUGIN_VERSION);
  for (size_t i = short_size; i < sizeof u; i++) ck_assert_uint_eq(u.bytes[i], 0x5A);
}
END_TEST

START_TEST(errors_are_objects) {
  const cuplug_type *t;
  cuplug_error *e = api->type_parse("int32(flaot32)", &t);
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_UNKNOWN_TYPE);
  ck_assert_str_eq(api->error_message(e), "unknown type 'flaot32' at position 6 of 'int32(flaot32)'");
  ck_assert_str_eq(api->error_log(e), "");
  ck_assert_str_eq(api->status_name(api->error_code(e)), "CUPLUG_ERR_UNKNOWN_TYPE");
  api->error_destroy(e);
  /* NULL is success, and destroying it is a no-op */
  ck_assert_int_eq(api->error_code(NULL), CUPLUG_OK);
  ck_assert_str_eq(api->error_message(NULL), "");
  api->error_destroy(NULL);
  api->session_destroy(NULL);
  api->artifact_destroy(NULL);
}
END_TEST


#if CUPLUG_ABI_MINOR >= 2
/* 1.2: the registry through the table, and a type_info of 1.1's size
 * (without literal_value) filled only that far. */
START_TEST(registry_through_the_table) {
  ck_assert(CUPLUG_API_HAS(api, const_array));
  cuplug_registry *r;
  ck_assert_ptr_null(api->registry_create(NULL, &r));
  const cuplug_type *f32 = api->type_scalar(CUPLUG_TYPE_FLOAT32);
  FILLED(cuplug_resolve_args, a, .registry = r, .key = "math.sqrt", .argtypes = &f32, .nargs = 1);
  ck_assert_ptr_null(api->resolve_call(&a));
  FILLED(cuplug_type_info, si, .type = a.signature);
  ck_assert_ptr_null(api->type_info(&si));
  ck_assert_str_eq(si.name, "float32(float32)");
  ck_assert_int_eq(strncmp(a.declaration, "declare float @__cuplug_math_sqrt_", 34), 0);
  ck_assert_int_eq(a.abi, CUPLUG_ABI_C);
  cuplug_error *e = api->resolve_call(&(cuplug_resolve_args){
      .struct_size = sizeof a, .registry = r, .key = "math.nothing", .argtypes = &f32, .nargs = 1});
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_UNKNOWN_KEY);
  ck_assert_str_eq(api->status_name(api->error_code(e)), "CUPLUG_ERR_UNKNOWN_KEY");
  api->error_destroy(e);
  api->registry_destroy(r);

  const cuplug_type *lit;
  ck_assert_ptr_null(api->type_parse("Literal[int](5)", &lit));
  union {
    cuplug_type_info info;
    unsigned char bytes[sizeof(cuplug_type_info)];
  } u;
  memset(&u, 0xAB, sizeof u);
  u.info.struct_size = offsetof(cuplug_type_info, literal_value); /* 1.1's size */
  u.info.type = lit;
  ck_assert_ptr_null(api->type_info(&u.info));
  ck_assert_int_eq(u.info.kind, CUPLUG_TYPE_INT_LITERAL);
  for (size_t i = offsetof(cuplug_type_info, literal_value); i < sizeof u; i++)
    ck_assert_uint_eq(u.bytes[i], 0xAB); /* untouched */
}
END_TEST
#endif

#if CUPLUG_ABI_MINOR >= 3
/* 1.3: session flags and time limits, the new codes, the limits; a
 * session made from a 1.2-sized options struct takes the safe path. */
START_TEST(safety_through_the_table) {
  static const cuplug_status codes[] = {CUPLUG_ERR_TOOLKIT_CRASH, CUPLUG_ERR_TIMEOUT,
                                        CUPLUG_ERR_HELPER, CUPLUG_ERR_LIMIT,
                                        CUPLUG_ERR_IR_INVALID};
  static const char *const names[] = {"CUPLUG_ERR_TOOLKIT_CRASH", "CUPLUG_ERR_TIMEOUT",
                                      "CUPLUG_ERR_HELPER", "CUPLUG_ERR_LIMIT",
                                      "CUPLUG_ERR_IR_INVALID"};
  for (size_t i = 0; i < 5; i++) ck_assert_str_eq(api->status_name(codes[i]), names[i]);
  FILLED(cuplug_session_options, o, .flags = CUPLUG_SESSION_TRUSTED, .time_limit_ms = 1000);
  cuplug_session *s = NULL;
  ck_assert_ptr_null(api->session_create(&o, &s));
  api->session_destroy(s);
  o.struct_size = offsetof(cuplug_session_options, flags);
  ck_assert_ptr_null(api->session_create(&o, &s));
  api->session_destroy(s);
  const cuplug_type *t = api->type_scalar(CUPLUG_TYPE_INT8);
  cuplug_error *e = NULL;
  for (int i = 0; i <= CUPLUG_MAX_TYPE_DEPTH && !e; i++) e = api->type_pointer(t, &t);
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_LIMIT);
  api->error_destroy(e);
}
END_TEST

/* 1.3: kernel_info refuses a NULL kernel and a struct older than itself. */
START_TEST(kernel_info_refusals) {
  FILLED(cuplug_kernel_info, info, .kernel = NULL);
  cuplug_error *e = api->kernel_info(&info);
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(api->error_message(e), "kernel_info: kernel is NULL");
  api->error_destroy(e);
  info.struct_size = offsetof(cuplug_kernel_info, cooperative);
  e = api->kernel_info(&info);
  ck_assert_int_eq(api->error_code(e), CUPLUG_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(api->error_message(e),
                   "cuplug_kernel_info has struct_size 36, less than the 40 bytes of its first "
                   "version: set struct_size = sizeof(cuplug_kernel_info)");
  api->error_destroy(e);
}
END_TEST
#endif

#if CUPLUG_ABI_MINOR >= 3
/* 1.3: the result cache through the table: a second compile is found in
 * memory, the same bytes; a session's cache_info says so, cache_clear
 * empties it; a compile can ask for no cache. */
START_TEST(cache_through_the_table) {
  FILLED(cuplug_session_options, o, .cache_dir = "");
  cuplug_session *s = NULL;
  ck_assert_ptr_null(api->session_create(&o, &s));
  cuplug_artifact_info info[3];
  cuplug_artifact *arts[3];
  for (int i = 0; i < 3; i++) {
    FILLED(cuplug_compile_args, a, .abi_name = "add_i32",
           .flags = i == 2 ? CUPLUG_COMPILE_NO_CACHE : 0);
    cuplug_error *e = compile_add(s, &a, sizeof a);
    ck_assert_msg(e == NULL, "%s", api->error_message(e));
    arts[i] = a.artifact;
    fill_cuplug_artifact_info(&info[i], &(cuplug_artifact_info){.struct_size = sizeof info[i]});
    ck_assert_ptr_null(api->artifact_info(a.artifact, &info[i]));
  }
  ck_assert_int_eq(info[0].cache, CUPLUG_CACHE_MISS);
  ck_assert_int_eq(info[1].cache, CUPLUG_CACHE_MEMORY);
  ck_assert_int_eq(info[2].cache, CUPLUG_CACHE_NONE);
  ck_assert_str_eq(info[1].data, info[0].data);
  for (int i = 0; i < 3; i++) api->artifact_destroy(arts[i]);
  FILLED(cuplug_cache_info, c, .session = s);
  ck_assert_ptr_null(api->cache_info(&c));
  ck_assert_str_eq(c.status, "memory only: the session's cache_dir is \"\"");
  ck_assert_uint_eq(c.misses, 1);
  ck_assert_uint_eq(c.memory_hits, 1);
  ck_assert_uint_eq(c.memory_entries, 1);
  FILLED(cuplug_cache_clear_args, clear, .session = s);
  ck_assert_ptr_null(api->cache_clear(&clear));
  ck_assert_ptr_null(api->cache_info(&c));
  ck_assert_uint_eq(c.memory_entries, 0);
  api->session_destroy(s);
}
END_TEST
#endif

/* Is libNVVM there?  Asked of the plugin itself, outside any test. */
static bool have_nvvm(void) {
  void *h = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return false;
  const cuplug_api *a = ((cuplug_get_api_fn)dlsym(h, "cuplug_get_api"))(1, 0);
  FILLED(cuplug_info, info, .cuplug_version = NULL);
  a->error_destroy(a->get_info(&info));
  bool found = info.nvvm_major >= 0;
  dlclose(h);
  return found;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s path/to/libcuplug.so\n", argv[0]);
    return 2;
  }
  plugin_path = argv[1];
  bool nvvm = have_nvvm();
  Suite *s = suite_create("abi");
  TCase *tc = tcase_create("abi");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, negotiation);
  tcase_add_test(tc, exports_only_the_entry_point);
  tcase_add_test(tc, struct_below_first_version_refused);
  tcase_add_test(tc, longer_struct_with_unknown_field_refused);
  tcase_add_test(tc, shorter_info_filled_to_its_size);
  tcase_add_test(tc, errors_are_objects);
#if CUPLUG_ABI_MINOR >= 2
  tcase_add_test(tc, registry_through_the_table);
#endif
#if CUPLUG_ABI_MINOR >= 3
  tcase_add_test(tc, safety_through_the_table);
  tcase_add_test(tc, kernel_info_refusals);
#endif
  suite_add_tcase(s, tc);
  TCase *compiles = tcase_create("compiles");
  tcase_add_checked_fixture(compiles, setup, teardown);
  tcase_add_test(compiles, full_struct_compiles);
  tcase_add_test(compiles, shorter_struct_reads_defaults);
  tcase_add_test(compiles, longer_struct_with_zero_tail_accepted);
#if CUPLUG_ABI_MINOR >= 3
  tcase_add_test(compiles, cache_through_the_table);
#endif
  if (nvvm) suite_add_tcase(s, compiles);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (!failed && !nvvm) {
    printf("skipped: libNVVM not found, so the compiling tests did not run\n");
    return 77;
  }
  return failed ? 1 : 0;
}
