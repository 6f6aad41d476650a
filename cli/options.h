/* options.h - the command line: the options compile, run, link, case and
 * cache share, read through one table, and usage errors (options.c). */
#ifndef CUPLUG_CLI_OPTIONS_H
#define CUPLUG_CLI_OPTIONS_H

#include "cli.h"

/* A usage error (fmt with one %s): printed with a pointer to --help; returns 2. */
int cli_usage(const char *fmt, const char *arg);
/* Reads the option argv[*i] (and its value: *i moves past it) into r;
 * returns 0, or 2 after a usage error. */
int cli_parse_option(int argc, char **argv, int *i, cli_request *r);
/* compile's and run's command line: IR files and options, up to "--"
 * (run's arguments follow it) or the end; *end is where it stopped.
 * Returns 0, or 2 after a usage error. */
int cli_parse_files(int argc, char **argv, cli_request *r, int *end);

#endif
