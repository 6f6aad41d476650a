/* nvvm_target.h - the libNVVM target's stages (nvvm_target.c). */
#ifndef CUPLUG__PLUGIN_PIPELINE_NVVM_TARGET_H
#define CUPLUG__PLUGIN_PIPELINE_NVVM_TARGET_H

#include "plugin/pipeline/job.h"

extern const cuplug__target cuplug__nvvm_target;
/* modern IR, for cc 10.0 and up */
extern const cuplug__target cuplug__nvvm_modern_target;

#endif
