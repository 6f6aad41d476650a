/* main.c - the cuplug command-line tool.
 *
 *   cuplug compile FILE.ll... --entry SYMBOL --sig SIG [options] [-o OUT]
 *   cuplug link FILE... -o OUT.cubin [options]
 *   cuplug case DIR [--output ptx|ltoir|cubin] [--check] [-o OUT]
 *   cuplug resolve KEY 'ARGTYPES'
 *   cuplug list [PREFIX]
 *   cuplug info
 *   cuplug cache [info|clear] [--cache-dir DIR]
 *
 * A host of the plugin like any other: everything goes through the table
 * cuplug_get_api returns.  Exit status: 0 done, 1 the plugin reported an
 * error (or --check found a difference), 2 the command line is wrong. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cuplug/cuplug.h"
#include "ptxsig.h"

static const cuplug_api *api;

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

int cli_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "cuplug: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n(cuplug --help lists the commands and options)\n");
  return 2;
}

#define usage_error cli_usage

/* Prints an error and its toolkit log; destroys it; returns 1. */
static int report(cuplug_error *e) {
  fprintf(stderr, "cuplug: error: %s: %s\n", api->status_name(api->error_code(e)),
          api->error_message(e));
  const char *log = api->error_log(e);
  if (*log) fprintf(stderr, "%s\n", log);
  api->error_destroy(e);
  return 1;
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

/* ---- the options of compile, link and case: a table ---- */

typedef int (*option_fn)(cli_request *r, const char *opt, const char *val);

static int set_abi(cli_request *r, const char *opt, const char *val) {
  cuplug_abi abi;
  if (!strcmp(val, "numba"))
    abi = CUPLUG_ABI_NUMBA;
  else if (!strcmp(val, "c"))
    abi = CUPLUG_ABI_C;
  else
    return usage_error("an ABI is 'numba' or 'c', not '%s'", val);
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
    return usage_error("--output is 'ptx', 'ltoir' or 'cubin', not '%s'", val);
  return 0;
}

static int add_link(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (r->num_links == CLI_MAX_FILES) return usage_error("%s", "too many --link files");
  r->links[r->num_links++] = val;
  return 0;
}

static int add_include(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (r->num_includes == CLI_MAX_FILES) return usage_error("%s", "too many --include folders");
  r->includes[r->num_includes++] = val;
  return 0;
}

static int add_declaration(cli_request *r, const char *opt, const char *val) {
  const char *eq = strchr(val, '=');
  if (!eq || eq == val || !eq[1])
    return usage_error("%s is 'NAME=SIGNATURE', such as 'ext_mul=int32(int32, int32)'", opt);
  if (r->num_decls == CLI_MAX_FILES) return usage_error("%s", "too many declarations");
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
  return usage_error("--cc is MAJOR.MINOR[a|f] (such as 9.0 or 9.0a) or 'current', not '%s'",
                     val);
}

static int set_opt(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  uint32_t level;
  if (!parse_u32(val, &level) || level > 3)
    return usage_error("--opt is 0, 1, 2 or 3, not '%s'", val);
  r->opt = level == 0 ? CUPLUG_OPT_NONE : (int32_t)level;
  return 0;
}

static int set_bounds(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (!parse_bounds(val, r))
    return usage_error("--launch-bounds is N[,M[,K]] (positive integers), not '%s'", val);
  return 0;
}

static int set_registers(cli_request *r, const char *opt, const char *val) {
  (void)opt;
  if (!parse_u32(val, &r->max_registers))
    return usage_error("--max-registers is a number, not '%s'", val);
  return 0;
}

static int set_kernel(cli_request *r, const char *opt, const char *val) {
  (void)opt, (void)val;
  r->kind = CUPLUG_KERNEL;
  return 0;
}

/* An option stores its value in a string field, sets a bool field, or
 * calls its function (given the value when it takes one). */
enum option_kind { STORE_STRING, SET_FLAG, CALL_FUNCTION };
#define STRING(name, field) {name, STORE_STRING, true, offsetof(cli_request, field), NULL}
#define FLAG(name, field) {name, SET_FLAG, false, offsetof(cli_request, field), NULL}
#define CALL(name, value, fn) {name, CALL_FUNCTION, value, 0, fn}
static const struct option {
  const char *name;
  enum option_kind kind;
  bool takes_value;
  size_t field; /* STORE_STRING, SET_FLAG: the offset in cli_request */
  option_fn call;
} options[] = {
    STRING("--entry", entry),
    STRING("--sig", signature),
    CALL("--entry-abi", true, set_abi),
    CALL("--abi", true, set_abi),
    STRING("--abi-name", abi_name),
    CALL("--output", true, set_output),
    CALL("--link", true, add_link),
    CALL("--include", true, add_include),
    CALL("--declare-device", true, add_declaration),
    CALL("--declare-device-c", true, add_declaration),
    STRING("--ptx", ptx_path),
    FLAG("--no-lto", no_lto),
    CALL("--cc", true, set_cc),
    CALL("--opt", true, set_opt),
    CALL("--launch-bounds", true, set_bounds),
    CALL("--max-registers", true, set_registers),
    STRING("--emit-ir", emit_ir_dir),
    STRING("--cache-dir", cache_dir),
    FLAG("--no-cache", no_cache),
    STRING("-o", out_path),
    CALL("--kernel", false, set_kernel),
    FLAG("--debug", debug),
    FLAG("--lineinfo", lineinfo),
    FLAG("--fastmath", fastmath),
    FLAG("--forceinline", forceinline),
};

/* Parses the shared options; returns 0, or 2 after a usage error.  `i` is
 * advanced past the option's value. */
static int parse_option(int argc, char **argv, int *i, cli_request *r) {
  const char *opt = argv[*i];
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    const struct option *o = &options[k];
    if (strcmp(opt, o->name) != 0) continue;
    const char *val = NULL;
    if (o->takes_value) {
      if (*i + 1 >= argc) return usage_error("%s needs a value", opt);
      val = argv[++*i];
    }
    switch (o->kind) {
      case STORE_STRING: *(const char **)((char *)r + o->field) = val; return 0;
      case SET_FLAG: *(bool *)((char *)r + o->field) = true; return 0;
      case CALL_FUNCTION: return o->call(r, opt, val);
    }
  }
  return usage_error("unknown option '%s'", opt);
}

/* The session a command works in: its cache as the options say. */
static cuplug_error *open_session(const cli_request *r, cuplug_session **s) {
  cuplug_session_options o = {.struct_size = sizeof o,
                              .cache_dir = r->cache_dir,
                              .flags = r->no_cache ? CUPLUG_SESSION_NO_CACHE : 0};
  return api->session_create(&o, s);
}

static bool write_file(const char *path, const void *data, size_t size) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, size, f) == size;
  return fclose(f) == 0 && ok;
}

static int emit_ir(const cuplug_artifact *art, const char *dir, size_t n) {
  mkdir(dir, 0777);
  for (size_t i = 0; i < n; i++) {
    cuplug_ir_view v = {.struct_size = sizeof v};
    cuplug_error *e = api->artifact_ir(art, i, &v);
    if (e) return report(e);
    /* DIR/<index>-<the module's file name>.ll */
    const char *base = strrchr(v.name, '/');
    base = base ? base + 1 : v.name;
    size_t len = strlen(base);
    bool ll = len >= 3 && strcmp(base + len - 3, ".ll") == 0;
    char *path = cli_format("%s/%zu-%s%s", dir, i, base, ll ? "" : ".ll");
    bool ok = write_file(path, v.text, v.size);
    if (!ok) fprintf(stderr, "cuplug: cannot write %s: %s\n", path, strerror(errno));
    free(path);
    if (!ok) return 1;
  }
  return 0;
}

/* Compares the result's PTX signature with the expected PTX's. */
static int check_ptx(const cuplug_artifact_info *info, const char *expected_path) {
  size_t size;
  char *expected = cli_read_file(expected_path, &size);
  if (!expected) {
    fprintf(stderr, "cuplug: cannot read %s: %s\n", expected_path, strerror(errno));
    return 1;
  }
  bool kernel = info->kind == CUPLUG_KERNEL;
  ptxsig want, got;
  char a[2048], b[2048];
  bool have_want = ptxsig_read(expected, kernel ? NULL : info->symbol, &want);
  bool have_got = ptxsig_read(info->data, kernel ? NULL : info->symbol, &got);
  free(expected);
  if (!have_want || !have_got) {
    fprintf(stderr, "cuplug: check: no visible %s %s in %s\n", kernel ? "kernel" : "function",
            kernel ? "" : info->symbol, have_want ? "cuplug's PTX" : expected_path);
    return 1;
  }
  ptxsig_format(&got, a, sizeof a);
  ptxsig_format(&want, b, sizeof b);
  if (!ptxsig_same(&got, &want)) {
    fprintf(stderr, "cuplug: check: layouts differ\n  cuplug:   %s\n  expected: %s\n", a, b);
    return 1;
  }
  fprintf(stderr, "cuplug: check: %s matches %s\n", a, expected_path);
  return 0;
}

/* A declared function's host implementation: its NVVM IR compiled for this
 * CPU as a C function, loaded (*lib: unload it after what calls it). */
static cuplug_error *host_implementation(cuplug_session *s, const cli_decl *d, char *text,
                                        size_t size, cuplug_library **lib, void **address) {
  cuplug_module m = {sizeof m, d->host_ir, text, size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args c = {.struct_size = sizeof c, .session = s, .modules = mods,
                           .num_modules = 1, .entry = d->name,
                           .signature = d->host_signature, .entry_abi = CUPLUG_ABI_C,
                           .abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_HOST};
  cuplug_error *e = api->compile(&c);
  if (e) return e;
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = c.artifact};
  e = api->load(&l);
  api->artifact_destroy(c.artifact);
  if (e) return e;
  *lib = l.library;
  cuplug_host_function_args f = {.struct_size = sizeof f, .library = l.library,
                                 .name = d->name};
  if ((e = api->host_function(&f))) return e;
  *address = f.address;
  return NULL;
}

/* Registers the request's declared functions with the session (and, for
 * the host, their host implementations, loaded into libs[i]: unload them
 * after the compile's own library); reports an error, returns 1. */
static int declare(cuplug_session *s, const cli_request *r, cuplug_library **libs) {
  for (size_t i = 0; i < r->num_decls; i++) {
    const cli_decl *d = &r->decls[i];
    void *host = NULL;
    if (d->host_ir && r->output == CUPLUG_OUTPUT_HOST) {
      size_t size;
      char *text = cli_read_file(d->host_ir, &size);
      if (!text) {
        fprintf(stderr, "cuplug: error: cannot read %s (the host implementation of %s): %s\n",
                d->host_ir, d->name, strerror(errno));
        return 1;
      }
      cuplug_error *e = host_implementation(s, d, text, size, &libs[i], &host);
      free(text);
      if (e) return report(e);
    }
    cuplug_code codes[CLI_MAX_FILES];
    const cuplug_code *ptrs[CLI_MAX_FILES];
    for (size_t k = 0; k < d->num_links; k++) {
      codes[k] = (cuplug_code){.struct_size = sizeof codes[k], .path = d->links[k]};
      ptrs[k] = &codes[k];
    }
    cuplug_declare_device_args a = {.struct_size = sizeof a,
                                    .registry = api->session_registry(s),
                                    .name = d->name,
                                    .signature = d->signature,
                                    .abi = d->abi,
                                    .link = ptrs,
                                    .num_link = d->num_links,
                                    .host_function = host};
    cuplug_error *e = api->declare_device(&a);
    if (e) return report(e);
  }
  return 0;
}

int cli_read_modules(const cli_request *r, cuplug_module *mods, const cuplug_module **ptrs,
                     char **texts) {
  for (size_t i = 0; i < r->num_files; i++) {
    size_t size;
    if (!(texts[i] = cli_read_file(r->files[i], &size))) {
      fprintf(stderr, "cuplug: error: cannot read %s: %s\n", r->files[i], strerror(errno));
      return 1;
    }
    mods[i] = (cuplug_module){sizeof(cuplug_module), r->files[i], texts[i], size};
    ptrs[i] = &mods[i];
  }
  return 0;
}

cuplug_compile_args cli_compile_args(const cli_request *r, cuplug_session *session,
                                     const cuplug_module *const *mods) {
  return (cuplug_compile_args){
      .struct_size = sizeof(cuplug_compile_args),
      .session = session,
      .modules = mods,
      .num_modules = r->num_files,
      .entry = r->entry,
      .signature = r->signature,
      .entry_abi = r->entry_abi,
      .kind = r->kind,
      .abi = r->abi,
      .abi_name = r->abi_name,
      .output = r->output,
      .cc_major = r->cc_major,
      .cc_minor = r->cc_minor,
      .cc_suffix = r->cc_suffix,
      .opt = r->opt,
      .debug = r->debug,
      .lineinfo = r->lineinfo,
      .fastmath = r->fastmath,
      .forceinline = r->forceinline,
      .launch_bounds = r->num_launch_bounds ? r->launch_bounds : NULL,
      .num_launch_bounds = r->num_launch_bounds,
      .max_registers = r->max_registers,
      .flags = (r->current_device ? CUPLUG_COMPILE_CURRENT_DEVICE : 0) |
               (r->emit_ir_dir ? CUPLUG_COMPILE_KEEP_IR : 0) |
               (r->ptx_path ? CUPLUG_COMPILE_LINKED_PTX : 0),
      .include_paths = r->includes,
      .num_include_paths = r->num_includes,
      .no_lto = r->no_lto,
  };
}

/* Writes an artifact's linked PTX (its part of kind PTX after the cubin). */
static int write_linked_ptx(const cuplug_artifact *art, const char *path) {
  for (size_t i = 1;; i++) {
    cuplug_part p = {.struct_size = sizeof p};
    cuplug_error *e = api->artifact_part(art, i, &p);
    if (e) {
      api->error_destroy(e);
      fprintf(stderr, "cuplug: error: no linked PTX to write (it needs a cubin with LTO)\n");
      return 1;
    }
    if (p.kind != CUPLUG_CODE_PTX) continue;
    if (write_file(path, p.data, p.size)) return 0;
    fprintf(stderr, "cuplug: error: cannot write %s: %s\n", path, strerror(errno));
    return 1;
  }
}

static int run_compile(cli_request *r, bool check) {
  if (!r->num_files) return usage_error("%s", "compile needs an IR file");
  if (!r->entry) return usage_error("%s", "compile needs --entry SYMBOL");
  if (!r->signature) return usage_error("%s", "compile needs --sig SIGNATURE");
  if (check && r->output != CUPLUG_OUTPUT_PTX)
    return usage_error("%s", "--check compares PTX: leave --output at ptx");

  cuplug_module mods[CLI_MAX_FILES];
  const cuplug_module *mod_ptrs[CLI_MAX_FILES];
  char *texts[CLI_MAX_FILES] = {0};
  cuplug_session *session = NULL;
  cuplug_artifact *art = NULL;
  cuplug_library *host_libs[CLI_MAX_FILES] = {0};
  cuplug_error *e;
  int rc = cli_read_modules(r, mods, mod_ptrs, texts);
  if (rc) goto done;
  if ((e = open_session(r, &session))) {
    rc = report(e);
    goto done;
  }
  if ((rc = declare(session, r, host_libs))) goto done;
  cuplug_code codes[CLI_MAX_FILES];
  const cuplug_code *code_ptrs[CLI_MAX_FILES];
  for (size_t i = 0; i < r->num_links; i++) {
    codes[i] = (cuplug_code){.struct_size = sizeof codes[i], .path = r->links[i]};
    code_ptrs[i] = &codes[i];
  }
  cuplug_compile_args a = cli_compile_args(r, session, mod_ptrs);
  a.link = code_ptrs;
  a.num_link = r->num_links;
  if ((e = api->compile(&a))) {
    rc = report(e);
    goto done;
  }
  art = a.artifact;
  cuplug_artifact_info info = {.struct_size = sizeof info};
  if ((e = api->artifact_info(art, &info))) {
    rc = report(e);
    goto done;
  }
  for (size_t i = 0; i < info.num_warnings; i++) {
    const cuplug_error *w = api->artifact_warning(art, i);
    fprintf(stderr, "cuplug: warning: %s: %s\n", api->status_name(api->error_code(w)),
            api->error_message(w));
  }
  if (*info.log) fprintf(stderr, "%s\n", info.log);
  if (*info.link_log) fprintf(stderr, "%s\n", info.link_log);
  if (r->emit_ir_dir && (rc = emit_ir(art, r->emit_ir_dir, info.num_ir_modules))) goto done;
  if (r->run_dir) {
    rc = cli_case_run(api, session, art, r);
    goto done;
  }
  if (r->ptx_path && (rc = write_linked_ptx(art, r->ptx_path))) goto done;
  if (check) {
    rc = check_ptx(&info, r->expected_ptx);
    if (!r->out_path) goto done;
  }
  if (r->out_path) {
    if (!write_file(r->out_path, info.data, info.size)) {
      fprintf(stderr, "cuplug: error: cannot write %s: %s\n", r->out_path, strerror(errno));
      rc = 1;
    }
  } else if (info.output != CUPLUG_OUTPUT_PTX && isatty(STDOUT_FILENO)) {
    fprintf(stderr, "cuplug: the %s is binary: give -o FILE (%zu bytes for %s)\n",
            info.output == CUPLUG_OUTPUT_CUBIN ? "cubin" : "LTO-IR", info.size, info.symbol);
    rc = 1;
  } else {
    fwrite(info.data, 1, info.size, stdout);
  }
done:
  api->artifact_destroy(art);
  for (size_t i = 0; i < r->num_decls; i++)
    if (host_libs[i]) api->library_unload(host_libs[i]);
  api->session_destroy(session);
  for (size_t i = 0; i < r->num_files; i++) free(texts[i]);
  return rc;
}

/* compile's and run's command line: IR files and options, up to "--"
 * (run's arguments follow it) or the end; *end is where it stopped.
 * Returns 0, or 2 after a usage error. */
static int parse_files(int argc, char **argv, cli_request *r, int *end) {
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    int rc = 0;
    if (argv[i][0] == '-' && argv[i][1])
      rc = parse_option(argc, argv, &i, r);
    else if (r->num_files < CLI_MAX_FILES)
      r->files[r->num_files++] = argv[i];
    else
      rc = usage_error("too many IR files (at most %s)", "64");
    if (rc) return rc;
  }
  *end = i;
  return 0;
}

static int cmd_compile(int argc, char **argv) {
  cli_request r = {0};
  int end, rc = parse_files(argc, argv, &r, &end);
  if (!rc && end < argc) rc = usage_error("%s", "compile takes no '--'");
  if (!rc) rc = run_compile(&r, false);
  cli_request_free(&r);
  return rc;
}

static int cmd_run(int argc, char **argv) {
  cli_request r = {0};
  int i, rc = parse_files(argc, argv, &r, &i);
  if (i < argc) i++; /* the arguments follow "--" */
  if (!rc) rc = cli_run(api, &r, argv + i, argc - i);
  cli_request_free(&r);
  return rc;
}

static int cmd_case(int argc, char **argv) {
  const char *dir = NULL;
  const char *out = NULL;
  cuplug_output output = CUPLUG_OUTPUT_PTX;
  bool check = false, run_host = false, run_gpu = false;
  cli_request cache = {0}; /* --cache-dir, --no-cache */
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--cache-dir") || !strcmp(argv[i], "--no-cache")) {
      int rc = parse_option(argc, argv, &i, &cache);
      if (rc) return rc;
    } else if (!strcmp(argv[i], "--output") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(v, "ptx"))
        output = CUPLUG_OUTPUT_PTX;
      else if (!strcmp(v, "ltoir"))
        output = CUPLUG_OUTPUT_LTOIR;
      else if (!strcmp(v, "cubin"))
        output = CUPLUG_OUTPUT_CUBIN;
      else
        return usage_error("--output is 'ptx', 'ltoir' or 'cubin', not '%s'", v);
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      out = argv[++i];
    } else if (!strcmp(argv[i], "--check")) {
      check = true;
    } else if (!strcmp(argv[i], "--run") && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "host") && strcmp(v, "gpu"))
        return usage_error("--run takes 'host' or 'gpu', not '%s'", v);
      run_host = !strcmp(v, "host");
      run_gpu = !run_host;
    } else if (argv[i][0] == '-') {
      return usage_error("unknown or incomplete option '%s' for case", argv[i]);
    } else if (!dir) {
      dir = argv[i];
    } else {
      return usage_error("case takes one folder; '%s' is a second", argv[i]);
    }
  }
  if (!dir) return usage_error("%s", "case needs a folder holding case.json");
  if ((run_host || run_gpu) && (check || out))
    return usage_error("%s", "--run takes no --check or -o");
  cli_request r = {0};
  char err[512];
  if (!cli_case_load(dir, &r, err, sizeof err)) {
    fprintf(stderr, "cuplug: error: %s\n", err);
    cli_request_free(&r);
    return 1;
  }
  r.output = run_host ? CUPLUG_OUTPUT_HOST : output;
  if (run_gpu) { /* a kernel's cubin for this GPU; a device function's LTO-IR, for a caller */
    r.output = r.kind == CUPLUG_KERNEL ? CUPLUG_OUTPUT_CUBIN : CUPLUG_OUTPUT_LTOIR;
    r.current_device = true;
  }
  r.out_path = out;
  r.cache_dir = cache.cache_dir;
  r.no_cache = cache.no_cache;
  if (run_host || run_gpu) r.run_dir = dir;
  r.run_gpu = run_gpu;
  int rc = run_compile(&r, check);
  cli_request_free(&r);
  return rc;
}

static int cmd_link(int argc, char **argv) {
  cli_request r = {0};
  for (int i = 2; i < argc; i++) {
    const char *opt = argv[i];
    if (opt[0] != '-') {
      if (r.num_links == CLI_MAX_FILES) return usage_error("%s", "too many files to link");
      r.links[r.num_links++] = opt;
    } else if (!strcmp(opt, "--debug")) {
      r.debug = true;
    } else if (!strcmp(opt, "--lineinfo")) {
      r.lineinfo = true;
    } else if (!strcmp(opt, "--no-lto") || !strcmp(opt, "-o") || !strcmp(opt, "--cc") ||
               !strcmp(opt, "--max-registers") || !strcmp(opt, "--ptx") ||
               !strcmp(opt, "--include") || !strcmp(opt, "--cache-dir") ||
               !strcmp(opt, "--no-cache")) {
      int rc = parse_option(argc, argv, &i, &r);
      if (rc) return rc;
    } else {
      return usage_error("unknown option '%s' for link", opt);
    }
  }
  if (!r.num_links) return usage_error("%s", "link needs files to link");
  if (!r.out_path) return usage_error("%s", "link needs -o OUT.cubin");
  cuplug_session *s = NULL;
  cuplug_artifact *art = NULL;
  cuplug_error *e = open_session(&r, &s);
  int rc = 0;
  if (e) return report(e);
  cuplug_code codes[CLI_MAX_FILES];
  const cuplug_code *ptrs[CLI_MAX_FILES];
  for (size_t i = 0; i < r.num_links; i++) {
    codes[i] = (cuplug_code){.struct_size = sizeof codes[i], .path = r.links[i]};
    ptrs[i] = &codes[i];
  }
  cuplug_link_args a = {.struct_size = sizeof a,
                        .session = s,
                        .code = ptrs,
                        .num_code = r.num_links,
                        .cc_major = r.cc_major,
                        .cc_minor = r.cc_minor,
                        .cc_suffix = r.cc_suffix,
                        .no_lto = r.no_lto,
                        .max_registers = r.max_registers,
                        .lineinfo = r.lineinfo,
                        .debug = r.debug,
                        .want_ptx = r.ptx_path != NULL,
                        .include_paths = r.includes,
                        .num_include_paths = r.num_includes};
  if ((e = api->link(&a))) {
    rc = report(e);
  } else {
    art = a.artifact;
    cuplug_artifact_info info = {.struct_size = sizeof info};
    if ((e = api->artifact_info(art, &info))) {
      rc = report(e);
    } else {
      if (*info.link_log) fprintf(stderr, "%s\n", info.link_log);
      if (!write_file(r.out_path, info.data, info.size)) {
        fprintf(stderr, "cuplug: error: cannot write %s: %s\n", r.out_path, strerror(errno));
        rc = 1;
      } else if (r.ptx_path) {
        rc = write_linked_ptx(art, r.ptx_path);
      }
    }
  }
  api->artifact_destroy(art);
  api->session_destroy(s);
  return rc;
}

static void print_version(const char *what, int major, int minor, const char *status) {
  if (major >= 0)
    printf("%-12s %d.%d\n", what, major, minor);
  else
    printf("%-12s not found: %s\n", what, status);
}

static int cmd_info(void) {
  cuplug_info info = {.struct_size = sizeof info};
  cuplug_error *e = api->get_info(&info);
  if (e) return report(e);
  printf("%-12s %s (ABI %u.%u)\n", "cuplug", info.cuplug_version, info.abi_major,
         info.abi_minor);
  print_version("libNVVM", info.nvvm_major, info.nvvm_minor, info.nvvm_status);
  if (info.nvvm_major >= 0) {
    printf("%-12s %d.%d (debug metadata %d.%d)\n", "NVVM IR", info.nvvm_ir_major,
           info.nvvm_ir_minor, info.nvvm_dbg_major, info.nvvm_dbg_minor);
    printf("%-12s %s\n", "libNVVM at", info.nvvm_path);
  }
  print_version("NVRTC", info.nvrtc_major, info.nvrtc_minor, info.nvrtc_status);
  print_version("nvJitLink", info.nvjitlink_major, info.nvjitlink_minor, info.nvjitlink_status);
  if (info.driver_version >= 0)
    printf("%-12s %d.%d\n", "driver", info.driver_version / 1000,
           (info.driver_version % 1000) / 10);
  else
    printf("%-12s not found: %s\n", "driver", info.driver_status);
  if (info.device_count > 0)
    printf("%-12s %d (device 0: %s, cc %d.%d)\n", "GPUs", info.device_count, info.device_name,
           info.device_cc_major, info.device_cc_minor);
  else
    printf("%-12s none (%s)\n", "GPUs", info.driver_status);
  return 0;
}

/* cuplug cache [info|clear] [--cache-dir DIR] */
static int cmd_cache(int argc, char **argv) {
  cli_request r = {0};
  const char *what = "info";
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "info") || !strcmp(argv[i], "clear")) {
      what = argv[i];
    } else if (!strcmp(argv[i], "--cache-dir")) {
      int rc = parse_option(argc, argv, &i, &r);
      if (rc) return rc;
    } else {
      return usage_error("cache takes 'info' or 'clear' and --cache-dir DIR, not '%s'",
                         argv[i]);
    }
  }
  cuplug_session *s = NULL;
  cuplug_error *e = open_session(&r, &s);
  cuplug_cache_clear_args clear = {.struct_size = sizeof clear, .session = s};
  if (!e && !strcmp(what, "clear")) e = api->cache_clear(&clear);
  cuplug_cache_info i = {.struct_size = sizeof i, .session = s};
  if (!e) e = api->cache_info(&i);
  if (!e) {
    printf("%-10s %s\n", "folder", *i.dir ? i.dir : "(none)");
    printf("%-10s %s\n", "state", i.status);
    printf("%-10s %llu, %llu bytes (at most %llu)\n", "entries",
           (unsigned long long)i.disk_entries, (unsigned long long)i.disk_bytes,
           (unsigned long long)i.max_bytes);
  }
  api->session_destroy(s);
  return e ? report(e) : 0;
}

/* Parses "a, b" or "(a, b)" into types (through a signature). */
static cuplug_error *parse_argtypes(const char *text, const cuplug_type *const **args,
                                    size_t *n) {
  size_t len = strlen(text);
  while (len && (text[len - 1] == ' ')) len--;
  while (*text == ' ') text++, len--;
  /* a list in parentheses: the outer pair goes */
  bool wrapped = len >= 2 && text[0] == '(' && text[len - 1] == ')';
  if (wrapped) {
    int depth = 0;
    for (size_t i = 0; i < len; i++) {
      depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
      if (depth == 0 && i < len - 1) wrapped = false; /* "(...)...(...)" */
    }
  }
  char *list = cli_format("void(%.*s)", (int)(wrapped ? len - 2 : len), wrapped ? text + 1 : text);
  const cuplug_type *sig = NULL;
  cuplug_error *e = api->type_parse(list, &sig);
  free(list);
  if (e) return e;
  cuplug_type_info info = {.struct_size = sizeof info, .type = sig};
  e = api->type_info(&info);
  if (e) return e;
  *args = info.args;
  *n = info.num_args;
  return NULL;
}

/* The name of a type (it has one: types are interned and named). */
static const char *type_name(const cuplug_type *t) {
  cuplug_type_info info = {.struct_size = sizeof info, .type = t};
  cuplug_error *e = api->type_info(&info);
  api->error_destroy(e);
  return e ? "?" : info.name;
}

static int cmd_resolve(int argc, char **argv) {
  bool strict = argc > 2 && !strcmp(argv[2], "--strict");
  if (strict) {
    argv++;
    argc--;
  }
  if (argc != 4) return usage_error("%s", "resolve takes [--strict] a KEY and its 'ARGTYPES'");
  const cuplug_type *const *args;
  size_t n;
  cuplug_error *e = parse_argtypes(argv[3], &args, &n);
  if (e) return report(e);
  cuplug_registry *r;
  e = api->registry_create(NULL, &r);
  if (e) return report(e);
  cuplug_conversion conv[CUPLUG_MAX_ARGS];
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = r, .key = argv[2],
                           .argtypes = args, .nargs = n, .arg_conversions = conv,
                           .flags = strict ? CUPLUG_RESOLVE_STRICT : 0};
  e = api->resolve_call(&a);
  if (!e) {
    printf("%s %s %s\n", type_name(a.signature), a.symbol,
           a.abi == CUPLUG_ABI_C ? "c" : "numba");
    cuplug_type_info sig = {.struct_size = sizeof sig, .type = a.signature};
    api->error_destroy(api->type_info(&sig));
    for (size_t i = 0; i < n; i++)
      if (conv[i] == CUPLUG_CONV_UNSAFE)
        fprintf(stderr, "cuplug: warning: argument %zu converts unsafely, %s to %s\n", i,
                type_name(args[i]), type_name(sig.args[i]));
  }
  api->registry_destroy(r);
  return e ? report(e) : 0;
}

static int print_listing(void *user, const cuplug_listing *l) {
  (void)user;
  const char *what = l->description;
  if (l->signature) {
    cuplug_type_info info = {.struct_size = sizeof info, .type = l->signature};
    cuplug_error *e = api->type_info(&info);
    if (e) {
      api->error_destroy(e);
      return 1;
    }
    what = info.name;
  }
  if (*l->extension)
    printf("%-30s %s  [extension: %s]\n", l->key, what, l->extension);
  else
    printf("%-30s %s\n", l->key, what);
  return 0;
}

static int cmd_list(int argc, char **argv) {
  if (argc > 3) return usage_error("%s", "list takes at most one PREFIX");
  cuplug_registry *r;
  cuplug_error *e = api->registry_create(NULL, &r);
  if (e) return report(e);
  e = api->registry_list(r, argc == 3 ? argv[2] : NULL, print_listing, NULL);
  api->registry_destroy(r);
  return e ? report(e) : 0;
}

int main(int argc, char **argv) {
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
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
  if (!strcmp(cmd, "compile")) return cmd_compile(argc, argv);
  if (!strcmp(cmd, "case")) return cmd_case(argc, argv);
  if (!strcmp(cmd, "run")) return cmd_run(argc, argv);
  if (!strcmp(cmd, "link")) return cmd_link(argc, argv);
  if (!strcmp(cmd, "resolve")) return cmd_resolve(argc, argv);
  if (!strcmp(cmd, "list")) return cmd_list(argc, argv);
  if (!strcmp(cmd, "info")) return cmd_info();
  if (!strcmp(cmd, "cache")) return cmd_cache(argc, argv);
  if (!strcmp(cmd, "help")) {
    fputs(usage_text, stdout);
    return 0;
  }
  return usage_error("unknown command '%s'", cmd);
}
