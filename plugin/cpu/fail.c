/* fail.c - the CPU library's errors: a status and a message, which
 * libcuplug.so makes into its error object (host.h says why). */
#include <stdio.h>
#include <stdlib.h>

#include "plugin/cpu/fail.h"

int cuplug__cpu_fail(char **msg, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vasprintf(msg, fmt, ap) < 0) *msg = NULL;
  va_end(ap);
  return code;
}
