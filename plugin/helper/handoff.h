/* handoff.h - how a job and its result pass between the host and its
 * helper process: who waits awake, and on which CPU the helper works.
 *
 * A sleeping process woken on another core takes tens of microseconds to
 * run (12 us for a socket round trip between two sleeping processes on
 * the H200 machine, 26 us on the development VM), as much as a tenth of a
 * small compile.  So neither side sleeps while the other is about to
 * answer: the host takes a helper and wakes it as a compile begins, and
 * while the helper runs the job, the host checks the IR (the validation,
 * on its own thread: it would only wait otherwise), then polls for the
 * result; after a job the helper polls for the next one.  Each poll is
 * bounded, and the host polls only while the compiles at work and their
 * helpers fill at most half the CPUs (helpers.c).  Each bound is a switch in
 * the environment, read as a session is made (host) and as a helper starts:
 *
 *   CUPLUG_HOST_SPIN_US=N     the host polls for the result this long, after
 *                             its own work, before it sleeps (default 1000)
 *   CUPLUG_HELPER_SPIN_US=N   the helper polls for the next message this long
 *                             after a job before it sleeps (default 5000)
 *   CUPLUG_HELPER_PIN=0|1     the helper runs each job on the CPU the host
 *                             thread sent it from, while that thread sleeps
 *                             (and validates on another): measured slower
 *                             on the H200 (moving the helper costs more than
 *                             the warm core saves), kept to measure again;
 *                             it turns the host's poll off unless that is
 *                             asked for too, which turns the pin off
 *   CUPLUG_HELPER_SHARED=0|1  jobs and results pass through memory the host
 *                             shares with its helper (channel.h; default
 *                             1), or all through the socket (0), as
 *                             before: measured 20 us slower a compile on
 *                             the H200, kept to measure again
 *   CUPLUG_HELPER_HEAP_MB=N   the helper keeps up to N MiB of the memory a
 *                             job freed for the next job (default 64; 0
 *                             leaves the C library's defaults, at most
 *                             4096): libNVVM and nvJitLink allocate and
 *                             free a few MiB a call, and glibc's defaults
 *                             hand big blocks back to the system and take
 *                             them again, a page fault a page, which made
 *                             the same call take 0.25 or 0.48 ms by the
 *                             state of the heap (bench/RESULTS.md)
 *
 * A value that is not a number leaves the default. */
#ifndef CUPLUG__PLUGIN_HELPER_HANDOFF_H
#define CUPLUG__PLUGIN_HELPER_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"

/* The defaults (see README, Performance). */
#define CUPLUG__HANDOFF_PIN false
#define CUPLUG__HANDOFF_SHARED true
#define CUPLUG__HANDOFF_HOST_SPIN_US 1000u
#define CUPLUG__HANDOFF_HELPER_SPIN_US 5000u
/* A spin longer than this is taken as this: a spinning side holds a core. */
#define CUPLUG__HANDOFF_MAX_SPIN_US 100000u
#define CUPLUG__HANDOFF_HEAP_MB 64u
#define CUPLUG__HANDOFF_MAX_HEAP_MB 4096u

typedef struct cuplug__handoff {
  bool pin;
  bool shared; /* CUPLUG_HELPER_SHARED */
  uint64_t host_spin_ns;
  uint64_t helper_spin_ns;
  uint64_t heap_bytes; /* CUPLUG_HELPER_HEAP_MB, in bytes */
} cuplug__handoff;

/* The switches as the environment sets them. */
void cuplug__handoff_from_env(cuplug__handoff *o);

/* Makes this process keep up to `bytes` of the memory it frees for its
 * next allocations (CUPLUG_HELPER_HEAP_MB); 0 does nothing.  For the
 * helper, whose heap is its own: a host's is its owner's. */
void cuplug__keep_heap(uint64_t bytes);

/* One step of a spin-wait: tells the core (and a hyperthread sibling that
 * may be running the other side) that this thread is only waiting. */
void cuplug__cpu_relax(void);

#endif
