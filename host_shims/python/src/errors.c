/* errors.c - the plugin's errors and warnings as Python's exceptions and
 * warnings, and the TypeErrors the conversions raise. */
#include <stdint.h>
#include <string.h>

#include "shim.h"

/* The exception a callback raised, per thread, until the call it broke
 * reports its error: in flight between one call and its callback, not a
 * setting of the module, so not in its state. */
static _Thread_local PyObject *callback_error;

void shim_keep_callback_error(void) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb && value) PyException_SetTraceback(value, tb);
  Py_XDECREF(type);
  Py_XDECREF(tb);
  Py_XDECREF(callback_error);
  callback_error = value;
}

PyObject *shim_type_error(const char *what, const char *expected, PyObject *got) {
  PyObject *name = PyType_GetName(Py_TYPE(got));
  if (!name) return NULL;
  PyErr_Format(PyExc_TypeError, "%s must be %s, not %U", what, expected, name);
  Py_DECREF(name);
  return NULL;
}

PyObject *shim_text(const char *s) {
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

PyObject *shim_raise(shim_state *st, cuplug_error *e) {
  const cuplug_api *api = st->api;
  cuplug_status code = api->error_code(e);
  PyObject *message = shim_text(api->error_message(e)), *log = shim_text(api->error_log(e));
  PyObject *exc = message && log ? PyObject_CallFunction(st->make_error, "isOO", (int)code,
                                                         api->status_name(code), message, log)
                                 : NULL;
  Py_XDECREF(message);
  Py_XDECREF(log);
  api->error_destroy(e);
  PyObject *cause = callback_error;
  callback_error = NULL;
  if (!exc || !PyExceptionInstance_Check(exc)) { /* the classes are Python's to replace */
    if (exc) shim_type_error("cuplug._make_error's answer", "an exception", exc);
    Py_XDECREF(exc);
    Py_XDECREF(cause);
    return NULL;
  }
  if (cause && code == CUPLUG_ERR_CALLBACK)
    PyException_SetCause(exc, cause); /* steals it */
  else
    Py_XDECREF(cause);
  PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
  Py_DECREF(exc);
  return NULL;
}

int shim_warn(shim_state *st, const cuplug_artifact *art) {
  const cuplug_api *api = st->api;
  const cuplug_error *w;
  for (size_t i = 0; (w = api->artifact_warning(art, i)); i++) {
    cuplug_status code = api->error_code(w);
    PyObject *message = shim_text(api->error_message(w));
    PyObject *r = message ? PyObject_CallFunction(st->warn, "isN", (int)code,
                                                  api->status_name(code), message)
                          : NULL;
    if (!r) return -1;
    Py_DECREF(r);
  }
  return 0;
}

int shim_u32(PyObject *obj, const char *what, uint32_t *out) {
  if (!PyLong_Check(obj)) {
    shim_type_error(what, "an int", obj);
    return -1;
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(obj);
  if (PyErr_Occurred() || v > UINT32_MAX) {
    PyErr_Clear();
    PyErr_Format(PyExc_ValueError, "%s must be 0 to %u", what, UINT32_MAX);
    return -1;
  }
  *out = (uint32_t)v;
  return 0;
}
