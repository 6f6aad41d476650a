/* callbacks.c - Python callables as the plugin's typing and lowering
 * callbacks.  The plugin calls them from whichever thread types or lowers,
 * holding the GIL or not: each takes it, and a Python exception becomes the
 * callback's message and the cause of the error the call reports. */
#include <stdio.h>

#include "callbacks.h"
#include "type.h"
#include "views.h"

PyObject *shim_callback_new(PyObject *module, PyObject *fn) {
  return PyTuple_Pack(2, fn, module);
}

static PyObject *callback_fn(void *user) { return PyTuple_GetItem((PyObject *)user, 0); }

static shim_state *callback_state(void *user) {
  return PyModule_GetState(PyTuple_GetItem((PyObject *)user, 1));
}

/* A callback's Python exception, said in `message` (with its class name
 * when `with_type`, else `fallback` when it has no words) and kept for the
 * call that made the plugin call back (shim_keep_callback_error). */
static void callback_failed(char *message, size_t message_size, bool with_type,
                            const char *fallback) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *text = value ? PyObject_Str(value) : NULL;
  const char *s = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  PyObject *tname = with_type && type ? PyType_GetName((PyTypeObject *)type) : NULL;
  const char *n = tname ? PyUnicode_AsUTF8AndSize(tname, NULL) : NULL;
  if (with_type)
    snprintf(message, message_size, "%s: %s", n ? n : "exception", s ? s : "");
  else
    snprintf(message, message_size, "%s", s ? s : fallback);
  Py_XDECREF(tname);
  Py_XDECREF(text);
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
  shim_keep_callback_error();
}

cuplug_callback_status shim_python_typer(void *user, const char *key,
                                         const cuplug_type *const *argtypes, size_t nargs,
                                         const cuplug_type **signature, char *message,
                                         size_t message_size) {
  PyGILState_STATE g = PyGILState_Ensure();
  shim_state *st = callback_state(user);
  cuplug_callback_status status = CUPLUG_CALLBACK_FAILED;
  PyObject *types = PyTuple_New((Py_ssize_t)nargs);
  for (size_t i = 0; types && i < nargs; i++) {
    PyObject *t = shim_type(st, argtypes[i]);
    if (!t) Py_CLEAR(types);
    else PyTuple_SetItem(types, (Py_ssize_t)i, t);
  }
  PyObject *r = types ? PyObject_CallFunction(callback_fn(user), "sO", key, types) : NULL;
  Py_XDECREF(types);
  if (r == Py_None) {
    status = CUPLUG_CALLBACK_NO_MATCH;
  } else if (r) {
    const cuplug_type *t = shim_type_from(st, r, "the typer's answer");
    if (t) {
      *signature = t;
      status = CUPLUG_CALLBACK_OK;
    }
  }
  if (status == CUPLUG_CALLBACK_FAILED && PyErr_Occurred())
    callback_failed(message, message_size, true, NULL);
  Py_XDECREF(r);
  PyGILState_Release(g);
  return status;
}

/* What a lowering callback answered last, kept until its next call on this
 * thread (the plugin copies it as soon as the callback returns). */
static _Thread_local PyObject *last_ir;

cuplug_callback_status shim_python_lowerer(void *user, const char *key,
                                           const cuplug_type *signature, const char *symbol,
                                           cuplug_abi abi, const char **ir, size_t *ir_size,
                                           char *message, size_t message_size) {
  PyGILState_STATE g = PyGILState_Ensure();
  cuplug_callback_status status = CUPLUG_CALLBACK_FAILED;
  PyObject *sig = shim_type(callback_state(user), signature);
  PyObject *r = sig ? PyObject_CallFunction(callback_fn(user), "sOss", key, sig, symbol,
                                            abi == CUPLUG_ABI_C ? "c" : "numba")
                    : NULL;
  Py_XDECREF(sig);
  shim_view v;
  if (r && shim_view_of(r, "the lowering's answer", &v) == 0) {
    shim_view_release(&v);
    PyObject *old = last_ir;
    last_ir = Py_NewRef(r);
    Py_XDECREF(old);
    *ir = v.data;
    *ir_size = (size_t)v.size;
    status = CUPLUG_CALLBACK_OK;
  }
  if (status != CUPLUG_CALLBACK_OK)
    callback_failed(message, message_size, false, "the lowering failed");
  Py_XDECREF(r);
  PyGILState_Release(g);
  return status;
}
