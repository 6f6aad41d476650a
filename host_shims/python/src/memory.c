/* memory.c - device memory through a session, for hosts without an array
 * library: addresses are ints, data is bytes. */
#include "memory.h"
#include "objects.h"
#include "views.h"

static cuplug_session *session_of(PyObject *self) { return ((shim_session *)self)->session; }

PyObject *shim_mem_alloc(PyObject *self, PyObject *arg) {
  uint64_t n;
  if (shim_u64(arg, "nbytes", &n) < 0) return NULL;
  shim_state *st = shim_state_of(self);
  uint64_t p = 0;
  cuplug_error *e = st->api->mem_alloc(session_of(self), (size_t)n, &p);
  return e ? shim_raise(st, e) : PyLong_FromUnsignedLongLong(p);
}

PyObject *shim_mem_free(PyObject *self, PyObject *arg) {
  uint64_t p;
  if (shim_u64(arg, "address", &p) < 0) return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_error *e = st->api->mem_free(session_of(self), p);
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}

PyObject *shim_to_device(PyObject *self, PyObject *args) {
  PyObject *address, *data;
  uint64_t p;
  if (!PyArg_ParseTuple(args, "OO:to_device", &address, &data) ||
      shim_u64(address, "address", &p) < 0)
    return NULL;
  shim_view v;
  if (shim_view_of(data, "data", &v) < 0) return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->memcpy_to_device(session_of(self), p, v.data,
                                                      (size_t)v.size);
  Py_END_ALLOW_THREADS
  shim_view_release(&v);
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}

PyObject *shim_to_host(PyObject *self, PyObject *args) {
  PyObject *address;
  uint64_t p;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "On:to_host", &address, &n) || shim_u64(address, "address", &p) < 0)
    return NULL;
  if (n < 0) return PyErr_Format(PyExc_ValueError, "nbytes must be 0 or more, not %zd", n);
  PyObject *out = PyBytes_FromStringAndSize(NULL, n);
  if (!out) return NULL;
  char *buf = PyBytes_AsString(out);
  shim_state *st = shim_state_of(self);
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->memcpy_to_host(session_of(self), buf, p, (size_t)n);
  Py_END_ALLOW_THREADS
  if (e) {
    Py_DECREF(out);
    return shim_raise(st, e);
  }
  return out;
}

PyObject *shim_synchronize(PyObject *self, PyObject *unused) {
  (void)unused;
  shim_state *st = shim_state_of(self);
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->synchronize(session_of(self));
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}
