/* run.c - a toolkit job, run in a helper process or here. */
#include "plugin/toolkit/run.h"

#include <string.h>

#include "base/error.h"

/* The file the job's library was loaded from here, which the helper must
 * load too (found now when it is the first use). */
static cuplug_error *library_file(cuplug__toolkit *tk, cuplug__tool tool, const char **path) {
  const void *api;
  cuplug__lib *lib;
  switch (tool) {
    case CUPLUG__TOOL_NVVM:
      CUPLUG__TRY(cuplug__toolkit_nvvm(tk, (const cuplug__nvvm_api **)&api));
      lib = &tk->nvvm_lib;
      break;
    case CUPLUG__TOOL_NVRTC:
      CUPLUG__TRY(cuplug__toolkit_nvrtc(tk, (const cuplug__nvrtc_api **)&api));
      lib = &tk->nvrtc_lib;
      break;
    case CUPLUG__TOOL_NVJITLINK:
      CUPLUG__TRY(cuplug__toolkit_nvjitlink(tk, (const cuplug__nvjitlink_api **)&api));
      lib = &tk->nvjitlink_lib;
      break;
    default:
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "no toolkit tool %d", (int)tool);
  }
  *path = lib->path;
  return NULL;
}

void cuplug__run_prepare(cuplug__toolkit *tk, cuplug__running *r) {
  memset(r, 0, sizeof *r);
  if (!tk->in_process) cuplug__helpers_reserve(tk->helpers, &r->pending);
}

void cuplug__run_unprepare(cuplug__toolkit *tk, cuplug__running *r) {
  if (!tk->in_process) cuplug__helpers_unreserve(tk->helpers, &r->pending);
}

cuplug_error *cuplug__run_start(cuplug__toolkit *tk, const cuplug__tool_job *job,
                                uint32_t time_limit_ms, cuplug__running *r) {
  r->job = job;
  r->here = tk->in_process;
  if (r->here) return NULL;
  const char *library = NULL;
  CUPLUG__TRY(library_file(tk, job->tool, &library));
  uint32_t limit = time_limit_ms ? time_limit_ms : tk->time_limit_ms;
  return cuplug__helpers_start(tk->helpers, library, job, limit, &r->pending);
}

cuplug_error *cuplug__run_finish(cuplug__toolkit *tk, cuplug__running *r, cuplug__tool_output *out) {
  if (r->here) return cuplug__tool_run_here(tk, r->job, out);
  return cuplug__helpers_finish(tk->helpers, &r->pending, out);
}

void cuplug__run_cancel(cuplug__toolkit *tk, cuplug__running *r) {
  if (!r->here && r->pending.helper) cuplug__helpers_cancel(tk->helpers, &r->pending);
}

cuplug_error *cuplug__run(cuplug__toolkit *tk, const cuplug__tool_job *job, uint32_t time_limit_ms,
                          cuplug__tool_output *out) {
  cuplug__running r;
  memset(&r, 0, sizeof r);
  CUPLUG__TRY(cuplug__run_start(tk, job, time_limit_ms, &r));
  return cuplug__run_finish(tk, &r, out);
}
