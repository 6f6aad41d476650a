/* cabi.c - the C-ABI function of a Numba-ABI device function, on the
 * module: numba-cuda's cabi_wrap_function, as lowering/cabi_wrap.c writes
 * it in text.  `R name(args)` allocates the return slot, zeroes it, calls
 * the Numba-ABI function, ignores its status and returns the slot's value
 * in its memory form (a bool as i8, a complex as {re, im}).  Every other
 * definition with external linkage becomes linkonce_odr, so that only the
 * wrapper is visible in the PTX.
 *
 * The text pipeline makes the entry itself the C-ABI function where it
 * can, to spare libNVVM a function; LLVM's optimiser inlines the wrapper
 * at no such cost, so the module keeps both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/llvm/fntype.h"
#include "plugin/llvm/internal.h"

/* numba-cuda's C-ABI functions have no environment: the entry's
 * `@_ZN08NumbaEnv<name> = common global ptr null` becomes internal, and
 * goes unless it is used. */
static cuplug_error *internalize_env(cuplug__modern *m, const char *entry) {
  if (strncmp(entry, "_ZN", 3) != 0) return NULL;
  cuplug__buf name;
  cuplug__buf_init(&name);
  cuplug__buf_printf(&name, "_ZN08NumbaEnv%s", entry + 3);
  if (name.oom) return cuplug__error_oom();
  LLVMValueRef g = LLVMGetNamedGlobal(m->mod, name.data);
  if (g && LLVMGetLinkage(g) == LLVMCommonLinkage) LLVMSetLinkage(g, LLVMInternalLinkage);
  cuplug__buf_free(&name);
  return NULL;
}

static void make_linkonce(cuplug__modern *m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
}

static void inline_always(LLVMValueRef fn) {
  cuplug__fn_attr_remove(fn, "noinline");
  cuplug__fn_attr_remove(fn, "optnone");
  cuplug__fn_attr_add(fn, "alwaysinline");
}

/* define R @symbol(args) { slot; call; load; ret } */
static cuplug_error *put_wrapper(cuplug__modern *m, LLVMValueRef callee,
                                 const cuplug__modern_lower_options *o) {
  LLVMTypeRef cty, slot_ty;
  CUPLUG__TRY(cuplug__llvm_sig_type(m->ctx, o->sig, CUPLUG_ABI_C, &cty, &slot_ty));
  if (LLVMGetNamedFunction(m->mod, o->symbol) || LLVMGetNamedGlobal(m->mod, o->symbol))
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                         "the C-ABI function @%s of entry @%s would take the name of a "
                         "function or global the IR has already",
                         o->symbol, o->entry);
  LLVMValueRef w = LLVMAddFunction(m->mod, o->symbol, cty);
  unsigned n = LLVMCountParams(w);
  LLVMValueRef *args = malloc((n + 1) * sizeof *args);
  if (!args) return cuplug__error_oom();
  for (unsigned i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "arg.%u", i);
    args[i + 1] = LLVMGetParam(w, i);
    LLVMSetValueName2(args[i + 1], name, strlen(name));
  }
  if (o->forceinline) cuplug__fn_attr_add(w, "alwaysinline");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(m->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(m->ctx, w, "entry"));
  args[0] = LLVMBuildAlloca(b, slot_ty, "ret");
  LLVMBuildStore(b, LLVMConstNull(slot_ty), args[0]);
  LLVMBuildCall2(b, LLVMGlobalGetValueType(callee), callee, args, n + 1, "status");
  if (LLVMGetTypeKind(LLVMGetReturnType(cty)) == LLVMVoidTypeKind)
    LLVMBuildRetVoid(b);
  else
    LLVMBuildRet(b, LLVMBuildLoad2(b, slot_ty, args[0], "value"));
  LLVMDisposeBuilder(b);
  free(args);
  return NULL;
}

cuplug_error *cuplug__modern_cabi_wrap(cuplug__modern *m, const cuplug__modern_lower_options *o) {
  cuplug_error *e = NULL;
  LLVMValueRef entry = cuplug__modern_defined(m, o->entry, &e);
  if (!entry) return e;
  cuplug__buf what;
  cuplug__buf_init(&what);
  cuplug__buf_printf(&what, "entry @%s", o->entry);
  e = what.oom ? cuplug__error_oom()
               : cuplug__llvm_check_type(m->ctx, entry, what.data, o->sig, CUPLUG_ABI_NUMBA,
                                         false, CUPLUG_ERR_ENTRY_MISMATCH);
  cuplug__buf_free(&what);
  if (e) return e;
  CUPLUG__TRY(internalize_env(m, o->entry));
  if (strcmp(o->symbol, o->entry) == 0) {
    /* the export takes the entry's own name: the Numba-ABI function, and
     * every reference to it, moves aside */
    cuplug__buf aside;
    cuplug__buf_init(&aside);
    cuplug__buf_printf(&aside, "%s.numba", o->entry);
    if (aside.oom) return cuplug__error_oom();
    LLVMSetValueName2(entry, aside.data, aside.len);
    cuplug__buf_free(&aside);
  }
  make_linkonce(m);
  if (o->forceinline) inline_always(entry);
  return put_wrapper(m, entry, o);
}

cuplug_error *cuplug__modern_force_inline(cuplug__modern *m, const char *entry) {
  cuplug_error *e = NULL;
  LLVMValueRef fn = cuplug__modern_defined(m, entry, &e);
  if (!fn) return e;
  inline_always(fn);
  return NULL;
}
