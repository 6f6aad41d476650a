/* rows.h - a kernel's row launcher (rows.c). */
#ifndef CUPLUG__PLUGIN_CPU_ROWS_H
#define CUPLUG__PLUGIN_CPU_ROWS_H

#include <stdbool.h>

#include <llvm-c/Core.h>

/* Makes the row launcher of a kernel, after a first optimisation; false
 * when it cannot be exact (then delete it). */
bool cuplug__cpu_make_row(LLVMModuleRef m, const char *kernel);

#endif
