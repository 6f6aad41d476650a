/* codegen.h - the target machine, the optimiser and the PTX writer of
 * libcuplug-nvptx.so.  Each returns 0 or the work's failure (work.h). */
#ifndef CUPLUG__PLUGIN_NVPTX_CODEGEN_H
#define CUPLUG__PLUGIN_NVPTX_CODEGEN_H

#include <stddef.h>

#include "plugin/nvptx/work.h"

#define CUPLUG__NVPTX_TRIPLE "nvptx64-nvidia-cuda"

/* Makes the work's target machine, and gives the module its triple and
 * data layout: emitting would replace the data layout anyway, and the
 * optimiser must work with the one the code will have. */
int cuplug__nvptx_target(cuplug__nvptx_work *w);
/* LLVM's default pipeline at the level asked, with the target machine:
 * its passes (NVVMReflect's __CUDA_ARCH among them) come only with it. */
int cuplug__nvptx_optimise(cuplug__nvptx_work *w);
/* The module as PTX (malloc'd, NUL-terminated). */
int cuplug__nvptx_emit(cuplug__nvptx_work *w, char **ptx, size_t *size);

/* Removes ", debug" from PTX's .target line (in place; *size shrinks). */
void cuplug__nvptx_drop_debug_target(char *ptx, size_t *size);

#endif
