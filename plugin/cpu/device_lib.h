/* device_lib.h - CUDA's device library on the CPU (vprintf, __assertfail,
 * llvm.trap), and the process's functions JIT'd code may call
 * (device_lib.c). */
#ifndef CUPLUG__PLUGIN_CPU_DEVICE_LIB_H
#define CUPLUG__PLUGIN_CPU_DEVICE_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include "plugin/cpu/symbol.h"

/* The runtime's name for a function of CUDA's device library the IR
 * declares (vprintf, __assertfail, llvm.trap), or NULL. */
const char *cuplug__cpu_device_function(const char *name);
/* The i-th of them, by the runtime's name, with its address; NULL past
 * the last. */
const cuplug__cpu_symbol *cuplug__cpu_device_symbol(size_t i);
/* May JIT'd code call the process's function `name`: libm's, libgcc's,
 * the mem* functions, malloc and free? */
bool cuplug__cpu_process_may_call(const char *name);

/* The running thread cannot go on (a failed assert, a trap): its launch,
 * or the host's call, fails with CUPLUG_ERR_KERNEL_FAULT and `msg` (taken;
 * NULL: out of memory), and it leaves the kernel (grid.c).  Outside both
 * (a device function the host calls through its own pointer) there is no
 * way out: the message goes to stderr and the process aborts, as a GPU's
 * context is lost. */
_Noreturn void cuplug__cpu_fault(char *msg);

#endif
