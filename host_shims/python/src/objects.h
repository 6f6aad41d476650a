/* objects.h - the layout of each Python object the module makes, for the
 * files that make them and the files that take them as arguments.
 *
 * An object that owns a plugin handle keeps the table it came from: its
 * dealloc may run after the collector has cleared the module (at exit, or
 * with the module in one cycle of garbage), when shim_state_of no longer
 * answers; the table itself lives as long as the process. */
#ifndef CUPLUG_PY_OBJECTS_H
#define CUPLUG_PY_OBJECTS_H

#include "shim.h"

/* cuplug.Artifact (artifact.c) */
typedef struct shim_artifact {
  PyObject_HEAD
  const cuplug_api *api;
  cuplug_artifact *artifact;
} shim_artifact;

/* cuplug.Registry (registry.c) */
typedef struct shim_registry {
  PyObject_HEAD
  const cuplug_api *api;
  cuplug_registry *registry;
  bool owns;           /* Registry() made it: it holds the plugin's reference */
  PyObject *owner;     /* the session whose registry it is, kept alive, or NULL */
  PyObject *callbacks; /* a list: what the registry's callbacks call, kept alive */
} shim_registry;

/* cuplug.Session (session.c, memory.c) */
typedef struct shim_session {
  PyObject_HEAD
  const cuplug_api *api;
  cuplug_session *session;
  PyObject *registry; /* its shim_registry */
} shim_session;

/* cuplug.Library (library.c) */
typedef struct shim_library {
  PyObject_HEAD
  const cuplug_api *api;
  cuplug_library *library; /* NULL once unloaded */
  PyObject *session;       /* its shim_session, kept alive while the library is */
  bool host;               /* compiled for the CPU: arrays are host buffers */
  bool closed;             /* close() was called: no call may begin */
  size_t calls;            /* calls under way: the library is unloaded after the last */
} shim_library;

/* A call that uses l's library begins: false (no exception set) when l is
 * closed.  Until shim_library_leave the library stays loaded, whatever
 * close() is called meanwhile: a call releases the GIL, and converting its
 * arguments runs Python code, either of which lets close() run. */
static inline bool shim_library_enter(shim_library *l) {
  if (l->closed) return false;
  l->calls++;
  return true;
}

/* Unloads a closed library once no call uses it. */
static inline void shim_library_unload_idle(shim_library *l) {
  if (!l->closed || l->calls || !l->library) return;
  l->api->library_unload(l->library);
  l->library = NULL;
}

static inline void shim_library_leave(shim_library *l) {
  l->calls--;
  shim_library_unload_idle(l);
}

/* What packing one argument needs to know of its type. */
typedef struct shim_param {
  const cuplug_type *type;
  cuplug_type_kind kind;
  cuplug_type_kind dtype; /* arrays, pointers */
  uint32_t ndim, itemsize;
  cuplug_layout layout;
  const char *name;
} shim_param;

/* What a call's arguments are packed for: a kernel, or a host library's
 * function (Library.call). */
typedef struct shim_callee {
  const char *noun; /* in messages: "kernel" or "function" */
  const char *name;
  bool host; /* in a host library: arrays are host buffers */
  size_t nparams;
  shim_param *params;
} shim_callee;

/* cuplug.Kernel (kernel.c) */
typedef struct shim_kernel {
  PyObject_HEAD
  cuplug_kernel *kernel;
  PyObject *library; /* its shim_library, kept alive */
  const cuplug_type *signature;
  char *name;
  shim_callee callee; /* its parameters; its name is name */
  bool cooperative;   /* launched with cuLaunchCooperativeKernel (get_kernel's word) */
} shim_kernel;

/* kernel[grid, block, stream, shared_mem] (kernel.c) */
typedef struct shim_launcher {
  PyObject_HEAD
  PyObject *kernel; /* its shim_kernel */
  uint32_t grid[3], block[3], shared_mem;
  void *stream;
  PyObject *stream_owner; /* the object stream came from, or NULL: the handle is its */
} shim_launcher;

#endif
