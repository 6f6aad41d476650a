/* registry.h - cuplug.Registry: typing templates and lowerings. */
#ifndef CUPLUG_PY_REGISTRY_H
#define CUPLUG_PY_REGISTRY_H

#include "objects.h"

/* Makes the type cuplug.Registry and adds it to the module. */
int shim_registry_init(PyObject *module, shim_state *st);

/* A Registry for r: owned (destroyed with it) when owner is NULL, else
 * the registry of the session `owner`, which it keeps alive. */
PyObject *shim_registry_wrap(shim_state *st, cuplug_registry *r, PyObject *owner);

/* An abi argument: None (the default), "numba" or "c" into *out; anything
 * else is the OptionError CUPLUG_ERR_OPTION_ABI, in the caller's words
 * ("Unsupported <what>: cpp"), not the number it would be cast to. */
int shim_abi_of(shim_state *st, const char *abi, const char *what, cuplug_abi *out);

#endif
