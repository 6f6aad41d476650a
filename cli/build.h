/* build.h - a request built, as compile and case do: the compile with its
 * declared functions (build.c, declare.c), then what the request asks of
 * the result: its IR and linked PTX written (emit.c), its PTX checked
 * (check.c), its values run (values_run.c) or the artifact written. */
#ifndef CUPLUG_CLI_BUILD_H
#define CUPLUG_CLI_BUILD_H

#include <stdbool.h>

#include "cli.h"

/* Builds the request; `check` compares its PTX with r->expected_ptx.
 * Returns the exit status. */
int cli_build(const cuplug_api *api, const cli_request *r, bool check);

/* Registers the request's declared functions with the session (and, for
 * the host, their host implementations, loaded into libs[i]: unload them
 * after the compile's own library); reports an error, returns 1. */
int cli_declare(const cuplug_api *api, cuplug_session *s, const cli_request *r,
                cuplug_library **libs);

/* Compares the result's PTX signature with the expected PTX's; 1 after
 * saying how they differ. */
int cli_check_ptx(const cuplug_api *api, const cuplug_artifact_info *info,
                  const char *expected_path);

/* Prints an artifact's warnings on standard error and, with `verbose`,
 * where it came from and the time of each stage. */
void cli_tell(const cuplug_api *api, const cuplug_artifact *art,
              const cuplug_artifact_info *info, bool verbose);

/* Writes the n IR modules the artifact kept to DIR/<index>-<file>.ll. */
int cli_emit_ir(const cuplug_api *api, const cuplug_artifact *art, const char *dir, size_t n);
/* Writes an artifact's linked PTX (its part of kind PTX after the cubin). */
int cli_write_linked_ptx(const cuplug_api *api, const cuplug_artifact *art, const char *path);

#endif
