/* memory.h - Session's calls on device memory, for hosts without an array
 * library; session.c lists them among Session's methods. */
#ifndef CUPLUG_PY_MEMORY_H
#define CUPLUG_PY_MEMORY_H

#include "shim.h"

PyObject *shim_mem_alloc(PyObject *session, PyObject *nbytes);
PyObject *shim_mem_free(PyObject *session, PyObject *address);
PyObject *shim_to_device(PyObject *session, PyObject *args);
PyObject *shim_to_host(PyObject *session, PyObject *args);
PyObject *shim_synchronize(PyObject *session, PyObject *unused);

#endif
