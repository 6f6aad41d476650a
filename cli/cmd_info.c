/* cmd_info.c - `cuplug info` and `cuplug cache`: what the tool finds, the
 * CUDA libraries and GPU, and the result cache's state. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "io.h"
#include "options.h"

static void print_version(const char *what, int major, int minor, const char *status) {
  if (major >= 0)
    printf("%-12s %d.%d\n", what, major, minor);
  else
    printf("%-12s not found: %s\n", what, status);
}

int cli_cmd_info(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int rc = cli_parse_all(CLI_INFO, "info", argc, argv, &r);
  if (rc) return rc;
  if (r.num_files) return cli_usage("info takes no arguments, not '%s'", r.files[0]);
  cuplug_info info = {.struct_size = sizeof info};
  cuplug_error *e = api->get_info(&info);
  if (e) return cli_report(api, e);
  printf("%-12s %s (ABI %u.%u)\n", "cuplug", info.cuplug_version, info.abi_major,
         info.abi_minor);
  print_version("libNVVM", info.nvvm_major, info.nvvm_minor, info.nvvm_status);
  if (info.nvvm_major >= 0) {
    printf("%-12s %d.%d (debug metadata %d.%d)\n", "NVVM IR", info.nvvm_ir_major,
           info.nvvm_ir_minor, info.nvvm_dbg_major, info.nvvm_dbg_minor);
    printf("%-12s %s\n", "libNVVM at", info.nvvm_path);
  }
  printf("%-12s %s\n", "LLVM", info.llvm_version);
  printf("%-12s %s\n", "NVPTX", info.nvptx_status);
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
int cli_cmd_cache(const cuplug_api *api, int argc, char **argv) {
  cli_request r = {0};
  int rc = cli_parse_all(CLI_CACHE, "cache", argc, argv, &r);
  if (rc) return rc;
  const char *what = r.num_files ? r.files[0] : "info";
  if (strcmp(what, "info") && strcmp(what, "clear"))
    return cli_usage("cache takes 'info' or 'clear' and --cache-dir DIR, not '%s'", what);
  if (r.num_files > 1) return cli_usage("cache does one thing; '%s' is a second", r.files[1]);
  cuplug_session *s = NULL;
  cuplug_error *e = cli_open_session(api, &r, &s);
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
    printf("%-10s %s\n", "remote", *i.remote ? i.remote : "(none)");
    if (*i.remote) {
      printf("%-10s %s\n", "its state", i.remote_status);
      printf("%-10s %llu hits, %llu misses, %llu stores, %llu refused, %llu errors\n",
             "this run", (unsigned long long)i.remote_hits,
             (unsigned long long)i.remote_misses, (unsigned long long)i.remote_stores,
             (unsigned long long)i.remote_refused, (unsigned long long)i.remote_errors);
    }
  }
  api->session_destroy(s);
  return e ? cli_report(api, e) : 0;
}
