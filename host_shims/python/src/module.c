/* module.c - cuplug._cuplug: loading the plugin, errors and warnings,
 * types, versions. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "shim.h"

const cuplug_api *shim_api;
static void *plugin;
static PyObject *error_factory;   /* cuplug._make_error(code, name, message, log) */
static PyObject *warning_factory; /* cuplug._warn(code, name, message) */
static PyObject *types_by_address; /* int(address) -> Type: one object per type */

/* The exception a callback raised, per thread, until the call it broke
 * reports its error. */
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

PyObject *shim_raise(cuplug_error *e) {
  cuplug_status code = shim_api->error_code(e);
  PyObject *exc = PyObject_CallFunction(error_factory, "isss", (int)code,
                                        shim_api->status_name(code), shim_api->error_message(e),
                                        shim_api->error_log(e));
  shim_api->error_destroy(e);
  PyObject *cause = callback_error;
  callback_error = NULL;
  if (!exc) {
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

int shim_warn(const cuplug_artifact *art) {
  const cuplug_error *w;
  for (size_t i = 0; (w = shim_api->artifact_warning(art, i)); i++) {
    cuplug_status code = shim_api->error_code(w);
    PyObject *r = PyObject_CallFunction(warning_factory, "iss", (int)code,
                                        shim_api->status_name(code), shim_api->error_message(w));
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

/* ---- types ---- */

typedef struct shim_type_object {
  PyObject_HEAD
  const cuplug_type *type;
} shim_type_object;

PyTypeObject *shim_type_type;

bool shim_is_type(PyObject *obj) { return Py_TYPE(obj) == shim_type_type; }

const cuplug_type *shim_type_of(PyObject *obj) { return ((shim_type_object *)obj)->type; }

PyObject *shim_type(const cuplug_type *t) {
  if (!t) Py_RETURN_NONE;
  PyObject *key = PyLong_FromVoidPtr((void *)t);
  if (!key) return NULL;
  PyObject *obj = PyDict_GetItemWithError(types_by_address, key);
  if (obj) {
    Py_DECREF(key);
    return Py_NewRef(obj);
  }
  if (PyErr_Occurred()) {
    Py_DECREF(key);
    return NULL;
  }
  shim_type_object *o = PyObject_New(shim_type_object, shim_type_type);
  if (o) {
    o->type = t;
    if (PyDict_SetItem(types_by_address, key, (PyObject *)o) < 0) Py_CLEAR(o);
  }
  Py_DECREF(key);
  return (PyObject *)o;
}

const cuplug_type *shim_type_from(PyObject *obj, const char *what) {
  if (shim_is_type(obj)) return shim_type_of(obj);
  if (!PyUnicode_Check(obj)) {
    shim_type_error(what, "a type name such as 'float32[::1]', or a cuplug.Type", obj);
    return NULL;
  }
  const char *text = PyUnicode_AsUTF8AndSize(obj, NULL);
  if (!text) return NULL;
  const cuplug_type *t = NULL;
  cuplug_error *e = shim_api->type_parse(text, &t);
  if (e) {
    shim_raise(e);
    return NULL;
  }
  return t;
}

static cuplug_type_info info_of(const cuplug_type *t) {
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  shim_api->error_destroy(shim_api->type_info(&i));
  return i;
}

static PyObject *type_repr(PyObject *self) {
  return PyUnicode_FromFormat("cuplug.Type('%s')", info_of(shim_type_of(self)).name);
}

static PyObject *type_str(PyObject *self) {
  return PyUnicode_FromString(info_of(shim_type_of(self)).name);
}

static Py_hash_t type_hash(PyObject *self) { return (Py_hash_t)(intptr_t)shim_type_of(self) >> 4; }

/* Types are interned: equal types are the same object; a type also equals
 * its name. */
static PyObject *type_compare(PyObject *a, PyObject *b, int op) {
  if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
  bool same;
  if (shim_is_type(b)) {
    same = shim_type_of(a) == shim_type_of(b);
  } else if (PyUnicode_Check(b)) {
    const char *name = PyUnicode_AsUTF8AndSize(b, NULL);
    if (!name) return NULL;
    same = strcmp(info_of(shim_type_of(a)).name, name) == 0;
  } else {
    Py_RETURN_NOTIMPLEMENTED;
  }
  return PyBool_FromLong(same == (op == Py_EQ));
}

static PyObject *type_get(PyObject *self, void *which) {
  cuplug_type_info i = info_of(shim_type_of(self));
  switch ((intptr_t)which) {
    case 0: return PyUnicode_FromString(i.name);
    case 1: return PyLong_FromLong(i.kind);
    case 2: return shim_type(i.element);
    case 3: return PyLong_FromUnsignedLong(i.ndim);
    case 4: return PyUnicode_FromString(i.layout == CUPLUG_LAYOUT_C ? "C"
                                        : i.layout == CUPLUG_LAYOUT_F ? "F" : "A");
    case 5: return shim_type(i.restype);
    case 6: {
      PyObject *args = PyTuple_New((Py_ssize_t)i.num_args);
      for (size_t k = 0; args && k < i.num_args; k++) {
        PyObject *a = shim_type(i.args[k]);
        if (!a) {
          Py_CLEAR(args);
          break;
        }
        PyTuple_SetItem(args, (Py_ssize_t)k, a);
      }
      return args;
    }
    case 7: return PyLong_FromUnsignedLong(i.size);
    default: return PyLong_FromLongLong(i.literal_value);
  }
}

static PyGetSetDef type_getset[] = {
    {"name", type_get, NULL, "The canonical name, which parses back to this type.", (void *)0},
    {"kind", type_get, NULL, "The cuplug_type_kind number.", (void *)1},
    {"element", type_get, NULL, "A pointer's pointee, an array's dtype, else None.", (void *)2},
    {"ndim", type_get, NULL, "An array's dimensions.", (void *)3},
    {"layout", type_get, NULL, "An array's layout: 'C', 'F' or 'A'.", (void *)4},
    {"restype", type_get, NULL, "A signature's return type, else None.", (void *)5},
    {"args", type_get, NULL, "A signature's argument types, a tuple's elements.", (void *)6},
    {"size", type_get, NULL, "Bytes of a scalar or pointer value, else 0.", (void *)7},
    {"literal_value", type_get, NULL, "An integer literal's value.", (void *)8},
    {NULL}};

static PyType_Slot type_slots[] = {
    {Py_tp_doc, "A numba-style type, interned: equal types are the same object.\n\n"
                "Made by cuplug.typeof('float32[::1]') or handed out by the calls that\n"
                "answer with types."},
    {Py_tp_repr, type_repr},
    {Py_tp_str, type_str},
    {Py_tp_hash, type_hash},
    {Py_tp_richcompare, type_compare},
    {Py_tp_getset, type_getset},
    {0, NULL}};

static PyType_Spec type_spec = {"cuplug.Type", sizeof(shim_type_object), 0, Py_TPFLAGS_DEFAULT,
                                type_slots};

/* ---- module functions ---- */

static PyObject *load(PyObject *mod, PyObject *args) {
  (void)mod;
  const char *path;
  PyObject *make_error, *warn;
  if (!PyArg_ParseTuple(args, "sOO", &path, &make_error, &warn)) return NULL;
  if (shim_api) Py_RETURN_NONE;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) return PyErr_Format(PyExc_ImportError, "cannot load the cuplug plugin: %s", dlerror());
  cuplug_get_api_fn get = (cuplug_get_api_fn)dlsym(h, "cuplug_get_api");
  const cuplug_api *api = get ? get(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR) : NULL;
  if (!api || api->abi_minor < CUPLUG_ABI_MINOR) {
    dlclose(h);
    return PyErr_Format(PyExc_ImportError,
                        "%s is not a cuplug plugin of ABI %d.%d or later", path,
                        CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  }
  plugin = h;
  shim_api = api;
  error_factory = Py_NewRef(make_error);
  warning_factory = Py_NewRef(warn);
  Py_RETURN_NONE;
}

#define NEED_API()                                                                   \
  do {                                                                               \
    if (!shim_api) return PyErr_Format(PyExc_RuntimeError, "the plugin is not loaded"); \
  } while (0)

static PyObject *info(PyObject *mod, PyObject *unused) {
  (void)mod, (void)unused;
  NEED_API();
  cuplug_info i = {.struct_size = sizeof i};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->get_info(&i);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(e);
  return Py_BuildValue(
      "{s:s,s:(II),s:(ii),s:(ii),s:(ii),s:(ii),s:(ii),s:i,s:i,s:(ii),s:s,s:s,s:s,s:s,s:s,s:s}",
      "version", i.cuplug_version, "abi", i.abi_major, i.abi_minor, "nvvm", i.nvvm_major,
      i.nvvm_minor, "nvvm_ir", i.nvvm_ir_major, i.nvvm_ir_minor, "nvvm_debug",
      i.nvvm_dbg_major, i.nvvm_dbg_minor, "nvrtc", i.nvrtc_major, i.nvrtc_minor, "nvjitlink",
      i.nvjitlink_major, i.nvjitlink_minor, "driver_version", i.driver_version, "device_count",
      i.device_count, "device_cc", i.device_cc_major, i.device_cc_minor, "device_name",
      i.device_name, "nvvm_path", i.nvvm_path, "nvvm_status", i.nvvm_status, "nvrtc_status",
      i.nvrtc_status, "nvjitlink_status", i.nvjitlink_status, "driver_status", i.driver_status);
}

static PyObject *typeof_(PyObject *mod, PyObject *text) {
  (void)mod;
  NEED_API();
  const cuplug_type *t = shim_type_from(text, "the type");
  return t ? shim_type(t) : NULL;
}

static PyObject *literal(PyObject *mod, PyObject *value) {
  (void)mod;
  NEED_API();
  long long v = PyLong_AsLongLong(value);
  if (v == -1 && PyErr_Occurred()) return NULL;
  const cuplug_type *t;
  cuplug_error *e = shim_api->type_int_literal(v, &t);
  return e ? shim_raise(e) : shim_type(t);
}

static PyObject *status_name(PyObject *mod, PyObject *code) {
  (void)mod;
  NEED_API();
  long c = PyLong_AsLong(code);
  if (c == -1 && PyErr_Occurred()) return NULL;
  return PyUnicode_FromString(shim_api->status_name((cuplug_status)c));
}

static PyMethodDef functions[] = {
    {"_load", load, METH_VARARGS, "_load(path, make_error, warn): load the plugin once."},
    {"info", info, METH_NOARGS,
     "info() -> dict: the versions of cuplug and the CUDA toolkit, and the GPU."},
    {"typeof", typeof_, METH_O, "typeof(name) -> Type: parse a numba-style type or signature."},
    {"literal", literal, METH_O, "literal(n) -> Type: the integer literal type Literal[int](n)."},
    {"status_name", status_name, METH_O, "status_name(code) -> str: 'CUPLUG_ERR_...'."},
    {NULL, NULL, 0, NULL}};

static int exec_module(PyObject *m) {
  types_by_address = PyDict_New();
  if (!types_by_address) return -1;
  shim_type_type = (PyTypeObject *)PyType_FromSpec(&type_spec);
  if (!shim_type_type || PyModule_AddObjectRef(m, "Type", (PyObject *)shim_type_type) < 0)
    return -1;
  if (shim_session_init_types(m) < 0 || shim_launch_init_types(m) < 0) return -1;
  return PyModule_AddIntConstant(m, "ABI_MINOR", CUPLUG_ABI_MINOR);
}

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "cuplug._cuplug",
                                    "The cuplug plugin's table, as Python objects.", 0,
                                    functions, slots, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__cuplug(void) { return PyModuleDef_Init(&module); }
