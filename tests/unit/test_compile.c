/* test_compile.c - successful compiles, checked exactly: every corpus case
 * to PTX with numba-cuda's signature lines, the artifact's fields, the cc
 * rules, LTO-IR, fastmath, debug kernels and launch bounds, forceinline and
 * kept IR, the C-ABI and Numba-ABI exports, libdevice and numba's atomic
 * helpers, libNVVM's own rejections, the current device, get_info, many
 * threads on one session, and the calls that take NULL. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"


#define ADD_I32                                                                \
  "_ZN8__main__7add_i32B2v1B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOI" \
  "gxJU0gCqOkEJoHkbttqdSBL3UrBuFYTAA_3d_3dEii"

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

static const t_case *find_case(const char *name) {
  return t_case_named(cases, num_cases, name);
}

/* One module and the compile args that point at it. */
typedef struct job {
  cuplug_module mod;
  const cuplug_module *mods[1];
  cuplug_compile_args args;
} job;

/* A corpus case as numba-cuda compiles it, its module named after it. */
static void case_job_init(job *j, const char *name) {
  const t_case *c = find_case(name);
  j->mod = (cuplug_module){sizeof j->mod, c->name, c->ir, c->ir_size};
  j->mods[0] = &j->mod;
  t_case_args(c, session, j->mods, &j->args);
}

/* A module of IR text, compiled as a C-ABI device function by default. */
static void text_job_init(job *j, const char *name, const char *text, const char *entry,
                          const char *signature) {
  j->mod = (cuplug_module){sizeof j->mod, name, text, strlen(text)};
  j->mods[0] = &j->mod;
  memset(&j->args, 0, sizeof j->args);
  j->args.struct_size = sizeof j->args;
  j->args.session = session;
  j->args.modules = j->mods;
  j->args.num_modules = 1;
  j->args.entry = entry;
  j->args.signature = signature;
}

/* Compiles and returns the artifact's info; the caller destroys the artifact. */
static cuplug_artifact_info compile_ok(cuplug_compile_args *a) {
  T_ASSERT_OK(t_api()->compile(a));
  ck_assert_ptr_nonnull(a->artifact);
  cuplug_artifact_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  T_ASSERT_OK(t_api()->artifact_info(a->artifact, &info));
  return info;
}

/* The first line of `text` that starts with `prefix`, in `out`. */
static void line_starting(const char *text, const char *prefix, char *out, size_t cap) {
  for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    if (strncmp(p, prefix, strlen(prefix)) == 0) {
      snprintf(out, cap, "%.*s", (int)strcspn(p, "\n"), p);
      return;
    }
  }
  ck_abort_msg("no line starting '%s'", prefix);
}

/* ---- the corpus ---- */

START_TEST(corpus_compiles_to_ptx) {
  ck_assert_int_gt(num_cases, 0);
  for (int i = 0; i < num_cases; i++) {
    const t_case *c = &cases[i];
    job j;
    case_job_init(&j, c->name);
    cuplug_artifact_info info = compile_ok(&j.args);
    const char *ptx = info.data;
    ck_assert_int_eq(info.output, CUPLUG_OUTPUT_PTX);
    ck_assert_uint_eq(info.size, strlen(ptx));
    ck_assert_uint_eq(info.cc_major, 7);
    ck_assert_uint_eq(info.cc_minor, 5);
    T_ASSERT_CONTAINS(ptx, "\n.target sm_75\n");
    char want[8192];
    if (c->kernel) {
      ck_assert_int_eq(info.kind, CUPLUG_KERNEL);
      ck_assert_str_eq(info.symbol, j.args.entry);
      snprintf(want, sizeof want, "\n.visible .entry %s(\n", j.args.entry);
      T_ASSERT_CONTAINS(ptx, want);
      ck_assert_ptr_null(strstr(ptx, ".visible .func"));
    } else {
      ck_assert_int_eq(info.kind, CUPLUG_DEVICE_FUNCTION);
      ck_assert_str_eq(info.symbol, j.args.abi_name);
      /* numba-cuda's own signature line, from its PTX */
      snprintf(want, sizeof want, "%.8000s/expected.ptx", c->dir);
      char *expected = t_read(want, NULL);
      char line[1024];
      line_starting(expected, ".visible .func", line, sizeof line);
      free(expected);
      T_ASSERT_CONTAINS(line, j.args.abi_name);
      T_ASSERT_CONTAINS(ptx, line);
    }
    t_api()->artifact_destroy(j.args.artifact);
  }
}
END_TEST

START_TEST(artifact_info_fields) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.lineinfo = 1;
  j.args.max_registers = 40;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_uint_eq(info.struct_size, sizeof info);
  ck_assert_int_eq(info.output, CUPLUG_OUTPUT_PTX);
  ck_assert_uint_eq(info.size, strlen((const char *)info.data));
  ck_assert_str_eq(info.symbol, "add_i32");
  ck_assert_str_eq(info.log, "");
  ck_assert_uint_eq(info.cc_major, 7);
  ck_assert_uint_eq(info.cc_minor, 5);
  ck_assert_int_eq(info.kind, CUPLUG_DEVICE_FUNCTION);
  ck_assert_uint_eq(info.debug, 0);
  ck_assert_uint_eq(info.lineinfo, 1);
  ck_assert_uint_eq(info.max_registers, 40);
  ck_assert_uint_eq(info.num_warnings, 0);
  ck_assert_uint_eq(info.num_ir_modules, 0);
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* ---- compute capability ---- */

START_TEST(cc_explicit) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.cc_major = 9;
  j.args.output = CUPLUG_OUTPUT_PTX;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_int_eq(info.output, CUPLUG_OUTPUT_PTX);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.target sm_90\n");
  ck_assert_uint_eq(info.cc_major, 9);
  ck_assert_uint_eq(info.cc_minor, 0);
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(cc_closest_below) {
  /* as numba-cuda's find_closest_arch: 9.1 is no arch, 9.0 is */
  job j;
  case_job_init(&j, "add_i32");
  j.args.cc_major = 9;
  j.args.cc_minor = 1;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.target sm_90\n");
  ck_assert_uint_eq(info.cc_major, 9);
  ck_assert_uint_eq(info.cc_minor, 0);
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* numba-cuda compiles for an H200 as (9, 0, "a"): compute_90a */
START_TEST(cc_arch_specific) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.cc_major = 9;
  j.args.cc_suffix = 'a';
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.target sm_90a\n");
  ck_assert_uint_eq(info.cc_major, 9);
  ck_assert_uint_eq(info.cc_suffix, 'a');
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(cc_session_default) {
  cuplug_session_options o = {.struct_size = sizeof o, .default_cc_major = 8, .default_cc_minor = 6};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  job j;
  case_job_init(&j, "add_i32");
  j.args.session = s;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.target sm_86\n");
  ck_assert_uint_eq(info.cc_major, 8);
  ck_assert_uint_eq(info.cc_minor, 6);
  t_api()->artifact_destroy(j.args.artifact);
  t_api()->session_destroy(s);
}
END_TEST

/* On a GPU host run this with CK_FORK=no: the runner's parent has called
 * cuInit (t_have_gpu), and CUDA refuses a forked child (cuInit gives
 * CUDA_ERROR_NOT_INITIALIZED). */
START_TEST(current_device) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.flags = CUPLUG_COMPILE_CURRENT_DEVICE;
  cuplug_info gi = {.struct_size = sizeof gi};
  T_ASSERT_OK(t_api()->get_info(&gi));
  if (!t_have_gpu()) {
    /* the compile fails with the driver's own words, as get_info reports
     * them: "no CUDA device: " and why (which depends on the machine) */
    cuplug_error *e = t_api()->compile(&j.args);
    ck_assert_ptr_null(j.args.artifact);
    T_ASSERT_STARTS(gi.driver_status, "no CUDA device: ");
    T_ASSERT_ERROR(e, CUPLUG_ERR_NO_DEVICE, gi.driver_status);
    return;
  }
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_uint_eq(info.cc_major, (uint32_t)gi.device_cc_major);
  ck_assert_uint_eq(info.cc_minor, (uint32_t)gi.device_cc_minor);
  char want[64];
  snprintf(want, sizeof want, "\n.target sm_%d%d\n", gi.device_cc_major, gi.device_cc_minor);
  T_ASSERT_CONTAINS((const char *)info.data, want);
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* ---- outputs and code generation options ---- */

START_TEST(ltoir_magic) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.output = CUPLUG_OUTPUT_LTOIR;
  cuplug_artifact_info info = compile_ok(&j.args);
  static const unsigned char magic[] = {0xed, 0x43, 0x4e, 0x7f};
  ck_assert_int_eq(info.output, CUPLUG_OUTPUT_LTOIR);
  ck_assert_uint_gt(info.size, sizeof magic);
  ck_assert_mem_eq(info.data, magic, sizeof magic);
  ck_assert_str_eq(info.symbol, "add_i32");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(fastmath_flushes_denormals) {
  job j;
  case_job_init(&j, "add_f32");
  j.args.fastmath = 1;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\tadd.ftz.f32 \t");
  t_api()->artifact_destroy(j.args.artifact);

  case_job_init(&j, "add_f32");
  info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\tadd.f32 \t");
  ck_assert_ptr_null(strstr((const char *)info.data, ".ftz"));
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(debug_kernel_exception_store) {
  job j;
  case_job_init(&j, "saxpy_kernel");
  j.args.debug = 1;
  j.args.opt = CUPLUG_OPT_NONE;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_uint_eq(info.debug, 1);
  ck_assert_uint_eq(info.num_warnings, 0);
  static const char *const globals[] = {"__errcode__", "__tidx__",   "__tidy__",  "__tidz__",
                                        "__ctaidx__",  "__ctaidy__", "__ctaidz__"};
  char want[8192];
  for (size_t i = 0; i < sizeof globals / sizeof globals[0]; i++) {
    snprintf(want, sizeof want, "\n.visible .global .align 4 .u32 %s%s", j.args.entry,
             globals[i]);
    T_ASSERT_CONTAINS((const char *)info.data, want);
  }
  snprintf(want, sizeof want, "\n.visible .func %s__exc_helper__(\n", j.args.entry);
  T_ASSERT_CONTAINS((const char *)info.data, want);
  snprintf(want, sizeof want, "\n.visible .entry %s(\n", j.args.entry);
  T_ASSERT_CONTAINS((const char *)info.data, want);
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(launch_bounds_directives) {
  static const uint32_t two[] = {128, 2}, three[] = {256, 1, 4};
  job j;
  case_job_init(&j, "saxpy_kernel");
  j.args.launch_bounds = two;
  j.args.num_launch_bounds = 2;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.maxntid 128, 1, 1\n.minnctapersm 2\n");
  ck_assert_ptr_null(strstr((const char *)info.data, ".maxclusterrank"));
  t_api()->artifact_destroy(j.args.artifact);

  /* clusters need sm_90 */
  case_job_init(&j, "saxpy_kernel");
  j.args.launch_bounds = three;
  j.args.num_launch_bounds = 3;
  j.args.cc_major = 9;
  info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.maxntid 256, 1, 1\n.minnctapersm 1\n.maxclusterrank 4\n");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* ---- forceinline and kept IR ---- */

START_TEST(forceinline_ltoir_keeps_ir) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.output = CUPLUG_OUTPUT_LTOIR;
  j.args.forceinline = 1;
  j.args.flags = CUPLUG_COMPILE_KEEP_IR;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_uint_eq(info.num_ir_modules, 1);
  cuplug_ir_view v = {.struct_size = sizeof v};
  T_ASSERT_OK(t_api()->artifact_ir(j.args.artifact, 0, &v));
  ck_assert_str_eq(v.name, "add_i32");
  ck_assert_uint_eq(v.size, strlen(v.text));
  /* the entry, made the C-ABI function in place */
  T_ASSERT_CONTAINS(v.text, "define i64 @\"add_i32\"(i32 %\"x\", i32 %\"y\") alwaysinline\n");
  ck_assert_ptr_null(strstr(v.text, ADD_I32));
  T_ASSERT_ERROR(t_api()->artifact_ir(j.args.artifact, 1, &v), CUPLUG_ERR_INVALID_ARGUMENT,
                 "artifact_ir: index 1, but the artifact keeps 1 IR modules");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(no_ir_kept_by_default) {
  job j;
  case_job_init(&j, "add_i32");
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_uint_eq(info.num_ir_modules, 0);
  cuplug_ir_view v = {.struct_size = sizeof v};
  T_ASSERT_ERROR(t_api()->artifact_ir(j.args.artifact, 0, &v), CUPLUG_ERR_INVALID_ARGUMENT,
                 "artifact_ir: index 0, but the artifact keeps 0 IR modules "
                 "(compile with CUPLUG_COMPILE_KEEP_IR)");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* A Numba-ABI function named as a C function would be. */
static const char add_ir[] =
    "define i32 @add(i64* %ret, i32 %x, i32 %y) {\n"
    "entry:\n"
    "  %a = sext i32 %x to i64\n"
    "  %b = sext i32 %y to i64\n"
    "  %c = add nsw i64 %a, %b\n"
    "  store i64 %c, i64* %ret\n"
    "  ret i32 0\n"
    "}\n";

/* ---- how the input arrives ---- */

START_TEST(signature_as_handle) {
  const cuplug_type *sig;
  T_ASSERT_OK(t_api()->type_parse("int64(int32, int32)", &sig));
  job j;
  case_job_init(&j, "add_i32");
  j.args.signature = NULL;
  j.args.signature_type = sig;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data,
                    "\n.visible .func  (.param .b64 func_retval0) add_i32(\n");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(module_text_is_sized) {
  /* the text need not be NUL-terminated: what follows `size` is not read */
  size_t n = strlen(add_ir);
  char *text = malloc(n + 8);
  memcpy(text, add_ir, n);
  memcpy(text + n, "garbage", 8);
  job j;
  text_job_init(&j, NULL, text, "add", "int64(int32, int32)");
  j.mod.size = n;
  j.args.flags = CUPLUG_COMPILE_KEEP_IR;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .func  (.param .b64 func_retval0) add(\n");
  cuplug_ir_view v = {.struct_size = sizeof v};
  T_ASSERT_OK(t_api()->artifact_ir(j.args.artifact, 0, &v));
  ck_assert_str_eq(v.name, "module0");
  ck_assert_ptr_null(strstr(v.text, "garbage"));
  t_api()->artifact_destroy(j.args.artifact);
  free(text);
}
END_TEST

START_TEST(entry_in_second_module) {
  /* the C-ABI wrapper hides every other definition (linkonce_odr) */
  static const char helper[] =
      "define i32 @helper(i64* %ret, i32 %x) {\n"
      "entry:\n"
      "  %a = sext i32 %x to i64\n"
      "  %b = mul i64 %a, 3\n"
      "  store i64 %b, i64* %ret\n"
      "  ret i32 0\n"
      "}\n";
  static const char caller[] =
      "declare i32 @helper(i64*, i32)\n"
      "define i32 @triple(i64* %ret, i32 %x) {\n"
      "entry:\n"
      "  %s = call i32 @helper(i64* %ret, i32 %x)\n"
      "  ret i32 0\n"
      "}\n";
  cuplug_module m0 = {sizeof m0, "helper.ll", helper, strlen(helper)};
  cuplug_module m1 = {sizeof m1, "caller.ll", caller, strlen(caller)};
  const cuplug_module *ms[2] = {&m0, &m1};
  job j;
  text_job_init(&j, "unused", caller, "triple", "int64(int32)");
  j.args.modules = ms;
  j.args.num_modules = 2;
  j.args.abi_name = "tri";
  j.args.flags = CUPLUG_COMPILE_KEEP_IR;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_str_eq(info.symbol, "tri");
  ck_assert_uint_eq(info.num_ir_modules, 2);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .func  (.param .b64 func_retval0) tri(\n");
  ck_assert_ptr_null(strstr((const char *)info.data, ".visible .func  (.param .b32"));
  cuplug_ir_view v = {.struct_size = sizeof v};
  T_ASSERT_OK(t_api()->artifact_ir(j.args.artifact, 0, &v));
  ck_assert_str_eq(v.name, "helper.ll");
  T_ASSERT_CONTAINS(v.text, "define linkonce_odr i32 @helper(");
  T_ASSERT_OK(t_api()->artifact_ir(j.args.artifact, 1, &v));
  ck_assert_str_eq(v.name, "caller.ll");
  /* nothing else calls @triple: it becomes @tri itself */
  T_ASSERT_CONTAINS(v.text, "define i64 @\"tri\"(i32 %x) {\nentry:\n  %ret = alloca i64\n");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* ---- exports ---- */

START_TEST(c_abi_export_takes_entry_name) {
  job j;
  text_job_init(&j, "add.ll", add_ir, "add", "int64(int32, int32)");
  j.args.flags = CUPLUG_COMPILE_KEEP_IR;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_str_eq(info.symbol, "add");
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .func  (.param .b64 func_retval0) add(\n"
                               "\t.param .b32 add_param_0,\n"
                               "\t.param .b32 add_param_1\n)\n");
  ck_assert_ptr_null(strstr((const char *)info.data, "add.numba")); /* inlined, not visible */
  cuplug_ir_view v = {.struct_size = sizeof v};
  T_ASSERT_OK(t_api()->artifact_ir(j.args.artifact, 0, &v));
  /* made the C-ABI function in place, under its own name, returning its
   * value where the Numba-ABI function stored it */
  T_ASSERT_CONTAINS(v.text, "define i64 @add(i32 %x, i32 %y) {\nentry:\n"
                            "  %a = sext i32 %x to i64\n  %b = sext i32 %y to i64\n"
                            "  %c = add nsw i64 %a, %b\n  ret i64 %c\n}\n");
  t_api()->artifact_destroy(j.args.artifact);

  /* with a caller, the Numba-ABI function moves aside and is wrapped */
  static const char called[] =
      "define i32 @add(i64* %ret, i32 %x, i32 %y) {\n"
      "entry:\n"
      "  %a = sext i32 %x to i64\n"
      "  store i64 %a, i64* %ret\n"
      "  ret i32 0\n"
      "}\n"
      "define i32 @twice(i64* %ret, i32 %x) {\n"
      "entry:\n"
      "  %s = call i32 @add(i64* %ret, i32 %x, i32 %x)\n"
      "  ret i32 0\n"
      "}\n";
  text_job_init(&j, "add.ll", called, "add", "int64(int32, int32)");
  j.args.flags = CUPLUG_COMPILE_KEEP_IR;
  info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .func  (.param .b64 func_retval0) add(\n");
  T_ASSERT_OK(t_api()->artifact_ir(j.args.artifact, 0, &v));
  T_ASSERT_CONTAINS(v.text, "define linkonce_odr i32 @\"add.numba\"(i64* %ret, i32 %x, i32 %y) {\n");
  T_ASSERT_CONTAINS(v.text, "  %s = call i32 @\"add.numba\"(i64* %ret, i32 %x, i32 %x)\n");
  T_ASSERT_CONTAINS(v.text, "define i64 @\"add\"(i32 %\"arg.0\", i32 %\"arg.1\") {\n");
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(numba_abi_export_keeps_entry) {
  job j;
  case_job_init(&j, "add_i32");
  j.args.abi = CUPLUG_ABI_NUMBA;
  j.args.abi_name = NULL;
  cuplug_artifact_info info = compile_ok(&j.args);
  ck_assert_str_eq(info.symbol, ADD_I32);
  /* i32 f(i64* ret, i32, i32): the status comes back */
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .func  (.param .b32 func_retval0) " ADD_I32 "(\n"
                               "\t.param .b64 " ADD_I32 "_param_0,\n"
                               "\t.param .b32 " ADD_I32 "_param_1,\n"
                               "\t.param .b32 " ADD_I32 "_param_2\n)\n");
  ck_assert_ptr_null(strstr((const char *)info.data, "add_i32("));
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

/* ---- what the IR calls ---- */

START_TEST(libdevice_linked) {
  job j;
  text_job_init(&j, "sin.ll",
                "declare float @__nv_sinf(float)\n"
                "define i32 @sinx(float* %ret, float %x) {\n"
                "entry:\n"
                "  %s = call float @__nv_sinf(float %x)\n"
                "  store float %s, float* %ret\n"
                "  ret i32 0\n"
                "}\n",
                "sinx", "float32(float32)");
  j.args.abi = CUPLUG_ABI_NUMBA;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .func  (.param .b32 func_retval0) sinx(\n");
  ck_assert_ptr_null(strstr((const char *)info.data, ".extern .func"));
  ck_assert_ptr_null(strstr((const char *)info.data, "__nv_sinf"));
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(numba_atomic_helper_defined) {
  job j;
  text_job_init(&j, "atom.ll",
                "declare double @\"___numba_atomic_double_max\"(double*, double)\n"
                "define i32 @k(i8** %ret, double* %p, double %v) {\n"
                "entry:\n"
                "  %old = call double @\"___numba_atomic_double_max\"(double* %p, double %v)\n"
                "  ret i32 0\n"
                "}\n",
                "k", "void(CPointer(float64), float64)");
  j.args.kind = CUPLUG_KERNEL;
  cuplug_artifact_info info = compile_ok(&j.args);
  T_ASSERT_CONTAINS((const char *)info.data, "\n.visible .entry k(\n");
  T_ASSERT_CONTAINS((const char *)info.data, "\tatom.global.cas.b64 \t");
  ck_assert_ptr_null(strstr((const char *)info.data, "___numba_atomic"));
  ck_assert_ptr_null(strstr((const char *)info.data, ".extern .func"));
  t_api()->artifact_destroy(j.args.artifact);
}
END_TEST

START_TEST(nvvm_rejects_what_llvm_accepts) {
  /* LLVM 22 knows llvm.cos.f32; libNVVM does not lower it */
  job j;
  text_job_init(&j, "cos.ll",
                "declare float @llvm.cos.f32(float)\n"
                "define i32 @f(float* %ret, float %x) {\n"
                "entry:\n"
                "  %s = call float @llvm.cos.f32(float %x)\n"
                "  store float %s, float* %ret\n"
                "  ret i32 0\n"
                "}\n",
                "f", "float32(float32)");
  j.args.abi = CUPLUG_ABI_NUMBA;
  cuplug_error *e = t_api()->compile(&j.args);
  ck_assert_ptr_null(j.args.artifact);
  ck_assert_ptr_nonnull(e);
  ck_assert_str_eq(t_api()->error_log(e), " Error: unsupported operation");
  T_ASSERT_ERROR(e, CUPLUG_ERR_NVVM,
                 "libNVVM failed to compile (NVVM_ERROR_COMPILATION): Error: unsupported operation");
}
END_TEST

START_TEST(unknown_intrinsic_is_an_error) {
  /* libNVVM passes an undefined llvm.nvvm.* call through as an .extern
   * function whose name ptxas cannot parse: the compile must not succeed */
  job j;
  text_job_init(&j, "bogus.ll",
                "declare float @llvm.nvvm.bogus(float)\n"
                "define i32 @f(float* %ret, float %x) {\n"
                "entry:\n"
                "  %s = call float @llvm.nvvm.bogus(float %x)\n"
                "  store float %s, float* %ret\n"
                "  ret i32 0\n"
                "}\n",
                "f", "float32(float32)");
  j.args.abi = CUPLUG_ABI_NUMBA;
  T_ASSERT_ERROR(t_api()->compile(&j.args), CUPLUG_ERR_NVVM,
                 "libNVVM left a call to @llvm.nvvm.bogus unresolved: it is no intrinsic "
                 "libNVVM knows");
  ck_assert_ptr_null(j.args.artifact);
}
END_TEST

/* ---- get_info ---- */

START_TEST(info_versions) {
  cuplug_info i;
  memset(&i, 0, sizeof i);
  i.struct_size = sizeof i;
  T_ASSERT_OK(t_api()->get_info(&i));
  ck_assert_uint_eq(i.struct_size, sizeof i);
  ck_assert_str_eq(i.cuplug_version, "1.3.0");
  ck_assert_uint_eq(i.abi_major, 1);
  ck_assert_uint_eq(i.abi_minor, 3);
  ck_assert_int_eq(i.nvvm_major, 2);
  ck_assert_int_eq(i.nvvm_minor, 0);
  ck_assert_int_eq(i.nvvm_ir_major, 2);
  ck_assert_int_eq(i.nvvm_ir_minor, 0);
  ck_assert_int_eq(i.nvvm_dbg_major, 3);
  ck_assert_int_eq(i.nvvm_dbg_minor, 2);
  ck_assert_int_ge(i.nvrtc_major, 12);
  ck_assert_int_ge(i.nvjitlink_major, 12);
  ck_assert_str_eq(i.nvvm_status, "ok");
  ck_assert_str_eq(i.nvrtc_status, "ok");
  ck_assert_str_eq(i.nvjitlink_status, "ok");
  T_ASSERT_CONTAINS(i.nvvm_path, "libnvvm.so");
  if (!t_have_gpu()) {
    ck_assert_int_eq(i.device_count, 0);
    ck_assert_int_eq(i.device_cc_major, -1);
    ck_assert_str_eq(i.device_name, "");
  }
}
END_TEST

START_TEST(info_older_struct) {
  /* a caller whose header ends before nvvm_major */
  cuplug_info i;
  memset(&i, 0xa5, sizeof i);
  const size_t size = offsetof(cuplug_info, nvvm_major);
  i.struct_size = size;
  T_ASSERT_OK(t_api()->get_info(&i));
  ck_assert_uint_eq(i.struct_size, size);
  ck_assert_str_eq(i.cuplug_version, "1.3.0");
  ck_assert_uint_eq(i.abi_major, 1);
  ck_assert_uint_eq(i.abi_minor, 3);
  unsigned char sentinel[sizeof i];
  memset(sentinel, 0xa5, sizeof sentinel);
  ck_assert_mem_eq((const char *)&i + size, sentinel, sizeof i - size);
}
END_TEST

/* ---- threads ---- */

#define THREADS_SHARED 8
#define THREADS_OWN 4
#define ROUNDS 5

typedef struct worker {
  cuplug_session *session; /* NULL: make one of its own */
  const t_case *saxpy, *add;
  char *ptx[2];            /* the last PTX of each case */
  int failures;
  char first_error[512];
} worker;

static char *compile_case_ptx(worker *w, cuplug_session *s, const t_case *c) {
  job j;
  j.mod = (cuplug_module){sizeof j.mod, c->name, c->ir, c->ir_size};
  j.mods[0] = &j.mod;
  t_case_args(c, s, j.mods, &j.args);
  cuplug_error *e = t_api()->compile(&j.args);
  if (e) {
    if (!w->failures++)
      snprintf(w->first_error, sizeof w->first_error, "%s: %s", c->name,
               t_api()->error_message(e));
    t_api()->error_destroy(e);
    return NULL;
  }
  cuplug_artifact_info info = {.struct_size = sizeof info};
  cuplug_error *ie = t_api()->artifact_info(j.args.artifact, &info);
  char *ptx = ie ? NULL : strdup(info.data);
  t_api()->error_destroy(ie);
  t_api()->artifact_destroy(j.args.artifact);
  return ptx;
}

static void *work(void *arg) {
  worker *w = arg;
  cuplug_session *s = w->session;
  if (!s && t_api()->session_create(NULL, &s)) {
    w->failures++;
    return NULL;
  }
  for (int r = 0; r < ROUNDS; r++) {
    const t_case *cs[2] = {w->saxpy, w->add};
    for (int k = 0; k < 2; k++) {
      char *ptx = compile_case_ptx(w, s, cs[k]);
      if (!ptx) continue;
      if (w->ptx[k] && strcmp(w->ptx[k], ptx) != 0) w->failures++;
      free(w->ptx[k]);
      w->ptx[k] = ptx;
    }
  }
  if (!w->session) t_api()->session_destroy(s);
  return NULL;
}

START_TEST(threads_share_a_session) {
  enum { N = THREADS_SHARED + THREADS_OWN };
  worker w[N];
  pthread_t th[N];
  memset(w, 0, sizeof w);
  for (int i = 0; i < N; i++) {
    w[i].session = i < THREADS_SHARED ? session : NULL;
    w[i].saxpy = find_case("saxpy_kernel");
    w[i].add = find_case("add_i32");
    ck_assert_int_eq(pthread_create(&th[i], NULL, work, &w[i]), 0);
  }
  for (int i = 0; i < N; i++) ck_assert_int_eq(pthread_join(th[i], NULL), 0);
  for (int i = 0; i < N; i++) {
    ck_assert_msg(w[i].failures == 0, "thread %d: %d failures; first: %s", i, w[i].failures,
                  w[i].first_error);
    for (int k = 0; k < 2; k++) {
      ck_assert_ptr_nonnull(w[i].ptx[k]);
      ck_assert_str_eq(w[i].ptx[k], w[0].ptx[k]);
    }
  }
  T_ASSERT_CONTAINS(w[0].ptx[0], "\n.visible .entry _ZN8__main__5saxpy");
  T_ASSERT_CONTAINS(w[0].ptx[1], "\n.visible .func  (.param .b64 func_retval0) add_i32(\n");
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 2; k++) free(w[i].ptx[k]);
}
END_TEST

/* ---- NULL handles and names ---- */

START_TEST(destroy_null_is_noop) {
  t_api()->session_destroy(NULL);
  t_api()->artifact_destroy(NULL);
  t_api()->error_destroy(NULL);
  ck_assert_int_eq(t_api()->error_code(NULL), CUPLUG_OK);
  ck_assert_str_eq(t_api()->error_message(NULL), "");
  ck_assert_str_eq(t_api()->error_log(NULL), "");
  ck_assert_ptr_null(t_api()->artifact_warning(NULL, 0));
}
END_TEST

START_TEST(status_names) {
#define NAME(x) ck_assert_str_eq(t_api()->status_name(x), #x)
  NAME(CUPLUG_OK);
  NAME(CUPLUG_ERR_INVALID_ARGUMENT);
  NAME(CUPLUG_ERR_OUT_OF_MEMORY);
  NAME(CUPLUG_ERR_ABI_FIELD);
  NAME(CUPLUG_ERR_IO);
  NAME(CUPLUG_ERR_SIGNATURE_SYNTAX);
  NAME(CUPLUG_ERR_UNKNOWN_TYPE);
  NAME(CUPLUG_ERR_INVALID_TYPE);
  NAME(CUPLUG_ERR_IR_EMPTY);
  NAME(CUPLUG_ERR_IR_PARSE);
  NAME(CUPLUG_ERR_ENTRY_NOT_FOUND);
  NAME(CUPLUG_ERR_ENTRY_MISMATCH);
  NAME(CUPLUG_ERR_IR_UNSUPPORTED);
  NAME(CUPLUG_ERR_OPTION_OUTPUT);
  NAME(CUPLUG_ERR_OPTION_ABI);
  NAME(CUPLUG_ERR_FORCEINLINE_OUTPUT);
  NAME(CUPLUG_ERR_FORCEINLINE_KERNEL);
  NAME(CUPLUG_ERR_C_ABI_KERNEL);
  NAME(CUPLUG_ERR_KERNEL_RETURN);
  NAME(CUPLUG_ERR_LAUNCH_BOUNDS);
  NAME(CUPLUG_ERR_OPTION_CC);
  NAME(CUPLUG_ERR_OPTION_OPT);
  NAME(CUPLUG_ERR_OPTION_KIND);
  NAME(CUPLUG_ERR_OPTION_NAME);
  NAME(CUPLUG_ERR_NVVM_NOT_FOUND);
  NAME(CUPLUG_ERR_LIBDEVICE_NOT_FOUND);
  NAME(CUPLUG_ERR_NVVM);
  NAME(CUPLUG_ERR_DRIVER_NOT_FOUND);
  NAME(CUPLUG_ERR_NO_DEVICE);
  NAME(CUPLUG_ERR_DRIVER);
  NAME(CUPLUG_ERR_NVRTC_NOT_FOUND);
  NAME(CUPLUG_ERR_NVJITLINK_NOT_FOUND);
  NAME(CUPLUG_ERR_NVPTX_NOT_FOUND);
  NAME(CUPLUG_ERR_NVPTX);
  NAME(CUPLUG_ERR_IR_VERSION);
  NAME(CUPLUG_ERR_OPTION_BACKEND);
  NAME(CUPLUG_ERR_OPTION_CACHE_REMOTE);
  NAME(CUPLUG_WARN_DEBUG_WITH_OPT);
#undef NAME
  ck_assert_str_eq(t_api()->status_name((cuplug_status)999), "CUPLUG_UNKNOWN_STATUS");
}
END_TEST

Suite *suite_compile(void) {
  Suite *s = suite_create("compile");
  TCase *tc = t_tcase(s, "corpus", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, corpus_compiles_to_ptx);
  tcase_add_test(tc, artifact_info_fields);

  tc = t_tcase(s, "cc", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, cc_explicit);
  tcase_add_test(tc, cc_arch_specific);
  tcase_add_test(tc, cc_session_default);
  tcase_add_test(tc, current_device);

  /* the closest cc below: from NVRTC's list */
  tc = t_tcase(s, "cc_closest", T_NVVM | T_NVRTC, setup, teardown, 120);
  tcase_add_test(tc, cc_closest_below);

  tc = t_tcase(s, "outputs", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, ltoir_magic);
  tcase_add_test(tc, fastmath_flushes_denormals);
  tcase_add_test(tc, debug_kernel_exception_store);
  tcase_add_test(tc, launch_bounds_directives);

  tc = t_tcase(s, "kept_ir", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, forceinline_ltoir_keeps_ir);
  tcase_add_test(tc, no_ir_kept_by_default);

  tc = t_tcase(s, "input", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, signature_as_handle);
  tcase_add_test(tc, module_text_is_sized);
  tcase_add_test(tc, entry_in_second_module);

  tc = t_tcase(s, "exports", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, c_abi_export_takes_entry_name);
  tcase_add_test(tc, numba_abi_export_keeps_entry);

  tc = t_tcase(s, "ir_calls", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, libdevice_linked);
  tcase_add_test(tc, numba_atomic_helper_defined);
  tcase_add_test(tc, nvvm_rejects_what_llvm_accepts);
  tcase_add_test(tc, unknown_intrinsic_is_an_error);

  tc = t_tcase(s, "info_versions", T_TOOLKIT, setup, teardown, 120);
  tcase_add_test(tc, info_versions);

  tc = t_tcase(s, "info_struct", 0, setup, teardown, 120);
  tcase_add_test(tc, info_older_struct);

  tc = t_tcase(s, "threads", T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, threads_share_a_session);

  tc = t_tcase(s, "null_and_names", 0, setup, teardown, 120);
  tcase_add_test(tc, destroy_null_is_noop);
  tcase_add_test(tc, status_names);
  return s;
}
