/* gpu.h - libraries on the GPU, through the Driver API.
 *
 * Libraries are loaded with cuLibraryLoadData, which is context-independent,
 * so a kernel handle serves every context and survives device_reset. */
#ifndef CUPLUG__PLUGIN_LOAD_GPU_H
#define CUPLUG__PLUGIN_LOAD_GPU_H

#include "cuplug/cuplug.h"
#include "plugin/toolkit/toolkit.h"

cuplug_error *cuplug__load_gpu(cuplug_session *s, const void *image, cuplug__cu_library *out);
void cuplug__unload_gpu(cuplug_session *s, cuplug__cu_library lib);
/* The driver's handle of a kernel, with the two failures a user meets
 * explained: no such kernel, no code for this device. */
cuplug_error *cuplug__kernel_gpu(cuplug_session *s, cuplug__cu_library lib, const char *name,
                                 cuplug__cu_kernel *out);
/* Launches with the parameters packed (args.h): launch limits are checked
 * before the driver sees them; a debug kernel's exception store is cleared
 * before the launch and read after it. */
cuplug_error *cuplug__launch_gpu(cuplug_kernel *k, const cuplug_launch_args *a,
                                 void **params);

#endif
