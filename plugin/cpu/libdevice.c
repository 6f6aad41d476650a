/* libdevice.c - libdevice linked into the host module.
 *
 * The compile hands libNVVM libdevice when the IR calls __nv_* functions;
 * the host does the same with libdevice.10.bc itself, which LLVM 22 reads.
 * Its functions become internal (the module's calls are all that is kept
 * of them), its __nvvm_reflect queries are answered as libNVVM answers
 * them for numba-cuda's default options, and the NVVM intrinsics and inline
 * PTX it uses are math.c's. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "plugin/cpu/libdevice.h"
#include "plugin/cpu/fail.h"

/* __nvvm_reflect's answers, as libNVVM gives them for numba-cuda's
 * options: flush to zero with fastmath only (-ftz=1), precise division and
 * square roots, and an sm_90 GPU's code paths (those of every cc 5.0 and
 * up). */
static int reflect_value(const char *name, bool ftz) {
  if (!strcmp(name, "__CUDA_ARCH")) return 900;
  if (!strcmp(name, "__CUDA_FTZ")) return ftz;
  if (!strcmp(name, "__CUDA_PREC_DIV") || !strcmp(name, "__CUDA_PREC_SQRT")) return 1;
  return 0;
}

/* The string a reflect call asks about: its argument is a constant string,
 * perhaps behind casts. */
static const char *reflect_name(LLVMValueRef call) {
  LLVMValueRef v = LLVMGetOperand(call, 0);
  while (v && LLVMIsAConstantExpr(v)) v = LLVMGetOperand(v, 0);
  if (!v || !LLVMIsAGlobalVariable(v)) return NULL;
  LLVMValueRef init = LLVMGetInitializer(v);
  if (!init || !LLVMIsConstantString(init)) return NULL;
  size_t len;
  return LLVMGetAsString(init, &len);
}

static void answer_reflect(LLVMModuleRef m, bool ftz) {
  LLVMValueRef reflect = LLVMGetNamedFunction(m, "__nvvm_reflect");
  if (!reflect) return;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
        next = LLVMGetNextInstruction(i);
        if (!LLVMIsACallInst(i) || LLVMGetCalledValue(i) != reflect) continue;
        const char *name = reflect_name(i);
        LLVMReplaceAllUsesWith(i, LLVMConstInt(i32, (unsigned long long)reflect_value(name ? name : "", ftz), 0));
        LLVMInstructionEraseFromParent(i);
      }
    }
  }
}

int cuplug__cpu_link_libdevice(LLVMModuleRef m, const void *bitcode, size_t size, bool ftz,
                                char **msg) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(bitcode, size, "libdevice.10.bc");
  LLVMModuleRef lib;
  int bad = LLVMParseBitcodeInContext2(c, buf, &lib);
  LLVMDisposeMemoryBuffer(buf);
  if (bad)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_LIBDEVICE_NOT_FOUND,
                             "libdevice.10.bc cannot be read by LLVM 22");
  LLVMSetTarget(lib, LLVMGetTarget(m));
  LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
  /* its definitions, internal once linked: only what the module calls stays */
  size_t n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    n += !LLVMIsDeclaration(f);
  char **defined = calloc(n ? n : 1, sizeof *defined);
  if (!defined) {
    LLVMDisposeModule(lib);
    return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  }
  n = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    if (!LLVMIsDeclaration(f)) defined[n++] = strdup(LLVMGetValueName2(f, &len));
  }
  int rc = 0;
  if (LLVMLinkModules2(m, lib)) /* takes lib */
    rc = cuplug__cpu_fail(msg, CUPLUG_ERR_LINK, "libdevice cannot be linked with the module");
  for (size_t i = 0; i < n; i++) {
    LLVMValueRef f = defined[i] ? LLVMGetNamedFunction(m, defined[i]) : NULL;
    if (f && !LLVMIsDeclaration(f)) LLVMSetLinkage(f, LLVMInternalLinkage);
    free(defined[i]);
  }
  free(defined);
  if (rc) return rc;
  answer_reflect(m, ftz);
  /* what the module does not call goes, and with it the intrinsics only
   * that used (retarget.c refuses an intrinsic the runtime lacks) */
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  LLVMErrorRef err = LLVMRunPasses(m, "globaldce", NULL, o);
  LLVMDisposePassBuilderOptions(o);
  if (err) {
    char *why = LLVMGetErrorMessage(err);
    rc = cuplug__cpu_fail(msg, CUPLUG_ERR_LINK, "dropping libdevice's unused functions: %s", why);
    LLVMDisposeErrorMessage(why);
  }
  return rc;
}
