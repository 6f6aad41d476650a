/* help.c - the commands' table and the pages of --help: the tool's (every
 * command, compile's options, the exit status, the environment) and each
 * command's own (its options, from the table in options.c). */
#include <string.h>

#include "commands.h"
#include "options.h"

static const cli_command_entry commands[] = {
    {"compile", cli_cmd_compile, CLI_COMPILE,
     "compile FILE.ll... --entry SYMBOL [--sig SIG] [options]",
     "Compile NVVM IR (the text numba-cuda's front end emits) to PTX, LTO-IR,\n"
     "or a cubin linked with the code it calls.  FILE.ll '-' is standard input.\n"
     "Modern LLVM IR (opaque pointers, as clang, Triton or MLIR write it) and\n"
     "LLVM bitcode (.bc) compile too, through LLVM's NVPTX backend (--backend);\n"
     "a kernel they mark ptx_kernel needs no --sig.\n"},
    {"link", cli_cmd_link, CLI_LINK, "link FILE... -o OUT.cubin [options]",
     "Link code with nvJitLink: .cu (compiled by NVRTC), .ptx, .ltoir, .cubin,\n"
     ".fatbin, .o, .a.\n"},
    {"case", cli_cmd_case, CLI_CASE,
     "case DIR [--output ptx|ltoir|cubin] [--check] [-o OUT] [--run host|gpu] [options]",
     "Compile a conformance case folder (DIR/case.json, DIR/input.ll, or\n"
     "DIR/input.bc where there is none, and the files its declare_device\n"
     "entries link).  --check compares the result's PTX signature with\n"
     "DIR/expected.ptx.  --run host runs it on this CPU with the inputs of\n"
     "DIR/values.json and compares with numba-cuda's outputs there; --run gpu\n"
     "does the same with cuplug's build for this GPU (a device function through\n"
     "a kernel that calls it, a thread a call).  --backend llvm builds it with\n"
     "LLVM's NVPTX backend (a device function then as PTX, not LTO-IR); --cc\n"
     "overrides case.json's cc.\n"},
    {"run", cli_cmd_run, CLI_RUN,
     "run FILE.ll... --entry SYMBOL [--sig SIG] [compile options] -- ARG...",
     "Compile a device function for this CPU (LLVM's ORC JIT, no GPU or CUDA\n"
     "needed), call it with the arguments and print its result on one line,\n"
     "as Python writes it: 3, 0.1, True, (1.5-2j).\n"},
    {"resolve", cli_cmd_resolve, CLI_RESOLVE, "resolve [--strict] KEY 'ARGTYPES'",
     "How a call of KEY with arguments of these types types, as a host front\n"
     "end asks: prints 'SIGNATURE SYMBOL ABI', and warns of an argument it\n"
     "converts unsafely.  ARGTYPES is a comma-separated list, e.g.\n"
     "'float32[:], int64, float32' or '(Literal[int](2))'.  The rule is\n"
     "numba-cuda's; --strict refuses ties and unsafe conversions.\n"},
    {"list", cli_cmd_list, CLI_LIST, "list [PREFIX]",
     "The registered keys (cuplug's CUDA library: cuda.*, math.*) starting\n"
     "with PREFIX, one signature (or a generic template's description) a line;\n"
     "[extension: ...] marks what cuplug takes beyond numba-cuda 0.30.\n"},
    {"info", cli_cmd_info, CLI_INFO, "info",
     "Print the versions found (cuplug, ABI, LLVM, libNVVM, NVVM IR, NVRTC,\n"
     "nvJitLink, driver) and whether a GPU is present.\n"},
    {"cache", cli_cmd_cache, CLI_CACHE, "cache [info|clear] [--cache-dir DIR] [--cache-remote URL]",
     "The result cache compile, link and case use: its folder, state, entries\n"
     "and size (info, the default), or empty it (clear).\n"},
};

static const char exit_status[] =
    "exit status:\n"
    "  0    done\n"
    "  1    an error, printed as 'cuplug: error: CODE: message': the plugin's\n"
    "       (CUPLUG_ERR_...), or CUPLUG_ERR_IO for a file the tool cannot read or\n"
    "       write, or CUPLUG_ERR_LIMIT for an input past 64 MiB; or a difference\n"
    "       that case --check or --run found\n"
    "  2    the command line is wrong, printed as 'cuplug: message'\n"
    "  130  Ctrl-C stopped a run on the CPU (run, case --run host)\n";

static const char environment[] =
    "environment:\n"
    "  CUDA_HOME               the CUDA toolkit: libNVVM, libdevice, NVRTC, nvJitLink\n"
    "                          (default /usr/local/cuda, then the loader's path)\n"
    "  CUPLUG_HELPER           the helper program libNVVM, NVRTC and nvJitLink run\n"
    "                          in (default: cuplug-helper beside libcuplug.so)\n"
    "  CUPLUG_HOST_LIBRARY     the CPU target that run and case --run host load\n"
    "                          (default: libcuplug-host.so beside libcuplug.so)\n"
    "  CUPLUG_NVPTX_LIBRARY    LLVM's NVPTX backend, which compiles modern IR\n"
    "                          (default: libcuplug-nvptx.so beside libcuplug.so)\n"
    "  CUPLUG_CACHE            0, off, no or false: no result cache, for every command\n"
    "  CUPLUG_CACHE_DIR        the result cache's folder ('' : memory only)\n"
    "  XDG_CACHE_HOME          without CUPLUG_CACHE_DIR: the cache is its cuplug/\n"
    "  HOME                    without either: the cache is $HOME/.cache/cuplug\n"
    "  CUPLUG_CACHE_REMOTE     a Redis server the fleet shares, behind memory and\n"
    "                          disk: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]\n"
    "  CUPLUG_CACHE_REMOTE_KEY the key file its entries are signed with (16 to 4096\n"
    "                          random bytes, the same on every machine; without\n"
    "                          one the server is not used)\n"
    "  CUPLUG_CACHE_REMOTE_TIMEOUT_MS  the most one call to it takes (default 50)\n"
    "  CUPLUG_CACHE_REMOTE_RETRY_MS    how long it is skipped after a failure\n"
    "                          (default 5000)\n"
    "  CUPLUG_CACHE_REMOTE_TTL the seconds it keeps an entry (default: until its\n"
    "                          own eviction)\n"
    "  CUPLUG_CACHE_REMOTE_MAX_ENTRY_MB  larger results are not sent (default 4)\n"
    "  CUPLUG_HIREDIS          the hiredis library to load (default libhiredis.so.0.14)\n"
    "  CUPLUG_HOST_DUMP_IR     a folder: the CPU target writes the module its JIT\n"
    "                          compiles there, as <function>.host.ll\n"
    "  CUPLUG_HOST_ROW_PASSES  the LLVM passes of the CPU target's row loops\n"
    "  CUPLUG_HELPER_SPIN_US   how long the helper polls for its next job before it\n"
    "                          sleeps, in microseconds (default 5000)\n"
    "  CUPLUG_HELPER_PIN       1: the helper runs a job on the CPU of the thread that\n"
    "                          sent it (default 0)\n"
    "  CUPLUG_HOST_SPIN_US     how long a compile polls for the helper's result\n"
    "                          before it sleeps, in microseconds (default 0)\n"
    "The Python and LuaJIT hosts read CUPLUG_LIBRARY (the plugin) and LuaJIT's\n"
    "CUPLUG_HEADER (cuplug.h) too; the README lists every variable.\n";

const cli_command_entry *cli_find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(name, commands[i].name)) return &commands[i];
  return NULL;
}

/* Each line of text, after `indent` spaces. */
static void print_indented(FILE *f, const char *text, int indent) {
  for (const char *p = text; *p;) {
    size_t n = strcspn(p, "\n");
    fprintf(f, "%*s%.*s\n", indent, "", (int)n, p);
    p += n + (p[n] == '\n');
  }
}

static void print_tool_help(FILE *f) {
  fputs("usage: cuplug <command> [arguments]\n"
        "       cuplug <command> --help   the command's options\n"
        "       cuplug --version\n\n"
        "commands:\n",
        f);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
    fprintf(f, "  %s\n", commands[i].synopsis);
    print_indented(f, commands[i].about, 6);
  }
  fputs("\ncompile options (run, link, case and cache take some of them):\n", f);
  cli_print_options(f, CLI_COMPILE);
  fprintf(f, "  %-22s  %s\n\n%s\n%s", "-h, --help", "this text", exit_status, environment);
}

void cli_print_help(FILE *f, const cli_command_entry *c) {
  if (!c) {
    print_tool_help(f);
    return;
  }
  fprintf(f, "usage: cuplug %s\n\n", c->synopsis);
  print_indented(f, c->about, 2);
  fputs("\noptions:\n", f);
  cli_print_options(f, c->bit);
  fprintf(f, "  %-22s  %s\n\n", "-h, --help", "this text");
  fputs("(cuplug --help: every command, the exit status and the environment)\n", f);
}
