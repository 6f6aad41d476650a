/* nvvm.h - one libNVVM compilation. */
#ifndef CUPLUG__PLUGIN_COMPILERS_NVVM_H
#define CUPLUG__PLUGIN_COMPILERS_NVVM_H

#include <stdbool.h>

#include "base/buf.h"
#include "base/ir.h"
#include "cuplug/cuplug.h"
#include "plugin/helper/run.h"
#include "plugin/toolkit/toolkit.h"

typedef struct cuplug__nvvm_options {
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" (arch-specific) or "f" (family) */
  int opt; /* 0..3 */
  bool debug, lineinfo, fastmath, ltoir;
  bool libdevice; /* add libdevice (lazily): the IR calls __nv_* functions */
  uint32_t time_limit_ms; /* 0: the runner's (the session's) */
} cuplug__nvvm_options;

/* The IR version libNVVM reads. */
cuplug_error *cuplug__nvvm_ir_version(cuplug__toolkit *tk, cuplug__ir_version *v);

/* A compilation under way: it runs (in a helper process) while the caller
 * does other work, such as waiting for the IR's verification. */
typedef struct cuplug__nvvm_job {
  /* "-arch=compute_" two numbers and a letter; "-opt=" a number */
  char arch[14 + 2 * CUPLUG__DECIMAL_MAX + 2], opt[5 + CUPLUG__DECIMAL_MAX];
  const char *options[12];
  cuplug__tool_input *inputs;
  cuplug__tool_job job;
  cuplug__running run;
} cuplug__nvvm_job;

/* Reserves a helper for the job while the caller prepares its modules
 * (optional); unreserve gives it back when the job never starts. */
void cuplug__nvvm_reserve(cuplug__runner *r, cuplug__nvvm_job *j);
void cuplug__nvvm_unreserve(cuplug__runner *r, cuplug__nvvm_job *j);

/* Starts compiling the modules (plus libdevice when asked, lazily) to PTX
 * or LTO-IR; j is reserved, or zeroed.  The modules must live until the
 * job is finished or cancelled. */
cuplug_error *cuplug__nvvm_start(cuplug__runner *r, const cuplug__text *modules,
                                 size_t num_modules, const cuplug__nvvm_options *o,
                                 cuplug__nvvm_job *j);
/* On success *result (NUL-terminated) and *log are malloc'd; on failure
 * the error carries libNVVM's log. */
cuplug_error *cuplug__nvvm_finish(cuplug__runner *r, cuplug__nvvm_job *j, char **result,
                                  size_t *size, char **log);
void cuplug__nvvm_cancel(cuplug__runner *r, cuplug__nvvm_job *j);

#endif
