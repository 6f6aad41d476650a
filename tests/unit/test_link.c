/* test_link.c - external code, without a GPU: telling code kinds,
 * declare_device, NVRTC, compile_all, cubin output and link(), up to the
 * cubin, its symbols and what it says about its kernels.  (The GPU calls'
 * errors where there is no GPU are test_nogpu.c's.) */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/code.h"
#include "ext_mul.h"
#include "plugin/compilers/nvjitlink.h"
#include "support.h"

static cuplug_session *session;

static void setup(void) { session = t_session(); }
static void teardown(void) { t_api()->session_destroy(session); }

#define CALLING_SIG "void(CPointer(int32), int32, int32)"

static cuplug_code bytes(const char *name, const char *text) {
  return (cuplug_code){.struct_size = sizeof(cuplug_code), .name = name, .data = text,
                       .size = strlen(text)};
}

static cuplug_error *declare(const char *name, const char *sig, const cuplug_code *code,
                             bool cooperative) {
  const cuplug_code *codes[] = {code};
  cuplug_declare_device_args d = {.struct_size = sizeof d,
                                  .registry = t_api()->session_registry(session),
                                  .name = name,
                                  .signature = sig,
                                  .link = code ? codes : NULL,
                                  .num_link = code ? 1 : 0,
                                  .use_cooperative = cooperative};
  return t_api()->declare_device(&d);
}

static cuplug_compile_args kernel_args(const cuplug_module *const *mods, cuplug_output output) {
  return (cuplug_compile_args){.struct_size = sizeof(cuplug_compile_args), .session = session,
                               .modules = mods, .num_modules = 1, .entry = "k",
                               .signature = CALLING_SIG, .kind = CUPLUG_KERNEL,
                               .output = output, .cc_major = 9};
}

static cuplug_artifact_info info_of(const cuplug_artifact *a) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->artifact_info(a, &i));
  return i;
}

static cuplug_part part_of(const cuplug_artifact *a, size_t index) {
  cuplug_part p = {.struct_size = sizeof p};
  T_ASSERT_OK(t_api()->artifact_part(a, index, &p));
  return p;
}

/* ---- code kinds ---- */

START_TEST(kinds_from_suffixes) {
  static const struct {
    const char *name;
    cuplug_code_kind kind;
  } cases[] = {{"a.cu", CUPLUG_CODE_CU},       {"a.ptx", CUPLUG_CODE_PTX},
               {"a.ltoir", CUPLUG_CODE_LTOIR}, {"a.cubin", CUPLUG_CODE_CUBIN},
               {"a.fatbin", CUPLUG_CODE_FATBIN}, {"a.o", CUPLUG_CODE_OBJECT},
               {"lib/a.a", CUPLUG_CODE_ARCHIVE}, {"a.txt", CUPLUG_CODE_AUTO}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_int_eq(cuplug__code_sniff(cases[i].name, NULL, 0), cases[i].kind);
}
END_TEST

START_TEST(kinds_from_contents) {
  unsigned char cubin[20] = {0x7f, 'E', 'L', 'F'}, object[20] = {0x7f, 'E', 'L', 'F'};
  cubin[18] = 190; /* EM_CUDA */
  object[18] = 62; /* EM_X86_64 */
  ck_assert_int_eq(cuplug__code_sniff(NULL, "\xed\x43\x4e\x7f....", 8), CUPLUG_CODE_LTOIR);
  ck_assert_int_eq(cuplug__code_sniff(NULL, "\x50\xed\x55\xba....", 8), CUPLUG_CODE_FATBIN);
  ck_assert_int_eq(cuplug__code_sniff(NULL, "!<arch>\nx", 9), CUPLUG_CODE_ARCHIVE);
  ck_assert_int_eq(cuplug__code_sniff(NULL, cubin, sizeof cubin), CUPLUG_CODE_CUBIN);
  ck_assert_int_eq(cuplug__code_sniff(NULL, object, sizeof object), CUPLUG_CODE_OBJECT);
  static const char ptx[] = "//\n.version 9.0\n.target sm_90\n";
  ck_assert_int_eq(cuplug__code_sniff(NULL, ptx, strlen(ptx)), CUPLUG_CODE_PTX);
  ck_assert_int_eq(cuplug__code_sniff(NULL, t_ext_mul_cu, strlen(t_ext_mul_cu)), CUPLUG_CODE_CU);
  ck_assert_int_eq(cuplug__code_sniff(NULL, "hello", 5), CUPLUG_CODE_AUTO);
  /* the suffix wins over the contents */
  ck_assert_int_eq(cuplug__code_sniff("x.cu", ptx, strlen(ptx)), CUPLUG_CODE_CU);
}
END_TEST

START_TEST(code_errors) {
  cuplug__code out;
  cuplug_code unknown = bytes("blob.bin", "hello");
  T_ASSERT_ERROR(cuplug__code_import(&unknown, 0, &out), CUPLUG_ERR_CODE_KIND,
                 "cannot tell what kind of code blob.bin is: give its kind, or a name ending in "
                 ".cu, .ptx, .ltoir, .cubin, .fatbin, .o or .a");
  cuplug_code missing = {.struct_size = sizeof missing, .path = "/nonexistent/x.cu"};
  T_ASSERT_ERROR(cuplug__code_import(&missing, 0, &out), CUPLUG_ERR_IO,
                 "cannot read /nonexistent/x.cu: No such file or directory");
  cuplug_code nothing = {.struct_size = sizeof nothing};
  T_ASSERT_ERROR(cuplug__code_import(&nothing, 3, &out), CUPLUG_ERR_INVALID_ARGUMENT,
                 "code3 has neither a path nor data");
  cuplug_code empty = {.struct_size = sizeof empty, .name = "e.cu", .data = "", .size = 0};
  T_ASSERT_ERROR(cuplug__code_import(&empty, 0, &out), CUPLUG_ERR_IO, "e.cu is empty");
  cuplug_code bad_kind = bytes("k.cu", t_ext_mul_cu);
  bad_kind.kind = 42;
  T_ASSERT_ERROR(cuplug__code_import(&bad_kind, 0, &out), CUPLUG_ERR_CODE_KIND,
                 "k.cu: code kind 42 is not one");
  cuplug_code old = bytes("k.cu", t_ext_mul_cu);
  old.struct_size = 8;
  T_ASSERT_ERROR(cuplug__code_import(&old, 1, &out), CUPLUG_ERR_INVALID_ARGUMENT,
                 "code 1 has struct_size 8; set it to sizeof(cuplug_code)");
}
END_TEST

/* ---- declare_device ---- */

START_TEST(declare_device_rules) {
  cuplug_code cu = bytes("ext_mul.cu", t_ext_mul_cu);
  T_ASSERT_OK(declare("ext_mul", "int32(int32, int32)", &cu, false));
  T_ASSERT_ERROR(declare("ext_mul", "float32(float32)", NULL, false), CUPLUG_ERR_DUPLICATE,
                 "ext_mul is already declared, as int32(int32, int32)");
  T_ASSERT_ERROR(declare("f", "int32(int32,,)", NULL, false), CUPLUG_ERR_SIGNATURE_SYNTAX,
                 "signature syntax error at position 12 of 'int32(int32,,)': expected a type, "
                 "found ','");
  cuplug_code missing = {.struct_size = sizeof missing, .path = "/nonexistent/g.cu"};
  T_ASSERT_ERROR(declare("g", "int32()", &missing, false), CUPLUG_ERR_IO,
                 "cannot read /nonexistent/g.cu: No such file or directory");
  /* a failed declaration leaves the name free */
  T_ASSERT_OK(declare("g", "int32()", NULL, false));
  cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = NULL, .name = "h",
                                  .signature = "void()"};
  T_ASSERT_ERROR(t_api()->declare_device(&d), CUPLUG_ERR_INVALID_ARGUMENT,
                 "declare_device: registry is NULL");
  d.registry = t_api()->session_registry(session);
  d.abi = 9;
  T_ASSERT_ERROR(t_api()->declare_device(&d), CUPLUG_ERR_OPTION_ABI,
                 "declare_device h: unsupported ABI 9 (numba or c)");
}
END_TEST

/* A registry shared by sessions outlives the caller's handle. */
START_TEST(registry_shared_and_counted) {
  cuplug_registry *r;
  T_ASSERT_OK(t_api()->registry_create(NULL, &r));
  cuplug_session_options o = {.struct_size = sizeof o, .registry = r};
  cuplug_session *a, *b;
  T_ASSERT_OK(t_api()->session_create(&o, &a));
  T_ASSERT_OK(t_api()->session_create(&o, &b));
  t_api()->registry_destroy(r); /* the sessions still hold it */
  ck_assert_ptr_eq(t_api()->session_registry(a), r);
  cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = t_api()->session_registry(a),
                                  .name = "shared", .signature = "void()"};
  T_ASSERT_OK(t_api()->declare_device(&d));
  d.registry = t_api()->session_registry(b);
  T_ASSERT_ERROR(t_api()->declare_device(&d), CUPLUG_ERR_DUPLICATE,
                 "shared is already declared, as void()");
  t_api()->session_destroy(a);
  t_api()->session_destroy(b);
  cuplug_registry_options bad = {.struct_size = sizeof bad, .flags = 0x5};
  T_ASSERT_ERROR(t_api()->registry_create(&bad, &r), CUPLUG_ERR_INVALID_ARGUMENT,
                 "registry_create: unknown flags 0x4");
}
END_TEST

/* ---- compiling with external code ---- */

START_TEST(cubin_links_declared_code) {
  cuplug_code cu = bytes("ext_mul.cu", t_ext_mul_cu);
  T_ASSERT_OK(declare("ext_mul", "int32(int32, int32)", &cu, false));
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  a.flags = CUPLUG_COMPILE_LINKED_PTX;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_artifact_info i = info_of(a.artifact);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_CUBIN);
  ck_assert_uint_eq(i.num_parts, 2);
  ck_assert(t_elf_has_symbol(i.data, i.size, "k"));
  const cuplug_type *sig;
  T_ASSERT_OK(t_api()->type_parse(CALLING_SIG, &sig));
  ck_assert_ptr_eq(i.signature, sig);
  /* with LTO, ext_mul is inlined into the kernel: the linked PTX multiplies */
  cuplug_part ptx = part_of(a.artifact, 1);
  ck_assert_int_eq(ptx.kind, CUPLUG_CODE_PTX);
  T_ASSERT_CONTAINS(ptx.data, ".visible .entry k(");
  T_ASSERT_CONTAINS(ptx.data, "mul.lo.s32");
  ck_assert_ptr_null(strstr(ptx.data, "ext_mul"));
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* NVRTC's warnings on linked .cu code that compiles are the cubin's
 * warning, in numba-cuda's words (its users look for them); no warning
 * where NVRTC said nothing. */
START_TEST(nvrtc_warnings_are_a_warning) {
  static const char warn_cu[] =
      "#warning cuplug-test-warning\n"
      "extern \"C\" __device__ int ext_mul(int* ret, int a, int b) { *ret = a * b; return 0; }\n";
  cuplug_code cu = bytes("warn.cu", warn_cu);
  const cuplug_code *code[] = {&cu};
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  a.link = code;
  a.num_link = 1;
  a.flags = CUPLUG_COMPILE_NO_CACHE;
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_uint_eq(info_of(a.artifact).num_warnings, 1);
  const cuplug_error *w = t_api()->artifact_warning(a.artifact, 0);
  ck_assert_int_eq(t_api()->error_code(w), CUPLUG_WARN_NVRTC_LOG);
  const char *said = t_api()->error_message(w);
  const char *head = "NVRTC log messages whilst compiling warn.cu:\nwarn.cu(1): warning #";
  ck_assert_msg(strncmp(said, head, strlen(head)) == 0, "the warning: %s", said);
  T_ASSERT_CONTAINS(said, "cuplug-test-warning");
  t_api()->artifact_destroy(a.artifact);

  cu = bytes("ext_mul.cu", t_ext_mul_cu);
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_uint_eq(info_of(a.artifact).num_warnings, 0);
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

START_TEST(only_called_declarations_are_linked) {
  cuplug_code cu = bytes("ext_mul.cu", t_ext_mul_cu);
  cuplug_code broken = bytes("broken.cu", "this is not C++\n");
  broken.kind = CUPLUG_CODE_CU;
  T_ASSERT_OK(declare("ext_mul", "int32(int32, int32)", &cu, false));
  T_ASSERT_OK(declare("unused", "int32(int32)", &broken, false));
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  T_ASSERT_OK(t_api()->compile(&a)); /* broken.cu was never compiled */
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

START_TEST(compile_all_lists_the_pieces) {
  cuplug_code cu = bytes("ext_mul.cu", t_ext_mul_cu);
  T_ASSERT_OK(declare("ext_mul", "int32(int32, int32)", &cu, false));
  static const char extra_ptx[] = "//\n.version 9.0\n.target sm_90\n.address_size 64\n";
  cuplug_code extra = bytes("extra.ptx", extra_ptx);
  const cuplug_code *link[] = {&extra};
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_DEFAULT);
  a.link = link;
  a.num_link = 1;
  T_ASSERT_OK(t_api()->compile_all(&a));
  cuplug_artifact_info i = info_of(a.artifact);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_LTOIR); /* compile_all's default */
  ck_assert_uint_eq(i.num_parts, 3);
  cuplug_part own = part_of(a.artifact, 0), mul = part_of(a.artifact, 1),
              ptx = part_of(a.artifact, 2);
  ck_assert_int_eq(own.kind, CUPLUG_CODE_LTOIR);
  ck_assert_str_eq(own.name, "k");
  ck_assert_int_eq(mul.kind, CUPLUG_CODE_LTOIR); /* NVRTC's, with -dlto */
  ck_assert_str_eq(mul.name, "ext_mul.cu");
  ck_assert_mem_eq(mul.data, "\xed\x43\x4e\x7f", 4);
  ck_assert_int_eq(ptx.kind, CUPLUG_CODE_PTX); /* as given */
  ck_assert_str_eq(ptx.data, extra_ptx);
  T_ASSERT_ERROR(t_api()->artifact_part(a.artifact, 3, &own), CUPLUG_ERR_INVALID_ARGUMENT,
                 "artifact_part: index 3, but the artifact holds 3 parts");
  t_api()->artifact_destroy(a.artifact);

  /* PTX output: the .cu comes as PTX too */
  a = kernel_args(mods, CUPLUG_OUTPUT_PTX);
  T_ASSERT_OK(t_api()->compile_all(&a));
  ck_assert_int_eq(part_of(a.artifact, 1).kind, CUPLUG_CODE_PTX);
  T_ASSERT_CONTAINS(part_of(a.artifact, 1).data, ".visible .func  (.param .b32 func_retval0) ext_mul(");
  t_api()->artifact_destroy(a.artifact);
  a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  T_ASSERT_ERROR(t_api()->compile_all(&a), CUPLUG_ERR_OPTION_OUTPUT,
                 "Unsupported output type: 3 (ptx or ltoir)");
}
END_TEST

START_TEST(nvrtc_error_has_its_log) {
  cuplug_code bad = bytes("bad.cu", "extern \"C\" __device__ int ext_mul(int *r, int a, int b) "
                                    "{ *r = a * b return 0; }\n");
  T_ASSERT_OK(declare("ext_mul", "int32(int32, int32)", &bad, false));
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  cuplug_error *e = t_api()->compile(&a);
  ck_assert_int_eq(t_api()->error_code(e), CUPLUG_ERR_NVRTC);
  ck_assert_str_eq(t_api()->error_message(e),
                   "NVRTC failed to compile bad.cu: bad.cu(1): error: expected a \";\"");
  T_ASSERT_CONTAINS(t_api()->error_log(e), "1 error detected in the compilation of \"bad.cu\".");
  t_api()->error_destroy(e);
  ck_assert_ptr_null(a.artifact);
}
END_TEST

#define UNDEFINED_EXT_MUL \
  "nvJitLink failed to link: unresolved symbol 'ext_mul': none of the code linked defines it"

START_TEST(undefined_symbol_is_a_link_error) {
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  cuplug_error *e = t_api()->compile(&a); /* ext_mul declared nowhere */
  ck_assert_ptr_null(a.artifact);
  /* the message names the symbol; nvJitLink's log (ptxas's, after LTO) follows */
  T_ASSERT_CODE(e, CUPLUG_ERR_LINK);
  ck_assert_str_eq(t_api()->error_message(e), UNDEFINED_EXT_MUL);
  T_ASSERT_CONTAINS(t_api()->error_log(e), "Unresolved extern function 'ext_mul'");
  t_api()->error_destroy(e);

  /* without LTO the linker finds it, in other words */
  a.no_lto = 1;
  e = t_api()->compile(&a);
  ck_assert_ptr_null(a.artifact);
  T_ASSERT_CODE(e, CUPLUG_ERR_LINK);
  ck_assert_str_eq(t_api()->error_message(e), UNDEFINED_EXT_MUL);
  T_ASSERT_CONTAINS(t_api()->error_log(e), "Undefined reference to 'ext_mul' in 'k'");
  t_api()->error_destroy(e);

  /* link() of the kernel's LTO-IR alone */
  a = kernel_args(mods, CUPLUG_OUTPUT_LTOIR);
  T_ASSERT_OK(t_api()->compile(&a));
  const cuplug_artifact *arts[] = {a.artifact};
  cuplug_link_args l = {.struct_size = sizeof l, .session = session, .artifacts = arts,
                        .num_artifacts = 1};
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_LINK, UNDEFINED_EXT_MUL);
  ck_assert_ptr_null(l.artifact);
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* Device code alone links to an empty cubin (nvJitLink keeps only kernels
 * and what they call): an error, not a result. */
START_TEST(link_without_a_kernel) {
  static const char twice[] = "define i32 @twice(i32 %x) {\n"
                              "entry:\n"
                              "  %y = add i32 %x, %x\n"
                              "  ret i32 %y\n"
                              "}\n";
  cuplug_module m = {sizeof m, "twice.ll", twice, strlen(twice)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args d = {.struct_size = sizeof d, .session = session, .modules = mods,
                           .num_modules = 1, .entry = "twice", .signature = "int32(int32)",
                           .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_LTOIR,
                           .cc_major = 9};
  T_ASSERT_OK(t_api()->compile(&d));
  const cuplug_artifact *arts[] = {d.artifact};
  cuplug_link_args l = {.struct_size = sizeof l, .session = session, .artifacts = arts,
                        .num_artifacts = 1};
  static const char none[] = "the cubin holds no kernel: nvJitLink keeps only kernels and what "
                             "they call; link the device code with a kernel that calls it";
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_LINK, none);
  ck_assert_ptr_null(l.artifact);
  /* the same as PTX, without LTO */
  t_api()->artifact_destroy(d.artifact);
  d.output = CUPLUG_OUTPUT_PTX;
  T_ASSERT_OK(t_api()->compile(&d));
  arts[0] = d.artifact;
  l.no_lto = 1;
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_LINK, none);
  ck_assert_ptr_null(l.artifact);
  t_api()->artifact_destroy(d.artifact);
}
END_TEST

/* What tells a kernel in a cubin, on bytes that are not one whole. */
START_TEST(cubin_kernel_check) {
  cuplug_artifact *k = t_compile_kernel(session, &t_k_sum, CUPLUG_OUTPUT_CUBIN, 0);
  cuplug_artifact_info i = info_of(k);
  ck_assert(cuplug__cubin_has_kernel(i.data, i.size));
  /* every prefix that ends before the section headers past the first
   * (which is empty, as ELF has it) */
  Elf64_Ehdr eh;
  memcpy(&eh, i.data, sizeof eh);
  size_t first_two = eh.e_shoff + 2 * sizeof(Elf64_Shdr);
  ck_assert_uint_le(first_two, i.size);
  for (size_t n = 0; n < first_two; n += 1 + n / 8)
    ck_assert_msg(!cuplug__cubin_has_kernel(i.data, n), "%zu of %zu bytes", n, i.size);
  ck_assert(!cuplug__cubin_has_kernel("\x7f" "ELF", 4));
  ck_assert(!cuplug__cubin_has_kernel(t_ext_mul_cu, sizeof t_ext_mul_cu));
  t_api()->artifact_destroy(k);
}
END_TEST

START_TEST(declaration_must_match) {
  T_ASSERT_OK(declare("ext_mul", "int32(float32, int32)", NULL, false));
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_PTX);
  T_ASSERT_ERROR(t_api()->compile(&a), CUPLUG_ERR_DECLARATION_MISMATCH,
                 "the IR's declaration of @ext_mul does not match signature 'int32(float32, "
                 "int32)' under the Numba ABI: parameter 1 (argument 0) is i32 in the IR; the "
                 "signature's float32 wants float");
}
END_TEST

START_TEST(cooperative_code_links_cudadevrt) {
  static const char sync_cu[] =
      "#include <cooperative_groups.h>\n"
      "extern \"C\" __device__ int ext_mul(int *r, int a, int b) {\n"
      "  cooperative_groups::this_grid().sync(); *r = a * b; return 0; }\n";
  cuplug_code cu = bytes("sync.cu", sync_cu);
  T_ASSERT_OK(declare("ext_mul", "int32(int32, int32)", &cu, true));
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  T_ASSERT_OK(t_api()->compile(&a));
  ck_assert_uint_eq(info_of(a.artifact).use_cooperative, 1);
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* ---- link() ---- */

/* t_calls_ext_mul_ir compiled to LTO-IR for cc 9.0 (with cc_suffix), and the
 * arguments that link it with ext_mul.cu, keeping the linked PTX. */
typedef struct kernel_link {
  cuplug_module m;
  const cuplug_module *mods[1];
  cuplug_compile_args a;
  cuplug_code cu;
  const cuplug_code *code[1];
  const cuplug_artifact *arts[1];
  cuplug_link_args l;
} kernel_link;

static void kernel_link_init(kernel_link *k, uint32_t cc_suffix) {
  k->m = (cuplug_module){sizeof k->m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  k->mods[0] = &k->m;
  k->a = kernel_args(k->mods, CUPLUG_OUTPUT_LTOIR);
  k->a.cc_suffix = cc_suffix;
  T_ASSERT_OK(t_api()->compile(&k->a));
  k->cu = bytes("ext_mul.cu", t_ext_mul_cu);
  k->code[0] = &k->cu;
  k->arts[0] = k->a.artifact;
  k->l = (cuplug_link_args){.struct_size = sizeof k->l, .session = session, .code = k->code,
                            .num_code = 1, .artifacts = k->arts, .num_artifacts = 1,
                            .want_ptx = 1};
}

START_TEST(link_artifacts_and_code) {
  kernel_link k;
  kernel_link_init(&k, 0);
  cuplug_compile_args a = k.a;
  cuplug_link_args l = k.l;
  T_ASSERT_OK(t_api()->link(&l));
  cuplug_artifact_info i = info_of(l.artifact);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_CUBIN);
  ck_assert_uint_eq(i.cc_major, 9); /* the artifact's */
  ck_assert_int_eq(i.kind, CUPLUG_KERNEL);
  ck_assert_str_eq(i.symbol, "k"); /* its one kernel, for loading */
  ck_assert(t_elf_has_symbol(i.data, i.size, "k"));
  T_ASSERT_CONTAINS(part_of(l.artifact, 1).data, ".visible .entry k(");
  t_api()->artifact_destroy(l.artifact);

  /* LTO-IR cannot be linked without LTO */
  l.no_lto = 1;
  l.want_ptx = 0;
  /* the message names the input nvJitLink refused, then gives its words */
  T_ASSERT_ERROR_PREFIX(t_api()->link(&l), CUPLUG_ERR_LINK, "nvJitLink rejected k (ltoir): ");
  ck_assert_ptr_null(l.artifact);
  l.want_ptx = 1;
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_LINK,
                 "nvJitLink gives the linked PTX only with link-time optimisation");
  cuplug_link_args empty = {.struct_size = sizeof empty, .session = session};
  T_ASSERT_ERROR(t_api()->link(&empty), CUPLUG_ERR_INVALID_ARGUMENT, "link: nothing to link");
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* An arch-specific artifact links for its arch: the .cu by NVRTC, the
 * link by nvJitLink, both for sm_90a. */
START_TEST(link_arch_specific) {
  kernel_link k;
  kernel_link_init(&k, 'a');
  cuplug_compile_args a = k.a;
  cuplug_link_args l = k.l;
  T_ASSERT_OK(t_api()->link(&l));
  cuplug_artifact_info i = info_of(l.artifact);
  ck_assert_uint_eq(i.cc_major, 9);
  ck_assert_uint_eq(i.cc_suffix, 'a');
  T_ASSERT_CONTAINS(part_of(l.artifact, 1).data, "\n.target sm_90a\n");
  t_api()->artifact_destroy(l.artifact);
  /* a suffix needs the cc it belongs to */
  l.cc_suffix = 'a';
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_OPTION_CC,
                 "link: cc_suffix without cc_major (the artifacts' cc brings its own)");
  l.cc_major = 8;
  T_ASSERT_ERROR(t_api()->link(&l), CUPLUG_ERR_OPTION_CC,
                 "arch-specific code (cc_suffix 'a') needs compute capability 9.0 or higher, "
                 "not 8.0");
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

START_TEST(link_ptx_without_lto) {
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_CUBIN);
  a.no_lto = 1; /* own code and the .cu as PTX */
  cuplug_code cu = bytes("ext_mul.cu", t_ext_mul_cu);
  const cuplug_code *code[] = {&cu};
  a.link = code;
  a.num_link = 1;
  a.max_registers = 32;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_artifact_info i = info_of(a.artifact);
  ck_assert(t_elf_has_symbol(i.data, i.size, "k"));
  ck_assert(t_elf_has_symbol(i.data, i.size, "ext_mul")); /* a function of its own, no LTO */
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* ---- NVRTC's include paths ---- */

/* ext_mul with a constant from a header: the header's definition shows in
 * the code as that constant. */
static const char header_cu[] =
    "#include \"cuplug_test_value.h\"\n"
    "extern \"C\" __device__ int ext_mul(int *ret, int a, int b) {\n"
    "  *ret = a * b + CUPLUG_TEST_VALUE; return 0; }\n";

/* NVRTC takes each include path as one option, whatever characters it
 * holds: a folder named "inc<newline>lude" is searched as it is (a
 * newline-separated option string once split it in two). */
START_TEST(include_path_with_a_newline) {
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_LTOIR);
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_code cu = bytes("inc.cu", header_cu);
  const cuplug_code *code[] = {&cu};
  const cuplug_artifact *arts[] = {a.artifact};

  /* the folder lives only while NVRTC reads it: a failed assert below
   * leaves nothing behind in /tmp */
  char root[] = "/tmp/cuplug-inc-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(root));
  char dir[64], header[128];
  snprintf(dir, sizeof dir, "%s/inc\nlude", root);
  snprintf(header, sizeof header, "%s/cuplug_test_value.h", dir);
  bool made = mkdir(dir, 0755) == 0, wrote = false;
  FILE *f = made ? fopen(header, "w") : NULL;
  if (f) {
    wrote = fputs("#define CUPLUG_TEST_VALUE 424242\n", f) >= 0;
    wrote &= fclose(f) == 0;
  }
  const char *paths[] = {dir};
  cuplug_link_args l = {.struct_size = sizeof l, .session = session, .code = code, .num_code = 1,
                        .artifacts = arts, .num_artifacts = 1, .want_ptx = 1,
                        .include_paths = paths, .num_include_paths = 1};
  cuplug_error *linked = t_api()->link(&l);
  /* compile_all to PTX compiles the .cu with the same path */
  cuplug_compile_args all = kernel_args(mods, CUPLUG_OUTPUT_PTX);
  all.link = code;
  all.num_link = 1;
  all.include_paths = paths;
  all.num_include_paths = 1;
  cuplug_error *compiled = t_api()->compile_all(&all);
  bool removed = unlink(header) == 0 && rmdir(dir) == 0;
  ck_assert_int_eq(rmdir(root), 0);
  ck_assert(made && wrote && removed);

  T_ASSERT_OK(linked);
  cuplug_artifact_info i = info_of(l.artifact);
  ck_assert(t_elf_has_symbol(i.data, i.size, "k"));
  /* ext_mul inlined into k: a * b + 424242, the header's constant */
  T_ASSERT_CONTAINS(part_of(l.artifact, 1).data, ", 424242;");
  t_api()->artifact_destroy(l.artifact);
  T_ASSERT_OK(compiled);
  cuplug_part p = part_of(all.artifact, 1);
  ck_assert_str_eq(p.name, "inc.cu");
  ck_assert_int_eq(p.kind, CUPLUG_CODE_PTX);
  T_ASSERT_CONTAINS(p.data, ".visible .func  (.param .b32 func_retval0) ext_mul(");
  T_ASSERT_CONTAINS(p.data, ", 424242;");
  t_api()->artifact_destroy(all.artifact);

  /* without the path the header is not found: the path is what found it */
  l.num_include_paths = 0;
  l.include_paths = NULL;
  cuplug_error *e = t_api()->link(&l);
  ck_assert_ptr_null(l.artifact);
  T_ASSERT_CODE(e, CUPLUG_ERR_NVRTC);
  T_ASSERT_STARTS(t_api()->error_message(e), "NVRTC failed to compile inc.cu: ");
  T_ASSERT_CONTAINS(t_api()->error_message(e), "cuplug_test_value.h");
  t_api()->error_destroy(e);
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* A folder of its own holding one header, `name`, of `text`: written again
 * when the folder is given (*dir not empty). */
static void write_header(char dir[64], const char *name, const char *text) {
  if (!*dir) {
    strcpy(dir, "/tmp/cuplug-hdr-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
  }
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_ge(fputs(text, f), 0);
  ck_assert_int_eq(fclose(f), 0);
}

static void remove_header(const char *dir, const char *name) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  ck_assert_int_eq(unlink(path), 0);
  ck_assert_int_eq(rmdir(dir), 0);
}

/* compile_all to PTX of k with in-memory .cu code and one include path:
 * the .cu's PTX (to free). */
static char *cu_ptx(const char *cu_text, const char *dir) {
  cuplug_module m = {sizeof m, "k.ll", t_calls_ext_mul_ir, strlen(t_calls_ext_mul_ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_code cu = bytes("inc.cu", cu_text);
  const cuplug_code *code[] = {&cu};
  const char *paths[] = {dir};
  cuplug_compile_args a = kernel_args(mods, CUPLUG_OUTPUT_PTX);
  a.link = code;
  a.num_link = 1;
  a.include_paths = paths;
  a.num_include_paths = 1;
  T_ASSERT_OK(t_api()->compile_all(&a));
  char *ptx = strdup(part_of(a.artifact, 1).data);
  t_api()->artifact_destroy(a.artifact);
  return ptx;
}

/* A header that changed is read again, though the .cu that includes it did
 * not: the session's NVRTC results are keyed by the headers too (they once
 * gave the old header's code, which the result cache then kept under the
 * new header's key). */
START_TEST(changed_header_is_compiled_again) {
  char dir[64] = "";
  write_header(dir, "cuplug_test_value.h", "#define CUPLUG_TEST_VALUE 424242\n");
  char *before = cu_ptx(header_cu, dir);
  write_header(dir, "cuplug_test_value.h", "#define CUPLUG_TEST_VALUE 535353\n");
  char *after = cu_ptx(header_cu, dir);
  remove_header(dir, "cuplug_test_value.h");
  T_ASSERT_CONTAINS(before, ", 424242;");
  T_ASSERT_CONTAINS(after, ", 535353;");
  ck_assert_ptr_null(strstr(after, "424242"));
  free(before);
  free(after);
}
END_TEST

/* The caller's include paths come before the toolkit's, as numba-cuda
 * orders them: a header of the caller's that the toolkit also has
 * (numba-cuda's own cuda_fp16.h) is the caller's. */
START_TEST(caller_headers_before_the_toolkits) {
  char dir[64] = "";
  write_header(dir, "cuComplex.h", "#define CUPLUG_TEST_VALUE 777777\n");
  char *ptx = cu_ptx("#include <cuComplex.h>\n"
                     "extern \"C\" __device__ int ext_mul(int *ret, int a, int b) {\n"
                     "  *ret = a * b + CUPLUG_TEST_VALUE; return 0; }\n",
                     dir);
  remove_header(dir, "cuComplex.h");
  T_ASSERT_CONTAINS(ptx, ", 777777;");
  free(ptx);
}
END_TEST

/* ---- link() of several kernels ---- */

static const cuplug_type *sig_of(const t_kernel *k) { return t_type(k->signature); }

/* link() of the artifacts (and code), as a cubin for cc 9.0. */
static cuplug_artifact *link_all(const cuplug_artifact *const *arts, size_t n,
                                 const cuplug_code *const *code, size_t num_code) {
  cuplug_link_args l = {.struct_size = sizeof l, .session = session, .code = code,
                        .num_code = num_code, .artifacts = arts, .num_artifacts = n};
  T_ASSERT_OK(t_api()->link(&l));
  return l.artifact;
}

/* With two kernels no one of them is "the" kernel: the cubin says kernel,
 * with no symbol and no signature (kernel_get then asks for a name). */
START_TEST(link_two_kernels) {
  cuplug_artifact *one = t_compile_kernel(session, &t_k_const, CUPLUG_OUTPUT_LTOIR, 0);
  cuplug_artifact *two = t_compile_kernel(session, &t_k_sum, CUPLUG_OUTPUT_LTOIR, 0);
  const cuplug_artifact *arts[] = {one, two};
  cuplug_artifact *linked = link_all(arts, 2, NULL, 0);
  cuplug_artifact_info i = info_of(linked);
  ck_assert_int_eq(i.output, CUPLUG_OUTPUT_CUBIN);
  ck_assert_int_eq(i.kind, CUPLUG_KERNEL);
  ck_assert_str_eq(i.symbol, "");
  ck_assert_ptr_null(i.signature);
  ck_assert_uint_eq(i.cc_major, 9);
  ck_assert(t_elf_has_symbol(i.data, i.size, "k_const"));
  ck_assert(t_elf_has_symbol(i.data, i.size, "k_sum"));
  t_api()->artifact_destroy(linked);
  t_api()->artifact_destroy(one);
  t_api()->artifact_destroy(two);
}
END_TEST

/* A third kernel keeps it so (the choice does not toggle with the count,
 * nor fall to the last one). */
START_TEST(link_three_kernels) {
  cuplug_artifact *arts[] = {t_compile_kernel(session, &t_k_const, CUPLUG_OUTPUT_LTOIR, 0),
                             t_compile_kernel(session, &t_k_sum, CUPLUG_OUTPUT_LTOIR, 0),
                             t_compile_kernel(session, &t_k_neg, CUPLUG_OUTPUT_LTOIR, 0)};
  cuplug_artifact *linked = link_all((const cuplug_artifact *const *)arts, 3, NULL, 0);
  cuplug_artifact_info i = info_of(linked);
  ck_assert_int_eq(i.kind, CUPLUG_KERNEL);
  ck_assert_str_eq(i.symbol, "");
  ck_assert_ptr_null(i.signature);
  ck_assert(t_elf_has_symbol(i.data, i.size, "k_const"));
  ck_assert(t_elf_has_symbol(i.data, i.size, "k_sum"));
  ck_assert(t_elf_has_symbol(i.data, i.size, "k_neg"));
  t_api()->artifact_destroy(linked);
  for (int k = 0; k < 3; k++) t_api()->artifact_destroy(arts[k]);
}
END_TEST

/* Exactly one kernel among what is linked: it is the cubin's, with its
 * symbol and signature, whatever else comes along (a device function's
 * artifact, before or after it, or CUDA C++). */
START_TEST(link_one_kernel_and_more) {
  static const char twice[] = "define i32 @twice(i32 %x) {\n"
                              "entry:\n"
                              "  %y = add i32 %x, %x\n"
                              "  ret i32 %y\n"
                              "}\n";
  cuplug_module m = {sizeof m, "twice.ll", twice, strlen(twice)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args d = {.struct_size = sizeof d, .session = session, .modules = mods,
                           .num_modules = 1, .entry = "twice", .signature = "int32(int32)",
                           .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_LTOIR,
                           .cc_major = 9};
  T_ASSERT_OK(t_api()->compile(&d));
  ck_assert_int_eq(info_of(d.artifact).kind, CUPLUG_DEVICE_FUNCTION);
  cuplug_artifact *k = t_compile_kernel(session, &t_k_sum, CUPLUG_OUTPUT_LTOIR, 0);

  const cuplug_artifact *after[] = {k, d.artifact}, *before[] = {d.artifact, k};
  const cuplug_artifact *const *orders[] = {after, before};
  for (int o = 0; o < 2; o++) {
    cuplug_artifact *linked = link_all(orders[o], 2, NULL, 0);
    cuplug_artifact_info i = info_of(linked);
    ck_assert_int_eq(i.kind, CUPLUG_KERNEL);
    ck_assert_str_eq(i.symbol, "k_sum");
    ck_assert_ptr_eq(i.signature, sig_of(&t_k_sum));
    t_api()->artifact_destroy(linked);
  }
  cuplug_code cu = bytes("ext_mul.cu", t_ext_mul_cu);
  const cuplug_code *code[] = {&cu};
  const cuplug_artifact *alone[] = {k};
  cuplug_artifact *linked = link_all(alone, 1, code, 1);
  cuplug_artifact_info i = info_of(linked);
  ck_assert_int_eq(i.kind, CUPLUG_KERNEL);
  ck_assert_str_eq(i.symbol, "k_sum");
  ck_assert_ptr_eq(i.signature, sig_of(&t_k_sum));
  t_api()->artifact_destroy(linked);
  t_api()->artifact_destroy(k);
  t_api()->artifact_destroy(d.artifact);
}
END_TEST

Suite *suite_link(void) {
  Suite *s = suite_create("link");
  TCase *tc = t_tcase(s, "code_kinds", 0, setup, teardown, 60);
  tcase_add_test(tc, kinds_from_suffixes);
  tcase_add_test(tc, kinds_from_contents);
  tcase_add_test(tc, code_errors);

  tc = t_tcase(s, "declare_device", 0, setup, teardown, 60);
  tcase_add_test(tc, declare_device_rules);
  tcase_add_test(tc, registry_shared_and_counted);
  tcase_add_test(tc, declaration_must_match);

  tc = t_tcase(s, "external_code", T_TOOLKIT, setup, teardown, 60);
  tcase_add_test(tc, cubin_links_declared_code);
  tcase_add_test(tc, only_called_declarations_are_linked);
  tcase_add_test(tc, cooperative_code_links_cudadevrt);

  /* CUDA C++ compiled, not linked */
  tc = t_tcase(s, "cuda_cpp", T_NVVM | T_NVRTC, setup, teardown, 60);
  tcase_add_test(tc, compile_all_lists_the_pieces);
  tcase_add_test(tc, nvrtc_error_has_its_log);
  tcase_add_test(tc, changed_header_is_compiled_again);
  tcase_add_test(tc, caller_headers_before_the_toolkits);

  tc = t_tcase(s, "undefined_symbol", T_NVVM | T_NVJITLINK, setup, teardown, 60);
  tcase_add_test(tc, undefined_symbol_is_a_link_error);

  tc = t_tcase(s, "no_kernel", T_NVVM | T_NVJITLINK, setup, teardown, 60);
  tcase_add_test(tc, link_without_a_kernel);
  tcase_add_test(tc, cubin_kernel_check);

  tc = t_tcase(s, "link", T_TOOLKIT, setup, teardown, 60);
  tcase_add_test(tc, link_artifacts_and_code);
  tcase_add_test(tc, link_ptx_without_lto);
  tcase_add_test(tc, link_arch_specific);
  tcase_add_test(tc, include_path_with_a_newline);
  tcase_add_test(tc, link_one_kernel_and_more);

  tc = t_tcase(s, "several_kernels", T_NVVM | T_NVJITLINK, setup, teardown, 60);
  tcase_add_test(tc, nvrtc_warnings_are_a_warning);
  tcase_add_test(tc, link_two_kernels);
  tcase_add_test(tc, link_three_kernels);
  return s;
}
