/* main.c - the cuplug command-line tool: --version, --help (help.c), and
 * the dispatch of each subcommand to its file (commands.h).
 *
 *   cuplug compile FILE.ll... --entry SYMBOL [--sig SIG] [options] [-o OUT]
 *   cuplug link FILE... -o OUT.cubin [options]
 *   cuplug case DIR [--output ptx|ltoir|cubin] [--check] [-o OUT] [--run host|gpu]
 *               [--backend libnvvm|llvm]
 *   cuplug run FILE.ll... --entry SYMBOL [--sig SIG] [options] -- ARG...
 *   cuplug resolve [--strict] KEY 'ARGTYPES'
 *   cuplug list [PREFIX]
 *   cuplug info
 *   cuplug cache [info|clear] [--cache-dir DIR]
 *   cuplug COMMAND --help, cuplug help [COMMAND], cuplug --version
 *
 * A host of the plugin like any other: everything goes through the table
 * cuplug_get_api returns.  Exit status: 0 done, 1 an error (the plugin's,
 * or a file the tool cannot read or write; or --check or --run found a
 * difference), 2 the command line is wrong. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

/* Whether the command line asks for help (-h or --help before "--"). */
static bool asks_help(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return true;
  return false;
}

int main(int argc, char **argv) {
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api) {
    fprintf(stderr, "cuplug: the plugin does not speak ABI %d\n", CUPLUG_ABI_MAJOR);
    return 1;
  }
  if (argc < 2) {
    cli_print_help(stderr, NULL);
    return 2;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "--version")) {
    printf("cuplug %s (ABI %u.%u)\n", CUPLUG_CLI_VERSION, api->abi_major, api->abi_minor);
    return 0;
  }
  const cli_command_entry *c = cli_find_command(cmd);
  if (!strcmp(cmd, "help") && argc > 2) {
    if (!(c = cli_find_command(argv[2]))) return cli_usage("unknown command '%s'", argv[2]);
    cli_print_help(stdout, c);
    return 0;
  }
  if (!strcmp(cmd, "help") || asks_help(argc, argv)) {
    cli_print_help(stdout, c);
    return 0;
  }
  if (!c) return cli_usage("unknown command '%s'", cmd);
  cli_usage_command(c->name);
  return c->run(api, argc, argv);
}
