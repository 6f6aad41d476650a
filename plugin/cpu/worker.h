/* worker.h - a host thread running a block: its view of the block, and the
 * waits of its threads at barriers and warp collectives (worker.c). */
#ifndef CUPLUG__PLUGIN_CPU_WORKER_H
#define CUPLUG__PLUGIN_CPU_WORKER_H

#include <setjmp.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "plugin/cpu/fiber.h"

/* One host thread's view of the block it runs now. */
typedef struct cuplug__cpu_worker {
  uint32_t ctaid[3], ntid[3], nctaid[3];
  uint32_t tid[3];
  uint32_t linear; /* the thread's index in its block */
  uint32_t nthreads;
  /* shared memory: each variable's copy on this worker (runtime.c) */
  struct { const void *object; void *storage; } *shared;
  size_t num_shared, cap_shared;
  void *dynamic_shared;
  uint32_t dynamic_size;
  /* fibers, when the code synchronises */
  cuplug__fiber *fibers;
  size_t num_fibers;
  void *sched_sp;
  void *sched_tsan; /* the scheduler's ThreadSanitizer fiber */
  /* the launch's stop (interrupt.c), and where a thread run as a plain
   * call leaves the kernel when it is set (a fiber switches out) */
  const atomic_int *stopping;
  sigjmp_buf *escape;
} cuplug__cpu_worker;

/* The worker of this host thread (NULL outside a launch).  Initial-exec:
 * the default model for a dlopen'ed object calls __tls_get_addr at every
 * read, and every special register reads it. */
extern __thread cuplug__cpu_worker *cuplug__cpu_current __attribute__((tls_model("initial-exec")));

/* Switches threads: from the running fiber to the scheduler; outside a
 * launch, settles the lone thread's wait at once. */
void cuplug__cpu_yield(cuplug__fiber *f, cuplug__fiber_state state);


/* Every waiting lane of one warp (lanes[0..n)) gets its result and runs on. */
void cuplug__cpu_settle_warp(cuplug__fiber *lanes, uint32_t n);
/* Every thread of a block (fibers[0..n)) leaves its barrier with its result. */
void cuplug__cpu_settle_barrier(cuplug__fiber *fibers, uint32_t n);

#endif
