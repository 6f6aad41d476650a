/* registry.c - cuplug.Registry: typing templates and lowerings that
 * sessions consult, written in Python or declared from code to link. */
#include <string.h>

#include "callbacks.h"
#include "registry.h"
#include "type.h"
#include "views.h"

PyObject *shim_registry_wrap(shim_state *st, cuplug_registry *r, PyObject *owner) {
  shim_registry *o = PyObject_GC_New(shim_registry, st->registry_type);
  if (!o) return NULL;
  o->api = st->api;
  o->registry = r;
  o->owns = owner == NULL;
  o->owner = Py_XNewRef(owner);
  o->callbacks = PyList_New(0);
  if (!o->callbacks) {
    Py_DECREF(o);
    return NULL;
  }
  PyObject_GC_Track(o);
  return (PyObject *)o;
}

static PyObject *registry_make(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"builtins", NULL};
  int builtins = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:Registry", names, &builtins)) return NULL;
  shim_state *st = PyType_GetModuleState(type);
  if (!st->api) return PyErr_Format(PyExc_RuntimeError, "the plugin is not loaded");
  cuplug_registry_options o = {.struct_size = sizeof o,
                               .flags = builtins ? 0 : CUPLUG_REGISTRY_NO_BUILTINS};
  cuplug_registry *r;
  cuplug_error *e = st->api->registry_create(&o, &r);
  if (e) return shim_raise(st, e);
  PyObject *obj = shim_registry_wrap(st, r, NULL);
  if (!obj) st->api->registry_destroy(r);
  return obj;
}

static PyObject *registry_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *r = registry_make(type, args, kw);
  return r ? r : shim_own(PyType_GetModuleState(type), CUPLUG_ERR_INVALID_ARGUMENT,
                          CUPLUG_ERR_INVALID_ARGUMENT);
}

static int registry_traverse(PyObject *self, visitproc visit, void *arg) {
  shim_registry *o = (shim_registry *)self;
  Py_VISIT(o->owner);
  Py_VISIT(o->callbacks);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static void registry_dealloc(PyObject *self) {
  shim_registry *o = (shim_registry *)self;
  PyObject_GC_UnTrack(self);
  if (o->owns) o->api->registry_destroy(o->registry);
  Py_CLEAR(o->owner);
  Py_CLEAR(o->callbacks);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_GC_Del(self);
  Py_DECREF(t);
}

int shim_abi_of(shim_state *st, const char *abi, const char *what, cuplug_abi *out) {
  if (!abi) *out = CUPLUG_ABI_DEFAULT;
  else if (!strcmp(abi, "numba")) *out = CUPLUG_ABI_NUMBA;
  else if (!strcmp(abi, "c")) *out = CUPLUG_ABI_C;
  else
    return shim_fail(st, CUPLUG_ERR_OPTION_ABI, "Unsupported %s: %s (numba or c)", what, abi), -1;
  return 0;
}

/* fn, a Python typer or lowerer, as a callback's user_data, kept alive
 * with the registry; -1 with a TypeError naming `what` when fn is not
 * callable. */
static int keep_callback(PyObject *self, PyObject *fn, const char *what, void **user) {
  if (!PyCallable_Check(fn)) return shim_type_error(what, "callable", fn), -1;
  PyObject *cb = shim_callback_new(PyType_GetModule(Py_TYPE(self)), fn);
  int rc = cb ? PyList_Append(((shim_registry *)self)->callbacks, cb) : -1;
  Py_XDECREF(cb); /* alive in the list */
  *user = cb;
  return rc;
}

/* declare_device's host_function, an address (None: none), into *out;
 * owner, what the function lives in, is kept as long as the registry. */
static int host_function_of(PyObject *self, PyObject *address, PyObject *owner, void **out) {
  *out = NULL;
  if (!address || address == Py_None) return 0;
  uint64_t a;
  if (shim_u64(address, "host_function", &a) < 0) return -1;
  if (!a) return PyErr_Format(PyExc_ValueError, "host_function must not be NULL (0)"), -1;
  if (owner && owner != Py_None &&
      PyList_Append(((shim_registry *)self)->callbacks, owner) < 0)
    return -1;
  *out = (void *)(uintptr_t)a;
  return 0;
}

static PyObject *declare_device(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"name",          "signature",  "abi", "link", "cooperative",
                          "host_function", "host_owner", NULL};
  const char *name, *abi = "numba";
  PyObject *sig, *link = NULL, *host = NULL, *owner = NULL;
  int cooperative = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|zOp$OO:declare_device", names, &name, &sig,
                                   &abi, &link, &cooperative, &host, &owner))
    return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_declare_device_args a = {.struct_size = sizeof a,
                                  .registry = ((shim_registry *)self)->registry,
                                  .name = name,
                                  .use_cooperative = (uint32_t)cooperative};
  if (!(a.signature_type = shim_type_from(st, sig, "signature")) ||
      shim_abi_of(st, abi, "ABI", &a.abi) < 0 ||
      host_function_of(self, host, owner, &a.host_function) < 0)
    return NULL;
  shim_list l;
  if (shim_code_list_of(link, &l) < 0) return NULL;
  a.link = (const cuplug_code *const *)l.ptrs;
  a.num_link = l.n;
  cuplug_error *e = st->api->declare_device(&a);
  shim_list_free(&l);
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}

static PyObject *register_template(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"key", "signature", "typer", "description", NULL};
  const char *key, *description = NULL;
  PyObject *sig = Py_None, *typer = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OOz:register_template", names, &key, &sig,
                                   &typer, &description))
    return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_template_args a = {.struct_size = sizeof a,
                            .registry = ((shim_registry *)self)->registry, .key = key,
                            .description = description};
  if (sig != Py_None && !(a.signature_type = shim_type_from(st, sig, "signature"))) return NULL;
  if (typer != Py_None) {
    if (keep_callback(self, typer, "typer", &a.user_data) < 0) return NULL;
    a.typer = shim_python_typer;
  }
  cuplug_error *e = st->api->register_template(&a);
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}

static PyObject *register_lowering(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"key", "kind", "signature", "symbol", "source", "lowerer", "abi", NULL};
  const char *key, *symbol = NULL, *abi = NULL;
  int kind;
  PyObject *sig = Py_None, *source = Py_None, *lowerer = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "si|OzOOz:register_lowering", names, &key, &kind,
                                   &sig, &symbol, &source, &lowerer, &abi))
    return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_lowering_args a = {.struct_size = sizeof a,
                            .registry = ((shim_registry *)self)->registry, .key = key,
                            .kind = (cuplug_lowering_kind)kind, .symbol = symbol};
  if (shim_abi_of(st, abi, "ABI", &a.abi) < 0 ||
      (sig != Py_None && !(a.signature_type = shim_type_from(st, sig, "signature"))))
    return NULL;
  shim_view v = {0};
  if (source != Py_None) {
    if (shim_view_of(source, "source", &v) < 0) return NULL;
    a.source = v.data;
    a.source_size = (size_t)v.size;
  }
  cuplug_error *e = NULL;
  int rc = 0;
  if (lowerer != Py_None) {
    rc = keep_callback(self, lowerer, "lowerer", &a.user_data);
    a.lowerer = shim_python_lowerer;
  }
  if (rc == 0) e = st->api->register_lowering(&a);
  shim_view_release(&v);
  if (rc < 0) return NULL;
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}

/* argtypes, a sequence of types or type names, as a C array to PyMem_Free.
 * A str is refused: as a sequence it is one-character type names. */
static const cuplug_type **types_of(shim_state *st, PyObject *argtypes, Py_ssize_t *n) {
  if (PyUnicode_Check(argtypes) || shim_is_type(st, argtypes))
    return shim_type_error("argtypes", "a sequence of types, such as ['float32']", argtypes),
           NULL;
  PyObject *fast = PySequence_Fast(argtypes, "argtypes must be a sequence of types");
  if (!fast) return NULL;
  *n = PySequence_Size(fast);
  const cuplug_type **types = PyMem_Calloc((size_t)*n + 1, sizeof *types);
  for (Py_ssize_t i = 0; types && i < *n; i++) {
    PyObject *item = PySequence_GetItem(fast, i);
    types[i] = item ? shim_type_from(st, item, "an argument type") : NULL;
    Py_XDECREF(item);
    if (!types[i]) {
      PyMem_Free(types);
      Py_DECREF(fast);
      return NULL;
    }
  }
  Py_DECREF(fast);
  if (!types) PyErr_NoMemory();
  return types;
}

/* The conversion each argument needs, by name. */
static PyObject *conversions_of(const cuplug_conversion *conv, Py_ssize_t n) {
  static const char *const names[] = {"exact", "promote", "safe", "unsafe"};
  PyObject *convs = PyTuple_New(n);
  for (Py_ssize_t i = 0; convs && i < n; i++) {
    PyObject *s = PyUnicode_FromString(conv[i] <= CUPLUG_CONV_UNSAFE ? names[conv[i]] : "?");
    if (!s) Py_CLEAR(convs);
    else PyTuple_SetItem(convs, i, s);
  }
  return convs;
}

static PyObject *resolve(PyObject *self, PyObject *args) {
  const char *key;
  PyObject *argtypes;
  int strict = 0;
  if (!PyArg_ParseTuple(args, "sO|p:resolve", &key, &argtypes, &strict)) return NULL;
  shim_state *st = shim_state_of(self);
  Py_ssize_t n = 0;
  const cuplug_type **types = types_of(st, argtypes, &n);
  if (!types) return NULL;
  cuplug_conversion *conv = PyMem_Calloc((size_t)n + 1, sizeof *conv);
  if (!conv) {
    PyMem_Free(types);
    return PyErr_NoMemory();
  }
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = ((shim_registry *)self)->registry,
                           .key = key, .argtypes = types, .nargs = (size_t)n,
                           .flags = strict ? CUPLUG_RESOLVE_STRICT : 0, .arg_conversions = conv};
  cuplug_error *e = st->api->resolve_call(&a);
  PyObject *convs = e ? NULL : conversions_of(conv, n);
  PyMem_Free(types);
  PyMem_Free(conv);
  if (e) return shim_raise(st, e);
  if (!convs) return NULL;
  return Py_BuildValue("(NsssN)", shim_type(st, a.signature), a.symbol,
                       a.abi == CUPLUG_ABI_C ? "c" : "numba", a.declaration, convs);
}

/* registry_list's callback: one row of Registry.list's answer. */
typedef struct listing {
  shim_state *st;
  PyObject *rows;
} listing;

static int list_one(void *user, const cuplug_listing *l) {
  listing *out = user;
  PyObject *sig = shim_type(out->st, l->signature);
  PyObject *t = sig ? Py_BuildValue("(sNssO)", l->key, sig, l->description, l->symbol,
                                    l->builtin ? Py_True : Py_False)
                    : NULL;
  int stop = !t || PyList_Append(out->rows, t) < 0;
  Py_XDECREF(t);
  return stop;
}

static PyObject *list_(PyObject *self, PyObject *args) {
  const char *prefix = NULL;
  if (!PyArg_ParseTuple(args, "|z:list", &prefix)) return NULL;
  listing out = {shim_state_of(self), PyList_New(0)};
  if (!out.rows) return NULL;
  cuplug_error *e =
      out.st->api->registry_list(((shim_registry *)self)->registry, prefix, list_one, &out);
  if (e) {
    Py_DECREF(out.rows);
    return shim_raise(out.st, e);
  }
  if (PyErr_Occurred()) Py_CLEAR(out.rows);
  return out.rows;
}

static PyObject *const_array(PyObject *self, PyObject *args) {
  PyObject *dtype, *shape, *data;
  if (!PyArg_ParseTuple(args, "OOO:const_array", &dtype, &shape, &data)) return NULL;
  shim_state *st = shim_state_of(self);
  const cuplug_type *t = shim_type_from(st, dtype, "dtype");
  if (!t) return NULL;
  int64_t dims[8];
  Py_ssize_t ndim = PyTuple_Check(shape) ? PyTuple_Size(shape) : -1;
  if (ndim < 1 || ndim > 8) return PyErr_Format(PyExc_TypeError, "shape must be a tuple of 1 to 8 ints");
  for (Py_ssize_t i = 0; i < ndim; i++) {
    dims[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
    if (dims[i] == -1 && PyErr_Occurred()) return NULL;
  }
  shim_view v;
  if (shim_view_of(data, "data", &v) < 0) return NULL;
  cuplug_const_array_args a = {.struct_size = sizeof a,
                               .registry = ((shim_registry *)self)->registry,
                               .dtype = t, .ndim = (uint32_t)ndim, .shape = dims,
                               .data = v.data, .size = (size_t)v.size};
  cuplug_error *e = st->api->const_array(&a);
  shim_view_release(&v);
  if (e) return shim_raise(st, e);
  return Py_BuildValue("(Nsss)", shim_type(st, a.signature), a.symbol, "c", a.declaration);
}

#define ARGUMENT CUPLUG_ERR_INVALID_ARGUMENT
SHIM_OWN_2(declare_device, ARGUMENT, ARGUMENT)
SHIM_OWN_2(register_template, ARGUMENT, ARGUMENT)
SHIM_OWN_2(register_lowering, ARGUMENT, ARGUMENT)
SHIM_OWN_1(resolve, ARGUMENT, ARGUMENT)
SHIM_OWN_1(list_, ARGUMENT, ARGUMENT)
SHIM_OWN_1(const_array, ARGUMENT, ARGUMENT)
#undef ARGUMENT

static PyMethodDef registry_methods[] = {
    {"declare_device", (PyCFunction)(void (*)(void))declare_device_owned,
     METH_VARARGS | METH_KEYWORDS,
     "declare_device(name, signature, abi='numba', link=(), cooperative=False, *,\n"
     "               host_function=None, host_owner=None): host_function, the address of\n"
     "its implementation for output=\"host\" (a C function of the symbol's ABI); host_owner,\n"
     "an object the registry keeps alive for it (a ctypes function, say)."},
    {"register_template", (PyCFunction)(void (*)(void))register_template_owned,
     METH_VARARGS | METH_KEYWORDS,
     "register_template(key, signature=None, typer=None, description=None)"},
    {"register_lowering", (PyCFunction)(void (*)(void))register_lowering_owned,
     METH_VARARGS | METH_KEYWORDS,
     "register_lowering(key, kind, signature=None, symbol=None, source=None, lowerer=None, "
     "abi=None)"},
    {"resolve", resolve_owned, METH_VARARGS,
     "resolve(key, argtypes, strict=False) -> (signature, symbol, abi, declaration, "
     "conversions)"},
    {"list", list__owned, METH_VARARGS,
     "list(prefix=None) -> [(key, signature, description, symbol, builtin)]"},
    {"const_array", const_array_owned, METH_VARARGS,
     "const_array(dtype, shape, data) -> (signature, symbol, abi, declaration)"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot registry_slots[] = {
    {Py_tp_doc, "Registry(builtins=True): typing templates and lowerings.\n\n"
                "Sessions consult one; numba-cuda's cuda.* and math.* are built in."},
    {Py_tp_new, registry_new},
    {Py_tp_dealloc, registry_dealloc},
    {Py_tp_traverse, registry_traverse},
    {Py_tp_methods, registry_methods},
    {0, NULL}};

static PyType_Spec registry_spec = {"cuplug.Registry", sizeof(shim_registry), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, registry_slots};

int shim_registry_init(PyObject *m, shim_state *st) {
  st->registry_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &registry_spec, NULL);
  if (!st->registry_type) return -1;
  return PyModule_AddType(m, st->registry_type);
}
