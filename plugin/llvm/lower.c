/* lower.c - numba-cuda's wrap step on a modern module, as the text
 * pipeline's lower stage does it on numba-cuda's text (plugin/pipeline/
 * job.c): which of the C-ABI wrapper, the kernel fix-up and forceinline a
 * compile needs, and the marks every kernel gets. */
#include <string.h>

#include "base/error.h"
#include "plugin/llvm/internal.h"

static unsigned attr_kind(const char *name) {
  return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

void cuplug__fn_attr_add(LLVMValueRef fn, const char *name) {
  LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(fn));
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(ctx, attr_kind(name), 0));
}

void cuplug__fn_attr_remove(LLVMValueRef fn, const char *name) {
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attr_kind(name));
}

bool cuplug__fn_attr_has(LLVMValueRef fn, const char *name) {
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, attr_kind(name)) != NULL;
}

static cuplug_error *lower_kernel(cuplug__modern *m, const cuplug__modern_lower_options *o) {
  cuplug_error *e = NULL;
  LLVMValueRef fn = cuplug__modern_defined(m, o->entry, &e);
  if (!fn) return e;
  if (o->entry_abi != CUPLUG_ABI_C) {
    CUPLUG__TRY(cuplug__modern_kernel_fixup(m, o, &fn));
  } else if (LLVMGetFunctionCallConv(fn) != LLVMPTXKernelCallConv) {
    /* a C-ABI kernel the IR does not mark: numba-cuda's marks, as the
     * text pipeline gives them */
    LLVMTypeRef ret = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
    if (LLVMGetTypeKind(ret) != LLVMVoidTypeKind)
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED, "kernel @%s: a C-ABI kernel returns void",
                           o->entry);
    /* optnone requires noinline */
    if (!cuplug__fn_attr_has(fn, "optnone")) cuplug__fn_attr_remove(fn, "noinline");
  }
  /* every kernel, a host's own too, goes in @llvm.used: an LTO link
   * (libNVVM's LTO-IR) drops a kernel that is not there */
  CUPLUG__TRY(cuplug__modern_mark_kernel(m, fn));
  cuplug__modern_launch_attrs(m, fn, o);
  return NULL;
}

cuplug_error *cuplug__modern_lower(cuplug__modern *m, const cuplug__modern_lower_options *o) {
  if (o->kind == CUPLUG_KERNEL) return lower_kernel(m, o);
  if (o->abi == CUPLUG_ABI_C && o->entry_abi != CUPLUG_ABI_C)
    return cuplug__modern_cabi_wrap(m, o);
  if (o->forceinline) return cuplug__modern_force_inline(m, o->entry);
  return NULL;
}
