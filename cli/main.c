/* main.c - the cuplug command-line tool: its usage, and the dispatch of
 * each subcommand to its file (commands.h).
 *
 *   cuplug compile FILE.ll... --entry SYMBOL --sig SIG [options] [-o OUT]
 *   cuplug link FILE... -o OUT.cubin [options]
 *   cuplug case DIR [--output ptx|ltoir|cubin] [--check] [-o OUT] [--run host|gpu]
 *   cuplug run FILE.ll... --entry SYMBOL --sig SIG [options] -- ARG...
 *   cuplug resolve [--strict] KEY 'ARGTYPES'
 *   cuplug list [PREFIX]
 *   cuplug info
 *   cuplug cache [info|clear] [--cache-dir DIR]
 *
 * A host of the plugin like any other: everything goes through the table
 * cuplug_get_api returns.  Exit status: 0 done, 1 the plugin reported an
 * error (or --check or --run found a difference), 2 the command line is
 * wrong. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "options.h"

static const char usage_text[] =
    "usage: cuplug <command> [arguments]\n"
    "\n"
    "commands:\n"
    "  compile FILE.ll... --entry SYMBOL --sig SIG [options]\n"
    "      Compile NVVM IR (the text numba-cuda's front end emits) to PTX, LTO-IR,\n"
    "      or a cubin linked with the code it calls.\n"
    "  link FILE... -o OUT.cubin [--cc MAJOR.MINOR[a|f]] [--no-lto] [--max-registers N]\n"
    "       [--ptx OUT.ptx] [--include DIR] [--debug] [--lineinfo] [--cache-dir DIR]\n"
    "       [--no-cache]\n"
    "      Link code with nvJitLink: .cu (compiled by NVRTC), .ptx, .ltoir, .cubin,\n"
    "      .fatbin, .o, .a.\n"
    "  case DIR [--output ptx|ltoir|cubin] [--check] [-o OUT] [--run host|gpu]\n"
    "       [--cache-dir DIR] [--no-cache]\n"
    "      Compile a conformance case folder (DIR/case.json, DIR/input.ll, and the\n"
    "      files its declare_device entries link).  --check compares the result's\n"
    "      PTX signature with DIR/expected.ptx.  --run host runs it on this CPU with\n"
    "      the inputs of DIR/values.json and compares with numba-cuda's outputs there;\n"
    "      --run gpu does the same with cuplug's build for this GPU (a device\n"
    "      function through a kernel that calls it, a thread a call).\n"
    "  run FILE.ll... --entry SYMBOL --sig SIG [compile options] -- ARG...\n"
    "      Compile a device function for this CPU (LLVM's ORC JIT, no GPU or CUDA\n"
    "      needed), call it with the arguments and print its result on one line,\n"
    "      as Python writes it: 3, 0.1, True, (1.5-2j).\n"
    "  resolve [--strict] KEY 'ARGTYPES'\n"
    "      How a call of KEY with arguments of these types types, as a host front\n"
    "      end asks: prints 'SIGNATURE SYMBOL ABI', and warns of an argument it\n"
    "      converts unsafely.  ARGTYPES is a comma-separated list, e.g.\n"
    "      'float32[:], int64, float32' or '(Literal[int](2))'.  The rule is\n"
    "      numba-cuda's; --strict refuses ties and unsafe conversions.\n"
    "  list [PREFIX]\n"
    "      The registered keys (cuplug's CUDA library: cuda.*, math.*) starting\n"
    "      with PREFIX, one signature (or a generic template's description) a line;\n"
    "      [extension: ...] marks what cuplug takes beyond numba-cuda 0.30.\n"
    "  info\n"
    "      Print the versions found (cuplug, ABI, libNVVM, NVVM IR, NVRTC,\n"
    "      nvJitLink, driver) and whether a GPU is present.\n"
    "  cache [info|clear] [--cache-dir DIR]\n"
    "      The result cache compile, link and case use: its folder, state, entries\n"
    "      and size (info, the default), or empty it (clear).\n"
    "\n"
    "compile options:\n"
    "  --entry SYMBOL          the entry function in the IR (required)\n"
    "  --sig SIG               its numba-style signature, e.g. 'int64(int32, float32[::1])'\n"
    "  --entry-abi numba|c     the entry's ABI in the IR (default numba)\n"
    "  --kernel                compile a kernel (default: a device function)\n"
    "  --abi c|numba           a device function's exported ABI (default c)\n"
    "  --abi-name NAME         the C-ABI function's name (default: the entry's)\n"
    "  --output ptx|ltoir|cubin  what to produce (default ptx); cubin links the\n"
    "                          declared functions the IR calls and every --link\n"
    "  --cc MAJOR.MINOR[a|f]|current  target compute capability (default: max(5.0,\n"
    "                          lowest NVRTC cc)); 9.0a arch-specific, 10.0f family;\n"
    "                          'current' asks the GPU\n"
    "  --opt 0|1|2|3           libNVVM optimisation level (default 3)\n"
    "  --debug                 debug info; kernels get the exception store\n"
    "  --lineinfo              line information\n"
    "  --fastmath              ftz, approximate division and sqrt, fma\n"
    "  --forceinline           mark the device function alwaysinline (LTO-IR only)\n"
    "  --launch-bounds N[,M[,K]]  max threads per block, min blocks per SM,\n"
    "                          max blocks per cluster (kernels)\n"
    "  --max-registers N       register limit for the link\n"
    "  --declare-device 'NAME=SIG'  an external function the IR calls under the\n"
    "                          Numba ABI (numba-cuda's declare_device)\n"
    "  --declare-device-c 'NAME=SIG'  the same, under the C ABI\n"
    "  --link FILE             code to link (cubin output)\n"
    "  --include DIR           a header folder for .cu code\n"
    "  --no-lto                link PTX, not LTO-IR (LTO is the default unless --debug)\n"
    "  --ptx OUT.ptx           with a cubin, also write the linked PTX\n"
    "  --emit-ir DIR           write the NVVM IR handed to libNVVM to DIR\n"
    "  --cache-dir DIR         the result cache's folder (default $CUPLUG_CACHE_DIR,\n"
    "                          else $XDG_CACHE_HOME/cuplug, else ~/.cache/cuplug;\n"
    "                          '' keeps results in memory only); also for link\n"
    "  --no-cache              build, neither looking up nor storing a result\n"
    "                          (CUPLUG_CACHE=0 does the same for every command)\n"
    "  -o OUT                  write the result to OUT (default: standard output)\n"
    "  -h, --help              this text\n";

static const struct {
  const char *name;
  cli_command run;
} commands[] = {
    {"compile", cli_cmd_compile}, {"case", cli_cmd_case},       {"run", cli_cmd_run},
    {"link", cli_cmd_link},       {"resolve", cli_cmd_resolve}, {"list", cli_cmd_list},
    {"info", cli_cmd_info},       {"cache", cli_cmd_cache},
};

int main(int argc, char **argv) {
  const cuplug_api *api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api) {
    fprintf(stderr, "cuplug: the plugin does not speak ABI %d\n", CUPLUG_ABI_MAJOR);
    return 1;
  }
  if (argc < 2) {
    fputs(usage_text, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
    if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      fputs(usage_text, stdout);
      return 0;
    }
  }
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (!strcmp(cmd, commands[i].name)) return commands[i].run(api, argc, argv);
  if (!strcmp(cmd, "help")) {
    fputs(usage_text, stdout);
    return 0;
  }
  return cli_usage("unknown command '%s'", cmd);
}
