/* options.h - the command line: every command's options, read through one
 * table that says which commands take each and documents it, and usage
 * errors (options.c). */
#ifndef CUPLUG_CLI_OPTIONS_H
#define CUPLUG_CLI_OPTIONS_H

#include <stdio.h>

#include "cli.h"

/* The commands, a bit each: an option's mask says which take it. */
enum {
  CLI_COMPILE = 1u << 0,
  CLI_RUN = 1u << 1,
  CLI_LINK = 1u << 2,
  CLI_CASE = 1u << 3,
  CLI_CACHE = 1u << 4,
  CLI_RESOLVE = 1u << 5,
  CLI_LIST = 1u << 6,
  CLI_INFO = 1u << 7,
};

/* The command whose usage errors follow: they point at its --help. */
void cli_usage_command(const char *name);
/* A usage error (printf's fmt): printed with a pointer to --help; returns 2. */
int cli_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reads the option argv[*i] (and its value: *i moves past it) into r, if
 * `command` takes it; returns 0, or 2 after a usage error. */
int cli_parse_option(unsigned command, int argc, char **argv, int *i, cli_request *r);
/* A command line: its options, and its other words in r->files, up to
 * "--" (run's arguments follow it) or the end; *end is where it stopped.
 * Returns 0, or 2 after a usage error. */
int cli_parse_files(unsigned command, int argc, char **argv, cli_request *r, int *end);
/* The same for a command that takes nothing after "--": 2 if it is there. */
int cli_parse_all(unsigned command, const char *name, int argc, char **argv, cli_request *r);
/* The options `command` takes, one (or a few) lines each, as --help shows them. */
void cli_print_options(FILE *f, unsigned command);

#endif
