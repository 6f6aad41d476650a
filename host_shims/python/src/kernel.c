/* kernel.c - cuplug.Kernel and its Launcher: kernel[grid, block, stream,
 * shared_mem](*args) packs the arguments by the kernel's signature and
 * launches it. */
#include <string.h>

#include "arrays.h"
#include "interrupt.h"
#include "kernel.h"
#include "objects.h"
#include "type.h"
#include "values.h"

PyObject *shim_kernel_new(shim_state *st, PyObject *library, cuplug_kernel *kernel,
                          const char *name, const cuplug_type *signature) {
  shim_kernel *k = PyObject_New(shim_kernel, st->kernel_type);
  if (!k) return NULL;
  k->kernel = kernel;
  k->library = Py_NewRef(library);
  k->signature = signature;
  k->cooperative = false;
  size_t n = strlen(name);
  k->name = PyMem_Malloc(n + 1);
  k->callee = (shim_callee){.noun = "kernel", .name = k->name,
                            .host = ((shim_library *)library)->host};
  if (!k->name || shim_callee_describe(st, signature, &k->callee) < 0) {
    Py_DECREF(k);
    return PyErr_NoMemory();
  }
  memcpy(k->name, name, n + 1);
  return (PyObject *)k;
}

static void kernel_dealloc(PyObject *self) {
  shim_kernel *k = (shim_kernel *)self;
  PyMem_Free(k->callee.params);
  PyMem_Free(k->name);
  Py_CLEAR(k->library);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

/* A launch of k begins (shim_library_enter); false with ValueError when
 * its module is closed. */
static bool kernel_enter(shim_kernel *k) {
  if (shim_library_enter((shim_library *)k->library)) return true;
  PyErr_Format(PyExc_ValueError, "kernel %s: its module is closed", k->name);
  return false;
}

/* (x), (x, y) or (x, y, z), or an int: a grid or a block. */
static int dims_of(PyObject *obj, const char *what, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  if (PyLong_Check(obj)) {
    if (shim_u32(obj, what, &out[0]) < 0) return -1;
  } else if (!PyTuple_Check(obj) || PyTuple_Size(obj) < 1 || PyTuple_Size(obj) > 3) {
    PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1 to 3 ints", what);
    return -1;
  } else {
    for (Py_ssize_t i = 0; i < PyTuple_Size(obj); i++)
      if (shim_u32(PyTuple_GetItem(obj, i), what, &out[i]) < 0) return -1;
  }
  for (int i = 0; i < 3; i++)
    if (!out[i]) {
      PyErr_Format(PyExc_ValueError, "%s has a dimension of 0", what);
      return -1;
    }
  return 0;
}

/* A stream: None or 0 (the default stream), an int (a CUstream), or an
 * object with __cuda_stream__, .ptr (CuPy) or .handle (cuda.core). */
static int stream_of(shim_state *st, PyObject *obj, void **out) {
  *out = NULL;
  if (!obj || obj == Py_None) return 0;
  const shim_names *s = &st->names;
  PyObject *v = NULL;
  if (PyLong_Check(obj)) {
    v = Py_NewRef(obj);
  } else if (PyObject_HasAttr(obj, s->cuda_stream)) {
    PyObject *t = PyObject_CallMethodObjArgs(obj, s->cuda_stream, NULL);
    if (!t) return -1;
    if (PyTuple_Check(t) && PyTuple_Size(t) == 2) v = Py_NewRef(PyTuple_GetItem(t, 1));
    Py_DECREF(t);
  } else if (PyObject_HasAttr(obj, s->ptr)) {
    v = PyObject_GetAttr(obj, s->ptr);
  } else if (PyObject_HasAttr(obj, s->handle)) {
    PyObject *h = PyObject_GetAttr(obj, s->handle);
    v = h ? PyNumber_Index(h) : NULL;
    Py_XDECREF(h);
  }
  if (!v || !PyLong_Check(v)) {
    Py_XDECREF(v);
    if (!PyErr_Occurred())
      shim_type_error("stream", "None, an int or a CUDA stream object", obj);
    return -1;
  }
  *out = PyLong_AsVoidPtr(v);
  Py_DECREF(v);
  return PyErr_Occurred() ? -1 : 0;
}

/* kernel[grid, block, stream=0, shared_mem=0] */
static PyObject *kernel_configure(PyObject *self, PyObject *key) {
  if (!PyTuple_Check(key) || PyTuple_Size(key) < 2 || PyTuple_Size(key) > 4)
    return PyErr_Format(PyExc_TypeError,
                        "kernel[grid, block, stream, shared_mem]: give 2 to 4 values");
  shim_state *st = shim_state_of(self);
  shim_launcher *l = PyObject_New(shim_launcher, st->launcher_type);
  if (!l) return NULL;
  l->kernel = Py_NewRef(self);
  l->shared_mem = 0;
  l->stream = NULL;
  Py_ssize_t n = PyTuple_Size(key);
  /* a stream object's handle dies with it: it lives as long as the launcher */
  l->stream_owner = n > 2 ? Py_NewRef(PyTuple_GetItem(key, 2)) : NULL;
  if (dims_of(PyTuple_GetItem(key, 0), "grid", l->grid) < 0 ||
      dims_of(PyTuple_GetItem(key, 1), "block", l->block) < 0 ||
      (n > 2 && stream_of(st, PyTuple_GetItem(key, 2), &l->stream) < 0) ||
      (n > 3 && shim_u32(PyTuple_GetItem(key, 3), "shared_mem", &l->shared_mem) < 0)) {
    Py_DECREF(l);
    return NULL;
  }
  return (PyObject *)l;
}

static PyObject *kernel_name(PyObject *self, void *unused) {
  (void)unused;
  return PyUnicode_FromString(((shim_kernel *)self)->name);
}

static PyObject *kernel_signature(PyObject *self, void *unused) {
  (void)unused;
  return shim_type(shim_state_of(self), ((shim_kernel *)self)->signature);
}

static PyGetSetDef kernel_getset[] = {
    {"name", kernel_name, NULL, "The kernel's name.", NULL},
    {"signature", kernel_signature, NULL, "The signature its arguments are packed by.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

SHIM_OWN_1(kernel_configure, CUPLUG_ERR_LAUNCH_ARGS, CUPLUG_ERR_LAUNCH_CONFIG)

static PyType_Slot kernel_slots[] = {
    {Py_tp_doc, "A kernel: kernel[grid, block, stream, shared_mem](*args) launches it."},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_mp_subscript, kernel_configure_owned},
    {Py_tp_getset, kernel_getset},
    {0, NULL}};

/* Made by the module only (Library.get_kernel), around a kernel. */
static PyType_Spec kernel_spec = {"cuplug.Kernel", sizeof(shim_kernel), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                  kernel_slots};

/* ---- a launch ---- */

static int pack_args(const shim_kernel *k, PyObject *args, shim_pack *p) {
  const shim_callee *c = &k->callee;
  Py_ssize_t n = PyTuple_Size(args);
  if ((size_t)n != c->nparams) {
    PyErr_Format(PyExc_TypeError, "kernel %s takes %zu arguments, got %zd", k->name,
                 c->nparams, n);
    return -1;
  }
  for (size_t i = 0; i < c->nparams; i++) {
    PyObject *obj = PyTuple_GetItem(args, (Py_ssize_t)i);
    int rc;
    switch (c->params[i].kind) {
      case CUPLUG_TYPE_ARRAY: rc = shim_array_arg(c, i, obj, p); break;
      case CUPLUG_TYPE_POINTER:
      case CUPLUG_TYPE_RECORD: rc = shim_pointer_arg(c, i, obj, p); break;
      default: rc = shim_scalar_arg(c, i, obj, p); break;
    }
    if (rc < 0) return -1;
  }
  return 0;
}

static PyObject *launch(shim_state *st, const shim_launcher *l, PyObject *args) {
  shim_kernel *k = (shim_kernel *)l->kernel;
  if (!kernel_enter(k)) return NULL;
  enum { STACK = 16 }; /* arguments packed without a heap allocation */
  cuplug_argument arguments[STACK];
  const cuplug_argument *argv[STACK];
  shim_slot slots[STACK];
  shim_array arrays[STACK];
  PyObject *keep[STACK];
  Py_buffer views[STACK];
  shim_pack p = {.st = st, .stream = l->stream, .arguments = arguments, .argv = argv,
                 .slots = slots, .arrays = arrays, .keep = keep, .views = views};
  size_t n = k->callee.nparams;
  bool heap = n > STACK;
  if (heap) {
    p.arguments = PyMem_Calloc(n, sizeof *p.arguments);
    p.argv = PyMem_Calloc(n, sizeof *p.argv);
    p.slots = PyMem_Calloc(n, sizeof *p.slots);
    p.arrays = PyMem_Calloc(n, sizeof *p.arrays);
    p.keep = PyMem_Calloc(n, sizeof *p.keep);
    p.views = PyMem_Calloc(n, sizeof *p.views);
    if (!p.arguments || !p.argv || !p.slots || !p.arrays || !p.keep || !p.views) {
      PyErr_NoMemory();
      goto done;
    }
  }
  if (pack_args(k, args, &p) < 0) goto done;
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k->kernel,
                          .grid = {l->grid[0], l->grid[1], l->grid[2]},
                          .block = {l->block[0], l->block[1], l->block[2]},
                          .arguments = p.argv, .num_args = n,
                          .shared_mem = l->shared_mem, .stream = l->stream,
                          .cooperative = k->cooperative};
  cuplug_error *e = NULL;
  cuplug_session *session = ((shim_session *)((shim_library *)k->library)->session)->session;
  if (((shim_library *)k->library)->host) a.interrupt = shim_interrupt_begin();
  Py_BEGIN_ALLOW_THREADS if (p.sync_first) e = st->api->synchronize(session);
  if (!e) e = st->api->launch(&a);
  Py_END_ALLOW_THREADS
  if (shim_interrupt_end(st, a.interrupt, &e) == 0 && e) shim_raise(st, e);
done:
  for (size_t i = 0; i < p.nkeep; i++) Py_DECREF(p.keep[i]);
  for (size_t i = 0; i < p.nviews; i++) PyBuffer_Release(&p.views[i]);
  if (heap) {
    PyMem_Free(p.arguments);
    PyMem_Free(p.argv);
    PyMem_Free(p.slots);
    PyMem_Free(p.arrays);
    PyMem_Free(p.keep);
    PyMem_Free(p.views);
  }
  shim_library_leave((shim_library *)k->library);
  if (PyErr_Occurred()) return NULL;
  Py_RETURN_NONE;
}

/* ---- launchers: kernel[grid, block, ...] ---- */

static void launcher_dealloc(PyObject *self) {
  Py_CLEAR(((shim_launcher *)self)->kernel);
  Py_CLEAR(((shim_launcher *)self)->stream_owner);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

static PyObject *launcher_call(PyObject *self, PyObject *args, PyObject *kw) {
  if (kw && PyDict_Size(kw)) return PyErr_Format(PyExc_TypeError, "a launch takes no keywords");
  return launch(shim_state_of(self), (shim_launcher *)self, args);
}

SHIM_OWN_2(launcher_call, CUPLUG_ERR_LAUNCH_ARGS, CUPLUG_ERR_INVALID_ARGUMENT)

static PyType_Slot launcher_slots[] = {
    {Py_tp_doc, "A configured launch: call it with the kernel's arguments."},
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_call, launcher_call_owned},
    {0, NULL}};

/* Made by the module only (kernel[grid, block, ...]). */
static PyType_Spec launcher_spec = {"cuplug.Launcher", sizeof(shim_launcher), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                    launcher_slots};

int shim_kernel_init(PyObject *m, shim_state *st) {
  st->kernel_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &kernel_spec, NULL);
  st->launcher_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &launcher_spec, NULL);
  if (!st->kernel_type || !st->launcher_type) return -1;
  return PyModule_AddType(m, st->kernel_type);
}
