/* io.h - what the tool reads and writes: files, formatted text, and the
 * plugin's errors printed (io.c). */
#ifndef CUPLUG_CLI_IO_H
#define CUPLUG_CLI_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* A string formatted with printf's rules (free it); exits when memory runs out. */
char *cli_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A whole file, NUL-terminated (free it); NULL with errno set. */
char *cli_read_file(const char *path, size_t *size);
/* The bytes as the whole file at path; false with errno set. */
bool cli_write_file(const char *path, const void *data, size_t size);
/* The same for a command's result: 1 after saying it could not. */
int cli_write_output(const char *path, const void *data, size_t size);
/* The request's IR files read into modules (texts: free them); 1 after
 * saying which file could not be read. */
int cli_read_modules(const cli_request *r, cuplug_module *mods, const cuplug_module **ptrs,
                     char **texts);

/* Prints an error with its toolkit log, as the build commands do;
 * destroys it; returns 1. */
int cli_report(const cuplug_api *api, cuplug_error *e);
/* Prints an error without the log, as the runs do; destroys it; returns 1. */
int cli_fail(const cuplug_api *api, cuplug_error *e);

#endif
