/* polls.h - where the JIT'd code looks whether its launch stops (polls.cpp). */
#ifndef CUPLUG__PLUGIN_CPU_POLLS_H
#define CUPLUG__PLUGIN_CPU_POLLS_H

#include <llvm-c/Core.h>

/* The JIT'd code's names (the runtime's, interrupt.c): the count it loads
 * at every poll, and what it calls when the count is not zero. */
#define CUPLUG__CPU_STOP_COUNT "__cuplug_nvvm.stop_count"
#define CUPLUG__CPU_STOP_POINT "__cuplug_nvvm.stop_point"

#ifdef __cplusplus
extern "C" {
#endif
/* A poll at each loop header and at the entry of each function of a cycle
 * of calls, once the module is optimised. */
void cuplug__cpu_add_polls(LLVMModuleRef m);
#ifdef __cplusplus
}
#endif

#endif
