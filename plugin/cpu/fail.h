/* fail.h - a failure as the CPU library reports one: a cuplug_status and
 * a message (cpu.h says why no cuplug_error). */
#ifndef CUPLUG__PLUGIN_CPU_FAIL_H
#define CUPLUG__PLUGIN_CPU_FAIL_H

#include <stdarg.h>

#include "cuplug/cuplug.h" /* the status codes */
/* Sets *msg (malloc'd) and returns code. */
int cuplug__cpu_fail(char **msg, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
