/* cpu_target.h - the CPU target's stages (cpu_target.c). */
#ifndef CUPLUG__PLUGIN_PIPELINE_CPU_TARGET_H
#define CUPLUG__PLUGIN_PIPELINE_CPU_TARGET_H

#include "plugin/pipeline/job.h"

extern const cuplug__target cuplug__cpu_target;
/* the same, for modern IR and bitcode, read through LLVM */
extern const cuplug__target cuplug__cpu_modern_target;

#endif
