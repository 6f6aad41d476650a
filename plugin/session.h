/* session.h - sessions and artifacts. */
#ifndef CUPLUG_SESSION_H
#define CUPLUG_SESSION_H

#include <pthread.h>
#include <stdbool.h>

#include "code.h"
#include "cuplug/cuplug.h"
#include "nvrtc.h"
#include "registry.h"
#include "toolkit.h"
#include "worker.h"

/* The GPU side of a session: the context it uses when a calling thread
 * has none, and the device's limits. */
typedef struct cuplug__gpu {
  pthread_mutex_t lock;
  bool ready;
  bool own_primary;  /* ctx is device dev's primary context, retained by cuplug */
  cuplug__cu_device dev;
  cuplug__cu_ctx ctx;
  int max_threads, max_block[3], max_grid[3], max_shared;
} cuplug__gpu;

struct cuplug_session {
  cuplug__toolkit toolkit;
  cuplug__pool validators;   /* threads that validate IR beside compiles */
  cuplug_registry *registry; /* a reference */
  cuplug__nvrtc_cache nvrtc; /* .cu code compiled so far */
  cuplug__gpu gpu;
  uint32_t default_cc_major, default_cc_minor; /* numba's CUDA_DEFAULT_PTX_CC */
};

typedef struct cuplug__ir_module {
  char *name;
  char *text;
  size_t size;
} cuplug__ir_module;

struct cuplug_artifact {
  cuplug_output output;     /* PTX, LTOIR or CUBIN */
  cuplug__code *parts;      /* parts[0] is the result */
  size_t num_parts;
  char *symbol;             /* the exported function or kernel, or NULL */
  char *log;                /* libNVVM's */
  char *link_log;           /* nvJitLink's */
  uint32_t cc_major, cc_minor;
  cuplug_function_kind kind;
  uint32_t debug, lineinfo, max_registers;
  const cuplug_type *signature; /* the entry's, or NULL */
  bool cooperative;
  cuplug_error **warnings;
  size_t num_warnings;
  cuplug__ir_module *ir;
  size_t num_ir;
};

cuplug_error *cuplug__session_create(const cuplug_session_options *o, cuplug_session **out);
void cuplug__session_destroy(cuplug_session *s);
/* The default cc rule (numba-cuda's): max(the session's default, the
 * lowest cc NVRTC supports), then the closest cc NVRTC has at or below it. */
cuplug_error *cuplug__session_cc(cuplug_session *s, uint32_t major, uint32_t minor,
                                 uint32_t *out_major, uint32_t *out_minor);

cuplug_artifact *cuplug__artifact_new(void);
void cuplug__artifact_destroy(cuplug_artifact *a);
/* Appends a warning to an artifact (takes ownership). */
cuplug_error *cuplug__artifact_warn(cuplug_artifact *a, cuplug_error *w);
/* Appends a part (takes the code's contents). */
cuplug_error *cuplug__artifact_add_part(cuplug_artifact *a, cuplug__code *code);

#endif
