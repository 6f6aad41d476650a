/* arrays.c - array and pointer arguments.  A GPU library's kernels take
 * arrays through CuPy's attributes, __cuda_array_interface__ (CuPy,
 * PyTorch, numba-cuda) or __dlpack__; a host library's take anything with
 * the buffer protocol (NumPy, array.array, ...).  The conversion is here,
 * in C: a launch from Python should cost little more than one from C.
 * Memory its owner marks read-only (a buffer that refuses PyBUF_WRITABLE,
 * an interface whose data is (ptr, True), DLPack's read-only flag) is
 * passed as such: the plugin refuses it where the kernel may write. */
#include <string.h>

#include "arrays.h"

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

static const char *kind_name(shim_state *st, cuplug_type_kind k) {
  const cuplug_type *t = st->api->type_scalar(k);
  if (!t) return "an unknown type";
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  st->api->error_destroy(st->api->type_info(&i));
  return i.name;
}

static int64_t int_item(PyObject *tuple, Py_ssize_t i) {
  PyObject *v = PyTuple_GetItem(tuple, i);
  return v ? PyLong_AsLongLong(v) : -1;
}

static int int_tuple(PyObject *t, Py_ssize_t n, int64_t *out) {
  if (!t || !PyTuple_Check(t) || PyTuple_Size(t) != n) return -1;
  for (Py_ssize_t d = 0; d < n; d++) out[d] = PyLong_AsLongLong(PyTuple_GetItem(t, d));
  return PyErr_Occurred() ? -1 : 0;
}

/* numba-cuda's rule for an array made on stream `producer` (a CUDA Array
 * Interface stream: 1 and 2 are the default streams): when the launch is on
 * another, wait for the device first. */
static void note_producer(uintptr_t producer, shim_pack *p) {
  uintptr_t mine = (uintptr_t)p->stream;
  if (producer != mine && !((producer == 1 || producer == 2) && mine == 0)) p->sync_first = true;
}

/* ---- __cuda_array_interface__ (version 2 or 3) ---- */

static int from_cai(const shim_callee *c, size_t i, PyObject *cai, shim_array *a,
                    shim_pack *p) {
  const shim_names *s = &p->st->names;
  if (!PyDict_Check(cai)) return shim_arg_error(c, i, "its __cuda_array_interface__ is not a dict"), -1;
  PyObject *shape = PyDict_GetItemWithError(cai, s->shape);
  PyObject *typestr = PyDict_GetItemWithError(cai, s->typestr);
  PyObject *data = PyDict_GetItemWithError(cai, s->data);
  PyObject *strides = PyDict_GetItemWithError(cai, s->strides);
  PyObject *producer = PyDict_GetItemWithError(cai, s->stream);
  if (PyErr_Occurred()) return -1;
  if (!shape || !PyTuple_Check(shape) || !typestr || !PyUnicode_Check(typestr) || !data ||
      !PyTuple_Check(data) || PyTuple_Size(data) < 1)
    return shim_arg_error(c, i, "its __cuda_array_interface__ lacks shape, typestr or data"), -1;
  a->nd.dtype = kind_of_typestr(PyUnicode_AsUTF8AndSize(typestr, NULL));
  Py_ssize_t ndim = PyTuple_Size(shape);
  if (ndim > 8) return shim_arg_error(c, i, "an array of %zd dimensions", ndim), -1;
  a->nd.ndim = (uint32_t)ndim;
  a->nd.data = PyLong_AsUnsignedLongLong(PyTuple_GetItem(data, 0));
  int readonly = PyTuple_Size(data) > 1 ? PyObject_IsTrue(PyTuple_GetItem(data, 1)) : 0;
  if (readonly < 0) return -1;
  if (readonly) a->nd.flags |= CUPLUG_ARRAY_READONLY;
  for (Py_ssize_t d = 0; d < ndim; d++) a->shape[d] = int_item(shape, d);
  if (strides && strides != Py_None) {
    if (!PyTuple_Check(strides) || PyTuple_Size(strides) != ndim)
      return shim_arg_error(c, i, "its strides do not match its shape"), -1;
    for (Py_ssize_t d = 0; d < ndim; d++) a->strides[d] = int_item(strides, d);
  } else { /* C-contiguous */
    int64_t step = (int64_t)c->params[i].itemsize;
    for (Py_ssize_t d = ndim - 1; d >= 0; d--) {
      a->strides[d] = step;
      step *= a->shape[d];
    }
  }
  if (PyErr_Occurred()) return -1;
  /* numba-cuda's rule: an array of another stream is waited for */
  if (producer && producer != Py_None) {
    uintptr_t stream = (uintptr_t)PyLong_AsVoidPtr(producer);
    if (PyErr_Occurred()) return -1;
    note_producer(stream, p);
  }
  return 0;
}

/* ---- CuPy ----
 * CuPy's ndarray, read through its public attributes (data.ptr, shape,
 * strides, dtype.num) rather than its __cuda_array_interface__, whose dict
 * (with descr, version and the current stream) costs several times more to
 * build.  The result is the same: CuPy reports its current stream as the
 * array's (1 for the default stream), and so does this path, once per
 * launch.  Only the exact type takes it; a subclass may override the
 * interface. */

static bool is_cupy_ndarray(shim_state *st, PyObject *obj) {
  if (st->cupy_ndarray) return Py_TYPE(obj) == st->cupy_ndarray;
  PyObject *cupy = PyImport_GetModule(st->names.cupy);
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
    st->cupy_ndarray = (PyTypeObject *)type;
    st->cupy_current_stream = fn;
    return Py_TYPE(obj) == st->cupy_ndarray;
  }
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(fn);
  return false;
}

/* CuPy's current stream, asked once per launch, as the arrays' producer. */
static int cupy_producer(shim_pack *p) {
  if (p->producer_known) return 0;
  PyObject *cur = PyObject_CallNoArgs(p->st->cupy_current_stream);
  PyObject *cur_ptr = cur ? PyObject_GetAttr(cur, p->st->names.ptr) : NULL;
  Py_XDECREF(cur);
  if (!cur_ptr) return -1;
  uintptr_t s = (uintptr_t)PyLong_AsVoidPtr(cur_ptr);
  Py_DECREF(cur_ptr);
  if (PyErr_Occurred()) return -1;
  p->producer = s ? s : 1;
  p->producer_known = true;
  return 0;
}

static int from_cupy(const shim_callee *c, size_t i, PyObject *obj, shim_array *a,
                     shim_pack *p) {
  const shim_names *s = &p->st->names;
  PyObject *shape = PyObject_GetAttr(obj, s->shape);
  PyObject *strides = shape ? PyObject_GetAttr(obj, s->strides) : NULL;
  PyObject *dtype = strides ? PyObject_GetAttr(obj, s->dtype) : NULL;
  PyObject *num = dtype ? PyObject_GetAttr(dtype, s->num) : NULL;
  PyObject *mem = num ? PyObject_GetAttr(obj, s->data) : NULL;
  PyObject *ptr = mem ? PyObject_GetAttr(mem, s->ptr) : NULL;
  int rc = -1;
  if (!ptr) goto done;
  Py_ssize_t ndim = PyTuple_Check(shape) ? PyTuple_Size(shape) : -1;
  if (ndim < 0 || ndim > 8) {
    shim_arg_error(c, i, "an array of %zd dimensions", ndim);
    goto done;
  }
  a->nd.ndim = (uint32_t)ndim;
  a->nd.dtype = kind_of_type_num(PyLong_AsLong(num));
  a->nd.data = PyLong_AsUnsignedLongLong(ptr);
  if (PyErr_Occurred() || int_tuple(shape, ndim, a->shape) < 0 ||
      int_tuple(strides, ndim, a->strides) < 0) {
    if (!PyErr_Occurred()) shim_arg_error(c, i, "its strides do not match its shape");
    goto done;
  }
  if (cupy_producer(p) < 0) goto done;
  note_producer(p->producer, p);
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

/* ---- __dlpack__ ---- */

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

/* DLPack 1.0's versioned tensor ("dltensor_versioned"): flags beside it. */
typedef struct {
  struct {
    uint32_t major, minor;
  } version;
  void *manager_ctx;
  void (*deleter)(void *self);
  uint64_t flags;
  dl_tensor tensor;
} dl_versioned;
#define DL_FLAG_READ_ONLY 1u

/* obj.__dlpack__(stream=..., max_version=(1, 0)), which a producer of
 * DLPack 1.0 answers with the versioned tensor; an older one, whose
 * __dlpack__ takes no max_version, is asked again without it. */
static PyObject *dlpack_capsule(PyObject *obj, shim_pack *p) {
  PyObject *meth = PyObject_GetAttr(obj, p->st->names.dlpack);
  PyObject *s = meth ? PyLong_FromVoidPtr(p->stream ? p->stream : (void *)1) : NULL;
  PyObject *kw = s ? Py_BuildValue("{s:O,s:(ii)}", "stream", s, "max_version", 1, 0) : NULL;
  PyObject *empty = kw ? PyTuple_New(0) : NULL;
  PyObject *capsule = empty ? PyObject_Call(meth, empty, kw) : NULL;
  if (!capsule && empty && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    if (PyDict_DelItemString(kw, "max_version") == 0) capsule = PyObject_Call(meth, empty, kw);
  }
  Py_XDECREF(empty);
  Py_XDECREF(kw);
  Py_XDECREF(s);
  Py_XDECREF(meth);
  return capsule;
}

static int from_dlpack(const shim_callee *c, size_t i, PyObject *obj, shim_array *a,
                       shim_pack *p) {
  PyObject *capsule = dlpack_capsule(obj, p);
  if (!capsule) return -1;
  p->keep[p->nkeep++] = capsule; /* released after the launch: its deleter runs then */
  dl_tensor *t;
  if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
    dl_versioned *v = PyCapsule_GetPointer(capsule, "dltensor_versioned");
    if (v->version.major != 1)
      return shim_arg_error(c, i, "its __dlpack__ is of DLPack %u.%u: cuplug reads 1.x",
                            (unsigned)v->version.major, (unsigned)v->version.minor), -1;
    if (v->flags & DL_FLAG_READ_ONLY) a->nd.flags |= CUPLUG_ARRAY_READONLY;
    t = &v->tensor;
  } else if (!(t = PyCapsule_GetPointer(capsule, "dltensor"))) {
    return -1;
  }
  if (t->device.device_type != 2 && t->device.device_type != 13)
    return shim_arg_error(c, i, "its __dlpack__ is not on a CUDA device (device type %d)",
                          (int)t->device.device_type), -1;
  if (t->ndim < 0 || t->ndim > 8 || t->dtype.lanes != 1)
    return shim_arg_error(c, i, "its __dlpack__ has %d dimensions", (int)t->ndim), -1;
  a->nd.dtype = kind_of_dlpack(t->dtype.code, t->dtype.bits);
  a->nd.ndim = (uint32_t)t->ndim;
  a->nd.data = (uint64_t)(uintptr_t)t->data + t->byte_offset;
  int64_t step = t->dtype.bits / 8;
  for (int d = t->ndim - 1; d >= 0; d--) {
    a->shape[d] = t->shape[d];
    a->strides[d] = t->strides ? t->strides[d] * (int64_t)(t->dtype.bits / 8) : step;
    step *= t->shape[d];
  }
  return 0;
}

/* ---- the buffer protocol (a host library's arguments) ---- */

/* A host buffer (NumPy, array.array, bytearray, memoryview...), held until
 * the call is over: writable where it can be, for kernels write their
 * results there; else read-only (v->readonly), as bytes are. */
static int get_view(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p,
                    Py_buffer **out) {
  Py_buffer *v = &p->views[p->nviews];
  if (PyObject_GetBuffer(obj, v, PyBUF_RECORDS) < 0) {
    PyErr_Clear();
    if (PyObject_GetBuffer(obj, v, PyBUF_RECORDS_RO) < 0) {
      PyErr_Clear();
      return shim_arg_got(
          c, i, "a host kernel takes a buffer (a NumPy array, array.array, ...), got %U", obj);
    }
  }
  p->nviews++;
  *out = v;
  return 0;
}

static int from_buffer(const shim_callee *c, size_t i, PyObject *obj, shim_array *a,
                       shim_pack *p) {
  Py_buffer *v;
  if (get_view(c, i, obj, p, &v) < 0) return -1;
  if (v->ndim < 0 || v->ndim > 8)
    return shim_arg_error(c, i, "a buffer of %d dimensions", v->ndim), -1;
  a->nd.data = (uint64_t)(uintptr_t)v->buf;
  a->nd.dtype = kind_of_format(v->format, v->itemsize);
  a->nd.ndim = (uint32_t)v->ndim;
  if (v->readonly) a->nd.flags |= CUPLUG_ARRAY_READONLY;
  for (int d = 0; d < v->ndim; d++) {
    a->shape[d] = v->shape[d];
    a->strides[d] = v->strides ? v->strides[d] : v->itemsize;
  }
  if (!v->strides) /* C-contiguous: the strides from the shape */
    for (int d = v->ndim - 2; d >= 0; d--) a->strides[d] = a->strides[d + 1] * v->shape[d + 1];
  return 0;
}

/* ---- arguments ---- */

int shim_array_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p) {
  const shim_param *pr = &c->params[i];
  shim_array *a = &p->arrays[i];
  memset(a, 0, sizeof *a);
  a->nd.struct_size = CUPLUG_NDARRAY_STRUCT_SIZE;
  a->nd.shape = a->shape;
  a->nd.strides = a->strides;
  int rc;
  PyObject *cai = NULL;
  if (c->host) {
    rc = from_buffer(c, i, obj, a, p);
  } else if (is_cupy_ndarray(p->st, obj)) {
    rc = from_cupy(c, i, obj, a, p);
  } else if ((cai = PyObject_GetAttr(obj, p->st->names.cai))) {
    rc = from_cai(c, i, cai, a, p);
    Py_DECREF(cai);
  } else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
    PyErr_Clear();
    if (!PyObject_HasAttr(obj, p->st->names.dlpack))
      return shim_arg_got(
          c, i, "expected an array with __cuda_array_interface__ or __dlpack__, got %U", obj);
    rc = from_dlpack(c, i, obj, a, p);
  } else {
    return -1;
  }
  if (rc < 0) return -1;
  if (a->nd.dtype != pr->dtype || a->nd.ndim != pr->ndim)
    return shim_arg_error(c, i, "got an array of %s with %u dimensions",
                          kind_name(p->st, a->nd.dtype), a->nd.ndim), -1;
  shim_pack_put(p, i, CUPLUG_TYPE_ARRAY, &a->nd);
  return 0;
}

int shim_pointer_arg(const shim_callee *c, size_t i, PyObject *obj, shim_pack *p) {
  shim_slot *s = &p->slots[i];
  if (PyLong_Check(obj)) {
    s->u = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return shim_arg_error(c, i, "the address is not a 64-bit unsigned int"), -1;
    }
  } else if (c->host) { /* a host buffer's address */
    Py_buffer *v;
    if (get_view(c, i, obj, p, &v) < 0) return -1;
    /* a record in place: a NumPy record, or a structured array of one */
    if (c->params[i].kind == CUPLUG_TYPE_RECORD && v->len < (Py_ssize_t)c->params[i].itemsize)
      return shim_arg_error(c, i, "a buffer of %zd bytes holds no record of %u", v->len,
                            c->params[i].itemsize), -1;
    /* a record travels by reference and the code may write it: never into
     * memory Python holds read-only (bytes, a read-only array) */
    if (c->params[i].kind == CUPLUG_TYPE_RECORD && v->readonly)
      return shim_arg_error(c, i, "a read-only buffer (the code may write the record)"), -1;
    s->u = (uint64_t)(uintptr_t)v->buf;
  } else {
    shim_array a;
    PyObject *cai = PyObject_GetAttr(obj, p->st->names.cai);
    if (!cai) {
      PyErr_Clear();
      return shim_arg_got(c, i, "expected a device address (int) or an array, got %U", obj);
    }
    memset(&a, 0, sizeof a);
    int rc = from_cai(c, i, cai, &a, p);
    Py_DECREF(cai);
    if (rc < 0) return -1;
    s->u = a.nd.data;
  }
  shim_pack_put(p, i, c->params[i].kind, s);
  return 0;
}
