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

/* A signature, checked to be one whose argument count is the number of
 * values given; `text` names it in messages (the --sig given, else the
 * IR's). */
static int check_signature(const cuplug_api *api, const cuplug_type *sig, const char *text,
                           int num_values, cuplug_type_info *ti) {
  *ti = (cuplug_type_info){.struct_size = sizeof *ti, .type = sig};
  cuplug_error *e = api->type_info(ti);
  if (e) return cli_fail(api, e);
  if (!text) text = ti->name;
  if (ti->kind != CUPLUG_TYPE_SIGNATURE)
    return cli_usage("--sig %s is a type, not a signature", text);
  if ((size_t)num_values != ti->num_args)
    return usage_message(cli_format("%s takes %zu arguments, %d given after --", text,
                                    ti->num_args, num_values));
  if (ti->num_args > MAX_ARGS) return cli_usage("%s", "at most 256 arguments");
  return 0;
}

/* The request's --sig, parsed; NULL when there is none (the IR gives it). */
static int parse_signature(const cuplug_api *api, const cli_request *r, const cuplug_type **sig) {
  *sig = NULL;
  if (!r->num_files) return cli_usage("%s", "run needs an IR file");
  if (!r->entry) return cli_usage("%s", "run needs --entry SYMBOL");
  if (!r->signature) return 0;
  cuplug_error *e = api->type_parse(r->signature, sig);
  return e ? cli_fail(api, e) : 0;
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

/* A run: the function compiled for the host and loaded. */
typedef struct run {
  char *texts[CLI_MAX_FILES];
  cuplug_session *session;
  cuplug_artifact *art;
  cuplug_library *lib;
  const cuplug_type *signature; /* the artifact's: --sig's, or the IR's */
} run;

static int load(const cuplug_api *api, const cli_request *r, run *u) {
  cuplug_module mods[CLI_MAX_FILES];
  const cuplug_module *mod_ptrs[CLI_MAX_FILES];
  int rc = cli_read_modules(api, r, mods, mod_ptrs, u->texts);
  cuplug_error *e = NULL;
  if (rc || (e = api->session_create(NULL, &u->session))) goto done;
  cuplug_compile_args a = cli_compile_args(r, u->session, mod_ptrs);
  a.output = CUPLUG_OUTPUT_HOST;
  if ((e = api->compile(&a))) goto done;
  u->art = a.artifact;
  cuplug_artifact_info info = {.struct_size = sizeof info};
  if ((e = api->artifact_info(u->art, &info))) goto done;
  u->signature = info.signature;
  cuplug_load_args l = {.struct_size = sizeof l, .session = u->session, .artifact = u->art};
  if ((e = api->load(&l))) goto done;
  u->lib = l.library;
done:
  return e ? cli_run_fail(api, e) : rc;
}

static void run_free(const cuplug_api *api, const cli_request *r, run *u) {
  api->library_unload(u->lib);
  api->artifact_destroy(u->art);
  api->session_destroy(u->session);
  for (size_t i = 0; i < r->num_files; i++) free(u->texts[i]);
}

/* The loaded function called; its result in `result`. */
static int call(const cuplug_api *api, const run *u, cuplug_value *args, size_t nargs,
                uint64_t result[2]) {
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = u->lib, .args = args,
                             .num_args = nargs, .result = result,
                             .result_size = 2 * sizeof *result, .interrupt = cli_sigint_flag};
  cuplug_error *e = api->host_call(&c);
  return e ? cli_run_fail(api, e) : 0;
}

int cli_cmd_run(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int i = argc, rc = cli_parse_files(CLI_RUN, argc, argv, &r, &i);
  if (i < argc) i++; /* the arguments follow "--" */
  int num_values = argc - i;
  const cuplug_type *sig = NULL;
  cuplug_type_info ti;
  uint64_t slots[MAX_ARGS][2];
  cuplug_value args[MAX_ARGS];
  uint64_t result[2] = {0};
  run u = {0};
  /* the values are read before the compile when --sig is given; else
   * after it, as the IR's signature says */
  if (!rc) rc = parse_signature(api, &r, &sig);
  if (!rc && sig) rc = check_signature(api, sig, r.signature, num_values, &ti);
  if (!rc && sig) rc = read_args(api, &ti, argv + i, slots, args);
  if (!rc) {
    cli_sigint_catch(); /* from the compile on: a Ctrl-C then stops the call at once */
    rc = load(api, &r, &u);
    if (!rc && !sig) rc = check_signature(api, u.signature, NULL, num_values, &ti);
    if (!rc && !sig) rc = read_args(api, &ti, argv + i, slots, args);
    if (!rc) rc = call(api, &u, args, ti.num_args, result);
    cli_sigint_release();
  }
  if (!rc) { /* before the artifact goes: the IR's signature is its */
    cuplug_type_info ri = {.struct_size = sizeof ri, .type = ti.restype};
    api->type_info(&ri);
    cli_scalar_print(ri.kind, result);
    printf("\n");
  }
  run_free(api, &r, &u);
  cli_request_free(&r);
  return rc;
}
