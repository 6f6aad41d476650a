/* kernel_bench.c - the corpus kernels built by cuplug against the same
 * kernels written in CUDA C++ and compiled by NVRTC, and against
 * numba-cuda's own builds of them: GPU time of the same launch of each.
 *
 *   python3 bench/numba_cubins.py tests/conformance/numba NUMBA_DIR   (numba-cuda's)
 *   build/bin/kernel_bench tests/conformance/numba [NUMBA_DIR]
 *
 * One workload for every kernel: arrays of 2^24 float32 (k_atomic's
 * counters are int32), launched over the arrays with 256-thread blocks;
 * array argument i is buffer i % 3, the float32 scalar is 1.5.
 *   - cuplug: input.ll compiled by cuplug to a cubin for the current device;
 *   - NVRTC: the kernel as a CUDA C++ programmer writes it (below: the
 *     arithmetic of input.ll, pointers and the element count instead of
 *     numba's array structs, no __restrict__ as numba gives none), compiled
 *     at run time by bare NVRTC (-arch=sm_<cc>, its defaults otherwise);
 *   - numba-cuda: its own cubin, when NUMBA_DIR holds one;
 *   - NVPTX: input.ll compiled by cuplug through LLVM 22's NVPTX backend
 *     (backend llvm) rather than libNVVM, its result compared with
 *     libNVVM's build byte for byte (issue 20: at most 1.05x libNVVM's).
 * All four are loaded and launched through cuplug (the C++ kernels by a
 * CPointer signature); CUDA events time each launch; medians of 51, taken
 * twice with the builds interleaved, the lower kept.  saxpy's and k_reduce's
 * results are compared with the C++ kernel's, byte for byte.
 * Targets: issue 10, cuplug's kernels within 2% of CUDA C++ through NVRTC
 * (ratio at most 1.02); issue 3, at most 1.02x numba-cuda's. */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "json.h"

enum { ROUNDS = 51, N = 1 << 24, BLOCK = 256 };

static const cuplug_api *api;
static bench_cuda cu;

/* The corpus kernels in CUDA C++.  numba's cuda.grid(1) is
 * ntid.x * ctaid.x + tid.x in int64; the bound is the array's size. */
static const char cpp_src[] =
    "extern \"C\" __global__ void saxpy_kernel(float *r, const float *x, const float *y,\n"
    "                                          float a, long long n) {\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) r[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void k_atomic(float *acc, int *cnt, const float *x, long long n) {\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) {\n"
    "    atomicAdd(&acc[0], x[i]);\n"
    "    atomicMax(&cnt[1], (int)i);\n"
    "    atomicAdd(&cnt[0], 1);\n"
    "  }\n"
    "}\n"
    "extern \"C\" __global__ void k_reduce(float *out, const float *x, long long n) {\n"
    "  __shared__ float s[256];\n"
    "  int t = threadIdx.x;\n"
    "  long long i = (long long)blockIdx.x * blockDim.x + t;\n"
    "  s[t] = i < n ? x[i] : 0.0f;\n"
    "  __syncthreads();\n"
    "  for (int stride = 128; stride > 0; stride /= 2) {\n"
    "    if (t < stride) s[t] += s[t + stride];\n"
    "    __syncthreads();\n"
    "  }\n"
    "  if (t == 0) out[blockIdx.x] = s[0];\n"
    "}\n";

static const struct {
  const char *name;      /* the corpus case, and the C++ kernel's name */
  const char *signature; /* the C++ kernel's */
  size_t check_bytes;    /* of buffer 0 compared after a launch; 0: none (atomics) */
} cases[] = {
    {"saxpy_kernel",
     "void(CPointer(float32), CPointer(float32), CPointer(float32), float32, int64)",
     (size_t)N * 4},
    {"k_atomic", "void(CPointer(float32), CPointer(int32), CPointer(float32), int64)", 0},
    {"k_reduce", "void(CPointer(float32), CPointer(float32), int64)", (size_t)N / BLOCK * 4},
};

static double time_launch(cuplug_launch_args *la) { return bench_launch_ms(api, &cu, la, 3, ROUNDS); }

static cuplug_kernel *kernel_of(cuplug_session *s, const void *image, size_t size,
                                const char *name, const char *signature, cuplug_library **lib) {
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .image = image, .size = size};
  bench_check(api, api->load(&l), "load");
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library, .name = name,
                          .signature = signature};
  bench_check(api, api->kernel_get(&k), "kernel_get");
  *lib = l.library;
  return k.kernel;
}

/* Buffer 0 after one launch of la (launched on a fresh buffer 0): the
 * first `bytes` of it (free it). */
/* input.ll compiled by cuplug to a cubin for the current device, by the
 * backend given, and loaded: its kernel. */
static cuplug_kernel *cuplug_build(cuplug_session *s, const json *j, const char *ir,
                                   cuplug_backend backend, cuplug_library **lib) {
  cuplug_module m = {sizeof m, "input.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = json_string(j, "entry"),
                           .signature = json_string(j, "signature"), .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_CUBIN,
                           .flags = CUPLUG_COMPILE_CURRENT_DEVICE, .backend = backend};
  bench_check(api, api->compile(&a), backend == CUPLUG_BACKEND_LLVM ? "compile (NVPTX)" : "compile");
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  bench_check(api, api->load(&l), "load cuplug's");
  api->artifact_destroy(a.artifact);
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  bench_check(api, api->kernel_get(&k), "kernel_get cuplug's");
  *lib = l.library;
  return k.kernel;
}

static char *result_of(cuplug_session *s, cuplug_launch_args *la, uint64_t buf0, size_t bytes) {
  char *out = malloc(bytes);
  cu.memset_d32(buf0, 0, (size_t)N);
  bench_check(api, api->launch(la), "launch");
  bench_check(api, api->synchronize(s), "synchronize");
  bench_check(api, api->memcpy_to_host(s, out, buf0, bytes), "memcpy_to_host");
  return out;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: kernel_bench CORPUS_DIR [NUMBA_CUBIN_DIR]\n");
    return 2;
  }
  const char *numba_dir = argc == 3 ? argv[2] : NULL;
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api || bench_cuda_load(&cu)) {
    printf("kernel_bench: skipped: no CUDA device\n");
    return 77;
  }
  bench_nvrtc nvrtc;
  if (!bench_nvrtc_load(&nvrtc)) {
    printf("kernel_bench: skipped: NVRTC not found\n");
    return 77;
  }
  cuplug_info info = {.struct_size = sizeof info};
  bench_check(api, api->get_info(&info), "get_info");
  size_t cpp_size;
  char *cpp_cubin = bench_nvrtc_cubin(
      &nvrtc, cpp_src, info.device_cc_major * 10 + info.device_cc_minor, &cpp_size);
  if (!cpp_cubin) {
    fprintf(stderr, "kernel_bench: NVRTC could not compile the CUDA C++ kernels\n");
    return 1;
  }
  cuplug_session *s;
  bench_check(api, api->session_create(NULL, &s), "session_create");
  float *host = malloc((size_t)N * 4);
  for (int i = 0; i < N; i++) host[i] = (float)(i % 97) * 0.25f;
  uint64_t bufs[3];
  for (int i = 0; i < 3; i++) {
    bench_check(api, api->mem_alloc(s, (size_t)N * 4, &bufs[i]), "mem_alloc");
    bench_check(api, api->memcpy_to_device(s, bufs[i], host, (size_t)N * 4), "memcpy");
  }
  printf("kernels on %s (sm_%d%d), %d elements, %d-thread blocks; medians of %d launches, ms\n",
         info.device_name, info.device_cc_major, info.device_cc_minor, N, BLOCK, ROUNDS);
  printf("%-14s %10s %10s %10s %10s %13s %13s %12s %8s\n", "kernel", "nvrtc ms", "numba ms",
         "cuplug ms", "nvptx ms", "cuplug/nvrtc", "cuplug/numba", "nvptx/nvvm", "same");
  double log_cpp = 0, log_numba = 0, log_nvptx = 0;
  int n_cpp = 0, n_numba = 0;
  bool all_same = true;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char path[4096];
    size_t n;
    snprintf(path, sizeof path, "%s/%s/case.json", argv[1], cases[c].name);
    char *text = bench_read_file(path, &n);
    snprintf(path, sizeof path, "%s/%s/input.ll", argv[1], cases[c].name);
    char *ir = bench_read_file(path, &n);
    if (!text || !ir) {
      fprintf(stderr, "kernel_bench: %s: no case.json or input.ll\n", cases[c].name);
      return 1;
    }
    json *j = json_parse(text, NULL, 0);
    const char *signature = json_string(j, "signature");
    char *numba_cubin = NULL, *numba_name = NULL;
    size_t numba_size = 0;
    if (numba_dir) {
      snprintf(path, sizeof path, "%s/%s.cubin", numba_dir, cases[c].name);
      numba_cubin = bench_read_file(path, &numba_size);
      snprintf(path, sizeof path, "%s/%s.name", numba_dir, cases[c].name);
      numba_name = bench_read_file(path, &n);
    }

    cuplug_library *ours, *nvptx_lib, *cpp_lib, *numba_lib = NULL;
    cuplug_kernel *ko = cuplug_build(s, j, ir, CUPLUG_BACKEND_LIBNVVM, &ours);
    cuplug_kernel *kp = cuplug_build(s, j, ir, CUPLUG_BACKEND_LLVM, &nvptx_lib);
    cuplug_kernel *kc = kernel_of(s, cpp_cubin, cpp_size, cases[c].name, cases[c].signature,
                                  &cpp_lib);
    cuplug_kernel *kn = numba_cubin && numba_name
                            ? kernel_of(s, numba_cubin, numba_size, numba_name, signature,
                                        &numba_lib)
                            : NULL;

    /* the arguments: numba's arrays for cuplug's and numba-cuda's builds,
     * the same buffers as pointers (and the count) for the C++ kernel */
    cuplug_array arr[8];
    cuplug_value v[8], vc[9];
    const cuplug_type *sig;
    bench_check(api, api->type_parse(signature, &sig), "type_parse");
    cuplug_type_info ti = {.struct_size = sizeof ti, .type = sig};
    bench_check(api, api->type_info(&ti), "type_info");
    float alpha = 1.5f;
    int64_t count = N;
    size_t nv = 0;
    for (size_t i = 0; i < ti.num_args && i < 8; i++) {
      cuplug_type_info ai = {.struct_size = sizeof ai, .type = ti.args[i]};
      bench_check(api, api->type_info(&ai), "type_info");
      if (ai.kind == CUPLUG_TYPE_ARRAY) {
        cuplug_type_info ei = {.struct_size = sizeof ei, .type = ai.element};
        bench_check(api, api->type_info(&ei), "type_info");
        arr[i] = (cuplug_array){.data = bufs[i % 3], .dtype = ei.kind, .ndim = 1,
                                .shape = {N}, .strides = {ei.size}};
        vc[nv] = (cuplug_value){CUPLUG_TYPE_POINTER, &bufs[i % 3]};
        v[nv++] = (cuplug_value){CUPLUG_TYPE_ARRAY, &arr[i]};
      } else {
        vc[nv] = (cuplug_value){CUPLUG_TYPE_FLOAT32, &alpha};
        v[nv++] = (cuplug_value){CUPLUG_TYPE_FLOAT32, &alpha};
      }
    }
    vc[nv] = (cuplug_value){CUPLUG_TYPE_INT64, &count};
    cuplug_launch_args lo = {.struct_size = sizeof lo, .kernel = ko,
                             .grid = {N / BLOCK, 1, 1}, .block = {BLOCK, 1, 1}, .args = v,
                             .num_args = nv};
    cuplug_launch_args lc = lo, ln = lo, lp = lo;
    lp.kernel = kp;
    lc.kernel = kc;
    lc.args = vc;
    lc.num_args = nv + 1;
    ln.kernel = kn;

    const char *same = "-";
    if (cases[c].check_bytes) {
      char *want = result_of(s, &lc, bufs[0], cases[c].check_bytes);
      char *got = result_of(s, &lo, bufs[0], cases[c].check_bytes);
      char *nvptx = result_of(s, &lp, bufs[0], cases[c].check_bytes);
      bool eq = memcmp(want, got, cases[c].check_bytes) == 0 &&
                memcmp(got, nvptx, cases[c].check_bytes) == 0;
      all_same = all_same && eq;
      same = eq ? "yes" : "NO";
      free(want);
      free(got);
      free(nvptx);
    }
    /* twice, the builds interleaved; the lower median of each */
    double tc = time_launch(&lc), tn = kn ? time_launch(&ln) : NAN, to = time_launch(&lo),
           tp = time_launch(&lp);
    tc = fmin(tc, time_launch(&lc));
    if (kn) tn = fmin(tn, time_launch(&ln));
    to = fmin(to, time_launch(&lo));
    tp = fmin(tp, time_launch(&lp));
    log_nvptx += log(tp / to);
    char tn_text[32] = "n/a", rn_text[32] = "n/a";
    if (kn) {
      snprintf(tn_text, sizeof tn_text, "%.4f", tn);
      snprintf(rn_text, sizeof rn_text, "%.3f", to / tn);
      log_numba += log(to / tn);
      n_numba++;
    }
    printf("%-14s %10.4f %10s %10.4f %10.4f %13.3f %13s %12.3f %8s\n", cases[c].name, tc,
           tn_text, to, tp, to / tc, rn_text, tp / to, same);
    log_cpp += log(to / tc);
    n_cpp++;
    api->library_unload(ours);
    api->library_unload(nvptx_lib);
    api->library_unload(cpp_lib);
    if (numba_lib) api->library_unload(numba_lib);
    json_free(j);
    free(ir);
    free(text);
    free(numba_cubin);
    free(numba_name);
  }
  printf("geometric mean ratio cuplug / NVRTC CUDA C++: %.3f (%d kernels)\n",
         exp(log_cpp / n_cpp), n_cpp);
  printf("geometric mean ratio NVPTX backend / libNVVM: %.3f (%d kernels)\n",
         exp(log_nvptx / n_cpp), n_cpp);
  if (n_numba)
    printf("geometric mean ratio cuplug / numba-cuda: %.3f (%d kernels)\n",
           exp(log_numba / n_numba), n_numba);
  else
    printf("numba-cuda: no builds%s\n",
           numba_dir ? " in the folder (run bench/numba_cubins.py)" : " given");
  api->session_destroy(s);
  free(host);
  free(cpp_cubin);
  return all_same ? 0 : 1;
}
