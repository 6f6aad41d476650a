/* compile_threads.c - compiles from many threads at once, built with
 * ThreadSanitizer (ctest: threads.compile).
 *
 * Eight threads compile a hundred kernels each: four through a session
 * with the result cache (its memory and a disk folder, shared by all of
 * them, so that they race to build, store and find the same results), two
 * through one without (each compile a trip to a helper process, all of
 * them at once) and two through a trusted session (libNVVM in this
 * process, called from both threads at once).  Every result is compared
 * with the one a lone compile gave; TSan checks the rest.  Plain C, no
 * Check: its asserts are not for threads. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuplug/cuplug.h"
#include "threads.h"

enum { THREADS = 8, COMPILES = 100, KERNELS = 10 };

static const cuplug_api *api;
static cuplug_session *cached, *uncached, *trusted;
static char *ir[KERNELS];
static void *want[KERNELS];
static size_t want_size[KERNELS];
atomic_int failures;


/* k(out, a) stores a + k*7: ten kernels that differ in a constant */
static char *kernel_ir(int k) {
  char *s = malloc(512);
  snprintf(s, 512,
           "define i32 @k(i8** %%ret, i32* %%out, i32 %%a) {\n"
           "entry:\n"
           "  %%s = add i32 %%a, %d\n"
           "  store i32 %%s, i32* %%out\n"
           "  ret i32 0\n"
           "}\n",
           k * 7);
  return s;
}

/* Compiles kernel k; the LTO-IR goes to *out (malloc'd). */
static cuplug_error *compile(cuplug_session *s, int k, void **out, size_t *size) {
  cuplug_module m = {.struct_size = sizeof m, .text = ir[k], .size = strlen(ir[k])};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k",
                           .signature = "void(CPointer(int32), int32)", .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_LTOIR, .cc_major = 9};
  cuplug_error *e = api->compile(&a);
  if (e) return e;
  cuplug_artifact_info i = {.struct_size = sizeof i};
  api->artifact_info(a.artifact, &i);
  *out = malloc(i.size);
  memcpy(*out, i.data, i.size);
  *size = i.size;
  api->artifact_destroy(a.artifact);
  return NULL;
}

static void *compiler(void *arg) {
  int t = (int)(intptr_t)arg;
  cuplug_session *s = t % 2 ? cached : t % 4 ? trusted : uncached;
  for (int n = 0; n < COMPILES; n++) {
    int k = (n * 3 + t) % KERNELS;
    void *got;
    size_t size;
    cuplug_error *e = compile(s, k, &got, &size);
    if (e) {
      FAIL("thread %d, kernel %d: %s", t, k, api->error_message(e));
      api->error_destroy(e);
      continue;
    }
    if (size != want_size[k] || memcmp(got, want[k], size) != 0)
      FAIL("thread %d, kernel %d: other LTO-IR", t, k);
    free(got);
  }
  return NULL;
}

int main(void) {
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  cuplug_info info = {.struct_size = sizeof info};
  api->error_destroy(api->get_info(&info));
  if (info.nvvm_major < 0) {
    printf("no libNVVM: nothing to compile\n");
    return 77;
  }
  char dir[] = "/tmp/cuplug-threads-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  cuplug_session_options with = {.struct_size = sizeof with, .cache_dir = dir};
  cuplug_session_options without = {.struct_size = sizeof without,
                                    .flags = CUPLUG_SESSION_NO_CACHE};
  cuplug_session_options in_process = {.struct_size = sizeof in_process,
                                       .flags = CUPLUG_SESSION_NO_CACHE | CUPLUG_SESSION_TRUSTED};
  cuplug_error *e = api->session_create(&with, &cached);
  if (!e) e = api->session_create(&without, &uncached);
  if (!e) e = api->session_create(&in_process, &trusted);
  for (int k = 0; !e && k < KERNELS; k++) {
    ir[k] = kernel_ir(k);
    e = compile(uncached, k, &want[k], &want_size[k]);
  }
  if (e) {
    fprintf(stderr, "setup: %s\n", api->error_message(e));
    return 1;
  }
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++)
    pthread_create(&threads[t], NULL, compiler, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  cuplug_cache_info ci = {.struct_size = sizeof ci, .session = cached};
  api->error_destroy(api->cache_info(&ci));
  if (ci.misses < KERNELS || ci.disk_entries != KERNELS ||
      ci.memory_hits + ci.disk_hits + ci.misses != THREADS / 2 * COMPILES)
    FAIL("cache: %llu misses, %llu hits, %llu entries on disk",
         (unsigned long long)ci.misses, (unsigned long long)(ci.memory_hits + ci.disk_hits),
         (unsigned long long)ci.disk_entries);
  cuplug_cache_clear_args clear = {.struct_size = sizeof clear, .session = cached};
  api->error_destroy(api->cache_clear(&clear));
  rmdir(dir); /* v1/ and its folders stay: cache_clear empties, it does not remove */
  api->session_destroy(cached);
  api->session_destroy(uncached);
  api->session_destroy(trusted);
  for (int k = 0; k < KERNELS; k++) free(ir[k]), free(want[k]);
  int f = atomic_load(&failures);
  printf("%d threads x %d compiles (%llu built, %llu found in the cache): %d failures\n",
         THREADS, COMPILES, (unsigned long long)ci.misses + THREADS / 2 * COMPILES,
         (unsigned long long)(ci.memory_hits + ci.disk_hits), f);
  return f ? 1 : 0;
}
