/* handoff.h - how a job and its result pass between the host and its
 * helper process: who waits awake, and on which CPU the helper works.
 *
 * The helper's round trip costs a compile about the same whatever its
 * size: a sleeping process woken on another core takes tens of
 * microseconds to run, and that core may be idle (down-clocked, its caches
 * cold).  Each remedy costs something elsewhere (a core spent spinning, a
 * helper that may not run where it is told), so each is a switch in the
 * environment, read as a session is made (host) and as a helper starts:
 *
 *   CUPLUG_HELPER_PIN=0|1     the helper runs each job on the CPU the host
 *                             thread sent it from: that thread sleeps while
 *                             the helper works, so the core is warm and free
 *                             (not with a host spin, which would share it)
 *   CUPLUG_HOST_SPIN_US=N     the host polls for the result this long before
 *                             it sleeps
 *   CUPLUG_HELPER_SPIN_US=N   the helper polls for the next message this long
 *                             after a job before it sleeps
 *
 * A value that is not a number leaves the default. */
#ifndef CUPLUG__PLUGIN_HELPER_HANDOFF_H
#define CUPLUG__PLUGIN_HELPER_HANDOFF_H

#include <stdbool.h>
#include <stdint.h>

/* The defaults (see README, Performance). */
#define CUPLUG__HANDOFF_PIN false
#define CUPLUG__HANDOFF_HOST_SPIN_US 0u
#define CUPLUG__HANDOFF_HELPER_SPIN_US 5000u
/* A spin longer than this is taken as this: a spinning side holds a core. */
#define CUPLUG__HANDOFF_MAX_SPIN_US 100000u

typedef struct cuplug__handoff {
  bool pin;
  uint64_t host_spin_ns;
  uint64_t helper_spin_ns;
} cuplug__handoff;

/* The switches as the environment sets them. */
void cuplug__handoff_from_env(cuplug__handoff *o);

/* CLOCK_MONOTONIC, in nanoseconds: the clock both processes share. */
uint64_t cuplug__now_ns(void);

/* One step of a spin-wait: tells the core (and a hyperthread sibling that
 * may be running the other side) that this thread is only waiting. */
void cuplug__cpu_relax(void);

#endif
