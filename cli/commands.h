/* commands.h - the subcommands main.c dispatches to, one file each (or a
 * family to a file).  Each takes the plugin's table and the whole command
 * line (argv[1] names the command) and returns the exit status: 0 done,
 * 1 the plugin reported an error, 2 the command line is wrong. */
#ifndef CUPLUG_CLI_COMMANDS_H
#define CUPLUG_CLI_COMMANDS_H

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

#endif
