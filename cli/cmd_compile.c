/* cmd_compile.c - `cuplug compile` and `cuplug case`: one request, from
 * flags or from a conformance case folder, built by build.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "commands.h"
#include "io.h"
#include "options.h"

int cli_cmd_compile(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int rc = cli_parse_all(CLI_COMPILE, "compile", argc, argv, &r);
  if (!rc) rc = cli_build(api, &r, false);
  cli_request_free(&r);
  return rc;
}

/* What case's command line asks, checked: one folder, and --run alone. */
static int parse_case_flags(int argc, char **argv, cli_request *f) {
  f->output = CUPLUG_OUTPUT_PTX;
  int rc = cli_parse_all(CLI_CASE, "case", argc, argv, f);
  if (rc) return rc;
  if (!f->num_files) return cli_usage("%s", "case needs a folder holding case.json");
  if (f->num_files > 1) return cli_usage("case takes one folder; '%s' is a second", f->files[1]);
  if ((f->run_host || f->run_gpu) && (f->check || f->out_path))
    return cli_usage("%s", "--run takes no --check or -o");
  return 0;
}

int cli_cmd_case(const cuplug_api *api, int argc, char **argv) {
  cli_request f = {0};
  int rc = parse_case_flags(argc, argv, &f);
  if (rc) return rc;
  const char *dir = f.files[0];
  char *path = cli_format("%s/case.json", dir);
  size_t size;
  char *text = cli_read_file(path, &size);
  if (!text) rc = cli_io_error(api, "cannot read %s: %s", path, strerror(errno));
  free(path);
  if (rc) return rc;
  cli_request r = {0};
  char err[512];
  bool ok = cli_case_parse(text, dir, &r, err, sizeof err);
  free(text);
  if (!ok) {
    fprintf(stderr, "cuplug: error: %s\n", err);
    cli_request_free(&r);
    return 1;
  }
  r.output = f.run_host ? CUPLUG_OUTPUT_HOST : f.output;
  if (f.cc_major || f.current_device) { /* --cc over case.json's */
    r.cc_major = f.cc_major, r.cc_minor = f.cc_minor, r.cc_suffix = f.cc_suffix;
    r.current_device = f.current_device;
  }
  /* a kernel's cubin for this GPU; a device function's code, for a caller:
   * LTO-IR, or PTX from LLVM's NVPTX backend, which makes no LTO-IR */
  if (f.run_gpu) {
    r.output = r.kind == CUPLUG_KERNEL               ? CUPLUG_OUTPUT_CUBIN
               : f.backend == CUPLUG_BACKEND_LLVM ? CUPLUG_OUTPUT_PTX
                                                   : CUPLUG_OUTPUT_LTOIR;
    r.current_device = true;
  }
  r.backend = f.backend;
  r.out_path = f.out_path;
  r.cache_dir = f.cache_dir;
  r.no_cache = f.no_cache;
  r.cache_remote = f.cache_remote;
  r.verbose = f.verbose;
  if (f.run_host || f.run_gpu) r.run_dir = dir;
  r.run_gpu = f.run_gpu;
  rc = cli_build(api, &r, f.check);
  cli_request_free(&r);
  return rc;
}
