/* grid.h - a kernel launched on a CPU grid (grid.c). */
#ifndef CUPLUG__PLUGIN_CPU_GRID_H
#define CUPLUG__PLUGIN_CPU_GRID_H

#include "plugin/cpu/jit.h"

int cuplug__cpu_launch(cuplug__cpu_lib *l, const cuplug__cpu_grid *g, char **msg);

#endif
