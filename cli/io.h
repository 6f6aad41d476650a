/* io.h - what the tool reads and writes: files, formatted text, and the
 * plugin's errors printed (io.c). */
#ifndef CUPLUG_CLI_IO_H
#define CUPLUG_CLI_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* A string formatted with printf's rules (free it); exits when memory runs out. */
char *cli_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A whole file, NUL-terminated (free it); "-" is standard input.  NULL
 * with errno set: EISDIR for a folder, EFBIG past CUPLUG_MAX_MODULE_SIZE
 * bytes (found while reading, so that an endless input ends; *size is then
 * the file's size, or 0 where it has none, as a pipe or a device). */
char *cli_read_file(const char *path, size_t *size);
/* The bytes as the whole file at path ("-": standard output); false with
 * errno set. */
bool cli_write_file(const char *path, const void *data, size_t size);
/* The tool's own error, as the plugin's are printed, with CUPLUG_ERR_IO
 * as its code: "cuplug: error: CUPLUG_ERR_IO: <fmt...>"; returns 1. */
int cli_io_error(const cuplug_api *api, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* cli_write_file for a command's result: 1 after saying it could not. */
int cli_write_output(const cuplug_api *api, const char *path, const void *data, size_t size);
/* Whether path is standard output ("-") on a terminal, which a binary
 * result does not go to: true after saying so. */
bool cli_binary_to_terminal(const char *path, const char *what, size_t size, const char *symbol);
/* The request's IR files read into modules (texts: free them); 1 after
 * saying which file could not be read, or, past CUPLUG_MAX_MODULE_SIZE,
 * CUPLUG_ERR_LIMIT as the plugin says it. */
int cli_read_modules(const cuplug_api *api, const cli_request *r, cuplug_module *mods,
                     const cuplug_module **ptrs, char **texts);

/* Prints an error with its toolkit log, as the build commands do;
 * destroys it; returns 1. */
int cli_report(const cuplug_api *api, cuplug_error *e);
/* Prints an error without the log, as the runs do; destroys it; returns 1. */
int cli_fail(const cuplug_api *api, cuplug_error *e);

#endif
