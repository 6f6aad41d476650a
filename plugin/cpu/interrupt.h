/* interrupt.h - a launch or a call the host asks to stop (interrupt.c),
 * and the polls in the JIT'd code that let its threads leave (polls.cpp). */
#ifndef CUPLUG__PLUGIN_CPU_INTERRUPT_H
#define CUPLUG__PLUGIN_CPU_INTERRUPT_H

#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Launches and calls being stopped, in the whole process: the polls read
 * it, and call cuplug__cpu_stop_point only when it is not zero. */
extern atomic_int cuplug__cpu_stop_count;

/* A launch or call whose host may set `flag`: while it is watched, a
 * thread reads the flag every millisecond, and once it is set marks
 * `stopping` and counts it in cuplug__cpu_stop_count. */
typedef struct cuplug__cpu_watch {
  const volatile int32_t *flag;
  atomic_int stopping;
  bool listed, counted; /* under the watcher's lock */
  struct cuplug__cpu_watch *next;
} cuplug__cpu_watch;

/* Watches flag (NULL: nothing to watch; stopping stays 0). */
void cuplug__cpu_watch_begin(cuplug__cpu_watch *w, const volatile int32_t *flag);
void cuplug__cpu_watch_end(cuplug__cpu_watch *w);

static inline bool cuplug__cpu_stopping(const atomic_int *stopping) {
  return stopping && atomic_load_explicit(stopping, memory_order_relaxed);
}

/* A host call's way out (ffi.c): where its thread jumps when its watch
 * says stop, or its code faults.  The thread's own, while it calls. */
typedef struct cuplug__cpu_call_exit {
  const atomic_int *stopping;
  sigjmp_buf *escape;
  char *fault; /* why the call left, where it faulted (cuplug__cpu_fault) */
} cuplug__cpu_call_exit;
extern __thread cuplug__cpu_call_exit *cuplug__cpu_calling;

struct cuplug__cpu_worker;
/* The running thread leaves the kernel: a thread of a launch (w) to its
 * worker, or to its fiber scheduler as a thread that returned; else the
 * host's call (c) through its way out.  Never returns. */
_Noreturn void cuplug__cpu_leave(struct cuplug__cpu_worker *w, cuplug__cpu_call_exit *c);

/* The runtime's function the polls call: when the thread's launch or call
 * is stopping, the thread leaves the kernel (to its worker or its fiber
 * scheduler, or its call) and this never returns; else it returns. */
void cuplug__cpu_stop_point(void);

#endif
