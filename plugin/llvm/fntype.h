/* fntype.h - a function's LLVM type against a cuplug signature. */
#ifndef CUPLUG__PLUGIN_LLVM_FNTYPE_H
#define CUPLUG__PLUGIN_LLVM_FNTYPE_H

#include <llvm-c/Core.h>
#include <stdbool.h>

#include "cuplug/cuplug.h"

/* The LLVM function type of sig under abi, made in ctx, and (slot_type
 * not NULL) the type a Numba-ABI return slot of sig points to.  LLVM reads
 * them from cuplug's own typed text of the signature, so they are the
 * types of the text pipeline, with pointers made opaque.  A signature LLVM
 * cannot read is CUPLUG_ERR_INVALID_TYPE. */
cuplug_error *cuplug__llvm_sig_type(LLVMContextRef ctx, const cuplug_type *sig, cuplug_abi abi,
                                    LLVMTypeRef *fn_type, LLVMTypeRef *slot_type);

/* Does fn's type match sig under abi?  Pointers match pointers of their
 * address space (with any_space, of any: a kernel's parameters, which the
 * driver passes, not a call), whatever they point to.  `what` names fn in
 * the message ("entry @f"); `code` is the error's. */
cuplug_error *cuplug__llvm_check_type(LLVMContextRef ctx, LLVMValueRef fn, const char *what,
                                      const cuplug_type *sig, cuplug_abi abi, bool any_space,
                                      cuplug_status code);

#endif
