/* cli.h - the request every build command works from: what the flags
 * (options.c) or a case folder (case.c) ask for, and its arguments in the
 * plugin's terms (request.c). */
#ifndef CUPLUG_CLI_H
#define CUPLUG_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"

#define CLI_MAX_FILES 64
#define CLI_MAX_BOUNDS 16

/* A declared device function: NAME=SIG, its ABI, its files. */
typedef struct cli_decl {
  const char *name;
  const char *signature;
  cuplug_abi abi;
  const char *links[CLI_MAX_FILES];
  size_t num_links;
  /* its implementation on the host (case.json's "host"): NVVM IR defining
   * the symbol, and the signature of that C function */
  const char *host_ir;
  const char *host_signature;
} cli_decl;

/* One compile, as flags or a case folder describe it. */
typedef struct cli_request {
  const char *files[CLI_MAX_FILES];
  size_t num_files;
  const char *entry;
  const char *signature;
  const char *abi_name;
  cuplug_abi entry_abi, abi;
  cuplug_function_kind kind;
  cuplug_output output;
  cuplug_backend backend;                 /* --backend: what makes the PTX */
  uint32_t cc_major, cc_minor, cc_suffix; /* cc_suffix: 0, 'a' or 'f' */
  bool current_device;
  int32_t opt;
  bool debug, lineinfo, fastmath, forceinline;
  uint32_t launch_bounds[CLI_MAX_BOUNDS];
  size_t num_launch_bounds;
  uint32_t max_registers;
  const char *out_path;
  const char *emit_ir_dir;
  const char *expected_ptx; /* case --check */
  const char *links[CLI_MAX_FILES]; /* --link */
  size_t num_links;
  cli_decl decls[CLI_MAX_FILES];    /* --declare-device[-c], case.json */
  size_t num_decls;
  const char *includes[CLI_MAX_FILES]; /* --include */
  size_t num_includes;
  bool no_lto;
  const char *ptx_path;             /* --ptx: the linked PTX */
  const char *cache_dir;            /* --cache-dir ("" : memory only) */
  const char *cache_remote;         /* --cache-remote URL ("": none) */
  bool verbose;                     /* --verbose: where the result came from, its stages */
  bool no_cache;                    /* --no-cache */
  bool check;                       /* case --check */
  bool run_host, run_gpu;           /* case --run host, --run gpu */
  const char *run_dir;              /* case --run: the folder whose values.json to run */
  bool strict;                      /* resolve --strict */
  /* strings the request owns (from case.json) */
  char *owned[CLI_MAX_FILES * 8];
  size_t num_owned;
} cli_request;

/* Keeps a string alive as long as the request; returns it. */
const char *cli_own(cli_request *r, char *s);
void cli_request_free(cli_request *r);

/* The session a command works in: its cache as the request says. */
cuplug_error *cli_open_session(const cuplug_api *api, const cli_request *r,
                               cuplug_session **s);
/* compile()'s arguments for the request, its options all set (not its
 * --link code, which the caller reads). */
cuplug_compile_args cli_compile_args(const cli_request *r, cuplug_session *session,
                                     const cuplug_module *const *mods);

/* Fills a request from DIR/case.json's text (NUL-terminated), which names
 * files in DIR; returns false with a message. */
bool cli_case_parse(const char *text, const char *dir, cli_request *r, char *err, size_t cap);

#endif
