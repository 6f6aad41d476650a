/* cmd_run.c - `cuplug run`: a device function compiled for this CPU and
 * called with arguments from the command line, its result printed on one
 * line as Python writes it (scalars.c).  Ctrl-C stops the call (sigint.c). */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "io.h"
#include "options.h"
#include "scalars.h"
#include "sigint.h"

#define MAX_ARGS 256

/* A usage error whose message is m (freed); returns 2. */
static int usage_message(char *m) {
  int rc = cli_usage("%s", m);
  free(m);
  return rc;
}

/* The request's signature, checked to be one whose argument count is the
 * number of values given. */
static int read_signature(const cuplug_api *api, const cli_request *r, int num_values,
                          cuplug_type_info *ti) {
  if (!r->num_files) return cli_usage("%s", "run needs an IR file");
  if (!r->entry) return cli_usage("%s", "run needs --entry SYMBOL");
  if (!r->signature) return cli_usage("%s", "run needs --sig SIGNATURE");
  const cuplug_type *sig;
  cuplug_error *e = api->type_parse(r->signature, &sig);
  if (e) return cli_fail(api, e);
  *ti = (cuplug_type_info){.struct_size = sizeof *ti, .type = sig};
  if ((e = api->type_info(ti))) return cli_fail(api, e);
  if (ti->kind != CUPLUG_TYPE_SIGNATURE)
    return cli_usage("--sig %s is a type, not a signature", r->signature);
  if ((size_t)num_values != ti->num_args)
    return usage_message(cli_format("%s takes %zu arguments, %d given after --", r->signature,
                                    ti->num_args, num_values));
  if (ti->num_args > MAX_ARGS) return cli_usage("%s", "at most 256 arguments");
  return 0;
}

/* Every argument's value read from its text as its type, in a slot of 16
 * bytes. */
static int read_args(const cuplug_api *api, const cuplug_type_info *ti, char **values,
                     uint64_t (*slots)[2], cuplug_value *args) {
  for (size_t i = 0; i < ti->num_args; i++) {
    cuplug_type_info ai = {.struct_size = sizeof ai, .type = ti->args[i]};
    api->type_info(&ai);
    if (!cli_scalar_read(ai.kind, values[i], slots[i]))
      return usage_message(cli_format("argument %zu: '%s' is not a %s", i, values[i], ai.name));
    args[i] = (cuplug_value){ai.kind, slots[i]};
  }
  return 0;
}

/* The function compiled for the host, loaded and called; its result in
 * `result`. */
static int call(const cuplug_api *api, const cli_request *r, cuplug_value *args, size_t nargs,
                uint64_t result[2]) {
  cuplug_module mods[CLI_MAX_FILES];
  const cuplug_module *mod_ptrs[CLI_MAX_FILES];
  char *texts[CLI_MAX_FILES] = {0};
  cuplug_session *session = NULL;
  cuplug_artifact *art = NULL;
  cuplug_library *lib = NULL;
  cuplug_error *e = NULL;
  int rc = cli_read_modules(api, r, mods, mod_ptrs, texts);
  if (rc || (e = api->session_create(NULL, &session))) goto done;
  cuplug_compile_args a = cli_compile_args(r, session, mod_ptrs);
  a.output = CUPLUG_OUTPUT_HOST;
  if ((e = api->compile(&a))) goto done;
  art = a.artifact;
  cuplug_load_args l = {.struct_size = sizeof l, .session = session, .artifact = art};
  if ((e = api->load(&l))) goto done;
  lib = l.library;
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = lib, .args = args,
                             .num_args = nargs, .result = result,
                             .result_size = 2 * sizeof *result, .interrupt = cli_sigint_flag};
  e = api->host_call(&c);
done:
  if (e) rc = cli_run_fail(api, e);
  api->library_unload(lib);
  api->artifact_destroy(art);
  api->session_destroy(session);
  for (size_t i = 0; i < r->num_files; i++) free(texts[i]);
  return rc;
}

int cli_cmd_run(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int i = argc, rc = cli_parse_files(CLI_RUN, argc, argv, &r, &i);
  if (i < argc) i++; /* the arguments follow "--" */
  cuplug_type_info ti;
  uint64_t slots[MAX_ARGS][2];
  cuplug_value args[MAX_ARGS];
  uint64_t result[2] = {0};
  if (!rc) rc = read_signature(api, &r, argc - i, &ti);
  if (!rc) rc = read_args(api, &ti, argv + i, slots, args);
  if (!rc) {
    cli_sigint_catch(); /* from the compile on: a Ctrl-C then stops the call at once */
    rc = call(api, &r, args, ti.num_args, result);
    cli_sigint_release();
  }
  if (!rc) {
    cuplug_type_info ri = {.struct_size = sizeof ri, .type = ti.restype};
    api->type_info(&ri);
    cli_scalar_print(ri.kind, result);
    printf("\n");
  }
  cli_request_free(&r);
  return rc;
}
