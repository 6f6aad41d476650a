/* library.h - load(): code made a library on its target, the GPU (a
 * cubin, through the driver) or the CPU (IR, through the CPU JIT); and
 * the kernels of a library. */
#ifndef CUPLUG__PLUGIN_LOAD_LIBRARY_H
#define CUPLUG__PLUGIN_LOAD_LIBRARY_H

#include "cuplug/cuplug.h"

cuplug_error *cuplug__load(cuplug_load_args *a);
void cuplug__library_unload(cuplug_library *l);
cuplug_error *cuplug__kernel_get(cuplug_kernel_args *a);
cuplug_error *cuplug__kernel_info(cuplug_kernel_info *a);

#endif
