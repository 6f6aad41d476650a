/* nvvm20.c - the NVVM intrinsics of a module as libNVVM's reader knows
 * them.  libNVVM reads modern IR (cc 10.0 and up) with LLVM 20's reader;
 * LLVM 21 and 22 renamed some intrinsics as they read IR, and libNVVM
 * passes a name it does not know through to the PTX as an external call,
 * which no assembler takes.  So, before the module is written for libNVVM,
 * each renamed intrinsic goes back to its older name, or its call is
 * rewritten where the arguments changed too. */
#include <stdbool.h>
#include <string.h>

#include "base/error.h"
#include "plugin/llvm/internal.h"

/* Same type, older name. */
static const struct {
  const char *now, *then;
} renamed[] = {
    {"llvm.nvvm.fabs.f32", "llvm.fabs.f32"},
    {"llvm.nvvm.fabs.f64", "llvm.fabs.f64"},
    {"llvm.nvvm.fabs.ftz.f32", "llvm.nvvm.fabs.ftz.f"},
    {"llvm.nvvm.ex2.approx.f32", "llvm.nvvm.ex2.approx.f"},
    {"llvm.nvvm.ex2.approx.ftz.f32", "llvm.nvvm.ex2.approx.ftz.f"},
    {"llvm.nvvm.ex2.approx.f64", "llvm.nvvm.ex2.approx.d"},
    {"llvm.nvvm.barrier.cta.sync.all", "llvm.nvvm.barrier.sync"},
    {"llvm.nvvm.barrier.cta.sync.count", "llvm.nvvm.barrier.sync.cnt"},
    {"llvm.nvvm.barrier.cta.sync.aligned.count", "llvm.nvvm.barrier.sync.cnt"},
};

/* LLVM 22's barrier-and-reduce (i32 barrier, i1 predicate), once
 * barrier0's (i32 predicate), whose result was an i32 for all three. */
static const struct {
  const char *now, *then;
  bool boolean; /* and, or: LLVM 22 answers an i1 */
} reductions[] = {
    {"llvm.nvvm.barrier.cta.red.popc.aligned.all", "llvm.nvvm.barrier0.popc", false},
    {"llvm.nvvm.barrier.cta.red.and.aligned.all", "llvm.nvvm.barrier0.and", true},
    {"llvm.nvvm.barrier.cta.red.or.aligned.all", "llvm.nvvm.barrier0.or", true},
};

static LLVMValueRef declared(LLVMModuleRef mod, const char *name, LLVMTypeRef type) {
  LLVMValueRef f = LLVMGetNamedFunction(mod, name);
  return f ? f : LLVMAddFunction(mod, name, type);
}

static bool is_zero(LLVMValueRef v) {
  return LLVMIsAConstantInt(v) && LLVMConstIntGetZExtValue(v) == 0;
}

/* Each call of `now` made by `rewrite`, then `now` deleted. */
typedef void (*rewrite_fn)(cuplug__modern *m, LLVMBuilderRef b, LLVMValueRef call, int which);

static void rewrite_calls(cuplug__modern *m, LLVMValueRef now, rewrite_fn rewrite, int which) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(m->ctx);
  for (LLVMUseRef u = LLVMGetFirstUse(now); u; u = LLVMGetFirstUse(now)) {
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call)) break; /* taken as a value: left to libNVVM's message */
    LLVMPositionBuilderBefore(b, call);
    rewrite(m, b, call, which);
    LLVMInstructionEraseFromParent(call);
  }
  LLVMDisposeBuilder(b);
  if (!LLVMGetFirstUse(now)) LLVMDeleteFunction(now);
}

/* barrier.cta.sync.aligned.all(i32 id): barrier0() for barrier 0, else
 * barrier.sync(id). */
static void rewrite_barrier(cuplug__modern *m, LLVMBuilderRef b, LLVMValueRef call, int which) {
  (void)which;
  LLVMTypeRef i32 = LLVMInt32TypeInContext(m->ctx), v = LLVMVoidTypeInContext(m->ctx);
  LLVMValueRef id = LLVMGetOperand(call, 0);
  if (is_zero(id)) {
    LLVMTypeRef t = LLVMFunctionType(v, NULL, 0, 0);
    LLVMBuildCall2(b, t, declared(m->mod, "llvm.nvvm.barrier0", t), NULL, 0, "");
  } else {
    LLVMTypeRef t = LLVMFunctionType(v, &i32, 1, 0);
    LLVMBuildCall2(b, t, declared(m->mod, "llvm.nvvm.barrier.sync", t), &id, 1, "");
  }
}

/* barrier.cta.red.X.aligned.all(i32 0, i1 p) as barrier0.X(i32 zext p),
 * its answer made an i1 again for and/or. */
static void rewrite_reduction(cuplug__modern *m, LLVMBuilderRef b, LLVMValueRef call, int which) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(m->ctx);
  LLVMTypeRef t = LLVMFunctionType(i32, &i32, 1, 0);
  LLVMValueRef p = LLVMBuildZExt(b, LLVMGetOperand(call, 1), i32, "");
  LLVMValueRef r =
      LLVMBuildCall2(b, t, declared(m->mod, reductions[which].then, t), &p, 1, "");
  if (reductions[which].boolean) r = LLVMBuildICmp(b, LLVMIntNE, r, LLVMConstInt(i32, 0, 0), "");
  LLVMReplaceAllUsesWith(call, r);
}

cuplug_error *cuplug__modern_nvvm20_intrinsics(cuplug__modern *m) {
  for (size_t i = 0; i < sizeof renamed / sizeof renamed[0]; i++) {
    LLVMValueRef now = LLVMGetNamedFunction(m->mod, renamed[i].now);
    if (!now) continue;
    LLVMValueRef then = declared(m->mod, renamed[i].then, LLVMGlobalGetValueType(now));
    LLVMReplaceAllUsesWith(now, then);
    LLVMDeleteFunction(now);
  }
  LLVMValueRef barrier = LLVMGetNamedFunction(m->mod, "llvm.nvvm.barrier.cta.sync.aligned.all");
  if (barrier) rewrite_calls(m, barrier, rewrite_barrier, 0);
  for (int i = 0; i < (int)(sizeof reductions / sizeof reductions[0]); i++) {
    LLVMValueRef now = LLVMGetNamedFunction(m->mod, reductions[i].now);
    if (now) rewrite_calls(m, now, rewrite_reduction, i);
  }
  return NULL;
}
