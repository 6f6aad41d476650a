/* options.c - the options of compile, run, link, case and cache: a table
 * of names, each storing a string, setting a flag or calling a function
 * that checks its value. */
#include "options.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "cuplug: ");
  fprintf(stderr, fmt, arg);
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

/* ---- the table ---- */

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

int cli_parse_option(int argc, char **argv, int *i, cli_request *r) {
  const char *opt = argv[*i];
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    const struct option *o = &options[k];
    if (strcmp(opt, o->name) != 0) continue;
    const char *val = NULL;
    if (o->takes_value) {
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

int cli_parse_files(int argc, char **argv, cli_request *r, int *end) {
  int i = 2;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    int rc = 0;
    if (argv[i][0] == '-' && argv[i][1])
      rc = cli_parse_option(argc, argv, &i, r);
    else if (r->num_files < CLI_MAX_FILES)
      r->files[r->num_files++] = argv[i];
    else
      rc = cli_usage("too many IR files (at most %s)", "64");
    if (rc) return rc;
  }
  *end = i;
  return 0;
}
