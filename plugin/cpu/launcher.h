/* launcher.h - the entry points the JIT gives a kernel.
 *
 * Each kernel gets a launcher, `void <prefix><kernel>(void **params)`,
 * which loads the parameters as cuLaunchKernel's array gives them and
 * calls the kernel: the grid calls it once per thread (grid.c) ... and,
 * where its code allows (rows.c), a launcher of a row of threads:
 * x = 0 .. ntid.x - 1 at the current y and z. */
#ifndef CUPLUG__PLUGIN_CPU_LAUNCHER_H
#define CUPLUG__PLUGIN_CPU_LAUNCHER_H


#define CUPLUG__CPU_LAUNCHER "__cuplug_launch."
#define CUPLUG__CPU_ROW "__cuplug_row."
typedef void (*cuplug__cpu_launcher)(void **params);

#endif
