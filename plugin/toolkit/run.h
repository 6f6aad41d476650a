/* run.h - a toolkit job, run where the session says: in a helper process
 * (the default, helpers.h), or in this process when the session trusts its
 * inputs (CUPLUG_SESSION_TRUSTED). */
#ifndef CUPLUG__PLUGIN_TOOLKIT_RUN_H
#define CUPLUG__PLUGIN_TOOLKIT_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/toolkit/helpers.h"
#include "plugin/toolkit/tool.h"
#include "plugin/toolkit/toolkit.h"

/* A job under way.  The job (and what it points to) must live until it
 * is finished or cancelled. */
typedef struct cuplug__running {
  const cuplug__tool_job *job;
  bool here;
  cuplug__pending pending;
} cuplug__running;

/* Readies a helper for a job of the caller's that is coming (see
 * cuplug__helpers_reserve): start then hands it that helper.  Optional. */
void cuplug__run_prepare(cuplug__toolkit *tk, cuplug__running *r);
/* Gives up a prepared run that never started. */
void cuplug__run_unprepare(cuplug__toolkit *tk, cuplug__running *r);

/* Starts a job: a helper gets it now; a job run here waits for finish.
 * r is prepared, or zeroed.
 * time_limit_ms 0 means the toolkit's (the session's) limit. */
cuplug_error *cuplug__run_start(cuplug__toolkit *tk, const cuplug__tool_job *job,
                                uint32_t time_limit_ms, cuplug__running *r);
cuplug_error *cuplug__run_finish(cuplug__toolkit *tk, cuplug__running *r, cuplug__tool_output *out);
/* Gives up on a started job (its helper is stopped). */
void cuplug__run_cancel(cuplug__toolkit *tk, cuplug__running *r);
/* Starts and finishes a job (unprepared). */
cuplug_error *cuplug__run(cuplug__toolkit *tk, const cuplug__tool_job *job, uint32_t time_limit_ms,
                          cuplug__tool_output *out);

#endif
