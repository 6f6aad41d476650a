/* artifact.c - cuplug.Artifact: what a compile or a link produced: its
 * code, its logs, and what loading it needs, read through artifact_info. */
#include "artifact.h"
#include "type.h"

PyObject *shim_artifact_new(shim_state *st, cuplug_artifact *a) {
  shim_artifact *o = PyObject_New(shim_artifact, st->artifact_type);
  if (!o) {
    st->api->artifact_destroy(a);
    return NULL;
  }
  o->api = st->api;
  o->artifact = a;
  if (shim_warn(st, a) < 0) Py_CLEAR(o);
  return (PyObject *)o;
}

static void artifact_dealloc(PyObject *self) {
  shim_artifact *o = (shim_artifact *)self;
  if (o->artifact) o->api->artifact_destroy(o->artifact);
  PyTypeObject *t = Py_TYPE(self);
  PyObject_Free(self);
  Py_DECREF(t);
}

/* Never fails: the module makes Artifacts only around an artifact. */
static cuplug_artifact_info info_of(PyObject *self) {
  const cuplug_api *api = ((shim_artifact *)self)->api;
  cuplug_artifact_info i = {.struct_size = sizeof i};
  api->error_destroy(api->artifact_info(((shim_artifact *)self)->artifact, &i));
  return i;
}

static PyObject *part_value(cuplug_code_kind kind, const void *data, size_t size) {
  if (kind == CUPLUG_CODE_PTX || kind == CUPLUG_CODE_CU)
    return PyUnicode_DecodeUTF8(data, (Py_ssize_t)size, "replace");
  return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

/* One getter per attribute, named after it (artifact_<name>): GETTER below
 * builds the table from the name alone, so an attribute cannot be served
 * by another's getter. */
#define GETTER(name) static PyObject *artifact_##name(PyObject *self, void *unused)

GETTER(output) {
  (void)unused;
  return PyLong_FromLong(info_of(self).output);
}

GETTER(data) {
  (void)unused;
  cuplug_artifact_info i = info_of(self);
  return part_value(i.output == CUPLUG_OUTPUT_PTX ? CUPLUG_CODE_PTX : CUPLUG_CODE_AUTO, i.data,
                    i.size);
}

GETTER(symbol) {
  (void)unused;
  return shim_text(info_of(self).symbol);
}

GETTER(log) {
  (void)unused;
  return shim_text(info_of(self).log);
}

GETTER(link_log) {
  (void)unused;
  return shim_text(info_of(self).link_log);
}

GETTER(cc) {
  (void)unused;
  cuplug_artifact_info i = info_of(self);
  return i.cc_suffix ? Py_BuildValue("(IIC)", i.cc_major, i.cc_minor, (int)i.cc_suffix)
                     : Py_BuildValue("(II)", i.cc_major, i.cc_minor);
}

GETTER(kind) {
  (void)unused;
  return PyLong_FromLong(info_of(self).kind);
}

GETTER(signature) {
  (void)unused;
  return shim_type(shim_state_of(self), info_of(self).signature);
}

GETTER(cooperative) {
  (void)unused;
  return PyBool_FromLong(info_of(self).use_cooperative);
}

/* [(kind, name, code)] */
GETTER(parts) {
  (void)unused;
  const shim_artifact *o = (shim_artifact *)self;
  size_t n = info_of(self).num_parts;
  PyObject *parts = PyList_New(0);
  for (size_t k = 0; parts && k < n; k++) {
    cuplug_part p = {.struct_size = sizeof p};
    o->api->error_destroy(o->api->artifact_part(o->artifact, k, &p));
    PyObject *data = part_value(p.kind, p.data, p.size);
    PyObject *t = data ? Py_BuildValue("(isN)", (int)p.kind, p.name, data) : NULL;
    if (!t || PyList_Append(parts, t) < 0) Py_CLEAR(parts);
    Py_XDECREF(t);
  }
  return parts;
}

/* [(name, text)] */
GETTER(ir) {
  (void)unused;
  const shim_artifact *o = (shim_artifact *)self;
  size_t n = info_of(self).num_ir_modules;
  PyObject *mods = PyList_New(0);
  for (size_t k = 0; mods && k < n; k++) {
    cuplug_ir_view v = {.struct_size = sizeof v};
    o->api->error_destroy(o->api->artifact_ir(o->artifact, k, &v));
    PyObject *t = Py_BuildValue("(ss#)", v.name, v.text, (Py_ssize_t)v.size);
    if (!t || PyList_Append(mods, t) < 0) Py_CLEAR(mods);
    Py_XDECREF(t);
  }
  return mods;
}

/* [(stage, seconds)]: the compile's stages as they ran */
GETTER(stages) {
  (void)unused;
  const shim_artifact *o = (shim_artifact *)self;
  size_t n = CUPLUG_API_HAS(o->api, artifact_stage) ? info_of(self).num_stages : 0;
  PyObject *stages = PyList_New(0);
  for (size_t k = 0; stages && k < n; k++) {
    cuplug_artifact_stage_args s = {.struct_size = sizeof s, .artifact = o->artifact, .index = k};
    o->api->error_destroy(o->api->artifact_stage(&s));
    PyObject *t = Py_BuildValue("(sd)", s.name ? s.name : "?", (double)s.nanoseconds * 1e-9);
    if (!t || PyList_Append(stages, t) < 0) Py_CLEAR(stages);
    Py_XDECREF(t);
  }
  return stages;
}

GETTER(cache) {
  (void)unused;
  static const char *const where[] = {"none", "miss", "memory", "disk", "remote"};
  cuplug_cache_result c = info_of(self).cache;
  return PyUnicode_FromString(c <= CUPLUG_CACHE_REMOTE ? where[c] : "none");
}

GETTER(debug) {
  (void)unused;
  return PyBool_FromLong(info_of(self).debug);
}

GETTER(backend) {
  (void)unused;
  switch (info_of(self).backend) {
    case CUPLUG_BACKEND_LIBNVVM: return PyUnicode_FromString("libnvvm");
    case CUPLUG_BACKEND_LLVM: return PyUnicode_FromString("llvm");
    default: Py_RETURN_NONE; /* host code, and links, come from neither */
  }
}

#undef GETTER
#define GETTER(name, doc) {#name, artifact_##name, NULL, doc, NULL}

static PyGetSetDef artifact_getset[] = {
    GETTER(output, "1 PTX, 2 LTO-IR, 3 cubin."),
    GETTER(data, "The result: PTX as str, LTO-IR or a cubin as bytes."),
    GETTER(symbol, "The exported function or kernel ('' when none)."),
    GETTER(log, "libNVVM's log."),
    GETTER(link_log, "nvJitLink's log."),
    GETTER(cc, "The compute capability: (major, minor), or (major, minor, 'a' or 'f')."),
    GETTER(kind, "0 device function, 1 kernel."),
    GETTER(signature, "The entry's signature, or None."),
    GETTER(cooperative, "Links cudadevrt; launch cooperatively."),
    GETTER(parts, "[(kind, name, code)]: each piece of code it holds."),
    GETTER(ir, "[(name, text)]: the NVVM IR handed to libNVVM (keep_ir)."),
    GETTER(cache,
           "Where it came from: 'miss' (built and stored), 'memory' or 'disk' (found in the\n"
           "cache), 'none' (built, no cache)."),
    GETTER(debug, "Compiled with the exception store."),
    GETTER(stages,
           "[(stage, seconds)]: the compile's or link's stages as they ran, up to the one\n"
           "that found the result in the cache ('look_up').  A call of libNVVM, nvJitLink\n"
           "or the NVPTX backend is three: 'hand_over', the library's own time (e.g.\n"
           "'run_nvvm'), 'hand_back'.  For people and benchmarks: the names may change\n"
           "between releases."),
    GETTER(backend,
           "What made the PTX or LTO-IR: 'libnvvm' or 'llvm' (LLVM's NVPTX backend); None\n"
           "for host code and links."),
    {NULL, NULL, NULL, NULL, NULL}};

#undef GETTER

static PyType_Slot artifact_slots[] = {
    {Py_tp_doc, "What a compile or a link produced: code, logs, and what loading needs."},
    {Py_tp_dealloc, artifact_dealloc},
    {Py_tp_getset, artifact_getset},
    {0, NULL}};

/* Made by the module only, around an artifact (shim_artifact_new). */
static PyType_Spec artifact_spec = {"cuplug.Artifact", sizeof(shim_artifact), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                    artifact_slots};

int shim_artifact_init(PyObject *m, shim_state *st) {
  st->artifact_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &artifact_spec, NULL);
  if (!st->artifact_type) return -1;
  return PyModule_AddType(m, st->artifact_type);
}
