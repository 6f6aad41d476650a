/* commands.h - the subcommands main.c dispatches to, one file each (or a
 * family to a file), and their table with what --help says of each
 * (help.c).  Each takes the plugin's table and the whole command line
 * (argv[1] names the command) and returns the exit status: 0 done, 1 an
 * error (the plugin's, or a file the tool cannot read or write), 2 the
 * command line is wrong. */
#ifndef CUPLUG_CLI_COMMANDS_H
#define CUPLUG_CLI_COMMANDS_H

#include <stdio.h>

#include "cuplug/cuplug.h"

typedef int (*cli_command)(const cuplug_api *api, int argc, char **argv);

int cli_cmd_compile(const cuplug_api *api, int argc, char **argv);  /* cmd_compile.c */
int cli_cmd_case(const cuplug_api *api, int argc, char **argv);     /* cmd_compile.c */
int cli_cmd_run(const cuplug_api *api, int argc, char **argv);      /* cmd_run.c */
int cli_cmd_link(const cuplug_api *api, int argc, char **argv);     /* cmd_link.c */
int cli_cmd_resolve(const cuplug_api *api, int argc, char **argv);  /* cmd_registry.c */
int cli_cmd_list(const cuplug_api *api, int argc, char **argv);     /* cmd_registry.c */
int cli_cmd_info(const cuplug_api *api, int argc, char **argv);     /* cmd_info.c */
int cli_cmd_cache(const cuplug_api *api, int argc, char **argv);    /* cmd_info.c */

/* A command: its name, its function, its bit in options.h (the options
 * it takes) and its page of --help. */
typedef struct cli_command_entry {
  const char *name;
  cli_command run;
  unsigned bit;
  const char *synopsis; /* after "cuplug " */
  const char *about;    /* what it does, lines ended by '\n' */
} cli_command_entry;

/* The command named `name`, or NULL. */
const cli_command_entry *cli_find_command(const char *name);
/* The page of --help: the command's (its synopsis, what it does, its
 * options), or with c NULL the tool's (every command, compile's options,
 * the exit status and the environment). */
void cli_print_help(FILE *f, const cli_command_entry *c);

#endif
