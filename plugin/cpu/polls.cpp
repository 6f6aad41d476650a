// polls.cpp - the points where a thread of a launch its host stops leaves
// the kernel (interrupt.c): the header of every loop, and the entry of
// every function on a cycle of calls, so that no thread runs long without
// passing one.  A poll loads the process's stop count and branches, almost
// never taken, to the runtime's stop point.  The polls go in once the
// module is optimised: a call in a loop, even on its cold path, would keep
// the vectoriser from the loop.  A row launcher's own loop over the
// threads of a row (rows.c), and the vectoriser's copies of it, are the
// top-level loops of its function: they end within 1024 iterations, run
// each thread's body, and get none (a poll there cost saxpy a fifth).
#include <llvm/ADT/SCCIterator.h>
#include <llvm/Analysis/CallGraph.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include <vector>

#include "plugin/cpu/launcher.h"
#include "plugin/cpu/polls.h"

namespace {

// After the entry block's allocas, which must stay where they are.
llvm::Instruction *after_allocas(llvm::Function &f) {
  llvm::BasicBlock::iterator i = f.getEntryBlock().getFirstInsertionPt();
  while (llvm::isa<llvm::AllocaInst>(*i)) ++i;
  return &*i;
}

void poll_at(llvm::Instruction *at, llvm::GlobalVariable *count, llvm::FunctionCallee point) {
  // what the optimiser inferred before the poll no longer holds
  llvm::Function *f = at->getFunction();
  for (llvm::Attribute::AttrKind k : {llvm::Attribute::Memory, llvm::Attribute::NoSync,
                                      llvm::Attribute::NoFree, llvm::Attribute::WillReturn,
                                      llvm::Attribute::NoRecurse})
    f->removeFnAttr(k);
  llvm::LLVMContext &c = at->getContext();
  llvm::IRBuilder<> b(at);
  llvm::LoadInst *n = b.CreateAlignedLoad(b.getInt32Ty(), count, llvm::Align(4));
  n->setAtomic(llvm::AtomicOrdering::Monotonic);
  llvm::Value *stop = b.CreateICmpNE(n, b.getInt32(0));
  llvm::MDNode *rarely = llvm::MDBuilder(c).createBranchWeights(1, 1u << 20);
  llvm::Instruction *then = llvm::SplitBlockAndInsertIfThen(stop, at, false, rarely);
  llvm::IRBuilder<>(then).CreateCall(point);
}

}  // namespace

extern "C" void cuplug__cpu_add_polls(LLVMModuleRef mod) {
  llvm::Module *m = llvm::unwrap(mod);
  llvm::LLVMContext &c = m->getContext();
  std::vector<llvm::Instruction *> at;
  for (llvm::Function &f : *m) {
    if (f.isDeclaration()) continue;
    bool row = f.getName().starts_with(CUPLUG__CPU_ROW);
    llvm::DominatorTree dt(f);
    llvm::LoopInfo li(dt);
    for (llvm::Loop *l : li.getLoopsInPreorder())
      if (!row || l->getParentLoop()) at.push_back(&*l->getHeader()->getFirstInsertionPt());
  }
  llvm::CallGraph cg(*m);
  for (llvm::scc_iterator<llvm::CallGraph *> scc = llvm::scc_begin(&cg); !scc.isAtEnd(); ++scc) {
    if (!scc.hasCycle()) continue;
    for (llvm::CallGraphNode *n : *scc)
      if (llvm::Function *f = n->getFunction(); f && !f->isDeclaration())
        at.push_back(after_allocas(*f));
  }
  if (at.empty()) return;
  llvm::Type *i32 = llvm::Type::getInt32Ty(c);
  llvm::GlobalVariable *count = m->getGlobalVariable(CUPLUG__CPU_STOP_COUNT);
  if (!count)
    count = new llvm::GlobalVariable(*m, i32, false, llvm::GlobalValue::ExternalLinkage, nullptr,
                                     CUPLUG__CPU_STOP_COUNT);
  llvm::FunctionCallee point =
      m->getOrInsertFunction(CUPLUG__CPU_STOP_POINT, llvm::FunctionType::get(llvm::Type::getVoidTy(c), false));
  if (auto *f = llvm::dyn_cast<llvm::Function>(point.getCallee()))
    f->addFnAttr(llvm::Attribute::Cold);
  for (llvm::Instruction *i : at) poll_at(i, count, point);
}
