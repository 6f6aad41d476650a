/* host_bench.c - device code on the CPU (CUPLUG_OUTPUT_HOST), against the
 * anchors measured in the same run.
 *
 *   build/bin/host_bench [TESTS_DIR] [ROUNDS]
 *
 *   saxpy    the corpus's saxpy_kernel over 2^24 float32 elements, on one
 *            host thread / the same loop in C (this file, built -O2);
 *            then on 1, 2, 4, ... host threads up to the cores: scaling
 *   reduce   k_reduce (shared memory, syncthreads in a loop: fibers), and
 *   warp     a warp sum by shfl_down (fibers), in elements per second
 *   launch   a launch of one block of 32 threads (saxpy), on every core:
 *            the host cost of a launch
 *   compile  the corpus's cases compiled and loaded for the host (LLVM O2,
 *            ORC) / compiled to PTX by libNVVM (skipped without it)
 *
 * Each figure is the median of ROUNDS (default 5). */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "json.h"

static const cuplug_api *api;
static cuplug_session *s;

static void check(cuplug_error *e, const char *what) {
  if (!e) return;
  fprintf(stderr, "host_bench: %s: %s: %s\n", what, api->status_name(api->error_code(e)),
          api->error_message(e));
  exit(1);
}

typedef struct corpus_case {
  char *ir, *entry, *sig, *abi_name;
  size_t size;
  bool kernel;
} corpus_case;

static corpus_case read_case(const char *tests, const char *name) {
  char path[4096];
  corpus_case c = {0};
  snprintf(path, sizeof path, "%s/conformance/numba/%s/input.ll", tests, name);
  c.ir = bench_read_file(path, &c.size);
  snprintf(path, sizeof path, "%s/conformance/numba/%s/case.json", tests, name);
  size_t n;
  char *text = bench_read_file(path, &n);
  if (!c.ir || !text) {
    fprintf(stderr, "host_bench: cannot read the case %s under %s\n", name, tests);
    exit(1);
  }
  json *j = json_parse(text, NULL, 0);
  c.entry = strdup(json_string(j, "entry"));
  c.sig = strdup(json_string(j, "signature"));
  const char *abi_name = json_string(j, "abi_name");
  c.abi_name = abi_name ? strdup(abi_name) : NULL;
  c.kernel = !strcmp(json_string(j, "kind"), "kernel");
  json_free(j);
  free(text);
  return c;
}

static cuplug_artifact *compile(const char *ir, size_t size, const char *entry, const char *sig,
                                const char *abi_name, bool kernel, cuplug_output output) {
  cuplug_module m = {sizeof m, "input.ll", ir, size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = sig,
                           .kind = kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
                           .abi_name = abi_name, .output = output};
  if (kernel && !strncmp(ir, "define void", 11)) a.entry_abi = CUPLUG_ABI_C;
  check(api->compile(&a), entry);
  return a.artifact;
}

static cuplug_kernel *host_kernel(const char *ir, size_t size, const char *entry,
                                  const char *sig, cuplug_library **lib) {
  cuplug_artifact *art = compile(ir, size, entry, sig, NULL, true, CUPLUG_OUTPUT_HOST);
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = art};
  check(api->load(&l), "load");
  api->artifact_destroy(art);
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  check(api->kernel_get(&k), "kernel_get");
  *lib = l.library;
  return k.kernel;
}

static cuplug_array array1(void *p, cuplug_type_kind t, int64_t n) {
  return (cuplug_array){.data = (uint64_t)(uintptr_t)p, .dtype = t, .ndim = 1, .shape = {n},
                        .strides = {4}};
}

static double launch_time(cuplug_kernel *k, unsigned grid, unsigned block, cuplug_value *v,
                          size_t n, unsigned threads) {
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k, .grid = {grid, 1, 1},
                          .block = {block, 1, 1}, .args = v, .num_args = n,
                          .host_threads = threads};
  double t0 = bench_now();
  check(api->launch(&a), "launch");
  return bench_now() - t0;
}

/* The anchor: the loop numba's saxpy is, in C. */
__attribute__((noinline)) static void saxpy_c(float *r, const float *x, const float *y, float a,
                                              long n) {
  for (long i = 0; i < n; i++) r[i] = a * x[i] + y[i];
}

static void bench_saxpy(const char *tests, int rounds) {
  enum { N = 1 << 24 };
  corpus_case c = read_case(tests, "saxpy_kernel");
  cuplug_library *lib;
  cuplug_kernel *k = host_kernel(c.ir, c.size, c.entry, c.sig, &lib);
  float *x = malloc(N * 4), *y = malloc(N * 4), *r = malloc(N * 4);
  for (long i = 0; i < N; i++) {
    x[i] = (float)(i % 1000) * 0.25f;
    y[i] = (float)(i % 77);
  }
  float a = 1.5f;
  cuplug_array ar = array1(r, CUPLUG_TYPE_FLOAT32, N), ax = array1(x, CUPLUG_TYPE_FLOAT32, N),
               ay = array1(y, CUPLUG_TYPE_FLOAT32, N);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &ar}, {CUPLUG_TYPE_ARRAY, &ax}, {CUPLUG_TYPE_ARRAY, &ay},
                      {CUPLUG_TYPE_FLOAT32, &a}};
  double tc[64], th[64];
  for (int i = 0; i < rounds; i++) {
    double t0 = bench_now();
    saxpy_c(r, x, y, a, N);
    tc[i] = bench_now() - t0;
    th[i] = launch_time(k, N / 256, 256, v, 4, 1);
  }
  double mc = bench_median(tc, rounds), mh = bench_median(th, rounds);
  printf("saxpy 2^24 float32, 1 host thread: cuplug %.1f ms, C -O2 %.1f ms: %.2fx (%.0f M "
         "elements/s)\n",
         mh * 1e3, mc * 1e3, mh / mc, N / mh * 1e-6);
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  for (long t = 2;; t *= 2) { /* 2, 4, ... and every core */
    if (t > cores) t = cores;
    if (t < 2) break;
    for (int i = 0; i < rounds; i++) th[i] = launch_time(k, N / 256, 256, v, 4, (unsigned)t);
    double m = bench_median(th, rounds);
    printf("  %2ld host threads: %.1f ms, %.2fx one thread\n", t, m * 1e3, mh / m);
    if (t == cores) break;
  }
  api->library_unload(lib);
  free(x);
  free(y);
  free(r);
}

static void bench_launch(const char *tests, int rounds) {
  corpus_case c = read_case(tests, "saxpy_kernel");
  cuplug_library *lib;
  cuplug_kernel *k = host_kernel(c.ir, c.size, c.entry, c.sig, &lib);
  float x[32] = {0}, y[32] = {0}, r[32], a = 2;
  cuplug_array ar = array1(r, CUPLUG_TYPE_FLOAT32, 32), ax = array1(x, CUPLUG_TYPE_FLOAT32, 32),
               ay = array1(y, CUPLUG_TYPE_FLOAT32, 32);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &ar}, {CUPLUG_TYPE_ARRAY, &ax}, {CUPLUG_TYPE_ARRAY, &ay},
                      {CUPLUG_TYPE_FLOAT32, &a}};
  double t[64];
  for (int i = 0; i < rounds; i++) {
    double t0 = bench_now();
    for (int n = 0; n < 1000; n++) launch_time(k, 1, 32, v, 4, 0);
    t[i] = (bench_now() - t0) / 1000;
  }
  printf("launch of 1 block of 32 threads (every core): %.1f us\n", bench_median(t, rounds) * 1e6);
  api->library_unload(lib);
}

static void bench_reduce(const char *tests, int rounds) {
  enum { N = 1 << 20 };
  corpus_case c = read_case(tests, "k_reduce");
  cuplug_library *lib;
  cuplug_kernel *k = host_kernel(c.ir, c.size, c.entry, c.sig, &lib);
  float *x = malloc(N * 4), *out = malloc(N / 256 * 4);
  for (long i = 0; i < N; i++) x[i] = 1.0f;
  cuplug_array ao = array1(out, CUPLUG_TYPE_FLOAT32, N / 256), ax = array1(x, CUPLUG_TYPE_FLOAT32, N);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &ao}, {CUPLUG_TYPE_ARRAY, &ax}};
  double t1[64], tn[64];
  for (int i = 0; i < rounds; i++) {
    t1[i] = launch_time(k, N / 256, 256, v, 2, 1);
    tn[i] = launch_time(k, N / 256, 256, v, 2, 0);
  }
  double m1 = bench_median(t1, rounds), mn = bench_median(tn, rounds);
  printf("k_reduce 2^20 float32 (9 barriers a block, fibers): %.1f M elements/s on 1 host "
         "thread, %.1f M on every core\n",
         N / m1 * 1e-6, N / mn * 1e-6);
  api->library_unload(lib);
  free(x);
  free(out);
}

/* out[block] = the sum of each warp's x by shfl_down, lane 0's. */
static const char warp_ir[] =
    "define void @k_warp(float* %out, float* %x) {\n"
    "entry:\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %nt = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %base = mul i32 %b, %nt\n"
    "  %i = add i32 %base, %t\n"
    "  %px = getelementptr float, float* %x, i32 %i\n"
    "  %v0 = load float, float* %px\n"
    "  br label %loop\n"
    "loop:\n"
    "  %v = phi float [%v0, %entry], [%v1, %loop]\n"
    "  %d = phi i32 [16, %entry], [%d1, %loop]\n"
    "  %bits = bitcast float %v to i32\n"
    "  %p = call {i32, i1} @llvm.nvvm.shfl.sync.i32(i32 -1, i32 2, i32 %bits, i32 %d, i32 31)\n"
    "  %o = extractvalue {i32, i1} %p, 0\n"
    "  %of = bitcast i32 %o to float\n"
    "  %v1 = fadd float %v, %of\n"
    "  %d1 = lshr i32 %d, 1\n"
    "  %more = icmp ne i32 %d1, 0\n"
    "  br i1 %more, label %loop, label %done\n"
    "done:\n"
    "  %lane = and i32 %t, 31\n"
    "  %first = icmp eq i32 %lane, 0\n"
    "  br i1 %first, label %store, label %exit\n"
    "store:\n"
    "  %w = lshr i32 %i, 5\n"
    "  %po = getelementptr float, float* %out, i32 %w\n"
    "  store float %v1, float* %po\n"
    "  br label %exit\n"
    "exit:\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare {i32, i1} @llvm.nvvm.shfl.sync.i32(i32, i32, i32, i32, i32)\n";

static void bench_warp(int rounds) {
  enum { N = 1 << 20 };
  cuplug_library *lib;
  cuplug_kernel *k = host_kernel(warp_ir, strlen(warp_ir), "k_warp",
                                 "void(CPointer(float32), CPointer(float32))", &lib);
  float *x = malloc(N * 4), *out = malloc(N / 32 * 4);
  for (long i = 0; i < N; i++) x[i] = 1.0f;
  uint64_t po = (uintptr_t)out, px = (uintptr_t)x;
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &po}, {CUPLUG_TYPE_POINTER, &px}};
  double t1[64], tn[64];
  for (int i = 0; i < rounds; i++) {
    t1[i] = launch_time(k, N / 256, 256, v, 2, 1);
    tn[i] = launch_time(k, N / 256, 256, v, 2, 0);
  }
  if (out[0] != 32.0f || out[N / 32 - 1] != 32.0f) {
    fprintf(stderr, "host_bench: k_warp summed %g, not 32\n", out[0]);
    exit(1);
  }
  double m1 = bench_median(t1, rounds), mn = bench_median(tn, rounds);
  printf("k_warp 2^20 float32 (5 shuffles a thread, fibers): %.1f M elements/s on 1 host "
         "thread, %.1f M on every core\n",
         N / m1 * 1e-6, N / mn * 1e-6);
  api->library_unload(lib);
  free(x);
  free(out);
}

static void bench_compile(const char *tests, int rounds) {
  static const char *const names[] = {"add_f32", "add_i32",  "dev_bool",     "dev_ptr_f32",
                                      "dev_u8",  "poly_f64", "pred_i32",     "k_atomic",
                                      "k_reduce", "saxpy_kernel"};
  bool nvvm = true;
  double log_ratio = 0;
  int counted = 0;
  printf("compile latency (median of %d): host = compile + load (LLVM O2, ORC); PTX = libNVVM\n",
         rounds);
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    corpus_case c = read_case(tests, names[i]);
    double th[64], tp[64];
    for (int r = 0; r < rounds; r++) {
      double t0 = bench_now();
      cuplug_artifact *art = compile(c.ir, c.size, c.entry, c.sig, c.abi_name, c.kernel,
                                     CUPLUG_OUTPUT_HOST);
      cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = art};
      check(api->load(&l), "load");
      th[r] = bench_now() - t0;
      api->library_unload(l.library);
      api->artifact_destroy(art);
      tp[r] = 0;
      if (nvvm) {
        cuplug_module m = {sizeof m, "input.ll", c.ir, c.size};
        const cuplug_module *mods[] = {&m};
        cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                                 .num_modules = 1, .entry = c.entry, .signature = c.sig,
                                 .kind = c.kernel ? CUPLUG_KERNEL : CUPLUG_DEVICE_FUNCTION,
                                 .abi_name = c.abi_name};
        t0 = bench_now();
        cuplug_error *e = api->compile(&a);
        tp[r] = bench_now() - t0;
        if (e) {
          nvvm = false; /* no libNVVM here: host figures only */
          api->error_destroy(e);
        }
        api->artifact_destroy(a.artifact);
      }
    }
    double mh = bench_median(th, rounds), mp = bench_median(tp, rounds);
    if (nvvm) {
      printf("  %-13s host %6.2f ms, PTX %6.2f ms: %.2fx\n", names[i], mh * 1e3, mp * 1e3, mh / mp);
      log_ratio += log(mh / mp);
      counted++;
    } else {
      printf("  %-13s host %6.2f ms\n", names[i], mh * 1e3);
    }
  }
  if (counted) printf("  geometric mean host / libNVVM: %.2fx\n", exp(log_ratio / counted));
}

int main(int argc, char **argv) {
  const char *tests = argc > 1 ? argv[1] : "tests";
  int rounds = argc > 2 ? atoi(argv[2]) : 5;
  if (rounds < 1 || rounds > 64) rounds = 5;
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  /* no cache: the libNVVM column is a compile, not a hit (the host target
   * is never cached) */
  cuplug_session_options o = {.struct_size = sizeof o, .flags = CUPLUG_SESSION_NO_CACHE};
  check(api->session_create(&o, &s), "session_create");
  bench_saxpy(tests, rounds);
  bench_reduce(tests, rounds);
  bench_warp(rounds);
  bench_launch(tests, rounds);
  bench_compile(tests, rounds);
  api->session_destroy(s);
  return 0;
}
