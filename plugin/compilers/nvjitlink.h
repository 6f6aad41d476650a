/* nvjitlink.h - linking device code into a cubin with nvJitLink. */
#ifndef CUPLUG__PLUGIN_COMPILERS_NVJITLINK_H
#define CUPLUG__PLUGIN_COMPILERS_NVJITLINK_H

#include <stdbool.h>

#include "base/code.h"
#include "plugin/helper/run.h"

typedef struct cuplug__link_options {
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" or "f" */
  bool lto;
  bool debug;
  bool lineinfo;
  uint32_t max_registers; /* 0: no limit */
  uint32_t time_limit_ms; /* 0: the runner's (the session's) */
} cuplug__link_options;

/* Links the inputs (of any kind but CU) into *cubin; with ptx non-NULL,
 * also the linked PTX (a second link with -ptx, which needs LTO).  *log
 * receives nvJitLink's info log; a failure carries the error log, and its
 * message names the symbols left undefined, when that is why.  *times
 * (when non-NULL): when the link ran (tool.h), from the cubin's start to
 * the end of the PTX's when that is asked for too. */
cuplug_error *cuplug__nvjitlink_link(cuplug__runner *r, const cuplug__code *inputs,
                                    size_t n, const cuplug__link_options *o,
                                    cuplug__code *cubin, cuplug__code *ptx, char **log,
                                    cuplug__tool_times *times);

/* Whether the cubin defines a kernel (nvJitLink keeps only kernels and
 * what they call, so a link of device code alone makes an empty one). */
bool cuplug__cubin_has_kernel(const void *cubin, size_t size);

#endif
