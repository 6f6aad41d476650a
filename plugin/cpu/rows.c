/* rows.c - a row of a block's threads as one loop, for the vectoriser.
 *
 * Calling the launcher once per thread costs a call and the special
 * registers' reads per element: saxpy ran 19x slower than the same loop in
 * C.  Code that never synchronises needs no more than a loop over
 * threadIdx.x, so each kernel gets a second launcher,
 *
 *   void <CUPLUG__CPU_ROW><kernel>(void **params)
 *
 * which runs threads x = 0 .. ntid.x - 1 of one (y, z): after the first
 * optimisation has inlined the kernel into it, its body is wrapped in a
 * loop whose counter replaces every read of tid.x, each `ret` becomes the
 * next iteration, and the module is optimised again, which vectorises the
 * loop as it would the C one (CuPBoP's and COX's loops over threads).
 *
 * It is only kept where that is exact: the row launcher calls nothing of
 * the module's own (the kernel or a device function it did not inline,
 * which would read tid.x itself) and reads no other per-thread register
 * (laneid, the lane masks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/cpu/rows.h"
#include "plugin/cpu/launcher.h"

#define SREG "__cuplug_nvvm.read.ptx.sreg."

/* May the row launcher call `f`?  Declarations of LLVM, libm, the
 * runtime's registers that are the same for a whole row, and vprintf; not
 * __assertfail or a trap, whose messages name the thread (device_lib.c). */
static bool row_safe_callee(LLVMValueRef f) {
  if (!f || !LLVMIsAFunction(f) || !LLVMIsDeclaration(f)) return false;
  size_t len;
  const char *name = LLVMGetValueName2(f, &len);
  if (strcmp(name, "__cuplug_cuda.vprintf") == 0) return true;
  if (strncmp(name, "__cuplug_", 9) != 0) return true; /* llvm.*, libm */
  static const char *const same_for_a_row[] = {
      SREG "tid.y",   SREG "tid.z",    SREG "ntid.x",   SREG "ntid.y",   SREG "ntid.z",
      SREG "ctaid.x", SREG "ctaid.y",  SREG "ctaid.z",  SREG "nctaid.x", SREG "nctaid.y",
      SREG "nctaid.z", SREG "warpsize", "__cuplug_nvvm.membar.cta", "__cuplug_nvvm.membar.gl",
      "__cuplug_nvvm.membar.sys", "__cuplug_nvvm.clock64", "__cuplug_nvvm.globaltimer",
      "__cuplug_nvvm.nanosleep", "__cuplug_nvvm.dynamic_smem_size", SREG "clock",
      SREG "clock64", SREG "globaltimer", SREG "dynamic_smem_size"};
  for (size_t i = 0; i < sizeof same_for_a_row / sizeof same_for_a_row[0]; i++)
    if (strcmp(name, same_for_a_row[i]) == 0) return true;
  return false;
}

/* Calls to tid.x become the counter; false when some call is not safe. */
static bool replace_tid_x(LLVMValueRef fn, LLVMValueRef tid_x_fn, LLVMValueRef counter) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef next;
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
      next = LLVMGetNextInstruction(i);
      if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i)) continue;
      LLVMValueRef callee = LLVMGetCalledValue(i);
      if (tid_x_fn && callee == tid_x_fn) {
        LLVMReplaceAllUsesWith(i, counter);
        LLVMInstructionEraseFromParent(i);
      } else if (!row_safe_callee(callee)) {
        return false;
      }
    }
  }
  return true;
}

/* Is v there before the loop: a constant, an argument, or made in pre? */
static bool before_loop(LLVMValueRef v, LLVMBasicBlockRef pre) {
  if (!LLVMIsAInstruction(v)) return true;
  return LLVMGetInstructionParent(v) == pre;
}

/* The parameters' loads (launcher loads, marked invariant) and their
 * addresses go before the loop.  The first optimisation sank them into the
 * branch of the kernel's bounds check, and hoisting them back from there
 * would drop what says they may be read anywhere; without them in front,
 * the loop's array bases vary and the vectoriser gives up. */
static void hoist_parameters(LLVMValueRef fn, LLVMBasicBlockRef pre, LLVMBuilderRef b) {
  unsigned invariant = LLVMGetMDKindIDInContext(LLVMGetModuleContext(LLVMGetGlobalParent(fn)),
                                                "invariant.load", 14);
  for (bool moved = true; moved;) {
    moved = false;
    for (LLVMBasicBlockRef bb = LLVMGetNextBasicBlock(pre); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
        next = LLVMGetNextInstruction(i);
        bool load = LLVMIsALoadInst(i) && LLVMGetMetadata(i, invariant);
        bool gep = LLVMIsAGetElementPtrInst(i) && LLVMGetNumOperands(i) == 2 &&
                   LLVMIsAConstant(LLVMGetOperand(i, 1));
        if (!load && !gep) continue;
        if (!before_loop(LLVMGetOperand(i, 0), pre)) continue;
        LLVMInstructionRemoveFromParent(i);
        LLVMInsertIntoBuilder(b, i);
        moved = true;
      }
    }
  }
}

bool cuplug__cpu_make_row(LLVMModuleRef m, const char *kernel) {
  char name[4200];
  snprintf(name, sizeof name, "%s%s", CUPLUG__CPU_ROW, kernel);
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  if (!fn || LLVMIsDeclaration(fn)) return false;
  LLVMContextRef c = LLVMGetModuleContext(m);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(c);
  LLVMBasicBlockRef body = LLVMGetEntryBasicBlock(fn);
  LLVMBasicBlockRef pre = LLVMInsertBasicBlockInContext(c, body, "row.pre");
  LLVMBasicBlockRef head = LLVMInsertBasicBlockInContext(c, body, "row.head");
  LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(c, fn, "row.latch");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c, fn, "row.exit");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c);

  /* static allocas stay in the entry block, now row.pre */
  LLVMPositionBuilderAtEnd(b, pre);
  LLVMValueRef next;
  for (LLVMValueRef i = LLVMGetFirstInstruction(body); i; i = next) {
    next = LLVMGetNextInstruction(i);
    if (LLVMIsAAllocaInst(i)) {
      LLVMInstructionRemoveFromParent(i);
      LLVMInsertIntoBuilder(b, i);
    }
  }
  hoist_parameters(fn, pre, b);
  LLVMTypeRef sreg_ty = LLVMFunctionType(i32, NULL, 0, 0);
  LLVMValueRef ntid_fn = LLVMGetNamedFunction(m, SREG "ntid.x");
  if (!ntid_fn) ntid_fn = LLVMAddFunction(m, SREG "ntid.x", sreg_ty);
  LLVMValueRef ntid = LLVMBuildCall2(b, sreg_ty, ntid_fn, NULL, 0, "ntid.x");
  LLVMBuildBr(b, head);

  LLVMPositionBuilderAtEnd(b, head);
  LLVMValueRef x = LLVMBuildPhi(b, i32, "tid.x");
  LLVMBuildBr(b, body);

  LLVMPositionBuilderAtEnd(b, latch);
  LLVMValueRef x1 = LLVMBuildNUWAdd(b, x, LLVMConstInt(i32, 1, 0), "tid.x.next");
  LLVMValueRef more = LLVMBuildICmp(b, LLVMIntULT, x1, ntid, "");
  LLVMBuildCondBr(b, more, head, exit);
  LLVMValueRef zero = LLVMConstInt(i32, 0, 0);
  LLVMBasicBlockRef from[2] = {pre, latch};
  LLVMValueRef values[2] = {zero, x1};
  LLVMAddIncoming(x, values, from, 2);
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);

  /* each thread's return is the next thread */
  for (LLVMBasicBlockRef bb = body; bb != latch; bb = LLVMGetNextBasicBlock(bb)) {
    LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
    if (term && LLVMGetInstructionOpcode(term) == LLVMRet) {
      LLVMPositionBuilderBefore(b, term);
      LLVMBuildBr(b, latch);
      LLVMInstructionEraseFromParent(term);
    }
  }
  LLVMDisposeBuilder(b);
  return replace_tid_x(fn, LLVMGetNamedFunction(m, SREG "tid.x"), x);
}
