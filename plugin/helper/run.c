/* run.c - a toolkit job, run in a helper process or here. */
#include "plugin/helper/run.h"

#include <string.h>

#include "base/error.h"

void cuplug__runner_init(cuplug__runner *r, cuplug__toolkit *tk, bool in_process,
                         uint32_t time_limit_ms) {
  memset(r, 0, sizeof *r);
  r->toolkit = tk;
  r->in_process = in_process;
  r->time_limit_ms = time_limit_ms ? time_limit_ms : CUPLUG__DEFAULT_TIME_LIMIT_MS;
  cuplug__helpers_init(&r->helpers);
}

void cuplug__runner_release(cuplug__runner *r) { cuplug__helpers_release(&r->helpers); }

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
    case CUPLUG__TOOL_NVPTX:
      CUPLUG__TRY(cuplug__toolkit_nvptx(tk, (const cuplug__nvptx_api **)&api));
      lib = &tk->nvptx_lib;
      break;
    default:
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "no toolkit tool %d", (int)tool);
  }
  *path = lib->path;
  return NULL;
}

void cuplug__run_reserve(cuplug__runner *r, cuplug__running *run) {
  memset(run, 0, sizeof *run);
  if (!r->in_process) cuplug__helpers_reserve(&r->helpers, &run->pending);
}

void cuplug__run_unreserve(cuplug__runner *r, cuplug__running *run) {
  if (!r->in_process) cuplug__helpers_unreserve(&r->helpers, &run->pending);
}

cuplug_error *cuplug__run_start(cuplug__runner *r, const cuplug__tool_job *job,
                                uint32_t time_limit_ms, cuplug__running *run) {
  run->job = job;
  run->here = r->in_process;
  if (run->here) return NULL;
  const char *library = NULL;
  CUPLUG__TRY(library_file(r->toolkit, job->tool, &library));
  uint32_t limit = time_limit_ms ? time_limit_ms : r->time_limit_ms;
  return cuplug__helpers_start(&r->helpers, library, job, limit, &run->pending);
}

cuplug_error *cuplug__run_finish(cuplug__runner *r, cuplug__running *run,
                                 cuplug__tool_output *out) {
  cuplug_error *e = run->here ? cuplug__tool_run_here(r->toolkit, run->job, out)
                              : cuplug__helpers_finish(&r->helpers, &run->pending, out);
  run->times = out->times;
  return e;
}

void cuplug__run_cancel(cuplug__runner *r, cuplug__running *run) {
  if (!run->here && run->pending.helper) cuplug__helpers_cancel(&r->helpers, &run->pending);
}

cuplug_error *cuplug__run(cuplug__runner *r, const cuplug__tool_job *job, uint32_t time_limit_ms,
                          cuplug__tool_output *out) {
  cuplug__running run;
  memset(&run, 0, sizeof run);
  CUPLUG__TRY(cuplug__run_start(r, job, time_limit_ms, &run));
  return cuplug__run_finish(r, &run, out);
}
