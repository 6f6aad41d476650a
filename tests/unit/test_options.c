/* test_options.c - every user error of compile(): its code and its exact
 * message (the option rules of numba-cuda's compile(), the import of the
 * argument structs, signatures, the input IR and its entry, the toolkit),
 * the debug-with-opt warning, and that a failed compile hands back no
 * artifact.  Most tests compile numba-cuda's add_i32 from the corpus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "plugin/session/session.h"

#define ADD_I32                                                                \
  "_ZN8__main__7add_i32B2v1B88cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3CwAkMXLaJtQYkOI" \
  "gxJU0gCqOkEJoHkbttqdSBL3UrBuFYTAA_3d_3dEii"

static char *add_ir;
static size_t add_ir_size;
static cuplug_module add_mod;
static const cuplug_module *add_mods[1];
static cuplug_session *session;

static void setup(void) {
  add_ir = t_read(t_path("conformance/numba/add_i32/input.ll"), &add_ir_size);
  add_mod = (cuplug_module){sizeof add_mod, "add_i32.ll", add_ir, add_ir_size};
  add_mods[0] = &add_mod;
  session = t_session();
}

static void teardown(void) {
  t_api()->session_destroy(session);
  free(add_ir);
}

/* add_i32 as a C-ABI device function, numba-cuda's compile() defaults. */
static cuplug_compile_args add_args(void) {
  cuplug_compile_args a = {.struct_size = sizeof a,
                           .session = session,
                           .modules = add_mods,
                           .num_modules = 1,
                           .entry = ADD_I32,
                           .signature = "int64(int32, int32)"};
  return a;
}

/* Compiles `a` and asserts the error and that no artifact came back. */
#define EXPECT(a, code, message)                                               \
  do {                                                                         \
    T_ASSERT_ERROR(t_api()->compile(&(a)), code, message);                     \
    ck_assert_ptr_null((a).artifact);                                          \
  } while (0)

/* One module of `text` named `name`, compiled with `a`'s other fields. */
#define EXPECT_IR(a, name, text, code, message)                                \
  do {                                                                         \
    cuplug_module m_ = {sizeof m_, (name), (text), strlen(text)};              \
    const cuplug_module *ms_[1] = {&m_};                                       \
    (a).modules = ms_;                                                         \
    EXPECT(a, code, message);                                                  \
  } while (0)

/* ---- numba-cuda's option rules ---- */

START_TEST(output_unknown) {
  cuplug_compile_args a = add_args();
  a.output = 7;
  EXPECT(a, CUPLUG_ERR_OPTION_OUTPUT, "Unsupported output type: 7 (ptx, ltoir, cubin or host)");
}
END_TEST

/* nvJitLink keeps only kernels and what they call: a device function's
 * cubin would hold nothing. */
START_TEST(device_function_has_no_cubin) {
  cuplug_compile_args a = add_args();
  a.output = CUPLUG_OUTPUT_CUBIN;
  EXPECT(a, CUPLUG_ERR_OPTION_OUTPUT,
         "a device function has no cubin of its own: nvJitLink keeps only kernels and what they "
         "call; compile it to ptx or ltoir and link it into a kernel's cubin");
}
END_TEST

START_TEST(forceinline_needs_ltoir) {
  cuplug_compile_args a = add_args();
  a.forceinline = 1;
  EXPECT(a, CUPLUG_ERR_FORCEINLINE_OUTPUT,
         "Can only designate forced inlining in LTO-IR (output is ptx)");
}
END_TEST

START_TEST(abi_unknown) {
  cuplug_compile_args a = add_args();
  a.abi = 9;
  EXPECT(a, CUPLUG_ERR_OPTION_ABI, "Unsupported ABI: 9 (numba or c)");
  a = add_args();
  a.entry_abi = 9;
  EXPECT(a, CUPLUG_ERR_OPTION_ABI, "Unsupported entry ABI: 9 (numba or c)");
}
END_TEST

START_TEST(c_entry_exported_as_numba) {
  cuplug_compile_args a = add_args();
  a.entry_abi = CUPLUG_ABI_C;
  a.abi = CUPLUG_ABI_NUMBA;
  EXPECT(a, CUPLUG_ERR_OPTION_ABI, "a C-ABI entry cannot be exported under the Numba ABI");
}
END_TEST

START_TEST(c_abi_kernel) {
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.abi = CUPLUG_ABI_C;
  EXPECT(a, CUPLUG_ERR_C_ABI_KERNEL, "The C ABI is not supported for kernels");
}
END_TEST

START_TEST(forceinline_kernel) {
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.forceinline = 1;
  a.output = CUPLUG_OUTPUT_LTOIR;
  EXPECT(a, CUPLUG_ERR_FORCEINLINE_KERNEL, "Cannot force-inline kernels");
}
END_TEST

START_TEST(kernel_returns_value) {
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.signature = "int32(int32)";
  EXPECT(a, CUPLUG_ERR_KERNEL_RETURN,
         "CUDA kernel must have void return type (signature 'int32(int32)')");
}
END_TEST

START_TEST(launch_bounds_four) {
  static const uint32_t lb[] = {1, 2, 3, 4};
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.signature = "void(int32, int32)";
  a.launch_bounds = lb;
  a.num_launch_bounds = 4;
  EXPECT(a, CUPLUG_ERR_LAUNCH_BOUNDS,
         "Got 4 launch bounds: (1, 2, 3, 4). A maximum of three are supported: "
         "(max_threads_per_block, min_blocks_per_sm, max_blocks_per_cluster)");
}
END_TEST

START_TEST(launch_bounds_zero) {
  static const uint32_t lb[] = {128, 0};
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.signature = "void(int32, int32)";
  a.launch_bounds = lb;
  a.num_launch_bounds = 2;
  EXPECT(a, CUPLUG_ERR_LAUNCH_BOUNDS, "launch bound 2 (min_blocks_per_sm) is 0: it must be positive");
}
END_TEST

START_TEST(launch_bounds_device_function) {
  static const uint32_t lb[] = {128};
  cuplug_compile_args a = add_args();
  a.launch_bounds = lb;
  a.num_launch_bounds = 1;
  EXPECT(a, CUPLUG_ERR_LAUNCH_BOUNDS, "launch bounds apply to kernels, not device functions");
}
END_TEST

START_TEST(cc_without_major) {
  cuplug_compile_args a = add_args();
  a.cc_minor = 5;
  EXPECT(a, CUPLUG_ERR_OPTION_CC, "compute capability 0.5: give a major version");
}
END_TEST

START_TEST(cc_with_current_device) {
  cuplug_compile_args a = add_args();
  a.cc_major = 9;
  a.flags = CUPLUG_COMPILE_CURRENT_DEVICE;
  EXPECT(a, CUPLUG_ERR_OPTION_CC,
         "compute capability 9.0 given together with CUPLUG_COMPILE_CURRENT_DEVICE: give one");
}
END_TEST

START_TEST(cc_below_nvrtc_lowest) {
  cuplug_compile_args a = add_args();
  a.cc_major = 5;
  a.cc_minor = 2;
  EXPECT(a, CUPLUG_ERR_OPTION_CC, "compute capability 5.2 is not supported (requires >= 7.5)");
}
END_TEST

START_TEST(cc_out_of_range) {
  cuplug_compile_args a = add_args();
  a.cc_major = 100;
  EXPECT(a, CUPLUG_ERR_OPTION_CC, "compute capability 100.0 is not one");
  a = add_args();
  a.cc_major = 9;
  a.cc_minor = 10;
  EXPECT(a, CUPLUG_ERR_OPTION_CC, "compute capability 9.10 is not one");
}
END_TEST

/* The toolkit's ccs as the message lists them: "7.5, 8.0, ...". */
static void toolkit_ccs(char *out, size_t size) {
  const int *archs;
  int n;
  cuplug__toolkit_nvrtc_archs(&session->toolkit, &archs, &n);
  ck_assert_int_gt(n, 0);
  size_t len = 0;
  out[0] = '\0';
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(out + len, size - len, "%s%d.%d", i ? ", " : "", archs[i] / 10,
                            archs[i] % 10);
}

/* The issue's --cc 99.0 built for sm_121 (NVRTC's highest): a cc given is
 * one the toolkit supports. */
START_TEST(cc_beyond_the_toolkit) {
  char ccs[512], want[1024];
  toolkit_ccs(ccs, sizeof ccs);
  cuplug_compile_args a = add_args();
  a.cc_major = 99;
  snprintf(want, sizeof want,
           "compute capability 99.0 is not one this toolkit supports (NVRTC's: %s)", ccs);
  EXPECT(a, CUPLUG_ERR_OPTION_CC, want);
  const int *archs;
  int n;
  cuplug__toolkit_nvrtc_archs(&session->toolkit, &archs, &n);
  int highest = archs[n - 1];
  a = add_args();
  a.cc_major = (uint32_t)highest / 10 + 1;
  snprintf(want, sizeof want,
           "compute capability %d.0 is not one this toolkit supports (NVRTC's: %s)",
           highest / 10 + 1, ccs);
  EXPECT(a, CUPLUG_ERR_OPTION_CC, want);
  if (highest % 10 < 9) {
    a = add_args();
    a.cc_major = (uint32_t)highest / 10;
    a.cc_minor = (uint32_t)highest % 10 + 1;
    snprintf(want, sizeof want,
             "compute capability %d.%d is not one this toolkit supports (NVRTC's: %s)",
             highest / 10, highest % 10 + 1, ccs);
    EXPECT(a, CUPLUG_ERR_OPTION_CC, want);
  }
  /* the highest itself builds */
  a = add_args();
  a.cc_major = (uint32_t)highest / 10;
  a.cc_minor = (uint32_t)highest % 10;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_artifact_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->artifact_info(a.artifact, &info));
  ck_assert_uint_eq(info.cc_major * 10 + info.cc_minor, (uint32_t)highest);
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* numba-cuda's rule on a toolkit whose NVRTC lists 7.5, 8.0, 8.6, 8.9, 9.0,
 * 10.0 and 12.0 (the session's list replaced; the session is this test's):
 * a cc given between two of one major builds for the lower, one beyond
 * 12.0 or of major 11 is refused; the device's cc and the default fall back. */
START_TEST(cc_rule_on_a_toolkit) {
  static const int fake[] = {75, 80, 86, 89, 90, 100, 120};
  const int *archs;
  int n;
  cuplug__toolkit_nvrtc_archs(&session->toolkit, &archs, &n); /* NVRTC loaded: the list is set */
  free(session->toolkit.nvrtc_archs);
  session->toolkit.nvrtc_archs = malloc(sizeof fake);
  ck_assert_ptr_nonnull(session->toolkit.nvrtc_archs);
  memcpy(session->toolkit.nvrtc_archs, fake, sizeof fake);
  session->toolkit.num_nvrtc_archs = (int)(sizeof fake / sizeof fake[0]);
  static const struct {
    uint32_t major, minor;
    int given, device; /* what the cc becomes: given, as the current device's */
  } rule[] = {{8, 7, 86, 86},   {8, 6, 86, 86},   {8, 9, 89, 89},    {9, 5, 90, 90},
              {10, 3, 100, 100}, {12, 0, 120, 120}, {11, 0, 0, 100},   {12, 1, 0, 120},
              {13, 0, 0, 120},   {99, 9, 0, 120}};
  const char *ccs = "7.5, 8.0, 8.6, 8.9, 9.0, 10.0, 12.0";
  for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
    cuplug__cc cc;
    T_ASSERT_OK(cuplug__session_device_cc(session, rule[i].major, rule[i].minor, 0, &cc));
    ck_assert_int_eq((int)(cc.major * 10 + cc.minor), rule[i].device);
    cuplug_error *e = cuplug__session_cc(session, rule[i].major, rule[i].minor, 0, &cc);
    if (rule[i].given) {
      T_ASSERT_OK(e);
      ck_assert_int_eq((int)(cc.major * 10 + cc.minor), rule[i].given);
    } else {
      char want[256];
      snprintf(want, sizeof want,
               "compute capability %u.%u is not one this toolkit supports (NVRTC's: %s)",
               rule[i].major, rule[i].minor, ccs);
      T_ASSERT_ERROR(e, CUPLUG_ERR_OPTION_CC, want);
    }
  }
  cuplug__cc cc;
  T_ASSERT_OK(cuplug__session_cc(session, 0, 0, 0, &cc)); /* the default: max(5.0, 7.5) */
  ck_assert_uint_eq(cc.major * 10 + cc.minor, 75);
  T_ASSERT_ERROR(cuplug__session_cc(session, 7, 0, 0, &cc), CUPLUG_ERR_OPTION_CC,
                 "compute capability 7.0 is not supported (requires >= 7.5)");
  T_ASSERT_ERROR(cuplug__session_cc(session, 100, 0, 0, &cc), CUPLUG_ERR_OPTION_CC,
                 "compute capability 100.0 is not one");
  T_ASSERT_ERROR(cuplug__session_cc(session, 4294967295u, 0, 0, &cc), CUPLUG_ERR_OPTION_CC,
                 "compute capability 4294967295.0 is not one");
  T_ASSERT_ERROR(cuplug__session_cc(session, 9, 10, 0, &cc), CUPLUG_ERR_OPTION_CC,
                 "compute capability 9.10 is not one");
}
END_TEST

/* numba-cuda's third cc item: 'a' (arch-specific) from 9.0, 'f' (family)
 * from 10.0, and only for a cc the toolkit has itself. */
START_TEST(cc_suffix_refusals) {
  cuplug_compile_args a = add_args();
  a.cc_major = 9;
  a.cc_suffix = 'b';
  EXPECT(a, CUPLUG_ERR_OPTION_CC, "cc_suffix 98: give 0, 'a' (arch-specific) or 'f' (family)");
  a = add_args();
  a.cc_major = 8;
  a.cc_suffix = 'a';
  EXPECT(a, CUPLUG_ERR_OPTION_CC,
         "arch-specific code (cc_suffix 'a') needs compute capability 9.0 or higher, not 8.0");
  a = add_args();
  a.cc_suffix = 'a'; /* the default cc, 7.5 with CUDA 13 */
  EXPECT(a, CUPLUG_ERR_OPTION_CC,
         "arch-specific code (cc_suffix 'a') needs compute capability 9.0 or higher, not 7.5");
  a = add_args();
  a.cc_major = 9;
  a.cc_suffix = 'f';
  EXPECT(a, CUPLUG_ERR_OPTION_CC,
         "family code (cc_suffix 'f') needs compute capability 10.0 or higher, not 9.0");
  a = add_args();
  a.cc_major = 9;
  a.cc_minor = 5; /* no such cc: 9.0 is the closest, which 9.5a cannot become */
  a.cc_suffix = 'a';
  EXPECT(a, CUPLUG_ERR_OPTION_CC,
         "arch-specific compute_95a needs that compute capability; the closest this toolkit "
         "supports is 9.0");
}
END_TEST

START_TEST(opt_out_of_range) {
  cuplug_compile_args a = add_args();
  a.opt = -2;
  EXPECT(a, CUPLUG_ERR_OPTION_OPT, "opt level -2: libNVVM takes 0 to 3 (CUPLUG_OPT_NONE for 0)");
  a = add_args();
  a.opt = 4;
  EXPECT(a, CUPLUG_ERR_OPTION_OPT, "opt level 4: libNVVM takes 0 to 3 (CUPLUG_OPT_NONE for 0)");
}
END_TEST

START_TEST(kind_unknown) {
  cuplug_compile_args a = add_args();
  a.kind = 5;
  EXPECT(a, CUPLUG_ERR_OPTION_KIND,
         "Unsupported function kind 5: a device function (0) or a kernel (1)");
}
END_TEST

/* ---- names ---- */

START_TEST(no_entry) {
  cuplug_compile_args a = add_args();
  a.entry = NULL;
  EXPECT(a, CUPLUG_ERR_OPTION_NAME, "compile: no entry symbol given");
  a = add_args();
  a.entry = "";
  EXPECT(a, CUPLUG_ERR_OPTION_NAME, "compile: no entry symbol given");
}
END_TEST

START_TEST(abi_name_not_identifier) {
  cuplug_compile_args a = add_args();
  a.abi_name = "not an id";
  EXPECT(a, CUPLUG_ERR_OPTION_NAME, "abi_name 'not an id' is not a C identifier");
}
END_TEST

START_TEST(abi_name_without_wrapper) {
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.signature = "void(int32, int32)";
  a.abi_name = "k";
  EXPECT(a, CUPLUG_ERR_OPTION_NAME,
         "abi_name 'k' names a C-ABI wrapper, which this compile has none of "
         "(a kernel keeps its entry's name)");
  a = add_args();
  a.abi = CUPLUG_ABI_NUMBA;
  a.abi_name = "add";
  EXPECT(a, CUPLUG_ERR_OPTION_NAME,
         "abi_name 'add' names a C-ABI wrapper, which this compile has none of "
         "(the Numba ABI keeps the entry's name)");
  a = add_args();
  a.entry_abi = CUPLUG_ABI_C;
  a.abi_name = "add";
  EXPECT(a, CUPLUG_ERR_OPTION_NAME,
         "abi_name 'add' names a C-ABI wrapper, which this compile has none of "
         "(the entry is already C-ABI)");
}
END_TEST

/* ---- the argument struct ---- */

START_TEST(null_session) {
  cuplug_compile_args a = add_args();
  a.session = NULL;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT, "compile: session is NULL");
}
END_TEST

START_TEST(signature_both_or_neither) {
  const cuplug_type *sig;
  T_ASSERT_OK(t_api()->type_parse("int64(int32, int32)", &sig));
  cuplug_compile_args a = add_args();
  a.signature_type = sig;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT,
         "compile: give one of signature and signature_type, not both");
  /* neither: typed IR never says its signature (a kernel marked in modern
   * IR does: unit.backends) */
  a = add_args();
  a.signature = NULL;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT,
         "compile: give the entry's signature (signature or signature_type)");
}
END_TEST

START_TEST(signature_type_not_signature) {
  const cuplug_type *t;
  T_ASSERT_OK(t_api()->type_parse("float32[::1]", &t));
  cuplug_compile_args a = add_args();
  a.signature = NULL;
  a.signature_type = t;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT,
         "compile: signature_type float32[::1] is not a signature");
}
END_TEST

START_TEST(unknown_flags) {
  cuplug_compile_args a = add_args();
  a.flags = CUPLUG_COMPILE_KEEP_IR | 0x10u;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT, "compile: unknown flags 0x10");
}
END_TEST

START_TEST(launch_bounds_null) {
  cuplug_compile_args a = add_args();
  a.kind = CUPLUG_KERNEL;
  a.signature = "void(int32, int32)";
  a.num_launch_bounds = 2;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT,
         "compile: num_launch_bounds is 2 but launch_bounds is NULL");
}
END_TEST

START_TEST(module_struct_size_zero) {
  cuplug_compile_args a = add_args();
  cuplug_module m = add_mod;
  m.struct_size = 0;
  const cuplug_module *ms[1] = {&m};
  a.modules = ms;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT,
         "compile: module 0 has struct_size 0; set it to sizeof(cuplug_module)");
}
END_TEST

START_TEST(module_null) {
  cuplug_compile_args a = add_args();
  const cuplug_module *ms[2] = {&add_mod, NULL};
  a.modules = ms;
  a.num_modules = 2;
  EXPECT(a, CUPLUG_ERR_INVALID_ARGUMENT, "compile: module 1 is NULL");
}
END_TEST

START_TEST(args_null) {
  T_ASSERT_ERROR(t_api()->compile(NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_compile_args is NULL");
}
END_TEST

START_TEST(args_too_small) {
  /* 1.0's first size runs to `artifact`: 8 pointer-sized fields */
  cuplug_compile_args a = add_args();
  a.struct_size = offsetof(cuplug_compile_args, artifact);
  T_ASSERT_ERROR(t_api()->compile(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_compile_args has struct_size 56, less than the 64 bytes of its first version: "
                 "set struct_size = sizeof(cuplug_compile_args)");
}
END_TEST

/* A caller built against a newer header: a longer struct. */
typedef struct newer_args {
  cuplug_compile_args a;
  unsigned char extra[8];
} newer_args;

START_TEST(newer_struct_nonzero_field) {
  newer_args n;
  memset(&n, 0, sizeof n);
  n.a = add_args();
  n.a.struct_size = sizeof n;
  n.extra[3] = 1;
  char want[256];
  snprintf(want, sizeof want,
           "cuplug_compile_args sets byte %zu, beyond the %zu bytes this plugin (ABI %d.%d) "
           "knows: a field of a newer ABI that it cannot honour",
           offsetof(newer_args, extra) + 3, sizeof(cuplug_compile_args), CUPLUG_ABI_MAJOR,
           CUPLUG_ABI_MINOR);
  T_ASSERT_ERROR(t_api()->compile(&n.a), CUPLUG_ERR_ABI_FIELD, want);
}
END_TEST

START_TEST(newer_struct_zero_fields) {
  newer_args n;
  memset(&n, 0, sizeof n);
  n.a = add_args();
  n.a.struct_size = sizeof n;
  T_ASSERT_OK(t_api()->compile(&n.a));
  ck_assert_ptr_nonnull(n.a.artifact);
  ck_assert_uint_eq(n.a.struct_size, sizeof n); /* the caller's struct is its own */
  t_api()->artifact_destroy(n.a.artifact);
}
END_TEST

/* ---- the signature ---- */

START_TEST(signature_syntax) {
  cuplug_compile_args a = add_args();
  a.signature = "int64(int32,, int32)";
  EXPECT(a, CUPLUG_ERR_SIGNATURE_SYNTAX,
         "signature syntax error at position 12 of 'int64(int32,, int32)': "
         "expected a type, found ','");
}
END_TEST

START_TEST(signature_unknown_type) {
  cuplug_compile_args a = add_args();
  a.signature = "int64(int33, int32)";
  EXPECT(a, CUPLUG_ERR_UNKNOWN_TYPE, "unknown type 'int33' at position 6 of 'int64(int33, int32)'");
}
END_TEST

/* ---- the IR ---- */

START_TEST(ir_no_modules) {
  cuplug_compile_args a = add_args();
  a.num_modules = 0;
  EXPECT(a, CUPLUG_ERR_IR_EMPTY, "compile: no IR modules given");
}
END_TEST

START_TEST(ir_blank) {
  cuplug_compile_args a = add_args();
  EXPECT_IR(a, "m.ll", "   \n", CUPLUG_ERR_IR_EMPTY, "IR module m.ll is empty");
  EXPECT_IR(a, NULL, "\t\n", CUPLUG_ERR_IR_EMPTY, "IR module module0 is empty");
}
END_TEST

START_TEST(ir_parse_names_line_and_column) {
  cuplug_compile_args a = add_args();
  cuplug_module m = {sizeof m, "m.ll", "this is not IR\n", 15};
  const cuplug_module *ms[1] = {&m};
  a.modules = ms;
  cuplug_error *e = t_api()->compile(&a);
  ck_assert_ptr_null(a.artifact);
  ck_assert_ptr_nonnull(e);
  /* the full diagnostic, with its caret, is the log */
  T_ASSERT_CONTAINS(t_api()->error_log(e), "m.ll:1:1: error: expected top-level entity");
  T_ASSERT_ERROR(e, CUPLUG_ERR_IR_PARSE,
                 "IR does not parse: m.ll:1:1: error: expected top-level entity");
}
END_TEST

START_TEST(ir_parse_later_line) {
  cuplug_compile_args a = add_args();
  EXPECT_IR(a, "m.ll",
            "define i32 @f(i64* %r) {\n"
            "entry:\n"
            "  ret i32 %nope\n"
            "}\n",
            CUPLUG_ERR_IR_PARSE,
            "IR does not parse: m.ll:3:11: error: use of undefined value '%nope'");
}
END_TEST

START_TEST(entry_not_defined) {
  cuplug_compile_args a = add_args();
  a.entry = "nope";
  EXPECT(a, CUPLUG_ERR_ENTRY_NOT_FOUND,
         "entry @nope is not defined in the 1 module(s) given; they define @" ADD_I32);
}
END_TEST

START_TEST(entry_only_declared) {
  cuplug_compile_args a = add_args();
  a.entry = "foo";
  EXPECT_IR(a, "m.ll",
            "declare i32 @foo(i64*, i32, i32)\n"
            "define i32 @bar(i64* %r, i32 %x, i32 %y) {\n"
            "  %v = call i32 @foo(i64* %r, i32 %x, i32 %y)\n"
            "  ret i32 %v\n"
            "}\n",
            CUPLUG_ERR_ENTRY_NOT_FOUND,
            "entry @foo is declared but not defined in the 1 module(s) given; they define @bar");
}
END_TEST

START_TEST(entry_parameter_mismatch) {
  cuplug_compile_args a = add_args();
  a.signature = "int64(int32, float32)";
  EXPECT(a, CUPLUG_ERR_ENTRY_MISMATCH,
         "entry @" ADD_I32 " does not match signature 'int64(int32, float32)' under the Numba "
         "ABI: parameter 2 (argument 1) is i32 in the IR; the signature's float32 wants float");
}
END_TEST

START_TEST(entry_parameter_count_mismatch) {
  cuplug_compile_args a = add_args();
  a.signature = "int64(int32)";
  EXPECT(a, CUPLUG_ERR_ENTRY_MISMATCH,
         "entry @" ADD_I32 " does not match signature 'int64(int32)' under the Numba "
         "ABI: the IR has 3 parameters; the signature wants 2 (the return slot, then 1 for its "
         "arguments)");
}
END_TEST

START_TEST(entry_return_mismatch) {
  cuplug_compile_args a = add_args();
  a.entry = "add";
  a.entry_abi = CUPLUG_ABI_C;
  a.signature = "int32(int32, int32)";
  EXPECT_IR(a, "c.ll",
            "define i64 @add(i32 %x, i32 %y) {\n"
            "  %a = sext i32 %x to i64\n"
            "  %b = sext i32 %y to i64\n"
            "  %c = add i64 %a, %b\n"
            "  ret i64 %c\n"
            "}\n",
            CUPLUG_ERR_ENTRY_MISMATCH,
            "entry @add does not match signature 'int32(int32, int32)' under the C ABI: "
            "the IR returns i64; the signature's return type int32 wants i32");
}
END_TEST

START_TEST(opaque_pointers_unsupported) {
  /* LLVM parses `ptr`; libNVVM (LLVM 7) would not, below cc 10.0: asked
   * for libNVVM, modern IR is refused before any work, naming the backend
   * that takes it (which the default picks: unit.backends) */
  cuplug_compile_args a = add_args();
  a.entry = "f";
  a.abi = CUPLUG_ABI_NUMBA;
  a.signature = "int64(int32)";
  a.backend = CUPLUG_BACKEND_LIBNVVM;
  a.cc_major = 9;
  EXPECT_IR(a, "p.ll",
            "define i32 @f(ptr %ret, i32 %x) {\n"
            "  %v = sext i32 %x to i64\n"
            "  store i64 %v, ptr %ret\n"
            "  ret i32 0\n"
            "}\n",
            CUPLUG_ERR_OPTION_BACKEND,
            "libNVVM reads modern IR (LLVM 15 and later's text, or bitcode) only for cc 10.0 "
            "and up, not 9.0: compile it to ptx or cubin with the llvm backend");
}
END_TEST

/* ---- the toolkit ---- */

START_TEST(nvvm_not_found) {
  cuplug_session_options o = {.struct_size = sizeof o, .cuda_home = "/nonexistent"};
  cuplug_session *s = NULL;
  T_ASSERT_OK(t_api()->session_create(&o, &s));
  cuplug_compile_args a = add_args();
  a.session = s;
  EXPECT(a, CUPLUG_ERR_NVVM_NOT_FOUND, "libNVVM (libnvvm.so.4) not found in /nonexistent");
  t_api()->session_destroy(s);
}
END_TEST

START_TEST(default_export_name_not_identifier) {
  cuplug_compile_args a = add_args();
  a.entry = "my.func";
  a.signature = "int64(int32, int32)";
  EXPECT(a, CUPLUG_ERR_OPTION_NAME,
         "the C-ABI function would take the entry's name 'my.func', which is not a C "
         "identifier: give abi_name");
}
END_TEST

START_TEST(session_default_cc_without_major) {
  cuplug_session_options o = {.struct_size = sizeof o, .default_cc_minor = 5};
  cuplug_session *s = (cuplug_session *)1;
  T_ASSERT_ERROR(t_api()->session_create(&o, &s), CUPLUG_ERR_OPTION_CC,
                 "default compute capability 0.5: give a major version");
  ck_assert_ptr_null(s);
}
END_TEST

/* ---- warnings and the artifact of a failure ---- */

START_TEST(debug_with_opt_warns) {
  cuplug_compile_args a = add_args();
  a.debug = 1;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_artifact_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->artifact_info(a.artifact, &info));
  ck_assert_uint_eq(info.num_warnings, 1);
  const cuplug_error *w = t_api()->artifact_warning(a.artifact, 0);
  ck_assert_int_eq(t_api()->error_code(w), CUPLUG_WARN_DEBUG_WITH_OPT);
  ck_assert_str_eq(t_api()->error_message(w),
                   "debug=True with opt=True is not supported by CUDA. This may result in a "
                   "crash - set debug=False or opt=False.");
  ck_assert_ptr_null(t_api()->artifact_warning(a.artifact, 1));
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

START_TEST(debug_without_opt_is_quiet) {
  cuplug_compile_args a = add_args();
  a.debug = 1;
  a.opt = CUPLUG_OPT_NONE;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_artifact_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->artifact_info(a.artifact, &info));
  ck_assert_uint_eq(info.num_warnings, 0);
  ck_assert_ptr_null(t_api()->artifact_warning(a.artifact, 0));
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

START_TEST(failure_clears_artifact) {
  /* a stale pointer from an earlier compile must not survive a failure */
  cuplug_artifact *stale = (cuplug_artifact *)&add_mod;
  cuplug_compile_args a = add_args();
  a.artifact = stale;
  a.output = 7;
  EXPECT(a, CUPLUG_ERR_OPTION_OUTPUT, "Unsupported output type: 7 (ptx, ltoir, cubin or host)");
  a = add_args();
  a.artifact = stale;
  a.entry = "nope";
  EXPECT(a, CUPLUG_ERR_ENTRY_NOT_FOUND,
         "entry @nope is not defined in the 1 module(s) given; they define @" ADD_I32);
}
END_TEST

START_TEST(abi_field_failure_clears_artifact) {
  /* the struct reaches `artifact`, so the stale pointer must go here too */
  cuplug_artifact *stale = (cuplug_artifact *)&add_mod;
  newer_args n;
  memset(&n, 0, sizeof n);
  n.a = add_args();
  n.a.struct_size = sizeof n;
  n.a.artifact = stale;
  n.extra[0] = 1;
  char want[256];
  snprintf(want, sizeof want,
           "cuplug_compile_args sets byte %zu, beyond the %zu bytes this plugin (ABI %d.%d) "
           "knows: a field of a newer ABI that it cannot honour",
           offsetof(newer_args, extra), sizeof(cuplug_compile_args), CUPLUG_ABI_MAJOR,
           CUPLUG_ABI_MINOR);
  EXPECT(n.a, CUPLUG_ERR_ABI_FIELD, want);
}
END_TEST

Suite *suite_options(void) {
  Suite *s = suite_create("options");
  TCase *tc = t_tcase(s, "option_rules", 0, setup, teardown, 60);
  tcase_add_test(tc, output_unknown);
  tcase_add_test(tc, device_function_has_no_cubin);
  tcase_add_test(tc, forceinline_needs_ltoir);
  tcase_add_test(tc, abi_unknown);
  tcase_add_test(tc, c_entry_exported_as_numba);
  tcase_add_test(tc, c_abi_kernel);
  tcase_add_test(tc, forceinline_kernel);
  tcase_add_test(tc, kernel_returns_value);
  tcase_add_test(tc, launch_bounds_four);
  tcase_add_test(tc, launch_bounds_zero);
  tcase_add_test(tc, launch_bounds_device_function);
  tcase_add_test(tc, cc_without_major);
  tcase_add_test(tc, cc_with_current_device);
  tcase_add_test(tc, cc_out_of_range);
  tcase_add_test(tc, opt_out_of_range);
  tcase_add_test(tc, kind_unknown);

  /* the rules that ask the toolkit which cc it has (NVRTC's list) */
  tc = t_tcase(s, "supported_cc", T_NVVM | T_NVRTC, setup, teardown, 60);
  tcase_add_test(tc, cc_below_nvrtc_lowest);
  tcase_add_test(tc, cc_suffix_refusals);
  tcase_add_test(tc, cc_beyond_the_toolkit);
  tcase_add_test(tc, cc_rule_on_a_toolkit);

  tc = t_tcase(s, "names", 0, setup, teardown, 60);
  tcase_add_test(tc, no_entry);
  tcase_add_test(tc, abi_name_not_identifier);
  tcase_add_test(tc, abi_name_without_wrapper);
  tcase_add_test(tc, default_export_name_not_identifier);

  tc = t_tcase(s, "argument_struct", 0, setup, teardown, 60);
  tcase_add_test(tc, null_session);
  tcase_add_test(tc, signature_both_or_neither);
  tcase_add_test(tc, signature_type_not_signature);
  tcase_add_test(tc, unknown_flags);
  tcase_add_test(tc, launch_bounds_null);
  tcase_add_test(tc, module_struct_size_zero);
  tcase_add_test(tc, module_null);
  tcase_add_test(tc, args_null);
  tcase_add_test(tc, args_too_small);
  tcase_add_test(tc, newer_struct_nonzero_field);

  tc = t_tcase(s, "signature", 0, setup, teardown, 60);
  tcase_add_test(tc, signature_syntax);
  tcase_add_test(tc, signature_unknown_type);

  tc = t_tcase(s, "input_ir", 0, setup, teardown, 60);
  tcase_add_test(tc, ir_no_modules);
  tcase_add_test(tc, ir_blank);
  tcase_add_test(tc, ir_parse_names_line_and_column);
  tcase_add_test(tc, ir_parse_later_line);
  tcase_add_test(tc, entry_not_defined);
  tcase_add_test(tc, entry_only_declared);
  tcase_add_test(tc, entry_parameter_mismatch);
  tcase_add_test(tc, entry_parameter_count_mismatch);
  tcase_add_test(tc, entry_return_mismatch);

  tc = t_tcase(s, "toolkit", 0, setup, teardown, 60);
  tcase_add_test(tc, nvvm_not_found);
  tcase_add_test(tc, session_default_cc_without_major);

  tc = t_tcase(s, "failed_compile", 0, setup, teardown, 60);
  tcase_add_test(tc, failure_clears_artifact);
  tcase_add_test(tc, abi_field_failure_clears_artifact);

  /* compiles that pass the checks, into the stages that ask libNVVM */
  tc = t_tcase(s, "past_the_checks", T_NVVM, setup, teardown, 60);
  tcase_add_test(tc, newer_struct_zero_fields);
  tcase_add_test(tc, opaque_pointers_unsupported);
  tcase_add_test(tc, debug_with_opt_warns);
  tcase_add_test(tc, debug_without_opt_is_quiet);
  return s;
}
