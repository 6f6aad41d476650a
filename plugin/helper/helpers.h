/* helpers.h - the helper processes that run toolkit jobs for a session.
 *
 * A helper is the program cuplug-helper, started beside the plugin (the
 * same folder as libcuplug.so, or $CUPLUG_HELPER), connected by a socket.
 * It loads the toolkit libraries once and runs one job at a time; the
 * session keeps the helpers it started, idle ones ready for the next job.
 * A helper that crashes is reaped and its job reported as
 * CUPLUG_ERR_TOOLKIT_CRASH; one that runs past the time limit is killed and
 * its job reported as CUPLUG_ERR_TIMEOUT; either way the next job starts a
 * fresh helper.  One that meets an LLVM fatal error (LLVM's NVPTX backend
 * cannot select an instruction, say) answers its job with that error, as a
 * farewell, and goes.  A process that forks keeps its parent's helpers out
 * of its way and starts its own. */
#ifndef CUPLUG__PLUGIN_HELPER_HELPERS_H
#define CUPLUG__PLUGIN_HELPER_HELPERS_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "cuplug/cuplug.h"
#include "plugin/helper/handoff.h"
#include "plugin/toolkit/tool.h"

typedef struct cuplug__helper cuplug__helper;

/* How long a woken helper waits for its job without sleeping, yielding the
 * core to any thread that wants it (helper_main.c). */
#define CUPLUG__SPIN_NS 2000000u

typedef struct cuplug__helpers {
  pthread_mutex_t lock;
  cuplug__helper *idle;
  pid_t owner; /* the process whose helpers these are */
  char *program; /* the helper's path, once found */
  cuplug__handoff handoff; /* the environment's, when the helpers were made */
  int cpus;                /* the CPUs this process may run on */
} cuplug__helpers;

/* A job handed to a helper, whose result has not been read yet. */
typedef struct cuplug__pending {
  cuplug__helper *helper;
  cuplug__tool tool;
  uint64_t sent_ns;     /* when the job went (base/clock.h) */
  uint64_t deadline_ns; /* CLOCK_MONOTONIC */
  uint32_t time_limit_ms;
  bool counted; /* among the hosts at work (cuplug__helpers_hosts_at_work) */
  unsigned generation; /* of forks, when counted */
} cuplug__pending;

void cuplug__helpers_init(cuplug__helpers *h);
/* Stops every idle helper; no job may be pending. */
void cuplug__helpers_release(cuplug__helpers *h);

/* Takes a helper for a job that is coming and wakes it (unless it answered
 * so lately that it still polls), so that it waits for the job awake:
 * waking a sleeping process costs as much as a small job, and the host has
 * its own work to do meanwhile.  Leaves p empty when no helper can be had
 * (the job then says why). */
void cuplug__helpers_reserve(cuplug__helpers *h, cuplug__pending *p);
/* Gives a reserved helper back unused. */
void cuplug__helpers_unreserve(cuplug__helpers *h, cuplug__pending *p);

/* Hands the job to the helper p reserved, else an idle one, else a new one.  `library` is the path
 * of the library the helper must run it with (the one this process found).
 * Errors: CUPLUG_ERR_HELPER when no helper can be started. */
cuplug_error *cuplug__helpers_start(cuplug__helpers *h, const char *library,
                                    const cuplug__tool_job *job, uint32_t time_limit_ms,
                                    cuplug__pending *p);
/* Waits for the result (until the deadline) and gives the helper back;
 * out->times says where the time went. */
cuplug_error *cuplug__helpers_finish(cuplug__helpers *h, cuplug__pending *p,
                                     cuplug__tool_output *out);
/* Gives up on a pending job: its helper is stopped. */
void cuplug__helpers_cancel(cuplug__helpers *h, cuplug__pending *p);

/* How many host threads of this process have a helper reserved or at
 * work, in every session: what decides whether a host polls for its result
 * (CUPLUG_HOST_SPIN_US). */
int cuplug__helpers_hosts_at_work(void);

/* Whether the helper p reserved takes its jobs from the memory it shares
 * with this process (channel.h), as it does once it has started (for
 * tests). */
bool cuplug__helpers_attached(const cuplug__pending *p);
/* The process of the helper p reserved (for tests). */
pid_t cuplug__helpers_pid(const cuplug__pending *p);

/* How many helpers are idle (for tests). */
size_t cuplug__helpers_idle(cuplug__helpers *h);

#endif
