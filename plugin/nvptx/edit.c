/* edit.c - the module edits before optimising. */
#include "plugin/nvptx/edit.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Linker.h>
#include <stdbool.h>
#include <string.h>

#include "cuplug/cuplug.h"

/* LLVMLinkModules2 has no "only needed" flag: linking libdevice as it is
 * brings all its 350 functions (60 ms, and as much again to optimise them
 * away).  A linkonce_odr definition is linked only where it is used, so
 * its definitions become that first (read lazily: the unused ones are
 * never even read). */
int cuplug__nvptx_link_libdevice(cuplug__nvptx_work *w) {
  const cuplug__nvptx_args *a = w->args;
  if (!a->libdevice) return 0;
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
      a->libdevice, a->libdevice_size, "libdevice.10.bc", 0);
  LLVMModuleRef lib = NULL;
  if (!buf || LLVMGetBitcodeModuleInContext2(w->ctx, buf, &lib)) {
    if (buf) LLVMDisposeMemoryBuffer(buf); /* taken only on success */
    return cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX,
                              "libdevice (%zu bytes) is not bitcode LLVM 22 reads",
                              a->libdevice_size);
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  /* the same target as the module, or the linker warns that they differ */
  LLVMSetTarget(lib, LLVMGetTarget(w->mod));
  LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(w->mod));
  if (LLVMLinkModules2(w->mod, lib))
    return cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX, "libdevice does not link with %s: %s",
                              a->name, w->first_error ? w->first_error : "LLVM gave no reason");
  return 0;
}

/* The string a __nvvm_reflect call asks about, through any casts. */
static bool reflect_asks(LLVMValueRef call, const char *what) {
  LLVMValueRef v = LLVMGetOperand(call, 0);
  while (v && LLVMIsAConstantExpr(v)) v = LLVMGetOperand(v, 0);
  if (!v || !LLVMIsAGlobalVariable(v)) return false;
  LLVMValueRef init = LLVMGetInitializer(v);
  if (!init || !LLVMIsConstantString(init)) return false;
  size_t n = 0, len = strlen(what);
  const char *s = LLVMGetAsString(init, &n);
  return n >= len && memcmp(s, what, len) == 0 && (n == len || s[len] == '\0');
}

/* The target machine's NVVMReflect answers __CUDA_ARCH from the processor
 * and __CUDA_FTZ from the module flag "nvvm-reflect-ftz"; __CUDA_PREC_SQRT
 * only from a process-wide command-line option, and 0 without it, which
 * makes libdevice's __nv_sqrtf approximate where libNVVM's default
 * (-prec-sqrt=1) rounds.  So that one is answered here, per compile.  A flag
 * the module sets itself (Triton's) is the module's to keep. */
int cuplug__nvptx_reflect(cuplug__nvptx_work *w) {
  const char ftz[] = "nvvm-reflect-ftz";
  if (!LLVMGetModuleFlag(w->mod, ftz, sizeof ftz - 1)) {
    LLVMValueRef one = LLVMConstInt(LLVMInt32TypeInContext(w->ctx), w->args->fastmath ? 1 : 0, 0);
    LLVMAddModuleFlag(w->mod, LLVMModuleFlagBehaviorOverride, ftz, sizeof ftz - 1,
                      LLVMValueAsMetadata(one));
  }
  LLVMValueRef reflect = LLVMGetNamedFunction(w->mod, "__nvvm_reflect");
  if (!reflect) return 0;
  LLVMValueRef prec = LLVMConstInt(LLVMInt32TypeInContext(w->ctx), w->args->fastmath ? 0 : 1, 0);
  LLVMUseRef next;
  for (LLVMUseRef u = LLVMGetFirstUse(reflect); u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != reflect ||
        !reflect_asks(call, "__CUDA_PREC_SQRT"))
      continue;
    LLVMReplaceAllUsesWith(call, prec);
    LLVMInstructionEraseFromParent(call);
  }
  return 0;
}

static bool calls_sqrt(LLVMValueRef inst) {
  if (LLVMGetInstructionOpcode(inst) != LLVMCall) return false;
  size_t n = 0;
  const char *name = LLVMGetValueName2(LLVMGetCalledValue(inst), &n);
  return n > 10 && strncmp(name, "llvm.sqrt.", 10) == 0;
}

/* libNVVM fuses a multiply and an add into an fma by default (-fma=1),
 * and LLVM only where the IR allows contraction: every floating-point
 * operation gets `contract`.  Fastmath is libNVVM's -ftz=1 -prec-div=0
 * -prec-sqrt=0: subnormals flushed (the functions' denormal mode), and
 * approximate division and square roots (`afn` on those alone, LLVM's
 * sign for them; other functions keep their precision, as with libNVVM). */
int cuplug__nvptx_fp_flags(cuplug__nvptx_work *w) {
  bool fast = w->args->fastmath;
  static const char mode[] = "denormal-fp-math-f32", flush[] = "preserve-sign,preserve-sign";
  LLVMAttributeRef ftz =
      fast ? LLVMCreateStringAttribute(w->ctx, mode, sizeof mode - 1, flush, sizeof flush - 1)
           : NULL;
  for (LLVMValueRef f = LLVMGetFirstFunction(w->mod); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    if (ftz) LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, ftz);
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
      for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
        if (!LLVMCanValueUseFastMathFlags(i)) continue;
        LLVMFastMathFlags flags = LLVMGetFastMathFlags(i) | LLVMFastMathAllowContract;
        /* like libNVVM's -prec-div=0 -prec-sqrt=0: single precision only */
        if (fast && LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMFloatTypeKind &&
            (LLVMGetInstructionOpcode(i) == LLVMFDiv || calls_sqrt(i)))
          flags |= LLVMFastMathApproxFunc | LLVMFastMathAllowReciprocal;
        LLVMSetFastMathFlags(i, flags);
      }
    }
  }
  return 0;
}

static bool kept(const cuplug__nvptx_args *a, LLVMValueRef g) {
  if (LLVMIsAFunction(g) && LLVMGetFunctionCallConv(g) == LLVMPTXKernelCallConv) return true;
  size_t n = 0;
  const char *name = LLVMGetValueName2(g, &n);
  if (n >= 5 && strncmp(name, "llvm.", 5) == 0) return true; /* llvm.used and the like */
  for (size_t i = 0; i < a->num_keep; i++)
    if (strlen(a->keep[i]) == n && memcmp(a->keep[i], name, n) == 0) return true;
  return false;
}

static void internalize_one(const cuplug__nvptx_args *a, LLVMValueRef g) {
  if (LLVMIsDeclaration(g)) return;
  if (kept(a, g)) {
    /* an entry the host wrote linkonce_odr or internal (a template, an
     * inline function) must still be there after the optimiser */
    LLVMLinkage l = LLVMGetLinkage(g);
    if (l != LLVMExternalLinkage && l != LLVMAppendingLinkage && l != LLVMExternalWeakLinkage)
      LLVMSetLinkage(g, LLVMExternalLinkage);
    return;
  }
  LLVMLinkage l = LLVMGetLinkage(g);
  if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage || l == LLVMAvailableExternallyLinkage)
    return;
  LLVMSetLinkage(g, LLVMInternalLinkage);
}

/* What LLVM's `internalize<preserve-gv=NAME>` pass does, without writing
 * symbols into a pass pipeline's text (where ';' or '>' would end them). */
int cuplug__nvptx_internalize(cuplug__nvptx_work *w) {
  for (LLVMValueRef f = LLVMGetFirstFunction(w->mod); f; f = LLVMGetNextFunction(f))
    internalize_one(w->args, f);
  for (LLVMValueRef g = LLVMGetFirstGlobal(w->mod); g; g = LLVMGetNextGlobal(g))
    internalize_one(w->args, g);
  for (LLVMValueRef g = LLVMGetFirstGlobalAlias(w->mod); g; g = LLVMGetNextGlobalAlias(g))
    internalize_one(w->args, g);
  return 0;
}

/* Debug information stays for debug; line tables alone for lineinfo (the
 * optimiser's first pass strips the rest, codegen.c); none otherwise. */
int cuplug__nvptx_debug_info(cuplug__nvptx_work *w) {
  if (!w->args->debug && !w->args->lineinfo) LLVMStripModuleDebugInfo(w->mod);
  return 0;
}
