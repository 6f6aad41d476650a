/* shim.h - what every file of the extension module cuplug._cuplug shares:
 * the module's state, and how errors reach Python.
 *
 * The extension converts and delegates: Python values become the plugin's
 * argument structs, the plugin's handles become Python objects, its errors
 * become the exceptions cuplug/__init__.py defines.  It reaches the plugin
 * only through cuplug_get_api, like every host, and is written against
 * CPython's limited API (3.11), so that one build serves every Python from
 * 3.11 on.
 *
 * One file per type, as CPython keeps its modules.  A file uses the files
 * listed below it and none above it; objects.h lays out the objects for
 * all of them:
 *   module.c               the module: its state, _load, info, typeof, ...
 *   session.c, memory.c    cuplug.Session; its device memory
 *   library.c              cuplug.Library, and Library.call
 *   kernel.c               cuplug.Kernel and its Launcher: a launch
 *   interrupt.c            Ctrl-C during a launch or a call on the CPU
 *   arrays.c               array and pointer arguments (the four protocols)
 *   structs.c              a Struct's value, from a tuple or a mapping and back
 *   values.c               a call's arguments: scalars, and their storage
 *   registry.c             cuplug.Registry
 *   callbacks.c            Python typers and lowerers, called by the plugin
 *   artifact.c             cuplug.Artifact
 *   views.c                bytes and lists the plugin borrows during a call
 *   type.c                 cuplug.Type
 *   errors.c               the plugin's errors and warnings in Python */
#ifndef CUPLUG_PY_SHIM_H
#define CUPLUG_PY_SHIM_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x030B0000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include "cuplug/cuplug.h"

/* The attribute names the argument conversion looks up, interned once. */
#define SHIM_NAMES(X)                   \
  X(cai, "__cuda_array_interface__")    \
  X(dlpack, "__dlpack__")               \
  X(shape, "shape")                     \
  X(strides, "strides")                 \
  X(typestr, "typestr")                 \
  X(data, "data")                       \
  X(stream, "stream")                   \
  X(cuda_stream, "__cuda_stream__")     \
  X(ptr, "ptr")                         \
  X(handle, "handle")                   \
  X(cupy, "cupy")                       \
  X(dtype, "dtype")                     \
  X(num, "num")

typedef struct shim_names {
#define SHIM_NAME_FIELD(field, text) PyObject *field;
  SHIM_NAMES(SHIM_NAME_FIELD)
#undef SHIM_NAME_FIELD
} shim_names;

/* The module's state (module.c makes it; every type reaches it through
 * its own type object, shim_state_of). */
typedef struct shim_state {
  const cuplug_api *api;      /* the plugin's table, once _load has run (NULL before) */
  PyObject *make_error;       /* cuplug._make_error(code, name, message, log[, type_error]) */
  PyObject *warn;             /* cuplug._warn(code, name, message) */
  PyObject *types_by_address; /* int(address) -> Type: one object per type */
  PyTypeObject *type_type, *artifact_type, *registry_type, *session_type, *library_type,
      *kernel_type, *launcher_type;
  shim_names names;
  /* CuPy's ndarray and cupy.cuda.get_current_stream, once CuPy is imported
   * (arrays.c) */
  PyTypeObject *cupy_ndarray;
  PyObject *cupy_current_stream;
} shim_state;

/* The state of the module that made obj's type.  No type of this module
 * can be subclassed, so obj's type is always the one that module made. */
static inline shim_state *shim_state_of(PyObject *obj) {
  return PyType_GetModuleState(Py_TYPE(obj));
}

/* ---- errors (errors.c) ---- */

/* Raises the Python exception for a cuplug error (cuplug.CuplugError or a
 * subclass, through the factory __init__.py registers) and destroys the
 * error; returns NULL.  A CUPLUG_ERR_CALLBACK error is chained to the
 * exception a Python callback raised, when there was one. */
PyObject *shim_raise(shim_state *st, cuplug_error *e);
/* Issues a Python warning for each warning an artifact holds; -1 when a
 * warning became an exception (warnings filter "error"). */
int shim_warn(shim_state *st, const cuplug_artifact *art);
/* Raises TypeError("<what> must be <expected>, not <got's type>"); NULL. */
PyObject *shim_type_error(const char *what, const char *expected, PyObject *got);
/* Keeps the exception a callback raised on this thread, for shim_raise. */
void shim_keep_callback_error(void);
/* Unsigned integer arguments: a TypeError for what is no int, a
 * ValueError that names the value and the range for one outside it. */
int shim_u32(PyObject *obj, const char *what, uint32_t *out);
int shim_u64(PyObject *obj, const char *what, uint64_t *out);
/* Text of the plugin's (a message, a log, a symbol) as str: it quotes the
 * caller's source and the toolkit's words, which need not be UTF-8, so
 * bytes that are not are replaced rather than refused. */
PyObject *shim_text(const char *s);
/* Raises the module's own error of status code (the class __init__.py
 * gives it), with a message formatted as PyUnicode_FromFormat does; NULL. */
PyObject *shim_fail(shim_state *st, cuplug_status code, const char *fmt, ...);

/* ---- one exception tree: the module's own errors ----
 * Inside the module, conversions raise Python's TypeError and ValueError
 * (as CPython's own argument parsing does, and OverflowError); where a call
 * returns to Python they become cuplug.CuplugError subclasses with the same
 * words: shim_own, called on the way out of every method that takes
 * arguments (SHIM_OWN_1 and SHIM_OWN_2 wrap one).  A TypeError becomes the
 * class of type_code's TypeError twin, the others value_code's class:
 *   CUPLUG_ERR_INVALID_ARGUMENT  ArgumentTypeError, ArgumentError
 *   CUPLUG_ERR_LAUNCH_ARGS       LaunchArgumentError (a launch's or a call's)
 *   CUPLUG_ERR_LAUNCH_CONFIG     LaunchConfigError (kernel[grid, block, ...])
 * An exception that came through Python code (a caller's __index__) is
 * the caller's and is left as it is.  Returns NULL. */
PyObject *shim_own(shim_state *st, cuplug_status type_code, cuplug_status value_code);

/* fn_owned(self, arg): fn, whose failures are the module's own (shim_own). */
#define SHIM_OWN_1(fn, type_code, value_code)                            \
  static PyObject *fn##_owned(PyObject *self, PyObject *arg) {          \
    PyObject *r = fn(self, arg);                                         \
    return r ? r : shim_own(shim_state_of(self), type_code, value_code); \
  }
/* fn_owned(self, args, kw), likewise. */
#define SHIM_OWN_2(fn, type_code, value_code)                                 \
  static PyObject *fn##_owned(PyObject *self, PyObject *args, PyObject *kw) { \
    PyObject *r = fn(self, args, kw);                                         \
    return r ? r : shim_own(shim_state_of(self), type_code, value_code);      \
  }

#endif
