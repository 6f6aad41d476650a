/* kernel.h - cuplug.Kernel, and kernel[grid, block, ...] that launches it. */
#ifndef CUPLUG_PY_KERNEL_H
#define CUPLUG_PY_KERNEL_H

#include "shim.h"

/* Makes the types cuplug.Kernel (added to the module) and its Launcher. */
int shim_kernel_init(PyObject *module, shim_state *st);

/* A Kernel for `kernel`, found in the Library `library`, its arguments
 * packed by `signature`. */
PyObject *shim_kernel_new(shim_state *st, PyObject *library, cuplug_kernel *kernel,
                          const char *name, const cuplug_type *signature);

#endif
