/* views.c - Python values the plugin reads during a call, borrowed rather
 * than copied. */
#include <stdio.h>
#include <string.h>

#include "views.h"

int shim_view_of(PyObject *obj, const char *what, shim_view *v) {
  memset(v, 0, sizeof *v);
  if (PyUnicode_Check(obj)) {
    v->data = PyUnicode_AsUTF8AndSize(obj, &v->size);
    return v->data ? 0 : -1;
  }
  if (PyBytes_Check(obj)) {
    char *d;
    if (PyBytes_AsStringAndSize(obj, &d, &v->size) < 0) return -1;
    v->data = d;
    return 0;
  }
  if (PyObject_CheckBuffer(obj)) {
    if (PyObject_GetBuffer(obj, &v->buffer, PyBUF_CONTIG_RO) < 0) return -1;
    v->has_buffer = true;
    v->data = v->buffer.buf;
    v->size = v->buffer.len;
    return 0;
  }
  shim_type_error(what, "text or bytes", obj);
  return -1;
}

void shim_view_release(shim_view *v) {
  if (v->has_buffer) PyBuffer_Release(&v->buffer);
  v->has_buffer = false;
}

void shim_list_free(shim_list *l) {
  for (size_t i = 0; i < l->n; i++) shim_view_release(&l->views[i]);
  PyMem_Free(l->items);
  PyMem_Free(l->ptrs);
  PyMem_Free(l->views);
  Py_XDECREF(l->keep);
  memset(l, 0, sizeof *l);
}

/* A tuple, not the caller's list: the plugin reads the items with the GIL
 * released or while calling back into Python, when the list may change. */
PyObject *shim_tuple_of(PyObject *seq, const char *what) {
  PyObject *fast = PySequence_Fast(seq, what);
  if (!fast) return NULL;
  PyObject *t = PySequence_Tuple(fast);
  Py_DECREF(fast);
  return t;
}

int shim_list_of(PyObject *seq, const char *what, size_t size, shim_item_fn convert,
                 shim_list *l) {
  memset(l, 0, sizeof *l);
  if (!seq || seq == Py_None) return 0;
  if (!(l->keep = shim_tuple_of(seq, what))) return -1;
  Py_ssize_t n = PyTuple_Size(l->keep);
  l->items = PyMem_Calloc((size_t)n + 1, size);
  l->ptrs = PyMem_Calloc((size_t)n + 1, sizeof *l->ptrs);
  l->views = PyMem_Calloc((size_t)n + 1, sizeof *l->views);
  int rc = l->items && l->ptrs && l->views ? 0 : (PyErr_NoMemory(), -1);
  for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
    void *out = (char *)l->items + (size_t)i * size;
    rc = convert(PyTuple_GetItem(l->keep, i), (size_t)i, out, &l->views[i]);
    l->ptrs[i] = out;
    l->n = (size_t)i + 1;
  }
  if (rc < 0) shim_list_free(l);
  return rc;
}

static int code_item(PyObject *item, size_t i, void *out, shim_view *v) {
  cuplug_code *c = out;
  *c = (cuplug_code){.struct_size = sizeof *c};
  char what[64];
  snprintf(what, sizeof what, "code %zu", i);
  if (PyUnicode_Check(item)) {
    c->path = PyUnicode_AsUTF8AndSize(item, NULL);
    return c->path ? 0 : -1;
  }
  if (!PyTuple_Check(item)) {
    if (shim_view_of(item, what, v) < 0) return -1;
    c->data = v->data;
    c->size = (size_t)v->size;
    return 0;
  }
  Py_ssize_t n = PyTuple_Size(item);
  if (n != 2 && n != 3) {
    PyErr_Format(PyExc_TypeError, "%s must be a path, bytes, (name, bytes) or "
                 "(kind, name, bytes)", what);
    return -1;
  }
  if (n == 3 && shim_u32(PyTuple_GetItem(item, 0), "a code's kind", (uint32_t *)&c->kind) < 0)
    return -1;
  PyObject *name = PyTuple_GetItem(item, n - 2);
  if (name != Py_None && !(c->name = PyUnicode_AsUTF8AndSize(name, NULL))) return -1;
  if (shim_view_of(PyTuple_GetItem(item, n - 1), what, v) < 0) return -1;
  c->data = v->data;
  c->size = (size_t)v->size;
  return 0;
}

int shim_code_list_of(PyObject *seq, shim_list *l) {
  return shim_list_of(seq, "code to link must be a sequence", sizeof(cuplug_code), code_item, l);
}

static int string_item(PyObject *item, size_t i, void *out, shim_view *v) {
  (void)i;
  (void)v;
  const char **s = out;
  *s = PyUnicode_AsUTF8AndSize(item, NULL);
  return *s ? 0 : -1;
}

int shim_strings_of(PyObject *seq, const char *what, shim_list *l) {
  return shim_list_of(seq, what, sizeof(const char *), string_item, l);
}
