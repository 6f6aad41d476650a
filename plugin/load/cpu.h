/* cpu.h - libraries on the CPU (CUPLUG_OUTPUT_HOST), through the CPU
 * target's library, libcuplug-host.so (plugin/cpu/).  It is opened the
 * first time a process loads a CPU artifact, so that hosts which never run
 * on the CPU do not pay for it (at start-up or in memory): beside
 * libcuplug.so, or at $CUPLUG_HOST_LIBRARY.  Each session makes its JIT on
 * its first CPU load. */
#ifndef CUPLUG__PLUGIN_LOAD_CPU_H
#define CUPLUG__PLUGIN_LOAD_CPU_H

#include <stdint.h>

#include "cuplug/cuplug.h"

struct cuplug__cpu_lib;

cuplug_error *cuplug__load_cpu(cuplug_session *s, const cuplug_artifact *art,
                               struct cuplug__cpu_lib **out);
void cuplug__unload_cpu(struct cuplug__cpu_lib *lib);

/* Runs a kernel's grid on host threads; params as cuLaunchKernel takes them. */
cuplug_error *cuplug__launch_cpu(const cuplug_kernel *k, const cuplug_launch_args *a,
                                 void **params, size_t num_params);

/* host_function and host_call. */
cuplug_error *cuplug__function_cpu(cuplug_host_function_args *a);
cuplug_error *cuplug__call_cpu(cuplug_host_call_args *a);

#endif
