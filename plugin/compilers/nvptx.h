/* nvptx.h - one compilation by LLVM's NVPTX backend (libcuplug-nvptx.so,
 * plugin/nvptx/), run by the session's runner as libNVVM is: in a helper
 * process, or here in a trusted session. */
#ifndef CUPLUG__PLUGIN_COMPILERS_NVPTX_H
#define CUPLUG__PLUGIN_COMPILERS_NVPTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/helper/run.h"

typedef struct cuplug__nvptx_options {
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" (arch-specific) or "f" (family) */
  int opt;           /* 0..3 */
  bool debug, lineinfo, fastmath;
  bool libdevice; /* link libdevice where the module calls it */
  uint32_t time_limit_ms; /* 0: the runner's (the session's) */
  const char *const *keep; /* the symbols that stay external (the entries) */
  size_t num_keep;
  const char *name; /* the module's, in messages; NULL: "the module" */
} cuplug__nvptx_options;

/* A compilation under way (see nvvm.h's). */
typedef struct cuplug__nvptx_job {
  char cpu[32], opt[16];
  char *libnvvm;         /* "-libnvvm=PATH", malloc'd */
  char **keep;           /* "-keep=NAME" each, malloc'd */
  const char **options;  /* malloc'd */
  cuplug__tool_input input;
  cuplug__tool_job job;
  cuplug__running run;
} cuplug__nvptx_job;

void cuplug__nvptx_reserve(cuplug__runner *r, cuplug__nvptx_job *j);
void cuplug__nvptx_unreserve(cuplug__runner *r, cuplug__nvptx_job *j);

/* Starts compiling one module (LLVM text or bitcode) to PTX; j is reserved,
 * or zeroed.  The module must live until the job is finished or
 * cancelled.  With o->libdevice, CUPLUG_ERR_LIBDEVICE_NOT_FOUND here when
 * the toolkit has none. */
cuplug_error *cuplug__nvptx_start(cuplug__runner *r, const char *module, size_t size,
                                  const cuplug__nvptx_options *o, cuplug__nvptx_job *j);
/* On success *ptx (NUL-terminated) and *log are malloc'd; on failure the
 * error (CUPLUG_ERR_NVPTX and the others of plugin/nvptx/nvptx.h) carries
 * LLVM's diagnostics as its log. */
cuplug_error *cuplug__nvptx_finish(cuplug__runner *r, cuplug__nvptx_job *j, char **ptx,
                                   size_t *ptx_size, char **log);
void cuplug__nvptx_cancel(cuplug__runner *r, cuplug__nvptx_job *j);

/* A module (LLVM text or bitcode) read by the backend's LLVM and written
 * as text (malloc'd, NUL-terminated): the plugin reads bitcode there, in a
 * helper process, since LLVM's bitcode reader crashes on some malformed
 * input.  A crash is CUPLUG_ERR_IR_PARSE naming the module. */
cuplug_error *cuplug__nvptx_to_text(cuplug__runner *r, const char *name, const char *module,
                                    size_t size, char **text, size_t *text_size);

/* Starts and finishes. */
cuplug_error *cuplug__nvptx_compile(cuplug__runner *r, const char *module, size_t size,
                                    const cuplug__nvptx_options *o, char **ptx,
                                    size_t *ptx_size, char **log);

#endif
