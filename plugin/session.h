/* session.h - sessions and artifacts. */
#ifndef CUPLUG_SESSION_H
#define CUPLUG_SESSION_H

#include "cuplug/cuplug.h"
#include "toolkit.h"
#include "worker.h"

struct cuplug_session {
  cuplug__toolkit toolkit;
  cuplug__pool validators; /* threads that validate IR beside compiles */
  uint32_t default_cc_major, default_cc_minor; /* numba's CUDA_DEFAULT_PTX_CC */
};

typedef struct cuplug__ir_module {
  char *name;
  char *text;
  size_t size;
} cuplug__ir_module;

struct cuplug_artifact {
  cuplug_output output;
  char *data; /* NUL-terminated */
  size_t size;
  char *symbol;
  char *log;
  uint32_t cc_major, cc_minor;
  cuplug_function_kind kind;
  uint32_t debug, lineinfo, max_registers;
  cuplug_error **warnings;
  size_t num_warnings;
  cuplug__ir_module *ir;
  size_t num_ir;
};

cuplug_error *cuplug__session_create(const cuplug_session_options *o, cuplug_session **out);
void cuplug__session_destroy(cuplug_session *s);
void cuplug__artifact_destroy(cuplug_artifact *a);
/* Appends a warning to an artifact (takes ownership). */
cuplug_error *cuplug__artifact_warn(cuplug_artifact *a, cuplug_error *w);

#endif
