/* cache_bench.c - the result cache and parallel compiles, against a compile
 * built from scratch in the same run.
 *
 *   build/bin/cache_bench [CORPUS_DIR] [REPEATS]
 *
 * 1. Per corpus case (LTO-IR): the build (the default, safe session with
 *    CUPLUG_COMPILE_NO_CACHE), a hit from the session's memory, and a hit
 *    from disk (a new session on the same folder each time; making the
 *    session is not timed).  Medians.
 * 2. A cold process, from C: this program started again (--first-launch)
 *    to compile saxpy_kernel for the current GPU to a cubin, load it, get
 *    the kernel and launch it, with an empty cache folder and then a warm
 *    one.  The time from compile() to the kernel in hand is the target's
 *    "disk hit to a loaded kernel"; the process's whole wall time, from
 *    spawn to exit, is the cold start.  Without a GPU the process stops at
 *    the compile.
 * 3. Compile throughput, builds only: 1, 2, 4, ... threads, each with its
 *    compiles round-robin over the corpus, through the safe session (each
 *    thread's compiles in a helper of its own) and a trusted one (libNVVM
 *    in this process: whether libNVVM serialises shows here).
 *
 * 4. The remote tier (issue 23), on a Redis server the bench starts on a
 *    loopback port (redis-server: $CUPLUG_TEST_REDIS, else PATH; the
 *    section says it is skipped without one): cold processes as in 2, each
 *    with an empty disk folder, that build with the disk alone, build and
 *    store on the server too, and find the result on the server; and one
 *    whose disk holds it.  Interleaved, medians.  The difference of the two
 *    builds is what a remote adds to a build: the store.
 *
 *   build/bin/cache_bench CORPUS REPEATS --remote   runs section 4 alone.
 *
 * Targets (issue 10): a disk hit to a loaded kernel at most 0.25 ms; a
 * memory hit at most 10 us; 2 threads at least 1.7x one on the 2-core
 * development machine, 8 threads at least 6x on the H200. */
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"
#include "redis.h"

extern char **environ;

static const cuplug_api *api;

static void check(cuplug_error *e, const char *what) {
  if (!e) return;
  fprintf(stderr, "cache_bench: %s: %s\n", what, api->error_message(e));
  exit(1);
}

static cuplug_session *session_in(const char *dir, uint32_t flags) {
  cuplug_session_options o = {.struct_size = sizeof o, .cache_dir = dir, .flags = flags};
  cuplug_session *s;
  check(api->session_create(&o, &s), "session_create");
  return s;
}

/* One compile; returns its seconds. */
static double compile_once(cuplug_compile_args *a, cuplug_cache_result want) {
  double t0 = bench_now();
  check(api->compile(a), "compile");
  double t = bench_now() - t0;
  cuplug_artifact_info i = {.struct_size = sizeof i};
  api->artifact_info(a->artifact, &i);
  if (i.cache != want) {
    fprintf(stderr, "cache_bench: %s: expected cache result %d, got %d\n", a->entry, want,
            i.cache);
    exit(1);
  }
  api->artifact_destroy(a->artifact);
  return t;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st, (void)flag, (void)f;
  return remove(path);
}

static void remove_tree(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* ---- 1. hits ---- */

static void hits(bench_case *cases, int n, int reps, const char *dir) {
  printf("1. the cache, per case (LTO-IR, medians of %d)\n", reps);
  printf("%-14s %10s %12s %10s %14s %12s\n", "case", "build ms", "memory us", "disk us",
         "build/memory", "build/disk");
  double *tb = malloc(sizeof(double) * (size_t)reps), *tm = malloc(sizeof(double) * (size_t)reps);
  double *td = malloc(sizeof(double) * (size_t)reps);
  double logm = 0, logd = 0, sum_m = 0, sum_d = 0;
  for (int c = 0; c < n; c++) {
    cuplug_session *s = session_in(dir, 0);
    cuplug_compile_args a = cases[c].args;
    a.session = s;
    a.output = CUPLUG_OUTPUT_LTOIR;
    compile_once(&a, CUPLUG_CACHE_MISS); /* stores it */
    for (int r = 0; r < reps; r++) {
      cuplug_compile_args b = a;
      b.flags = CUPLUG_COMPILE_NO_CACHE;
      tb[r] = compile_once(&b, CUPLUG_CACHE_NONE);
      b = a;
      tm[r] = compile_once(&b, CUPLUG_CACHE_MEMORY);
      cuplug_session *fresh = session_in(dir, 0);
      b.session = fresh;
      td[r] = compile_once(&b, CUPLUG_CACHE_DISK);
      api->session_destroy(fresh);
    }
    api->session_destroy(s);
    double mb = bench_median(tb, reps), mm = bench_median(tm, reps), md = bench_median(td, reps);
    printf("%-14.14s %10.3f %12.2f %10.1f %14.0f %12.0f\n", cases[c].name, mb * 1e3, mm * 1e6,
           md * 1e6, mb / mm, mb / md);
    logm += log(mb / mm);
    logd += log(mb / md);
    sum_m += mm;
    sum_d += md;
  }
  printf("memory hit: mean %.2f us (build/memory, geometric mean %.0fx); disk hit: mean %.1f us "
         "(build/disk %.0fx)\n\n",
         sum_m / n * 1e6, exp(logm / n), sum_d / n * 1e6, exp(logd / n));
  free(tb);
  free(tm);
  free(td);
}

/* ---- 2. a cold process ---- */

/* The child: compile, load, get, launch saxpy_kernel; prints one line. */
static int first_launch(const char *corpus) {
  double t0 = bench_now();
  bench_case *cases;
  int n = bench_cases(corpus, &cases);
  bench_case *saxpy = NULL;
  for (int i = 0; i < n; i++)
    if (!strcmp(cases[i].name, "saxpy_kernel")) saxpy = &cases[i];
  if (!saxpy) {
    fprintf(stderr, "cache_bench: no saxpy_kernel in %s\n", corpus);
    return 1;
  }
  cuplug_session *s;
  check(api->session_create(NULL, &s), "session_create"); /* $CUPLUG_CACHE_DIR */
  cuplug_info info = {.struct_size = sizeof info};
  check(api->get_info(&info), "get_info");
  bool gpu = info.device_count > 0;
  uint64_t x = 0, y = 0, r = 0;
  enum { N = 1 << 20 };
  double t1 = bench_now();
  if (gpu) { /* the context, and the arrays: before the clock the target reads */
    check(api->mem_alloc(s, N * 4, &x), "mem_alloc");
    check(api->mem_alloc(s, N * 4, &y), "mem_alloc");
    check(api->mem_alloc(s, N * 4, &r), "mem_alloc");
  }
  double t2 = bench_now();
  cuplug_compile_args a = saxpy->args;
  a.session = s;
  a.output = gpu ? CUPLUG_OUTPUT_CUBIN : CUPLUG_OUTPUT_LTOIR;
  a.flags = gpu ? CUPLUG_COMPILE_CURRENT_DEVICE : 0;
  check(api->compile(&a), "compile");
  cuplug_artifact_info ai = {.struct_size = sizeof ai};
  api->artifact_info(a.artifact, &ai);
  double t3 = bench_now(), t4 = t3, t5 = t3;
  if (gpu) {
    cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
    check(api->load(&l), "load");
    cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
    check(api->kernel_get(&k), "kernel_get");
    t4 = bench_now();
    cuplug_array arr[3];
    uint64_t ptrs[] = {r, x, y};
    for (int i = 0; i < 3; i++)
      arr[i] = (cuplug_array){.data = ptrs[i], .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 1,
                              .shape = {N}, .strides = {4}};
    float alpha = 2;
    cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &arr[0]}, {CUPLUG_TYPE_ARRAY, &arr[1]},
                        {CUPLUG_TYPE_ARRAY, &arr[2]}, {CUPLUG_TYPE_FLOAT32, &alpha}};
    cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel,
                             .grid = {N / 256, 1, 1}, .block = {256, 1, 1}, .args = v,
                             .num_args = 4};
    check(api->launch(&la), "launch");
    check(api->synchronize(s), "synchronize");
    t5 = bench_now();
  }
  static const char *const where[] = {"none", "miss", "memory", "disk", "remote"};
  printf("first-launch cache=%s start_ms=%.3f context_ms=%.3f compile_ms=%.3f load_ms=%.3f "
         "launch_ms=%.3f hit_to_kernel_ms=%.3f gpu=%d\n",
         where[ai.cache], (t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3, (t4 - t3) * 1e3,
         (t5 - t4) * 1e3, (t4 - t2) * 1e3, gpu);
  return 0;
}

typedef struct run {
  double wall, compile, to_kernel, context;
  char cache[16];
} run;

/* A child whose cache folder is `dir` (and whose remote is
 * $CUPLUG_CACHE_REMOTE, when set). */
static run spawn_child(const char *self, const char *corpus, const char *dir) {
  char out[64];
  snprintf(out, sizeof out, "/tmp/cache-bench-%d.out", (int)getpid());
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  setenv("CUPLUG_CACHE_DIR", dir, 1);
  const char *argv[] = {self, "--first-launch", corpus, NULL};
  pid_t pid;
  double t0 = bench_now();
  if (posix_spawn(&pid, self, &fa, NULL, (char *const *)argv, environ) != 0) exit(1);
  int status;
  waitpid(pid, &status, 0);
  run r = {.wall = bench_now() - t0};
  posix_spawn_file_actions_destroy(&fa);
  size_t n;
  char *text = bench_read_file(out, &n);
  unlink(out);
  double start, load, launch;
  int gpu;
  if (!WIFEXITED(status) || WEXITSTATUS(status) || !text ||
      sscanf(text,
             "first-launch cache=%15s start_ms=%lf context_ms=%lf compile_ms=%lf load_ms=%lf "
             "launch_ms=%lf hit_to_kernel_ms=%lf gpu=%d",
             r.cache, &start, &r.context, &r.compile, &load, &launch, &r.to_kernel, &gpu) != 8) {
    fprintf(stderr, "cache_bench: the child failed: %s\n", text ? text : "(no output)");
    exit(1);
  }
  free(text);
  return r;
}

static void cold(const char *self, const char *corpus, int reps) {
  printf("2. a cold process to its first launched kernel, from C (saxpy_kernel, medians of %d)\n",
         reps);
  printf("%-12s %12s %12s %14s %16s\n", "cache", "process ms", "context ms", "compile ms",
         "compile+load ms");
  double *w = malloc(sizeof(double) * (size_t)reps), *c = malloc(sizeof(double) * (size_t)reps);
  double *k = malloc(sizeof(double) * (size_t)reps), *x = malloc(sizeof(double) * (size_t)reps);
  for (int warm = 0; warm < 2; warm++) {
    char dir[] = "/tmp/cuplug-cold-XXXXXX";
    if (!mkdtemp(dir)) exit(1);
    if (warm) spawn_child(self, corpus, dir); /* fills it */
    for (int r = 0; r < reps; r++) {
      if (!warm && r) { /* empty each time */
        remove_tree(dir);
        mkdir(dir, 0700);
      }
      run one = spawn_child(self, corpus, dir);
      if (strcmp(one.cache, warm ? "disk" : "miss") != 0) {
        fprintf(stderr, "cache_bench: a %s process found cache=%s\n", warm ? "warm" : "cold",
                one.cache);
        exit(1);
      }
      w[r] = one.wall, c[r] = one.compile, k[r] = one.to_kernel, x[r] = one.context;
    }
    remove_tree(dir);
    printf("%-12s %12.2f %12.2f %14.3f %16.3f\n", warm ? "warm (disk)" : "empty",
           bench_median(w, reps) * 1e3, bench_median(x, reps), bench_median(c, reps),
           bench_median(k, reps));
  }
  printf("(compile+load: compile(), load() and kernel_get(), the target's \"disk hit to a "
         "loaded kernel\"; without a GPU, compile alone)\n\n");
  free(w);
  free(c);
  free(k);
  free(x);
}

/* ---- 4. the remote tier ---- */

typedef enum { BUILD_DISK, BUILD_REMOTE, REMOTE_HIT, DISK_HIT, NUM_WAYS } way;

static t_redis server;
static char key_file[64];

/* The server and the key go with the bench, however it ends. */
static void remote_cleanup(void) {
  t_redis_stop(&server);
  if (key_file[0]) unlink(key_file);
}

static void remote(const char *self, const char *corpus, int reps) {
  printf("4. the remote tier: a cold process to its first launched kernel, on a loopback Redis "
         "(saxpy_kernel, medians of %d)\n", reps);
  if (!t_redis_server()) {
    printf("skipped: redis-server not found ($CUPLUG_TEST_REDIS, PATH)\n\n");
    return;
  }
  atexit(remote_cleanup);
  if (!t_redis_start(&server, NULL)) exit(1);
  char *key = key_file;
  snprintf(key_file, sizeof key_file, "/tmp/cuplug-bench-key-%d", (int)getpid());
  FILE *f = fopen(key, "wb");
  unsigned char bytes[32];
  for (int i = 0; i < 32; i++) bytes[i] = (unsigned char)(i * 131 + 7);
  if (!f || fwrite(bytes, 1, 32, f) != 32 || fclose(f) || chmod(key, 0600)) exit(1);
  setenv("CUPLUG_CACHE_REMOTE_KEY", key, 1);
  /* a time limit no loaded machine reaches: a hit must be a hit to be timed */
  setenv("CUPLUG_CACHE_REMOTE_TIMEOUT_MS", "5000", 1);
  static const char *const names[] = {"build, disk", "build, +remote", "remote hit",
                                      "disk hit"};
  static const char *const found[] = {"miss", "miss", "remote", "disk"};
  double *w[NUM_WAYS], *c[NUM_WAYS], *k[NUM_WAYS];
  for (int m = 0; m < NUM_WAYS; m++) {
    w[m] = malloc(sizeof(double) * (size_t)reps);
    c[m] = malloc(sizeof(double) * (size_t)reps);
    k[m] = malloc(sizeof(double) * (size_t)reps);
  }
  char warm[] = "/tmp/cuplug-remote-warm-XXXXXX";
  if (!mkdtemp(warm)) exit(1);
  setenv("CUPLUG_CACHE_REMOTE", server.url, 1);
  spawn_child(self, corpus, warm); /* the warm folder, and the server, hold it */
  for (int r = 0; r < reps; r++) {
    for (int m = 0; m < NUM_WAYS; m++) {
      char empty[] = "/tmp/cuplug-remote-cold-XXXXXX";
      if (!mkdtemp(empty)) exit(1);
      if (m == BUILD_DISK) unsetenv("CUPLUG_CACHE_REMOTE");
      else setenv("CUPLUG_CACHE_REMOTE", server.url, 1);
      if (m == BUILD_REMOTE) free(t_redis_do(&server, "FLUSHALL", NULL));
      run one = spawn_child(self, corpus, m == DISK_HIT ? warm : empty);
      remove_tree(empty);
      if (strcmp(one.cache, found[m]) != 0) {
        fprintf(stderr, "cache_bench: %s: the process found cache=%s\n", names[m], one.cache);
        exit(1);
      }
      w[m][r] = one.wall, c[m][r] = one.compile, k[m][r] = one.to_kernel;
    }
  }
  printf("%-16s %12s %14s %16s\n", "way", "process ms", "compile ms", "compile+load ms");
  double med[NUM_WAYS];
  for (int m = 0; m < NUM_WAYS; m++) {
    med[m] = bench_median(k[m], reps);
    printf("%-16s %12.2f %14.3f %16.3f\n", names[m], bench_median(w[m], reps) * 1e3,
           bench_median(c[m], reps), med[m]);
    free(w[m]), free(c[m]), free(k[m]);
  }
  printf("remote hit / disk hit %.2fx; build / remote hit %.1fx; what the remote adds to a "
         "build (its store): %.3f ms (%.1f%%)\n\n",
         med[REMOTE_HIT] / med[DISK_HIT], med[BUILD_DISK] / med[REMOTE_HIT],
         med[BUILD_REMOTE] - med[BUILD_DISK],
         100 * (med[BUILD_REMOTE] - med[BUILD_DISK]) / med[BUILD_DISK]);
  unsetenv("CUPLUG_CACHE_REMOTE");
  unsetenv("CUPLUG_CACHE_REMOTE_KEY");
  unsetenv("CUPLUG_CACHE_REMOTE_TIMEOUT_MS");
  remove_tree(warm);
  remote_cleanup();
  key_file[0] = '\0';
}

/* ---- 3. threads ---- */

typedef struct pool {
  bench_case *cases;
  int num_cases;
  cuplug_session *session;
  int per_thread;
  atomic_int failures;
} pool;

static void *compiler(void *arg) {
  pool *p = arg;
  static atomic_int start;
  int first = atomic_fetch_add(&start, 1);
  for (int i = 0; i < p->per_thread; i++) {
    cuplug_compile_args a = p->cases[(first + i) % p->num_cases].args;
    a.session = p->session;
    a.output = CUPLUG_OUTPUT_LTOIR;
    a.flags = CUPLUG_COMPILE_NO_CACHE;
    cuplug_error *e = api->compile(&a);
    if (e) {
      atomic_fetch_add(&p->failures, 1);
      api->error_destroy(e);
    } else {
      api->artifact_destroy(a.artifact);
    }
  }
  return NULL;
}

/* The machine's busy CPU time so far, in seconds (/proc/stat: every
 * process, the helpers among them). */
static double busy_seconds(void) {
  FILE *f = fopen("/proc/stat", "r");
  unsigned long long v[8] = {0};
  if (!f) return 0;
  int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                 &v[4], &v[5], &v[6], &v[7]);
  fclose(f);
  if (n != 8) return 0;
  unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7]; /* all but idle, iowait */
  return (double)busy / (double)sysconf(_SC_CLK_TCK);
}

/* Compiles a second; *cores receives the CPUs kept busy meanwhile. */
static double throughput(pool *p, int threads, double *cores) {
  pthread_t t[64];
  double b0 = busy_seconds(), t0 = bench_now();
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, compiler, p);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  double wall = bench_now() - t0;
  *cores = (busy_seconds() - b0) / wall;
  return (double)(threads * p->per_thread) / wall;
}

static void scaling(bench_case *cases, int n) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  printf("3. compile throughput, builds only (LTO-IR, round-robin over the corpus; %ld CPUs)\n",
         cpus);
  printf("%-8s %16s %10s %8s %16s %10s %8s\n", "threads", "safe compiles/s", "speedup",
         "cores", "trusted comp/s", "speedup", "cores");
  cuplug_session *safe = session_in("", CUPLUG_SESSION_NO_CACHE);
  cuplug_session *trusted = session_in("", CUPLUG_SESSION_NO_CACHE | CUPLUG_SESSION_TRUSTED);
  /* each thread compiles for about half a second */
  pool ps = {cases, n, safe, 20 * n, 0}, pt = {cases, n, trusted, 20 * n, 0};
  double cs, ct;
  throughput(&ps, 1, &cs); /* warm-up: helpers started, libraries loaded */
  throughput(&pt, 1, &ct);
  double base_s = 0, base_t = 0;
  for (int threads = 1; threads <= 2 * cpus && threads <= 64; threads *= 2) {
    double s = 0, t = 0;
    for (int round = 0; round < 2; round++) { /* the better of two */
      double c, a = throughput(&ps, threads, &c);
      if (a > s) s = a, cs = c;
      double b = throughput(&pt, threads, &c);
      if (b > t) t = b, ct = c;
    }
    if (threads == 1) base_s = s, base_t = t;
    printf("%-8d %16.0f %9.2fx %8.2f %16.0f %9.2fx %8.2f\n", threads, s, s / base_s, cs, t,
           t / base_t, ct);
  }
  printf("(cores: the CPUs the machine kept busy meanwhile, helpers and validators included)\n");
  if (ps.failures || pt.failures) {
    fprintf(stderr, "cache_bench: %d compiles failed\n", ps.failures + pt.failures);
    exit(1);
  }
  api->session_destroy(safe);
  api->session_destroy(trusted);
}

int main(int argc, char **argv) {
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api) return 1;
  if (argc == 3 && !strcmp(argv[1], "--first-launch")) return first_launch(argv[2]);
  const char *corpus = argc > 1 ? argv[1] : "tests/conformance/numba";
  int reps = argc > 2 ? atoi(argv[2]) : 21;
  cuplug_info info = {.struct_size = sizeof info};
  check(api->get_info(&info), "get_info");
  if (info.nvvm_major < 0) {
    printf("cache_bench: skipped: no libNVVM (%s)\n", info.nvvm_status);
    return 77;
  }
  bench_case *cases;
  int n = bench_cases(corpus, &cases);
  if (n <= 0) {
    fprintf(stderr, "cache_bench: no cases in %s\n", corpus);
    return 1;
  }
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len <= 0) return 1;
  self[len] = '\0';
  if (argc > 3 && !strcmp(argv[3], "--remote")) {
    remote(self, corpus, reps < 11 ? reps : 11);
    bench_cases_free(cases, n);
    return 0;
  }
  char dir[] = "/tmp/cuplug-cache-bench-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  hits(cases, n, reps, dir);
  remove_tree(dir);
  cold(self, corpus, reps < 11 ? reps : 11);
  remote(self, corpus, reps < 11 ? reps : 11);
  scaling(cases, n);
  bench_cases_free(cases, n);
  return 0;
}
