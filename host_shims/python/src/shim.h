/* shim.h - what the files of the extension module cuplug._cuplug share.
 *
 * The extension converts and delegates: Python values become the plugin's
 * argument structs, the plugin's handles become Python objects, its errors
 * become the exceptions cuplug/__init__.py defines.  It reaches the plugin
 * only through cuplug_get_api, like every host, and is written against
 * CPython's limited API (3.11), so that one build serves every Python from
 * 3.11 on. */
#ifndef CUPLUG_PY_SHIM_H
#define CUPLUG_PY_SHIM_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

#include "cuplug/cuplug.h"

/* The plugin's table, once _load has run (NULL before). */
extern const cuplug_api *shim_api;

/* Raises the Python exception for a cuplug error (cuplug.CuplugError or a
 * subclass, through the factory __init__.py registers) and destroys the
 * error; returns NULL.  A CUPLUG_ERR_CALLBACK error is chained to the
 * exception a Python callback raised, when there was one. */
PyObject *shim_raise(cuplug_error *e);
/* Issues a Python warning for each warning an artifact holds; -1 when a
 * warning became an exception (warnings filter "error"). */
int shim_warn(const cuplug_artifact *art);
/* Raises TypeError("<what> must be <expected>, not <got's type>"); NULL. */
PyObject *shim_type_error(const char *what, const char *expected, PyObject *got);
/* Keeps the exception a callback raised on this thread, for shim_raise. */
void shim_keep_callback_error(void);

/* ---- types (module.c) ---- */

/* The Python object of an interned type (one object per type). */
PyObject *shim_type(const cuplug_type *t);
/* A type from a Type object or a string ("float32[::1]"); NULL with an
 * exception when it is neither.  `what` names the value in messages. */
const cuplug_type *shim_type_from(PyObject *obj, const char *what);
const cuplug_type *shim_type_of(PyObject *type_object); /* no checks: a Type */
bool shim_is_type(PyObject *obj);

/* ---- objects (session.c, launch.c) ---- */

typedef struct shim_registry {
  PyObject_HEAD
  cuplug_registry *registry;
  bool owns;           /* Registry() made it: it holds the plugin's reference */
  PyObject *owner;     /* the session whose registry it is, kept alive, or NULL */
  PyObject *callbacks; /* a list: the callables the registry calls, kept alive */
} shim_registry;

typedef struct shim_session {
  PyObject_HEAD
  cuplug_session *session;
  PyObject *registry; /* its shim_registry */
} shim_session;

typedef struct shim_artifact {
  PyObject_HEAD
  cuplug_artifact *artifact;
} shim_artifact;

extern PyTypeObject *shim_session_type, *shim_registry_type, *shim_artifact_type,
    *shim_library_type, *shim_kernel_type, *shim_launcher_type, *shim_type_type;

int shim_session_init_types(PyObject *module);
int shim_launch_init_types(PyObject *module);

/* An unsigned integer argument, with a TypeError naming it. */
int shim_u32(PyObject *obj, const char *what, uint32_t *out);

#endif
