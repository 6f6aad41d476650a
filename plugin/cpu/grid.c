/* grid.c - a kernel launched on a CPU grid.
 *
 * Blocks run in parallel, one per host thread at a time, taken in turn
 * from a shared counter.  A block's threads run one after another on the
 * host thread:
 *
 *   * code that never synchronises (no barrier, no warp collective in the
 *     library) calls the kernel's launcher once per thread, on the host
 *     thread's own stack: nothing to switch;
 *   * code that does runs each thread as a fiber (fiber.c).  A thread runs
 *     until it waits (syncthreads, a shuffle, a vote, syncwarp) or returns;
 *     when every thread of a warp that has not returned waits at a
 *     collective, the scheduler computes each one's result and lets them
 *     go on; when every thread of the block waits at syncthreads, likewise.
 *
 * A barrier that some threads have returned before reaching, or threads
 * that wait on each other in a way that cannot resolve (half a warp at a
 * shuffle, half at syncthreads), is reported (CUPLUG_ERR_HOST_BARRIER):
 * on the GPU it hangs or is undefined.
 *
 * A launch whose host sets its interrupt flag stops (interrupt.c): each
 * thread leaves the kernel at its next poll, its block is abandoned, no
 * block starts after, and the launch returns CUPLUG_ERR_INTERRUPTED. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "plugin/cpu/grid.h"
#include "plugin/cpu/device_lib.h"

#include "plugin/cpu/fail.h"
#include "plugin/cpu/interrupt.h"
#include "plugin/cpu/worker.h"

#define STACK_SIZE (256 * 1024) /* a thread's stack: local memory lives there */

typedef struct launch {
  const cuplug__cpu_grid *g;
  cuplug__cpu_kernel *k;
  bool fibers;
  atomic_ulong next_block;
  unsigned long num_blocks;
  atomic_int failed;
  cuplug__cpu_watch watch; /* the host's interrupt flag */
  pthread_mutex_t lock; /* the first error wins */
  int code;
  char *msg;
} launch;

typedef struct run {
  cuplug__cpu_worker w; /* first: the runtime sees a cuplug__cpu_worker */
  launch *l;
} run;

static void fail(launch *l, int code, char *msg) {
  pthread_mutex_lock(&l->lock);
  if (!l->code) {
    l->code = code;
    l->msg = msg;
    msg = NULL;
  }
  pthread_mutex_unlock(&l->lock);
  free(msg);
  atomic_store(&l->failed, 1);
}

static void interrupted(launch *l) {
  char *msg = NULL;
  if (asprintf(&msg, "kernel %s: interrupted (the host set the launch's interrupt flag)",
               l->k->name) < 0)
    msg = NULL;
  fail(l, CUPLUG_ERR_INTERRUPTED, msg);
}

/* ---- fibers ---- */

static void thread_main(void *arg) {
  uint32_t t = (uint32_t)(uintptr_t)arg;
  for (;;) {
    run *r = (run *)cuplug__cpu_current;
    r->l->k->launcher((void **)r->l->g->params);
    r->w.fibers[t].state = CUPLUG__DONE;
    CUPLUG__TSAN_SWITCH(r->w.sched_tsan);
    cuplug__fiber_switch(&r->w.fibers[t].sp, r->w.sched_sp);
  }
}

static void set_thread(cuplug__cpu_worker *w, uint32_t t) {
  w->linear = t;
  w->tid[0] = t % w->ntid[0];
  w->tid[1] = t / w->ntid[0] % w->ntid[1];
  w->tid[2] = t / (w->ntid[0] * w->ntid[1]);
}

static void set_fiber(cuplug__cpu_worker *w, uint32_t t) {
  w->linear = t;
  memcpy(w->tid, w->fibers[t].tid, sizeof w->tid);
}

static int make_fibers(run *r, uint32_t n, char **msg) {
  cuplug__cpu_worker *w = &r->w;
  w->fibers = calloc(n, sizeof *w->fibers);
  if (!w->fibers) return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  w->num_fibers = n;
  for (uint32_t t = 0; t < n; t++) {
    void *s = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (s == MAP_FAILED)
      return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "no memory for %u thread stacks",
                               n);
    w->fibers[t].stack = s;
    w->fibers[t].tsan = CUPLUG__TSAN_CREATE();
    set_thread(w, t);
    memcpy(w->fibers[t].tid, w->tid, sizeof w->tid);
  }
  return 0;
}

static void reset_fibers(cuplug__cpu_worker *w) {
  for (size_t t = 0; t < w->num_fibers; t++) {
    cuplug__fiber *f = &w->fibers[t];
    /* Stack tops a cache line apart modulo 4 KB: at the same offset in
     * every stack they would share one set of the L1 cache, and a switch
     * would miss it every time (it was half of k_warp's time). */
    size_t stagger = (t % 64) * 64;
    f->sp = cuplug__fiber_init(f->stack, STACK_SIZE - stagger, thread_main,
                               (void *)(uintptr_t)t);
    f->state = CUPLUG__READY;
  }
}


/* Which threads wait where, for the message of a barrier that cannot
 * resolve. */
static char *stuck(const run *r) {
  const cuplug__cpu_worker *w = &r->w;
  uint32_t counts[4] = {0};
  int32_t first[4] = {-1, -1, -1, -1};
  for (uint32_t t = 0; t < w->nthreads; t++) {
    cuplug__fiber_state s = w->fibers[t].state;
    counts[s]++;
    if (first[s] < 0) first[s] = (int32_t)t;
  }
  char *msg = NULL;
  if (asprintf(&msg,
               "kernel %s, block (%u, %u, %u): a barrier not every thread reaches: %u of %u "
               "threads wait at syncthreads (the first thread %d), %u at a warp collective "
               "(the first %d), %u have returned (the first %d)",
               r->l->k->name, w->ctaid[0], w->ctaid[1], w->ctaid[2], counts[CUPLUG__BARRIER],
               w->nthreads, first[CUPLUG__BARRIER], counts[CUPLUG__WARP], first[CUPLUG__WARP],
               counts[CUPLUG__DONE], first[CUPLUG__DONE]) < 0)
    msg = NULL;
  return msg;
}

/* Runs the block's threads as fibers until all return. */
static int run_fibers(run *r) {
  cuplug__cpu_worker *w = &r->w;
  uint32_t n = w->nthreads;
  reset_fibers(w);
  for (;;) {
    for (uint32_t t = 0; t < n; t++) {
      if (w->fibers[t].state != CUPLUG__READY) continue;
      set_fiber(w, t);
      CUPLUG__TSAN_SWITCH(w->fibers[t].tsan);
      cuplug__fiber_switch(&w->sched_sp, w->fibers[t].sp);
      if (cuplug__cpu_stopping(w->stopping)) { /* the block is abandoned */
        interrupted(r->l);
        return -1;
      }
      if (atomic_load(&r->l->failed)) return -1; /* a thread faulted: likewise */
    }
    uint32_t done = 0, at_barrier = 0;
    bool ready = false;
    for (uint32_t first = 0; first < n; first += 32) {
      uint32_t lanes = n - first < 32 ? n - first : 32, waiting = 0, returned = 0;
      for (uint32_t l = 0; l < lanes; l++) {
        cuplug__fiber_state s = w->fibers[first + l].state;
        waiting += s == CUPLUG__WARP;
        returned += s == CUPLUG__DONE;
        at_barrier += s == CUPLUG__BARRIER;
      }
      done += returned;
      if (waiting && waiting + returned == lanes) {
        cuplug__cpu_settle_warp(&w->fibers[first], lanes);
        ready = true;
      }
    }
    if (ready) continue;
    if (done == n) return 0;
    if (at_barrier == n) {
      cuplug__cpu_settle_barrier(w->fibers, n);
      continue;
    }
    fail(r->l, CUPLUG_ERR_HOST_BARRIER, stuck(r));
    return -1;
  }
}

/* Runs blocks until none is left, or the launch fails or stops. */
static void run_blocks(run *r) {
  launch *l = r->l;
  const cuplug__cpu_grid *g = l->g;
  cuplug__cpu_worker *w = &r->w;
  for (;;) {
    if (atomic_load(&l->failed)) break;
    if (cuplug__cpu_stopping(w->stopping)) {
      interrupted(l);
      break;
    }
    unsigned long b = atomic_fetch_add(&l->next_block, 1);
    if (b >= l->num_blocks) break;
    w->ctaid[0] = (uint32_t)(b % g->grid[0]);
    w->ctaid[1] = (uint32_t)(b / g->grid[0] % g->grid[1]);
    w->ctaid[2] = (uint32_t)(b / ((unsigned long)g->grid[0] * g->grid[1]));
    if (l->fibers) {
      if (run_fibers(r)) break;
    } else if (l->k->row) { /* a row of threads at a time (rows.c) */
      for (uint32_t row = 0; row < w->ntid[1] * w->ntid[2]; row++) {
        set_thread(w, row * w->ntid[0]);
        l->k->row(g->params);
      }
    } else {
      for (uint32_t t = 0; t < w->nthreads; t++) {
        set_thread(w, t);
        l->k->launcher(g->params);
      }
    }
  }
}

static void *worker_main(void *arg) {
  run *r = arg;
  launch *l = r->l;
  const cuplug__cpu_grid *g = l->g;
  cuplug__cpu_worker *w = &r->w;
  cuplug__cpu_current = w;
  w->sched_tsan = CUPLUG__TSAN_CURRENT();
  memcpy(w->ntid, g->block, sizeof w->ntid);
  memcpy(w->nctaid, g->grid, sizeof w->nctaid);
  w->nthreads = g->block[0] * g->block[1] * g->block[2];
  w->dynamic_size = g->shared_mem;
  w->stopping = &l->watch.stopping;
  if (g->shared_mem && !(w->dynamic_shared = aligned_alloc(16, (g->shared_mem + 15) / 16 * 16))) {
    fail(l, CUPLUG_ERR_OUT_OF_MEMORY, strdup("no memory for dynamic shared memory"));
    return NULL;
  }
  if (l->fibers) {
    char *msg = NULL;
    int rc = make_fibers(r, w->nthreads, &msg);
    if (rc) {
      fail(l, rc, msg);
      return NULL;
    }
  }
  sigjmp_buf escape; /* a thread that stops, off fibers (interrupt.c) */
  if (!sigsetjmp(escape, 0)) {
    w->escape = &escape;
    run_blocks(r);
  } else if (!atomic_load(&l->failed)) { /* else a thread faulted (cuplug__cpu_fault) */
    interrupted(l);
  }
  w->escape = NULL;
  cuplug__cpu_current = NULL;
  return NULL;
}

static void worker_free(cuplug__cpu_worker *w) {
  for (size_t i = 0; i < w->num_shared; i++) free(w->shared[i].storage);
  free(w->shared);
  free(w->dynamic_shared);
  for (size_t t = 0; t < w->num_fibers; t++) {
    if (w->fibers[t].stack) munmap(w->fibers[t].stack, STACK_SIZE);
    if (w->fibers[t].tsan) CUPLUG__TSAN_DESTROY(w->fibers[t].tsan);
  }
  free(w->fibers);
}

void cuplug__cpu_fault(char *msg) {
  if (!msg) msg = strdup("a device-side fault (no memory to say more)");
  cuplug__cpu_worker *w = cuplug__cpu_current;
  if (w) { /* a thread of a launch: the launch fails, the block is abandoned */
    run *r = (run *)w;
    char *said = NULL;
    if (asprintf(&said, "kernel %s: %s", r->l->k->name, msg ? msg : "") < 0) said = NULL;
    free(msg);
    fail(r->l, CUPLUG_ERR_KERNEL_FAULT, said);
    cuplug__cpu_leave(w, NULL);
  }
  cuplug__cpu_call_exit *c = cuplug__cpu_calling;
  if (c) { /* the host's call through ffi.c */
    c->fault = msg;
    cuplug__cpu_leave(NULL, c);
  }
  fprintf(stderr, "cuplug: a device function called through its own pointer: %s\n",
          msg ? msg : "");
  abort();
}

/* After a debug kernel: the exception its first failing thread stored,
 * as the GPU path reports it (plugin/load/launch.c). */
static int read_exception(const cuplug__cpu_kernel *k, char **msg) {
  if (!k->store[0] || !*k->store[0]) return 0;
  int32_t v[7];
  for (int i = 0; i < 7; i++) v[i] = k->store[i] ? *k->store[i] : 0;
  return cuplug__cpu_fail(msg, CUPLUG_ERR_KERNEL_EXCEPTION,
                           "kernel %s raised exception %d: tid=[%d, %d, %d] ctaid=[%d, %d, %d]",
                           k->name, v[0], v[3], v[2], v[1], v[6], v[5], v[4]);
}

int cuplug__cpu_launch(cuplug__cpu_lib *lib, const cuplug__cpu_grid *g, char **msg) {
  cuplug__cpu_kernel *k = NULL;
  for (size_t i = 0; i < lib->num_kernels && !k; i++)
    if (strcmp(lib->kernels[i].name, g->kernel) == 0) k = &lib->kernels[i];
  if (!k)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_KERNEL_NOT_FOUND,
                             "no kernel named '%s' in the host library", g->kernel);
  unsigned long threads = (unsigned long)g->block[0] * g->block[1] * g->block[2];
  if (threads > 1024)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_LAUNCH_CONFIG,
                             "kernel %s: block (%u, %u, %u) has %lu threads; CUDA allows 1024",
                             k->name, g->block[0], g->block[1], g->block[2], threads);
  if (k->store[0]) *k->store[0] = 0;
  launch l = {.g = g, .k = k, .fibers = lib->uses_collectives,
              .num_blocks = (unsigned long)g->grid[0] * g->grid[1] * g->grid[2],
              .lock = PTHREAD_MUTEX_INITIALIZER};
  cuplug__cpu_watch_begin(&l.watch, g->interrupt);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned long n = g->threads ? g->threads : (unsigned long)(cores > 0 ? cores : 1);
  if (n > l.num_blocks) n = l.num_blocks;
  run *runs = calloc(n, sizeof *runs);
  pthread_t *ids = calloc(n, sizeof *ids);
  if (!runs || !ids) {
    free(runs);
    free(ids);
    cuplug__cpu_watch_end(&l.watch);
    return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  }
  /* this thread is worker 0; the others are started for the launch */
  unsigned long started = 1;
  for (unsigned long i = 0; i < n; i++) runs[i].l = &l;
  for (; started < n; started++)
    if (pthread_create(&ids[started], NULL, worker_main, &runs[started])) break;
  cuplug__cpu_worker *outer = cuplug__cpu_current;
  worker_main(&runs[0]);
  cuplug__cpu_current = outer;
  for (unsigned long i = 1; i < started; i++) pthread_join(ids[i], NULL);
  cuplug__cpu_watch_end(&l.watch);
  for (unsigned long i = 0; i < n; i++) worker_free(&runs[i].w);
  free(runs);
  free(ids);
  pthread_mutex_destroy(&l.lock);
  if (l.code) {
    *msg = l.msg;
    return l.code;
  }
  return g->debug ? read_exception(k, msg) : 0;
}
