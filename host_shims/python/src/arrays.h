/* arrays.h - array and pointer arguments, from whatever holds an array:
 * CuPy's ndarray, __cuda_array_interface__, __dlpack__ and, for a host
 * library, the buffer protocol. */
#ifndef CUPLUG_PY_ARRAYS_H
#define CUPLUG_PY_ARRAYS_H

#include "values.h"

/* Argument i, an array, into p's array and value i. */
int shim_array_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p);
/* Argument i, a pointer: an int (a device address), or an array's data
 * pointer; in a host library, a buffer's. */
int shim_pointer_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p);

#endif
