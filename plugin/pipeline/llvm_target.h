/* llvm_target.h - the NVPTX backend's stages (llvm_target.c). */
#ifndef CUPLUG__PLUGIN_PIPELINE_LLVM_TARGET_H
#define CUPLUG__PLUGIN_PIPELINE_LLVM_TARGET_H

#include "plugin/pipeline/job.h"

extern const cuplug__target cuplug__llvm_target;

#endif
