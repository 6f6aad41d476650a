/* errors.c - the plugin's errors and warnings as Python's exceptions and
 * warnings; the TypeErrors and ValueErrors the conversions raise, and the
 * module's own exceptions they become where a call returns to Python. */
#include <stdarg.h>
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

/* Sets exc, the answer of cuplug._make_error, as the exception; NULL.  A
 * CUPLUG_ERR_CALLBACK error is chained to the exception a callback raised. */
static PyObject *set_error(PyObject *exc, cuplug_status code) {
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
  return set_error(exc, code);
}

/* The module's own error: make_error's class for code (its TypeError twin
 * when type_error), with message (stolen) and no log. */
static PyObject *raise_own(shim_state *st, cuplug_status code, PyObject *message,
                           bool type_error) {
  if (!message) return NULL;
  PyObject *exc = PyObject_CallFunction(st->make_error, "isNsO", (int)code,
                                        st->api->status_name(code), message, "",
                                        type_error ? Py_True : Py_False);
  return set_error(exc, code);
}

PyObject *shim_fail(shim_state *st, cuplug_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *message = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  return raise_own(st, code, message, false);
}

PyObject *shim_own(shim_state *st, cuplug_status type_code, cuplug_status value_code) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  bool is_type = type == PyExc_TypeError;
  /* one that went through Python code (a caller's __index__, say) is the
   * caller's, and keeps its class and traceback */
  bool own = !tb && st->api && st->make_error &&
             (is_type || type == PyExc_ValueError || type == PyExc_OverflowError);
  if (!own) {
    PyErr_Restore(type, value, tb);
    return NULL;
  }
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *message = value ? PyObject_Str(value) : NULL;
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return raise_own(st, is_type ? type_code : value_code, message, is_type);
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

/* An int within [0, max], else a ValueError that names the value and the
 * range (a TypeError when it is no int). */
static int unsigned_of(PyObject *obj, const char *what, unsigned long long max,
                       unsigned long long *out) {
  if (!PyLong_Check(obj)) {
    shim_type_error(what, "an int", obj);
    return -1;
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(obj); /* negative, past 64 bits: overflow */
  if (v == (unsigned long long)-1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
  } else if (v <= max) {
    *out = v;
    return 0;
  }
  PyErr_Format(PyExc_ValueError, "%s must be 0 to %llu, not %R", what, max, obj);
  return -1;
}

int shim_u32(PyObject *obj, const char *what, uint32_t *out) {
  unsigned long long v;
  if (unsigned_of(obj, what, UINT32_MAX, &v) < 0) return -1;
  *out = (uint32_t)v;
  return 0;
}

int shim_u64(PyObject *obj, const char *what, uint64_t *out) {
  unsigned long long v;
  if (unsigned_of(obj, what, UINT64_MAX, &v) < 0) return -1;
  *out = (uint64_t)v;
  return 0;
}
