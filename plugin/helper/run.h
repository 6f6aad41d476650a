/* run.h - where a toolkit job runs: in a helper process (helpers.h), the
 * default, or in this process when the session trusts its inputs
 * (CUPLUG_SESSION_TRUSTED).  A session has one runner; the compilers
 * (plugin/compilers/) hand it their jobs. */
#ifndef CUPLUG__PLUGIN_HELPER_RUN_H
#define CUPLUG__PLUGIN_HELPER_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/helper/helpers.h"
#include "plugin/toolkit/tool.h"
#include "plugin/toolkit/toolkit.h"

/* How long a toolkit call may run before cuplug stops it, by default:
 * libNVVM compiles numba-cuda's largest kernels in seconds, so a call that
 * runs two minutes is stuck. */
#define CUPLUG__DEFAULT_TIME_LIMIT_MS 120000u

typedef struct cuplug__runner {
  cuplug__toolkit *toolkit; /* the libraries as this process found them */
  bool in_process;          /* run them here, not in helper processes */
  uint32_t time_limit_ms;   /* a helper's job is stopped after this long */
  cuplug__helpers helpers;  /* idle helpers, kept warm */
} cuplug__runner;

/* time_limit_ms 0: CUPLUG__DEFAULT_TIME_LIMIT_MS. */
void cuplug__runner_init(cuplug__runner *r, cuplug__toolkit *tk, bool in_process,
                         uint32_t time_limit_ms);
/* Stops the idle helpers; no job may be under way. */
void cuplug__runner_release(cuplug__runner *r);

/* A job under way.  The job (and what it points to) must live until it
 * is finished or cancelled. */
typedef struct cuplug__running {
  const cuplug__tool_job *job;
  bool here;
  cuplug__pending pending;
  cuplug__tool_times times; /* once finished (tool.h) */
} cuplug__running;

/* Reserves a helper for a job of the caller's that is coming (see
 * cuplug__helpers_reserve): start then hands it that helper.  Optional. */
void cuplug__run_reserve(cuplug__runner *r, cuplug__running *run);
/* Gives back a reserved helper whose job never started. */
void cuplug__run_unreserve(cuplug__runner *r, cuplug__running *run);

/* Starts a job: a helper gets it now; a job run here waits for finish.
 * `run` is reserved, or zeroed.  time_limit_ms 0 means the runner's. */
cuplug_error *cuplug__run_start(cuplug__runner *r, const cuplug__tool_job *job,
                                uint32_t time_limit_ms, cuplug__running *run);
cuplug_error *cuplug__run_finish(cuplug__runner *r, cuplug__running *run,
                                 cuplug__tool_output *out);
/* Gives up on a started job (its helper is stopped). */
void cuplug__run_cancel(cuplug__runner *r, cuplug__running *run);
/* Starts and finishes a job (unreserved). */
cuplug_error *cuplug__run(cuplug__runner *r, const cuplug__tool_job *job, uint32_t time_limit_ms,
                          cuplug__tool_output *out);

#endif
