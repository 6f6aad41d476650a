/* library.c - cuplug.Library: a loaded cubin or host artifact, the kernels
 * it holds, and a host library's C-ABI functions, called with Python
 * values (Library.call). */
#include <string.h>

#include "arrays.h"
#include "interrupt.h"
#include "kernel.h"
#include "library.h"
#include "objects.h"
#include "structs.h"
#include "type.h"
#include "values.h"

PyObject *shim_library_load(PyObject *session, PyObject *what) {
  shim_state *st = shim_state_of(session);
  cuplug_load_args a = {.struct_size = sizeof a,
                        .session = ((shim_session *)session)->session};
  Py_buffer buf = {0};
  bool has_buf = false;
  bool host = false;
  if (Py_TYPE(what) == st->artifact_type) {
    a.artifact = ((shim_artifact *)what)->artifact;
    cuplug_artifact_info info = {.struct_size = sizeof info};
    st->api->error_destroy(st->api->artifact_info(a.artifact, &info));
    host = info.output == CUPLUG_OUTPUT_HOST;
  } else if (PyObject_CheckBuffer(what)) {
    if (PyObject_GetBuffer(what, &buf, PyBUF_CONTIG_RO) < 0) return NULL;
    has_buf = true;
    a.image = buf.buf;
    a.size = (size_t)buf.len;
  } else {
    return shim_type_error("what to load", "a cuplug.Artifact or the bytes of a cubin", what);
  }
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->load(&a);
  Py_END_ALLOW_THREADS
  if (has_buf) PyBuffer_Release(&buf);
  if (e) return shim_raise(st, e);
  shim_library *l = PyObject_New(shim_library, st->library_type);
  if (!l) {
    st->api->library_unload(a.library);
    return NULL;
  }
  l->api = st->api;
  l->library = a.library;
  l->session = Py_NewRef(session);
  l->host = host;
  l->closed = false;
  l->calls = 0;
  return (PyObject *)l;
}

static PyObject *closed_error(void) {
  return PyErr_Format(PyExc_ValueError, "the module is closed");
}

static void library_dealloc(PyObject *self) {
  shim_library *l = (shim_library *)self;
  l->closed = true; /* no call is under way: each holds the library */
  shim_library_unload_idle(l);
  Py_CLEAR(l->session);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

/* Unloads the library now, or when the last call under way ends. */
static PyObject *library_close(PyObject *self, PyObject *unused) {
  (void)unused;
  shim_library *l = (shim_library *)self;
  l->closed = true;
  shim_library_unload_idle(l);
  Py_RETURN_NONE;
}

/* get_kernel's work, with l entered.  cooperative: the host knows that the
 * kernel synchronises its grid (numba-cuda's use_cooperative), which a
 * cubin given as bytes does not say. */
static PyObject *kernel_of(shim_state *st, PyObject *self, const char *name, PyObject *sig,
                           int debug, int cooperative) {
  cuplug_kernel_args a = {.struct_size = sizeof a, .library = ((shim_library *)self)->library,
                          .name = name, .debug = (uint32_t)debug};
  if (sig != Py_None && !(a.signature_type = shim_type_from(st, sig, "signature"))) return NULL;
  cuplug_error *e = st->api->kernel_get(&a);
  if (e) return shim_raise(st, e);
  /* the name and signature the plugin settled on (the caller's, or what
   * the artifact recorded) */
  cuplug_kernel_info info = {.struct_size = sizeof info, .kernel = a.kernel};
  if ((e = st->api->kernel_info(&info))) return shim_raise(st, e);
  PyObject *k = shim_kernel_new(st, self, a.kernel, info.name, info.signature);
  if (k) ((shim_kernel *)k)->cooperative = cooperative != 0;
  return k;
}

static PyObject *get_kernel(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"name", "signature", "debug", "cooperative", NULL};
  const char *name = NULL;
  PyObject *sig = Py_None;
  int debug = 0, cooperative = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zOpp:get_kernel", names, &name, &sig, &debug,
                                   &cooperative))
    return NULL;
  shim_library *l = (shim_library *)self;
  if (!shim_library_enter(l)) return closed_error();
  PyObject *k = kernel_of(shim_state_of(self), self, name, sig, debug, cooperative);
  shim_library_leave(l);
  return k;
}

/* ---- a host library's C-ABI functions ---- */

/* The address of a host library's function (name NULL: the artifact's
 * symbol) and, for the artifact's symbol, its signature; l is entered. */
static int host_function(shim_state *st, shim_library *l, const char *name, void **address,
                         const cuplug_type **sig) {
  if (!l->host)
    return PyErr_Format(PyExc_ValueError,
                        "the library was loaded on the GPU: compile with output=\"host\" to "
                        "call its functions from Python"), -1;
  cuplug_host_function_args f = {.struct_size = sizeof f, .library = l->library, .name = name};
  cuplug_error *e = st->api->host_function(&f);
  if (e) return shim_raise(st, e), -1;
  *address = f.address;
  *sig = f.signature;
  return 0;
}

static PyObject *library_address(PyObject *self, PyObject *args) {
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "|z:address", &name)) return NULL;
  shim_library *l = (shim_library *)self;
  if (!shim_library_enter(l)) return closed_error();
  void *address;
  const cuplug_type *sig;
  int rc = host_function(shim_state_of(self), l, name, &address, &sig);
  shim_library_leave(l);
  return rc < 0 ? NULL : PyLong_FromVoidPtr(address);
}

/* Library.call's keywords, name=None and signature=None, into *name and
 * *sig (left as they are when not given). */
static int call_keywords(PyObject *kw, const char **name, PyObject **sig) {
  if (!kw) return 0;
  PyObject *n = PyDict_GetItemString(kw, "name"), *s = PyDict_GetItemString(kw, "signature");
  Py_ssize_t known = (n != NULL) + (s != NULL);
  if (PyDict_Size(kw) != known)
    return PyErr_Format(PyExc_TypeError, "call() takes the keywords name and signature only"), -1;
  if (n && n != Py_None && !(*name = PyUnicode_AsUTF8AndSize(n, NULL))) return -1;
  if (s) *sig = s;
  return 0;
}

/* args into p for the function c describes: scalars and pointers. */
static int call_args(const shim_callee *c, PyObject *args, shim_pack *p) {
  Py_ssize_t n = PyTuple_Size(args);
  if ((size_t)n != c->nparams) {
    PyErr_Format(PyExc_TypeError, "function %s takes %zu arguments, got %zd", c->name,
                 c->nparams, n);
    return -1;
  }
  for (size_t i = 0; i < c->nparams; i++) {
    PyObject *obj = PyTuple_GetItem(args, (Py_ssize_t)i);
    cuplug_type_kind k = c->params[i].kind;
    int rc = k == CUPLUG_TYPE_POINTER || k == CUPLUG_TYPE_RECORD ? shim_pointer_arg(c, i, obj, p)
             : k == CUPLUG_TYPE_STRUCT ? shim_struct_arg(c, i, obj, p)
             : c->params[i].kind == CUPLUG_TYPE_ARRAY
                 ? (shim_arg_error(c, i, "a host call takes scalars and pointers"), -1)
                 : shim_scalar_arg(c, i, obj, p);
    if (rc < 0) return -1;
  }
  return 0;
}

/* Calls the function at the library's `name` with p's values; its result
 * (a struct's in room of its size). */
static PyObject *call_packed(shim_state *st, shim_library *l, const char *name,
                             const cuplug_type *sig, const shim_pack *p, size_t nargs) {
  cuplug_type_info si = {.struct_size = sizeof si, .type = sig};
  st->api->error_destroy(st->api->type_info(&si));
  cuplug_type_info ri = {.struct_size = sizeof ri, .type = si.restype};
  st->api->error_destroy(st->api->type_info(&ri));
  shim_slot r;
  memset(&r, 0, sizeof r);
  bool aggregate = ri.kind == CUPLUG_TYPE_STRUCT && ri.size > sizeof r;
  void *room = aggregate ? PyMem_Calloc(1, ri.size) : &r;
  if (!room) return PyErr_NoMemory();
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l->library, .name = name,
                             .signature_type = sig, .args = p->values, .num_args = nargs,
                             .result = room, .result_size = aggregate ? ri.size : sizeof r};
  cuplug_error *e;
  c.interrupt = shim_interrupt_begin();
  Py_BEGIN_ALLOW_THREADS e = st->api->host_call(&c);
  Py_END_ALLOW_THREADS
  PyObject *result = NULL;
  if (shim_interrupt_end(st, c.interrupt, &e) < 0)
    result = NULL;
  else if (e)
    result = shim_raise(st, e);
  else if (ri.kind == CUPLUG_TYPE_STRUCT)
    result = shim_struct_value(st->api, si.restype, room);
  else
    result = shim_result_value(ri.kind, &r);
  if (aggregate) PyMem_Free(room);
  return result;
}

/* Library.call's work, with l entered. */
static PyObject *call_function(shim_state *st, shim_library *l, const char *name,
                               PyObject *sig_obj, PyObject *args) {
  void *address;
  const cuplug_type *sig;
  if (host_function(st, l, name, &address, &sig) < 0) return NULL;
  if (sig_obj != Py_None && !(sig = shim_type_from(st, sig_obj, "signature"))) return NULL;
  if (!sig)
    return PyErr_Format(PyExc_TypeError, "call %s: give its signature (signature=...)",
                        name ? name : "");
  shim_callee c = {.noun = "function", .name = name ? name : "(the compiled one)", .host = true};
  if (shim_callee_describe(st, sig, &c) < 0) return PyErr_NoMemory();
  shim_pack p = {.st = st,
                 .slots = PyMem_Calloc(c.nparams + 1, sizeof *p.slots),
                 .values = PyMem_Calloc(c.nparams + 1, sizeof *p.values),
                 .views = PyMem_Calloc(c.nparams + 1, sizeof *p.views)};
  PyObject *result = NULL;
  if (!p.slots || !p.values || !p.views)
    PyErr_NoMemory();
  else if (call_args(&c, args, &p) == 0)
    result = call_packed(st, l, name, sig, &p, c.nparams);
  for (size_t i = 0; i < p.nviews; i++) PyBuffer_Release(&p.views[i]);
  PyMem_Free(p.slots);
  PyMem_Free(p.values);
  PyMem_Free(p.views);
  PyMem_Free(c.params);
  return result;
}

/* Library.call(*args, name=None, signature=None) */
static PyObject *library_call(PyObject *self, PyObject *args, PyObject *kw) {
  shim_library *l = (shim_library *)self;
  const char *name = NULL;
  PyObject *sig_obj = Py_None;
  if (call_keywords(kw, &name, &sig_obj) < 0) return NULL;
  if (!shim_library_enter(l)) return closed_error();
  PyObject *result = call_function(shim_state_of(self), l, name, sig_obj, args);
  shim_library_leave(l);
  return result;
}

SHIM_OWN_2(get_kernel, CUPLUG_ERR_INVALID_ARGUMENT, CUPLUG_ERR_INVALID_ARGUMENT)
SHIM_OWN_2(library_call, CUPLUG_ERR_LAUNCH_ARGS, CUPLUG_ERR_INVALID_ARGUMENT)
SHIM_OWN_1(library_address, CUPLUG_ERR_INVALID_ARGUMENT, CUPLUG_ERR_INVALID_ARGUMENT)

static PyMethodDef library_methods[] = {
    {"get_kernel", (PyCFunction)(void (*)(void))get_kernel_owned, METH_VARARGS | METH_KEYWORDS,
     "get_kernel(name=None, signature=None, debug=False, cooperative=False) -> Kernel"},
    {"call", (PyCFunction)(void (*)(void))library_call_owned, METH_VARARGS | METH_KEYWORDS,
     "call(*args, name=None, signature=None): a host library's C-ABI function (the "
     "artifact's when name is None), called with Python values; its result."},
    {"address", library_address_owned, METH_VARARGS,
     "address(name=None) -> int: a host library's function, for ctypes or cffi."},
    {"close", library_close, METH_NOARGS,
     "close(): unload the library (after the calls under way); its kernels go with it."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot library_slots[] = {
    {Py_tp_doc, "A cubin loaded on the GPU (cuLibraryLoadData)."},
    {Py_tp_dealloc, library_dealloc},
    {Py_tp_methods, library_methods},
    {0, NULL}};

/* Made by the module only (Session.load), around a library. */
static PyType_Spec library_spec = {"cuplug.Library", sizeof(shim_library), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                   library_slots};

int shim_library_init(PyObject *m, shim_state *st) {
  st->library_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &library_spec, NULL);
  if (!st->library_type) return -1;
  return PyModule_AddType(m, st->library_type);
}
