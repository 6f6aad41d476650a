/* cmd_compile.c - `cuplug compile` and `cuplug case`: one request, from
 * flags or from a conformance case folder, built by build.c. */
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "commands.h"
#include "options.h"

int cli_cmd_compile(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int end, rc = cli_parse_files(argc, argv, &r, &end);
  if (!rc && end < argc) rc = cli_usage("%s", "compile takes no '--'");
  if (!rc) rc = cli_build(api, &r, false);
  cli_request_free(&r);
  return rc;
}

/* What case's command line asks; --cache-dir and --no-cache are read as
 * the other commands read them, into `cache`. */
typedef struct case_flags {
  const char *dir;
  const char *out;
  cuplug_output output;
  bool check, run_host, run_gpu;
  cli_request cache; /* --cache-dir, --no-cache */
} case_flags;

static int parse_case_flags(int argc, char **argv, case_flags *f) {
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--cache-dir") || !strcmp(argv[i], "--no-cache")) {
      int rc = cli_parse_option(argc, argv, &i, &f->cache);
      if (rc) return rc;
    } else if (!strcmp(argv[i], "--output") && i + 1 < argc) {
      const char *v = argv[++i];
      if (!strcmp(v, "ptx"))
        f->output = CUPLUG_OUTPUT_PTX;
      else if (!strcmp(v, "ltoir"))
        f->output = CUPLUG_OUTPUT_LTOIR;
      else if (!strcmp(v, "cubin"))
        f->output = CUPLUG_OUTPUT_CUBIN;
      else
        return cli_usage("--output is 'ptx', 'ltoir' or 'cubin', not '%s'", v);
    } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
      f->out = argv[++i];
    } else if (!strcmp(argv[i], "--check")) {
      f->check = true;
    } else if (!strcmp(argv[i], "--run") && i + 1 < argc) {
      const char *v = argv[++i];
      if (strcmp(v, "host") && strcmp(v, "gpu"))
        return cli_usage("--run takes 'host' or 'gpu', not '%s'", v);
      f->run_host = !strcmp(v, "host");
      f->run_gpu = !f->run_host;
    } else if (argv[i][0] == '-') {
      return cli_usage("unknown or incomplete option '%s' for case", argv[i]);
    } else if (!f->dir) {
      f->dir = argv[i];
    } else {
      return cli_usage("case takes one folder; '%s' is a second", argv[i]);
    }
  }
  if (!f->dir) return cli_usage("%s", "case needs a folder holding case.json");
  if ((f->run_host || f->run_gpu) && (f->check || f->out))
    return cli_usage("%s", "--run takes no --check or -o");
  return 0;
}

int cli_cmd_case(const cuplug_api *api, int argc, char **argv) {
  case_flags f = {.output = CUPLUG_OUTPUT_PTX};
  int rc = parse_case_flags(argc, argv, &f);
  if (rc) return rc;
  cli_request r = {0};
  char err[512];
  if (!cli_case_load(f.dir, &r, err, sizeof err)) {
    fprintf(stderr, "cuplug: error: %s\n", err);
    cli_request_free(&r);
    return 1;
  }
  r.output = f.run_host ? CUPLUG_OUTPUT_HOST : f.output;
  if (f.run_gpu) { /* a kernel's cubin for this GPU; a device function's LTO-IR, for a caller */
    r.output = r.kind == CUPLUG_KERNEL ? CUPLUG_OUTPUT_CUBIN : CUPLUG_OUTPUT_LTOIR;
    r.current_device = true;
  }
  r.out_path = f.out;
  r.cache_dir = f.cache.cache_dir;
  r.no_cache = f.cache.no_cache;
  if (f.run_host || f.run_gpu) r.run_dir = f.dir;
  r.run_gpu = f.run_gpu;
  rc = cli_build(api, &r, f.check);
  cli_request_free(&r);
  return rc;
}
