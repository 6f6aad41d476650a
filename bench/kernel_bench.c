/* kernel_bench.c - the corpus kernels built by cuplug against numba-cuda's
 * own builds of them: GPU time of the same launch of each.
 *
 *   python3 bench/numba_cubins.py tests/conformance/numba NUMBA_DIR   (numba-cuda's)
 *   build/bin/kernel_bench tests/conformance/numba NUMBA_DIR
 *
 * Both cubins are loaded and launched through cuplug with identical
 * arguments; CUDA events time each launch; medians of 51.
 * Target (issue 3): cuplug's kernels at most 1.02x numba-cuda's. */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "json.h"

enum { ROUNDS = 51 };

static const cuplug_api *api;
static bench_cuda cu;

static double time_launch(cuplug_launch_args *la) { return bench_launch_ms(api, &cu, la, 3, ROUNDS); }

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: kernel_bench CORPUS_DIR NUMBA_CUBIN_DIR\n");
    return 2;
  }
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api || bench_cuda_load(&cu)) {
    printf("kernel_bench: skipped: no CUDA device\n");
    return 77;
  }
  cuplug_session *s;
  bench_check(api, api->session_create(NULL, &s), "session_create");
  /* one workload for every kernel: arrays of 2^24 float32 (k_atomic's
   * counters are int32), launched over the arrays with 256-thread blocks */
  enum { N = 1 << 24, BLOCK = 256 };
  float *host = malloc((size_t)N * 4);
  for (int i = 0; i < N; i++) host[i] = (float)(i % 97) * 0.25f;
  uint64_t bufs[3];
  for (int i = 0; i < 3; i++) {
    bench_check(api, api->mem_alloc(s, (size_t)N * 4, &bufs[i]), "mem_alloc");
    bench_check(api, api->memcpy_to_device(s, bufs[i], host, (size_t)N * 4), "memcpy");
  }
  static const char *const cases[] = {"saxpy_kernel", "k_atomic", "k_reduce"};
  printf("%-14s %12s %12s %8s\n", "kernel", "numba ms", "cuplug ms", "ratio");
  double logsum = 0;
  int count = 0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/%s/case.json", argv[1], cases[c]);
    char *text = bench_read_file(path, &n);
    snprintf(path, sizeof path, "%s/%s.cubin", argv[2], cases[c]);
    size_t cubin_size;
    char *numba_cubin = bench_read_file(path, &cubin_size);
    snprintf(path, sizeof path, "%s/%s.name", argv[2], cases[c]);
    char *numba_name = bench_read_file(path, &n);
    if (!text || !numba_cubin || !numba_name) {
      printf("%-14s (no numba-cuda build: run bench/numba_cubins.py)\n", cases[c]);
      continue;
    }
    json *j = json_parse(text, NULL, 0);
    snprintf(path, sizeof path, "%s/%s/input.ll", argv[1], cases[c]);
    char *ir = bench_read_file(path, &n);
    cuplug_module m = {sizeof m, "input.ll", ir, n};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                             .num_modules = 1, .entry = json_string(j, "entry"),
                             .signature = json_string(j, "signature"), .kind = CUPLUG_KERNEL,
                             .output = CUPLUG_OUTPUT_CUBIN,
                             .flags = CUPLUG_COMPILE_CURRENT_DEVICE};
    bench_check(api, api->compile(&a), "compile");
    cuplug_load_args ours = {.struct_size = sizeof ours, .session = s, .artifact = a.artifact};
    cuplug_load_args theirs = {.struct_size = sizeof theirs, .session = s, .image = numba_cubin,
                               .size = cubin_size};
    bench_check(api, api->load(&ours), "load cuplug's");
    bench_check(api, api->load(&theirs), "load numba-cuda's");
    cuplug_kernel_args ko = {.struct_size = sizeof ko, .library = ours.library};
    cuplug_kernel_args kt = {.struct_size = sizeof kt, .library = theirs.library,
                             .name = numba_name, .signature = json_string(j, "signature")};
    bench_check(api, api->kernel_get(&ko), "kernel_get cuplug's");
    bench_check(api, api->kernel_get(&kt), "kernel_get numba-cuda's");

    cuplug_array arr[3];
    cuplug_value v[4];
    const cuplug_type *sig;
    bench_check(api, api->type_parse(json_string(j, "signature"), &sig), "type_parse");
    cuplug_type_info ti = {.struct_size = sizeof ti, .type = sig};
    bench_check(api, api->type_info(&ti), "type_info");
    float alpha = 1.5f;
    size_t nv = 0;
    for (size_t i = 0; i < ti.num_args; i++) {
      cuplug_type_info ai = {.struct_size = sizeof ai, .type = ti.args[i]};
      bench_check(api, api->type_info(&ai), "type_info");
      if (ai.kind == CUPLUG_TYPE_ARRAY) {
        cuplug_type_info ei = {.struct_size = sizeof ei, .type = ai.element};
        bench_check(api, api->type_info(&ei), "type_info");
        arr[i] = (cuplug_array){.data = bufs[i % 3], .dtype = ei.kind, .ndim = 1,
                                .shape = {N}, .strides = {ei.size}};
        v[nv++] = (cuplug_value){CUPLUG_TYPE_ARRAY, &arr[i]};
      } else {
        v[nv++] = (cuplug_value){CUPLUG_TYPE_FLOAT32, &alpha};
      }
    }
    cuplug_launch_args lo = {.struct_size = sizeof lo, .kernel = ko.kernel,
                             .grid = {N / BLOCK, 1, 1}, .block = {BLOCK, 1, 1}, .args = v,
                             .num_args = nv};
    cuplug_launch_args lt = lo;
    lt.kernel = kt.kernel;
    double tn = time_launch(&lt), tc = time_launch(&lo);
    double tn2 = time_launch(&lt), tc2 = time_launch(&lo); /* twice, interleaved */
    tn = fmin(tn, tn2);
    tc = fmin(tc, tc2);
    printf("%-14s %12.4f %12.4f %8.3f\n", cases[c], tn, tc, tc / tn);
    logsum += log(tc / tn);
    count++;
    api->library_unload(ours.library);
    api->library_unload(theirs.library);
    api->artifact_destroy(a.artifact);
    json_free(j);
    free(ir);
    free(text);
    free(numba_cubin);
    free(numba_name);
  }
  if (count) printf("geometric mean ratio cuplug / numba-cuda: %.3f (%d kernels)\n",
                    exp(logsum / count), count);
  api->session_destroy(s);
  free(host);
  return 0;
}
