/* launch.h - launch(): a kernel on its library's target. */
#ifndef CUPLUG__PLUGIN_LOAD_LAUNCH_H
#define CUPLUG__PLUGIN_LOAD_LAUNCH_H

#include "cuplug/cuplug.h"

cuplug_error *cuplug__launch(const cuplug_launch_args *a);

#endif
