/* session.c - cuplug.Session: compiling, linking and loading, with the GIL
 * released while the plugin works. */
#include <string.h>

#include "artifact.h"
#include "library.h"
#include "memory.h"
#include "objects.h"
#include "registry.h"
#include "session.h"
#include "type.h"
#include "views.h"

/* A cc as numba-cuda writes it: (major, minor), or (major, minor, suffix)
 * with suffix "" , "a" (arch-specific) or "f" (family).  suffix may be NULL
 * where there is none to take.  The numbers must fit the plugin's fields
 * (which cc the toolkit supports is the plugin's to say): a number cut to
 * 32 bits once built for another cc. */
static int cc_of(PyObject *cc, uint32_t *major, uint32_t *minor, uint32_t *suffix) {
  *major = *minor = 0;
  if (suffix) *suffix = 0;
  if (!cc || cc == Py_None) return 0;
  const char *form = suffix ? "cc must be a (major, minor[, 'a' or 'f']) tuple"
                            : "cc must be a (major, minor) tuple";
  Py_ssize_t n = PyTuple_Check(cc) ? PyTuple_Size(cc) : 0;
  if (n < 2 || n > (suffix ? 3 : 2)) {
    PyErr_SetString(PyExc_TypeError, form);
    return -1;
  }
  if (shim_u32(PyTuple_GetItem(cc, 0), "cc major", major) < 0 ||
      shim_u32(PyTuple_GetItem(cc, 1), "cc minor", minor) < 0)
    return -1;
  if (n < 3) return 0;
  PyObject *item = PyTuple_GetItem(cc, 2);
  const char *s = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, NULL) : NULL;
  if (!s) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, form);
    return -1;
  }
  if (s[0] && (s[1] || (s[0] != 'a' && s[0] != 'f'))) {
    PyErr_Format(PyExc_ValueError, "cc suffix '%s': give '', 'a' or 'f'", s);
    return -1;
  }
  *suffix = (uint32_t)(unsigned char)s[0];
  return 0;
}

/* ---- the object ---- */

/* Session()'s numbers, range-checked into o: a negative one once wrapped
 * to a large one. */
static int session_numbers(PyObject *limit, PyObject *max_bytes, PyObject *memory_bytes,
                           PyObject *remote_timeout, PyObject *remote_ttl,
                           cuplug_session_options *o) {
  if (limit && shim_u32(limit, "time_limit_ms", &o->time_limit_ms) < 0) return -1;
  if (max_bytes && shim_u64(max_bytes, "cache_max_bytes", &o->cache_max_bytes) < 0) return -1;
  if (memory_bytes && shim_u64(memory_bytes, "cache_memory_bytes", &o->cache_memory_bytes) < 0)
    return -1;
  if (remote_timeout &&
      shim_u32(remote_timeout, "cache_remote_timeout_ms", &o->cache_remote_timeout_ms) < 0)
    return -1;
  if (remote_ttl && shim_u32(remote_ttl, "cache_remote_ttl_s", &o->cache_remote_ttl_s) < 0)
    return -1;
  return 0;
}

static PyObject *session_make(PyTypeObject *type, PyObject *args, PyObject *kw) {
  static char *names[] = {"cuda_home",        "default_cc",
                          "registry",         "trusted",
                          "time_limit_ms",    "cache",
                          "cache_dir",        "cache_max_bytes",
                          "cache_memory_bytes", "cache_remote",
                          "cache_remote_key", "cache_remote_timeout_ms",
                          "cache_remote_ttl_s", NULL};
  const char *home = NULL, *cache_dir = NULL, *remote = NULL, *remote_key = NULL;
  PyObject *cc = Py_None, *registry = Py_None;
  PyObject *limit = NULL, *max_bytes = NULL, *memory_bytes = NULL;
  PyObject *remote_timeout = NULL, *remote_ttl = NULL;
  int trusted = 0, cache = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|zOOpO$pzOOzzOO:Session", names, &home, &cc,
                                   &registry, &trusted, &limit, &cache, &cache_dir, &max_bytes,
                                   &memory_bytes, &remote, &remote_key, &remote_timeout,
                                   &remote_ttl))
    return NULL;
  shim_state *st = PyType_GetModuleState(type);
  if (!st->api) return PyErr_Format(PyExc_RuntimeError, "the plugin is not loaded");
  if (registry != Py_None && Py_TYPE(registry) != st->registry_type)
    return shim_type_error("registry", "a cuplug.Registry", registry);
  cuplug_session_options o = {
      .struct_size = sizeof o,
      .cuda_home = home,
      .flags = (trusted ? CUPLUG_SESSION_TRUSTED : 0) | (cache ? 0 : CUPLUG_SESSION_NO_CACHE),
      .cache_dir = cache_dir,
      .cache_remote = remote,
      .cache_remote_key = remote_key};
  if (session_numbers(limit, max_bytes, memory_bytes, remote_timeout, remote_ttl, &o) < 0)
    return NULL;
  if (cc_of(cc, &o.default_cc_major, &o.default_cc_minor, NULL) < 0) return NULL;
  if (registry != Py_None) o.registry = ((shim_registry *)registry)->registry;
  shim_session *s = PyObject_GC_New(shim_session, st->session_type);
  if (!s) return NULL;
  s->api = st->api;
  s->session = NULL;
  s->registry = NULL;
  cuplug_error *e = st->api->session_create(&o, &s->session);
  if (e) {
    Py_DECREF(s);
    return shim_raise(st, e);
  }
  s->registry = registry != Py_None
                    ? Py_NewRef(registry)
                    : shim_registry_wrap(st, st->api->session_registry(s->session), (PyObject *)s);
  if (!s->registry) {
    Py_DECREF(s);
    return NULL;
  }
  PyObject_GC_Track(s);
  return (PyObject *)s;
}

static PyObject *session_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
  PyObject *r = session_make(type, args, kw);
  return r ? r : shim_own(PyType_GetModuleState(type), CUPLUG_ERR_INVALID_ARGUMENT,
                          CUPLUG_ERR_INVALID_ARGUMENT);
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
    Py_BEGIN_ALLOW_THREADS s->api->session_destroy(s->session);
    Py_END_ALLOW_THREADS
  }
  PyTypeObject *t = Py_TYPE(self);
  PyObject_GC_Del(self);
  Py_DECREF(t);
}

static PyObject *session_registry(PyObject *self, void *unused) {
  (void)unused;
  return Py_NewRef(((shim_session *)self)->registry);
}

/* ---- compile ---- */

/* Session.compile's arguments, one line each: C type, name, PyArg format
 * code and default.  The first three may be given by position, the
 * options by keyword only. */
#define COMPILE_POSITIONAL(X)        \
  X(PyObject *, modules, "O", NULL)  \
  X(PyObject *, entry, "O", NULL)    \
  X(PyObject *, signature, "O", NULL)
#define COMPILE_OPTIONS(X)                   \
  X(const char *, entry_abi, "z", NULL)      \
  X(int, kind, "i", 0)                       \
  X(const char *, abi, "z", NULL)            \
  X(const char *, abi_name, "z", NULL)       \
  X(int, output, "i", 0)                     \
  X(PyObject *, cc, "O", Py_None)            \
  X(int, current_device, "p", 0)             \
  X(int, opt, "i", 0)                        \
  X(int, debug, "p", 0)                      \
  X(int, lineinfo, "p", 0)                   \
  X(int, fastmath, "p", 0)                   \
  X(int, forceinline, "p", 0)                \
  X(PyObject *, launch_bounds, "O", Py_None) \
  X(PyObject *, max_registers, "O", NULL)    \
  X(int, keep_ir, "p", 0)                    \
  X(int, linked_ptx, "p", 0)                 \
  X(PyObject *, link, "O", Py_None)          \
  X(PyObject *, include_paths, "O", Py_None) \
  X(int, no_lto, "p", 0)                     \
  X(PyObject *, time_limit_ms, "O", NULL)    \
  X(int, all, "p", 0)                        \
  X(int, cache, "p", 1)                      \
  X(PyObject *, backend, "O", Py_None)

#define COMPILE_FIELD(type, name, code, default) type name;
#define COMPILE_NAME(type, name, code, default) #name,
#define COMPILE_CODE(type, name, code, default) code
#define COMPILE_DEFAULT(type, name, code, default) .name = default,
#define COMPILE_ADDRESS(type, name, code, default) , &o->name

typedef struct compile_options {
  COMPILE_POSITIONAL(COMPILE_FIELD)
  COMPILE_OPTIONS(COMPILE_FIELD)
} compile_options;

static int compile_options_of(PyObject *args, PyObject *kw, compile_options *o) {
  static char *names[] = {COMPILE_POSITIONAL(COMPILE_NAME) COMPILE_OPTIONS(COMPILE_NAME) NULL};
  static const char format[] =
      COMPILE_POSITIONAL(COMPILE_CODE) "|$" COMPILE_OPTIONS(COMPILE_CODE) ":compile";
  *o = (compile_options){COMPILE_OPTIONS(COMPILE_DEFAULT)};
  return PyArg_ParseTupleAndKeywords(args, kw, format, names COMPILE_POSITIONAL(COMPILE_ADDRESS)
                                         COMPILE_OPTIONS(COMPILE_ADDRESS))
             ? 0
             : -1;
}

/* A backend by its name; None: the default, by the IR's dialect. */
static int backend_of(shim_state *st, PyObject *obj, cuplug_backend *out) {
  *out = CUPLUG_BACKEND_DEFAULT;
  if (obj == Py_None) return 0;
  if (!PyUnicode_Check(obj))
    return shim_type_error("backend", "'libnvvm', 'llvm' or None", obj), -1;
  const char *name = PyUnicode_AsUTF8AndSize(obj, NULL);
  if (!name) return -1;
  if (!strcmp(name, "libnvvm"))
    *out = CUPLUG_BACKEND_LIBNVVM;
  else if (!strcmp(name, "llvm"))
    *out = CUPLUG_BACKEND_LLVM;
  else
    return shim_fail(st, CUPLUG_ERR_OPTION_BACKEND, "Unsupported backend: %s (libnvvm or llvm)",
                     name), -1;
  return 0;
}

/* The options as the plugin's compile args, but for the launch bounds, the
 * cc and the lists the call borrows.  A signature of None is the IR's (a
 * kernel that modern IR marks ptx_kernel). */
static int compile_args_of(shim_state *st, PyObject *self, const compile_options *o,
                           cuplug_compile_args *a) {
  if (!PyUnicode_Check(o->entry))
    return shim_type_error("entry", "a str (the entry's symbol in the IR)", o->entry), -1;
  Py_ssize_t n;
  const char *entry = PyUnicode_AsUTF8AndSize(o->entry, &n);
  if (!entry) return -1;
  if (strlen(entry) != (size_t)n) /* the plugin would read a shorter name */
    return PyErr_Format(PyExc_ValueError, "entry %R holds a NUL character", o->entry), -1;
  *a = (cuplug_compile_args){.struct_size = sizeof *a,
                             .session = ((shim_session *)self)->session,
                             .entry = entry,
                             .kind = (cuplug_function_kind)o->kind,
                             .abi_name = o->abi_name,
                             .output = (cuplug_output)o->output,
                             .opt = o->opt,
                             .debug = (uint32_t)o->debug,
                             .lineinfo = (uint32_t)o->lineinfo,
                             .fastmath = (uint32_t)o->fastmath,
                             .forceinline = (uint32_t)o->forceinline,
                             .no_lto = (uint32_t)o->no_lto};
  a->flags = (o->current_device ? CUPLUG_COMPILE_CURRENT_DEVICE : 0) |
             (o->keep_ir ? CUPLUG_COMPILE_KEEP_IR : 0) |
             (o->linked_ptx ? CUPLUG_COMPILE_LINKED_PTX : 0) |
             (o->cache ? 0 : CUPLUG_COMPILE_NO_CACHE);
  if ((o->signature != Py_None &&
       !(a->signature_type = shim_type_from(st, o->signature, "signature"))) ||
      backend_of(st, o->backend, &a->backend) < 0 ||
      shim_abi_of(st, o->entry_abi, "entry ABI", &a->entry_abi) < 0 ||
      shim_abi_of(st, o->abi, "ABI", &a->abi) < 0 ||
      (o->max_registers && shim_u32(o->max_registers, "max_registers", &a->max_registers) < 0) ||
      (o->time_limit_ms && shim_u32(o->time_limit_ms, "time_limit_ms", &a->time_limit_ms) < 0))
    return -1;
  return 0;
}

/* launch_bounds (None: none) into lb and a.  More than three are passed
 * on, up to four, for the plugin to refuse with them. */
static int launch_bounds_of(PyObject *bounds, uint32_t lb[4], cuplug_compile_args *a) {
  if (bounds == Py_None) return 0;
  PyObject *fast = PySequence_Fast(bounds, "launch_bounds must be a sequence of ints");
  if (!fast) return -1;
  Py_ssize_t n = PySequence_Size(fast);
  int rc = 0;
  for (Py_ssize_t i = 0; rc == 0 && i < n && i < 4; i++) {
    PyObject *b = PySequence_GetItem(fast, i);
    rc = b ? shim_u32(b, "a launch bound", &lb[i]) : -1;
    Py_XDECREF(b);
  }
  Py_DECREF(fast);
  if (rc < 0) return -1;
  a->launch_bounds = lb;
  a->num_launch_bounds = n > 4 ? 4 : (size_t)n;
  return 0;
}

/* A module of a compile: (name, text) or text. */
static int module_item(PyObject *item, size_t i, void *out, shim_view *v) {
  (void)i;
  cuplug_module *m = out;
  *m = (cuplug_module){.struct_size = sizeof *m};
  PyObject *text = item;
  if (PyTuple_Check(item) && PyTuple_Size(item) == 2) {
    PyObject *name = PyTuple_GetItem(item, 0);
    if (name != Py_None && !(m->name = PyUnicode_AsUTF8AndSize(name, NULL))) return -1;
    text = PyTuple_GetItem(item, 1);
  }
  if (shim_view_of(text, "an IR module", v) < 0) return -1;
  m->text = v->data;
  m->size = (size_t)v->size;
  return 0;
}

/* What a compile borrows from Python for the length of the call. */
typedef struct compile_lists {
  shim_list modules, link, include_paths;
} compile_lists;

static void compile_lists_free(compile_lists *l) {
  shim_list_free(&l->modules);
  shim_list_free(&l->link);
  shim_list_free(&l->include_paths);
}

static int compile_lists_of(const compile_options *o, cuplug_compile_args *a, compile_lists *l) {
  memset(l, 0, sizeof *l);
  /* IR text is one module, not a sequence of one-character ones */
  bool one = PyUnicode_Check(o->modules) || PyObject_CheckBuffer(o->modules);
  PyObject *modules = one ? PyTuple_Pack(1, o->modules) : Py_NewRef(o->modules);
  if (!modules) return -1;
  int rc = shim_list_of(modules, "modules must be IR text or bytes, or a sequence of them",
                        sizeof(cuplug_module), module_item, &l->modules);
  Py_DECREF(modules); /* the list keeps its own tuple */
  if (rc < 0 ||
      shim_code_list_of(o->link, &l->link) < 0 ||
      shim_strings_of(o->include_paths, "include_paths must be a sequence of str",
                      &l->include_paths) < 0) {
    compile_lists_free(l);
    return -1;
  }
  a->modules = (const cuplug_module *const *)l->modules.ptrs;
  a->num_modules = l->modules.n;
  a->link = (const cuplug_code *const *)l->link.ptrs;
  a->num_link = l->link.n;
  a->include_paths = l->include_paths.items;
  a->num_include_paths = l->include_paths.n;
  return 0;
}

static PyObject *session_compile(PyObject *self, PyObject *args, PyObject *kw) {
  compile_options o;
  if (compile_options_of(args, kw, &o) < 0) return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_compile_args a;
  uint32_t bounds[4];
  compile_lists lists;
  if (compile_args_of(st, self, &o, &a) < 0 || launch_bounds_of(o.launch_bounds, bounds, &a) < 0 ||
      cc_of(o.cc, &a.cc_major, &a.cc_minor, &a.cc_suffix) < 0 ||
      compile_lists_of(&o, &a, &lists) < 0)
    return NULL;
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = o.all ? st->api->compile_all(&a) : st->api->compile(&a);
  Py_END_ALLOW_THREADS
  compile_lists_free(&lists);
  return e ? shim_raise(st, e) : shim_artifact_new(st, a.artifact);
}

/* ---- link ---- */

/* arts (None: none), a sequence of Artifacts, as the plugin's handles, to
 * PyMem_Free; *keep, a tuple, holds the Artifacts until the link is over. */
static const cuplug_artifact **artifacts_of(shim_state *st, PyObject *arts, PyObject **keep,
                                            size_t *n) {
  PyObject *t = arts == Py_None
                    ? PyTuple_New(0)
                    : shim_tuple_of(arts, "artifacts must be a sequence of cuplug.Artifact");
  *keep = t;
  if (!t) return NULL;
  *n = (size_t)PyTuple_Size(t);
  const cuplug_artifact **av = PyMem_Calloc(*n + 1, sizeof *av);
  if (!av) return PyErr_NoMemory(), NULL;
  for (size_t i = 0; i < *n; i++) {
    PyObject *o = PyTuple_GetItem(t, (Py_ssize_t)i);
    if (Py_TYPE(o) != st->artifact_type) {
      shim_type_error("an artifact to link", "a cuplug.Artifact", o);
      PyMem_Free(av);
      return NULL;
    }
    av[i] = ((shim_artifact *)o)->artifact;
  }
  return av;
}

static PyObject *session_link(PyObject *self, PyObject *args, PyObject *kw) {
  static char *names[] = {"code",     "artifacts", "cc",          "no_lto",
                          "max_registers", "lineinfo", "debug",   "want_ptx",
                          "cooperative", "include_paths", "time_limit_ms", "cache", NULL};
  PyObject *code = Py_None, *arts = Py_None, *cc = Py_None, *includes = Py_None;
  PyObject *regs = NULL, *limit = NULL;
  int no_lto = 0, lineinfo = 0, debug = 0, want_ptx = 0, cooperative = 0, cache = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOpOppppOOp:link", names, &code, &arts, &cc,
                                   &no_lto, &regs, &lineinfo, &debug, &want_ptx, &cooperative,
                                   &includes, &limit, &cache))
    return NULL;
  shim_state *st = shim_state_of(self);
  cuplug_link_args a = {.struct_size = sizeof a, .session = ((shim_session *)self)->session,
                        .no_lto = (uint32_t)no_lto, .lineinfo = (uint32_t)lineinfo,
                        .debug = (uint32_t)debug, .want_ptx = (uint32_t)want_ptx,
                        .use_cooperative = (uint32_t)cooperative,
                        .flags = cache ? 0 : CUPLUG_LINK_NO_CACHE};
  if (cc_of(cc, &a.cc_major, &a.cc_minor, &a.cc_suffix) < 0 ||
      (regs && shim_u32(regs, "max_registers", &a.max_registers) < 0) ||
      (limit && shim_u32(limit, "time_limit_ms", &a.time_limit_ms) < 0))
    return NULL;
  PyObject *result = NULL, *keep;
  shim_list cl = {0}, inc = {0};
  const cuplug_artifact **av = artifacts_of(st, arts, &keep, &a.num_artifacts);
  if (!av || shim_code_list_of(code, &cl) < 0 ||
      shim_strings_of(includes, "include_paths must be a sequence", &inc) < 0)
    goto done;
  a.artifacts = av;
  a.code = (const cuplug_code *const *)cl.ptrs;
  a.num_code = cl.n;
  a.include_paths = inc.items;
  a.num_include_paths = inc.n;
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->link(&a);
  Py_END_ALLOW_THREADS
  result = e ? shim_raise(st, e) : shim_artifact_new(st, a.artifact);
done:
  shim_list_free(&cl);
  shim_list_free(&inc);
  PyMem_Free(av);
  Py_XDECREF(keep);
  return result;
}

/* ---- the result cache, loading ---- */

static PyObject *cache_info(PyObject *self, PyObject *unused) {
  (void)unused;
  shim_state *st = shim_state_of(self);
  cuplug_cache_info i = {.struct_size = sizeof i, .session = ((shim_session *)self)->session};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->cache_info(&i);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(st, e);
  /* the remote's words may hold what a server said: decoded leniently */
  return Py_BuildValue(
      "{s:s,s:s,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:N,s:N,s:K,s:K,s:K,s:K,s:K}", "dir",
      i.dir, "status", i.status, "max_bytes", (unsigned long long)i.max_bytes, "disk_entries",
      (unsigned long long)i.disk_entries, "disk_bytes", (unsigned long long)i.disk_bytes,
      "memory_entries", (unsigned long long)i.memory_entries, "memory_bytes",
      (unsigned long long)i.memory_bytes, "memory_hits", (unsigned long long)i.memory_hits,
      "disk_hits", (unsigned long long)i.disk_hits, "misses", (unsigned long long)i.misses,
      "stores", (unsigned long long)i.stores, "rebuilt", (unsigned long long)i.rebuilt,
      "remote", shim_text(i.remote), "remote_status", shim_text(i.remote_status), "remote_hits",
      (unsigned long long)i.remote_hits, "remote_misses", (unsigned long long)i.remote_misses,
      "remote_stores", (unsigned long long)i.remote_stores, "remote_refused",
      (unsigned long long)i.remote_refused, "remote_errors",
      (unsigned long long)i.remote_errors);
}

static PyObject *cache_clear(PyObject *self, PyObject *unused) {
  (void)unused;
  shim_state *st = shim_state_of(self);
  cuplug_cache_clear_args a = {.struct_size = sizeof a,
                               .session = ((shim_session *)self)->session};
  cuplug_error *e;
  Py_BEGIN_ALLOW_THREADS e = st->api->cache_clear(&a);
  Py_END_ALLOW_THREADS
  if (e) return shim_raise(st, e);
  Py_RETURN_NONE;
}

#define ARGUMENT CUPLUG_ERR_INVALID_ARGUMENT
SHIM_OWN_2(session_compile, ARGUMENT, ARGUMENT)
SHIM_OWN_2(session_link, ARGUMENT, ARGUMENT)
SHIM_OWN_1(shim_library_load, ARGUMENT, ARGUMENT)
SHIM_OWN_1(shim_mem_alloc, ARGUMENT, ARGUMENT)
SHIM_OWN_1(shim_mem_free, ARGUMENT, ARGUMENT)
SHIM_OWN_1(shim_to_device, ARGUMENT, ARGUMENT)
SHIM_OWN_1(shim_to_host, ARGUMENT, ARGUMENT)
#undef ARGUMENT

static PyMethodDef session_methods[] = {
    {"compile", (PyCFunction)(void (*)(void))session_compile_owned, METH_VARARGS | METH_KEYWORDS,
     "compile(modules, entry, signature, **options) -> Artifact (the plugin's compile);\n"
     "modules: IR text or bytes (bitcode), or a sequence of them or of (name, text);\n"
     "signature None: the IR's (a kernel modern IR marks ptx_kernel); backend:\n"
     "'libnvvm', 'llvm' (LLVM's NVPTX backend) or None (by the IR's dialect)."},
    {"link", (PyCFunction)(void (*)(void))session_link_owned, METH_VARARGS | METH_KEYWORDS,
     "link(code=(), artifacts=(), **options) -> Artifact: a cubin."},
    {"load", shim_library_load_owned, METH_O, "load(artifact_or_cubin) -> Library."},
    {"mem_alloc", shim_mem_alloc_owned, METH_O, "mem_alloc(nbytes) -> int: a device address."},
    {"mem_free", shim_mem_free_owned, METH_O, "mem_free(address)"},
    {"to_device", shim_to_device_owned, METH_VARARGS, "to_device(address, data)"},
    {"to_host", shim_to_host_owned, METH_VARARGS, "to_host(address, nbytes) -> bytes"},
    {"synchronize", shim_synchronize, METH_NOARGS, "synchronize(): wait for the device."},
    {"cache_info", cache_info, METH_NOARGS,
     "cache_info() -> dict: the result cache's folder, status, entries and bytes on disk\n"
     "and in memory, and this session's hits, misses, stores and rebuilt entries; the\n"
     "remote tier's URL and status, and the session's hits, misses, stores, refused\n"
     "entries and errors there."},
    {"cache_clear", cache_clear, METH_NOARGS,
     "cache_clear(): empty the session's memory cache and its disk cache folder."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef session_getset[] = {
    {"registry", session_registry, NULL, "The registry its compiles consult.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot session_slots[] = {
    {Py_tp_doc, "Session(cuda_home=None, default_cc=None, registry=None, trusted=False,\n"
                "        time_limit_ms=0, *, cache=True, cache_dir=None, cache_max_bytes=0,\n"
                "        cache_memory_bytes=0, cache_remote=None, cache_remote_key=None,\n"
                "        cache_remote_timeout_ms=0, cache_remote_ttl_s=0): the CUDA toolkit\n"
                "        found, a registry, and the result cache (cache_dir None:\n"
                "        $CUPLUG_CACHE_DIR, else $XDG_CACHE_HOME/cuplug, else ~/.cache/cuplug;\n"
                "        '': memory only; cache_remote: a Redis server the fleet shares,\n"
                "        redis://HOST:PORT/DB, None: $CUPLUG_CACHE_REMOTE, '': none)."},
    {Py_tp_new, session_new},
    {Py_tp_dealloc, session_dealloc},
    {Py_tp_traverse, session_traverse},
    {Py_tp_clear, session_clear},
    {Py_tp_methods, session_methods},
    {Py_tp_getset, session_getset},
    {0, NULL}};

static PyType_Spec session_spec = {"cuplug.Session", sizeof(shim_session), 0,
                                   Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, session_slots};

int shim_session_init(PyObject *m, shim_state *st) {
  st->session_type = (PyTypeObject *)PyType_FromModuleAndSpec(m, &session_spec, NULL);
  if (!st->session_type) return -1;
  return PyModule_AddType(m, st->session_type);
}
