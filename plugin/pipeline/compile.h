/* compile.h - the compile pipeline. */
#ifndef CUPLUG__PLUGIN_PIPELINE_COMPILE_H
#define CUPLUG__PLUGIN_PIPELINE_COMPILE_H

#include "cuplug/cuplug.h"

/* Run the pipeline on a full-size (imported) argument struct. */
cuplug_error *cuplug__compile(cuplug_compile_args *args);
cuplug_error *cuplug__compile_all(cuplug_compile_args *args);

#endif
