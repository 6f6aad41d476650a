/* ffi.h - a C-ABI function called by its signature, through libffi (ffi.c). */
#ifndef CUPLUG__PLUGIN_CPU_FFI_H
#define CUPLUG__PLUGIN_CPU_FFI_H

#include "plugin/cpu/cpu.h"

int cuplug__cpu_ffi_call(const cuplug__cpu_ffi *c, char **msg);

#endif
