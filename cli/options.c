/* options.c - every command's options: a table of names, each storing a
 * string, setting a flag or calling a function that checks its value, with
 * the commands that take it and its line of --help. */
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_command;

void cli_usage_command(const char *name) { usage_command = name; }

int cli_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cuplug: ");
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  if (usage_command)
    fprintf(stderr, "\n(cuplug %s --help lists its options)\n", usage_command);
  else
    fprintf(stderr, "\n(cuplug --help lists the commands and options)\n");
  return 2;
}

static bool parse_u32(const char *s, uint32_t *out) {
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno || end == s || *end || v > UINT32_MAX || *s == '-') return false;
  *out = (uint32_t)v;
  return true;
}

static bool parse_bounds(const char *s, cli_request *r) {
  r->num_launch_bounds = 0;
  for (const char *p = s;; p++) {
    char digits[16];
    size_t n = strcspn(p, ",");
    if (n == 0 || n >= sizeof digits || r->num_launch_bounds == CLI_MAX_BOUNDS) return false;
    memcpy(digits, p, n);
    digits[n] = '\0';
    if (!parse_u32(digits, &r->launch_bounds[r->num_launch_bounds++])) return false;
    p += n;
    if (!*p) return true;
  }
}

/* ---- the options that check their values ---- */

typedef int (*option_fn)(cli_request *r, const char *opt, const char *val);

static int set_abi(cli_request *r, const char *opt, const char *val) {
  cuplug_abi abi;
  if (!strcmp(val, "numba"))
    abi = CUPLUG_ABI_NUMBA;
  else if (!strcmp(val, "c"))
    abi = CUPLUG_ABI_C;
  else
    return cli_usage("an ABI is 'numba' or 'c', not '%s'", val);
  *(!strcmp(opt, "--abi") ? &r->abi : &r->entry_abi) = abi;
  return 0;
}

static int set_output(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (!strcmp(val, "ptx"))
    r->output = CUPLUG_OUTPUT_PTX;
  else if (!strcmp(val, "ltoir"))
    r->output = CUPLUG_OUTPUT_LTOIR;
  else if (!strcmp(val, "cubin"))
    r->output = CUPLUG_OUTPUT_CUBIN;
  else
    return cli_usage("--output is 'ptx', 'ltoir' or 'cubin', not '%s'", val);
  return 0;
}

static int set_backend(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (!strcmp(val, "libnvvm"))
    r->backend = CUPLUG_BACKEND_LIBNVVM;
  else if (!strcmp(val, "llvm"))
    r->backend = CUPLUG_BACKEND_LLVM;
  else
    return cli_usage("--backend is 'libnvvm' or 'llvm', not '%s'", val);
  return 0;
}

static int add_link(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (r->num_links == CLI_MAX_FILES) return cli_usage("%s", "too many --link files");
  r->links[r->num_links++] = val;
  return 0;
}

static int add_include(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (r->num_includes == CLI_MAX_FILES) return cli_usage("%s", "too many --include folders");
  r->includes[r->num_includes++] = val;
  return 0;
}

static int add_declaration(cli_request *r, const char *opt, const char *val) {
  const char *eq = strchr(val, '=');
  if (!eq || eq == val || !eq[1])
    return cli_usage("%s is 'NAME=SIGNATURE', such as 'ext_mul=int32(int32, int32)'", opt);
  if (r->num_decls == CLI_MAX_FILES) return cli_usage("%s", "too many declarations");
  cli_decl *d = &r->decls[r->num_decls++];
  d->name = cli_own(r, strndup(val, (size_t)(eq - val)));
  d->signature = eq + 1;
  d->abi = strcmp(opt, "--declare-device-c") == 0 ? CUPLUG_ABI_C : CUPLUG_ABI_NUMBA;
  return 0;
}

static int set_cc(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  unsigned major, minor;
  char suffix = 0, extra;
  if (!strcmp(val, "current")) {
    r->current_device = true;
    return 0;
  }
  int n = sscanf(val, "%u.%u%c%c", &major, &minor, &suffix, &extra);
  if (n == 2 || (n == 3 && (suffix == 'a' || suffix == 'f'))) {
    r->cc_major = major;
    r->cc_minor = minor;
    r->cc_suffix = n == 3 ? (uint32_t)suffix : 0;
    return 0;
  }
  return cli_usage("--cc is MAJOR.MINOR[a|f] (such as 9.0 or 9.0a) or 'current', not '%s'",
                   val);
}

static int set_opt(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  uint32_t level;
  if (!parse_u32(val, &level) || level > 3)
    return cli_usage("--opt is 0, 1, 2 or 3, not '%s'", val);
  r->opt = level == 0 ? CUPLUG_OPT_NONE : (int32_t)level;
  return 0;
}

static int set_bounds(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (!parse_bounds(val, r))
    return cli_usage("--launch-bounds is N[,M[,K]] (positive integers), not '%s'", val);
  return 0;
}

static int set_registers(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (!parse_u32(val, &r->max_registers))
    return cli_usage("--max-registers is a number, not '%s'", val);
  return 0;
}

static int set_kernel(cli_request *r, const char *opt, const char *val) {
  (void)opt, (void)val;
  r->kind = CUPLUG_KERNEL;
  return 0;
}

static int set_run(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (strcmp(val, "host") && strcmp(val, "gpu"))
    return cli_usage("--run takes 'host' or 'gpu', not '%s'", val);
  r->run_host = !strcmp(val, "host");
  r->run_gpu = !r->run_host;
  return 0;
}

/* ---- the table ---- */

/* An option stores its value in a string field, sets a bool field, or
 * calls its function (given the value when it takes one). */
enum option_kind { STORE_STRING, SET_FLAG, CALL_FUNCTION };
#define BUILD (CLI_COMPILE | CLI_LINK | CLI_CASE) /* the commands that use the cache */
#define STRING(name, field) name, STORE_STRING, offsetof(cli_request, field), NULL
#define FLAG(name, field) name, SET_FLAG, offsetof(cli_request, field), NULL
#define CALL(name, fn) name, CALL_FUNCTION, 0, fn
static const struct option {
  const char *name;
  enum option_kind kind;
  size_t field; /* STORE_STRING, SET_FLAG: the offset in cli_request */
  option_fn call;
  unsigned commands;
  const char *value; /* its value, as --help names it; NULL: it takes none */
  const char *help;  /* lines after the first: '\n' */
} options[] = {
    {STRING("--entry", entry), CLI_COMPILE | CLI_RUN, "SYMBOL",
     "the entry function in the IR (required)"},
    {STRING("--sig", signature), CLI_COMPILE | CLI_RUN, "SIG",
     "its numba-style signature, e.g. 'int64(int32, float32[::1])';\n"
     "a kernel that modern IR marks ptx_kernel needs none"},
    {CALL("--entry-abi", set_abi), CLI_COMPILE | CLI_RUN, "numba|c",
     "the entry's ABI in the IR (default numba)"},
    {CALL("--kernel", set_kernel), CLI_COMPILE, NULL,
     "compile a kernel (default: a device function)"},
    {CALL("--abi", set_abi), CLI_COMPILE, "c|numba",
     "a device function's exported ABI (default c)"},
    {STRING("--abi-name", abi_name), CLI_COMPILE | CLI_RUN, "NAME",
     "the C-ABI function's name (default: the entry's)"},
    {CALL("--output", set_output), CLI_COMPILE | CLI_CASE, "ptx|ltoir|cubin",
     "what to produce (default ptx); cubin links the\n"
     "declared functions the IR calls and every --link"},
    {CALL("--backend", set_backend), CLI_COMPILE | CLI_CASE, "libnvvm|llvm",
     "what makes the PTX: libNVVM, or LLVM's NVPTX\n"
     "backend (default: libNVVM for numba-cuda's typed\n"
     "IR, LLVM for modern IR and bitcode)"},
    {CALL("--cc", set_cc), CLI_COMPILE | CLI_LINK | CLI_CASE, "MAJOR.MINOR[a|f]|current",
     "target compute capability (default: max(5.0,\n"
     "lowest NVRTC cc)); 9.0a arch-specific, 10.0f family;\n"
     "'current' asks the GPU"},
    {CALL("--opt", set_opt), CLI_COMPILE, "0|1|2|3", "optimisation level (default 3)"},
    {FLAG("--debug", debug), CLI_COMPILE | CLI_LINK, NULL,
     "debug info; kernels get the exception store"},
    {FLAG("--lineinfo", lineinfo), CLI_COMPILE | CLI_LINK, NULL, "line information"},
    {FLAG("--fastmath", fastmath), CLI_COMPILE | CLI_RUN, NULL,
     "ftz, approximate division and sqrt, fma"},
    {FLAG("--forceinline", forceinline), CLI_COMPILE, NULL,
     "mark the device function alwaysinline (LTO-IR only)"},
    {CALL("--launch-bounds", set_bounds), CLI_COMPILE, "N[,M[,K]]",
     "max threads per block, min blocks per SM,\n"
     "max blocks per cluster (kernels)"},
    {CALL("--max-registers", set_registers), CLI_COMPILE | CLI_LINK, "N",
     "register limit for the link"},
    {CALL("--declare-device", add_declaration), CLI_COMPILE, "'NAME=SIG'",
     "an external function the IR calls under the\n"
     "Numba ABI (numba-cuda's declare_device)"},
    {CALL("--declare-device-c", add_declaration), CLI_COMPILE, "'NAME=SIG'",
     "the same, under the C ABI"},
    {CALL("--link", add_link), CLI_COMPILE, "FILE", "code to link (cubin output)"},
    {CALL("--include", add_include), CLI_COMPILE | CLI_LINK, "DIR",
     "a header folder for .cu code"},
    {FLAG("--no-lto", no_lto), CLI_COMPILE | CLI_LINK, NULL,
     "link PTX, not LTO-IR (LTO is the default unless --debug)"},
    {STRING("--ptx", ptx_path), CLI_COMPILE | CLI_LINK, "OUT.ptx",
     "with a cubin, also write the linked PTX"},
    {STRING("--emit-ir", emit_ir_dir), CLI_COMPILE, "DIR",
     "write the IR handed to libNVVM (or to LLVM's\n"
     "NVPTX backend) to DIR"},
    {FLAG("--check", check), CLI_CASE, NULL,
     "compare the PTX's signature with DIR/expected.ptx"},
    {CALL("--run", set_run), CLI_CASE, "host|gpu",
     "run DIR/values.json's calls and compare with\n"
     "numba-cuda's outputs"},
    {STRING("--cache-dir", cache_dir), BUILD | CLI_CACHE, "DIR",
     "the result cache's folder (default $CUPLUG_CACHE_DIR,\n"
     "else $XDG_CACHE_HOME/cuplug, else ~/.cache/cuplug;\n"
     "'' keeps results in memory only)"},
    {STRING("--cache-remote", cache_remote), BUILD | CLI_CACHE, "URL",
     "a Redis server the fleet shares, behind memory\n"
     "and disk: redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]\n"
     "(default $CUPLUG_CACHE_REMOTE; entries are signed\n"
     "with the key file $CUPLUG_CACHE_REMOTE_KEY names)"},
    {FLAG("--verbose", verbose), BUILD, NULL,
     "say on standard error where the result came from\n"
     "(built, memory, disk or remote) and what each\n"
     "stage took"},
    {FLAG("--no-cache", no_cache), BUILD, NULL,
     "build, neither looking up nor storing a result\n"
     "(CUPLUG_CACHE=0 does the same for every command)"},
    {FLAG("--strict", strict), CLI_RESOLVE, NULL, "refuse ties and unsafe conversions"},
    {STRING("-o", out_path), BUILD, "OUT",
     "write the result to OUT ('-': standard output,\n"
     "where compile and case write without -o)"},
};

static const char *const command_names[] = {"compile", "run", "link",    "case",
                                            "cache",   "resolve", "list", "info"};

static const char *name_of(unsigned command) {
  for (unsigned i = 0; i < sizeof command_names / sizeof command_names[0]; i++)
    if (command == 1u << i) return command_names[i];
  return "cuplug";
}

int cli_parse_option(unsigned command, int argc, char **argv, int *i, cli_request *r) {
  const char *opt = argv[*i];
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    const struct option *o = &options[k];
    if (strcmp(opt, o->name) != 0) continue;
    if (!(o->commands & command)) return cli_usage("%s does not take %s", name_of(command), opt);
    const char *val = NULL;
    if (o->value) {
      if (*i + 1 >= argc) return cli_usage("%s needs a value", opt);
      val = argv[++*i];
    }
    switch (o->kind) {
      case STORE_STRING: *(const char **)((char *)r + o->field) = val; return 0;
      case SET_FLAG: *(bool *)((char *)r + o->field) = true; return 0;
      case CALL_FUNCTION: return o->call(r, opt, val);
    }
  }
  return cli_usage("unknown option '%s'", opt);
}

int cli_parse_files(unsigned command, int argc, char **argv, cli_request *r, int *end) {
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    int rc = 0;
    if (argv[i][0] == '-' && argv[i][1]) /* "-" is a file: standard input */
      rc = cli_parse_option(command, argc, argv, &i, r);
    else if (r->num_files < CLI_MAX_FILES)
      r->files[r->num_files++] = argv[i];
    else
      rc = cli_usage("too many files (at most %s)", "64");
    if (rc) return rc;
  }
  *end = i;
  return 0;
}

int cli_parse_all(unsigned command, const char *name, int argc, char **argv, cli_request *r) {
  int end, rc = cli_parse_files(command, argc, argv, r, &end);
  if (!rc && end < argc) rc = cli_usage("%s takes no '--'", name);
  return rc;
}

void cli_print_options(FILE *f, unsigned command) {
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    const struct option *o = &options[k];
    if (!(o->commands & command)) continue;
    char head[64];
    snprintf(head, sizeof head, "%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
    fprintf(f, "  %-22s  ", head);
    for (const char *p = o->help;;) {
      size_t n = strcspn(p, "\n");
      fprintf(f, "%.*s\n", (int)n, p);
      if (!p[n]) break;
      p += n + 1;
      fprintf(f, "%26s", "");
    }
  }
}
