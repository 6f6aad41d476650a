/* tm.h - what LLVM-C cannot set on a target machine (tm.cpp). */
#ifndef CUPLUG__PLUGIN_CPU_TM_H
#define CUPLUG__PLUGIN_CPU_TM_H

#include <llvm-c/TargetMachine.h>

#ifdef __cplusplus
extern "C" {
#endif
void cuplug__cpu_tm_options(LLVMTargetMachineRef tm);
#ifdef __cplusplus
}
#endif

#endif
