/* library.h - cuplug.Library: code loaded by a session, on the GPU or (a
 * host artifact) on the CPU. */
#ifndef CUPLUG_PY_LIBRARY_H
#define CUPLUG_PY_LIBRARY_H

#include "shim.h"

/* Makes the type cuplug.Library and adds it to the module. */
int shim_library_init(PyObject *module, shim_state *st);

/* Session.load(what): a Library for an Artifact or the bytes of a cubin,
 * loaded by the session `session`. */
PyObject *shim_library_load(PyObject *session, PyObject *what);

#endif
