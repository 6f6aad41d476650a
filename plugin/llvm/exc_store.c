/* exc_store.c - the debug exception store of a kernel, on the module:
 * numba-cuda's add_exception_store_helper, as lowering/exc_store.c writes
 * it in text.  i32 globals <k>__errcode__, <k>__tid{x,y,z}__ and
 * <k>__ctaid{x,y,z}__, and a helper void <k>__exc_helper__(i32 status) that
 * the fixed-up kernel calls with the status it would have returned.  The
 * helper ignores success (0), None (-2) and a Python exception (-1), which
 * a kernel cannot describe; for any other status the first thread to swap
 * the error code from 0 (a monotonic cmpxchg) records its thread and block
 * index.  The host clears the error code before a launch and reads the
 * globals, by these names, after it. */
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/llvm/internal.h"

static const char dims[] = "xyz";
static const char *const regs[] = {"tid", "ctaid"};

/* The store's names, in the order of `globals` below, then the helper's. */
static const char *const suffixes[8] = {"__errcode__", "__tidx__",  "__ctaidx__",
                                        "__tidy__",    "__ctaidy__", "__tidz__",
                                        "__ctaidz__",  "__exc_helper__"};

/* <kernel><suffix> in *name, and whether the module has it already: a name
 * taken would be renamed, and the host would not find it. */
static cuplug_error *store_name(cuplug__modern *m, const char *kernel, const char *suffix,
                                cuplug__buf *name) {
  cuplug__buf_clear(name);
  cuplug__buf_printf(name, "%s%s", kernel, suffix);
  if (name->oom) return cuplug__error_oom();
  if (LLVMGetNamedGlobal(m->mod, name->data) || LLVMGetNamedFunction(m->mod, name->data))
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                         "kernel @%s: the IR has a @%s already, a name of the debug exception "
                         "store",
                         kernel, name->data);
  return NULL;
}

/* call i32 @llvm.nvvm.read.ptx.sreg.<reg>.<d>() */
static LLVMValueRef read_sreg(cuplug__modern *m, LLVMBuilderRef b, const char *reg, char d) {
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", reg, d);
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m->mod, id, NULL, 0);
  snprintf(name, sizeof name, "%s.%c", reg, d);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, NULL, 0, name);
}

/* The helper's body; globals[0] is the error code, then tid x, ctaid x,
 * tid y, ... */
static void put_helper(cuplug__modern *m, LLVMValueRef fn, LLVMValueRef *globals) {
  LLVMContextRef c = m->ctx;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMValueRef status = LLVMGetParam(fn, 0);
  LLVMSetValueName2(status, "status", 6);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c, fn, "entry");
  LLVMBasicBlockRef not_ok = LLVMAppendBasicBlockInContext(c, fn, "not_ok");
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(c, fn, "store");
  LLVMBasicBlockRef record = LLVMAppendBasicBlockInContext(c, fn, "record");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "done");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);

  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef is_ok = LLVMBuildICmp(b, LLVMIntEQ, status, LLVMConstInt(i32, 0, 1), "is_ok");
  LLVMValueRef is_none =
      LLVMBuildICmp(b, LLVMIntEQ, status, LLVMConstInt(i32, (unsigned long long)-2, 1), "is_none");
  LLVMBuildCondBr(b, LLVMBuildOr(b, is_ok, is_none, "ok"), done, not_ok);

  LLVMPositionBuilderAtEnd(b, not_ok);
  LLVMValueRef is_python_exc = LLVMBuildICmp(
      b, LLVMIntEQ, status, LLVMConstInt(i32, (unsigned long long)-1, 1), "is_python_exc");
  LLVMBuildCondBr(b, is_python_exc, done, store);

  LLVMPositionBuilderAtEnd(b, store);
  LLVMValueRef xchg =
      LLVMBuildAtomicCmpXchg(b, globals[0], LLVMConstInt(i32, 0, 0), status,
                             LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
  LLVMSetValueName2(xchg, "xchg", 4);
  LLVMBuildCondBr(b, LLVMBuildExtractValue(b, xchg, 1, "changed"), record, done);

  LLVMPositionBuilderAtEnd(b, record);
  for (int r = 0; r < 2; r++)
    for (int d = 0; d < 3; d++)
      LLVMBuildStore(b, read_sreg(m, b, regs[r], dims[d]), globals[1 + 2 * d + r]);
  LLVMBuildBr(b, done);

  LLVMPositionBuilderAtEnd(b, done);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
}

cuplug_error *cuplug__modern_exc_store(cuplug__modern *m, const char *kernel,
                                       LLVMValueRef *helper) {
  cuplug__buf name;
  cuplug__buf_init(&name);
  cuplug_error *e = NULL;
  for (int i = 0; i < 8 && !e; i++) e = store_name(m, kernel, suffixes[i], &name);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(m->ctx);
  LLVMValueRef globals[7];
  for (int i = 0; i < 7 && !e; i++) {
    e = store_name(m, kernel, suffixes[i], &name);
    if (e) break;
    globals[i] = LLVMAddGlobal(m->mod, i32, name.data);
    LLVMSetInitializer(globals[i], LLVMConstInt(i32, 0, 0));
  }
  if (!e) e = store_name(m, kernel, suffixes[7], &name);
  if (!e) {
    LLVMTypeRef ty = LLVMFunctionType(LLVMVoidTypeInContext(m->ctx), &i32, 1, 0);
    *helper = LLVMAddFunction(m->mod, name.data, ty);
    put_helper(m, *helper, globals);
  }
  cuplug__buf_free(&name);
  return e;
}
