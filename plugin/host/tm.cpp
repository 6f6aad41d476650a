// tm.cpp - the one setting of the JIT's target machine LLVM-C has no call
// for.  Shared memory becomes thread-local variables, one copy per block;
// emulated, their addresses come from __emutls_get_address, which the
// runtime defines to mean "this block's copy" (runtime.c).
#include <llvm/Target/TargetMachine.h>

#include "plugin/host/internal.h"

namespace llvm {
static inline TargetMachine *unwrap_tm(LLVMTargetMachineRef tm) {
  return reinterpret_cast<TargetMachine *>(tm);
}
}  // namespace llvm

extern "C" void cuplug__host_emulated_tls(LLVMTargetMachineRef tm) {
  llvm::unwrap_tm(tm)->Options.EmulatedTLS = true;
}
