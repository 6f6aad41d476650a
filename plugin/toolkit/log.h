/* log.h - the toolkit libraries' logs, read one way. */
#ifndef CUPLUG__PLUGIN_TOOLKIT_LOG_H
#define CUPLUG__PLUGIN_TOOLKIT_LOG_H

#include <stddef.h>

/* A log the toolkit wrote into a buffer of `size` bytes (malloc'd, size + 1
 * long): NUL-terminated at size and stripped of trailing newlines.  NULL
 * stays NULL (memory ran out). */
char *cuplug__log_finish(char *log, size_t size);

/* The line of the log that reports the first error ("error" in any case:
 * libNVVM writes "ERROR", NVRTC and nvJitLink "error"), else its first
 * line, without leading blanks, for a one-line message. */
void cuplug__log_first_error(const char *log, char *out, size_t cap);

#endif
