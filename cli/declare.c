/* declare.c - the request's declared device functions (--declare-device,
 * case.json's declare_device) registered with the session, each with the
 * code it links and, for a run on the host, its host implementation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "io.h"

/* A declared function's host implementation: its NVVM IR compiled for this
 * CPU as a C function, loaded (*lib: unload it after what calls it). */
static cuplug_error *host_implementation(const cuplug_api *api, cuplug_session *s,
                                         const cli_decl *d, char *text, size_t size,
                                         cuplug_library **lib, void **address) {
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

/* The host implementation read from d->host_ir and loaded. */
static int load_host(const cuplug_api *api, cuplug_session *s, const cli_decl *d,
                     cuplug_library **lib, void **address) {
  size_t size;
  char *text = cli_read_file(d->host_ir, &size);
  if (!text)
    return cli_io_error(api, "cannot read %s (the host implementation of %s): %s", d->host_ir,
                        d->name, strerror(errno));
  cuplug_error *e = host_implementation(api, s, d, text, size, lib, address);
  free(text);
  return e ? cli_report(api, e) : 0;
}

int cli_declare(const cuplug_api *api, cuplug_session *s, const cli_request *r,
                cuplug_library **libs) {
  for (size_t i = 0; i < r->num_decls; i++) {
    const cli_decl *d = &r->decls[i];
    void *host = NULL;
    if (d->host_ir && r->output == CUPLUG_OUTPUT_HOST && load_host(api, s, d, &libs[i], &host))
      return 1;
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
    if (e) return cli_report(api, e);
  }
  return 0;
}
