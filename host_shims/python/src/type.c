/* type.c - cuplug.Type: a numba-style type, interned: equal types are the
 * same object, kept in the module's types_by_address. */
#include <string.h>

#include "type.h"

typedef struct shim_type_object {
  PyObject_HEAD
  const cuplug_type *type;
} shim_type_object;

bool shim_is_type(shim_state *st, PyObject *obj) { return Py_TYPE(obj) == st->type_type; }

const cuplug_type *shim_type_of(PyObject *obj) { return ((shim_type_object *)obj)->type; }

PyObject *shim_type(shim_state *st, const cuplug_type *t) {
  if (!t) Py_RETURN_NONE;
  PyObject *key = PyLong_FromVoidPtr((void *)t);
  if (!key) return NULL;
  PyObject *obj = PyDict_GetItemWithError(st->types_by_address, key);
  if (obj) {
    Py_DECREF(key);
    return Py_NewRef(obj);
  }
  if (PyErr_Occurred()) {
    Py_DECREF(key);
    return NULL;
  }
  shim_type_object *o = PyObject_GC_New(shim_type_object, st->type_type);
  if (o) {
    o->type = t;
    PyObject_GC_Track(o);
    if (PyDict_SetItem(st->types_by_address, key, (PyObject *)o) < 0) Py_CLEAR(o);
  }
  Py_DECREF(key);
  return (PyObject *)o;
}

const cuplug_type *shim_type_from(shim_state *st, PyObject *obj, const char *what) {
  if (shim_is_type(st, obj)) return shim_type_of(obj);
  if (!PyUnicode_Check(obj)) {
    shim_type_error(what, "a type name such as 'float32[::1]', or a cuplug.Type", obj);
    return NULL;
  }
  const char *text = PyUnicode_AsUTF8AndSize(obj, NULL);
  if (!text) return NULL;
  const cuplug_type *t = NULL;
  cuplug_error *e = st->api->type_parse(text, &t);
  if (e) {
    shim_raise(st, e);
    return NULL;
  }
  return t;
}

/* Never fails: the module makes Types only around a type. */
static cuplug_type_info info_of(PyObject *self) {
  const cuplug_api *api = shim_state_of(self)->api;
  cuplug_type_info i = {.struct_size = sizeof i, .type = shim_type_of(self)};
  api->error_destroy(api->type_info(&i));
  return i;
}

static PyObject *type_repr(PyObject *self) {
  return PyUnicode_FromFormat("cuplug.Type('%s')", info_of(self).name);
}

static PyObject *type_str(PyObject *self) { return PyUnicode_FromString(info_of(self).name); }

static Py_hash_t type_hash(PyObject *self) { return (Py_hash_t)(intptr_t)shim_type_of(self) >> 4; }

/* Types are interned: equal types are the same object; a type also equals
 * its name. */
static PyObject *type_compare(PyObject *a, PyObject *b, int op) {
  if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
  bool same;
  if (shim_is_type(shim_state_of(a), b)) {
    same = shim_type_of(a) == shim_type_of(b);
  } else if (PyUnicode_Check(b)) {
    const char *name = PyUnicode_AsUTF8AndSize(b, NULL);
    if (!name) return NULL;
    same = strcmp(info_of(a).name, name) == 0;
  } else {
    Py_RETURN_NOTIMPLEMENTED;
  }
  return PyBool_FromLong(same == (op == Py_EQ));
}

/* A tuple of the types ts[0..n). */
static PyObject *type_tuple(shim_state *st, const cuplug_type *const *ts, size_t n) {
  PyObject *tuple = PyTuple_New((Py_ssize_t)n);
  for (size_t k = 0; tuple && k < n; k++) {
    PyObject *t = shim_type(st, ts[k]);
    if (!t) {
      Py_CLEAR(tuple);
      break;
    }
    PyTuple_SetItem(tuple, (Py_ssize_t)k, t);
  }
  return tuple;
}

/* One getter per attribute, named after it (type_<name>): GETTER below
 * builds the table from the name alone, so an attribute cannot be served
 * by another's getter. */
#define GETTER(name) static PyObject *type_##name(PyObject *self, void *unused)

GETTER(name) {
  (void)unused;
  return PyUnicode_FromString(info_of(self).name);
}

GETTER(kind) {
  (void)unused;
  return PyLong_FromLong(info_of(self).kind);
}

GETTER(element) {
  (void)unused;
  return shim_type(shim_state_of(self), info_of(self).element);
}

GETTER(ndim) {
  (void)unused;
  return PyLong_FromUnsignedLong(info_of(self).ndim);
}

GETTER(layout) {
  (void)unused;
  cuplug_layout l = info_of(self).layout;
  return PyUnicode_FromString(l == CUPLUG_LAYOUT_C ? "C" : l == CUPLUG_LAYOUT_F ? "F" : "A");
}

GETTER(restype) {
  (void)unused;
  return shim_type(shim_state_of(self), info_of(self).restype);
}

GETTER(args) {
  (void)unused;
  cuplug_type_info i = info_of(self);
  return type_tuple(shim_state_of(self), i.args, i.num_args);
}

GETTER(size) {
  (void)unused;
  return PyLong_FromUnsignedLong(info_of(self).size);
}

GETTER(literal_value) {
  (void)unused;
  return PyLong_FromLongLong(info_of(self).literal_value);
}

GETTER(align) {
  (void)unused;
  return PyLong_FromUnsignedLong(info_of(self).align);
}

GETTER(text) {
  (void)unused;
  cuplug_type_info i = info_of(self);
  if (!i.text) Py_RETURN_NONE;
  return PyUnicode_FromString(i.text);
}

/* A record's fields: ((name, type, offset), ...); a struct's with the
 * offset None (its members lie as its IR struct lays them out); None for
 * other types. */
GETTER(fields) {
  (void)unused;
  cuplug_type_info i = info_of(self);
  if (i.kind != CUPLUG_TYPE_RECORD && i.kind != CUPLUG_TYPE_STRUCT) Py_RETURN_NONE;
  PyObject *fields = PyTuple_New((Py_ssize_t)i.num_args);
  for (size_t f = 0; fields && f < i.num_args; f++) {
    PyObject *t = shim_type(shim_state_of(self), i.args[f]);
    PyObject *field =
        !t ? NULL
        : i.field_offsets ? Py_BuildValue("(sNI)", i.field_names[f], t, i.field_offsets[f])
                          : Py_BuildValue("(sNO)", i.field_names[f], t, Py_None);
    if (!field) {
      Py_CLEAR(fields);
      break;
    }
    PyTuple_SetItem(fields, (Py_ssize_t)f, field);
  }
  return fields;
}

#undef GETTER
#define GETTER(name, doc) {#name, type_##name, NULL, doc, NULL}

static PyGetSetDef type_getset[] = {
    GETTER(name, "The canonical name, which parses back to this type."),
    GETTER(kind, "The cuplug_type_kind number."),
    GETTER(element, "A pointer's pointee, an array's dtype, else None."),
    GETTER(ndim, "An array's dimensions."),
    GETTER(layout, "An array's layout: 'C', 'F' or 'A'."),
    GETTER(restype, "A signature's return type, else None."),
    GETTER(args, "A signature's argument types, a tuple's elements."),
    GETTER(size, "Bytes of a scalar or pointer value, or of a record or a struct, else 0."),
    GETTER(literal_value, "An integer literal's value."),
    GETTER(align, "A record's or a struct's alignment in bytes, else 0."),
    GETTER(fields, "A record's fields, ((name, type, offset), ...), a struct's with offset "
                   "None; else None."),
    GETTER(text, "An Opaque's or Omitted's text, else None."),
    {NULL, NULL, NULL, NULL, NULL}};

#undef GETTER

/* A Type refers to its type object, which refers to the module, whose
 * types_by_address holds the Type: the collector must see that cycle. */
static int type_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static void type_dealloc(PyObject *self) {
  PyObject_GC_UnTrack(self);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_GC_Del(self);
  Py_DECREF(t);
}

static PyType_Slot type_slots[] = {
    {Py_tp_doc, "A numba-style type, interned: equal types are the same object.\n\n"
                "Made by cuplug.typeof('float32[::1]') or handed out by the calls that\n"
                "answer with types."},
    {Py_tp_repr, type_repr},
    {Py_tp_str, type_str},
    {Py_tp_hash, type_hash},
    {Py_tp_richcompare, type_compare},
    {Py_tp_getset, type_getset},
    {Py_tp_traverse, type_traverse},
    {Py_tp_dealloc, type_dealloc},
    {0, NULL}};

/* Made by the module only, one per type (shim_type): from Python,
 * cuplug.typeof. */
static PyType_Spec type_spec = {
    "cuplug.Type", sizeof(shim_type_object), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_DISALLOW_INSTANTIATION, type_slots};

int shim_type_init(PyObject *m, shim_state *st) {
  st->type_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &type_spec, NULL);
  if (!st->type_type) return -1;
  return PyModule_AddType(m, st->type_type);
}
