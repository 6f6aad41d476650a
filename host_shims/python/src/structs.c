/* structs.c - a Struct's value from Python and back.
 *
 * host_call takes and returns a Struct as the C struct of its members, as
 * cuplug_host_function_args lays it out: each member at the next multiple
 * of its alignment (a scalar's is its size, a complex's its part's, a
 * struct's what type_info says).  Python gives one as a tuple of its
 * members (a namedtuple too) or as a mapping of its field names, and gets
 * one back as a tuple.  Members are scalars and structs of them: a
 * pointer or an array inside a struct has no Python value here. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "structs.h"

typedef struct member {
  cuplug_type_info info;
  size_t offset;
} member;

static bool scalar_kind(cuplug_type_kind k) {
  return (k >= CUPLUG_TYPE_BOOL && k <= CUPLUG_TYPE_COMPLEX128) || k == CUPLUG_TYPE_BFLOAT16;
}

/* The members of the struct si and where each lies (PyMem_Free them);
 * NULL when out of memory, with the exception set. */
static member *layout(const cuplug_api *api, const cuplug_type_info *si) {
  member *m = PyMem_Calloc(si->num_args, sizeof *m);
  if (!m) return (member *)PyErr_NoMemory();
  size_t end = 0;
  for (size_t k = 0; k < si->num_args; k++) {
    m[k].info = (cuplug_type_info){.struct_size = sizeof m[k].info, .type = si->args[k]};
    api->error_destroy(api->type_info(&m[k].info));
    cuplug_type_kind kind = m[k].info.kind;
    size_t align = kind == CUPLUG_TYPE_STRUCT ? m[k].info.align
                   : kind == CUPLUG_TYPE_COMPLEX64 || kind == CUPLUG_TYPE_COMPLEX128
                       ? m[k].info.size / 2
                       : m[k].info.size;
    if (!align) align = 1;
    m[k].offset = (end + align - 1) / align * align;
    end = m[k].offset + m[k].info.size;
  }
  return m;
}

/* Raises the argument's error: "field '<path>': <why>", or <why> alone for
 * the argument itself (path ""); -1. */
static int fail(const shim_callee *c, size_t i, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *why = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!why) return -1;
  if (*path)
    shim_arg_error(c, i, "field '%s': %U", path, why);
  else
    shim_arg_error(c, i, "%U", why);
  Py_DECREF(why);
  return -1;
}

static int fail_got(const shim_callee *c, size_t i, const char *path, const char *fmt,
                    PyObject *obj) {
  PyObject *tn = PyType_GetName(Py_TYPE(obj));
  if (!tn) return -1;
  fail(c, i, path, fmt, tn);
  Py_DECREF(tn);
  return -1;
}

/* A mapping's value of each field, in order; NULL with the error raised. */
static PyObject *by_name(const shim_callee *c, size_t i, const char *path,
                         const cuplug_type_info *si, PyObject *obj) {
  PyObject *items = PyTuple_New((Py_ssize_t)si->num_args);
  for (size_t k = 0; items && k < si->num_args; k++) {
    PyObject *v = PyMapping_GetItemString(obj, si->field_names[k]);
    if (!v) {
      if (PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyErr_Clear();
        fail(c, i, path, "field '%s' is missing", si->field_names[k]);
      }
      Py_CLEAR(items);
      break;
    }
    PyTuple_SetItem(items, (Py_ssize_t)k, v);
  }
  if (!items || PyMapping_Size(obj) == (Py_ssize_t)si->num_args) return items;
  /* every field is there, and something more: name one of the extra keys */
  PyObject *keys = PyMapping_Keys(obj);
  for (Py_ssize_t n = 0; keys && n < PyList_Size(keys); n++) {
    PyObject *key = PyList_GetItem(keys, n);
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, NULL) : NULL;
    bool known = false;
    for (size_t k = 0; name && k < si->num_args; k++) known |= !strcmp(name, si->field_names[k]);
    PyErr_Clear();
    if (!known) {
      fail(c, i, path, "the struct has no field %R", key);
      break;
    }
  }
  Py_XDECREF(keys);
  Py_DECREF(items);
  return NULL;
}

/* The value of each member, in order, from a tuple or a mapping. */
static PyObject *members_of(const shim_callee *c, size_t i, const char *path,
                            const cuplug_type_info *si, PyObject *obj) {
  if (PyTuple_Check(obj)) {
    if (PyTuple_Size(obj) == (Py_ssize_t)si->num_args) return Py_NewRef(obj);
    fail(c, i, path, "expected a tuple of %zu members, got %zd", si->num_args,
         PyTuple_Size(obj));
    return NULL;
  }
  if (PyMapping_Check(obj) && !PySequence_Check(obj)) return by_name(c, i, path, si, obj);
  fail_got(c, i, path, "expected a tuple of its members or a mapping of its field names, got %U",
           obj);
  return NULL;
}

static int pack(const shim_callee *c, size_t i, const cuplug_api *api, const cuplug_type *t,
                PyObject *obj, char *at, const char *path);

/* Member k, of value v, at its place in `at`. */
static int pack_member(const shim_callee *c, size_t i, const cuplug_api *api,
                       const cuplug_type_info *si, const member *m, size_t k, PyObject *v,
                       char *at, const char *path) {
  char inner[256];
  snprintf(inner, sizeof inner, "%s%s%s", path, *path ? "." : "", si->field_names[k]);
  cuplug_type_kind kind = m->info.kind;
  if (kind == CUPLUG_TYPE_STRUCT) return pack(c, i, api, si->args[k], v, at + m->offset, inner);
  if (!scalar_kind(kind))
    return fail(c, i, inner, "%s has no Python value in a struct", m->info.name);
  shim_param pr = {.type = si->args[k], .kind = kind, .itemsize = m->info.size};
  shim_slot s;
  const char *why;
  if (shim_scalar_value(&pr, v, &s, &why) < 0) return why ? fail_got(c, i, inner, why, v) : -1;
  memcpy(at + m->offset, &s, m->info.size);
  return 0;
}

static int pack(const shim_callee *c, size_t i, const cuplug_api *api, const cuplug_type *t,
                PyObject *obj, char *at, const char *path) {
  cuplug_type_info si = {.struct_size = sizeof si, .type = t};
  api->error_destroy(api->type_info(&si));
  PyObject *items = members_of(c, i, path, &si, obj);
  if (!items) return -1;
  member *m = layout(api, &si);
  int rc = m ? 0 : -1;
  for (size_t k = 0; rc == 0 && k < si.num_args; k++)
    rc = pack_member(c, i, api, &si, &m[k], k, PyTuple_GetItem(items, (Py_ssize_t)k), at, path);
  PyMem_Free(m);
  Py_DECREF(items);
  return rc;
}

int shim_struct_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p) {
  const shim_param *pr = &c->params[i];
  PyObject *room = PyByteArray_FromStringAndSize(NULL, pr->itemsize);
  if (!room) return -1;
  Py_buffer *view = &p->views[p->nviews];
  int rc = PyObject_GetBuffer(room, view, PyBUF_WRITABLE);
  Py_DECREF(room); /* the view keeps it */
  if (rc < 0) return -1;
  p->nviews++;
  memset(view->buf, 0, pr->itemsize);
  if (pack(c, i, p->st->api, pr->type, obj, view->buf, "") < 0) return -1;
  shim_pack_put(p, i, pr->kind, view->buf);
  return 0;
}

PyObject *shim_struct_value(const cuplug_api *api, const cuplug_type *t, const char *data) {
  cuplug_type_info si = {.struct_size = sizeof si, .type = t};
  api->error_destroy(api->type_info(&si));
  member *m = layout(api, &si);
  PyObject *out = m ? PyTuple_New((Py_ssize_t)si.num_args) : NULL;
  for (size_t k = 0; out && k < si.num_args; k++) {
    PyObject *v;
    if (m[k].info.kind == CUPLUG_TYPE_STRUCT) {
      v = shim_struct_value(api, si.args[k], data + m[k].offset);
    } else if (scalar_kind(m[k].info.kind)) {
      shim_slot s;
      memset(&s, 0, sizeof s);
      memcpy(&s, data + m[k].offset, m[k].info.size);
      v = shim_result_value(m[k].info.kind, &s);
    } else {
      v = PyErr_Format(PyExc_TypeError, "a host call cannot return a %s in a struct",
                       m[k].info.name);
    }
    if (!v) Py_CLEAR(out);
    else PyTuple_SetItem(out, (Py_ssize_t)k, v);
  }
  PyMem_Free(m);
  return out;
}
