/* type.h - cuplug.Type: the plugin's interned types as Python objects, one
 * object per type. */
#ifndef CUPLUG_PY_TYPE_H
#define CUPLUG_PY_TYPE_H

#include "shim.h"

/* Makes the type cuplug.Type and adds it to the module. */
int shim_type_init(PyObject *module, shim_state *st);

/* The Python object of an interned type (None for NULL). */
PyObject *shim_type(shim_state *st, const cuplug_type *t);
/* A type from a Type object or a string ("float32[::1]"); NULL with an
 * exception when it is neither.  `what` names the value in messages. */
const cuplug_type *shim_type_from(shim_state *st, PyObject *obj, const char *what);
const cuplug_type *shim_type_of(PyObject *type_object); /* no checks: a Type */
bool shim_is_type(shim_state *st, PyObject *obj);

#endif
