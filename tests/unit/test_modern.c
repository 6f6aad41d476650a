/* test_modern.c - what cuplug does to IR, on an LLVM 22 module
 * (plugin/llvm/modern.h): reading modern text and bitcode (and their
 * errors: newer, truncated, foreign, invalid, unlinkable), the entry and
 * its signature (given and checked, or read from a native kernel), the
 * C-ABI wrapper, the kernel fix-up, the debug exception store, kernel
 * marks and launch bounds, forceinline, linking implementations, and the
 * way out.  numba-cuda's corpus goes through whole, upgraded to opaque
 * pointers as text and as bitcode, and comes out in numba-cuda's shape
 * (compared with its PTX); Triton's kernels come out as they went in. */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "bitcode_of.h"
#include "base/types.h"
#include "lowering/dialect.h"
#include "lowering/lowering.h"
#include "plugin/llvm/bitcode.h"
#include "plugin/llvm/internal.h"
#include "ptxsig.h"
#include "base/error.h"
#include "support.h"

/* ---- helpers ---- */

/* numba-cuda's triple and datalayout */
#define HEAD                                                                     \
  "target triple = \"" CUPLUG__NVPTX_TRIPLE "\"\n"                            \
  "target datalayout = \"" CUPLUG__NVPTX_DATALAYOUT "\"\n"

typedef enum form { AS_TEXT, AS_BITCODE } form;

char *t_bitcode_of_module(LLVMContextRef ctx, LLVMModuleRef mod, size_t *n) {
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(mod);
  *n = LLVMGetBufferSize(bc);
  char *out = malloc(*n);
  memcpy(out, LLVMGetBufferStart(bc), *n);
  LLVMDisposeMemoryBuffer(bc);
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
  return out;
}

/* IR as `llvm-as-22 | llvm-dis-22` (text) or `llvm-as-22` (bitcode) writes
 * it: the same LLVM 22 library, in this process, so that the test needs no
 * LLVM tools (the GPU machine has none).  Free the result. */
static char *upgrade(const char *ir, size_t n, form f, size_t *out_n) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, n, "in.ll");
  LLVMModuleRef mod = NULL;
  char *msg = NULL;
  ck_assert_msg(!LLVMParseIRInContext2(ctx, mb, &mod, &msg), "%s", msg);
  LLVMDisposeMemoryBuffer(mb);
  if (f == AS_TEXT) {
    char *s = LLVMPrintModuleToString(mod);
    *out_n = strlen(s);
    char *out = strdup(s);
    LLVMDisposeMessage(s);
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    return out;
  }
  return t_bitcode_of_module(ctx, mod, out_n);
}

static cuplug_error *read_error(const char *name, const char *bytes, size_t n) {
  cuplug__text t = {name, bytes, n};
  cuplug__modern *m = NULL;
  cuplug_error *e = cuplug__modern_read(&t, 1, false, &m);
  ck_assert_ptr_null(m);
  return e;
}

static cuplug__modern *read_bytes(const char *name, const char *bytes, size_t n) {
  cuplug__text t = {name, bytes, n};
  cuplug__modern *m = NULL;
  T_ASSERT_OK(cuplug__modern_read(&t, 1, false, &m));
  return m;
}

static cuplug__modern *read_text(const char *text) {
  return read_bytes("m.ll", text, strlen(text));
}

static const cuplug_type *sig(const char *text) {
  const cuplug_type *t = NULL;
  T_ASSERT_OK(t_api()->type_parse(text, &t));
  return t;
}

static void assert_valid(cuplug__modern *m) {
  char *msg = NULL;
  ck_assert_msg(!LLVMVerifyModule(m->mod, LLVMReturnStatusAction, &msg), "%s", msg);
  LLVMDisposeMessage(msg);
}

/* A function as LLVM prints it (free the result). */
static char *fn_text(cuplug__modern *m, const char *name) {
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, name);
  ck_assert_msg(fn != NULL, "no function @%s", name);
  char *s = LLVMPrintValueToString(fn);
  char *out = strdup(s);
  LLVMDisposeMessage(s);
  return out;
}

static char *module_text(cuplug__modern *m) {
  char *text;
  size_t n;
  T_ASSERT_OK(cuplug__modern_text(m, &text, &n));
  ck_assert_uint_eq(n, strlen(text));
  return text;
}

static const char *string_attr(LLVMValueRef fn, const char *key) {
  LLVMAttributeRef a =
      LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, (unsigned)strlen(key));
  unsigned len;
  return a ? LLVMGetStringAttributeValue(a, &len) : NULL;
}

static bool has_attr(LLVMValueRef fn, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* Is fn an element of @llvm.used? */
static bool in_used(cuplug__modern *m, LLVMValueRef fn) {
  LLVMValueRef used = LLVMGetNamedGlobal(m->mod, "llvm.used");
  LLVMValueRef init = used ? LLVMGetInitializer(used) : NULL;
  for (int i = 0; init && i < LLVMGetNumOperands(init); i++)
    if (LLVMGetOperand(init, i) == fn) return true;
  return false;
}

static const cuplug__modern_lower_options KERNEL_OPTIONS = {
    .kind = CUPLUG_KERNEL, .entry_abi = CUPLUG_ABI_NUMBA, .abi = CUPLUG_ABI_NUMBA, .entry = "k",
    .symbol = "k"};

/* ---- corpus: numba-cuda's IR, upgraded, lowered to numba-cuda's shape ---- */

/* Bits of a PTX parameter type: ".b32" 32, ".align 4 .b8[8]" 64. */
static unsigned ptx_bits(const char *t) {
  const char *dot = strrchr(t, '.');
  unsigned bits = (unsigned)strtoul(dot + 2, NULL, 10);
  const char *br = strchr(t, '[');
  return br ? bits * (unsigned)strtoul(br + 1, NULL, 10) : bits;
}

/* Bits of an LLVM parameter type as PTX passes it: a .func passes
 * integers narrower than 32 bits as .b32. */
static unsigned llvm_bits(LLVMTypeRef t, bool func) {
  switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: {
      unsigned w = LLVMGetIntTypeWidth(t);
      return func && w < 32 ? 32 : w;
    }
    case LLVMHalfTypeKind:
      return 16;
    case LLVMFloatTypeKind:
      return 32;
    case LLVMDoubleTypeKind:
    case LLVMPointerTypeKind:
      return 64;
    case LLVMStructTypeKind: {
      unsigned bits = 0;
      for (unsigned i = 0; i < LLVMCountStructElementTypes(t); i++)
        bits += llvm_bits(LLVMStructGetTypeAtIndex(t, i), false);
      return bits;
    }
    default:
      ck_abort_msg("no PTX width for this type");
      return 0;
  }
}

/* fn's parameters and return are those of the PTX function `name` (NULL:
 * the first kernel) in the case's expected.ptx: count and widths. */
static void assert_ptx_layout(const t_case *c, LLVMValueRef fn, const char *name) {
  char path[8448];
  snprintf(path, sizeof path, "%.8000s/expected.ptx", c->dir);
  char *ptx = t_read(path, NULL);
  ptxsig ps;
  ck_assert_msg(ptxsig_read(ptx, name, &ps), "%s: no PTX signature", c->name);
  ck_assert(ps.found);
  bool func = name != NULL;
  ck_assert_int_eq(ps.entry, !func);
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  ck_assert_int_eq((int)LLVMCountParams(fn), ps.num_params);
  for (int i = 0; i < ps.num_params; i++)
    ck_assert_msg(llvm_bits(LLVMTypeOf(LLVMGetParam(fn, (unsigned)i)), func) ==
                      ptx_bits(ps.params[i]),
                  "%s: parameter %d is not %s", c->name, i, ps.params[i]);
  bool is_void = LLVMGetTypeKind(LLVMGetReturnType(ft)) == LLVMVoidTypeKind;
  ck_assert_int_eq(is_void, ps.num_returns == 0);
  if (!is_void) ck_assert_uint_eq(llvm_bits(LLVMGetReturnType(ft), true), ptx_bits(ps.ret));
  free(ptx);
}

/* Names the typed text declares, llvm.* aside, in order. */
static size_t typed_declarations(const char *ir, char names[][128], size_t max) {
  size_t n = 0;
  for (const char *p = ir; (p = strstr(p, "\ndeclare ")) && n < max; p++) {
    const char *at = strchr(p, '@');
    size_t skip = at[1] == '"' ? 2 : 1;
    size_t len = strcspn(at + skip, "\"(");
    if (len >= 5 && strncmp(at + skip, "llvm.", 5) == 0) continue;
    snprintf(names[n++], 128, "%.*s", (int)len, at + skip);
  }
  return n;
}

static void assert_device_shape(const t_case *c, cuplug__modern *m) {
  const char *symbol = json_string(c->json, "abi_name");
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, symbol);
  ck_assert_msg(fn && !LLVMIsDeclaration(fn), "%s: no @%s", c->name, symbol);
  ck_assert_int_eq(LLVMGetLinkage(fn), LLVMExternalLinkage);
  ck_assert_uint_eq(LLVMGetFunctionCallConv(fn), LLVMCCallConv);
  LLVMValueRef entry = LLVMGetNamedFunction(m->mod, json_string(c->json, "entry"));
  ck_assert_int_eq(LLVMGetLinkage(entry), LLVMLinkOnceODRLinkage);
  assert_ptx_layout(c, fn, symbol);
}

/* A kernel as numba-cuda makes it: ptx_kernel, void, the slot gone, every
 * return `ret void`, no noinline, in @llvm.used; and with debug, each
 * return after a call to the exception helper, whose globals are there. */
static void assert_kernel_shape(const t_case *c, cuplug__modern *m, bool debug) {
  const char *entry = json_string(c->json, "entry");
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, entry);
  ck_assert_uint_eq(LLVMGetFunctionCallConv(fn), LLVMPTXKernelCallConv);
  ck_assert(!has_attr(fn, "noinline"));
  ck_assert(in_used(m, fn));
  assert_ptx_layout(c, fn, NULL);
  char name[1024];
  snprintf(name, sizeof name, "%s__exc_helper__", entry);
  LLVMValueRef helper = LLVMGetNamedFunction(m->mod, name);
  ck_assert_int_eq(helper != NULL, debug);
  size_t rets = 0;
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (LLVMGetInstructionOpcode(t) != LLVMRet) continue;
    rets++;
    ck_assert_int_eq(LLVMGetNumOperands(t), 0);
    LLVMValueRef before = LLVMGetPreviousInstruction(t);
    if (debug)
      ck_assert(before && LLVMIsACallInst(before) && LLVMGetCalledValue(before) == helper);
  }
  ck_assert_uint_gt(rets, 0);
  static const char *const globals[] = {"__errcode__", "__tidx__", "__tidy__", "__tidz__",
                                        "__ctaidx__", "__ctaidy__", "__ctaidz__"};
  for (size_t i = 0; i < 7; i++) {
    snprintf(name, sizeof name, "%s%s", entry, globals[i]);
    ck_assert_int_eq(LLVMGetNamedGlobal(m->mod, name) != NULL, debug);
  }
}

static void lower_options(const t_case *c, bool debug, cuplug__modern_lower_options *o) {
  memset(o, 0, sizeof *o);
  o->kind = c->kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION;
  o->sig = sig(json_string(c->json, "signature"));
  o->entry_abi = CUPLUG_ABI_NUMBA;
  const char *abi = json_string(c->json, "abi");
  o->abi = c->kernel || (abi && strcmp(abi, "numba") == 0) ? CUPLUG_ABI_NUMBA : CUPLUG_ABI_C;
  o->entry = json_string(c->json, "entry");
  o->symbol = o->abi == CUPLUG_ABI_C ? json_string(c->json, "abi_name") : o->entry;
  const json *opts = json_get(c->json, "options");
  const json *d = opts ? json_get(opts, "debug") : NULL;
  o->debug = debug || (d && d->kind == JSON_BOOL && d->boolean);
}

/* read -> declared -> entry -> lower -> bitcode, and the shape. */
static void lower_case(const t_case *c, form f, bool debug) {
  size_t n;
  char *ir = upgrade(c->ir, c->ir_size, f, &n);
  ck_assert_int_eq(cuplug__ir_dialect(c->ir, c->ir_size), CUPLUG__DIALECT_TYPED);
  ck_assert_int_eq(cuplug__ir_dialect(ir, n),
                   f == AS_TEXT ? CUPLUG__DIALECT_MODERN : CUPLUG__DIALECT_BITCODE);
  if (f == AS_BITCODE) { /* bitcode.c reads LLVM 22's bitcode to its end */
    cuplug__bitcode_info bi;
    cuplug__bitcode_scan(ir, n, &bi);
    ck_assert_msg(bi.walked && !bi.bad_asm && !bi.hidden_body, "%s: bitcode not walked",
                  c->name);
  }
  cuplug__modern *m = read_bytes(c->name, ir, n);

  char want[8][128];
  size_t num_want = typed_declarations(c->ir, want, 8), num;
  const char *const *names;
  T_ASSERT_OK(cuplug__modern_declared(m, &names, &num));
  ck_assert_uint_eq(num, num_want);
  for (size_t i = 0; i < num; i++) ck_assert_str_eq(names[i], want[i]);

  cuplug__modern_lower_options o;
  lower_options(c, debug, &o);
  const cuplug_type *got = NULL;
  bool marked = true;
  T_ASSERT_OK(cuplug__modern_entry(m, o.entry, CUPLUG_ABI_NUMBA, o.sig, &got, &marked));
  ck_assert_ptr_eq(got, o.sig);
  ck_assert(!marked);
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  if (c->kernel)
    assert_kernel_shape(c, m, o.debug);
  else
    assert_device_shape(c, m);

  /* out as bitcode, which reads back with the same shape */
  char *bc;
  size_t bn;
  T_ASSERT_OK(cuplug__modern_bitcode(m, &bc, &bn));
  ck_assert_int_eq(cuplug__ir_dialect(bc, bn), CUPLUG__DIALECT_BITCODE);
  cuplug__modern *again = read_bytes("lowered.bc", bc, bn);
  if (c->kernel)
    assert_kernel_shape(c, again, o.debug);
  else
    assert_device_shape(c, again);
  cuplug__modern_free(again);
  cuplug__modern_free(m);
  free(bc);
  free(ir);
}

START_TEST(modern_corpus_text_and_bitcode) {
  t_case *cases;
  int n = t_cases(&cases);
  ck_assert_int_ge(n, 11);
  for (int i = 0; i < n; i++) {
    lower_case(&cases[i], AS_TEXT, false);
    lower_case(&cases[i], AS_BITCODE, false);
  }
  t_cases_free(cases, n);
}
END_TEST

START_TEST(modern_corpus_debug_kernels) {
  t_case *cases;
  int n = t_cases(&cases);
  int kernels = 0;
  for (int i = 0; i < n; i++) {
    if (!cases[i].kernel) continue;
    kernels++;
    lower_case(&cases[i], AS_TEXT, true);
    lower_case(&cases[i], AS_BITCODE, true);
  }
  ck_assert_int_ge(kernels, 3);
  t_cases_free(cases, n);
}
END_TEST

/* ---- Triton: native kernels, their signatures read from the IR ---- */

static const struct triton {
  const char *name, *sig;
} tritons[] = {
    {"add", "void(CPointer(uint8), CPointer(uint8), CPointer(uint8), int32, CPointer(uint8), "
            "CPointer(uint8))"},
    {"gelu", "void(CPointer(uint8), CPointer(uint8), int32, CPointer(uint8), CPointer(uint8))"},
    {"matmul", "void(CPointer(uint8), CPointer(uint8), CPointer(uint8), int32, int32, int32, "
               "int32, int32, int32, CPointer(uint8), CPointer(uint8))"},
    {"softmax", "void(CPointer(uint8), CPointer(uint8), int32, int32, int32, CPointer(uint8), "
                "CPointer(uint8))"},
};

static cuplug__modern *read_triton(const char *name, form f) {
  char path[256];
  snprintf(path, sizeof path, "triton/fixtures/%s.ll", name);
  size_t n;
  char *ll = t_read(t_path(path), &n);
  ck_assert_int_eq(cuplug__ir_dialect(ll, n), CUPLUG__DIALECT_MODERN);
  size_t bn;
  char *bc = f == AS_BITCODE ? upgrade(ll, n, AS_BITCODE, &bn) : NULL;
  cuplug__modern *m = bc ? read_bytes(path, bc, bn) : read_bytes(path, ll, n);
  free(bc);
  free(ll);
  return m;
}

static cuplug__modern_lower_options native(const char *entry, const cuplug_type *s) {
  return (cuplug__modern_lower_options){.kind = CUPLUG_KERNEL, .sig = s,
                                        .entry_abi = CUPLUG_ABI_C, .abi = CUPLUG_ABI_C,
                                        .entry = entry, .symbol = entry};
}

static void drop_blank_lines(char *text) {
  char *w = text;
  for (const char *r = text; *r; r++)
    if (!(*r == '\n' && (r == text || r[-1] == '\n'))) *w++ = *r;
  *w = '\0';
}

/* Triton's kernels come out as they went in, but for their place in
 * @llvm.used. */
START_TEST(modern_triton_native_unchanged) {
  for (size_t i = 0; i < sizeof tritons / sizeof tritons[0]; i++) {
    for (form f = AS_TEXT; f <= AS_BITCODE; f++) {
      cuplug__modern *m = read_triton(tritons[i].name, f);
      char entry[64];
      snprintf(entry, sizeof entry, "%s_kernel", tritons[i].name);
      const cuplug_type *s = NULL;
      bool marked = false;
      T_ASSERT_OK(cuplug__modern_entry(m, entry, CUPLUG_ABI_C, NULL, &s, &marked));
      ck_assert(marked);
      ck_assert_str_eq(s->name, tritons[i].sig);
      char *before = module_text(m);
      cuplug__modern_lower_options o = native(entry, s);
      T_ASSERT_OK(cuplug__modern_lower(m, &o));
      char *after = module_text(m);
      /* the one addition: the kernel in @llvm.used, for LTO links (where
       * it is the first global, the printer adds a blank line after it) */
      char used[256];
      snprintf(used, sizeof used,
               "@llvm.used = appending global [1 x ptr] [ptr @%s], section "
               "\"llvm.metadata\"\n",
               entry);
      char *at = strstr(after, used);
      ck_assert_msg(at != NULL, "no %s", used);
      memmove(at, at + strlen(used), strlen(at + strlen(used)) + 1);
      drop_blank_lines(after);
      drop_blank_lines(before);
      ck_assert_str_eq(after, before);
      free(before);
      free(after);
      cuplug__modern_free(m);
    }
  }
}
END_TEST

/* A signature the host gives a native kernel is checked, its pointers
 * against pointers of any address space (Triton's are global). */
START_TEST(modern_triton_signature_given) {
  cuplug__modern *m = read_triton("add", AS_TEXT);
  const cuplug_type *given = sig("void(CPointer(float32), CPointer(float32), CPointer(float32), "
                                 "int32, CPointer(uint8), CPointer(uint8))");
  const cuplug_type *out = NULL;
  T_ASSERT_OK(cuplug__modern_entry(m, "add_kernel", CUPLUG_ABI_C, given, &out, NULL));
  ck_assert_ptr_eq(out, given);
  T_ASSERT_ERROR(cuplug__modern_entry(m, "add_kernel", CUPLUG_ABI_C,
                                      sig("void(CPointer(float32), CPointer(float32), "
                                          "CPointer(float32), int64, CPointer(uint8), "
                                          "CPointer(uint8))"),
                                      &out, NULL),
                 CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @add_kernel does not match signature 'void(CPointer(float32), "
                 "CPointer(float32), CPointer(float32), int64, CPointer(uint8), "
                 "CPointer(uint8))' under the C ABI: parameter 3 (argument 3, int64) is i32, "
                 "expected i64 (found void (ptr addrspace(1), ptr addrspace(1), "
                 "ptr addrspace(1), i32, ptr addrspace(1), ptr addrspace(1)), expected "
                 "void (float*, float*, float*, i64, i8*, i8*))");
  cuplug__modern_free(m);
  /* a function that is called keeps its address spaces: a call must match */
  m = read_text(HEAD "define i32 @e(ptr %r, ptr addrspace(1) %p) {\n  ret i32 0\n}\n");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "e", CUPLUG_ABI_NUMBA, sig("int32(CPointer(float32))"),
                                      &out, NULL),
                 CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @e does not match signature 'int32(CPointer(float32))' under the Numba "
                 "ABI: parameter 1 (argument 0, CPointer(float32)) is ptr addrspace(1), "
                 "expected ptr (found i32 (ptr, ptr addrspace(1)), expected i32 (i32*, float*))");
  cuplug__modern_free(m);
}
END_TEST

/* A native kernel takes launch bounds and max_registers, and a place in
 * @llvm.used (an LTO link drops a kernel that has none), nothing else. */
START_TEST(modern_triton_launch_bounds_only) {
  cuplug__modern *m = read_triton("add", AS_TEXT);
  static const uint32_t bounds[] = {128, 2, 4};
  cuplug__modern_lower_options o = native("add_kernel", sig(tritons[0].sig));
  o.launch_bounds = bounds;
  o.num_launch_bounds = 3;
  o.max_registers = 64;
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, "add_kernel");
  ck_assert_str_eq(string_attr(fn, "nvvm.maxntid"), "128");
  ck_assert_str_eq(string_attr(fn, "nvvm.minctasm"), "2");
  ck_assert_str_eq(string_attr(fn, "nvvm.maxclusterrank"), "4");
  ck_assert_str_eq(string_attr(fn, "nvvm.maxnreg"), "64");
  ck_assert_str_eq(string_attr(fn, "nvvm.reqntid"), "128"); /* Triton's own stays */
  ck_assert_uint_eq(LLVMGetFunctionCallConv(fn), LLVMPTXKernelCallConv);
  ck_assert(in_used(m, fn));
  cuplug__modern_free(m);
}
END_TEST

/* ---- the C-ABI wrapper ---- */

static cuplug__modern_lower_options device(const char *signature, const char *entry,
                                           const char *symbol, bool forceinline) {
  return (cuplug__modern_lower_options){
      .kind = CUPLUG_DEVICE_FUNCTION, .sig = sig(signature), .entry_abi = CUPLUG_ABI_NUMBA,
      .abi = CUPLUG_ABI_C, .entry = entry, .symbol = symbol, .forceinline = forceinline};
}

/* The wrapper `f` of a Numba-ABI `e` returning via slot type `slot`. */
static char *wrapper_for(const char *signature, const char *params) {
  char text[1024];
  snprintf(text, sizeof text, HEAD "define i32 @e(%s) {\nentry:\n  ret i32 0\n}\n", params);
  cuplug__modern *m = read_text(text);
  cuplug__modern_lower_options o = device(signature, "e", "f", false);
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  char *out = fn_text(m, "f");
  cuplug__modern_free(m);
  return out;
}

START_TEST(modern_cabi_wrapper_per_return_kind) {
  char *out = wrapper_for("int64(int32, int32)", "ptr %r, i32 %x, i32 %y");
  ck_assert_str_eq(out,
                   "define i64 @f(i32 %arg.0, i32 %arg.1) {\n"
                   "entry:\n"
                   "  %ret = alloca i64, align 8\n"
                   "  store i64 0, ptr %ret, align 8\n"
                   "  %status = call i32 @e(ptr %ret, i32 %arg.0, i32 %arg.1)\n"
                   "  %value = load i64, ptr %ret, align 8\n"
                   "  ret i64 %value\n"
                   "}\n");
  free(out);
  out = wrapper_for("boolean(int32)", "ptr %r, i32 %x");
  ck_assert_str_eq(out,
                   "define i8 @f(i32 %arg.0) {\n"
                   "entry:\n"
                   "  %ret = alloca i8, align 1\n"
                   "  store i8 0, ptr %ret, align 1\n"
                   "  %status = call i32 @e(ptr %ret, i32 %arg.0)\n"
                   "  %value = load i8, ptr %ret, align 1\n"
                   "  ret i8 %value\n"
                   "}\n");
  free(out);
  out = wrapper_for("complex64(complex64)", "ptr %r, float %a.0, float %a.1");
  ck_assert_str_eq(out,
                   "define { float, float } @f(float %arg.0, float %arg.1) {\n"
                   "entry:\n"
                   "  %ret = alloca { float, float }, align 8\n"
                   "  store { float, float } zeroinitializer, ptr %ret, align 4\n"
                   "  %status = call i32 @e(ptr %ret, float %arg.0, float %arg.1)\n"
                   "  %value = load { float, float }, ptr %ret, align 4\n"
                   "  ret { float, float } %value\n"
                   "}\n");
  free(out);
  out = wrapper_for("void(float32)", "ptr %r, float %x");
  ck_assert_str_eq(out,
                   "define void @f(float %arg.0) {\n"
                   "entry:\n"
                   "  %ret = alloca ptr, align 8\n"
                   "  store ptr null, ptr %ret, align 8\n"
                   "  %status = call i32 @e(ptr %ret, float %arg.0)\n"
                   "  ret void\n"
                   "}\n");
  free(out);
  out = wrapper_for("float32(float32[::1])",
                    "ptr %r, ptr %a0, ptr %a1, i64 %a2, i64 %a3, ptr %a4, i64 %a5, i64 %a6");
  T_ASSERT_STARTS(out, "define float @f(ptr %arg.0, ptr %arg.1, i64 %arg.2, i64 %arg.3, "
                       "ptr %arg.4, i64 %arg.5, i64 %arg.6) {\n");
  free(out);
}
END_TEST

/* 1.3's types: a record in and out by reference, an omitted argument
 * with no parameter, an opaque one an i8*, a function pointer a ptr */
START_TEST(modern_cabi_wrapper_new_types) {
  char *out = wrapper_for("Record(a: int32 @ 0, b: float64 @ 8, size=16)(Record(a: int32 @ 0, "
                          "b: float64 @ 8, size=16), int32, Omitted(\"3\"), Opaque(\"m\"))",
                          "ptr %r, ptr %rec, i32 %x, ptr %m");
  ck_assert_str_eq(out,
                   "define ptr @f(ptr %arg.0, i32 %arg.1, ptr %arg.2) {\n"
                   "entry:\n"
                   "  %ret = alloca ptr, align 8\n"
                   "  store ptr null, ptr %ret, align 8\n"
                   "  %status = call i32 @e(ptr %ret, ptr %arg.0, i32 %arg.1, ptr %arg.2)\n"
                   "  %value = load ptr, ptr %ret, align 8\n"
                   "  ret ptr %value\n"
                   "}\n");
  free(out);
  out = wrapper_for("bfloat16(CPointer(float64(float64)), bfloat16)", "ptr %r, ptr %f, i16 %h");
  ck_assert_str_eq(out,
                   "define i16 @f(ptr %arg.0, i16 %arg.1) {\n"
                   "entry:\n"
                   "  %ret = alloca i16, align 2\n"
                   "  store i16 0, ptr %ret, align 2\n"
                   "  %status = call i32 @e(ptr %ret, ptr %arg.0, i16 %arg.1)\n"
                   "  %value = load i16, ptr %ret, align 2\n"
                   "  ret i16 %value\n"
                   "}\n");
  free(out);
  /* a function pointer returned: its parameters' '(' is not the first */
  out = wrapper_for("CPointer(float64(float64))(int32)", "ptr %r, i32 %x");
  T_ASSERT_STARTS(out, "define ptr @f(i32 %arg.0) {\n");
  free(out);
}
END_TEST

static const char NUMBA_DEVICE[] =
    HEAD
    "@_ZN08NumbaEnv1fE = common global ptr null\n"
    "define i32 @_ZN1fE(ptr %.ret, i32 %x) noinline optnone {\n"
    "entry:\n"
    "  %t = call i32 @twice(i32 %x)\n"
    "  store i32 %t, ptr %.ret\n"
    "  ret i32 0\n"
    "}\n"
    "define i32 @twice(i32 %v) {\n"
    "  %d = add i32 %v, %v\n"
    "  ret i32 %d\n"
    "}\n"
    "define internal i32 @keep(i32 %v) {\n"
    "  ret i32 %v\n"
    "}\n"
    "declare i32 @ext(i32)\n";

START_TEST(modern_cabi_linkage_env_forceinline) {
  cuplug__modern *m = read_text(NUMBA_DEVICE);
  cuplug__modern_lower_options o = device("int32(int32)", "_ZN1fE", "f_c", true);
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  LLVMValueRef entry = LLVMGetNamedFunction(m->mod, "_ZN1fE");
  LLVMValueRef wrapper = LLVMGetNamedFunction(m->mod, "f_c");
  ck_assert_int_eq(LLVMGetLinkage(entry), LLVMLinkOnceODRLinkage);
  ck_assert_int_eq(LLVMGetLinkage(LLVMGetNamedFunction(m->mod, "twice")), LLVMLinkOnceODRLinkage);
  ck_assert_int_eq(LLVMGetLinkage(LLVMGetNamedFunction(m->mod, "keep")), LLVMInternalLinkage);
  ck_assert_int_eq(LLVMGetLinkage(wrapper), LLVMExternalLinkage);
  ck_assert_int_eq(LLVMGetLinkage(LLVMGetNamedGlobal(m->mod, "_ZN08NumbaEnv1fE")),
                   LLVMInternalLinkage);
  ck_assert(has_attr(entry, "alwaysinline") && !has_attr(entry, "noinline") &&
            !has_attr(entry, "optnone"));
  ck_assert(has_attr(wrapper, "alwaysinline"));
  cuplug__modern_free(m);
}
END_TEST

/* The export takes the entry's name: the entry, and every call of it,
 * moves aside to <entry>.numba. */
START_TEST(modern_cabi_name_of_entry_moves_entry_aside) {
  cuplug__modern *m = read_text(HEAD
                                "define i32 @add(ptr %.ret, i32 %x) {\n"
                                "  store i64 0, ptr %.ret\n"
                                "  ret i32 0\n"
                                "}\n"
                                "define i32 @caller(ptr %.ret) {\n"
                                "  %s = call i32 @add(ptr %.ret, i32 1)\n"
                                "  ret i32 %s\n"
                                "}\n");
  cuplug__modern_lower_options o = device("int64(int32)", "add", "add", false);
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  char *caller = fn_text(m, "caller");
  ck_assert_str_eq(caller,
                   "define linkonce_odr i32 @caller(ptr %.ret) {\n"
                   "  %s = call i32 @add.numba(ptr %.ret, i32 1)\n"
                   "  ret i32 %s\n"
                   "}\n");
  char *add = fn_text(m, "add");
  T_ASSERT_CONTAINS(add, "%status = call i32 @add.numba(ptr %ret, i32 %arg.0)\n");
  ck_assert_int_eq(LLVMGetLinkage(LLVMGetNamedFunction(m->mod, "add.numba")),
                   LLVMLinkOnceODRLinkage);
  free(caller);
  free(add);
  cuplug__modern_free(m);
}
END_TEST

START_TEST(modern_force_inline_device) {
  cuplug__modern *m = read_text(HEAD "define i32 @e(i32 %x) noinline {\n  ret i32 %x\n}\n");
  cuplug__modern_lower_options o = device("int32(int32)", "e", "e", true);
  o.entry_abi = CUPLUG_ABI_C;
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  LLVMValueRef fn = LLVMGetNamedFunction(m->mod, "e");
  ck_assert(has_attr(fn, "alwaysinline") && !has_attr(fn, "noinline"));
  ck_assert_int_eq(LLVMGetLinkage(fn), LLVMExternalLinkage);
  /* and without forceinline, nothing at all */
  cuplug__modern_free(m);
  m = read_text(HEAD "define i32 @e(i32 %x) noinline {\n  ret i32 %x\n}\n");
  char *before = module_text(m);
  o.forceinline = false;
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  char *after = module_text(m);
  ck_assert_str_eq(after, before);
  free(before);
  free(after);
  cuplug__modern_free(m);
}
END_TEST

/* ---- the kernel fix-up ---- */

static const char NUMBA_KERNEL[] =
    HEAD
    "define i32 @k(ptr noalias %.ret, ptr nocapture %a, i64 signext %n) noinline nounwind {\n"
    "entry:\n"
    "  %c = icmp slt i64 %n, 1\n"
    "  br i1 %c, label %exit, label %body\n"
    "body:\n"
    "  store float 0.0, ptr %a\n"
    "  store ptr null, ptr %.ret\n"
    "  ret i32 0\n"
    "exit:\n"
    "  store ptr null, ptr %.ret, align 8\n"
    "  ret i32 1, !note !0\n"
    "}\n"
    "!0 = !{i32 0, i32 2}\n";

START_TEST(modern_kernel_fixup_golden) {
  cuplug__modern *m = read_text(NUMBA_KERNEL);
  cuplug__modern_lower_options o = KERNEL_OPTIONS;
  o.sig = sig("void(CPointer(float32), int64)");
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  char *k = fn_text(m, "k");
  ck_assert_str_eq(k,
                   "; Function Attrs: nounwind\n"
                   "define ptx_kernel void @k(ptr captures(none) %a, i64 signext %n) #0 {\n"
                   "entry:\n"
                   "  %c = icmp slt i64 %n, 1\n"
                   "  br i1 %c, label %exit, label %body\n"
                   "\n"
                   "body:                                             ; preds = %entry\n"
                   "  store float 0.000000e+00, ptr %a, align 4\n"
                   "  ret void\n"
                   "\n"
                   "exit:                                             ; preds = %entry\n"
                   "  ret void, !note !0\n"
                   "}\n");
  ck_assert(in_used(m, LLVMGetNamedFunction(m->mod, "k")));
  char *text = module_text(m);
  T_ASSERT_CONTAINS(text, "@llvm.used = appending global [1 x ptr] [ptr @k], "
                          "section \"llvm.metadata\"\n");
  T_ASSERT_CONTAINS(text, "attributes #0 = { nounwind }\n");
  free(text);
  free(k);
  cuplug__modern_free(m);
}
END_TEST

START_TEST(modern_kernel_launch_bounds_and_max_registers) {
  static const uint32_t bounds[3] = {256, 2, 4};
  static const char *const keys[3] = {"nvvm.maxntid", "nvvm.minctasm", "nvvm.maxclusterrank"};
  static const char *const values[3] = {"256", "2", "4"};
  for (size_t n = 0; n <= 3; n++) {
    cuplug__modern *m = read_text(NUMBA_KERNEL);
    cuplug__modern_lower_options o = KERNEL_OPTIONS;
    o.sig = sig("void(CPointer(float32), int64)");
    o.launch_bounds = bounds;
    o.num_launch_bounds = n;
    o.max_registers = n == 3 ? 40 : 0;
    T_ASSERT_OK(cuplug__modern_lower(m, &o));
    LLVMValueRef k = LLVMGetNamedFunction(m->mod, "k");
    for (size_t i = 0; i < 3; i++) {
      const char *v = string_attr(k, keys[i]);
      if (i < n)
        ck_assert_str_eq(v, values[i]);
      else
        ck_assert_ptr_null(v);
    }
    if (n == 3)
      ck_assert_str_eq(string_attr(k, "nvvm.maxnreg"), "40");
    else
      ck_assert_ptr_null(string_attr(k, "nvvm.maxnreg"));
    cuplug__modern_free(m);
  }
}
END_TEST

/* An @llvm.used the module has grows; another kernel's marks stay. */
START_TEST(modern_kernel_extends_used) {
  cuplug__modern *m = read_text(HEAD
                                "@g = global i32 0\n"
                                "@llvm.used = appending global [1 x ptr] [ptr @g], "
                                "section \"llvm.metadata\"\n"
                                "define i32 @k(ptr %.ret, i32 %x) {\n"
                                "  ret i32 0\n"
                                "}\n");
  cuplug__modern_lower_options o = KERNEL_OPTIONS;
  o.sig = sig("void(int32)");
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  char *text = module_text(m);
  T_ASSERT_CONTAINS(text, "@llvm.used = appending global [2 x ptr] [ptr @g, ptr @k], "
                          "section \"llvm.metadata\"\n");
  free(text);
  cuplug__modern_free(m);
}
END_TEST

/* A C-ABI kernel the IR does not mark is marked, and so are its calls; a
 * returning one is refused. */
START_TEST(modern_kernel_c_entry_marked_with_calls) {
  cuplug__modern *m = read_text(HEAD
                                "define void @k(ptr %a) noinline {\n"
                                "  store float 1.0, ptr %a\n"
                                "  ret void\n"
                                "}\n"
                                "define void @launcher(ptr %a) {\n"
                                "  call void @k(ptr %a)\n"
                                "  ret void\n"
                                "}\n");
  cuplug__modern_lower_options o = native("k", sig("void(CPointer(float32))"));
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  char *k = fn_text(m, "k");
  ck_assert_str_eq(k,
                   "define ptx_kernel void @k(ptr %a) {\n"
                   "  store float 1.000000e+00, ptr %a, align 4\n"
                   "  ret void\n"
                   "}\n");
  char *launcher = fn_text(m, "launcher");
  T_ASSERT_CONTAINS(launcher, "  call ptx_kernel void @k(ptr %a)\n");
  ck_assert(in_used(m, LLVMGetNamedFunction(m->mod, "k")));
  free(k);
  free(launcher);
  cuplug__modern_free(m);

  m = read_text(HEAD "define i32 @k(ptr %a) {\n  ret i32 0\n}\n");
  T_ASSERT_ERROR(cuplug__modern_lower(m, &o), CUPLUG_ERR_IR_UNSUPPORTED,
                 "kernel @k: a C-ABI kernel returns void");
  cuplug__modern_free(m);
}
END_TEST

START_TEST(modern_kernel_fixup_errors) {
  cuplug__modern_lower_options o = KERNEL_OPTIONS;
  o.sig = sig("void(int32)");
  cuplug__modern *m = read_text(HEAD
                                "define i32 @k(ptr %.ret, i32 %x) {\n"
                                "  %v = load ptr, ptr %.ret\n"
                                "  ret i32 0\n"
                                "}\n");
  T_ASSERT_ERROR(cuplug__modern_lower(m, &o), CUPLUG_ERR_IR_UNSUPPORTED,
                 "kernel @k: the return slot is used other than by storing to it: "
                 "%v = load ptr, ptr %.ret, align 8");
  cuplug__modern_free(m);
  m = read_text(HEAD "define void @k(ptr %.ret) {\n  ret void\n}\n");
  T_ASSERT_ERROR(cuplug__modern_lower(m, &o), CUPLUG_ERR_IR_UNSUPPORTED,
                 "kernel @k: a Numba-ABI function returns i32 and takes its return slot "
                 "pointer first");
  cuplug__modern_free(m);
  m = read_text(HEAD
                "define i32 @k(ptr %.ret, i32 %x) {\n  ret i32 0\n}\n"
                "define i32 @c() {\n  %s = call i32 @k(ptr null, i32 1)\n  ret i32 %s\n}\n");
  T_ASSERT_ERROR(cuplug__modern_lower(m, &o), CUPLUG_ERR_IR_UNSUPPORTED,
                 "kernel @k: other code calls it, with its return slot: "
                 "%s = call i32 @k(ptr null, i32 1)");
  cuplug__modern_free(m);
  m = read_text(HEAD "declare i32 @k(ptr, i32)\ndefine void @other() {\n  ret void\n}\n");
  T_ASSERT_ERROR(cuplug__modern_lower(m, &o), CUPLUG_ERR_ENTRY_NOT_FOUND,
                 "entry @k is declared but not defined in the 1 module(s) given; they define "
                 "@other");
  cuplug__modern_free(m);
}
END_TEST

/* ---- the debug exception store ---- */

START_TEST(modern_exception_store_golden) {
  cuplug__modern *m = read_text(HEAD
                                "define i32 @k(ptr %.ret, i32 %x) noinline {\n"
                                "entry:\n"
                                "  %z = icmp eq i32 %x, 0\n"
                                "  br i1 %z, label %fail, label %ok\n"
                                "fail:\n"
                                "  ret i32 1\n"
                                "ok:\n"
                                "  store ptr null, ptr %.ret\n"
                                "  ret i32 0\n"
                                "}\n");
  cuplug__modern_lower_options o = KERNEL_OPTIONS;
  o.sig = sig("void(int32)");
  o.debug = true;
  T_ASSERT_OK(cuplug__modern_lower(m, &o));
  assert_valid(m);
  char *text = module_text(m);
  T_ASSERT_CONTAINS(text,
                    "@k__errcode__ = global i32 0\n"
                    "@k__tidx__ = global i32 0\n"
                    "@k__ctaidx__ = global i32 0\n"
                    "@k__tidy__ = global i32 0\n"
                    "@k__ctaidy__ = global i32 0\n"
                    "@k__tidz__ = global i32 0\n"
                    "@k__ctaidz__ = global i32 0\n");
  free(text);
  char *k = fn_text(m, "k");
  T_ASSERT_CONTAINS(k, "fail:                                             ; preds = %entry\n"
                       "  call void @k__exc_helper__(i32 1)\n"
                       "  ret void\n");
  T_ASSERT_CONTAINS(k, "ok:                                               ; preds = %entry\n"
                       "  call void @k__exc_helper__(i32 0)\n"
                       "  ret void\n");
  char *helper = fn_text(m, "k__exc_helper__");
  ck_assert_str_eq(helper,
                   "define void @k__exc_helper__(i32 %status) {\n"
                   "entry:\n"
                   "  %is_ok = icmp eq i32 %status, 0\n"
                   "  %is_none = icmp eq i32 %status, -2\n"
                   "  %ok = or i1 %is_ok, %is_none\n"
                   "  br i1 %ok, label %done, label %not_ok\n"
                   "\n"
                   "not_ok:                                           ; preds = %entry\n"
                   "  %is_python_exc = icmp eq i32 %status, -1\n"
                   "  br i1 %is_python_exc, label %done, label %store\n"
                   "\n"
                   "store:                                            ; preds = %not_ok\n"
                   "  %xchg = cmpxchg ptr @k__errcode__, i32 0, i32 %status monotonic "
                   "monotonic, align 4\n"
                   "  %changed = extractvalue { i32, i1 } %xchg, 1\n"
                   "  br i1 %changed, label %record, label %done\n"
                   "\n"
                   "record:                                           ; preds = %store\n"
                   "  %tid.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
                   "  store i32 %tid.x, ptr @k__tidx__, align 4\n"
                   "  %tid.y = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
                   "  store i32 %tid.y, ptr @k__tidy__, align 4\n"
                   "  %tid.z = call i32 @llvm.nvvm.read.ptx.sreg.tid.z()\n"
                   "  store i32 %tid.z, ptr @k__tidz__, align 4\n"
                   "  %ctaid.x = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
                   "  store i32 %ctaid.x, ptr @k__ctaidx__, align 4\n"
                   "  %ctaid.y = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()\n"
                   "  store i32 %ctaid.y, ptr @k__ctaidy__, align 4\n"
                   "  %ctaid.z = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.z()\n"
                   "  store i32 %ctaid.z, ptr @k__ctaidz__, align 4\n"
                   "  br label %done\n"
                   "\n"
                   "done:                                             ; preds = %record, "
                   "%store, %not_ok, %entry\n"
                   "  ret void\n"
                   "}\n");
  free(helper);
  free(k);
  cuplug__modern_free(m);
}
END_TEST

START_TEST(modern_exception_store_name_taken) {
  cuplug__modern *m = read_text(HEAD
                                "@k__tidy__ = global i32 5\n"
                                "define i32 @k(ptr %.ret) {\n  ret i32 0\n}\n");
  cuplug__modern_lower_options o = KERNEL_OPTIONS;
  o.sig = sig("void()");
  o.debug = true;
  T_ASSERT_ERROR(cuplug__modern_lower(m, &o), CUPLUG_ERR_IR_UNSUPPORTED,
                 "kernel @k: the IR has a @k__tidy__ already, a name of the debug exception "
                 "store");
  ck_assert_ptr_null(LLVMGetNamedGlobal(m->mod, "k__errcode__"));
  cuplug__modern_free(m);
}
END_TEST

/* The DISubroutineType of fn's subprogram. */
static LLVMMetadataRef subprogram_type(cuplug__modern *m, const char *fn) {
  LLVMMetadataRef sp = LLVMGetSubprogram(LLVMGetNamedFunction(m->mod, fn));
  LLVMValueRef v = LLVMMetadataAsValue(m->ctx, sp);
  LLVMValueRef ops[16];
  ck_assert_uint_le(LLVMGetMDNodeNumOperands(v), 16);
  LLVMGetMDNodeOperands(v, ops);
  LLVMMetadataRef type = LLVMValueAsMetadata(ops[4]); /* DISubprogram: type is operand 4 */
  ck_assert_int_eq(LLVMGetMetadataKind(type), LLVMDISubroutineTypeMetadataKind);
  return type;
}

/* The elements of a subroutine type's list (malloc'd in *out), and their count. */
static unsigned type_list(cuplug__modern *m, LLVMMetadataRef type, LLVMMetadataRef **out) {
  LLVMValueRef v = LLVMMetadataAsValue(m->ctx, type);
  unsigned n = LLVMGetMDNodeNumOperands(v);
  LLVMValueRef ops[16];
  ck_assert_uint_le(n, 16);
  LLVMGetMDNodeOperands(v, ops);
  LLVMValueRef list = NULL;
  for (unsigned i = 0; i < n; i++)
    if (ops[i] && LLVMGetMetadataKind(LLVMValueAsMetadata(ops[i])) == LLVMMDTupleMetadataKind)
      list = ops[i];
  ck_assert_ptr_nonnull(list);
  unsigned k = LLVMGetMDNodeNumOperands(list);
  LLVMValueRef *els = malloc((k + 1) * sizeof *els);
  LLVMGetMDNodeOperands(list, els);
  *out = malloc((k + 1) * sizeof **out);
  for (unsigned i = 0; i < k; i++) (*out)[i] = els[i] ? LLVMValueAsMetadata(els[i]) : NULL;
  free(els);
  return k;
}

/* With debug info (debug or lineinfo), the subprogram's type loses the
 * return slot, in a new node: a type the module shares stays. */
START_TEST(modern_kernel_debug_type_loses_slot) {
  static const char text[] =
      HEAD
      "define i32 @k(ptr %.ret, ptr %a) !dbg !5 {\n"
      "entry:\n"
      "  store ptr null, ptr %.ret, !dbg !11\n"
      "  ret i32 0, !dbg !11\n"
      "}\n"
      "define void @other() !dbg !12 {\n"
      "  ret void\n"
      "}\n"
      "!llvm.dbg.cu = !{!0}\n"
      "!llvm.module.flags = !{!13}\n"
      "!0 = distinct !DICompileUnit(language: DW_LANG_Python, file: !1, producer: \"numba\", "
      "runtimeVersion: 0, emissionKind: FullDebug)\n"
      "!1 = !DIFile(filename: \"k.py\", directory: \"/tmp\")\n"
      "!5 = distinct !DISubprogram(name: \"k\", scope: !1, file: !1, line: 1, type: !6, "
      "spFlags: DISPFlagDefinition, unit: !0)\n"
      "!6 = !DISubroutineType(types: !7)\n"
      "!7 = !{!8, !9, !10}\n"
      "!8 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: null, size: 64)\n"
      "!9 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !10, size: 64)\n"
      "!10 = !DIBasicType(name: \"float32\", size: 32, encoding: DW_ATE_float)\n"
      "!11 = !DILocation(line: 2, column: 1, scope: !5)\n"
      "!12 = distinct !DISubprogram(name: \"other\", scope: !1, file: !1, line: 3, type: !6, "
      "spFlags: DISPFlagDefinition, unit: !0)\n"
      "!13 = !{i32 2, !\"Debug Info Version\", i32 3}\n";
  for (int debug = 0; debug <= 1; debug++) {
    cuplug__modern *m = read_text(text);
    LLVMMetadataRef shared = subprogram_type(m, "other");
    LLVMMetadataRef *was;
    ck_assert_uint_eq(type_list(m, shared, &was), 3);
    cuplug__modern_lower_options o = KERNEL_OPTIONS;
    o.sig = sig("void(CPointer(float32))");
    o.debug = debug;
    T_ASSERT_OK(cuplug__modern_lower(m, &o));
    assert_valid(m);
    LLVMMetadataRef *now;
    LLVMMetadataRef type = subprogram_type(m, "k");
    ck_assert_ptr_ne(type, shared);
    ck_assert_uint_eq(type_list(m, type, &now), 2);
    ck_assert_ptr_eq(now[0], was[1]);
    ck_assert_ptr_eq(now[1], was[2]);
    ck_assert_ptr_eq(subprogram_type(m, "other"), shared);
    LLVMMetadataRef *still;
    ck_assert_uint_eq(type_list(m, shared, &still), 3);
    free(was);
    free(now);
    free(still);
    cuplug__modern_free(m);
  }
}
END_TEST

/* ---- the entry and its signature ---- */

START_TEST(modern_entry_signature_checked) {
  cuplug__modern *m = read_text(HEAD "define i32 @k(ptr %.ret, float %a) {\n  ret i32 0\n}\n");
  const cuplug_type *out = NULL;
  T_ASSERT_OK(cuplug__modern_entry(m, "k", CUPLUG_ABI_NUMBA, sig("void(float32)"), &out, NULL));
  ck_assert_str_eq(out->name, "void(float32)");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "k", CUPLUG_ABI_NUMBA, sig("void(int32)"), &out, NULL),
                 CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @k does not match signature 'void(int32)' under the Numba ABI: "
                 "parameter 1 (argument 0, int32) is float, expected i32 (found "
                 "i32 (ptr, float), expected i32 (i8**, i32))");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "k", CUPLUG_ABI_NUMBA, sig("void(float32, float32)"),
                                      &out, NULL),
                 CUPLUG_ERR_ENTRY_MISMATCH,
                 "entry @k does not match signature 'void(float32, float32)' under the Numba "
                 "ABI: it has 2 parameters, expected 3 (found i32 (ptr, float), expected "
                 "i32 (i8**, float, float))");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "nope", CUPLUG_ABI_NUMBA, sig("void()"), &out, NULL),
                 CUPLUG_ERR_ENTRY_NOT_FOUND,
                 "entry @nope is not defined in the 1 module(s) given; they define @k");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "k", CUPLUG_ABI_C, NULL, &out, NULL),
                 CUPLUG_ERR_INVALID_ARGUMENT,
                 "compile: entry @k needs its signature: only a kernel the IR marks "
                 "(ptx_kernel) has it read from the IR");
  cuplug__modern_free(m);
}
END_TEST

START_TEST(modern_entry_signature_read) {
  cuplug__modern *m = read_text(HEAD
                                "define ptx_kernel void @k(i1 %b, i8 %c, i16 %s, i32 %i, "
                                "i64 %l, half %h, float %f, double %d, ptr %p, "
                                "ptr addrspace(3) %q) {\n  ret void\n}\n"
                                "define ptx_kernel void @v(<2 x float> %x) {\n  ret void\n}\n"
                                "define ptx_kernel void @w(i32 %a, { i32 }) {\n  ret void\n}\n");
  const cuplug_type *out = NULL;
  bool marked = false;
  T_ASSERT_OK(cuplug__modern_entry(m, "k", CUPLUG_ABI_C, NULL, &out, &marked));
  ck_assert(marked);
  ck_assert_str_eq(out->name,
                   "void(bool, int8, int16, int32, int64, float16, float32, float64, "
                   "CPointer(uint8), CPointer(uint8))");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "v", CUPLUG_ABI_C, NULL, &out, NULL),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "the signature of kernel @v cannot be read from its IR: parameter 0 (%x) is "
                 "<2 x float>, which no signature type stands for; give the signature");
  T_ASSERT_ERROR(cuplug__modern_entry(m, "w", CUPLUG_ABI_C, NULL, &out, NULL),
                 CUPLUG_ERR_IR_UNSUPPORTED,
                 "the signature of kernel @w cannot be read from its IR: parameter 1 is "
                 "{ i32 }, which no signature type stands for; give the signature");
  cuplug__modern_free(m);
}
END_TEST

/* ---- reading: errors ---- */

/* The add_i32 case as LLVM 22 bitcode. */
static char *add_bitcode(size_t *n) {
  t_case *cases;
  int num = t_cases(&cases);
  const t_case *c = t_case_named(cases, num, "add_i32");
  char *bc = upgrade(c->ir, c->ir_size, AS_BITCODE, n);
  t_cases_free(cases, num);
  return bc;
}

/* The producer "LLVM22..." of the IDENTIFICATION block says "LLVM23...":
 * its char6 bits found and one changed, as a newer LLVM would write it. */
static void claim_llvm_23(char *bc, size_t n) {
  static const int char6[] = {'L' - 'A' + 26, 'L' - 'A' + 26, 'V' - 'A' + 26,
                              'M' - 'A' + 26, '2' - '0' + 52, '2' - '0' + 52};
  unsigned char *p = (unsigned char *)bc;
  for (size_t bit = 0; bit + 36 <= n * 8; bit++) {
    bool match = true;
    for (int c = 0; c < 6 && match; c++)
      for (int i = 0; i < 6 && match; i++) {
        size_t b = bit + (size_t)(6 * c + i);
        match = ((p[b / 8] >> (b % 8)) & 1) == ((char6[c] >> i) & 1);
      }
    if (!match) continue;
    int three = '3' - '0' + 52;
    for (int i = 0; i < 6; i++) {
      size_t b = bit + 30 + (size_t)i;
      p[b / 8] = (unsigned char)((p[b / 8] & ~(1u << (b % 8))) | (((three >> i) & 1u) << (b % 8)));
    }
    return;
  }
  ck_abort_msg("no LLVM22 producer in the bitcode");
}

/* A function that returns what inline asm with these constraints gives,
 * as LLVM 22 bitcode: made through LLVM's API, which does not check
 * constraints as its readers do. */
static char *asm_bitcode(const char *constraints, size_t *n) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("asm", ctx);
  LLVMSetTarget(mod, CUPLUG__NVPTX_TRIPLE);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMTypeRef fty = LLVMFunctionType(i32, NULL, 0, 0);
  LLVMValueRef f = LLVMAddFunction(mod, "f", fty);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  static const char code[] = "@%p1 mov.u32 $0, 1;"; /* '@' in the code is fine */
  LLVMValueRef asm_value = LLVMGetInlineAsm(fty, (char *)code, sizeof code - 1,
                                            (char *)constraints, strlen(constraints), 1, 0,
                                            LLVMInlineAsmDialectATT, 0);
  LLVMBuildRet(b, LLVMBuildCall2(b, fty, asm_value, NULL, 0, "v"));
  LLVMDisposeBuilder(b);
  return t_bitcode_of_module(ctx, mod, n);
}

/* LLVM 22's bitcode reader hands constraint strings to the same parser as
 * its text reader (modern_asm_constraints_llvm_cannot_read): "@" alone
 * made it throw from a std::string constructor and abort the process. */
START_TEST(modern_asm_constraints_in_bitcode) {
  static const char *const bad[] = {"@", "@=r", "=r,^x", "=r,{r1}@"};
  static const char codes[] = {'@', '@', '^', '@'};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    size_t n;
    char *bc = asm_bitcode(bad[i], &n);
    cuplug__bitcode_info bi;
    cuplug__bitcode_scan(bc, n, &bi);
    ck_assert_msg(bi.walked && bi.bad_asm, "%s: not found", bad[i]);
    char msg[256];
    snprintf(msg, sizeof msg,
             "IR module asm.bc (bitcode): an inline asm constraint string \"%s\" uses '%c', a "
             "kind of constraint NVPTX does not have",
             bad[i], codes[i]);
    T_ASSERT_ERROR(read_error("asm.bc", bc, n), CUPLUG_ERR_IR_UNSUPPORTED, msg);
    free(bc);
  }
  static const char *const good[] = {"=r", "=r,{r1}", "=r,~{memory}"};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    size_t n;
    char *bc = asm_bitcode(good[i], &n);
    cuplug__bitcode_info bi;
    cuplug__bitcode_scan(bc, n, &bi);
    ck_assert_msg(bi.walked && !bi.bad_asm && !bi.hidden_body, "%s", good[i]);
    cuplug__modern_free(read_bytes("asm.bc", bc, n));
    free(bc);
  }
}
END_TEST

/* The same "@", hidden where a reader that decoded less than LLVM does
 * would miss it (a review's crafted files, tests/fuzz/regressions/modern):
 * the strings as a blob's bytes, a character stored as 0x140 (LLVM keeps
 * its low byte), a size and a record code over 32 bits (LLVM keeps 32), a
 * VBR operand of width 0 and of width 1, and a CONSTANTS block whose stated
 * length ends before its END_BLOCK (LLVM reads an entered block to its
 * END_BLOCK).  And what LLVM does not read must not be refused: a
 * CONSTANTS block holding "@" nested in another one, which LLVM steps
 * over; an array of literal elements, which LLVM refuses, is read in
 * linear time.  And a body hidden from the walk is refused. */
START_TEST(modern_asm_constraints_in_crafted_bitcode) {
  static const char *const hidden[] = {
      "bitcode-asm-constraints-in-a-blob",   "bitcode-asm-char-over-255",
      "bitcode-asm-size-over-32-bits",       "bitcode-record-code-over-32-bits",
      "bitcode-abbrev-vbr-width-0",          "bitcode-abbrev-vbr-width-1",
      "bitcode-constants-block-length-short"};
  char path[256];
  for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
    snprintf(path, sizeof path, "fuzz/regressions/modern/%s", hidden[i]);
    size_t n;
    char *bc = t_read(t_path(path), &n);
    T_ASSERT_ERROR(read_error("asm.bc", bc, n), CUPLUG_ERR_IR_UNSUPPORTED,
                   "IR module asm.bc (bitcode): an inline asm constraint string \"@\" uses "
                   "'@', a kind of constraint NVPTX does not have");
    free(bc);
  }
  size_t n;
  cuplug__bitcode_info bi;
  char *bc = t_read(t_path("fuzz/regressions/modern/bitcode-constants-nested-in-constants"), &n);
  cuplug__modern_free(read_bytes("nested.bc", bc, n));
  free(bc);
  /* a function's body where the module's blocks do not show it: inside an
   * unknown block, the module's table pointing at it; a first VSTOFFSET
   * pointing at a hidden table, a second at the real one; a body moved by
   * an entry in a function's own table.  And a file the walk once gave up
   * on (an abbreviation between top-level blocks), which LLVM reads. */
  static const char *const moved[] = {"bitcode-function-body-outside-the-module",
                                      "bitcode-two-symbol-table-offsets",
                                      "bitcode-body-offset-in-a-function-table",
                                      "bitcode-abbreviation-between-blocks"};
  for (size_t i = 0; i < sizeof moved / sizeof moved[0]; i++) {
    snprintf(path, sizeof path, "fuzz/regressions/modern/%s", moved[i]);
    bc = t_read(t_path(path), &n);
    cuplug__bitcode_scan(bc, n, &bi);
    ck_assert_msg(bi.walked && bi.hidden_body, "%s", moved[i]);
    T_ASSERT_ERROR(read_error("hidden.bc", bc, n), CUPLUG_ERR_IR_UNSUPPORTED,
                   "IR module hidden.bc (bitcode): its symbol table places a function's body "
                   "outside the module's blocks, where cuplug cannot check it (LLVM writes no "
                   "such file)");
    free(bc);
  }
  /* not read through: refused, whatever LLVM would make of it */
  bc = t_read(t_path("fuzz/regressions/modern/bitcode-literal-array-elements"), &n);
  cuplug__bitcode_scan(bc, n, &bi);
  ck_assert(!bi.walked && !bi.bad_asm);
  T_ASSERT_ERROR(read_error("arrays.bc", bc, n), CUPLUG_ERR_IR_PARSE,
                 "IR module arrays.bc is malformed bitcode: its blocks do not read through as "
                 "LLVM writes them, and cuplug does not hand such bitcode to LLVM's reader (which "
                 "crashes on some)");
  free(bc);
}
END_TEST

START_TEST(modern_read_newer_bitcode) {
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  ck_assert_uint_eq(major, 22);
  size_t n;
  char *bc = add_bitcode(&n);
  claim_llvm_23(bc, n);
  char msg[512];
  snprintf(msg, sizeof msg,
           "IR module add.bc is bitcode from LLVM 23.%u.%u, newer than the LLVM 22.%u.%u "
           "cuplug reads it with: write it with LLVM 22 or older, or give it as text",
           minor, patch, minor, patch);
  T_ASSERT_ERROR(read_error("add.bc", bc, n), CUPLUG_ERR_IR_VERSION, msg);
  /* the same bytes, wrapped (0x0B17C0DE, version, offset, size, cpu type) */
  char *wrapped = calloc(1, n + 20);
  uint32_t header[5] = {0x0B17C0DEu, 0, 20, (uint32_t)n, 0};
  memcpy(wrapped, header, sizeof header);
  memcpy(wrapped + 20, bc, n);
  ck_assert_int_eq(cuplug__ir_dialect(wrapped, n + 20), CUPLUG__DIALECT_BITCODE);
  T_ASSERT_ERROR(read_error("add.bc", wrapped, n + 20), CUPLUG_ERR_IR_VERSION, msg);
  free(wrapped);
  free(bc);
}
END_TEST

START_TEST(modern_read_truncated_bitcode) {
  size_t n;
  char *bc = add_bitcode(&n);
  cuplug__modern_free(read_bytes("add.bc", bc, n));
  /* cut at every byte: inside a block, inside a block's header, or
   * between blocks (before the module, before the string table LLVM
   * writes after it) */
  static const char *const wheres[] = {"inside a block that runs to byte ",
                                       "inside the header of a block", "before its module",
                                       "before the string table that follows its module"};
  size_t seen[4] = {0, 0, 0, 0};
  for (size_t cut = 4; cut < n; cut++) {
    cuplug_error *e = read_error("add.bc", bc, cut);
    char prefix[128];
    snprintf(prefix, sizeof prefix,
             "IR module add.bc is truncated bitcode: it ends at byte %zu, ", cut);
    T_ASSERT_CODE(e, CUPLUG_ERR_IR_PARSE);
    const char *msg = t_api()->error_message(e);
    T_ASSERT_STARTS(msg, prefix);
    size_t k = 0;
    while (k < 4 && strncmp(msg + strlen(prefix), wheres[k], strlen(wheres[k])) != 0) k++;
    ck_assert_msg(k < 4, "%s", msg);
    if (k == 0)
      ck_assert_uint_gt(strtoul(msg + strlen(prefix) + strlen(wheres[0]), NULL, 10), cut);
    else
      ck_assert_str_eq(msg + strlen(prefix), wheres[k]);
    seen[k]++;
    t_api()->error_destroy(e);
  }
  /* four top-level blocks (IDENTIFICATION, MODULE, SYMTAB, STRTAB), each
   * with an 8-byte header */
  ck_assert_uint_eq(seen[1], 4 * 7);
  ck_assert_uint_eq(seen[2], 2); /* after the magic, after IDENTIFICATION */
  ck_assert_uint_eq(seen[3], 2); /* after the module, after its symbol table */
  ck_assert_uint_eq(seen[0], n - 4 - 4 - 4 * 7);
  free(bc);
}
END_TEST

/* The scan of bitcode's own description (plugin/llvm/bitcode.c) on bytes
 * changed at random: it ends, reads nothing outside them, and says only
 * what holds. */
START_TEST(modern_bitcode_scan_mutations) {
  size_t n;
  char *bc = add_bitcode(&n);
  unsigned char *copy = malloc(n);
  uint64_t state = 0x9E3779B97F4A7C15ull;
  size_t truncated = 0, producers = 0;
  for (int round = 0; round < 4000; round++) {
    memcpy(copy, bc, n);
    for (int flips = 1 + round % 4; flips > 0; flips--) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      copy[4 + (state >> 33) % (n - 4)] ^= (unsigned char)(1u << ((state >> 20) & 7));
    }
    size_t len = round % 3 ? n : 4 + (size_t)(state >> 40) % (n - 4);
    /* a heap block of exactly len bytes: ASan sees any read past it */
    unsigned char *exact = malloc(len);
    memcpy(exact, copy, len);
    cuplug__bitcode_info bi;
    cuplug__bitcode_scan(exact, len, &bi);
    ck_assert(strlen(bi.producer) < sizeof bi.producer);
    if (bi.truncated && bi.needed) ck_assert_uint_gt(bi.needed, len);
    truncated += bi.truncated;
    producers += strncmp(bi.producer, "LLVM", 4) == 0;
    free(exact);
  }
  ck_assert_uint_gt(truncated, 0);
  ck_assert_uint_gt(producers, 0);
  free(copy);
  free(bc);
}
END_TEST

START_TEST(modern_read_foreign_triple) {
  static const char x86[] = "target triple = \"x86_64-unknown-linux-gnu\"\n"
                            "define void @f(ptr %p) {\n  ret void\n}\n";
  T_ASSERT_ERROR(read_error("x86.ll", x86, strlen(x86)), CUPLUG_ERR_IR_UNSUPPORTED,
                 "IR module x86.ll targets x86_64-unknown-linux-gnu: cuplug compiles IR for "
                 "nvptx64-nvidia-cuda or nvptx-nvidia-cuda, or IR that names no target");
  /* the 32-bit triple, and none, are fine */
  cuplug__modern_free(read_text("target triple = \"nvptx-nvidia-cuda\"\n"));
  cuplug__modern_free(read_text("define void @f(ptr %p) {\n  ret void\n}\n"));
}
END_TEST

START_TEST(modern_read_parse_and_verifier_errors) {
  static const char bad[] = HEAD "define void @f(ptr %p) {\n  ret i32\n}\n";
  T_ASSERT_ERROR(read_error("bad.ll", bad, strlen(bad)), CUPLUG_ERR_IR_PARSE,
                 "IR does not parse: bad.ll:5:1: error: expected value token");
  /* text need not end with a NUL: the size says where it ends */
  static const char cut[] = HEAD "define void @f(ptr %p) {\n  ret void\n}\nGARBAGE";
  cuplug__modern_free(read_bytes("cut.ll", cut, strlen(cut) - 7));
  static const char invalid[] = HEAD
      "define i32 @f() {\n"
      "  %a = add i32 %b, 1\n"
      "  %b = add i32 1, 1\n"
      "  ret i32 %a\n"
      "}\n";
  T_ASSERT_ERROR(read_error("invalid.ll", invalid, strlen(invalid)), CUPLUG_ERR_IR_INVALID,
                 "IR of module invalid.ll is not valid: Instruction does not dominate all uses!");
}
END_TEST

/* Debug info whose chains LLVM follows without looking: a !DILocation's
 * inlinedAt locations and a lexical block's scopes.  A cycle hung LLVM's
 * verifier (the fuzzer's find), a link of the wrong kind made it read one
 * node as another; each is refused, named, before the verifier runs. */
#define DBG_META                                                                 \
  "!llvm.module.flags = !{!0}\n"                                                   \
  "!llvm.dbg.cu = !{!1}\n"                                                         \
  "!0 = !{i32 2, !\"Debug Info Version\", i32 3}\n"                                \
  "!1 = distinct !DICompileUnit(language: DW_LANG_C, file: !2, "                   \
  "emissionKind: FullDebug)\n"                                                     \
  "!2 = !DIFile(filename: \"k.py\", directory: \"/\")\n"                           \
  "!3 = !DISubroutineType(types: !{})\n"                                           \
  "!4 = distinct !DISubprogram(name: \"f\", scope: !2, file: !2, line: 1, "        \
  "type: !3, unit: !1, spFlags: DISPFlagDefinition)\n"
#define DBG_HEAD HEAD "define void @f() !dbg !4 {\n  ret void, !dbg !5\n}\n" DBG_META

START_TEST(modern_read_debug_chains) {
  /* chains that end are read, however long */
  static const char nested[] = DBG_HEAD
      "!5 = !DILocation(line: 9, scope: !8, inlinedAt: !9)\n"
      "!6 = distinct !DILexicalBlock(scope: !4, file: !2, line: 2)\n"
      "!7 = distinct !DILexicalBlockFile(scope: !6, file: !2, discriminator: 1)\n"
      "!8 = distinct !DILexicalBlock(scope: !7, file: !2, line: 3)\n"
      "!9 = distinct !DILocation(line: 4, scope: !6, inlinedAt: !10)\n"
      "!10 = distinct !DILocation(line: 5, scope: !4)\n";
  cuplug__modern_free(read_bytes("nested.ll", nested, strlen(nested)));

  /* what LLVM would have hung on or misread: each refused, named */
  static const struct {
    const char *file, *text, *message;
  } broken[] = {
    {"self.ll",
     DBG_HEAD
     "!5 = !DILocation(line: 9, scope: !6)\n"
     "!6 = distinct !DILexicalBlock(scope: !6, file: !2, line: 2)\n",
     "IR of module self.ll is not valid: in the debug info of @f, the scopes of a "
     "!DILexicalBlock (line 2) lead back to it (a cycle of 1), where they must end "
     "at a !DISubprogram"},
    {"blocks.ll",
     DBG_HEAD
     "!5 = !DILocation(line: 9, scope: !6)\n"
     "!6 = distinct !DILexicalBlock(scope: !7, file: !2, line: 2)\n"
     "!7 = distinct !DILexicalBlockFile(scope: !8, file: !2, discriminator: 1)\n"
     "!8 = distinct !DILexicalBlock(scope: !6, file: !2, line: 3)\n",
     "IR of module blocks.ll is not valid: in the debug info of @f, the scopes of a "
     "!DILexicalBlock (line 2) lead back to it (a cycle of 3), where they must end "
     "at a !DISubprogram"},
    {"inlined.ll",
     DBG_HEAD
     "!5 = !DILocation(line: 9, scope: !4, inlinedAt: !6)\n"
     "!6 = distinct !DILocation(line: 7, scope: !4, inlinedAt: !7)\n"
     "!7 = distinct !DILocation(line: 8, scope: !4, inlinedAt: !6)\n",
     "IR of module inlined.ll is not valid: in the debug info of @f, the inlinedAt "
     "locations of a !DILocation (line 7) lead back to it (a cycle of 2), where they "
     "must end"},
    {"at_file.ll",
     DBG_HEAD "!5 = !DILocation(line: 9, scope: !4, inlinedAt: !2)\n",
     "IR of module at_file.ll is not valid: in the debug info of @f, a !DILocation "
     "(line 9) is inlined at a !DIFile, where it must be a !DILocation"},
    /* an inlined-at location's scope: the verifier trusted it */
    {"at_scope.ll",
     DBG_HEAD
     "!5 = !DILocation(line: 9, scope: !4, inlinedAt: !6)\n"
     "!6 = distinct !DILocation(line: 7, scope: !3)\n",
     "IR of module at_scope.ll is not valid: in the debug info of @f, the scope of "
     "a !DILocation (line 7) is a !DISubroutineType, where it must be a "
     "!DISubprogram, !DILexicalBlock or !DILexicalBlockFile"},
    {"in_file.ll",
     DBG_HEAD
     "!5 = !DILocation(line: 9, scope: !6)\n"
     "!6 = distinct !DILexicalBlock(scope: !2, file: !2, line: 2)\n",
     "IR of module in_file.ll is not valid: in the debug info of @f, the scope of a "
     "!DILexicalBlock (line 2) is a !DIFile, where it must be a !DISubprogram, "
     "!DILexicalBlock or !DILexicalBlockFile"},
    /* reached only through a debug record's variable */
    {"record.ll",
     HEAD
     "define void @f(i32 %x) !dbg !4 {\n"
     "    #dbg_value(i32 %x, !6, !DIExpression(), !5)\n"
     "  ret void, !dbg !5\n"
     "}\n" DBG_META
     "!5 = !DILocation(line: 2, scope: !4)\n"
     "!6 = !DILocalVariable(name: \"x\", scope: !7, file: !2, line: 2, type: !8)\n"
     "!7 = distinct !DILexicalBlock(scope: !7, file: !2, line: 6)\n"
     "!8 = !DIBasicType(name: \"int32\", size: 32, encoding: DW_ATE_signed)\n",
     "IR of module record.ll is not valid: in the debug info of @f, the scopes of a "
     "!DILexicalBlock (line 6) lead back to it (a cycle of 1), where they must end "
     "at a !DISubprogram"},
    /* reached from the module's named metadata only */
    {"named.ll",
     HEAD
     "define void @f() {\n  ret void\n}\n"
     "!stray = !{!0}\n"
     "!0 = distinct !DILocation(line: 4, scope: !1, inlinedAt: !0)\n"
     "!1 = distinct !DISubprogram(name: \"h\", spFlags: 0)\n",
     "IR of module named.ll is not valid: in the module's debug info, the inlinedAt "
     "locations of a !DILocation (line 4) lead back to it (a cycle of 1), where "
     "they must end"},
  };
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
    T_ASSERT_ERROR(read_error(broken[i].file, broken[i].text, strlen(broken[i].text)),
                   CUPLUG_ERR_IR_INVALID, broken[i].message);
}
END_TEST

/* Modules are linked: a function defined twice does not link, named. */
START_TEST(modern_read_links_modules) {
  static const char a[] = HEAD "declare i32 @g(i32)\n"
                               "define i32 @f(i32 %x) {\n  %y = call i32 @g(i32 %x)\n"
                               "  ret i32 %y\n}\n";
  static const char b[] = HEAD "define i32 @g(i32 %x) {\n  ret i32 %x\n}\n";
  cuplug__text two[] = {{"a.ll", a, strlen(a)}, {"b.ll", b, strlen(b)}};
  cuplug__modern *m = NULL;
  T_ASSERT_OK(cuplug__modern_read(two, 2, false, &m));
  const char *const *names;
  size_t num;
  T_ASSERT_OK(cuplug__modern_declared(m, &names, &num));
  ck_assert_uint_eq(num, 0);
  ck_assert(!LLVMIsDeclaration(LLVMGetNamedFunction(m->mod, "g")));
  cuplug__modern_free(m);
  cuplug__text again[] = {{"b.ll", b, strlen(b)}, {"b2.ll", b, strlen(b)}};
  T_ASSERT_ERROR(cuplug__modern_read(again, 2, false, &m), CUPLUG_ERR_IR_INVALID,
                 "IR module b2.ll does not link with the modules before it: Linking globals "
                 "named 'g': symbol multiply defined!");
  ck_assert_ptr_null(m);
}
END_TEST

/* ---- linking implementations, libdevice, the way out ---- */

START_TEST(modern_link_implementations) {
  cuplug__modern *m = read_text(HEAD
                                "declare i32 @impl(i32)\n"
                                "declare double @___numba_atomic_double_add(ptr, double)\n"
                                "declare float @__nv_sinf(float)\n"
                                "define i32 @f(ptr %p, i32 %x) {\n"
                                "  %a = call double @___numba_atomic_double_add(ptr %p, "
                                "double 1.0)\n"
                                "  %s = call float @__nv_sinf(float 1.0)\n"
                                "  %y = call i32 @impl(i32 %x)\n"
                                "  ret i32 %y\n"
                                "}\n");
  const char *const *names;
  size_t num;
  T_ASSERT_OK(cuplug__modern_declared(m, &names, &num));
  ck_assert_uint_eq(num, 3);
  ck_assert_str_eq(names[0], "impl");
  ck_assert_str_eq(names[1], "___numba_atomic_double_add");
  ck_assert_str_eq(names[2], "__nv_sinf");
  ck_assert(cuplug__modern_uses_libdevice(m));

  /* a registered implementation's NVVM typed text */
  static const char impl[] = "define i32 @impl(i32 %x) {\n"
                             "  %y = call i32 @helper(i32 %x)\n  ret i32 %y\n}\n"
                             "define internal i32 @helper(i32 %x) {\n  ret i32 %x\n}\n";
  cuplug__text t = {"impl", impl, strlen(impl)};
  T_ASSERT_OK(cuplug__modern_link(m, &t));
  /* numba's atomic helper, as lowering writes it (internal) */
  cuplug__buf atomic;
  cuplug__buf_init(&atomic);
  ck_assert(cuplug__numba_atomic_definition("___numba_atomic_double_add", &atomic));
  cuplug__text at = {"atomic", atomic.data, atomic.len};
  T_ASSERT_OK(cuplug__modern_link(m, &at));
  cuplug__buf_free(&atomic);
  assert_valid(m);
  ck_assert_int_eq(LLVMGetLinkage(LLVMGetNamedFunction(m->mod, "impl")), LLVMLinkOnceODRLinkage);
  ck_assert_int_eq(LLVMGetLinkage(LLVMGetNamedFunction(m->mod, "helper")), LLVMInternalLinkage);
  LLVMValueRef add = LLVMGetNamedFunction(m->mod, "___numba_atomic_double_add");
  ck_assert(!LLVMIsDeclaration(add));
  ck_assert_int_eq(LLVMGetLinkage(add), LLVMLinkOnceODRLinkage);
  T_ASSERT_OK(cuplug__modern_declared(m, &names, &num));
  ck_assert_uint_eq(num, 1);
  ck_assert_str_eq(names[0], "__nv_sinf");

  /* IR that does not parse is named */
  cuplug__text bad = {"bad impl", "define i32 @x( {", 16};
  T_ASSERT_ERROR_PREFIX(cuplug__modern_link(m, &bad), CUPLUG_ERR_IR_PARSE,
                        "IR does not parse: bad impl:1:");
  cuplug__modern_free(m);

  m = read_text(HEAD "define float @f(float %x) {\n  ret float %x\n}\n");
  ck_assert(!cuplug__modern_uses_libdevice(m));
  cuplug__modern_free(m);
}
END_TEST

START_TEST(modern_text_and_bitcode_out) {
  cuplug__modern *m = read_text(HEAD "define float @f(float %x) {\n  ret float %x\n}\n");
  char *text = module_text(m);
  ck_assert_str_eq(text,
                   "; ModuleID = 'm.ll'\n"
                   "source_filename = \"m.ll\"\n"
                   "target datalayout = \"" CUPLUG__NVPTX_DATALAYOUT "\"\n"
                   "target triple = \"nvptx64-nvidia-cuda\"\n"
                   "\n"
                   "define float @f(float %x) {\n"
                   "  ret float %x\n"
                   "}\n");
  ck_assert_int_eq(cuplug__ir_dialect(text, strlen(text)), CUPLUG__DIALECT_TYPED);
  char *bc;
  size_t n;
  T_ASSERT_OK(cuplug__modern_bitcode(m, &bc, &n));
  ck_assert_int_eq(cuplug__ir_dialect(bc, n), CUPLUG__DIALECT_BITCODE);
  cuplug__modern *again = read_bytes("m.ll", bc, n);
  char *text2 = module_text(again);
  ck_assert_str_eq(text2, text);
  free(text2);
  free(text);
  free(bc);
  cuplug__modern_free(again);
  cuplug__modern_free(m);
}
END_TEST

/* An inline asm constraint of a kind NVPTX does not have ('@' or '^',
 * written as they are or escaped) is refused before LLVM's parser, which
 * reads past the string's end on a malformed one (fuzz_modern found it);
 * '@' in the asm's code (a PTX predicate) or in a {register}, and Triton's
 * constraints, are read as before. */
START_TEST(modern_asm_constraints_llvm_cannot_read) {
  static const char *const bad[] = {"@=r,l", "=r,^x", "\\40=r,l", "=r,{r1}@", "=r,\\5Ex"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char text[1024];
    snprintf(text, sizeof text,
             HEAD "define i32 @f(ptr addrspace(1) %%p) {\n"
                  "  %%v = call i32 asm sideeffect \"@$1 ld.global.b32 $0, [$1];\", \"%s\"(ptr "
                  "addrspace(1) %%p)\n  ret i32 %%v\n}\n",
             bad[i]);
    cuplug_error *e = read_error("m.ll", text, strlen(text));
    ck_assert_msg(e && e->code == CUPLUG_ERR_IR_UNSUPPORTED, "%s: %s", bad[i],
                  e ? e->message : "accepted");
    T_ASSERT_CONTAINS(e->message, "IR module m.ll, line 4: an inline asm constraint string");
    T_ASSERT_CONTAINS(e->message, "a kind of constraint NVPTX does not have");
    cuplug__error_destroy(e);
  }
  static const char good[] =
      HEAD "; asm \"x\", \"@\" in a comment\n"
           "@s = constant [6 x i8] c\"asm ^\\00\"\n"
           "define i32 @f(ptr addrspace(1) %p, i1 %b) {\n"
           "  %v = call i32 asm sideeffect \"@$2 ld.global.b32 $0, [$1];\", \"=r,l,b,~{memory}\"(ptr "
           "addrspace(1) %p, i1 %b)\n  ret i32 %v\n}\n";
  cuplug__modern *m = read_text(good);
  cuplug__modern_free(m);
}
END_TEST

Suite *suite_modern(void) {
  Suite *s = suite_create("modern");
  TCase *tc = t_tcase(s, "corpus", 0, NULL, NULL, 60);
  tcase_add_test(tc, modern_corpus_text_and_bitcode);
  tcase_add_test(tc, modern_corpus_debug_kernels);
  tc = t_tcase(s, "triton", 0, NULL, NULL, 60);
  tcase_add_test(tc, modern_triton_native_unchanged);
  tcase_add_test(tc, modern_triton_signature_given);
  tcase_add_test(tc, modern_triton_launch_bounds_only);
  tc = t_tcase(s, "cabi", 0, NULL, NULL, 0);
  tcase_add_test(tc, modern_cabi_wrapper_per_return_kind);
  tcase_add_test(tc, modern_cabi_wrapper_new_types);
  tcase_add_test(tc, modern_cabi_linkage_env_forceinline);
  tcase_add_test(tc, modern_cabi_name_of_entry_moves_entry_aside);
  tcase_add_test(tc, modern_force_inline_device);
  tc = t_tcase(s, "kernel", 0, NULL, NULL, 0);
  tcase_add_test(tc, modern_kernel_fixup_golden);
  tcase_add_test(tc, modern_kernel_launch_bounds_and_max_registers);
  tcase_add_test(tc, modern_kernel_extends_used);
  tcase_add_test(tc, modern_kernel_c_entry_marked_with_calls);
  tcase_add_test(tc, modern_kernel_fixup_errors);
  tcase_add_test(tc, modern_kernel_debug_type_loses_slot);
  tc = t_tcase(s, "exc_store", 0, NULL, NULL, 0);
  tcase_add_test(tc, modern_exception_store_golden);
  tcase_add_test(tc, modern_exception_store_name_taken);
  tc = t_tcase(s, "entry", 0, NULL, NULL, 0);
  tcase_add_test(tc, modern_entry_signature_checked);
  tcase_add_test(tc, modern_entry_signature_read);
  tc = t_tcase(s, "read", 0, NULL, NULL, 0);
  tcase_add_test(tc, modern_asm_constraints_llvm_cannot_read);
  tcase_add_test(tc, modern_asm_constraints_in_bitcode);
  tcase_add_test(tc, modern_asm_constraints_in_crafted_bitcode);
  tcase_add_test(tc, modern_read_newer_bitcode);
  tcase_add_test(tc, modern_read_truncated_bitcode);
  tcase_add_test(tc, modern_bitcode_scan_mutations);
  tcase_add_test(tc, modern_read_foreign_triple);
  tcase_add_test(tc, modern_read_parse_and_verifier_errors);
  tcase_add_test(tc, modern_read_debug_chains);
  tcase_add_test(tc, modern_read_links_modules);
  tc = t_tcase(s, "link_and_out", 0, NULL, NULL, 0);
  tcase_add_test(tc, modern_link_implementations);
  tcase_add_test(tc, modern_text_and_bitcode_out);
  return s;
}
