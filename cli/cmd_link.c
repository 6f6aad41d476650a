/* cmd_link.c - `cuplug link`: code of every kind nvJitLink takes (.cu
 * through NVRTC, .ptx, .ltoir, .cubin, .fatbin, .o, .a) linked into a
 * cubin. */
#include <stdio.h>

#include "build.h"
#include "commands.h"
#include "io.h"
#include "options.h"

/* The files to link, and the options link shares with compile. */
static int parse_link(int argc, char **argv, cli_request *r) {
  int rc = cli_parse_all(CLI_LINK, "link", argc, argv, r);
  if (rc) return rc;
  if (!r->num_files) return cli_usage("%s", "link needs files to link");
  if (!r->out_path) return cli_usage("%s", "link needs -o OUT.cubin");
  return 0;
}

/* The link in session s; the cubin (and the linked PTX) written. */
static int link_files(const cuplug_api *api, cuplug_session *s, const cli_request *r) {
  cuplug_code codes[CLI_MAX_FILES];
  const cuplug_code *ptrs[CLI_MAX_FILES];
  for (size_t i = 0; i < r->num_files; i++) {
    codes[i] = (cuplug_code){.struct_size = sizeof codes[i], .path = r->files[i]};
    ptrs[i] = &codes[i];
  }
  cuplug_link_args a = {.struct_size = sizeof a,
                        .session = s,
                        .code = ptrs,
                        .num_code = r->num_files,
                        .cc_major = r->cc_major,
                        .cc_minor = r->cc_minor,
                        .cc_suffix = r->cc_suffix,
                        .no_lto = r->no_lto,
                        .max_registers = r->max_registers,
                        .lineinfo = r->lineinfo,
                        .debug = r->debug,
                        .want_ptx = r->ptx_path != NULL,
                        .include_paths = r->includes,
                        .num_include_paths = r->num_includes};
  cuplug_error *e = api->link(&a);
  if (e) return cli_report(api, e);
  cuplug_artifact_info info = {.struct_size = sizeof info};
  int rc;
  if ((e = api->artifact_info(a.artifact, &info))) {
    rc = cli_report(api, e);
  } else {
    cli_tell(api, a.artifact, &info, r->verbose);
    if (*info.link_log) fprintf(stderr, "%s\n", info.link_log);
    rc = cli_binary_to_terminal(r->out_path, "cubin", info.size, NULL)
             ? 1
             : cli_write_output(api, r->out_path, info.data, info.size);
    if (!rc && r->ptx_path) rc = cli_write_linked_ptx(api, a.artifact, r->ptx_path);
  }
  api->artifact_destroy(a.artifact);
  return rc;
}

int cli_cmd_link(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int rc = parse_link(argc, argv, &r);
  if (rc) return rc;
  cuplug_session *s = NULL;
  cuplug_error *e = cli_open_session(api, &r, &s);
  if (e) return cli_report(api, e);
  rc = link_files(api, s, &r);
  api->session_destroy(s);
  return rc;
}
