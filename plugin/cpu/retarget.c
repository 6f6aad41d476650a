/* retarget.c - NVVM IR made into IR for this CPU.
 *
 * LLVM 22 reads the text the compile hands libNVVM as it is, and modern
 * (opaque-pointer) IR alike; what makes it NVPTX code is edited here, on
 * the parsed module.  First what the CPU cannot run is refused, naming it
 * and its line (CUPLUG_ERR_HOST_UNSUPPORTED): an NVVM intrinsic without a
 * host meaning (wgmma, cp.async, ...), an address space other than those
 * below, inline PTX the runtime does not know.  Then:
 *
 *   triple, layout   the host's; each function's NVPTX "target-cpu" and
 *                    "target-features" go, for the host's
 *   conventions      ptx_kernel and ptx_device (LLVM 22 reads numba's
 *                    "kernel" annotation as ptx_kernel) become the C
 *                    convention, at definitions and calls alike: x86 has
 *                    no code for them
 *   address spaces   kept: x86 treats every address space below 256 as the
 *                    flat one, so global (1), constant (4) and local (5)
 *                    pointers need no edit;
 *   shared memory    each addrspace(3) global becomes a thread-local
 *                    variable, which the JIT emulates: the runtime's
 *                    __emutls_get_address hands each block its own copy
 *                    (an extern one, [0 x T], is the dynamic shared memory)
 *   NVVM intrinsics  @llvm.nvvm.X becomes @__cuplug_nvvm.X, the runtime's
 *                    function (by the name LLVM 22's reader gives X);
 *                    known inline PTX (clock64, nanosleep, ...) a call of
 *                    one
 *   CUDA's library   vprintf, __assertfail and llvm.trap become the
 *                    runtime's (device_lib.c)
 *   externals        a function the IR declares must be the runtime's,
 *                    declare_device's host_function, or one of the
 *                    process's that device_lib.c allows (libm, ...): CUDA
 *                    C++ cannot run here, nor the rest of the C library
 *   the C ABI        the entry, and the host functions it calls, take and
 *                    return the platform's C types (cabi.c)
 *   kernels          a launcher each (launcher.h)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/cpu/retarget.h"
#include "plugin/cpu/device_lib.h"
#include "plugin/cpu/fail.h"
#include "plugin/cpu/launcher.h"
#include "plugin/cpu/runtime.h"
#include "plugin/llvm/spaces.h"

#define NVVM "llvm.nvvm."
#define RUNTIME "__cuplug_nvvm."

/* "module:line" of the first line of the texts holding `needle` (and
 * `also`, when given), for messages; "" when none does. */
static void where(const cuplug__cpu_retarget_args *a, const char *needle, const char *also,
                  char *out, size_t size) {
  *out = 0;
  for (size_t i = 0; i < a->num_sources; i++) {
    const char *t = a->sources[i].text;
    for (const char *hit = strstr(t, needle); hit; hit = strstr(hit + 1, needle)) {
      const char *bol = hit;
      while (bol > t && bol[-1] != '\n') bol--;
      const char *eol = strchr(hit, '\n');
      if (also) {
        const char *x = strstr(bol, also);
        if (!x || (eol && x > eol)) continue;
      }
      size_t line = 1;
      for (const char *p = t; p < bol; p++) line += *p == '\n';
      snprintf(out, size, " (%s:%zu)", a->sources[i].name, line);
      return;
    }
  }
}

/* ---- conventions and target attributes ---- */

static bool ptx_convention(unsigned cc) {
  return cc == LLVMPTXKernelCallConv || cc == LLVMPTXDeviceCallConv;
}

/* A call whose convention is not its callee's is undefined (the optimiser
 * makes it unreachable), so calls change with the functions. */
static void c_conventions(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (ptx_convention(LLVMGetFunctionCallConv(f))) LLVMSetFunctionCallConv(f, LLVMCCallConv);
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
        if ((LLVMIsACallInst(i) || LLVMIsAInvokeInst(i)) &&
            ptx_convention(LLVMGetInstructionCallConv(i)))
          LLVMSetInstructionCallConv(i, LLVMCCallConv);
  }
}

/* clang and Triton name the GPU on every function ("target-cpu"="sm_90",
 * "+ptx88"): the host's code generator would take them for its own. */
static void host_target_attributes(LLVMModuleRef m) {
  static const char *const names[] = {"target-cpu", "target-features", "tune-cpu"};
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, names[i],
                                       (unsigned)strlen(names[i]));
}

/* ---- address spaces ---- */

/* Generic, global, shared, constant and local: the CPU's (see above). */
static bool host_space(unsigned as) { return as <= 5 && as != 2; }

static int space_fail(cuplug__cpu_retarget_args *a, unsigned as, LLVMValueRef where_in,
                      char **msg) {
  char needle[32], at[256];
  snprintf(needle, sizeof needle, "addrspace(%u)", as);
  where(a, needle, NULL, at, sizeof at);
  size_t len;
  return cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                           "@%s uses address space %u, which the host lacks (it has the "
                           "generic 0, global 1, shared 3, constant 4 and local 5)%s",
                           LLVMGetValueName2(where_in, &len), as, at);
}

static int spaces(cuplug__cpu_retarget_args *a, char **msg) {
  LLVMValueRef where_in = NULL;
  unsigned as = cuplug__llvm_foreign_space(a->module, host_space, &where_in);
  return as ? space_fail(a, as, where_in, msg) : 0;
}

/* ---- shared memory ---- */

static void shared_to_tls(LLVMModuleRef m) {
  LLVMValueRef next;
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = next) {
    next = LLVMGetNextGlobal(g);
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != 3) continue;
    LLVMTypeRef vt = LLVMGlobalGetValueType(g);
    size_t len;
    char *name = strdup(LLVMGetValueName2(g, &len));
    LLVMValueRef t = LLVMAddGlobal(m, vt, "");
    LLVMSetInitializer(t, LLVMConstNull(vt));
    LLVMSetLinkage(t, LLVMInternalLinkage);
    LLVMSetThreadLocal(t, 1);
    unsigned align = LLVMGetAlignment(g);
    LLVMSetAlignment(t, align > 16 ? align : 16);
    LLVMReplaceAllUsesWith(g, LLVMConstAddrSpaceCast(t, LLVMTypeOf(g)));
    LLVMDeleteGlobal(g);
    if (name) LLVMSetValueName2(t, name, strlen(name));
    free(name);
  }
}

/* ---- functions the IR declares ---- */

static void strip_fn_attributes(LLVMValueRef f) {
  unsigned n = LLVMGetAttributeCountAtIndex(f, LLVMAttributeFunctionIndex);
  if (!n) return;
  LLVMAttributeRef *attrs = calloc(n, sizeof *attrs);
  if (!attrs) return;
  LLVMGetAttributesAtIndex(f, LLVMAttributeFunctionIndex, attrs);
  for (unsigned i = 0; i < n; i++) {
    if (LLVMIsEnumAttribute(attrs[i]))
      LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                                     LLVMGetEnumAttributeKind(attrs[i]));
  }
  free(attrs);
}

/* What CUDA's limits say of each special register: as NVPTX's own
 * NVVMIntrRange pass, a range on every read.  It lets the optimiser see
 * that a global index is not negative, so numba's wraparound of negative
 * indices folds away and the row loop's addresses become affine (which the
 * vectoriser needs). */
static void add_range(LLVMValueRef f, const char *sreg) {
  static const struct {
    const char *name;
    unsigned long long lo, hi; /* [lo, hi) */
  } ranges[] = {{"tid.x", 0, 1024},     {"tid.y", 0, 1024},       {"tid.z", 0, 64},
                {"ntid.x", 1, 1025},    {"ntid.y", 1, 1025},      {"ntid.z", 1, 65},
                {"ctaid.x", 0, 0x7fffffff}, {"ctaid.y", 0, 65535}, {"ctaid.z", 0, 65535},
                {"nctaid.x", 1, 0x80000000ull}, {"nctaid.y", 1, 65536}, {"nctaid.z", 1, 65536},
                {"laneid", 0, 32},      {"warpsize", 32, 33}};
  for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
    if (strcmp(ranges[i].name, sreg) != 0) continue;
    LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(f));
    LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
    LLVMMetadataRef bounds[2] = {LLVMValueAsMetadata(LLVMConstInt(i32, ranges[i].lo, 0)),
                                 LLVMValueAsMetadata(LLVMConstInt(i32, ranges[i].hi, 0))};
    LLVMValueRef range = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, bounds, 2));
    unsigned kind = LLVMGetMDKindIDInContext(c, "range", 5);
    for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u)) {
      LLVMValueRef user = LLVMGetUser(u);
      if (LLVMIsACallInst(user) && LLVMGetCalledValue(user) == f)
        LLVMSetMetadata(user, kind, range);
    }
  }
}

static int declarations(cuplug__cpu_retarget_args *a, char **msg) {
  LLVMModuleRef m = a->module;
  for (LLVMValueRef f = LLVMGetFirstFunction(m), next; f; f = next) {
    next = LLVMGetNextFunction(f);
    if (!LLVMIsDeclaration(f)) continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    const char *cuda = cuplug__cpu_device_function(name); /* vprintf, __assertfail, llvm.trap */
    if (cuda) {
      LLVMValueRef same = LLVMGetNamedFunction(m, cuda); /* llvm.trap and llvm.debugtrap */
      if (same) {
        LLVMReplaceAllUsesWith(f, same); /* a call keeps its own function type */
        LLVMDeleteFunction(f);
        continue;
      }
      strip_fn_attributes(f); /* an intrinsic's or a guess: these leave the kernel */
      LLVMSetValueName2(f, cuda, strlen(cuda));
      continue;
    }
    if (strncmp(name, NVVM, strlen(NVVM)) == 0) {
      const char *op = name + strlen(NVVM);
      if (!cuplug__cpu_runtime_has(op)) {
        char at[256];
        where(a, name, "call", at, sizeof at);
        return cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                                 "the NVVM intrinsic @%s has no host equivalent%s", name, at);
      }
      if (cuplug__cpu_runtime_collective(op)) a->uses_collectives = true;
      /* A special register keeps its attributes (it reads no memory, so
       * reads are shared); the rest lose theirs, for they switch threads. */
      if (strncmp(op, "read.ptx.sreg.", 14) != 0) strip_fn_attributes(f);
      else add_range(f, op + 14);
      char *renamed = NULL;
      if (asprintf(&renamed, RUNTIME "%s", op) < 0)
        return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
      LLVMSetValueName2(f, renamed, strlen(renamed));
      free(renamed);
      continue;
    }
    if (strncmp(name, "llvm.", 5) == 0) {
      /* LLVM's generic intrinsics it lowers for any target; another
       * target's would stop its code generator (and the host) cold */
      static const char *const targets[] = {"aarch64.", "amdgcn.", "arm.",   "bpf.",  "dx.",
                                            "hexagon.", "loongarch.", "mips.", "ppc.", "r600.",
                                            "riscv.",  "s390.",  "spv.",   "ve.",   "wasm.",
                                            "x86.",    "xcore."};
      for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        if (strncmp(name + 5, targets[t], strlen(targets[t])) != 0) continue;
        char at[256];
        where(a, name, "call", at, sizeof at);
        return cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                                 "@%s is an intrinsic of another target%s", name, at);
      }
      continue;
    }
    if (strncmp(name, RUNTIME, strlen(RUNTIME)) == 0) continue;
    bool provided = false; /* declare_device's host_function */
    for (size_t i = 0; i < a->num_externs && !provided; i++)
      provided = strcmp(name, a->externs[i]) == 0;
    if (provided) continue;
    bool in_process = dlsym(RTLD_DEFAULT, name) != NULL;
    if (in_process && cuplug__cpu_process_may_call(name)) continue; /* libm, ... */
    char at[256];
    where(a, name, "call", at, sizeof at);
    if (in_process)
      return cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                               "the IR calls @%s, which device code may not call on the host "
                               "(of the host's C library it may call libm's functions, the "
                               "mem* functions, malloc and free)%s",
                               name, at);
    return cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                             "the IR calls @%s, which has no host implementation (CUDA C++ "
                             "cannot run on the host: declare_device's host_function gives "
                             "one)%s",
                             name, at);
  }
  return 0;
}

/* ---- inline PTX ---- */

/* The assembly text of an inline-asm callee: printed, it reads
 * `ptr asm sideeffect "mov.u64 $0, %clock64;", "=l"`. */
static char *asm_text(LLVMValueRef callee) {
  char *printed = LLVMPrintValueToString(callee);
  char *q = strchr(printed, '"');
  char *text = NULL;
  if (q) {
    char *end = strchr(q + 1, '"');
    if (end) text = strndup(q + 1, (size_t)(end - q - 1));
  }
  LLVMDisposeMessage(printed);
  return text;
}

static int replace_asm(cuplug__cpu_retarget_args *a, LLVMValueRef call, LLVMBuilderRef b,
                       char **msg) {
  char *text = asm_text(LLVMGetCalledValue(call));
  const char *fn = text ? cuplug__cpu_runtime_asm(text) : NULL;
  if (!fn) {
    char at[256];
    where(a, text ? text : "asm", "asm", at, sizeof at);
    int rc = cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                               "inline PTX assembly \"%s\" has no host equivalent%s",
                               text ? text : "?", at);
    free(text);
    return rc;
  }
  unsigned n = (unsigned)LLVMGetNumArgOperands(call);
  LLVMValueRef args[8];
  if (n > sizeof args / sizeof args[0]) {
    /* the known texts take few operands: the same text with more is not it */
    int rc = cuplug__cpu_fail(msg, CUPLUG_ERR_HOST_UNSUPPORTED,
                              "inline PTX assembly \"%s\" with %u operands has no host "
                              "equivalent",
                              text, n);
    free(text);
    return rc;
  }
  free(text);
  LLVMTypeRef fty = LLVMGetCalledFunctionType(call);
  LLVMValueRef target = LLVMGetNamedFunction(a->module, fn);
  if (!target) target = LLVMAddFunction(a->module, fn, fty);
  for (unsigned i = 0; i < n; i++) args[i] = LLVMGetOperand(call, i);
  LLVMPositionBuilderBefore(b, call);
  LLVMValueRef repl = LLVMBuildCall2(b, fty, target, args, n, "");
  if (LLVMGetTypeKind(LLVMGetReturnType(fty)) != LLVMVoidTypeKind)
    LLVMReplaceAllUsesWith(call, repl);
  LLVMInstructionEraseFromParent(call);
  return 0;
}

static int inline_asm(cuplug__cpu_retarget_args *a, char **msg) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(a->module));
  int rc = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(a->module); f && !rc; f = LLVMGetNextFunction(f)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !rc;
         bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !rc; i = next) {
        next = LLVMGetNextInstruction(i);
        if (LLVMIsACallInst(i) && LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
          rc = replace_asm(a, i, b, msg);
      }
    }
  }
  LLVMDisposeBuilder(b);
  return rc;
}

/* ---- kernels: a launcher each ---- */

static int launcher(cuplug__cpu_retarget_args *a, const char *prefix, size_t k, char **msg);

/* Bytes of a parameter's value (numba passes scalars and pointers), 0 for
 * another type. */
static uint64_t scalar_size(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: return (LLVMGetIntTypeWidth(t) + 7) / 8;
    case LLVMHalfTypeKind: return 2;
    case LLVMFloatTypeKind: return 4;
    case LLVMDoubleTypeKind: return 8;
    case LLVMPointerTypeKind: return 8;
    default: return 0;
  }
}

static int launchers(cuplug__cpu_retarget_args *a, char **msg) {
  int rc = 0;
  for (size_t k = 0; k < a->num_kernels && !rc; k++) {
    rc = launcher(a, CUPLUG__CPU_LAUNCHER, k, msg);
    /* the row launcher (rows.c) where threads never wait on each other */
    if (!rc && !a->uses_collectives) rc = launcher(a, CUPLUG__CPU_ROW, k, msg);
    /* called by its launchers only: the inliner may take it into both */
    if (!rc) LLVMSetLinkage(LLVMGetNamedFunction(a->module, a->kernels[k]), LLVMInternalLinkage);
  }
  return rc;
}

/* The kernel's arguments, read from the packed parameters (the launcher's
 * one argument: an array of pointers, one per parameter, as
 * cuLaunchKernel takes them). */
static void load_args(LLVMBuilderRef b, LLVMValueRef kernel, LLVMValueRef params,
                      const LLVMTypeRef *types, unsigned n, LLVMValueRef *args) {
  LLVMContextRef c = LLVMGetModuleContext(LLVMGetGlobalParent(kernel));
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c);
  /* The packed parameters do not change while the grid runs: saying so
   * lets the optimiser load them once per row, not once per thread (the
   * kernel's stores might otherwise alias them). */
  /* ... and that they can be read anywhere (each slot points at a value of
   * its type, aligned as C aligns it), so that the loads leave the branch
   * of a bounds check and the loop. */
  unsigned invariant = LLVMGetMDKindIDInContext(c, "invariant.load", 14);
  unsigned deref = LLVMGetMDKindIDInContext(c, "dereferenceable", 15);
  unsigned align = LLVMGetMDKindIDInContext(c, "align", 5);
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  LLVMValueRef empty = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef idx = LLVMConstInt(i64, i, 0);
    LLVMValueRef slot = LLVMBuildGEP2(b, ptr, params, &idx, 1, "");
    LLVMValueRef p = LLVMBuildLoad2(b, ptr, slot, "");
    LLVMSetMetadata(p, invariant, empty);
    /* a struct by value (clang's byval) is passed as its address: the
     * call copies it */
    if (LLVMGetEnumAttributeAtIndex(kernel, i + 1, byval)) {
      args[i] = p;
      continue;
    }
    args[i] = LLVMBuildLoad2(b, types[i], p, "");
    LLVMSetMetadata(args[i], invariant, empty);
    uint64_t size = scalar_size(types[i]);
    if (size) {
      LLVMMetadataRef n_md = LLVMValueAsMetadata(LLVMConstInt(i64, size, 0));
      LLVMValueRef node = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, &n_md, 1));
      LLVMSetMetadata(p, deref, node);
      LLVMSetMetadata(p, align, node);
    }
  }
}

/* The launcher's call of the kernel, its byval parameters marked so. */
static void call_kernel(LLVMBuilderRef b, LLVMValueRef kernel, LLVMValueRef *args, unsigned n) {
  LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(kernel), kernel, args, n, "");
  unsigned byval = LLVMGetEnumAttributeKindForName("byval", 5);
  for (unsigned i = 0; i < n; i++) {
    LLVMAttributeRef by = LLVMGetEnumAttributeAtIndex(kernel, i + 1, byval);
    if (by) LLVMAddCallSiteAttribute(call, i + 1, by);
  }
}

static int launcher(cuplug__cpu_retarget_args *a, const char *prefix, size_t k, char **msg) {
  LLVMModuleRef m = a->module;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(c, 0);
  LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(c), &ptr, 1, 0);
  LLVMValueRef kernel = LLVMGetNamedFunction(m, a->kernels[k]);
  if (!kernel || LLVMIsDeclaration(kernel))
    return cuplug__cpu_fail(msg, CUPLUG_ERR_KERNEL_NOT_FOUND, "no kernel named '%s' in the IR",
                             a->kernels[k]);
  LLVMTypeRef kty = LLVMGlobalGetValueType(kernel);
  unsigned n = LLVMCountParamTypes(kty);
  LLVMTypeRef *types = calloc(n + 1, sizeof *types);
  LLVMValueRef *args = calloc(n + 1, sizeof *args);
  char *name = NULL;
  if (!types || !args || asprintf(&name, "%s%s", prefix, a->kernels[k]) < 0) {
    free(types);
    free(args);
    return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  }
  LLVMGetParamTypes(kty, types);
  LLVMValueRef f = LLVMAddFunction(m, name, fty);
  LLVMAddAttributeAtIndex(
      f, 1, LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName("dereferenceable", 15),
                                    8ull * (n ? n : 1)));
  LLVMAddAttributeAtIndex(
      f, 1, LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
  LLVMAddAttributeAtIndex(
      f, 1, LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName("align", 5), 8));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(c, f, "entry"));
  load_args(b, kernel, LLVMGetParam(f, 0), types, n, args);
  call_kernel(b, kernel, args, n);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  free(name);
  free(types);
  free(args);
  return 0;
}

int cuplug__cpu_retarget(cuplug__cpu_retarget_args *a, char **msg) {
  LLVMSetTarget(a->module, a->triple);
  LLVMSetDataLayout(a->module, a->layout);
  host_target_attributes(a->module);
  c_conventions(a->module);
  /* what the host cannot run is refused before anything else */
  int rc = declarations(a, msg);
  if (!rc) rc = spaces(a, msg);
  if (!rc) rc = inline_asm(a, msg);
  if (!rc) shared_to_tls(a->module);
  for (size_t i = 0; !rc && i < a->num_imports; i++)
    rc = cuplug__cpu_cabi_import(a->module, &a->imports[i], msg);
  for (size_t i = 0; !rc && i < a->num_exports; i++)
    rc = cuplug__cpu_cabi_export(a->module, &a->exports[i], msg);
  if (!rc) rc = launchers(a, msg);
  return rc;
}
