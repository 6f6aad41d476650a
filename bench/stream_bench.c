/* stream_bench.c - the bandwidth of streaming kernels compiled by cuplug
 * against the device's own device-to-device copy of the same bytes.
 *
 *   build/bin/stream_bench [CORPUS_DIR] [GIB]
 *
 * The kernels, compiled through cuplug for the current device and launched
 * over GIB GiB per array (1 by default) with 256-thread blocks, one
 * element per thread:
 *   - copy: dst[i] = src[i] on float32[::1] arrays, written below as NVVM IR
 *     in numba-cuda's dialect (the Numba ABI, arrays as meminfo, parent,
 *     nitems, itemsize, data, shape, strides; an int64 index wrapped when
 *     negative, as numba lowers `i = cuda.grid(1); if i < src.size:
 *     dst[i] = src[i]`);
 *   - saxpy: the corpus's saxpy_kernel (r[i] = a * x[i] + y[i]), its
 *     input.ll as it is.
 * The anchor: cuMemcpyDtoDAsync of the same GIB GiB between the copy's two
 * buffers.  Bandwidth counts the bytes read and written (a copy of S bytes
 * moves 2S, saxpy on arrays of S bytes 3S); CUDA events time each, the
 * rounds interleaved (copy engine, copy kernel, saxpy), medians of 21.
 * Target (issue 10): the streaming kernel at least 90% of the copy's
 * bandwidth. */
#include <string.h>

#include "bench.h"
#include "json.h"

enum { ROUNDS = 21, WARMUP = 3, BLOCK = 256 };

#define ARRAY(n)                                                                        \
  "i8* %" n ".0, i8* %" n ".1, i64 %" n ".2, i64 %" n ".3, float* %" n ".4, i64 %" n \
  ".5.0, i64 %" n ".6.0"

static const char copy_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-"
    "i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "define i32 @copy(i8** %ret, " ARRAY("dst") ", " ARRAY("src") ") {\n"
    "entry:\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %t = sext i32 %tid to i64\n"
    "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %nt = sext i32 %ntid to i64\n"
    "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %c = sext i32 %ctaid to i64\n"
    "  %base = mul i64 %nt, %c\n"
    "  %i = add i64 %base, %t\n"
    "  %in = icmp slt i64 %i, %src.2\n"
    "  br i1 %in, label %body, label %done\n"
    "body:\n"
    "  %neg = icmp slt i64 %i, 0\n"
    "  %iw = add i64 %i, %src.5.0\n"
    "  %j = select i1 %neg, i64 %iw, i64 %i\n"
    "  %ps = getelementptr float, float* %src.4, i64 %j\n"
    "  %v = load float, float* %ps\n"
    "  %dw = add i64 %i, %dst.5.0\n"
    "  %k = select i1 %neg, i64 %dw, i64 %i\n"
    "  %pd = getelementptr float, float* %dst.4, i64 %k\n"
    "  store float %v, float* %pd\n"
    "  br label %done\n"
    "done:\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n";

static const cuplug_api *api;
static bench_cuda cu;

static cuplug_kernel *compile(cuplug_session *s, const char *ir, size_t n, const char *entry,
                              const char *signature) {
  cuplug_module m = {sizeof m, "stream.ll", ir, n};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = signature,
                           .kind = CUPLUG_KERNEL, .output = CUPLUG_OUTPUT_CUBIN,
                           .flags = CUPLUG_COMPILE_CURRENT_DEVICE};
  bench_check(api, api->compile(&a), "compile");
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  bench_check(api, api->load(&l), "load");
  cuplug_kernel_args k = {.struct_size = sizeof k, .library = l.library};
  bench_check(api, api->kernel_get(&k), "kernel_get");
  return k.kernel;
}

static float element(cuplug_session *s, uint64_t buf, size_t i) {
  float f;
  bench_check(api, api->memcpy_to_host(s, &f, buf + i * 4, 4), "memcpy_to_host");
  return f;
}

int main(int argc, char **argv) {
  const char *corpus = argc > 1 ? argv[1] : "tests/conformance/numba";
  double gib = argc > 2 ? atof(argv[2]) : 1.0;
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (!api || bench_cuda_load(&cu) || !cu.memcpy_dtod_async || !cu.memset_d32) {
    printf("stream_bench: skipped: no CUDA device\n");
    return 77;
  }
  size_t n = (size_t)(gib * (1 << 28)) / BLOCK * BLOCK; /* float32 elements per array */
  size_t bytes = n * 4;
  cuplug_session *s;
  bench_check(api, api->session_create(NULL, &s), "session_create");

  char path[4096];
  size_t jn, irn;
  snprintf(path, sizeof path, "%s/saxpy_kernel/case.json", corpus);
  char *jtext = bench_read_file(path, &jn);
  snprintf(path, sizeof path, "%s/saxpy_kernel/input.ll", corpus);
  char *saxpy_ir = bench_read_file(path, &irn);
  if (!jtext || !saxpy_ir) {
    fprintf(stderr, "stream_bench: no saxpy_kernel in %s\n", corpus);
    return 1;
  }
  json *j = json_parse(jtext, NULL, 0);
  cuplug_kernel *kcopy = compile(s, copy_ir, sizeof copy_ir - 1, "copy",
                                 "void(float32[::1], float32[::1])");
  cuplug_kernel *ksaxpy = compile(s, saxpy_ir, irn, json_string(j, "entry"),
                                  json_string(j, "signature"));

  uint64_t buf[3]; /* copy: buf[1] -> buf[0]; saxpy: r = buf[0], x = buf[1], y = buf[2] */
  for (int i = 0; i < 3; i++) {
    cuplug_error *e = api->mem_alloc(s, bytes, &buf[i]);
    if (e) {
      printf("stream_bench: skipped: cannot allocate 3 x %.2f GiB: %s\n", gib,
             api->error_message(e));
      return 77;
    }
  }
  cu.memset_d32(buf[0], 0, n);
  cu.memset_d32(buf[1], 0x3f800000u, n); /* 1.0f */
  cu.memset_d32(buf[2], 0x40000000u, n); /* 2.0f */

  cuplug_array arr[3];
  for (int i = 0; i < 3; i++)
    arr[i] = (cuplug_array){.data = buf[i], .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 1,
                            .shape = {(int64_t)n}, .strides = {4}};
  float alpha = 1.5f;
  cuplug_value vcopy[] = {{CUPLUG_TYPE_ARRAY, &arr[0]}, {CUPLUG_TYPE_ARRAY, &arr[1]}};
  cuplug_value vsaxpy[] = {{CUPLUG_TYPE_ARRAY, &arr[0]}, {CUPLUG_TYPE_ARRAY, &arr[1]},
                           {CUPLUG_TYPE_ARRAY, &arr[2]}, {CUPLUG_TYPE_FLOAT32, &alpha}};
  cuplug_launch_args lcopy = {.struct_size = sizeof lcopy, .kernel = kcopy,
                              .grid = {(uint32_t)(n / BLOCK), 1, 1}, .block = {BLOCK, 1, 1},
                              .args = vcopy, .num_args = 2};
  cuplug_launch_args lsaxpy = lcopy;
  lsaxpy.kernel = ksaxpy;
  lsaxpy.args = vsaxpy;
  lsaxpy.num_args = 4;

  /* each does what it should: the copy moves 1.0, saxpy makes 3.5 */
  bench_check(api, api->launch(&lcopy), "launch copy");
  bench_check(api, api->synchronize(s), "synchronize");
  bool copy_ok = element(s, buf[0], 0) == 1.0f && element(s, buf[0], n - 1) == 1.0f;
  bench_check(api, api->launch(&lsaxpy), "launch saxpy");
  bench_check(api, api->synchronize(s), "synchronize");
  bool saxpy_ok = element(s, buf[0], 0) == 3.5f && element(s, buf[0], n - 1) == 3.5f;

  void *start, *stop;
  cu.event_create(&start, 0);
  cu.event_create(&stop, 0);
  double t[3][ROUNDS];
  for (int r = -WARMUP; r < ROUNDS; r++)
    for (int w = 0; w < 3; w++) {
      cu.event_record(start, NULL);
      if (w == 0) {
        if (cu.memcpy_dtod_async(buf[0], buf[1], bytes, NULL)) {
          fprintf(stderr, "stream_bench: cuMemcpyDtoDAsync failed\n");
          return 1;
        }
      } else {
        bench_check(api, api->launch(w == 1 ? &lcopy : &lsaxpy), "launch");
      }
      cu.event_record(stop, NULL);
      cu.event_synchronize(stop);
      float ms;
      cu.event_elapsed(&ms, start, stop);
      if (r >= 0) t[w][r] = ms * 1e-3;
    }
  double tm = bench_median(t[0], ROUNDS), tc = bench_median(t[1], ROUNDS),
         ts = bench_median(t[2], ROUNDS);
  double bm = 2.0 * (double)bytes / tm, bc = 2.0 * (double)bytes / tc,
         bs = 3.0 * (double)bytes / ts;
  cuplug_info info = {.struct_size = sizeof info};
  bench_check(api, api->get_info(&info), "get_info");
  printf("streaming over %.2f GiB per array on %s, %d-thread blocks (medians of %d):\n",
         (double)bytes / (1 << 30), info.device_name, BLOCK, ROUNDS);
  printf("  cuMemcpyDtoD:          %8.3f ms  %8.1f GB/s\n", tm * 1e3, bm * 1e-9);
  printf("  copy kernel (cuplug):  %8.3f ms  %8.1f GB/s  %.3f of the copy's bandwidth%s\n",
         tc * 1e3, bc * 1e-9, bc / bm, copy_ok ? "" : " (WRONG RESULT)");
  printf("  saxpy_kernel (cuplug): %8.3f ms  %8.1f GB/s  %.3f of the copy's bandwidth%s\n",
         ts * 1e3, bs * 1e-9, bs / bm, saxpy_ok ? "" : " (WRONG RESULT)");
  json_free(j);
  free(jtext);
  free(saxpy_ir);
  for (int i = 0; i < 3; i++) api->mem_free(s, buf[i]);
  api->session_destroy(s);
  return copy_ok && saxpy_ok ? 0 : 1;
}
