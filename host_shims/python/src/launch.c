/* launch.c - loaded libraries, kernels, and launching them with Python
 * arguments: arrays through __cuda_array_interface__ (CuPy, PyTorch,
 * numba-cuda) or __dlpack__, device pointers as ints, scalars as the
 * signature's types.  The conversion is here, in C: a launch from Python
 * should cost little more than one from C.  A host library's
 * (CUPLUG_OUTPUT_HOST) kernels take NumPy arrays and anything with the
 * buffer protocol, and its C-ABI functions are called with Python values
 * (Library.call). */
#include <math.h>
#include <string.h>

#include "shim.h"

PyTypeObject *shim_library_type, *shim_kernel_type, *shim_launcher_type;

typedef struct shim_library {
  PyObject_HEAD
  cuplug_library *library; /* NULL once closed */
  PyObject *session;       /* kept alive while the library is */
  bool host;               /* compiled for the CPU: arrays are host buffers */
} shim_library;

/* What packing one argument needs to know of its type. */
typedef struct param {
  cuplug_type_kind kind;
  cuplug_type_kind dtype; /* arrays, pointers */
  uint32_t ndim, itemsize;
  cuplug_layout layout;
  const char *name;
} param;

typedef struct shim_kernel {
  PyObject_HEAD
  cuplug_kernel *kernel;
  PyObject *library;
  const cuplug_type *signature;
  char *name;
  size_t nparams;
  param *params;
  const char *noun; /* in messages: NULL, "kernel"; "function" for Library.call */
} shim_kernel;

typedef struct shim_launcher {
  PyObject_HEAD
  PyObject *kernel;
  uint32_t grid[3], block[3], shared_mem;
  void *stream;
} shim_launcher;

static PyObject *s_cai, *s_dlpack, *s_shape, *s_strides, *s_typestr, *s_data, *s_stream,
    *s_cuda_stream, *s_ptr, *s_handle, *s_cupy, *s_dtype, *s_num;

/* ---- libraries ---- */

PyObject *shim_library_load(PyObject *session, PyObject *what) {
  cuplug_load_args a = {.struct_size = sizeof a,
                        .session = ((shim_session *)session)->session};
  Py_buffer buf = {0};
  bool has_buf = false;
  bool host = false;
  if (Py_TYPE(what) == shim_artifact_type) {
    a.artifact = ((shim_artifact *)what)->artifact;
    cuplug_artifact_info info = {.struct_size = sizeof info};
    shim_api->error_destroy(shim_api->artifact_info(a.artifact, &info));
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
  Py_BEGIN_ALLOW_THREADS e = shim_api->load(&a);
  Py_END_ALLOW_THREADS
  if (has_buf) PyBuffer_Release(&buf);
  if (e) return shim_raise(e);
  shim_library *l = PyObject_New(shim_library, shim_library_type);
  if (!l) {
    shim_api->library_unload(a.library);
    return NULL;
  }
  l->library = a.library;
  l->session = Py_NewRef(session);
  l->host = host;
  return (PyObject *)l;
}

static void library_close_now(shim_library *l) {
  if (l->library) shim_api->library_unload(l->library);
  l->library = NULL;
}

static void library_dealloc(PyObject *self) {
  shim_library *l = (shim_library *)self;
  library_close_now(l);
  Py_CLEAR(l->session);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

static PyObject *library_close(PyObject *self, PyObject *unused) {
  (void)unused;
  library_close_now((shim_library *)self);
  Py_RETURN_NONE;
}

static int describe(const cuplug_type *sig, shim_kernel *k) {
  cuplug_type_info si = {.struct_size = sizeof si, .type = sig};
  shim_api->error_destroy(shim_api->type_info(&si));
  k->nparams = si.num_args;
  k->params = PyMem_Calloc(si.num_args + 1, sizeof *k->params);
  if (!k->params) return -1;
  for (size_t i = 0; i < si.num_args; i++) {
    cuplug_type_info ai = {.struct_size = sizeof ai, .type = si.args[i]};
    shim_api->error_destroy(shim_api->type_info(&ai));
    param *p = &k->params[i];
    p->kind = ai.kind;
    p->name = ai.name;
    p->ndim = ai.ndim;
    p->layout = ai.layout;
    p->itemsize = ai.size;
    if (ai.element) {
      cuplug_type_info ei = {.struct_size = sizeof ei, .type = ai.element};
      shim_api->error_destroy(shim_api->type_info(&ei));
      p->dtype = ei.kind;
      p->itemsize = ei.size;
    }
  }
  return 0;
}

static PyObject *get_kernel(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"name", "signature", "debug", NULL};
  const char *name = NULL;
  PyObject *sig = Py_None;
  int debug = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zOp:get_kernel", names, &name, &sig, &debug))
    return NULL;
  shim_library *l = (shim_library *)self;
  if (!l->library) return PyErr_Format(PyExc_ValueError, "the module is closed");
  cuplug_kernel_args a = {.struct_size = sizeof a, .library = l->library, .name = name,
                          .debug = (uint32_t)debug};
  if (sig != Py_None && !(a.signature_type = shim_type_from(sig, "signature"))) return NULL;
  cuplug_error *e = shim_api->kernel_get(&a);
  if (e) return shim_raise(e);
  /* the name and signature the plugin settled on (the caller's, or what
   * the artifact recorded) */
  cuplug_kernel_info info = {.struct_size = sizeof info, .kernel = a.kernel};
  if ((e = shim_api->kernel_info(&info))) return shim_raise(e);
  shim_kernel *k = PyObject_New(shim_kernel, shim_kernel_type);
  if (!k) return NULL;
  k->kernel = a.kernel;
  k->library = Py_NewRef(self);
  k->signature = info.signature;
  k->params = NULL;
  k->noun = NULL;
  size_t n = strlen(info.name);
  k->name = PyMem_Malloc(n + 1);
  if (!k->name || describe(info.signature, k) < 0) {
    Py_DECREF(k);
    return PyErr_NoMemory();
  }
  memcpy(k->name, info.name, n + 1);
  return (PyObject *)k;
}

static PyObject *library_call(PyObject *self, PyObject *args, PyObject *kw);
static PyObject *library_address(PyObject *self, PyObject *args);

static PyMethodDef library_methods[] = {
    {"get_kernel", (PyCFunction)(void (*)(void))get_kernel, METH_VARARGS | METH_KEYWORDS,
     "get_kernel(name=None, signature=None, debug=False) -> Kernel"},
    {"call", (PyCFunction)(void (*)(void))library_call, METH_VARARGS | METH_KEYWORDS,
     "call(*args, name=None, signature=None): a host library's C-ABI function (the "
     "artifact's when name is None), called with Python values; its result."},
    {"address", library_address, METH_VARARGS,
     "address(name=None) -> int: a host library's function, for ctypes or cffi."},
    {"close", library_close, METH_NOARGS, "close(): unload the library; its kernels go with it."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot library_slots[] = {
    {Py_tp_doc, "A cubin loaded on the GPU (cuLibraryLoadData)."},
    {Py_tp_dealloc, library_dealloc},
    {Py_tp_methods, library_methods},
    {0, NULL}};

static PyType_Spec library_spec = {"cuplug.Library", sizeof(shim_library), 0,
                                   Py_TPFLAGS_DEFAULT, library_slots};

/* ---- kernels ---- */

static void kernel_dealloc(PyObject *self) {
  shim_kernel *k = (shim_kernel *)self;
  PyMem_Free(k->params);
  PyMem_Free(k->name);
  Py_CLEAR(k->library);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

static bool kernel_open(shim_kernel *k) {
  if (((shim_library *)k->library)->library) return true;
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
static int stream_of(PyObject *obj, void **out) {
  *out = NULL;
  if (!obj || obj == Py_None) return 0;
  PyObject *v = NULL;
  if (PyLong_Check(obj)) {
    v = Py_NewRef(obj);
  } else if (PyObject_HasAttr(obj, s_cuda_stream)) {
    PyObject *t = PyObject_CallMethodObjArgs(obj, s_cuda_stream, NULL);
    if (!t) return -1;
    if (PyTuple_Check(t) && PyTuple_Size(t) == 2) v = Py_NewRef(PyTuple_GetItem(t, 1));
    Py_DECREF(t);
  } else if (PyObject_HasAttr(obj, s_ptr)) {
    v = PyObject_GetAttr(obj, s_ptr);
  } else if (PyObject_HasAttr(obj, s_handle)) {
    PyObject *h = PyObject_GetAttr(obj, s_handle);
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
  shim_launcher *l = PyObject_New(shim_launcher, shim_launcher_type);
  if (!l) return NULL;
  l->kernel = Py_NewRef(self);
  l->shared_mem = 0;
  l->stream = NULL;
  Py_ssize_t n = PyTuple_Size(key);
  if (dims_of(PyTuple_GetItem(key, 0), "grid", l->grid) < 0 ||
      dims_of(PyTuple_GetItem(key, 1), "block", l->block) < 0 ||
      (n > 2 && stream_of(PyTuple_GetItem(key, 2), &l->stream) < 0) ||
      (n > 3 && shim_u32(PyTuple_GetItem(key, 3), "shared_mem", &l->shared_mem) < 0)) {
    Py_DECREF(l);
    return NULL;
  }
  return (PyObject *)l;
}

static PyObject *kernel_get(PyObject *self, void *which) {
  shim_kernel *k = (shim_kernel *)self;
  if ((intptr_t)which == 0) return PyUnicode_FromString(k->name);
  return shim_type(k->signature);
}

static PyGetSetDef kernel_getset[] = {
    {"name", kernel_get, NULL, "The kernel's name.", (void *)0},
    {"signature", kernel_get, NULL, "The signature its arguments are packed by.", (void *)1},
    {NULL}};

static PyType_Slot kernel_slots[] = {
    {Py_tp_doc, "A kernel: kernel[grid, block, stream, shared_mem](*args) launches it."},
    {Py_tp_dealloc, kernel_dealloc},
    {Py_mp_subscript, kernel_configure},
    {Py_tp_getset, kernel_getset},
    {0, NULL}};

static PyType_Spec kernel_spec = {"cuplug.Kernel", sizeof(shim_kernel), 0, Py_TPFLAGS_DEFAULT,
                                  kernel_slots};

/* ---- arguments ---- */

/* Storage for one argument's value while the launch reads it. */
typedef union slot {
  int64_t i;
  uint64_t u;
  double d;
  float f;
  uint16_t h;
  uint8_t b;
  double c[2];
  float cf[2];
} slot;

typedef struct pack {
  cuplug_value *values;
  slot *slots;
  cuplug_array *arrays;
  PyObject **keep; /* capsules and interfaces to release after the launch */
  size_t nkeep;
  Py_buffer *views; /* a host launch's buffers, released after it */
  size_t nviews;
  bool sync_first; /* an array of another stream: wait for the device first */
  bool producer_known;
  uintptr_t producer; /* CuPy's current stream, once asked */
} pack;

static PyObject *arg_error(const shim_kernel *k, size_t i, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  PyObject *why = PyUnicode_FromFormatV(fmt, ap);
  va_end(ap);
  if (!why) return NULL;
  PyErr_Format(PyExc_TypeError, "%s %s, argument %zu (%s): %U", k->noun ? k->noun : "kernel",
               k->name, i, k->params[i].name, why);
  Py_DECREF(why);
  return NULL;
}

/* numpy's typestr ("<f4") as a cuplug kind, 0 when it is none. */
static cuplug_type_kind kind_of_typestr(const char *s) {
  if (!s || !s[0] || s[0] == '>') return 0;
  static const struct {
    const char *code;
    cuplug_type_kind kind;
  } map[] = {{"b1", CUPLUG_TYPE_BOOL},     {"i1", CUPLUG_TYPE_INT8},
             {"i2", CUPLUG_TYPE_INT16},    {"i4", CUPLUG_TYPE_INT32},
             {"i8", CUPLUG_TYPE_INT64},    {"u1", CUPLUG_TYPE_UINT8},
             {"u2", CUPLUG_TYPE_UINT16},   {"u4", CUPLUG_TYPE_UINT32},
             {"u8", CUPLUG_TYPE_UINT64},   {"f2", CUPLUG_TYPE_FLOAT16},
             {"f4", CUPLUG_TYPE_FLOAT32},  {"f8", CUPLUG_TYPE_FLOAT64},
             {"c8", CUPLUG_TYPE_COMPLEX64}, {"c16", CUPLUG_TYPE_COMPLEX128}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(s + 1, map[i].code)) return map[i].kind;
  return 0;
}

/* A DLPack data type as a cuplug kind. */
static cuplug_type_kind kind_of_dlpack(uint8_t code, uint8_t bits) {
  switch (code) {
    case 0: return bits == 8 ? CUPLUG_TYPE_INT8 : bits == 16 ? CUPLUG_TYPE_INT16
                 : bits == 32 ? CUPLUG_TYPE_INT32 : bits == 64 ? CUPLUG_TYPE_INT64 : 0;
    case 1: return bits == 8 ? CUPLUG_TYPE_UINT8 : bits == 16 ? CUPLUG_TYPE_UINT16
                 : bits == 32 ? CUPLUG_TYPE_UINT32 : bits == 64 ? CUPLUG_TYPE_UINT64 : 0;
    case 2: return bits == 16 ? CUPLUG_TYPE_FLOAT16 : bits == 32 ? CUPLUG_TYPE_FLOAT32
                 : bits == 64 ? CUPLUG_TYPE_FLOAT64 : 0;
    case 5: return bits == 64 ? CUPLUG_TYPE_COMPLEX64 : bits == 128 ? CUPLUG_TYPE_COMPLEX128 : 0;
    case 6: return bits == 8 ? CUPLUG_TYPE_BOOL : 0;
    default: return 0;
  }
}

static const char *kind_name(cuplug_type_kind k) {
  const cuplug_type *t = shim_api->type_scalar(k);
  if (!t) return "an unknown type";
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  shim_api->error_destroy(shim_api->type_info(&i));
  return i.name;
}

static int64_t int_item(PyObject *tuple, Py_ssize_t i) {
  PyObject *v = PyTuple_GetItem(tuple, i);
  return v ? PyLong_AsLongLong(v) : -1;
}

/* numba-cuda's rule for an array made on stream `producer` (a CUDA Array
 * Interface stream: 1 and 2 are the default streams): when the launch is on
 * another, wait for the device first. */
static void note_producer(uintptr_t producer, void *stream, pack *p) {
  uintptr_t mine = (uintptr_t)stream;
  if (producer != mine && !((producer == 1 || producer == 2) && mine == 0)) p->sync_first = true;
}

/* An array through __cuda_array_interface__ (version 2 or 3). */
static int from_cai(const shim_kernel *k, size_t i, PyObject *cai, void *stream,
                    cuplug_array *a, pack *p) {
  if (!PyDict_Check(cai)) return arg_error(k, i, "its __cuda_array_interface__ is not a dict"), -1;
  PyObject *shape = PyDict_GetItemWithError(cai, s_shape);
  PyObject *typestr = PyDict_GetItemWithError(cai, s_typestr);
  PyObject *data = PyDict_GetItemWithError(cai, s_data);
  PyObject *strides = PyDict_GetItemWithError(cai, s_strides);
  PyObject *producer = PyDict_GetItemWithError(cai, s_stream);
  if (PyErr_Occurred()) return -1;
  if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data ||
      !PyTuple_Check(data) || PyTuple_Size(data) < 1)
    return arg_error(k, i, "its __cuda_array_interface__ lacks shape, typestr or data"), -1;
  a->dtype = kind_of_typestr(PyUnicode_AsUTF8AndSize(typestr, NULL));
  Py_ssize_t ndim = PyTuple_Size(shape);
  if (ndim > 8) return arg_error(k, i, "an array of %zd dimensions", ndim), -1;
  a->ndim = (uint32_t)ndim;
  a->data = PyLong_AsUnsignedLongLong(PyTuple_GetItem(data, 0));
  for (Py_ssize_t d = 0; d < ndim; d++) a->shape[d] = int_item(shape, d);
  if (strides && strides != Py_None) {
    if (!PyTuple_Check(strides) || PyTuple_Size(strides) != ndim)
      return arg_error(k, i, "its strides do not match its shape"), -1;
    for (Py_ssize_t d = 0; d < ndim; d++) a->strides[d] = int_item(strides, d);
  } else { /* C-contiguous */
    int64_t step = (int64_t)k->params[i].itemsize;
    for (Py_ssize_t d = ndim - 1; d >= 0; d--) {
      a->strides[d] = step;
      step *= a->shape[d];
    }
  }
  if (PyErr_Occurred()) return -1;
  /* numba-cuda's rule: an array of another stream is waited for */
  if (producer && producer != Py_None) {
    uintptr_t s = (uintptr_t)PyLong_AsVoidPtr(producer);
    if (PyErr_Occurred()) return -1;
    note_producer(s, stream, p);
  }
  return 0;
}

/* CuPy's ndarray, read through its public attributes (data.ptr, shape,
 * strides, dtype.num) rather than its __cuda_array_interface__, whose dict
 * (with descr, version and the current stream) costs several times more to
 * build.  The result is the same: CuPy reports its current stream as the
 * array's (1 for the default stream), and so does this path, once per
 * launch.  Only the exact type takes it; a subclass may override the
 * interface. */
static PyTypeObject *cupy_ndarray;      /* strong references, once CuPy is imported */
static PyObject *cupy_current_stream;   /* cupy.cuda.get_current_stream */

static bool is_cupy_ndarray(PyObject *obj) {
  if (cupy_ndarray) return Py_TYPE(obj) == cupy_ndarray;
  PyObject *cupy = PyImport_GetModule(s_cupy);
  if (!cupy) {
    PyErr_Clear();
    return false;
  }
  PyObject *type = PyObject_GetAttrString(cupy, "ndarray");
  PyObject *cuda = PyObject_GetAttrString(cupy, "cuda");
  PyObject *fn = cuda ? PyObject_GetAttrString(cuda, "get_current_stream") : NULL;
  Py_DECREF(cupy);
  Py_XDECREF(cuda);
  if (type && PyType_Check(type) && fn && PyCallable_Check(fn)) {
    cupy_ndarray = (PyTypeObject *)type;
    cupy_current_stream = fn;
    return Py_TYPE(obj) == cupy_ndarray;
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(fn);
  return false;
}

/* numpy's type numbers (NPY_BOOL ... NPY_CDOUBLE, NPY_HALF) as cuplug's
 * kinds; NPY_LONG and NPY_ULONG are 64 bits on the LP64 hosts cuplug runs on. */
static cuplug_type_kind kind_of_type_num(long num) {
  static const cuplug_type_kind map[] = {
      CUPLUG_TYPE_BOOL,   CUPLUG_TYPE_INT8,   CUPLUG_TYPE_UINT8,   CUPLUG_TYPE_INT16,
      CUPLUG_TYPE_UINT16, CUPLUG_TYPE_INT32,  CUPLUG_TYPE_UINT32,  CUPLUG_TYPE_INT64,
      CUPLUG_TYPE_UINT64, CUPLUG_TYPE_INT64,  CUPLUG_TYPE_UINT64,  CUPLUG_TYPE_FLOAT32,
      CUPLUG_TYPE_FLOAT64, 0,                 CUPLUG_TYPE_COMPLEX64, CUPLUG_TYPE_COMPLEX128};
  if (num == 23) return CUPLUG_TYPE_FLOAT16;
  return num >= 0 && num < (long)(sizeof map / sizeof map[0]) ? map[num] : 0;
}

static int int_tuple(PyObject *t, Py_ssize_t n, int64_t *out) {
  if (!t || !PyTuple_Check(t) || PyTuple_Size(t) != n) return -1;
  for (Py_ssize_t d = 0; d < n; d++) out[d] = PyLong_AsLongLong(PyTuple_GetItem(t, d));
  return PyErr_Occurred() ? -1 : 0;
}

static int from_cupy(const shim_kernel *k, size_t i, PyObject *obj, void *stream,
                     cuplug_array *a, pack *p) {
  PyObject *shape = PyObject_GetAttr(obj, s_shape);
  PyObject *strides = shape ? PyObject_GetAttr(obj, s_strides) : NULL;
  PyObject *dtype = strides ? PyObject_GetAttr(obj, s_dtype) : NULL;
  PyObject *num = dtype ? PyObject_GetAttr(dtype, s_num) : NULL;
  PyObject *mem = num ? PyObject_GetAttr(obj, s_data) : NULL;
  PyObject *ptr = mem ? PyObject_GetAttr(mem, s_ptr) : NULL;
  int rc = -1;
  if (!ptr) goto done;
  Py_ssize_t ndim = PyTuple_Check(shape) ? PyTuple_Size(shape) : -1;
  if (ndim < 0 || ndim > 8) {
    arg_error(k, i, "an array of %zd dimensions", ndim);
    goto done;
  }
  a->ndim = (uint32_t)ndim;
  a->dtype = kind_of_type_num(PyLong_AsLong(num));
  a->data = PyLong_AsUnsignedLongLong(ptr);
  if (PyErr_Occurred() || int_tuple(shape, ndim, a->shape) < 0 ||
      int_tuple(strides, ndim, a->strides) < 0) {
    if (!PyErr_Occurred()) arg_error(k, i, "its strides do not match its shape");
    goto done;
  }
  if (!p->producer_known) { /* CuPy's current stream, once per launch */
    PyObject *cur = PyObject_CallNoArgs(cupy_current_stream);
    PyObject *cur_ptr = cur ? PyObject_GetAttr(cur, s_ptr) : NULL;
    Py_XDECREF(cur);
    if (!cur_ptr) goto done;
    uintptr_t s = (uintptr_t)PyLong_AsVoidPtr(cur_ptr);
    Py_DECREF(cur_ptr);
    if (PyErr_Occurred()) goto done;
    p->producer = s ? s : 1;
    p->producer_known = true;
  }
  note_producer(p->producer, stream, p);
  rc = 0;
done:
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  Py_XDECREF(dtype);
  Py_XDECREF(num);
  Py_XDECREF(mem);
  Py_XDECREF(ptr);
  return rc;
}

/* DLPack's structs, as its stable C ABI lays them out. */
typedef struct {
  void *data;
  struct {
    int32_t device_type, device_id;
  } device;
  int32_t ndim;
  struct {
    uint8_t code, bits;
    uint16_t lanes;
  } dtype;
  int64_t *shape, *strides;
  uint64_t byte_offset;
} dl_tensor;

static int from_dlpack(const shim_kernel *k, size_t i, PyObject *obj, void *stream,
                       cuplug_array *a, pack *p) {
  PyObject *s = PyLong_FromVoidPtr(stream ? stream : (void *)1);
  PyObject *kw = s ? Py_BuildValue("{s:N}", "stream", s) : NULL;
  PyObject *meth = kw ? PyObject_GetAttr(obj, s_dlpack) : NULL;
  PyObject *empty = meth ? PyTuple_New(0) : NULL;
  PyObject *capsule = empty ? PyObject_Call(meth, empty, kw) : NULL;
  Py_XDECREF(empty);
  Py_XDECREF(meth);
  Py_XDECREF(kw);
  if (!capsule) return -1;
  p->keep[p->nkeep++] = capsule; /* released after the launch: its deleter runs then */
  dl_tensor *t = PyCapsule_GetPointer(capsule, "dltensor");
  if (!t) return -1;
  if (t->device.device_type != 2 && t->device.device_type != 13)
    return arg_error(k, i, "its __dlpack__ is not on a CUDA device (device type %d)",
                     (int)t->device.device_type), -1;
  if (t->ndim < 0 || t->ndim > 8 || t->dtype.lanes != 1)
    return arg_error(k, i, "its __dlpack__ has %d dimensions", (int)t->ndim), -1;
  a->dtype = kind_of_dlpack(t->dtype.code, t->dtype.bits);
  a->ndim = (uint32_t)t->ndim;
  a->data = (uint64_t)(uintptr_t)t->data + t->byte_offset;
  int64_t step = t->dtype.bits / 8;
  for (int d = t->ndim - 1; d >= 0; d--) {
    a->shape[d] = t->shape[d];
    a->strides[d] = t->strides ? t->strides[d] * (int64_t)(t->dtype.bits / 8) : step;
    step *= t->shape[d];
  }
  return 0;
}

static bool host_library(const shim_kernel *k) { return ((shim_library *)k->library)->host; }

/* The element kind of a buffer's struct format ("<f", "d", "Zf", ...). */
static cuplug_type_kind kind_of_format(const char *f, Py_ssize_t itemsize) {
  if (!f) return itemsize == 1 ? CUPLUG_TYPE_UINT8 : CUPLUG_TYPE_INVALID; /* bytes */
  while (*f == '@' || *f == '=' || *f == '<') f++;
  bool sized = itemsize == 1 || itemsize == 2 || itemsize == 4 || itemsize == 8;
  switch (*f) {
    case '?': return CUPLUG_TYPE_BOOL;
    case 'e': return CUPLUG_TYPE_FLOAT16;
    case 'f': return CUPLUG_TYPE_FLOAT32;
    case 'd': return CUPLUG_TYPE_FLOAT64;
    case 'Z':
      return f[1] == 'f' ? CUPLUG_TYPE_COMPLEX64
             : f[1] == 'd' ? CUPLUG_TYPE_COMPLEX128
                           : CUPLUG_TYPE_INVALID;
    case 'b': case 'h': case 'i': case 'l': case 'q': case 'n':
      if (!sized) return CUPLUG_TYPE_INVALID;
      return itemsize == 1 ? CUPLUG_TYPE_INT8 : itemsize == 2 ? CUPLUG_TYPE_INT16
             : itemsize == 4 ? CUPLUG_TYPE_INT32 : CUPLUG_TYPE_INT64;
    case 'B': case 'H': case 'I': case 'L': case 'Q': case 'N':
      if (!sized) return CUPLUG_TYPE_INVALID;
      return itemsize == 1 ? CUPLUG_TYPE_UINT8 : itemsize == 2 ? CUPLUG_TYPE_UINT16
             : itemsize == 4 ? CUPLUG_TYPE_UINT32 : CUPLUG_TYPE_UINT64;
    default: return CUPLUG_TYPE_INVALID;
  }
}

/* A host buffer (NumPy, array.array, bytearray, memoryview...), held until
 * the launch is over: writable where it can be, for kernels write their
 * results there. */
static int get_view(const shim_kernel *k, size_t i, PyObject *obj, pack *p, Py_buffer **out) {
  Py_buffer *v = &p->views[p->nviews];
  if (PyObject_GetBuffer(obj, v, PyBUF_RECORDS) < 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(obj, v, PyBUF_RECORDS_RO) < 0) {
      PyErr_Clear();
      PyObject *tn = PyType_GetName(Py_TYPE(obj));
      arg_error(k, i, "a host kernel takes a buffer (a NumPy array, array.array, ...), got %U",
                tn);
      Py_XDECREF(tn);
      return -1;
    }
  }
  p->nviews++;
  *out = v;
  return 0;
}

static int from_buffer(const shim_kernel *k, size_t i, PyObject *obj, cuplug_array *a, pack *p) {
  Py_buffer *v;
  if (get_view(k, i, obj, p, &v) < 0) return -1;
  if (v->ndim < 1 || v->ndim > 8)
    return arg_error(k, i, "a buffer of %d dimensions", v->ndim), -1;
  a->data = (uint64_t)(uintptr_t)v->buf;
  a->dtype = kind_of_format(v->format, v->itemsize);
  a->ndim = (uint32_t)v->ndim;
  for (int d = 0; d < v->ndim; d++) {
    a->shape[d] = v->shape[d];
    a->strides[d] = v->strides ? v->strides[d] : v->itemsize;
  }
  if (!v->strides) /* C-contiguous: the strides from the shape */
    for (int d = v->ndim - 2; d >= 0; d--) a->strides[d] = a->strides[d + 1] * v->shape[d + 1];
  return 0;
}

static int array_arg(const shim_kernel *k, size_t i, PyObject *obj, void *stream, pack *p) {
  const param *pr = &k->params[i];
  cuplug_array *a = &p->arrays[i];
  memset(a, 0, sizeof *a);
  int rc;
  PyObject *cai = NULL;
  if (host_library(k)) {
    rc = from_buffer(k, i, obj, a, p);
  } else if (is_cupy_ndarray(obj)) {
    rc = from_cupy(k, i, obj, stream, a, p);
  } else if ((cai = PyObject_GetAttr(obj, s_cai))) {
    rc = from_cai(k, i, cai, stream, a, p);
    Py_DECREF(cai);
  } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    if (!PyObject_HasAttr(obj, s_dlpack)) {
      PyObject *tn = PyType_GetName(Py_TYPE(obj));
      arg_error(k, i, "expected an array with __cuda_array_interface__ or __dlpack__, got %U",
                tn);
      Py_XDECREF(tn);
      return -1;
    }
    rc = from_dlpack(k, i, obj, stream, a, p);
  } else {
    return -1;
  }
  if (rc < 0) return -1;
  if (a->dtype != pr->dtype || a->ndim != pr->ndim)
    return arg_error(k, i, "got an array of %s with %u dimensions", kind_name(a->dtype),
                     a->ndim), -1;
  p->values[i] = (cuplug_value){CUPLUG_TYPE_ARRAY, a};
  return 0;
}

/* A device address: an int, or an array's data pointer. */
static int pointer_arg(const shim_kernel *k, size_t i, PyObject *obj, void *stream, pack *p) {
  slot *s = &p->slots[i];
  if (PyLong_Check(obj)) {
    s->u = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return arg_error(k, i, "the address is not a 64-bit unsigned int"), -1;
    }
  } else if (host_library(k)) { /* a host buffer's address */
    Py_buffer *v;
    if (get_view(k, i, obj, p, &v) < 0) return -1;
    s->u = (uint64_t)(uintptr_t)v->buf;
  } else {
    cuplug_array a;
    PyObject *cai = PyObject_GetAttr(obj, s_cai);
    if (!cai) {
      PyErr_Clear();
      PyObject *tn = PyType_GetName(Py_TYPE(obj));
      arg_error(k, i, "expected a device address (int) or an array, got %U", tn);
      Py_XDECREF(tn);
      return -1;
    }
    memset(&a, 0, sizeof a);
    int rc = from_cai(k, i, cai, stream, &a, p);
    Py_DECREF(cai);
    if (rc < 0) return -1;
    s->u = a.data;
  }
  p->values[i] = (cuplug_value){CUPLUG_TYPE_POINTER, s};
  return 0;
}

/* float32 bits to float16 bits, rounding to nearest even. */
static uint16_t half_of(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00u | (m ? 0x200u : 0));
  int exp = (int)e - 127 + 15;
  if (exp >= 31) return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) {
    if (exp < -10) return (uint16_t)sign;
    m |= 0x800000u;
    int shift = 14 - exp;
    uint32_t h = m >> shift, rest = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)exp << 10) | (m >> 13), rest = m & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static int scalar_arg(const shim_kernel *k, size_t i, PyObject *obj, pack *p) {
  const param *pr = &k->params[i];
  slot *s = &p->slots[i];
  switch (pr->kind) {
    case CUPLUG_TYPE_BOOL: {
      int b = PyObject_IsTrue(obj);
      if (b < 0) return -1;
      s->b = (uint8_t)b;
      break;
    }
    case CUPLUG_TYPE_FLOAT16:
    case CUPLUG_TYPE_FLOAT32:
    case CUPLUG_TYPE_FLOAT64: {
      double d = PyFloat_AsDouble(obj);
      if (d == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        PyObject *tn = PyType_GetName(Py_TYPE(obj));
        arg_error(k, i, "expected a number, got %U", tn);
        Py_XDECREF(tn);
        return -1;
      }
      if (pr->kind == CUPLUG_TYPE_FLOAT64) s->d = d;
      else if (pr->kind == CUPLUG_TYPE_FLOAT32) s->f = (float)d;
      else s->h = half_of((float)d);
      break;
    }
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: {
      double re = PyComplex_RealAsDouble(obj), im = PyComplex_ImagAsDouble(obj);
      if (PyErr_Occurred()) return -1;
      if (pr->kind == CUPLUG_TYPE_COMPLEX128) {
        s->c[0] = re;
        s->c[1] = im;
      } else {
        s->cf[0] = (float)re;
        s->cf[1] = (float)im;
      }
      break;
    }
    default: { /* integers: exactly, within the type's range */
      PyObject *n = PyNumber_Index(obj);
      if (!n) {
        PyErr_Clear();
        PyObject *tn = PyType_GetName(Py_TYPE(obj));
        arg_error(k, i, "expected an integer, got %U", tn);
        Py_XDECREF(tn);
        return -1;
      }
      int overflow = 0;
      long long v = PyLong_AsLongLongAndOverflow(n, &overflow);
      bool is_unsigned = pr->kind >= CUPLUG_TYPE_UINT8 && pr->kind <= CUPLUG_TYPE_UINT64;
      unsigned long long u = 0;
      if (overflow > 0 && pr->kind == CUPLUG_TYPE_UINT64) {
        u = PyLong_AsUnsignedLongLong(n);
        overflow = PyErr_Occurred() != NULL;
        PyErr_Clear();
        v = (long long)u;
      }
      Py_DECREF(n);
      unsigned bits = pr->itemsize * 8;
      bool fits = !overflow &&
                  (is_unsigned ? (pr->kind == CUPLUG_TYPE_UINT64 ? (overflow == 0 && (v >= 0 || u))
                                                                 : v >= 0 && (unsigned long long)v >> bits == 0)
                               : bits == 64 || (v >= -(1ll << (bits - 1)) && v < (1ll << (bits - 1))));
      if (!fits) return arg_error(k, i, "the value does not fit"), -1;
      s->i = v; /* little-endian: the low bytes are the narrower value */
      break;
    }
  }
  p->values[i] = (cuplug_value){pr->kind, s};
  return 0;
}

static int pack_args(const shim_kernel *k, PyObject *args, void *stream, pack *p) {
  Py_ssize_t n = PyTuple_Size(args);
  if ((size_t)n != k->nparams) {
    PyErr_Format(PyExc_TypeError, "kernel %s takes %zu arguments, got %zd", k->name,
                 k->nparams, n);
    return -1;
  }
  for (size_t i = 0; i < k->nparams; i++) {
    PyObject *obj = PyTuple_GetItem(args, (Py_ssize_t)i);
    int rc;
    switch (k->params[i].kind) {
      case CUPLUG_TYPE_ARRAY: rc = array_arg(k, i, obj, stream, p); break;
      case CUPLUG_TYPE_POINTER: rc = pointer_arg(k, i, obj, stream, p); break;
      default: rc = scalar_arg(k, i, obj, p); break;
    }
    if (rc < 0) return -1;
  }
  return 0;
}

/* ---- a host library's C-ABI functions ---- */

/* The address of a host library's function (name NULL: the artifact's
 * symbol) and, for the artifact's symbol, its signature. */
static int host_function(shim_library *l, const char *name, void **address,
                         const cuplug_type **sig) {
  if (!l->library) return PyErr_Format(PyExc_ValueError, "the module is closed"), -1;
  if (!l->host)
    return PyErr_Format(PyExc_ValueError,
                        "the library was loaded on the GPU: compile with output=\"host\" to "
                        "call its functions from Python"), -1;
  cuplug_host_function_args f = {.struct_size = sizeof f, .library = l->library, .name = name};
  cuplug_error *e = shim_api->host_function(&f);
  if (e) return shim_raise(e), -1;
  *address = f.address;
  *sig = f.signature;
  return 0;
}

static PyObject *library_address(PyObject *self, PyObject *args) {
  const char *name = NULL;
  if (!PyArg_ParseTuple(args, "|z:address", &name)) return NULL;
  void *address;
  const cuplug_type *sig;
  if (host_function((shim_library *)self, name, &address, &sig) < 0) return NULL;
  return PyLong_FromVoidPtr(address);
}

/* float16 bits as a double */
static double half_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return h & 0x8000 ? -v : v;
}

static PyObject *result_value(cuplug_type_kind k, const slot *r) {
  switch (k) {
    case CUPLUG_TYPE_VOID: Py_RETURN_NONE;
    case CUPLUG_TYPE_BOOL: return PyBool_FromLong(r->b);
    case CUPLUG_TYPE_INT8: return PyLong_FromLong((int8_t)r->b);
    case CUPLUG_TYPE_INT16: return PyLong_FromLong((int16_t)r->h);
    case CUPLUG_TYPE_INT32: return PyLong_FromLong((int32_t)(uint32_t)r->u);
    case CUPLUG_TYPE_INT64: return PyLong_FromLongLong(r->i);
    case CUPLUG_TYPE_UINT8: return PyLong_FromUnsignedLong(r->b);
    case CUPLUG_TYPE_UINT16: return PyLong_FromUnsignedLong(r->h);
    case CUPLUG_TYPE_UINT32: return PyLong_FromUnsignedLong((uint32_t)r->u);
    case CUPLUG_TYPE_UINT64: case CUPLUG_TYPE_POINTER: return PyLong_FromUnsignedLongLong(r->u);
    case CUPLUG_TYPE_FLOAT16: return PyFloat_FromDouble(half_value(r->h));
    case CUPLUG_TYPE_FLOAT32: return PyFloat_FromDouble(r->f);
    case CUPLUG_TYPE_FLOAT64: return PyFloat_FromDouble(r->d);
    case CUPLUG_TYPE_COMPLEX64: return PyComplex_FromDoubles(r->cf[0], r->cf[1]);
    case CUPLUG_TYPE_COMPLEX128: return PyComplex_FromDoubles(r->c[0], r->c[1]);
    default: return PyErr_Format(PyExc_TypeError, "a host call cannot return this type");
  }
}

/* Library.call(*args, name=None, signature=None) */
static PyObject *library_call(PyObject *self, PyObject *args, PyObject *kw) {
  shim_library *l = (shim_library *)self;
  const char *name = NULL;
  PyObject *sig_obj = Py_None;
  if (kw) {
    PyObject *n = PyDict_GetItemString(kw, "name"), *s = PyDict_GetItemString(kw, "signature");
    Py_ssize_t known = (n != NULL) + (s != NULL);
    if (PyDict_Size(kw) != known)
      return PyErr_Format(PyExc_TypeError, "call() takes the keywords name and signature only");
    if (n && n != Py_None && !(name = PyUnicode_AsUTF8AndSize(n, NULL))) return NULL;
    if (s) sig_obj = s;
  }
  void *address;
  const cuplug_type *sig;
  if (host_function(l, name, &address, &sig) < 0) return NULL;
  if (sig_obj != Py_None && !(sig = shim_type_from(sig_obj, "signature"))) return NULL;
  if (!sig)
    return PyErr_Format(PyExc_TypeError, "call %s: give its signature (signature=...)",
                        name ? name : "");
  shim_kernel k = {.library = self, .name = (char *)(name ? name : "(the compiled one)"),
                   .noun = "function"};
  if (describe(sig, &k) < 0) return PyErr_NoMemory();
  PyObject *result = NULL;
  Py_ssize_t n = PyTuple_Size(args);
  slot *slots = PyMem_Calloc(k.nparams + 1, sizeof *slots);
  cuplug_value *values = PyMem_Calloc(k.nparams + 1, sizeof *values);
  Py_buffer *views = PyMem_Calloc(k.nparams + 1, sizeof *views);
  pack p = {values, slots, NULL, NULL, 0, views, 0, false, false, 0};
  if (!slots || !values || !views) {
    PyErr_NoMemory();
    goto done;
  }
  if ((size_t)n != k.nparams) {
    PyErr_Format(PyExc_TypeError, "function %s takes %zu arguments, got %zd", k.name,
                 k.nparams, n);
    goto done;
  }
  for (size_t i = 0; i < k.nparams; i++) {
    PyObject *obj = PyTuple_GetItem(args, (Py_ssize_t)i);
    int rc = k.params[i].kind == CUPLUG_TYPE_POINTER ? pointer_arg(&k, i, obj, NULL, &p)
             : k.params[i].kind == CUPLUG_TYPE_ARRAY
                 ? (arg_error(&k, i, "a host call takes scalars and pointers"), -1)
                 : scalar_arg(&k, i, obj, &p);
    if (rc < 0) goto done;
  }
  slot r;
  memset(&r, 0, sizeof r);
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l->library, .name = name,
                             .signature_type = sig, .args = values, .num_args = k.nparams,
                             .result = &r, .result_size = sizeof r};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->host_call(&c);
  Py_END_ALLOW_THREADS
  if (e) {
    shim_raise(e);
    goto done;
  }
  cuplug_type_info si = {.struct_size = sizeof si, .type = sig};
  shim_api->error_destroy(shim_api->type_info(&si));
  cuplug_type_info ri = {.struct_size = sizeof ri, .type = si.restype};
  shim_api->error_destroy(shim_api->type_info(&ri));
  result = result_value(ri.kind, &r);
done:
  for (size_t i = 0; i < p.nviews; i++) PyBuffer_Release(&views[i]);
  PyMem_Free(slots);
  PyMem_Free(values);
  PyMem_Free(views);
  PyMem_Free(k.params);
  return result;
}

static PyObject *launch(shim_kernel *k, const uint32_t grid[3], const uint32_t block[3],
                        void *stream, uint32_t shared_mem, PyObject *args) {
  if (!kernel_open(k)) return NULL;
  enum { STACK = 16 };
  cuplug_value values[STACK];
  slot slots[STACK];
  cuplug_array arrays[STACK];
  PyObject *keep[STACK];
  Py_buffer views[STACK];
  pack p = {values, slots, arrays, keep, 0, views, 0, false, false, 0};
  bool heap = k->nparams > STACK;
  if (heap) {
    p.values = PyMem_Calloc(k->nparams, sizeof *p.values);
    p.slots = PyMem_Calloc(k->nparams, sizeof *p.slots);
    p.arrays = PyMem_Calloc(k->nparams, sizeof *p.arrays);
    p.keep = PyMem_Calloc(k->nparams, sizeof *p.keep);
    p.views = PyMem_Calloc(k->nparams, sizeof *p.views);
    if (!p.values || !p.slots || !p.arrays || !p.keep || !p.views) {
      PyErr_NoMemory();
      goto done;
    }
  }
  if (pack_args(k, args, stream, &p) < 0) goto done;
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k->kernel,
                          .grid = {grid[0], grid[1], grid[2]},
                          .block = {block[0], block[1], block[2]},
                          .args = p.values, .num_args = k->nparams,
                          .shared_mem = shared_mem, .stream = stream};
  cuplug_error *e = NULL;
  cuplug_session *session = ((shim_session *)((shim_library *)k->library)->session)->session;
  Py_BEGIN_ALLOW_THREADS if (p.sync_first) e = shim_api->synchronize(session);
  if (!e) e = shim_api->launch(&a);
  Py_END_ALLOW_THREADS
  if (e) shim_raise(e);
done:
  for (size_t i = 0; i < p.nkeep; i++) Py_DECREF(p.keep[i]);
  for (size_t i = 0; i < p.nviews; i++) PyBuffer_Release(&p.views[i]);
  if (heap) {
    PyMem_Free(p.values);
    PyMem_Free(p.slots);
    PyMem_Free(p.arrays);
    PyMem_Free(p.keep);
    PyMem_Free(p.views);
  }
  if (PyErr_Occurred()) return NULL;
  Py_RETURN_NONE;
}

/* ---- launchers: kernel[grid, block, ...] ---- */

static void launcher_dealloc(PyObject *self) {
  Py_CLEAR(((shim_launcher *)self)->kernel);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

static PyObject *launcher_call(PyObject *self, PyObject *args, PyObject *kw) {
  shim_launcher *l = (shim_launcher *)self;
  if (kw && PyDict_Size(kw)) return PyErr_Format(PyExc_TypeError, "a launch takes no keywords");
  return launch((shim_kernel *)l->kernel, l->grid, l->block, l->stream, l->shared_mem, args);
}

static PyType_Slot launcher_slots[] = {
    {Py_tp_doc, "A configured launch: call it with the kernel's arguments."},
    {Py_tp_dealloc, launcher_dealloc},
    {Py_tp_call, launcher_call},
    {0, NULL}};

static PyType_Spec launcher_spec = {"cuplug.Launcher", sizeof(shim_launcher), 0,
                                    Py_TPFLAGS_DEFAULT, launcher_slots};

int shim_launch_init_types(PyObject *m) {
#define INTERN(var, text) \
  if (!(var = PyUnicode_InternFromString(text))) return -1;
  INTERN(s_cai, "__cuda_array_interface__");
  INTERN(s_dlpack, "__dlpack__");
  INTERN(s_shape, "shape");
  INTERN(s_strides, "strides");
  INTERN(s_typestr, "typestr");
  INTERN(s_data, "data");
  INTERN(s_stream, "stream");
  INTERN(s_cuda_stream, "__cuda_stream__");
  INTERN(s_ptr, "ptr");
  INTERN(s_handle, "handle");
  INTERN(s_cupy, "cupy");
  INTERN(s_dtype, "dtype");
  INTERN(s_num, "num");
#undef INTERN
  shim_library_type = (PyTypeObject *)PyType_FromSpec(&library_spec);
  shim_kernel_type = (PyTypeObject *)PyType_FromSpec(&kernel_spec);
  shim_launcher_type = (PyTypeObject *)PyType_FromSpec(&launcher_spec);
  if (!shim_library_type || !shim_kernel_type || !shim_launcher_type) return -1;
  if (PyModule_AddObjectRef(m, "Library", (PyObject *)shim_library_type) < 0 ||
      PyModule_AddObjectRef(m, "Kernel", (PyObject *)shim_kernel_type) < 0)
    return -1;
  return 0;
}
