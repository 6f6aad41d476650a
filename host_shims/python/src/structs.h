/* structs.h - a Struct's value (numba's struct models, a C struct by
 * value) from Python and back: in memory, the C struct of its members. */
#ifndef CUPLUG_PY_STRUCTS_H
#define CUPLUG_PY_STRUCTS_H

#include "values.h"

/* Argument i, a Struct, from a tuple of its members or a mapping of its
 * field names, into a buffer of p's views (a host call's). */
int shim_struct_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p);

/* The Struct t's value at `data` as a tuple of its members. */
PyObject *shim_struct_value(const cuplug_api *api, const cuplug_type *t, const char *data);

#endif
