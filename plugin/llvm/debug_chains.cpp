// debug_chains.cpp - every inlinedAt chain and local scope chain that a
// module reaches, checked before LLVM follows them (debug_chains.h).
//
// The metadata is walked once from its roots, without recursion (a chain
// may be as long as the text is).  Each location and lexical block then
// has its chain followed until it meets a node already known to be good;
// a node met again on the same walk closes a cycle.  Both chains are
// functional (one link per node), so every node is followed once.
#include "plugin/llvm/debug_chains.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DebugProgramInstruction.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <vector>

namespace {

using llvm::dyn_cast;
using llvm::dyn_cast_or_null;
using llvm::isa;
using llvm::MDNode;
using llvm::Metadata;

// A metadata node's kind as the IR text writes it.
const char *kind_name(const Metadata *md) {
  switch (md->getMetadataID()) {
#define HANDLE_METADATA_LEAF(CLASS) \
  case Metadata::CLASS##Kind:       \
    return "!" #CLASS;
#include <llvm/IR/Metadata.def>
  }
  return "metadata";
}

unsigned line_of(const Metadata *md) {
  if (auto *l = dyn_cast<llvm::DILocation>(md)) return l->getLine();
  if (auto *b = dyn_cast<llvm::DILexicalBlock>(md)) return b->getLine();
  if (auto *s = dyn_cast<llvm::DISubprogram>(md)) return s->getLine();
  return 0;
}

class Checker {
 public:
  explicit Checker(cuplug__chain_finding *f) : finding(f) {}

  // Everything reachable from `root`, for code of `fn` (or none).
  bool reach(const Metadata *root, const llvm::Function *fn) {
    auto *n = dyn_cast_or_null<MDNode>(root);
    if (!n || !reached.insert(n).second) return true;
    std::vector<const MDNode *> todo{n};
    while (!todo.empty()) {
      const MDNode *cur = todo.back();
      todo.pop_back();
      if (!follow(cur, fn)) return false;
      for (const llvm::MDOperand &op : cur->operands()) {
        auto *next = dyn_cast_or_null<MDNode>(op.get());
        if (next && reached.insert(next).second) todo.push_back(next);
      }
    }
    return true;
  }

 private:
  static constexpr unsigned kGood = ~0u;
  llvm::DenseSet<const MDNode *> reached;
  // a chain's nodes: absent or 0, not followed yet; k, the k-th node of
  // the chain being followed; kGood, its chain ends well
  llvm::DenseMap<const MDNode *, unsigned> state_of;
  std::vector<const MDNode *> path;
  cuplug__chain_finding *finding;

  // The next node of n's chain, in *next (NULL at a chain's end), after
  // checking the link's kind; false where n is in no chain.
  bool link(const MDNode *n, const Metadata **next, cuplug__chain_fault *bad) {
    if (auto *loc = dyn_cast<llvm::DILocation>(n)) {
      if (!llvm::isa_and_nonnull<llvm::DILocalScope>(loc->getRawScope())) {
        *bad = CUPLUG__CHAIN_BAD_SCOPE;
        *next = loc->getRawScope();
      } else if (loc->getRawInlinedAt() && !isa<llvm::DILocation>(loc->getRawInlinedAt())) {
        *bad = CUPLUG__CHAIN_BAD_INLINED_AT;
        *next = loc->getRawInlinedAt();
      } else {
        *bad = CUPLUG__CHAIN_OK;
        *next = loc->getRawInlinedAt();
      }
      return true;
    }
    if (auto *block = dyn_cast<llvm::DILexicalBlockBase>(n)) {
      *next = block->getRawScope();
      *bad = llvm::isa_and_nonnull<llvm::DILocalScope>(*next) ? CUPLUG__CHAIN_OK
                                                         : CUPLUG__CHAIN_BAD_SCOPE;
      return true;
    }
    return false;
  }

  bool fail(cuplug__chain_fault fault, const MDNode *at, const Metadata *to, unsigned cycle,
            const llvm::Function *fn) {
    finding->fault = fault;
    finding->node = kind_name(at);
    finding->line = line_of(at);
    finding->cycle = cycle;
    finding->link = to ? kind_name(to) : nullptr;
    llvm::StringRef name = fn ? fn->getName() : llvm::StringRef();
    finding->fn = name.data();
    finding->fn_len = name.size();
    return false;
  }

  // Follows n's chain to a node known good, or to its end.
  bool follow(const MDNode *n, const llvm::Function *fn) {
    path.clear();
    const MDNode *cur = n;
    const Metadata *next;
    cuplug__chain_fault bad;
    bool ok = true;
    while (cur && link(cur, &next, &bad)) {
      unsigned &state = state_of[cur];
      if (state == kGood) break;
      if (state) {
        bool location = isa<llvm::DILocation>(cur);
        ok = fail(location ? CUPLUG__CHAIN_INLINED_AT_CYCLE : CUPLUG__CHAIN_SCOPE_CYCLE, cur,
                  cur, unsigned(path.size()) - state + 1, fn);
        break;
      }
      if (bad != CUPLUG__CHAIN_OK) {
        ok = fail(bad, cur, next, 0, fn);
        break;
      }
      path.push_back(cur);
      state = unsigned(path.size());
      // a location's chain is its inlinedAt locations; its scope's chain
      // is checked as a node of its own
      cur = dyn_cast_or_null<MDNode>(next);
    }
    for (const MDNode *p : path) state_of[p] = kGood;
    return ok;
  }
};

bool check_instruction(Checker &c, const llvm::Instruction &i, const llvm::Function *fn) {
  llvm::SmallVector<std::pair<unsigned, MDNode *>, 4> attached;
  i.getAllMetadata(attached);  // !dbg among them
  for (auto &a : attached)
    if (!c.reach(a.second, fn)) return false;
  if (auto *call = dyn_cast<llvm::CallBase>(&i))
    for (const llvm::Use &arg : call->args())
      if (auto *v = dyn_cast<llvm::MetadataAsValue>(arg.get()))
        if (!c.reach(v->getMetadata(), fn)) return false;
  for (const llvm::DbgRecord &r : i.getDbgRecordRange()) {
    if (!c.reach(r.getDebugLoc().getAsMDNode(), fn)) return false;
    if (auto *v = dyn_cast<llvm::DbgVariableRecord>(&r)) {
      if (!c.reach(v->getRawVariable(), fn) || !c.reach(v->getRawExpression(), fn))
        return false;
      if (v->isDbgAssign() &&
          (!c.reach(v->getRawAssignID(), fn) || !c.reach(v->getRawAddressExpression(), fn)))
        return false;
    } else if (auto *l = dyn_cast<llvm::DbgLabelRecord>(&r)) {
      if (!c.reach(l->getRawLabel(), fn)) return false;
    }
  }
  return true;
}

bool check_global(Checker &c, const llvm::GlobalObject &g, const llvm::Function *fn) {
  llvm::SmallVector<std::pair<unsigned, MDNode *>, 4> attached;
  g.getAllMetadata(attached);
  for (auto &a : attached)
    if (!c.reach(a.second, fn)) return false;
  return true;
}

}  // namespace

extern "C" bool cuplug__debug_chains_check(LLVMModuleRef mod, cuplug__chain_finding *f) {
  *f = cuplug__chain_finding{};
  const llvm::Module &m = *llvm::unwrap(mod);
  Checker c(f);
  for (const llvm::Function &fn : m) {
    if (!check_global(c, fn, &fn)) return false;
    for (const llvm::BasicBlock &b : fn)
      for (const llvm::Instruction &i : b)
        if (!check_instruction(c, i, &fn)) return false;
  }
  for (const llvm::GlobalVariable &g : m.globals())
    if (!check_global(c, g, nullptr)) return false;
  for (const llvm::NamedMDNode &named : m.named_metadata())
    for (const MDNode *n : named.operands())
      if (!c.reach(n, nullptr)) return false;
  return true;
}
