/* compile.h - libcuplug-nvptx.so's compile call (nvptx.h). */
#ifndef CUPLUG__PLUGIN_NVPTX_COMPILE_H
#define CUPLUG__PLUGIN_NVPTX_COMPILE_H

#include <stddef.h>

#include "plugin/nvptx/nvptx.h"

int cuplug__nvptx_compile_module(const cuplug__nvptx_args *a, char **ptx, size_t *ptx_size,
                                 char **log, char **msg);
/* The module read (text or bitcode) and written as text (nvptx.h's to_text). */
int cuplug__nvptx_to_text(const cuplug__nvptx_args *a, char **text, size_t *text_size,
                          char **log, char **msg);

#endif
