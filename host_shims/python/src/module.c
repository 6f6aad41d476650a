/* module.c - cuplug._cuplug: the module's state, loading the plugin, and
 * the module's functions (info, typeof, literal, status_name).  Its types
 * live in their own files; this one makes them, into the state. */
#include <dlfcn.h>
#include <limits.h>

#include "artifact.h"
#include "kernel.h"
#include "library.h"
#include "registry.h"
#include "session.h"
#include "shim.h"
#include "type.h"

/* ---- the module's state ---- */

static int state_traverse(PyObject *m, visitproc visit, void *arg) {
  shim_state *st = PyModule_GetState(m);
  Py_VISIT(st->make_error);
  Py_VISIT(st->warn);
  Py_VISIT(st->types_by_address);
  Py_VISIT(st->type_type);
  Py_VISIT(st->artifact_type);
  Py_VISIT(st->registry_type);
  Py_VISIT(st->session_type);
  Py_VISIT(st->library_type);
  Py_VISIT(st->kernel_type);
  Py_VISIT(st->launcher_type);
  Py_VISIT(st->cupy_ndarray);
  Py_VISIT(st->cupy_current_stream);
  return 0;
}

/* Everything but the plugin's table, which objects still alive may use
 * (the plugin stays loaded for the life of the process). */
static int state_clear(PyObject *m) {
  shim_state *st = PyModule_GetState(m);
  Py_CLEAR(st->make_error);
  Py_CLEAR(st->warn);
  Py_CLEAR(st->types_by_address);
  Py_CLEAR(st->type_type);
  Py_CLEAR(st->artifact_type);
  Py_CLEAR(st->registry_type);
  Py_CLEAR(st->session_type);
  Py_CLEAR(st->library_type);
  Py_CLEAR(st->kernel_type);
  Py_CLEAR(st->launcher_type);
#define SHIM_NAME_CLEAR(field, text) Py_CLEAR(st->names.field);
  SHIM_NAMES(SHIM_NAME_CLEAR)
#undef SHIM_NAME_CLEAR
  Py_CLEAR(st->cupy_ndarray);
  Py_CLEAR(st->cupy_current_stream);
  return 0;
}

static void state_free(void *m) { state_clear(m); }

static int intern_names(shim_state *st) {
#define SHIM_NAME_INTERN(field, text) \
  if (!(st->names.field = PyUnicode_InternFromString(text))) return -1;
  SHIM_NAMES(SHIM_NAME_INTERN)
#undef SHIM_NAME_INTERN
  return 0;
}

/* ---- module functions ---- */

static PyObject *load(PyObject *mod, PyObject *args) {
  const char *path;
  PyObject *make_error, *warn;
  if (!PyArg_ParseTuple(args, "sOO", &path, &make_error, &warn)) return NULL;
  shim_state *st = PyModule_GetState(mod);
  if (st->api) Py_RETURN_NONE;
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
  st->api = api; /* h is never closed: the plugin's handles outlive the module */
  st->make_error = Py_NewRef(make_error);
  st->warn = Py_NewRef(warn);
  Py_RETURN_NONE;
}

/* The module's state, or NULL with a RuntimeError before _load. */
static shim_state *loaded(PyObject *mod) {
  shim_state *st = PyModule_GetState(mod);
  if (st->api) return st;
  PyErr_Format(PyExc_RuntimeError, "the plugin is not loaded");
  return NULL;
}

static PyObject *info(PyObject *mod, PyObject *unused) {
  (void)unused;
  shim_state *st = loaded(mod);
  if (!st) return NULL;
  cuplug_info i = {.struct_size = sizeof i};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->get_info(&i);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(st, e);
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
  shim_state *st = loaded(mod);
  if (!st) return NULL;
  const cuplug_type *t = shim_type_from(st, text, "the type");
  return t ? shim_type(st, t) : NULL;
}

static PyObject *literal(PyObject *mod, PyObject *value) {
  shim_state *st = loaded(mod);
  if (!st) return NULL;
  if (!PyLong_Check(value)) return shim_type_error("the literal", "an int", value);
  int overflow;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (v == -1 && PyErr_Occurred()) return NULL;
  if (overflow)
    return PyErr_Format(PyExc_ValueError, "the literal must be %lld to %lld (int64), not %R",
                        LLONG_MIN, LLONG_MAX, value);
  const cuplug_type *t;
  cuplug_error *e = st->api->type_int_literal(v, &t);
  return e ? shim_raise(st, e) : shim_type(st, t);
}

/* typeof and literal, their failures the module's own (shim_own) */
static PyObject *typeof_owned(PyObject *mod, PyObject *text) {
  PyObject *r = typeof_(mod, text);
  return r ? r : shim_own(PyModule_GetState(mod), CUPLUG_ERR_INVALID_ARGUMENT,
                          CUPLUG_ERR_INVALID_ARGUMENT);
}

static PyObject *literal_owned(PyObject *mod, PyObject *value) {
  PyObject *r = literal(mod, value);
  return r ? r : shim_own(PyModule_GetState(mod), CUPLUG_ERR_INVALID_ARGUMENT,
                          CUPLUG_ERR_INVALID_ARGUMENT);
}

/* _cuplug's alone (the package does not offer it): its errors stay Python's. */
static PyObject *status_name(PyObject *mod, PyObject *code) {
  shim_state *st = loaded(mod);
  if (!st) return NULL;
  int c; /* a status is a C int: a larger number is refused, not cut to one */
  if (!PyArg_Parse(code, "i", &c)) return NULL;
  return PyUnicode_FromString(st->api->status_name((cuplug_status)c));
}

static PyMethodDef functions[] = {
    {"_load", load, METH_VARARGS,
     "_load(path, make_error, warn): load the plugin once.  make_error(code, name, message,\n"
     "log, type_error=False) makes the exception for a status (type_error: the module's own\n"
     "TypeError); warn(code, name, message) issues a warning."},
    {"info", info, METH_NOARGS,
     "info() -> dict: the versions of cuplug and the CUDA toolkit, and the GPU."},
    {"typeof", typeof_owned, METH_O,
     "typeof(name) -> Type: parse a numba-style type or signature."},
    {"literal", literal_owned, METH_O,
     "literal(n) -> Type: the integer literal type Literal[int](n)."},
    {"status_name", status_name, METH_O, "status_name(code) -> str: 'CUPLUG_ERR_...'."},
    {NULL, NULL, 0, NULL}};

static int exec_module(PyObject *m) {
  shim_state *st = PyModule_GetState(m);
  st->types_by_address = PyDict_New();
  if (!st->types_by_address || intern_names(st) < 0) return -1;
  if (shim_type_init(m, st) < 0 || shim_artifact_init(m, st) < 0 ||
      shim_registry_init(m, st) < 0 || shim_session_init(m, st) < 0 ||
      shim_library_init(m, st) < 0 || shim_kernel_init(m, st) < 0)
    return -1;
  return PyModule_AddIntConstant(m, "ABI_MINOR", CUPLUG_ABI_MINOR);
}

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "cuplug._cuplug",
                                    "The cuplug plugin's table, as Python objects.",
                                    sizeof(shim_state),
                                    functions,
                                    slots,
                                    state_traverse,
                                    state_clear,
                                    state_free};

PyMODINIT_FUNC PyInit__cuplug(void) { return PyModuleDef_Init(&module); }
