/* values.h - values.json's inputs and outputs, read and compared (values.c),
 * and the runs of a case on them: on the host, and a kernel's launches on
 * the GPU (values_run.c); a device function's calls on the GPU
 * (values_gpu.c). */
#ifndef CUPLUG_CLI_VALUES_H
#define CUPLUG_CLI_VALUES_H

#include "cli.h"
#include "json.h"

/* What a run compared, and how far a float may be. */
typedef struct checker {
  const cuplug_api *api;
  const char *dir;
  double ulps;
  size_t compared, exact, mismatched;
} checker;

/* The type's kind, with its info filled. */
int values_kind_of(const cuplug_api *api, const cuplug_type *t, cuplug_type_info *info);
/* Bytes of a scalar or pointer kind; 0 for others. */
size_t values_size_of(cuplug_type_kind k);
/* Stores a JSON value as a C value of kind k at p; false when it is none
 * (for an integer kind: not an integer, or out of the kind's range). */
bool values_store(cuplug_type_kind k, const json *v, void *p);
/* Compares one C value with the expected JSON value (within c->ulps for
 * floats); says where the first few mismatches are; false on a mismatch. */
bool values_compare(checker *c, cuplug_type_kind k, const void *got, const json *want,
                    const char *where, size_t index);
/* An array's elements from JSON ({"dtype": "float32", "data": [...]}), in
 * a buffer of their C type (free it); NULL when it is not one. */
void *values_read_buffer(const json *a, cuplug_type_kind *dtype, size_t *count);

/* `cuplug case DIR --run host|gpu` (values_run.c): runs the case's artifact
 * (for the host; for the GPU a cubin, or a device function's LTO-IR) on
 * r->run_dir's values.json inputs and compares with its outputs. */
int cli_case_run(const cuplug_api *api, cuplug_session *session, const cuplug_artifact *art,
                 const cli_request *r);
/* A device function's calls on the GPU (values_gpu.c): `art` is its
 * LTO-IR (or PTX), which a kernel written for the calls links. */
int values_gpu_calls(checker *c, cuplug_session *session, const cuplug_artifact *art,
                     const cli_request *r, const json *calls);

#endif
