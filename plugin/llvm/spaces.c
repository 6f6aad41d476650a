/* spaces.c - the address spaces of a module (spaces.h). */
#include "plugin/llvm/spaces.h"

/* An address space `has` refuses in type t, pointers inside aggregates
 * too; 0 when there is none. */
static unsigned foreign_space(LLVMTypeRef t, bool (*has)(unsigned)) {
  switch (LLVMGetTypeKind(t)) {
    case LLVMPointerTypeKind: {
      unsigned as = LLVMGetPointerAddressSpace(t);
      return has(as) ? 0 : as;
    }
    case LLVMArrayTypeKind:
    case LLVMVectorTypeKind:
    case LLVMScalableVectorTypeKind: return foreign_space(LLVMGetElementType(t), has);
    case LLVMStructTypeKind: {
      unsigned n = LLVMCountStructElementTypes(t);
      for (unsigned i = 0; i < n; i++) {
        unsigned as = foreign_space(LLVMStructGetTypeAtIndex(t, i), has);
        if (as) return as;
      }
      return 0;
    }
    default: return 0;
  }
}

/* ... in a value's type, or a constant expression's operands (an
 * addrspacecast of a global hides the global's space). */
static unsigned value_space(LLVMValueRef v, int depth, bool (*has)(unsigned)) {
  unsigned as = foreign_space(LLVMTypeOf(v), has);
  if (as || depth == 0 || !LLVMIsAConstantExpr(v)) return as;
  int n = LLVMGetNumOperands(v);
  for (int i = 0; i < n && !as; i++) as = value_space(LLVMGetOperand(v, i), depth - 1, has);
  return as;
}

static unsigned instruction_space(LLVMValueRef i, bool (*has)(unsigned)) {
  unsigned as = value_space(i, 0, has);
  if (!as && LLVMIsAAllocaInst(i)) as = foreign_space(LLVMGetAllocatedType(i), has);
  int n = LLVMGetNumOperands(i);
  for (int k = 0; k < n && !as; k++) as = value_space(LLVMGetOperand(i, k), 4, has);
  return as;
}

static unsigned function_space(LLVMValueRef f, bool (*has)(unsigned)) {
  unsigned as = foreign_space(LLVMGetReturnType(LLVMGlobalGetValueType(f)), has);
  for (unsigned i = 0; i < LLVMCountParams(f) && !as; i++)
    as = value_space(LLVMGetParam(f, i), 0, has);
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb && !as; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i && !as; i = LLVMGetNextInstruction(i))
      as = instruction_space(i, has);
  return as;
}

unsigned cuplug__llvm_foreign_space(LLVMModuleRef m, bool (*has)(unsigned space),
                                    LLVMValueRef *where) {
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    unsigned as = value_space(g, 0, has);
    if (!as) as = foreign_space(LLVMGlobalGetValueType(g), has);
    LLVMValueRef init = LLVMGetInitializer(g);
    if (!as && init) as = value_space(init, 4, has);
    if (as) {
      *where = g;
      return as;
    }
  }
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    unsigned as = function_space(f, has);
    if (as) {
      *where = f;
      return as;
    }
  }
  return 0;
}
