// tm.cpp - the settings of the JIT's target machine LLVM-C has no call
// for.
//   * Shared memory becomes thread-local variables, one copy per block;
//     emulated, their addresses come from __emutls_get_address, which the
//     runtime defines to mean "this block's copy" (runtime.c).
//   * a * b + c is fused into one fma, as libNVVM does by default (-fma=1),
//     so that the CPU rounds once where the GPU does (on a CPU with FMA).
#include <llvm/Target/TargetMachine.h>

#include "plugin/cpu/tm.h"

namespace llvm {
static inline TargetMachine *unwrap_tm(LLVMTargetMachineRef tm) {
  return reinterpret_cast<TargetMachine *>(tm);
}
}  // namespace llvm

extern "C" void cuplug__cpu_tm_options(LLVMTargetMachineRef tm) {
  llvm::unwrap_tm(tm)->Options.EmulatedTLS = true;
  llvm::unwrap_tm(tm)->Options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
}
