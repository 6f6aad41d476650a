/* edit.h - what libcuplug-nvptx.so does to a module before optimising it,
 * each what libNVVM does of itself and LLVM's passes leave to the caller.
 * Each returns 0 or the work's failure (work.h). */
#ifndef CUPLUG__PLUGIN_NVPTX_EDIT_H
#define CUPLUG__PLUGIN_NVPTX_EDIT_H

#include "plugin/nvptx/work.h"

/* Links libdevice's functions the module calls, and only those. */
int cuplug__nvptx_link_libdevice(cuplug__nvptx_work *w);
/* Answers __nvvm_reflect for what the target machine does not know. */
int cuplug__nvptx_reflect(cuplug__nvptx_work *w);
/* Floating point as libNVVM's options say (contraction, fastmath). */
int cuplug__nvptx_fp_flags(cuplug__nvptx_work *w);
/* Makes everything but the entries internal, for the optimiser to inline
 * and drop. */
int cuplug__nvptx_internalize(cuplug__nvptx_work *w);
/* Drops the debug information the options do not ask for. */
int cuplug__nvptx_debug_info(cuplug__nvptx_work *w);

#endif
