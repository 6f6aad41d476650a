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

static cuplug_artifact_info artifact_info(const cuplug_api *api, const shim_artifact *o) {
  cuplug_artifact_info i = {.struct_size = sizeof i};
  api->error_destroy(api->artifact_info(o->artifact, &i));
  return i;
}

static PyObject *part_value(cuplug_code_kind kind, const void *data, size_t size) {
  if (kind == CUPLUG_CODE_PTX || kind == CUPLUG_CODE_CU)
    return PyUnicode_DecodeUTF8(data, (Py_ssize_t)size, "replace");
  return PyBytes_FromStringAndSize(data, (Py_ssize_t)size);
}

/* [(kind, name, code)] */
static PyObject *parts_of(const cuplug_api *api, const shim_artifact *o, size_t n) {
  PyObject *parts = PyList_New(0);
  for (size_t k = 0; parts && k < n; k++) {
    cuplug_part p = {.struct_size = sizeof p};
    api->error_destroy(api->artifact_part(o->artifact, k, &p));
    PyObject *data = part_value(p.kind, p.data, p.size);
    PyObject *t = data ? Py_BuildValue("(isN)", (int)p.kind, p.name, data) : NULL;
    if (!t || PyList_Append(parts, t) < 0) Py_CLEAR(parts);
    Py_XDECREF(t);
  }
  return parts;
}

/* [(name, text)] */
static PyObject *ir_of(const cuplug_api *api, const shim_artifact *o, size_t n) {
  PyObject *mods = PyList_New(0);
  for (size_t k = 0; mods && k < n; k++) {
    cuplug_ir_view v = {.struct_size = sizeof v};
    api->error_destroy(api->artifact_ir(o->artifact, k, &v));
    PyObject *t = Py_BuildValue("(ss#)", v.name, v.text, (Py_ssize_t)v.size);
    if (!t || PyList_Append(mods, t) < 0) Py_CLEAR(mods);
    Py_XDECREF(t);
  }
  return mods;
}

static PyObject *artifact_get(PyObject *self, void *which) {
  shim_state *st = shim_state_of(self);
  shim_artifact *o = (shim_artifact *)self;
  cuplug_artifact_info i = artifact_info(st->api, o);
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
    case 7: return shim_type(st, i.signature);
    case 8: return PyBool_FromLong(i.use_cooperative);
    case 9: return parts_of(st->api, o, i.num_parts);
    case 10: return ir_of(st->api, o, i.num_ir_modules);
    case 11: {
      static const char *const where[] = {"none", "miss", "memory", "disk"};
      return PyUnicode_FromString(i.cache <= CUPLUG_CACHE_DISK ? where[i.cache] : "none");
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
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot artifact_slots[] = {
    {Py_tp_doc, "What a compile or a link produced: code, logs, and what loading needs."},
    {Py_tp_dealloc, artifact_dealloc},
    {Py_tp_getset, artifact_getset},
    {0, NULL}};

static PyType_Spec artifact_spec = {"cuplug.Artifact", sizeof(shim_artifact), 0,
                                    Py_TPFLAGS_DEFAULT, artifact_slots};

int shim_artifact_init(PyObject *m, shim_state *st) {
  st->artifact_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &artifact_spec, NULL);
  if (!st->artifact_type) return -1;
  return PyModule_AddType(m, st->artifact_type);
}
