/* build.c - a request built, for compile and case: its IR read, its
 * declared functions registered, the compile's warnings and logs printed;
 * then the result delivered as the request asks. */
#include <stdio.h>
#include <stdlib.h>

#include "build.h"
#include "io.h"
#include "options.h"
#include "values.h"

/* What a build holds until it ends. */
typedef struct build {
  cuplug_module mods[CLI_MAX_FILES];
  const cuplug_module *mod_ptrs[CLI_MAX_FILES];
  char *texts[CLI_MAX_FILES];
  cuplug_session *session;
  cuplug_library *host_libs[CLI_MAX_FILES]; /* the declared functions' host versions */
  cuplug_artifact *art;
  cuplug_artifact_info info;
} build;

/* compile(), but for case --run gpu: a device function's code, which the
 * kernel written for its calls links, is LTO-IR where the backend makes it
 * and PTX where it does not (LLVM's NVPTX backend, which the default
 * chooses for modern IR). */
static cuplug_error *compile_for_run(const cuplug_api *api, const cli_request *r,
                                     cuplug_compile_args *a) {
  cuplug_error *e = api->compile(a);
  if (e && r->run_gpu && a->output == CUPLUG_OUTPUT_LTOIR &&
      r->backend == CUPLUG_BACKEND_DEFAULT &&
      api->error_code(e) == CUPLUG_ERR_OPTION_BACKEND) {
    api->error_destroy(e);
    a->output = CUPLUG_OUTPUT_PTX;
    e = api->compile(a);
  }
  return e;
}

/* The compile itself; its warnings and logs printed. */
static int compile(const cuplug_api *api, const cli_request *r, build *b) {
  cuplug_error *e;
  int rc = cli_read_modules(api, r, b->mods, b->mod_ptrs, b->texts);
  if (rc) return rc;
  if ((e = cli_open_session(api, r, &b->session))) return cli_report(api, e);
  if ((rc = cli_declare(api, b->session, r, b->host_libs))) return rc;
  cuplug_code codes[CLI_MAX_FILES];
  const cuplug_code *code_ptrs[CLI_MAX_FILES];
  for (size_t i = 0; i < r->num_links; i++) {
    codes[i] = (cuplug_code){.struct_size = sizeof codes[i], .path = r->links[i]};
    code_ptrs[i] = &codes[i];
  }
  cuplug_compile_args a = cli_compile_args(r, b->session, b->mod_ptrs);
  a.link = code_ptrs;
  a.num_link = r->num_links;
  if ((e = compile_for_run(api, r, &a))) return cli_report(api, e);
  b->art = a.artifact;
  b->info = (cuplug_artifact_info){.struct_size = sizeof b->info};
  if ((e = api->artifact_info(b->art, &b->info))) return cli_report(api, e);
  cli_tell(api, b->art, &b->info, r->verbose);
  if (*b->info.log) fprintf(stderr, "%s\n", b->info.log);
  if (*b->info.link_log) fprintf(stderr, "%s\n", b->info.link_log);
  return 0;
}

void cli_tell(const cuplug_api *api, const cuplug_artifact *art,
              const cuplug_artifact_info *info, bool verbose) {
  for (size_t i = 0; i < info->num_warnings; i++) {
    const cuplug_error *w = api->artifact_warning(art, i);
    fprintf(stderr, "cuplug: warning: %s: %s\n", api->status_name(api->error_code(w)),
            api->error_message(w));
  }
  if (!verbose) return;
  static const char *const where[] = {
      [CUPLUG_CACHE_NONE] = "built (no cache)", [CUPLUG_CACHE_MISS] = "built, and stored",
      [CUPLUG_CACHE_MEMORY] = "memory cache",   [CUPLUG_CACHE_DISK] = "disk cache",
      [CUPLUG_CACHE_REMOTE] = "remote cache"};
  fprintf(stderr, "cuplug: result: %s\n",
          info->cache <= CUPLUG_CACHE_REMOTE ? where[info->cache] : "?");
  for (size_t i = 0; i < info->num_stages; i++) {
    cuplug_artifact_stage_args s = {.struct_size = sizeof s, .artifact = art, .index = i};
    cuplug_error *e = api->artifact_stage(&s);
    if (e) {
      api->error_destroy(e);
      continue;
    }
    fprintf(stderr, "cuplug: stage %-18s %10.3f ms\n", s.name, (double)s.nanoseconds / 1e6);
  }
}

/* The result, as the request asks: its IR and linked PTX written, then
 * run on values.json, or checked and written (-o, else standard output). */
static int deliver(const cuplug_api *api, const cli_request *r, const build *b, bool check) {
  const cuplug_artifact_info *info = &b->info;
  int rc = 0;
  if (r->emit_ir_dir && (rc = cli_emit_ir(api, b->art, r->emit_ir_dir, info->num_ir_modules)))
    return rc;
  if (r->run_dir) return cli_case_run(api, b->session, b->art, r);
  if (r->ptx_path && (rc = cli_write_linked_ptx(api, b->art, r->ptx_path))) return rc;
  if (check) {
    rc = cli_check_ptx(api, info, r->expected_ptx);
    if (!r->out_path) return rc;
  }
  const char *out = r->out_path ? r->out_path : "-";
  if (info->output != CUPLUG_OUTPUT_PTX &&
      cli_binary_to_terminal(out, info->output == CUPLUG_OUTPUT_CUBIN ? "cubin" : "LTO-IR",
                             info->size, info->symbol))
    return 1;
  return cli_write_output(api, out, info->data, info->size) ? 1 : rc;
}

int cli_build(const cuplug_api *api, const cli_request *r, bool check) {
  if (!r->num_files) return cli_usage("%s", "compile needs an IR file");
  if (!r->entry) return cli_usage("%s", "compile needs --entry SYMBOL");
  if (check && r->output != CUPLUG_OUTPUT_PTX)
    return cli_usage("%s", "--check compares PTX: leave --output at ptx");
  build b = {0};
  int rc = compile(api, r, &b);
  if (!rc) rc = deliver(api, r, &b, check);
  api->artifact_destroy(b.art);
  /* the host versions last: what called them (a case's run) has ended */
  for (size_t i = 0; i < r->num_decls; i++)
    if (b.host_libs[i]) api->library_unload(b.host_libs[i]);
  api->session_destroy(b.session);
  for (size_t i = 0; i < r->num_files; i++) free(b.texts[i]);
  return rc;
}
