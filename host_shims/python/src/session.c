/* session.c - sessions, registries and artifacts: compiling, linking,
 * typing and lowering, with the GIL released while the plugin works. */
#include <stdio.h>
#include <string.h>

#include "shim.h"

PyTypeObject *shim_session_type, *shim_registry_type, *shim_artifact_type;

/* ---- values the plugin reads during a call ---- */

/* Bytes of a str (UTF-8), bytes or buffer object, valid while *keep lives
 * (a buffer view is released by release_view). */
typedef struct view {
  const char *data;
  Py_ssize_t size;
  Py_buffer buffer;
  bool has_buffer;
} view;

static int view_of(PyObject *obj, const char *what, view *v) {
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

static void release_view(view *v) {
  if (v->has_buffer) PyBuffer_Release(&v->buffer);
  v->has_buffer = false;
}

/* What a call takes from a Python sequence (code to link, IR modules): an
 * array of C structs of one size, pointers to each, and the buffers they
 * borrow, released together. */
typedef struct item_list {
  void *items;
  const void **ptrs;
  view *views;
  size_t n;
} item_list;

/* Fills the struct at `out` from `item`, the i-th, borrowing into v. */
typedef int (*item_fn)(PyObject *item, size_t i, void *out, view *v);

static void item_list_free(item_list *l) {
  for (size_t i = 0; i < l->n; i++) release_view(&l->views[i]);
  PyMem_Free(l->items);
  PyMem_Free(l->ptrs);
  PyMem_Free(l->views);
  memset(l, 0, sizeof *l);
}

/* seq (None: empty) as an item_list of structs of `size` bytes. */
static int item_list_of(PyObject *seq, const char *what, size_t size, item_fn convert,
                        item_list *l) {
  memset(l, 0, sizeof *l);
  if (!seq || seq == Py_None) return 0;
  PyObject *fast = PySequence_Fast(seq, what);
  if (!fast) return -1;
  Py_ssize_t n = PySequence_Size(fast);
  l->items = PyMem_Calloc((size_t)n + 1, size);
  l->ptrs = PyMem_Calloc((size_t)n + 1, sizeof *l->ptrs);
  l->views = PyMem_Calloc((size_t)n + 1, sizeof *l->views);
  int rc = l->items && l->ptrs && l->views ? 0 : (PyErr_NoMemory(), -1);
  for (Py_ssize_t i = 0; rc == 0 && i < n; i++) {
    PyObject *item = PySequence_GetItem(fast, i);
    void *out = (char *)l->items + (size_t)i * size;
    rc = item ? convert(item, (size_t)i, out, &l->views[i]) : -1;
    Py_XDECREF(item); /* it stays alive in seq, which the caller holds */
    l->ptrs[i] = out;
    l->n = (size_t)i + 1;
  }
  Py_DECREF(fast);
  if (rc < 0) item_list_free(l);
  return rc;
}

/* Code to link: a path (str), bytes (the kind told by their contents), or
 * a tuple (name, bytes) or (kind, name, bytes). */
static int code_item(PyObject *item, size_t i, void *out, view *v) {
  cuplug_code *c = out;
  *c = (cuplug_code){.struct_size = sizeof *c};
  char what[64];
  snprintf(what, sizeof what, "code %zu", i);
  if (PyUnicode_Check(item)) {
    c->path = PyUnicode_AsUTF8AndSize(item, NULL);
    return c->path ? 0 : -1;
  }
  if (!PyTuple_Check(item)) {
    if (view_of(item, what, v) < 0) return -1;
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
  if (view_of(PyTuple_GetItem(item, n - 1), what, v) < 0) return -1;
  c->data = v->data;
  c->size = (size_t)v->size;
  return 0;
}


static int code_list_of(PyObject *seq, item_list *l) {
  return item_list_of(seq, "code to link must be a sequence", sizeof(cuplug_code), code_item, l);
}

/* A sequence of str as a C array (valid while seq lives). */
static int strings_of(PyObject *seq, const char ***out, size_t *n, const char *what) {
  *out = NULL;
  *n = 0;
  if (!seq || seq == Py_None) return 0;
  PyObject *fast = PySequence_Fast(seq, what);
  if (!fast) return -1;
  Py_ssize_t len = PySequence_Size(fast);
  const char **v = PyMem_Calloc((size_t)len + 1, sizeof *v);
  if (!v) {
    Py_DECREF(fast);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < len; i++) {
    PyObject *item = PySequence_GetItem(fast, i);
    v[i] = item ? PyUnicode_AsUTF8AndSize(item, NULL) : NULL;
    Py_XDECREF(item); /* the string lives on in seq */
    if (!v[i]) {
      PyMem_Free(v);
      Py_DECREF(fast);
      return -1;
    }
  }
  Py_DECREF(fast);
  *out = v;
  *n = (size_t)len;
  return 0;
}

/* A cc as numba-cuda writes it: (major, minor), or (major, minor, suffix)
 * with suffix "" , "a" (arch-specific) or "f" (family).  suffix may be NULL
 * where there is none to take. */
static int cc_of(PyObject *cc, uint32_t *major, uint32_t *minor, uint32_t *suffix) {
  *major = *minor = 0;
  if (suffix) *suffix = 0;
  if (!cc || cc == Py_None) return 0;
  const char *s = "";
  if (!PyTuple_Check(cc)) {
    PyErr_SetString(PyExc_TypeError, suffix ? "cc must be a (major, minor[, 'a' or 'f']) tuple"
                                            : "cc must be a (major, minor) tuple");
    return -1;
  }
  if (!PyArg_ParseTuple(cc, suffix ? "II|s;cc must be a (major, minor[, 'a' or 'f']) tuple"
                                   : "II;cc must be a (major, minor) tuple",
                        major, minor, &s))
    return -1;
  if (s[0] && (s[1] || (s[0] != 'a' && s[0] != 'f'))) {
    PyErr_Format(PyExc_ValueError, "cc suffix '%s': give '', 'a' or 'f'", s);
    return -1;
  }
  if (suffix) *suffix = (uint32_t)(unsigned char)s[0];
  return 0;
}

/* ---- artifacts ---- */

static PyObject *artifact_new(cuplug_artifact *a) {
  shim_artifact *o = PyObject_New(shim_artifact, shim_artifact_type);
  if (!o) {
    shim_api->artifact_destroy(a);
    return NULL;
  }
  o->artifact = a;
  if (shim_warn(a) < 0) Py_CLEAR(o);
  return (PyObject *)o;
}

static void artifact_dealloc(PyObject *self) {
  shim_artifact *o = (shim_artifact *)self;
  shim_api->artifact_destroy(o->artifact);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

static cuplug_artifact_info artifact_info(PyObject *self) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  shim_api->error_destroy(shim_api->artifact_info(((shim_artifact *)self)->artifact, &i));
  return i;
}

static PyObject *part_value(cuplug_code_kind kind, const void *data, size_t size) {
  if (kind == CUPLUG_CODE_PTX || kind == CUPLUG_CODE_CU)
    return PyUnicode_DecodeUTF8(data, (Py_ssize_t)size, "replace");
  return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

static PyObject *artifact_get(PyObject *self, void *which) {
  cuplug_artifact_info i = artifact_info(self);
  switch ((intptr_t)which) {
    case 0: return PyLong_FromLong(i.output);
    case 1: return part_value(i.output == CUPLUG_OUTPUT_PTX ? CUPLUG_CODE_PTX : CUPLUG_CODE_AUTO,
                              i.data, i.size);
    case 2: return PyUnicode_FromString(i.symbol);
    case 3: return PyUnicode_FromString(i.log);
    case 4: return PyUnicode_FromString(i.link_log);
    case 5: return i.cc_suffix ? Py_BuildValue("(IIC)", i.cc_major, i.cc_minor, (int)i.cc_suffix)
                               : Py_BuildValue("(II)", i.cc_major, i.cc_minor);
    case 6: return PyLong_FromLong(i.kind);
    case 7: return shim_type(i.signature);
    case 8: return PyBool_FromLong(i.use_cooperative);
    case 11: {
      static const char *const where[] = {"none", "miss", "memory", "disk"};
      return PyUnicode_FromString(i.cache <= CUPLUG_CACHE_DISK ? where[i.cache] : "none");
    }
    case 9: {
      PyObject *parts = PyList_New(0);
      for (size_t k = 0; parts && k < i.num_parts; k++) {
        cuplug_part p = {.struct_size = sizeof p};
        shim_api->error_destroy(shim_api->artifact_part(((shim_artifact *)self)->artifact, k, &p));
        PyObject *data = part_value(p.kind, p.data, p.size);
        PyObject *t = data ? Py_BuildValue("(isN)", (int)p.kind, p.name, data) : NULL;
        if (!t || PyList_Append(parts, t) < 0) Py_CLEAR(parts);
        Py_XDECREF(t);
      }
      return parts;
    }
    case 10: {
      PyObject *mods = PyList_New(0);
      for (size_t k = 0; mods && k < i.num_ir_modules; k++) {
        cuplug_ir_view v = {.struct_size = sizeof v};
        shim_api->error_destroy(shim_api->artifact_ir(((shim_artifact *)self)->artifact, k, &v));
        PyObject *t = Py_BuildValue("(ss#)", v.name, v.text, (Py_ssize_t)v.size);
        if (!t || PyList_Append(mods, t) < 0) Py_CLEAR(mods);
        Py_XDECREF(t);
      }
      return mods;
    }
    default: return PyBool_FromLong(i.debug);
  }
}

static PyGetSetDef artifact_getset[] = {
    {"output", artifact_get, NULL, "1 PTX, 2 LTO-IR, 3 cubin.", (void *)0},
    {"data", artifact_get, NULL, "The result: PTX as str, LTO-IR or a cubin as bytes.", (void *)1},
    {"symbol", artifact_get, NULL, "The exported function or kernel ('' when none).", (void *)2},
    {"log", artifact_get, NULL, "libNVVM's log.", (void *)3},
    {"link_log", artifact_get, NULL, "nvJitLink's log.", (void *)4},
    {"cc", artifact_get, NULL,
     "The compute capability: (major, minor), or (major, minor, 'a' or 'f').", (void *)5},
    {"kind", artifact_get, NULL, "0 device function, 1 kernel.", (void *)6},
    {"signature", artifact_get, NULL, "The entry's signature, or None.", (void *)7},
    {"cooperative", artifact_get, NULL, "Links cudadevrt; launch cooperatively.", (void *)8},
    {"parts", artifact_get, NULL, "[(kind, name, code)]: each piece of code it holds.", (void *)9},
    {"ir", artifact_get, NULL, "[(name, text)]: the NVVM IR handed to libNVVM (keep_ir).",
     (void *)10},
    {"cache", artifact_get, NULL,
     "Where it came from: 'miss' (built and stored), 'memory' or 'disk' (found in the\n"
     "cache), 'none' (built, no cache).",
     (void *)11},
    {"debug", artifact_get, NULL, "Compiled with the exception store.", (void *)11},
    {NULL}};

static PyType_Slot artifact_slots[] = {
    {Py_tp_doc, "What a compile or a link produced: code, logs, and what loading needs."},
    {Py_tp_dealloc, artifact_dealloc},
    {Py_tp_getset, artifact_getset},
    {0, NULL}};

static PyType_Spec artifact_spec = {"cuplug.Artifact", sizeof(shim_artifact), 0,
                                    Py_TPFLAGS_DEFAULT, artifact_slots};

/* ---- registries ---- */

static PyObject *registry_wrap(cuplug_registry *r, PyObject *owner) {
  shim_registry *o = PyObject_GC_New(shim_registry, shim_registry_type);
  if (!o) return NULL;
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

static PyObject *registry_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  (void)type;
  static char *names[] = {"builtins", NULL};
  int builtins = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:Registry", names, &builtins)) return NULL;
  if (!shim_api) return PyErr_Format(PyExc_RuntimeError, "the plugin is not loaded");
  cuplug_registry_options o = {.struct_size = sizeof o,
                               .flags = builtins ? 0 : CUPLUG_REGISTRY_NO_BUILTINS};
  cuplug_registry *r;
  cuplug_error *e = shim_api->registry_create(&o, &r);
  if (e) return shim_raise(e);
  PyObject *obj = registry_wrap(r, NULL);
  if (!obj) shim_api->registry_destroy(r);
  return obj;
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
  if (o->owns) shim_api->registry_destroy(o->registry);
  Py_CLEAR(o->owner);
  Py_CLEAR(o->callbacks);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_GC_Del(self);
  Py_DECREF(t);
}

static cuplug_abi abi_of(const char *abi) {
  if (!abi) return CUPLUG_ABI_DEFAULT;
  if (!strcmp(abi, "numba")) return CUPLUG_ABI_NUMBA;
  if (!strcmp(abi, "c")) return CUPLUG_ABI_C;
  return (cuplug_abi)99; /* the plugin names the error */
}

static PyObject *declare_device(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"name", "signature", "abi", "link", "cooperative", NULL};
  const char *name, *abi = "numba";
  PyObject *sig, *link = NULL;
  int cooperative = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|zOp:declare_device", names, &name, &sig, &abi,
                                   &link, &cooperative))
    return NULL;
  const cuplug_type *t = shim_type_from(sig, "signature");
  if (!t) return NULL;
  item_list l;
  if (code_list_of(link, &l) < 0) return NULL;
  cuplug_declare_device_args a = {.struct_size = sizeof a,
                                  .registry = ((shim_registry *)self)->registry,
                                  .name = name,
                                  .signature_type = t,
                                  .abi = abi_of(abi),
                                  .link = (const cuplug_code *const *)l.ptrs,
                                  .num_link = l.n,
                                  .use_cooperative = (uint32_t)cooperative};
  cuplug_error *e = shim_api->declare_device(&a);
  item_list_free(&l);
  if (e) return shim_raise(e);
  Py_RETURN_NONE;
}

/* A callback's Python exception, said in `message` (with its class name
 * when `with_type`, else `fallback` when it has no words) and kept for the
 * call that made the plugin call back (shim_keep_callback_error). */
static void callback_failed(char *message, size_t message_size, bool with_type,
                            const char *fallback) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *text = value ? PyObject_Str(value) : NULL;
  const char *s = text ? PyUnicode_AsUTF8AndSize(text, NULL) : NULL;
  PyObject *tname = with_type && type ? PyType_GetName((PyTypeObject *)type) : NULL;
  const char *n = tname ? PyUnicode_AsUTF8AndSize(tname, NULL) : NULL;
  if (with_type)
    snprintf(message, message_size, "%s: %s", n ? n : "exception", s ? s : "");
  else
    snprintf(message, message_size, "%s", s ? s : fallback);
  Py_XDECREF(tname);
  Py_XDECREF(text);
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
  shim_keep_callback_error();
}

/* A generic typing template in Python: f(key, argtypes) -> signature or None. */
static cuplug_callback_status python_typer(void *user, const char *key,
                                           const cuplug_type *const *argtypes, size_t nargs,
                                           const cuplug_type **signature, char *message,
                                           size_t message_size) {
  PyGILState_STATE g = PyGILState_Ensure();
  cuplug_callback_status st = CUPLUG_CALLBACK_FAILED;
  PyObject *types = PyTuple_New((Py_ssize_t)nargs);
  for (size_t i = 0; types && i < nargs; i++) {
    PyObject *t = shim_type(argtypes[i]);
    if (!t) Py_CLEAR(types);
    else PyTuple_SetItem(types, (Py_ssize_t)i, t);
  }
  PyObject *r = types ? PyObject_CallFunction((PyObject *)user, "sO", key, types) : NULL;
  Py_XDECREF(types);
  if (r == Py_None) {
    st = CUPLUG_CALLBACK_NO_MATCH;
  } else if (r) {
    const cuplug_type *t = shim_type_from(r, "the typer's answer");
    if (t) {
      *signature = t;
      st = CUPLUG_CALLBACK_OK;
    }
  }
  if (st == CUPLUG_CALLBACK_FAILED && PyErr_Occurred())
    callback_failed(message, message_size, true, NULL);
  Py_XDECREF(r);
  PyGILState_Release(g);
  return st;
}

/* What a lowering callback answered last, kept until its next call on this
 * thread (the plugin copies it as soon as the callback returns). */
static _Thread_local PyObject *last_ir;

static cuplug_callback_status python_lowerer(void *user, const char *key,
                                             const cuplug_type *signature, const char *symbol,
                                             cuplug_abi abi, const char **ir, size_t *ir_size,
                                             char *message, size_t message_size) {
  PyGILState_STATE g = PyGILState_Ensure();
  cuplug_callback_status st = CUPLUG_CALLBACK_FAILED;
  PyObject *sig = shim_type(signature);
  PyObject *r = sig ? PyObject_CallFunction((PyObject *)user, "sOss", key, sig, symbol,
                                            abi == CUPLUG_ABI_C ? "c" : "numba")
                    : NULL;
  Py_XDECREF(sig);
  view v;
  if (r && view_of(r, "the lowering's answer", &v) == 0) {
    release_view(&v);
    PyObject *old = last_ir;
    last_ir = Py_NewRef(r);
    Py_XDECREF(old);
    *ir = v.data;
    *ir_size = (size_t)v.size;
    st = CUPLUG_CALLBACK_OK;
  }
  if (st != CUPLUG_CALLBACK_OK) callback_failed(message, message_size, false, "the lowering failed");
  Py_XDECREF(r);
  PyGILState_Release(g);
  return st;
}

static PyObject *register_template(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"key", "signature", "typer", "description", NULL};
  const char *key, *description = NULL;
  PyObject *sig = Py_None, *typer = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OOz:register_template", names, &key, &sig,
                                   &typer, &description))
    return NULL;
  shim_registry *r = (shim_registry *)self;
  cuplug_template_args a = {.struct_size = sizeof a, .registry = r->registry, .key = key,
                            .description = description};
  if (sig != Py_None && !(a.signature_type = shim_type_from(sig, "signature"))) return NULL;
  if (typer != Py_None) {
    if (!PyCallable_Check(typer)) return shim_type_error("typer", "callable", typer);
    if (PyList_Append(r->callbacks, typer) < 0) return NULL;
    a.typer = python_typer;
    a.user_data = typer;
  }
  cuplug_error *e = shim_api->register_template(&a);
  if (e) return shim_raise(e);
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
  shim_registry *r = (shim_registry *)self;
  cuplug_lowering_args a = {.struct_size = sizeof a, .registry = r->registry, .key = key,
                            .kind = (cuplug_lowering_kind)kind, .symbol = symbol,
                            .abi = abi_of(abi)};
  if (sig != Py_None && !(a.signature_type = shim_type_from(sig, "signature"))) return NULL;
  view v = {0};
  if (source != Py_None) {
    if (view_of(source, "source", &v) < 0) return NULL;
    a.source = v.data;
    a.source_size = (size_t)v.size;
  }
  if (lowerer != Py_None) {
    if (!PyCallable_Check(lowerer)) {
      release_view(&v);
      return shim_type_error("lowerer", "callable", lowerer);
    }
    if (PyList_Append(r->callbacks, lowerer) < 0) {
      release_view(&v);
      return NULL;
    }
    a.lowerer = python_lowerer;
    a.user_data = lowerer;
  }
  cuplug_error *e = shim_api->register_lowering(&a);
  release_view(&v);
  if (e) return shim_raise(e);
  Py_RETURN_NONE;
}

static PyObject *resolve(PyObject *self, PyObject *args) {
  const char *key;
  PyObject *argtypes;
  int strict = 0;
  if (!PyArg_ParseTuple(args, "sO|p:resolve", &key, &argtypes, &strict)) return NULL;
  PyObject *fast = PySequence_Fast(argtypes, "argtypes must be a sequence of types");
  if (!fast) return NULL;
  Py_ssize_t n = PySequence_Size(fast);
  const cuplug_type **types = PyMem_Calloc((size_t)n + 1, sizeof *types);
  for (Py_ssize_t i = 0; types && i < n; i++) {
    PyObject *item = PySequence_GetItem(fast, i);
    types[i] = item ? shim_type_from(item, "an argument type") : NULL;
    Py_XDECREF(item);
    if (!types[i]) {
      PyMem_Free(types);
      Py_DECREF(fast);
      return NULL;
    }
  }
  Py_DECREF(fast);
  if (!types) return PyErr_NoMemory();
  cuplug_conversion *conv = PyMem_Calloc((size_t)n + 1, sizeof *conv);
  if (!conv) {
    PyMem_Free(types);
    return PyErr_NoMemory();
  }
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = ((shim_registry *)self)->registry,
                           .key = key, .argtypes = types, .nargs = (size_t)n,
                           .flags = strict ? CUPLUG_RESOLVE_STRICT : 0, .arg_conversions = conv};
  cuplug_error *e = shim_api->resolve_call(&a);
  PyMem_Free(types);
  if (e) {
    PyMem_Free(conv);
    return shim_raise(e);
  }
  static const char *const names[] = {"exact", "promote", "safe", "unsafe"};
  PyObject *convs = PyTuple_New(n);
  for (Py_ssize_t i = 0; convs && i < n; i++) {
    PyObject *s = PyUnicode_FromString(conv[i] <= CUPLUG_CONV_UNSAFE ? names[conv[i]] : "?");
    if (!s) Py_CLEAR(convs);
    else PyTuple_SetItem(convs, i, s);
  }
  PyMem_Free(conv);
  if (!convs) return NULL;
  return Py_BuildValue("(NsssN)", shim_type(a.signature), a.symbol,
                       a.abi == CUPLUG_ABI_C ? "c" : "numba", a.declaration, convs);
}

static int list_one(void *user, const cuplug_listing *l) {
  PyObject *sig = shim_type(l->signature);
  PyObject *t = sig ? Py_BuildValue("(sNssO)", l->key, sig, l->description, l->symbol,
                                    l->builtin ? Py_True : Py_False)
                    : NULL;
  int stop = !t || PyList_Append((PyObject *)user, t) < 0;
  Py_XDECREF(t);
  return stop;
}

static PyObject *list_(PyObject *self, PyObject *args) {
  const char *prefix = NULL;
  if (!PyArg_ParseTuple(args, "|z:list", &prefix)) return NULL;
  PyObject *out = PyList_New(0);
  if (!out) return NULL;
  cuplug_error *e =
      shim_api->registry_list(((shim_registry *)self)->registry, prefix, list_one, out);
  if (e) {
    Py_DECREF(out);
    return shim_raise(e);
  }
  if (PyErr_Occurred()) Py_CLEAR(out);
  return out;
}

static PyObject *const_array(PyObject *self, PyObject *args) {
  PyObject *dtype, *shape, *data;
  if (!PyArg_ParseTuple(args, "OOO:const_array", &dtype, &shape, &data)) return NULL;
  const cuplug_type *t = shim_type_from(dtype, "dtype");
  if (!t) return NULL;
  int64_t dims[8];
  Py_ssize_t ndim = PyTuple_Check(shape) ? PyTuple_Size(shape) : -1;
  if (ndim < 1 || ndim > 8) return PyErr_Format(PyExc_TypeError, "shape must be a tuple of 1 to 8 ints");
  for (Py_ssize_t i = 0; i < ndim; i++) {
    dims[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
    if (dims[i] == -1 && PyErr_Occurred()) return NULL;
  }
  view v;
  if (view_of(data, "data", &v) < 0) return NULL;
  cuplug_const_array_args a = {.struct_size = sizeof a,
                               .registry = ((shim_registry *)self)->registry,
                               .dtype = t, .ndim = (uint32_t)ndim, .shape = dims,
                               .data = v.data, .size = (size_t)v.size};
  cuplug_error *e = shim_api->const_array(&a);
  release_view(&v);
  if (e) return shim_raise(e);
  return Py_BuildValue("(Nsss)", shim_type(a.signature), a.symbol, "c", a.declaration);
}

static PyMethodDef registry_methods[] = {
    {"declare_device", (PyCFunction)(void (*)(void))declare_device, METH_VARARGS | METH_KEYWORDS,
     "declare_device(name, signature, abi='numba', link=(), cooperative=False)"},
    {"register_template", (PyCFunction)(void (*)(void))register_template,
     METH_VARARGS | METH_KEYWORDS,
     "register_template(key, signature=None, typer=None, description=None)"},
    {"register_lowering", (PyCFunction)(void (*)(void))register_lowering,
     METH_VARARGS | METH_KEYWORDS,
     "register_lowering(key, kind, signature=None, symbol=None, source=None, lowerer=None, "
     "abi=None)"},
    {"resolve", resolve, METH_VARARGS,
     "resolve(key, argtypes, strict=False) -> (signature, symbol, abi, declaration, "
     "conversions)"},
    {"list", list_, METH_VARARGS,
     "list(prefix=None) -> [(key, signature, description, symbol, builtin)]"},
    {"const_array", const_array, METH_VARARGS,
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

/* ---- sessions ---- */

static PyObject *session_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  (void)type;
  static char *names[] = {"cuda_home", "default_cc",      "registry",
                          "trusted",   "time_limit_ms",   "cache",
                          "cache_dir", "cache_max_bytes", "cache_memory_bytes",
                          NULL};
  const char *home = NULL, *cache_dir = NULL;
  PyObject *cc = Py_None, *registry = Py_None;
  int trusted = 0, cache = 1;
  unsigned int limit = 0;
  unsigned long long max_bytes = 0, memory_bytes = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zOOpI$pzKK:Session", names, &home, &cc,
                                   &registry, &trusted, &limit, &cache, &cache_dir, &max_bytes,
                                   &memory_bytes))
    return NULL;
  if (!shim_api) return PyErr_Format(PyExc_RuntimeError, "the plugin is not loaded");
  if (registry != Py_None && Py_TYPE(registry) != shim_registry_type)
    return shim_type_error("registry", "a cuplug.Registry", registry);
  cuplug_session_options o = {
      .struct_size = sizeof o,
      .cuda_home = home,
      .flags = (trusted ? CUPLUG_SESSION_TRUSTED : 0) | (cache ? 0 : CUPLUG_SESSION_NO_CACHE),
      .time_limit_ms = limit,
      .cache_dir = cache_dir,
      .cache_max_bytes = max_bytes,
      .cache_memory_bytes = memory_bytes};
  if (cc_of(cc, &o.default_cc_major, &o.default_cc_minor, NULL) < 0) return NULL;
  if (registry != Py_None) o.registry = ((shim_registry *)registry)->registry;
  shim_session *s = PyObject_GC_New(shim_session, shim_session_type);
  if (!s) return NULL;
  s->session = NULL;
  s->registry = NULL;
  cuplug_error *e = shim_api->session_create(&o, &s->session);
  if (e) {
    Py_DECREF(s);
    return shim_raise(e);
  }
  s->registry = registry != Py_None
                    ? Py_NewRef(registry)
                    : registry_wrap(shim_api->session_registry(s->session), (PyObject *)s);
  if (!s->registry) {
    Py_DECREF(s);
    return NULL;
  }
  PyObject_GC_Track(s);
  return (PyObject *)s;
}

static int session_traverse(PyObject *self, visitproc visit, void *arg) {
  Py_VISIT(((shim_session *)self)->registry);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

static int session_clear(PyObject *self) {
  shim_session *s = (shim_session *)self;
  /* a registry of its own points back at this session */
  shim_registry *r = (shim_registry *)s->registry;
  if (r && r->owner == self) Py_CLEAR(r->owner);
  Py_CLEAR(s->registry);
  return 0;
}

static void session_dealloc(PyObject *self) {
  shim_session *s = (shim_session *)self;
  PyObject_GC_UnTrack(self);
  session_clear(self);
  if (s->session) {
    Py_BEGIN_ALLOW_THREADS shim_api->session_destroy(s->session);
    Py_END_ALLOW_THREADS
  }
  PyTypeObject *t = Py_TYPE(self);
  PyObject_GC_Del(self);
  Py_DECREF(t);
}

/* A module of a compile: (name, text) or text. */
static int module_item(PyObject *item, size_t i, void *out, view *v) {
  (void)i;
  cuplug_module *m = out;
  *m = (cuplug_module){.struct_size = sizeof *m};
  PyObject *text = item;
  if (PyTuple_Check(item) && PyTuple_Size(item) == 2) {
    PyObject *name = PyTuple_GetItem(item, 0);
    if (name != Py_None && !(m->name = PyUnicode_AsUTF8AndSize(name, NULL))) return -1;
    text = PyTuple_GetItem(item, 1);
  }
  if (view_of(text, "an IR module", v) < 0) return -1;
  m->text = v->data;
  m->size = (size_t)v->size;
  return 0;
}

static PyObject *session_compile(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"modules",      "entry",        "signature",     "entry_abi",
                          "kind",         "abi",          "abi_name",      "output",
                          "cc",           "current_device", "opt",         "debug",
                          "lineinfo",     "fastmath",     "forceinline",   "launch_bounds",
                          "max_registers", "keep_ir",     "linked_ptx",    "link",
                          "include_paths", "no_lto",      "time_limit_ms", "all",
                          "cache",         NULL};
  PyObject *modules, *sig, *cc = Py_None, *bounds = Py_None, *link = Py_None,
                           *includes = Py_None;
  const char *entry, *entry_abi = NULL, *abi = NULL, *abi_name = NULL;
  int kind = 0, output = 0, current = 0, opt = 0, debug = 0, lineinfo = 0, fastmath = 0,
      forceinline = 0, keep_ir = 0, linked_ptx = 0, no_lto = 0, all = 0, cache = 1;
  unsigned int max_registers = 0, limit = 0;
  if (!PyArg_ParseTupleAndKeywords(
          args, kw, "OsO|$zizziOpippppOIppOOpIpp:compile", names, &modules, &entry, &sig,
          &entry_abi, &kind, &abi, &abi_name, &output, &cc, &current, &opt, &debug, &lineinfo,
          &fastmath, &forceinline, &bounds, &max_registers, &keep_ir, &linked_ptx, &link,
          &includes, &no_lto, &limit, &all, &cache))
    return NULL;
  const cuplug_type *t = shim_type_from(sig, "signature");
  if (!t) return NULL;
  cuplug_compile_args a = {.struct_size = sizeof a,
                           .session = ((shim_session *)self)->session,
                           .entry = entry,
                           .signature_type = t,
                           .entry_abi = abi_of(entry_abi),
                           .kind = (cuplug_function_kind)kind,
                           .abi = abi_of(abi),
                           .abi_name = abi_name,
                           .output = (cuplug_output)output,
                           .opt = opt,
                           .debug = (uint32_t)debug,
                           .lineinfo = (uint32_t)lineinfo,
                           .fastmath = (uint32_t)fastmath,
                           .forceinline = (uint32_t)forceinline,
                           .max_registers = max_registers,
                           .no_lto = (uint32_t)no_lto,
                           .time_limit_ms = limit};
  a.flags = (current ? CUPLUG_COMPILE_CURRENT_DEVICE : 0) |
            (keep_ir ? CUPLUG_COMPILE_KEEP_IR : 0) | (linked_ptx ? CUPLUG_COMPILE_LINKED_PTX : 0) |
            (cache ? 0 : CUPLUG_COMPILE_NO_CACHE);
  uint32_t lb[4];
  if (bounds != Py_None) {
    PyObject *fast = PySequence_Fast(bounds, "launch_bounds must be a sequence of ints");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Size(fast);
    for (Py_ssize_t i = 0; i < n && i < 4; i++) {
      PyObject *b = PySequence_GetItem(fast, i);
      int rc = b ? shim_u32(b, "a launch bound", &lb[i]) : -1;
      Py_XDECREF(b);
      if (rc < 0) {
        Py_DECREF(fast);
        return NULL;
      }
    }
    Py_DECREF(fast);
    a.launch_bounds = lb;
    a.num_launch_bounds = (size_t)n; /* more than 3: the plugin says so, with them */
    if (n > 4) a.num_launch_bounds = 4;
  }
  if (cc_of(cc, &a.cc_major, &a.cc_minor, &a.cc_suffix) < 0) return NULL;
  item_list ml, cl;
  const char **inc;
  if (item_list_of(modules, "modules must be a sequence", sizeof(cuplug_module), module_item,
                   &ml) < 0)
    return NULL;
  if (code_list_of(link, &cl) < 0) {
    item_list_free(&ml);
    return NULL;
  }
  if (strings_of(includes, &inc, &a.num_include_paths, "include_paths must be a sequence of str") <
      0) {
    item_list_free(&ml);
    item_list_free(&cl);
    return NULL;
  }
  a.modules = (const cuplug_module *const *)ml.ptrs;
  a.num_modules = ml.n;
  a.link = (const cuplug_code *const *)cl.ptrs;
  a.num_link = cl.n;
  a.include_paths = inc;
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = all ? shim_api->compile_all(&a) : shim_api->compile(&a);
  Py_END_ALLOW_THREADS
  item_list_free(&ml);
  item_list_free(&cl);
  PyMem_Free(inc);
  return e ? shim_raise(e) : artifact_new(a.artifact);
}

static PyObject *session_link(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"code",     "artifacts", "cc",          "no_lto",
                          "max_registers", "lineinfo", "debug",   "want_ptx",
                          "cooperative", "include_paths", "time_limit_ms", "cache", NULL};
  PyObject *code = Py_None, *arts = Py_None, *cc = Py_None, *includes = Py_None;
  int no_lto = 0, lineinfo = 0, debug = 0, want_ptx = 0, cooperative = 0, cache = 1;
  unsigned int regs = 0, limit = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOpIppppOIp:link", names, &code, &arts, &cc,
                                   &no_lto, &regs, &lineinfo, &debug, &want_ptx, &cooperative,
                                   &includes, &limit, &cache))
    return NULL;
  cuplug_link_args a = {.struct_size = sizeof a, .session = ((shim_session *)self)->session,
                        .no_lto = (uint32_t)no_lto, .max_registers = regs,
                        .lineinfo = (uint32_t)lineinfo, .debug = (uint32_t)debug,
                        .want_ptx = (uint32_t)want_ptx, .use_cooperative = (uint32_t)cooperative,
                        .time_limit_ms = limit, .flags = cache ? 0 : CUPLUG_LINK_NO_CACHE};
  if (cc_of(cc, &a.cc_major, &a.cc_minor, &a.cc_suffix) < 0) return NULL;
  PyObject *fast = arts == Py_None ? PyTuple_New(0)
                                   : PySequence_Fast(arts, "artifacts must be a sequence of "
                                                           "cuplug.Artifact");
  if (!fast) return NULL;
  Py_ssize_t na = PySequence_Size(fast);
  const cuplug_artifact **av = PyMem_Calloc((size_t)na + 1, sizeof *av);
  for (Py_ssize_t i = 0; av && i < na; i++) {
    PyObject *o = PySequence_GetItem(fast, i);
    if (!o || Py_TYPE(o) != shim_artifact_type) {
      if (o) shim_type_error("an artifact to link", "a cuplug.Artifact", o);
      Py_XDECREF(o);
      PyMem_Free(av);
      Py_DECREF(fast);
      return NULL;
    }
    av[i] = ((shim_artifact *)o)->artifact;
    Py_DECREF(o);
  }
  item_list cl;
  const char **inc = NULL;
  if (!av || code_list_of(code, &cl) < 0) {
    PyMem_Free(av);
    Py_DECREF(fast);
    return av ? NULL : PyErr_NoMemory();
  }
  if (strings_of(includes, &inc, &a.num_include_paths, "include_paths must be a sequence") < 0) {
    item_list_free(&cl);
    PyMem_Free(av);
    Py_DECREF(fast);
    return NULL;
  }
  a.artifacts = av;
  a.num_artifacts = (size_t)na;
  a.code = (const cuplug_code *const *)cl.ptrs;
  a.num_code = cl.n;
  a.include_paths = inc;
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->link(&a);
  Py_END_ALLOW_THREADS
  item_list_free(&cl);
  PyMem_Free(av);
  PyMem_Free(inc);
  Py_DECREF(fast);
  return e ? shim_raise(e) : artifact_new(a.artifact);
}

static PyObject *session_registry(PyObject *self, void *unused) {
  (void)unused;
  return Py_NewRef(((shim_session *)self)->registry);
}

/* ---- device memory, for hosts without an array library ---- */

static PyObject *mem_alloc(PyObject *self, PyObject *arg) {
  size_t n = PyLong_AsSize_t(arg);
  if (n == (size_t)-1 && PyErr_Occurred()) return NULL;
  uint64_t p = 0;
  cuplug_error *e = shim_api->mem_alloc(((shim_session *)self)->session, n, &p);
  return e ? shim_raise(e) : PyLong_FromUnsignedLongLong(p);
}

static PyObject *mem_free(PyObject *self, PyObject *arg) {
  unsigned long long p = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) return NULL;
  cuplug_error *e = shim_api->mem_free(((shim_session *)self)->session, p);
  if (e) return shim_raise(e);
  Py_RETURN_NONE;
}

static PyObject *to_device(PyObject *self, PyObject *args) {
  unsigned long long p;
  PyObject *data;
  if (!PyArg_ParseTuple(args, "KO:to_device", &p, &data)) return NULL;
  view v;
  if (view_of(data, "data", &v) < 0) return NULL;
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->memcpy_to_device(((shim_session *)self)->session, p,
                                                       v.data, (size_t)v.size);
  Py_END_ALLOW_THREADS
  release_view(&v);
  if (e) return shim_raise(e);
  Py_RETURN_NONE;
}

static PyObject *to_host(PyObject *self, PyObject *args) {
  unsigned long long p;
  Py_ssize_t n;
  if (!PyArg_ParseTuple(args, "Kn:to_host", &p, &n)) return NULL;
  PyObject *out = PyBytes_FromStringAndSize(NULL, n);
  if (!out) return NULL;
  char *buf = PyBytes_AsString(out);
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->memcpy_to_host(((shim_session *)self)->session, buf, p,
                                                     (size_t)n);
  Py_END_ALLOW_THREADS
  if (e) {
    Py_DECREF(out);
    return shim_raise(e);
  }
  return out;
}

static PyObject *synchronize(PyObject *self, PyObject *unused) {
  (void)unused;
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->synchronize(((shim_session *)self)->session);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(e);
  Py_RETURN_NONE;
}

static PyObject *cache_info(PyObject *self, PyObject *unused) {
  (void)unused;
  cuplug_cache_info i = {.struct_size = sizeof i, .session = ((shim_session *)self)->session};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->cache_info(&i);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(e);
  return Py_BuildValue(
      "{s:s,s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "dir", i.dir, "status", i.status,
      "max_bytes", (unsigned long long)i.max_bytes, "disk_entries",
      (unsigned long long)i.disk_entries, "disk_bytes", (unsigned long long)i.disk_bytes,
      "memory_entries", (unsigned long long)i.memory_entries, "memory_bytes",
      (unsigned long long)i.memory_bytes, "memory_hits", (unsigned long long)i.memory_hits,
      "disk_hits", (unsigned long long)i.disk_hits, "misses", (unsigned long long)i.misses,
      "stores", (unsigned long long)i.stores, "rebuilt", (unsigned long long)i.rebuilt);
}

static PyObject *cache_clear(PyObject *self, PyObject *unused) {
  (void)unused;
  cuplug_cache_clear_args a = {.struct_size = sizeof a,
                               .session = ((shim_session *)self)->session};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = shim_api->cache_clear(&a);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(e);
  Py_RETURN_NONE;
}

PyObject *shim_library_load(PyObject *session, PyObject *what); /* launch.c */

static PyObject *session_load(PyObject *self, PyObject *what) {
  return shim_library_load(self, what);
}

static PyMethodDef session_methods[] = {
    {"compile", (PyCFunction)(void (*)(void))session_compile, METH_VARARGS | METH_KEYWORDS,
     "compile(modules, entry, signature, **options) -> Artifact (the plugin's compile)."},
    {"link", (PyCFunction)(void (*)(void))session_link, METH_VARARGS | METH_KEYWORDS,
     "link(code=(), artifacts=(), **options) -> Artifact: a cubin."},
    {"load", session_load, METH_O, "load(artifact_or_cubin) -> Library."},
    {"mem_alloc", mem_alloc, METH_O, "mem_alloc(nbytes) -> int: a device address."},
    {"mem_free", mem_free, METH_O, "mem_free(address)"},
    {"to_device", to_device, METH_VARARGS, "to_device(address, data)"},
    {"to_host", to_host, METH_VARARGS, "to_host(address, nbytes) -> bytes"},
    {"synchronize", synchronize, METH_NOARGS, "synchronize(): wait for the device."},
    {"cache_info", cache_info, METH_NOARGS,
     "cache_info() -> dict: the result cache's folder, status, entries and bytes on disk\n"
     "and in memory, and this session's hits, misses, stores and rebuilt entries."},
    {"cache_clear", cache_clear, METH_NOARGS,
     "cache_clear(): empty the session's memory cache and its disk cache folder."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef session_getset[] = {
    {"registry", session_registry, NULL, "The registry its compiles consult.", NULL},
    {NULL}};

static PyType_Slot session_slots[] = {
    {Py_tp_doc, "Session(cuda_home=None, default_cc=None, registry=None, trusted=False,\n"
                "        time_limit_ms=0, *, cache=True, cache_dir=None, cache_max_bytes=0,\n"
                "        cache_memory_bytes=0): the CUDA toolkit found, a registry, and the\n"
                "        result cache (cache_dir None: $CUPLUG_CACHE_DIR, else\n"
                "        $XDG_CACHE_HOME/cuplug, else ~/.cache/cuplug; '': memory only)."},
    {Py_tp_new, session_new},
    {Py_tp_dealloc, session_dealloc},
    {Py_tp_traverse, session_traverse},
    {Py_tp_clear, session_clear},
    {Py_tp_methods, session_methods},
    {Py_tp_getset, session_getset},
    {0, NULL}};

static PyType_Spec session_spec = {"cuplug.Session", sizeof(shim_session), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, session_slots};

int shim_session_init_types(PyObject *m) {
  shim_artifact_type = (PyTypeObject *)PyType_FromSpec(&artifact_spec);
  shim_registry_type = (PyTypeObject *)PyType_FromSpec(&registry_spec);
  shim_session_type = (PyTypeObject *)PyType_FromSpec(&session_spec);
  if (!shim_artifact_type || !shim_registry_type || !shim_session_type) return -1;
  if (PyModule_AddObjectRef(m, "Artifact", (PyObject *)shim_artifact_type) < 0 ||
      PyModule_AddObjectRef(m, "Registry", (PyObject *)shim_registry_type) < 0 ||
      PyModule_AddObjectRef(m, "Session", (PyObject *)shim_session_type) < 0)
    return -1;
  return 0;
}
