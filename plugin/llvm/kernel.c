/* kernel.c - a Numba-ABI function made a kernel, on the module: numba-cuda's
 * kernel_fixup, as lowering/kernel_fixup.c does it in text.  Every
 * `ret i32 <status>` becomes `ret void` (with debug, after a call to the
 * exception helper with the status), the stores to the return slot go, the
 * slot goes, noinline goes, and the debug-info subroutine type loses its
 * first element (the slot), so that debuggers see the kernel's own
 * parameters.
 *
 * A function's type cannot change in place: the kernel is a new function
 * of the entry's name, which takes the old one's blocks, attributes and
 * metadata.  Then every kernel is marked as LLVM 22 marks kernels: the
 * ptx_kernel calling convention, on its calls too (a call whose convention
 * differs from its callee's is undefined), a place in @llvm.used (nvJitLink
 * drops a kernel of LTO-IR it sees no use of), and its launch bounds as
 * the nvvm.* attributes (LLVM 22 ignores !nvvm.annotations added after
 * parsing). */
#include <llvm-c/Comdat.h>
#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/llvm/internal.h"

static cuplug_error *unsupported(const char *entry, const char *what, LLVMValueRef at) {
  char *s = at ? LLVMPrintValueToString(at) : NULL;
  const char *shown = s ? s + strspn(s, " ") : NULL;
  cuplug_error *e = cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED, "kernel @%s: %s%s%s", entry, what,
                                  shown ? ": " : "", shown ? shown : "");
  LLVMDisposeMessage(s);
  return e;
}

/* Is `user` a call (or invoke) of fn? */
static bool calls(LLVMValueRef user, LLVMValueRef fn) {
  return (LLVMIsACallInst(user) || LLVMIsAInvokeInst(user)) && LLVMGetCalledValue(user) == fn;
}

/* The stores to the return slot go; any other use of it is an error. */
static cuplug_error *drop_slot_stores(LLVMValueRef slot, const char *entry) {
  for (LLVMUseRef u = LLVMGetFirstUse(slot); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (!LLVMIsAStoreInst(user) || LLVMGetOperand(user, 1) != slot ||
        LLVMGetOperand(user, 0) == slot)
      return unsupported(entry, "the return slot is used other than by storing to it", user);
  }
  for (LLVMUseRef u; (u = LLVMGetFirstUse(slot));) LLVMInstructionEraseFromParent(LLVMGetUser(u));
  return NULL;
}

/* Other code that calls the entry would call it with the slot. */
static cuplug_error *refuse_calls(LLVMValueRef fn, const char *entry) {
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (calls(user, fn))
      return unsupported(entry, "other code calls it, with its return slot", user);
  }
  return NULL;
}

/* Function attributes (noinline aside, unless optnone needs it) and those
 * of parameters 1.. as parameters 0.. of `to`; the return's go.  LLVM's
 * index of parameter i is i + 1. */
static void copy_attrs(LLVMValueRef from, LLVMValueRef to, unsigned num_params) {
  const LLVMAttributeIndex fn_index = (LLVMAttributeIndex)LLVMAttributeFunctionIndex;
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  bool keep_noinline = LLVMGetEnumAttributeAtIndex(
                           from, fn_index, LLVMGetEnumAttributeKindForName("optnone", 7)) != NULL;
  for (unsigned i = 0; i <= num_params; i++) {
    if (i == 1) continue; /* the slot's (parameter 0) */
    LLVMAttributeIndex src = i ? i : fn_index, dst = i ? i - 1 : fn_index;
    unsigned n = LLVMGetAttributeCountAtIndex(from, src);
    LLVMAttributeRef *attrs = malloc((n ? n : 1) * sizeof *attrs);
    if (!attrs) continue;
    LLVMGetAttributesAtIndex(from, src, attrs);
    for (unsigned k = 0; k < n; k++) {
      bool is_noinline = LLVMIsEnumAttribute(attrs[k]) &&
                         LLVMGetEnumAttributeKind(attrs[k]) == noinline;
      if (!(src == fn_index && is_noinline && !keep_noinline))
        LLVMAddAttributeAtIndex(to, dst, attrs[k]);
    }
    free(attrs);
  }
}

static void copy_global(LLVMValueRef from, LLVMValueRef to) {
  LLVMSetLinkage(to, LLVMGetLinkage(from));
  LLVMSetVisibility(to, LLVMGetVisibility(from));
  LLVMSetUnnamedAddress(to, LLVMGetUnnamedAddress(from));
  LLVMSetDLLStorageClass(to, LLVMGetDLLStorageClass(from));
  LLVMSetAlignment(to, LLVMGetAlignment(from));
  LLVMSetFunctionCallConv(to, LLVMGetFunctionCallConv(from));
  if (LLVMGetSection(from)) LLVMSetSection(to, LLVMGetSection(from));
  if (LLVMGetGC(from)) LLVMSetGC(to, LLVMGetGC(from));
  if (LLVMGetComdat(from)) LLVMSetComdat(to, LLVMGetComdat(from));
  if (LLVMHasPersonalityFn(from)) LLVMSetPersonalityFn(to, LLVMGetPersonalityFn(from));
  size_t n;
  LLVMValueMetadataEntry *md = LLVMGlobalCopyAllMetadata(from, &n);
  for (size_t i = 0; i < n; i++)
    LLVMGlobalSetMetadata(to, LLVMValueMetadataEntriesGetKind(md, i),
                          LLVMValueMetadataEntriesGetMetadata(md, i));
  if (md) LLVMDisposeValueMetadataEntries(md);
}

/* `void entry(params 1..)` in place of `old`, with its body. */
static cuplug_error *without_slot(cuplug__modern *m, LLVMValueRef old, const char *entry,
                                  LLVMValueRef *out) {
  LLVMTypeRef ot = LLVMGlobalGetValueType(old);
  unsigned n = LLVMCountParamTypes(ot);
  LLVMTypeRef *types = malloc(n * sizeof *types);
  if (!types) return cuplug__error_oom();
  LLVMGetParamTypes(ot, types);
  LLVMTypeRef nt = LLVMFunctionType(LLVMVoidTypeInContext(m->ctx), types + 1, n - 1,
                                    LLVMIsFunctionVarArg(ot));
  free(types);
  LLVMSetValueName2(old, "", 0);
  LLVMValueRef fn = LLVMAddFunction(m->mod, entry, nt);
  copy_global(old, fn);
  copy_attrs(old, fn, n);
  for (LLVMBasicBlockRef bb; (bb = LLVMGetFirstBasicBlock(old));) {
    LLVMRemoveBasicBlockFromParent(bb);
    LLVMAppendExistingBasicBlock(fn, bb);
  }
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef from = LLVMGetParam(old, i), to = LLVMGetParam(fn, i - 1);
    size_t len;
    const char *name = LLVMGetValueName2(from, &len);
    LLVMSetValueName2(to, name, len);
    LLVMReplaceAllUsesWith(from, to);
  }
  /* what still names the slot is debug info, which now describes nothing */
  LLVMValueRef slot = LLVMGetParam(old, 0);
  LLVMReplaceAllUsesWith(slot, LLVMGetPoison(LLVMTypeOf(slot)));
  LLVMReplaceAllUsesWith(old, fn); /* @llvm.used, metadata: calls were refused */
  LLVMDeleteFunction(old);
  *out = fn;
  return NULL;
}

/* ret i32 <status>  ->  [call helper(status)] ret void, where it was. */
static void fix_returns(cuplug__modern *m, LLVMValueRef fn, LLVMValueRef helper) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(m->ctx);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
    if (!t || LLVMGetInstructionOpcode(t) != LLVMRet || LLVMGetNumOperands(t) == 0) continue;
    LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(t);
    LLVMPositionBuilderBefore(b, t);
    if (helper) {
      LLVMValueRef status = LLVMGetOperand(t, 0);
      LLVMValueRef call = LLVMBuildCall2(b, LLVMGlobalGetValueType(helper), helper, &status, 1, "");
      LLVMInstructionSetDebugLoc(call, loc);
    }
    LLVMValueRef r = LLVMBuildRetVoid(b);
    LLVMInstructionSetDebugLoc(r, loc);
    size_t n;
    LLVMValueMetadataEntry *md = LLVMInstructionGetAllMetadataOtherThanDebugLoc(t, &n);
    for (size_t i = 0; i < n; i++)
      LLVMSetMetadata(r, LLVMValueMetadataEntriesGetKind(md, i),
                      LLVMMetadataAsValue(m->ctx, LLVMValueMetadataEntriesGetMetadata(md, i)));
    if (md) LLVMDisposeValueMetadataEntries(md);
    LLVMInstructionEraseFromParent(t);
  }
  LLVMDisposeBuilder(b);
}

/* The operands of a metadata node as values (NULL for a null operand),
 * malloc'd, or NULL. */
static LLVMValueRef *md_operands(LLVMContextRef ctx, LLVMMetadataRef node, unsigned *n) {
  LLVMValueRef v = LLVMMetadataAsValue(ctx, node);
  *n = LLVMGetMDNodeNumOperands(v);
  LLVMValueRef *ops = malloc((*n ? *n : 1) * sizeof *ops);
  if (ops) LLVMGetMDNodeOperands(v, ops);
  return ops;
}

/* The first operand of `node` of metadata kind `kind`, or NULL: the
 * subprogram's type, the subroutine type's list (operand numbers differ
 * between LLVM versions; the kinds do not). */
static LLVMMetadataRef operand_of_kind(LLVMContextRef ctx, LLVMMetadataRef node,
                                       LLVMMetadataKind kind) {
  unsigned n;
  LLVMValueRef *ops = md_operands(ctx, node, &n);
  LLVMMetadataRef found = NULL;
  for (unsigned i = 0; ops && i < n && !found; i++)
    if (ops[i] && LLVMGetMetadataKind(LLVMValueAsMetadata(ops[i])) == kind)
      found = LLVMValueAsMetadata(ops[i]);
  free(ops);
  return found;
}

/* The subprogram's type without its first element, the return slot: a new
 * node, since others may share the old one. */
static void fix_debug_type(cuplug__modern *m, LLVMValueRef fn) {
  LLVMMetadataRef sp = LLVMGetSubprogram(fn);
  LLVMMetadataRef type =
      sp ? operand_of_kind(m->ctx, sp, LLVMDISubroutineTypeMetadataKind) : NULL;
  LLVMMetadataRef list = type ? operand_of_kind(m->ctx, type, LLVMMDTupleMetadataKind) : NULL;
  unsigned n = 0;
  LLVMValueRef *types = list ? md_operands(m->ctx, list, &n) : NULL;
  LLVMMetadataRef *rest = n ? malloc(n * sizeof *rest) : NULL;
  if (rest) {
    for (unsigned i = 1; i < n; i++)
      rest[i - 1] = types[i] ? LLVMValueAsMetadata(types[i]) : NULL;
    LLVMDIBuilderRef dib = LLVMCreateDIBuilderDisallowUnresolved(m->mod);
    LLVMMetadataRef nt =
        LLVMDIBuilderCreateSubroutineType(dib, NULL, rest, n - 1, LLVMDITypeGetFlags(type));
    LLVMDIBuilderFinalize(dib);
    LLVMDisposeDIBuilder(dib);
    LLVMDISubprogramReplaceType(sp, nt);
  }
  free(rest);
  free(types);
}

cuplug_error *cuplug__modern_kernel_fixup(cuplug__modern *m, const cuplug__modern_lower_options *o,
                                          LLVMValueRef *fn) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(*fn);
  LLVMTypeRef ret = LLVMGetReturnType(ft);
  if (LLVMCountParams(*fn) == 0 || LLVMGetTypeKind(ret) != LLVMIntegerTypeKind ||
      LLVMGetIntTypeWidth(ret) != 32 ||
      LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(*fn, 0))) != LLVMPointerTypeKind)
    return unsupported(o->entry,
                       "a Numba-ABI function returns i32 and takes its return slot "
                       "pointer first",
                       NULL);
  CUPLUG__TRY(refuse_calls(*fn, o->entry));
  CUPLUG__TRY(drop_slot_stores(LLVMGetParam(*fn, 0), o->entry));
  LLVMValueRef helper = NULL;
  if (o->debug) CUPLUG__TRY(cuplug__modern_exc_store(m, o->entry, &helper));
  CUPLUG__TRY(without_slot(m, *fn, o->entry, fn));
  fix_returns(m, *fn, helper);
  /* with debug info (debug or lineinfo), as numba-cuda, whatever the
   * debug option says */
  fix_debug_type(m, *fn);
  return NULL;
}

/* Adds fn to @llvm.used, which is made anew: its type has the count. */
static cuplug_error *keep_used(cuplug__modern *m, LLVMValueRef fn) {
  LLVMValueRef used = LLVMGetNamedGlobal(m->mod, "llvm.used");
  LLVMValueRef init = used ? LLVMGetInitializer(used) : NULL;
  LLVMTypeRef elt = init ? LLVMGetElementType(LLVMTypeOf(init))
                         : LLVMPointerTypeInContext(m->ctx, 0);
  unsigned n = init && LLVMIsAConstantArray(init) ? (unsigned)LLVMGetNumOperands(init) : 0;
  LLVMValueRef *v = malloc((n + 1) * sizeof *v);
  if (!v) return cuplug__error_oom();
  for (unsigned i = 0; i < n; i++) {
    v[i] = LLVMGetOperand(init, i);
    bool cast_of_fn = LLVMIsAConstantExpr(v[i]) && LLVMGetOperand(v[i], 0) == fn;
    if (v[i] == fn || cast_of_fn) {
      free(v);
      return NULL;
    }
  }
  v[n] = LLVMTypeOf(fn) == elt ? fn : LLVMConstPointerCast(fn, elt);
  LLVMValueRef array = LLVMConstArray2(elt, v, n + 1);
  free(v);
  if (used) LLVMSetValueName2(used, "", 0);
  LLVMValueRef g = LLVMAddGlobal(m->mod, LLVMTypeOf(array), "llvm.used");
  LLVMSetLinkage(g, LLVMAppendingLinkage);
  LLVMSetSection(g, "llvm.metadata");
  LLVMSetInitializer(g, array);
  if (used) LLVMDeleteGlobal(used);
  return NULL;
}

cuplug_error *cuplug__modern_mark_kernel(cuplug__modern *m, LLVMValueRef fn) {
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  for (LLVMUseRef u = LLVMGetFirstUse(fn); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (calls(user, fn))
      LLVMSetInstructionCallConv(user, LLVMPTXKernelCallConv);
  }
  return keep_used(m, fn);
}

static void set_attr(LLVMContextRef ctx, LLVMValueRef fn, const char *key, uint32_t value) {
  char v[16];
  snprintf(v, sizeof v, "%u", value);
  unsigned klen = (unsigned)strlen(key);
  LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key, klen);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(ctx, key, klen, v, (unsigned)strlen(v)));
}

void cuplug__modern_launch_attrs(cuplug__modern *m, LLVMValueRef fn,
                                 const cuplug__modern_lower_options *o) {
  /* numba-cuda's launch bounds are maxntidx, minctasm and
   * cluster_max_blocks: LLVM 22 reads those annotations as these */
  static const char *const names[] = {"nvvm.maxntid", "nvvm.minctasm", "nvvm.maxclusterrank"};
  for (size_t i = 0; i < o->num_launch_bounds && i < 3; i++)
    set_attr(m->ctx, fn, names[i], o->launch_bounds[i]);
  if (o->max_registers) set_attr(m->ctx, fn, "nvvm.maxnreg", o->max_registers);
}
