/* session.h - cuplug.Session: the CUDA toolkit found, a registry, the
 * result cache; compiling, linking and loading. */
#ifndef CUPLUG_PY_SESSION_H
#define CUPLUG_PY_SESSION_H

#include "shim.h"

/* Makes the type cuplug.Session and adds it to the module. */
int shim_session_init(PyObject *module, shim_state *st);

#endif
