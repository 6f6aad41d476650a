/* grid_threads.c - the CPU grid under ThreadSanitizer (threads.grid).
 *
 * The grid runner (plugin/cpu/grid.c, runtime.c, fiber.c), built with
 * -fsanitize=thread and driven without LLVM: the "kernels" are C functions
 * in the shape of the launchers the JIT makes, calling the runtime's
 * special registers, barriers and shuffles through the symbols the JIT
 * would bind them to.  Blocks run in parallel on several host threads;
 * any race between them, or between the scheduler and its fibers, fails
 * the test (halt_on_error).  The values are checked exactly.  Then kernels
 * that spin, polling as the JIT's polls do, are stopped through the
 * interrupt flag from another thread: fibers abandoned at a barrier, and
 * plain calls left by siglongjmp. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plugin/cpu/grid.h"
#include "plugin/cpu/runtime.h"

#define BLOCKS 48
#define THREADS 64

static uint32_t (*tid_x)(void), (*ctaid_x)(void), (*ntid_x)(void);
static void (*barrier)(uint32_t); /* syncthreads: barrier 0 of the whole block */
typedef struct pair {
  uint64_t value, pred;
} pair;
static pair (*shfl)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t);

static void *runtime(const char *name) {
  size_t n;
  const cuplug__cpu_symbol *s = cuplug__cpu_runtime_symbols(&n);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s[i].name, name)) return s[i].address;
  fprintf(stderr, "grid_threads: no runtime symbol %s\n", name);
  exit(1);
}

/* Each block's own slots (shared memory without the JIT's emulated
 * thread-locals), and a counter every block adds to. */
static int32_t slots[BLOCKS][THREADS];
static int32_t out[BLOCKS * THREADS];
static _Atomic int64_t total;

/* Writes its slot, waits for the block, reads its neighbour's, shuffles
 * down by one within the warp, and counts. */
static void collective_kernel(void **params) {
  (void)params;
  uint32_t t = tid_x(), b = ctaid_x(), n = ntid_x();
  slots[b][t] = (int32_t)(b * 1000 + t);
  barrier(0);
  int32_t neighbour = slots[b][(t + 1) % n];
  pair p = shfl(0xffffffffu, 2, (uint32_t)neighbour, 1, 31);
  out[b * n + t] = (int32_t)p.value;
  atomic_fetch_add(&total, 1);
  barrier(0); /* nobody rewrites a slot before all have read */
}

/* Threads one by one (no collectives): atomics across blocks. */
static void plain_kernel(void **params) {
  (void)params;
  atomic_fetch_add(&total, (int64_t)ctaid_x());
}

/* Thread 0 of each block spins, polling as the JIT's polls do, until its
 * launch is stopped; the others wait for it at a barrier (with fibers). */
static atomic_int *stop_count;
static void (*stop_point)(void);
static void spin(void) {
  if (tid_x() != 0) return;
  for (;;)
    if (atomic_load_explicit(stop_count, memory_order_relaxed)) stop_point();
}
static void spinning_collective_kernel(void **params) {
  (void)params;
  spin();
  barrier(0);
}
static void spinning_plain_kernel(void **params) {
  (void)params;
  spin();
}

static volatile int32_t stop;
static void *press_ctrl_c(void *arg) {
  (void)arg;
  nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  return NULL;
}

static int launch_with(cuplug__cpu_launcher k, bool collectives, const volatile int32_t *flag,
                       char **msg) {
  cuplug__cpu_kernel kernel = {.name = "k", .launcher = k};
  cuplug__cpu_lib lib = {.kernels = &kernel, .num_kernels = 1, .uses_collectives = collectives};
  cuplug__cpu_grid g = {.kernel = "k", .grid = {BLOCKS, 1, 1}, .block = {THREADS, 1, 1},
                         .threads = 4, .interrupt = flag};
  return cuplug__cpu_launch(&lib, &g, msg);
}

static int launch(cuplug__cpu_launcher k, bool collectives) {
  char *msg = NULL;
  int rc = launch_with(k, collectives, NULL, &msg);
  if (rc) fprintf(stderr, "grid_threads: launch failed (%d): %s\n", rc, msg ? msg : "");
  free(msg);
  return rc;
}

/* A spinning launch, stopped from another thread: CUPLUG_ERR_INTERRUPTED. */
static int stopped(cuplug__cpu_launcher k, bool collectives) {
  stop = 0;
  pthread_t t;
  if (pthread_create(&t, NULL, press_ctrl_c, NULL)) return 1;
  char *msg = NULL;
  int rc = launch_with(k, collectives, &stop, &msg);
  pthread_join(t, NULL);
  bool ok = rc == CUPLUG_ERR_INTERRUPTED && msg &&
            !strcmp(msg, "kernel k: interrupted (the host set the launch's interrupt flag)");
  if (!ok) fprintf(stderr, "grid_threads: a stopped launch gave %d: %s\n", rc, msg ? msg : "");
  free(msg);
  return !ok;
}

int main(void) {
  tid_x = (uint32_t(*)(void))(uintptr_t)runtime("__cuplug_nvvm.read.ptx.sreg.tid.x");
  ctaid_x = (uint32_t(*)(void))(uintptr_t)runtime("__cuplug_nvvm.read.ptx.sreg.ctaid.x");
  ntid_x = (uint32_t(*)(void))(uintptr_t)runtime("__cuplug_nvvm.read.ptx.sreg.ntid.x");
  barrier = (void (*)(uint32_t))(uintptr_t)runtime(
      "__cuplug_nvvm.barrier.cta.sync.aligned.all"); /* LLVM 22's barrier0 */
  shfl = (pair(*)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t))(uintptr_t)runtime(
      "__cuplug_nvvm.shfl.sync.i32");
  stop_count = (atomic_int *)runtime("__cuplug_nvvm.stop_count");
  stop_point = (void (*)(void))(uintptr_t)runtime("__cuplug_nvvm.stop_point");
  int failures = 0;
  for (int round = 0; round < 3; round++) { /* the workers' fibers, made anew each launch */
    total = 0;
    if (launch(collective_kernel, true)) return 1;
    for (int b = 0; b < BLOCKS; b++) {
      for (int t = 0; t < THREADS; t++) {
        /* lane l gets lane l+1's neighbour (t + 2), the warp's last lane its own (t + 1) */
        int lane = t % 32;
        int from = lane < 31 ? t + 1 : t;
        int want = b * 1000 + (from + 1) % THREADS;
        if (out[b * THREADS + t] != want && failures++ < 5)
          fprintf(stderr, "block %d thread %d: %d, expected %d\n", b, t, out[b * THREADS + t],
                  want);
      }
    }
    if (total != BLOCKS * THREADS && failures++ < 5)
      fprintf(stderr, "total %lld, expected %d\n", (long long)total, BLOCKS * THREADS);
    total = 0;
    if (launch(plain_kernel, false)) return 1;
    int64_t want = (int64_t)THREADS * BLOCKS * (BLOCKS - 1) / 2;
    if (total != want && failures++ < 5)
      fprintf(stderr, "plain total %lld, expected %lld\n", (long long)total, (long long)want);
    failures += stopped(spinning_collective_kernel, true);
    failures += stopped(spinning_plain_kernel, false);
  }
  if (failures) return 1;
  printf("grid_threads: %d blocks of %d threads on 4 host threads, 3 rounds: exact; spinning "
         "launches stopped\n", BLOCKS, THREADS);
  return 0;
}
