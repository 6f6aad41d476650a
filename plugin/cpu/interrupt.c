/* interrupt.c - a launch or a call the host asks to stop.
 *
 * The host hands the plugin a flag it sets, from its SIGINT handler say
 * (the plugin is a library: it installs no handler of its own).  Nothing
 * tells the plugin when the flag changes, and the JIT'd code cannot find
 * its own launch's flag at the price of one load.  So one thread, the
 * watcher, started on first use, reads the flags of the launches and calls
 * under way every millisecond, and sleeps while there are none.  When a
 * flag is set it marks its launch stopping and raises the process's stop
 * count; the JIT'd code loads the count at every loop header and at the
 * entry of every function that can call itself (polls.cpp), a load and a
 * branch, and calls cuplug__cpu_stop_point while it is not zero.  There a
 * thread of a stopping launch leaves the kernel: a fiber switches to its
 * block's scheduler, which abandons the block (so no barrier waits on it);
 * a thread run as a plain call jumps back to its worker, a call to the
 * host_call that made it (grid.c, ffi.c).  Threads of other launches
 * return, and run on. */
#include "plugin/cpu/interrupt.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "plugin/cpu/worker.h"

atomic_int cuplug__cpu_stop_count;
__thread cuplug__cpu_call_exit *cuplug__cpu_calling;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t some = PTHREAD_COND_INITIALIZER;
static cuplug__cpu_watch *watched;
static pid_t watcher_pid; /* the process it runs in: a fork's child has none */

static void *watcher(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  for (;;) {
    while (!watched) pthread_cond_wait(&some, &lock);
    for (cuplug__cpu_watch *w = watched; w; w = w->next) {
      if (w->counted || !__atomic_load_n(w->flag, __ATOMIC_RELAXED)) continue;
      w->counted = true;
      atomic_store(&w->stopping, 1);
      atomic_fetch_add(&cuplug__cpu_stop_count, 1);
    }
    pthread_mutex_unlock(&lock);
    nanosleep(&(struct timespec){0, 1000000}, NULL);
    pthread_mutex_lock(&lock);
  }
  return NULL;
}

/* Under the lock: a watcher runs in this process. */
static bool have_watcher(void) {
  if (watcher_pid == getpid()) return true;
  watched = NULL; /* a fork's: the launches it knew are the parent's */
  pthread_t t;
  pthread_attr_t a;
  pthread_attr_init(&a);
  pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&t, &a, watcher, NULL) == 0) watcher_pid = getpid();
  pthread_attr_destroy(&a);
  return watcher_pid == getpid();
}

void cuplug__cpu_watch_begin(cuplug__cpu_watch *w, const volatile int32_t *flag) {
  *w = (cuplug__cpu_watch){.flag = flag};
  if (!flag) return;
  if (__atomic_load_n(flag, __ATOMIC_RELAXED)) { /* set before it began */
    atomic_store(&w->stopping, 1);
    return;
  }
  pthread_mutex_lock(&lock);
  if (have_watcher()) { /* else it runs to its end, as without a flag */
    w->next = watched;
    watched = w;
    w->listed = true;
    pthread_cond_signal(&some);
  }
  pthread_mutex_unlock(&lock);
}

void cuplug__cpu_watch_end(cuplug__cpu_watch *w) {
  if (!w->listed) return;
  pthread_mutex_lock(&lock);
  for (cuplug__cpu_watch **p = &watched; *p; p = &(*p)->next) {
    if (*p != w) continue;
    *p = w->next;
    break;
  }
  if (w->counted) atomic_fetch_sub(&cuplug__cpu_stop_count, 1);
  pthread_mutex_unlock(&lock);
}

void cuplug__cpu_leave(cuplug__cpu_worker *w, cuplug__cpu_call_exit *c) {
  if (!w) siglongjmp(*c->escape, 1);
  if (!w->fibers) siglongjmp(*w->escape, 1);
  /* switched out for good: the scheduler abandons the block, and the next
   * block starts every fiber afresh */
  cuplug__fiber *f = &w->fibers[w->linear];
  f->state = CUPLUG__DONE;
  CUPLUG__TSAN_SWITCH(w->sched_tsan);
  cuplug__fiber_switch(&f->sp, w->sched_sp);
  abort(); /* not reached: a returned thread is never resumed */
}

void cuplug__cpu_stop_point(void) {
  cuplug__cpu_worker *w = cuplug__cpu_current;
  cuplug__cpu_call_exit *c = cuplug__cpu_calling;
  if (w ? cuplug__cpu_stopping(w->stopping) : c && cuplug__cpu_stopping(c->stopping))
    cuplug__cpu_leave(w, c);
}
