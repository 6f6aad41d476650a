/* internal.h - what the files of the modern-IR module (modern.h) share:
 * read.c (reading, linking, what the module declares), signature.c (the
 * entry and its signature), lower.c (the wrap step), cabi.c (the C-ABI
 * wrapper), kernel.c (the kernel fix-up and marking), exc_store.c (the
 * debug exception store), write.c (bitcode and text out). */
#ifndef CUPLUG__PLUGIN_LLVM_INTERNAL_H
#define CUPLUG__PLUGIN_LLVM_INTERNAL_H

#include <llvm-c/Core.h>

#include "plugin/llvm/modern.h"

struct cuplug__modern {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  size_t num_inputs; /* modules the caller gave, for messages */
  bool for_cpu;
  /* the first error the context reported (the linker's), malloc'd */
  char *diag;
  /* cuplug__modern_declared's answer */
  char **declared;
  size_t num_declared;
};

/* The context's first error diagnostic since the last call, taken (the
 * caller frees it), or NULL. */
char *cuplug__modern_take_diag(cuplug__modern *m);

/* A defined function named `name`, or NULL with CUPLUG_ERR_ENTRY_NOT_FOUND
 * in *e naming what the modules define instead. */
LLVMValueRef cuplug__modern_defined(cuplug__modern *m, const char *name, cuplug_error **e);

/* The enum attribute `name` of a function: added, removed, present? */
void cuplug__fn_attr_add(LLVMValueRef fn, const char *name);
void cuplug__fn_attr_remove(LLVMValueRef fn, const char *name);
bool cuplug__fn_attr_has(LLVMValueRef fn, const char *name);

/* ---- cabi.c ---- */

/* The C-ABI wrapper, as modern.h says for a device function of the Numba
 * ABI exported under the C ABI. */
cuplug_error *cuplug__modern_cabi_wrap(cuplug__modern *m, const cuplug__modern_lower_options *o);
/* alwaysinline, and neither noinline nor optnone, on the entry. */
cuplug_error *cuplug__modern_force_inline(cuplug__modern *m, const char *entry);

/* ---- kernel.c ---- */

/* The fix-up of a Numba-ABI kernel; *fn becomes the new function. */
cuplug_error *cuplug__modern_kernel_fixup(cuplug__modern *m, const cuplug__modern_lower_options *o,
                                          LLVMValueRef *fn);
/* ptx_kernel on fn and its calls, and fn in @llvm.used. */
cuplug_error *cuplug__modern_mark_kernel(cuplug__modern *m, LLVMValueRef fn);
/* Launch bounds and max_registers as the kernel's nvvm.* attributes. */
void cuplug__modern_launch_attrs(cuplug__modern *m, LLVMValueRef fn,
                                 const cuplug__modern_lower_options *o);

/* ---- exc_store.c ---- */

/* The exception store of `kernel`: its globals and its helper, *helper. */
cuplug_error *cuplug__modern_exc_store(cuplug__modern *m, const char *kernel,
                                       LLVMValueRef *helper);

#endif
