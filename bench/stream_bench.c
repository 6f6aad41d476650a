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
 *   - copy4: the same copy, each thread four elements a grid apart, its
 *     four loads issued before its four stores (a grid-stride loop unrolled
 *     by four, then a tail loop), launched with a quarter of the blocks:
 *     one load in flight per thread leaves the H200's memory system
 *     short of requests (the copy above reaches about two thirds of the
 *     copy engine), four keep it busy;
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

#define LOADS(k)                                                                     \
  "  %ps" k " = getelementptr float, float* %src.4, i64 %a" k "\n"                    \
  "  %v" k " = load float, float* %ps" k "\n"
#define STORES(k)                                                                    \
  "  %pd" k " = getelementptr float, float* %dst.4, i64 %a" k "\n"                    \
  "  store float %v" k ", float* %pd" k "\n"

static const char copy4_ir[] =
    "define i32 @copy4(i8** %ret, " ARRAY("dst") ", " ARRAY("src") ") {\n"
    "entry:\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %nctaid = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()\n"
    "  %t = sext i32 %tid to i64\n"
    "  %nt = sext i32 %ntid to i64\n"
    "  %c = sext i32 %ctaid to i64\n"
    "  %nc = sext i32 %nctaid to i64\n"
    "  %base = mul i64 %nt, %c\n"
    "  %start = add i64 %base, %t\n"
    "  %grid = mul i64 %nt, %nc\n"
    "  %grid3 = mul i64 %grid, 3\n"
    "  %grid4 = mul i64 %grid, 4\n"
    "  br label %loop4\n"
    "loop4:\n"
    "  %a0 = phi i64 [%start, %entry], [%next, %body4]\n"
    "  %last = add i64 %a0, %grid3\n"
    "  %more = icmp slt i64 %last, %src.2\n"
    "  br i1 %more, label %body4, label %tail\n"
    "body4:\n"
    "  %a1 = add i64 %a0, %grid\n"
    "  %a2 = add i64 %a1, %grid\n"
    "  %a3 = add i64 %a2, %grid\n"
    LOADS("0") LOADS("1") LOADS("2") LOADS("3")
    STORES("0") STORES("1") STORES("2") STORES("3")
    "  %next = add i64 %a0, %grid4\n"
    "  br label %loop4\n"
    "tail:\n"
    "  %i = phi i64 [%a0, %loop4], [%inext, %body1]\n"
    "  %left = icmp slt i64 %i, %src.2\n"
    "  br i1 %left, label %body1, label %done\n"
    "body1:\n"
    "  %p = getelementptr float, float* %src.4, i64 %i\n"
    "  %v = load float, float* %p\n"
    "  %q = getelementptr float, float* %dst.4, i64 %i\n"
    "  store float %v, float* %q\n"
    "  %inext = add i64 %i, %grid\n"
    "  br label %tail\n"
    "done:\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()\n";

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
  cuplug_kernel *kcopy4 = compile(s, copy4_ir, sizeof copy4_ir - 1, "copy4",
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
  cuplug_launch_args lcopy4 = lcopy;
  lcopy4.kernel = kcopy4;
  lcopy4.grid[0] = (uint32_t)(n / BLOCK / 4);
  cuplug_launch_args lsaxpy = lcopy;
  lsaxpy.kernel = ksaxpy;
  lsaxpy.args = vsaxpy;
  lsaxpy.num_args = 4;

  /* each does what it should: the copy moves 1.0, saxpy makes 3.5 */
  bench_check(api, api->launch(&lcopy), "launch copy");
  bench_check(api, api->synchronize(s), "synchronize");
  bool copy_ok = element(s, buf[0], 0) == 1.0f && element(s, buf[0], n - 1) == 1.0f;
  cu.memset_d32(buf[0], 0, n);
  bench_check(api, api->launch(&lcopy4), "launch copy4");
  bench_check(api, api->synchronize(s), "synchronize");
  bool copy4_ok = element(s, buf[0], 0) == 1.0f && element(s, buf[0], n / 2 + 3) == 1.0f &&
                  element(s, buf[0], n - 1) == 1.0f;
  bench_check(api, api->launch(&lsaxpy), "launch saxpy");
  bench_check(api, api->synchronize(s), "synchronize");
  bool saxpy_ok = element(s, buf[0], 0) == 3.5f && element(s, buf[0], n - 1) == 3.5f;

  void *start, *stop;
  cu.event_create(&start, 0);
  cu.event_create(&stop, 0);
  double t[4][ROUNDS];
  const cuplug_launch_args *kernels[] = {NULL, &lcopy, &lcopy4, &lsaxpy};
  for (int r = -WARMUP; r < ROUNDS; r++)
    for (int w = 0; w < 4; w++) {
      cu.event_record(start, NULL);
      if (w == 0) {
        if (cu.memcpy_dtod_async(buf[0], buf[1], bytes, NULL)) {
          fprintf(stderr, "stream_bench: cuMemcpyDtoDAsync failed\n");
          return 1;
        }
      } else {
        bench_check(api, api->launch((cuplug_launch_args *)kernels[w]), "launch");
      }
      cu.event_record(stop, NULL);
      cu.event_synchronize(stop);
      float ms;
      cu.event_elapsed(&ms, start, stop);
      if (r >= 0) t[w][r] = ms * 1e-3;
    }
  double tm = bench_median(t[0], ROUNDS), tc = bench_median(t[1], ROUNDS),
         t4 = bench_median(t[2], ROUNDS), ts = bench_median(t[3], ROUNDS);
  double bm = 2.0 * (double)bytes / tm, bc = 2.0 * (double)bytes / tc,
         b4 = 2.0 * (double)bytes / t4, bs = 3.0 * (double)bytes / ts;
  cuplug_info info = {.struct_size = sizeof info};
  bench_check(api, api->get_info(&info), "get_info");
  printf("streaming over %.2f GiB per array on %s, %d-thread blocks (medians of %d):\n",
         (double)bytes / (1 << 30), info.device_name, BLOCK, ROUNDS);
  printf("  cuMemcpyDtoD:          %8.3f ms  %8.1f GB/s\n", tm * 1e3, bm * 1e-9);
  printf("  copy kernel (cuplug):  %8.3f ms  %8.1f GB/s  %.3f of the copy's bandwidth%s\n",
         tc * 1e3, bc * 1e-9, bc / bm, copy_ok ? "" : " (WRONG RESULT)");
  printf("  copy4 kernel (cuplug): %8.3f ms  %8.1f GB/s  %.3f of the copy's bandwidth%s\n",
         t4 * 1e3, b4 * 1e-9, b4 / bm, copy4_ok ? "" : " (WRONG RESULT)");
  printf("  saxpy_kernel (cuplug): %8.3f ms  %8.1f GB/s  %.3f of the copy's bandwidth%s\n",
         ts * 1e3, bs * 1e-9, bs / bm, saxpy_ok ? "" : " (WRONG RESULT)");
  json_free(j);
  free(jtext);
  free(saxpy_ir);
  for (int i = 0; i < 3; i++) api->mem_free(s, buf[i]);
  api->session_destroy(s);
  return copy_ok && copy4_ok && saxpy_ok ? 0 : 1;
}
