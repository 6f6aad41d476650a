/* link.h - cuplug's linking: gathering the code a cubin is made of, and
 * the public link() call.
 *
 * A compile with cubin output (and compile_all, which lists rather than
 * links) and link() gather their inputs the same way: each piece of code
 * is copied in, a .cu compiled by NVRTC first; cooperative code brings
 * libcudadevrt.  nvJitLink then makes the cubin. */
#ifndef CUPLUG__PLUGIN_PIPELINE_LINK_H
#define CUPLUG__PLUGIN_PIPELINE_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/code.h"
#include "cuplug/cuplug.h"
#include "plugin/session/session.h"
#include "plugin/toolkit/tool.h"

typedef struct cuplug__link_inputs {
  cuplug_session *session;
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" or "f" */
  bool ltoir; /* .cu code becomes LTO-IR (else PTX) */
  bool debug, lineinfo;
  const char *const *include_paths; /* for .cu code */
  size_t num_include_paths;
  uint32_t time_limit_ms; /* of each toolkit call; 0: the session's */
  cuplug__code *code; /* gathered so far */
  size_t num_code;
  char *nvrtc_log; /* what NVRTC said of the .cu code it compiled, or NULL */
  cuplug__tool_times linked; /* when nvJitLink made the cubin (link_run) */
} cuplug__link_inputs;

/* Adds a copy of c; a .cu is compiled by NVRTC (cached per session). */
cuplug_error *cuplug__link_add(cuplug__link_inputs *in, const cuplug__code *c);
/* Adds the caller's code (files or bytes, of any kind). */
cuplug_error *cuplug__link_add_caller(cuplug__link_inputs *in, const cuplug_code *const *code,
                                      size_t n);
/* Adds libcudadevrt, which grid-synchronising (cooperative) code needs. */
cuplug_error *cuplug__link_add_cudadevrt(cuplug__link_inputs *in);
/* Links the inputs with nvJitLink: the cubin (and, with want_ptx, the
 * linked PTX) replace the parts `art` held, and nvJitLink's log becomes
 * its link_log; what NVRTC said of .cu code becomes a CUPLUG_WARN_NVRTC_LOG
 * warning.  A cubin with no kernel in it is an error, not a result. */
cuplug_error *cuplug__link_run(cuplug__link_inputs *in, bool lto, uint32_t max_registers,
                               bool want_ptx, cuplug_artifact *art);
void cuplug__link_inputs_free(cuplug__link_inputs *in);

/* The public link(): artifacts and code into a cubin artifact that keeps
 * every kernel of the artifacts (name, signature, exception store) for
 * load and kernel_get. */
cuplug_error *cuplug__link_api(cuplug_link_args *a);

#endif
