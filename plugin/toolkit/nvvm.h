/* nvvm.h - one libNVVM compilation. */
#ifndef CUPLUG__PLUGIN_TOOLKIT_NVVM_H
#define CUPLUG__PLUGIN_TOOLKIT_NVVM_H

#include <stdbool.h>

#include "base/ir.h"
#include "cuplug/cuplug.h"
#include "plugin/toolkit/toolkit.h"

typedef struct cuplug__nvvm_options {
  uint32_t cc_major, cc_minor;
  int opt; /* 0..3 */
  bool debug, lineinfo, fastmath, ltoir;
  bool libdevice; /* add libdevice (lazily): the IR calls __nv_* functions */
} cuplug__nvvm_options;

/* The IR version libNVVM reads. */
cuplug_error *cuplug__nvvm_ir_version(cuplug__toolkit *tk, cuplug__ir_version *v);

/* Compiles the modules (plus libdevice when asked, lazily) to PTX or LTO-IR.  On
 * success *result (NUL-terminated) and *log are malloc'd; on failure the
 * error carries libNVVM's log. */
cuplug_error *cuplug__nvvm_compile(cuplug__toolkit *tk, const cuplug__text *modules,
                                   size_t num_modules, const cuplug__nvvm_options *o,
                                   char **result, size_t *size, char **log);

#endif
