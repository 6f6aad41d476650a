/* request.c - a request's lifetime, and the request in the plugin's terms:
 * the session options and the compile arguments it stands for. */
#include <stdlib.h>

#include "cli.h"

const char *cli_own(cli_request *r, char *s) {
  if (s && r->num_owned < sizeof r->owned / sizeof r->owned[0]) r->owned[r->num_owned++] = s;
  return s;
}

void cli_request_free(cli_request *r) {
  for (size_t i = 0; i < r->num_owned; i++) free(r->owned[i]);
  r->num_owned = 0;
}

cuplug_error *cli_open_session(const cuplug_api *api, const cli_request *r,
                               cuplug_session **s) {
  cuplug_session_options o = {.struct_size = sizeof o,
                              .cache_dir = r->cache_dir,
                              .cache_remote = r->cache_remote,
                              .flags = r->no_cache ? CUPLUG_SESSION_NO_CACHE : 0};
  return api->session_create(&o, s);
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
      .backend = r->backend,
  };
}
