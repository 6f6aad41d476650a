/* test_host.c - device code on the CPU (CUPLUG_OUTPUT_HOST): the corpus's
 * device functions and kernels give exact values, with no GPU and no CUDA
 * toolkit (but libdevice, for the built-ins that call it); what the host
 * cannot run is refused by name and line. */
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static cuplug_session *s;
static t_case *cases;
static int num_cases;

static const t_case *find_case(const char *name) {
  return t_case_named(cases, num_cases, name);
}

static cuplug_library *load(const cuplug_artifact *art) {
  cuplug_load_args a = {.struct_size = sizeof a, .session = s, .artifact = art};
  T_ASSERT_OK(t_api()->load(&a));
  return a.library;
}

/* A corpus case for the host, with its own signature or (sig NULL) the case's. */
static cuplug_library *case_library_sig(const char *name, const char *sig) {
  const t_case *c = find_case(name);
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  if (sig) a.signature = sig;
  a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_library *l = load(a.artifact);
  t_api()->artifact_destroy(a.artifact); /* the library keeps what it needs */
  return l;
}

static cuplug_library *case_library(const char *name) { return case_library_sig(name, NULL); }

/* Compiles IR for the host; returns the load's error (the library in *lib). */
static cuplug_error *ir_library(const char *ir, const char *entry, const char *sig,
                                cuplug_function_kind kind, uint32_t debug, cuplug_library **lib) {
  cuplug_module m = {sizeof m, "test.ll", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  /* the tests' device functions, and `define void` kernels, are written
   * C-ABI-like: no return slot */
  cuplug_abi entry_abi = kind == CUPLUG_DEVICE_FUNCTION || strstr(ir, "define void")
                             ? CUPLUG_ABI_C
                             : CUPLUG_ABI_NUMBA;
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = entry, .signature = sig, .kind = kind,
                           .entry_abi = entry_abi,
                           .output = CUPLUG_OUTPUT_HOST, .debug = debug,
                           .opt = debug ? CUPLUG_OPT_NONE : 0};
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = a.artifact};
  cuplug_error *e = t_api()->load(&l);
  t_api()->artifact_destroy(a.artifact);
  *lib = l.library;
  return e;
}

static cuplug_kernel *kernel(cuplug_library *l) {
  cuplug_kernel_args a = {.struct_size = sizeof a, .library = l};
  T_ASSERT_OK(t_api()->kernel_get(&a));
  return a.kernel;
}

static cuplug_error *launch(cuplug_kernel *k, unsigned grid, unsigned block, const cuplug_value *v,
                            size_t n, uint32_t shared) {
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k, .grid = {grid, 1, 1},
                          .block = {block, 1, 1}, .args = v, .num_args = n,
                          .shared_mem = shared};
  return t_api()->launch(&a);
}

static cuplug_array array1(void *data, cuplug_type_kind dtype, int64_t n, int64_t itemsize) {
  return (cuplug_array){.data = (uint64_t)(uintptr_t)data, .dtype = dtype, .ndim = 1,
                        .shape = {n}, .strides = {itemsize}};
}

/* ---- device functions ---- */

static cuplug_error *call(cuplug_library *l, const cuplug_value *v, size_t n, void *result,
                          size_t size) {
  cuplug_host_call_args c = {.struct_size = sizeof c, .library = l, .args = v, .num_args = n,
                             .result = result, .result_size = size};
  return t_api()->host_call(&c);
}

START_TEST(device_functions_by_signature) {
  cuplug_library *l = case_library("add_i32");
  int32_t a = 2147483647, b = 1;
  int64_t r64 = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_INT32, &a}, {CUPLUG_TYPE_INT32, &b}};
  T_ASSERT_OK(call(l, v, 2, &r64, sizeof r64));
  ck_assert_int_eq(r64, 2147483648LL); /* numba widens int32 + int32 to int64 */
  t_api()->library_unload(l);

  l = case_library("add_f32");
  float x = 0.1f, y = 0.2f, rf = 0;
  cuplug_value vf[] = {{CUPLUG_TYPE_FLOAT32, &x}, {CUPLUG_TYPE_FLOAT32, &y}};
  T_ASSERT_OK(call(l, vf, 2, &rf, sizeof rf));
  ck_assert(rf == 0.1f + 0.2f);
  t_api()->library_unload(l);

  l = case_library("dev_bool");
  uint8_t t = 1, f = 0, rb = 7;
  cuplug_value vb[] = {{CUPLUG_TYPE_BOOL, &t}, {CUPLUG_TYPE_BOOL, &f}, {CUPLUG_TYPE_BOOL, &f}};
  T_ASSERT_OK(call(l, vb, 3, &rb, sizeof rb));
  ck_assert_int_eq(rb, 1); /* (a and not b) or c */
  vb[1].data = &t;
  T_ASSERT_OK(call(l, vb, 3, &rb, sizeof rb));
  ck_assert_int_eq(rb, 0);
  t_api()->library_unload(l);

  l = case_library("dev_u8");
  uint8_t u = 250;
  uint64_t ru = 0;
  cuplug_value vu[] = {{CUPLUG_TYPE_UINT8, &u}, {CUPLUG_TYPE_UINT8, &u}};
  T_ASSERT_OK(call(l, vu, 2, &ru, sizeof ru));
  ck_assert_uint_eq(ru, 500);
  t_api()->library_unload(l);

  l = case_library("poly_f64");
  double d = 0.1, rd = 0;
  cuplug_value vd[] = {{CUPLUG_TYPE_FLOAT64, &d}};
  /* 3.0*x*x + 2.0*x + 1.0 contracted as libNVVM contracts it (its PTX:
   * mul, mul, fma.rn(x, 2, 3x*x), add), so the host gives the GPU's bits */
  static const double xs[] = {0.1, 0.7, 1.3, 12345.678, -3.3e-5, 1e100};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    d = xs[i];
    T_ASSERT_OK(call(l, vd, 1, &rd, sizeof rd));
    ck_assert_msg(rd == fma(d, 2.0, 3.0 * d * d) + 1.0, "poly(%g) = %.17g", d, rd);
  }
  t_api()->library_unload(l);

  l = case_library("dev_ptr_f32");
  float arr[4] = {1.5f, 2.5f, 3.5f, 4.5f};
  uint64_t p = (uint64_t)(uintptr_t)arr;
  int32_t i = 2;
  cuplug_value vp[] = {{CUPLUG_TYPE_POINTER, &p}, {CUPLUG_TYPE_INT32, &i}};
  T_ASSERT_OK(call(l, vp, 2, &rd, sizeof rd));
  ck_assert(rd == 7.0);
  t_api()->library_unload(l);
}
END_TEST

START_TEST(device_function_as_pointer) {
  cuplug_library *l = case_library("add_i32");
  cuplug_host_function_args f = {.struct_size = sizeof f, .library = l};
  T_ASSERT_OK(t_api()->host_function(&f));
  int64_t (*add)(int32_t, int32_t) = (int64_t(*)(int32_t, int32_t))(uintptr_t)f.address;
  ck_assert_int_eq(add(-5, 3), -2);
  ck_assert_int_eq(add(-2147483647 - 1, -1), -2147483649LL);
  ck_assert_ptr_nonnull(f.signature);
  cuplug_type_info ti = {.struct_size = sizeof ti, .type = f.signature};
  T_ASSERT_OK(t_api()->type_info(&ti));
  ck_assert_str_eq(ti.name, "int64(int32, int32)");
  f.name = "nothing_here";
  T_ASSERT_ERROR(t_api()->host_function(&f), CUPLUG_ERR_ENTRY_NOT_FOUND,
                 "the host library has no function 'nothing_here'");
  t_api()->library_unload(l);
}
END_TEST

START_TEST(host_call_errors) {
  cuplug_library *l = case_library("add_i32");
  int32_t a = 1;
  float f = 1;
  int64_t r = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_INT32, &a}, {CUPLUG_TYPE_FLOAT32, &f}};
  T_ASSERT_ERROR(call(l, v, 1, &r, sizeof r), CUPLUG_ERR_LAUNCH_ARGS,
                 "call add_i32 takes 2 arguments (int64(int32, int32)), got 1");
  T_ASSERT_ERROR(call(l, v, 2, &r, sizeof r), CUPLUG_ERR_LAUNCH_ARGS,
                 "call add_i32, argument 1 (int32): got float32");
  v[1] = v[0];
  T_ASSERT_ERROR(call(l, v, 2, &r, 4), CUPLUG_ERR_INVALID_ARGUMENT,
                 "call add_i32: its int64 result needs 8 bytes of room, result_size is 4");
  t_api()->library_unload(l);
}
END_TEST

/* The growable forms (ABI 1.3): cuplug_argument and cuplug_ndarray, each
 * with its struct_size, launch and call as the fixed ones do; a struct
 * shorter than its first version, both forms at once, and an array without
 * its shape are refused by argument. */
START_TEST(growable_arguments) {
  enum { N = 1000 };
  cuplug_library *l = case_library("saxpy_kernel");
  cuplug_kernel *k = kernel(l);
  const char *name = json_string(find_case("saxpy_kernel")->json, "entry");
  float x[N], y[N], r[N], a = 0.5f;
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = (float)(3 * i);
  int64_t shape[] = {N}, strides[] = {4};
  cuplug_ndarray nr = {CUPLUG_NDARRAY_STRUCT_SIZE, (uint64_t)(uintptr_t)r, CUPLUG_TYPE_FLOAT32, 1,
                       shape, strides, 0};
  cuplug_ndarray nx = nr, ny = nr;
  nx.data = (uint64_t)(uintptr_t)x;
  ny.data = (uint64_t)(uintptr_t)y;
  cuplug_argument ar = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &nr},
                  ax = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &nx},
                  ay = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &ny},
                  aa = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_FLOAT32, &a};
  const cuplug_argument *argv[] = {&ar, &ax, &ay, &aa};
  cuplug_launch_args la = {.struct_size = CUPLUG_LAUNCH_ARGS_STRUCT_SIZE, .kernel = k,
                           .grid = {4}, .block = {256}, .arguments = argv, .num_args = 4};
  T_ASSERT_OK(t_api()->launch(&la));
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], fmaf(a, x[i], y[i]));

  char want[4096];
  ar.struct_size = 8;
  snprintf(want, sizeof want,
           "kernel %s, argument 0 (float32[::1]): cuplug_argument has struct_size 8, less than "
           "the 24 bytes of its first version: set struct_size = sizeof(cuplug_argument)", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_INVALID_ARGUMENT, want);
  ar.struct_size = CUPLUG_ARGUMENT_STRUCT_SIZE;
  nr.shape = NULL;
  snprintf(want, sizeof want,
           "kernel %s, argument 0 (float32[::1]): its cuplug_ndarray has 1 dimensions but no "
           "shape", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_LAUNCH_ARGS, want);
  nr.shape = shape;
  cuplug_value v[4] = {{CUPLUG_TYPE_FLOAT32, &a}};
  la.args = v;
  snprintf(want, sizeof want, "kernel %s: give args or arguments, not both", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_INVALID_ARGUMENT, want);
  t_api()->library_unload(l);

  /* a call: the same two forms */
  l = case_library("add_i32");
  int32_t i2 = 2, i40 = 40;
  int64_t sum = 0;
  cuplug_argument a2 = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_INT32, &i2},
                  a40 = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_INT32, &i40};
  const cuplug_argument *cargv[] = {&a2, &a40};
  cuplug_host_call_args c = {.struct_size = CUPLUG_HOST_CALL_ARGS_STRUCT_SIZE, .library = l,
                             .arguments = cargv, .num_args = 2, .result = &sum,
                             .result_size = sizeof sum};
  T_ASSERT_OK(t_api()->host_call(&c));
  ck_assert_int_eq(sum, 42);
  a40.kind = CUPLUG_TYPE_FLOAT64;
  T_ASSERT_ERROR(t_api()->host_call(&c), CUPLUG_ERR_LAUNCH_ARGS,
                 "call add_i32, argument 1 (int32): got float64");
  t_api()->library_unload(l);
}
END_TEST

/* Read-only memory (CUPLUG_ARRAY_READONLY) goes only to a parameter
 * declared readonly: saxpy as the corpus declares it refuses it, and never
 * runs; saxpy declaring x and y readonly takes it, and writable memory too. */
START_TEST(read_only_arrays) {
  enum { N = 1000 };
  static const char ro_sig[] = "void(float32[::1], readonly array(float32, 1d, C), "
                               "readonly array(float32, 1d, C), float32)";
  float x[N], y[N], r[N], a = 0.5f;
  for (int i = 0; i < N; i++) x[i] = (float)i, y[i] = (float)(3 * i), r[i] = -1;
  int64_t shape[] = {N}, strides[] = {4};
  cuplug_ndarray nr = {CUPLUG_NDARRAY_STRUCT_SIZE, (uint64_t)(uintptr_t)r, CUPLUG_TYPE_FLOAT32, 1,
                       shape, strides, 0};
  cuplug_ndarray nx = nr, ny = nr;
  nx.data = (uint64_t)(uintptr_t)x;
  ny.data = (uint64_t)(uintptr_t)y;
  nx.flags = ny.flags = CUPLUG_ARRAY_READONLY;
  cuplug_argument ar = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &nr},
                  ax = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &nx},
                  ay = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &ny},
                  aa = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_FLOAT32, &a};
  const cuplug_argument *argv[] = {&ar, &ax, &ay, &aa};
  cuplug_library *l = case_library("saxpy_kernel");
  cuplug_launch_args la = {.struct_size = CUPLUG_LAUNCH_ARGS_STRUCT_SIZE, .kernel = kernel(l),
                           .grid = {4}, .block = {256}, .arguments = argv, .num_args = 4};
  const char *name = json_string(find_case("saxpy_kernel")->json, "entry");
  char want[4096];
  snprintf(want, sizeof want,
           "kernel %s, argument 1 (float32[::1]): the array is read-only; the kernel may write "
           "it (declare the parameter readonly array(float32, 1d, C) if it does not)", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_LAUNCH_ARGS, want);
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], -1);
  /* a host built before flags: its struct ends at strides, flags unread */
  nx.struct_size = ny.struct_size = offsetof(cuplug_ndarray, flags);
  T_ASSERT_OK(t_api()->launch(&la));
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], fmaf(a, x[i], y[i]));
  nx.struct_size = ny.struct_size = CUPLUG_NDARRAY_STRUCT_SIZE;
  nx.flags = 0x6;
  snprintf(want, sizeof want,
           "kernel %s, argument 1 (float32[::1]): its cuplug_ndarray has unknown flags 0x6", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_LAUNCH_ARGS, want);
  t_api()->library_unload(l);

  l = case_library_sig("saxpy_kernel", ro_sig);
  la.kernel = kernel(l);
  cuplug_kernel_info ki = {.struct_size = CUPLUG_KERNEL_INFO_STRUCT_SIZE, .kernel = la.kernel};
  T_ASSERT_OK(t_api()->kernel_info(&ki));
  cuplug_type_info ti = {.struct_size = CUPLUG_TYPE_INFO_STRUCT_SIZE, .type = ki.signature};
  T_ASSERT_OK(t_api()->type_info(&ti));
  ck_assert_str_eq(ti.name, ro_sig);
  for (uint32_t flags = 0; flags <= CUPLUG_ARRAY_READONLY; flags++) {
    nx.flags = ny.flags = flags;
    a = flags ? 2.0f : 0.25f;
    T_ASSERT_OK(t_api()->launch(&la));
    for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], fmaf(a, x[i], y[i]));
  }
  nr.flags = CUPLUG_ARRAY_READONLY;
  snprintf(want, sizeof want,
           "kernel %s, argument 0 (float32[::1]): the array is read-only; the kernel may write "
           "it (declare the parameter readonly array(float32, 1d, C) if it does not)", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_LAUNCH_ARGS, want);
  t_api()->library_unload(l);
}
END_TEST

/* ---- kernels ---- */

START_TEST(saxpy_values) {
  enum { N = 100000 };
  cuplug_library *l = case_library("saxpy_kernel");
  cuplug_kernel *k = kernel(l);
  float *x = malloc(N * 4), *y = malloc(N * 4), *r = calloc(N, 4);
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 1000) / 7.0f;
    y[i] = (float)(i % 997) / 3.0f;
  }
  cuplug_array ar = array1(r, CUPLUG_TYPE_FLOAT32, N, 4), ax = array1(x, CUPLUG_TYPE_FLOAT32, N, 4),
               ay = array1(y, CUPLUG_TYPE_FLOAT32, N, 4);
  float a = 2.5f;
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &ar}, {CUPLUG_TYPE_ARRAY, &ax}, {CUPLUG_TYPE_ARRAY, &ay},
                      {CUPLUG_TYPE_FLOAT32, &a}};
  T_ASSERT_OK(launch(k, (N + 255) / 256, 256, v, 4, 0));
  /* libNVVM fuses a * x + y into one fma (-fma=1); so does the host */
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], fmaf(a, x[i], y[i]));
  /* CUDA's limits hold on the host too; and there are no streams */
  const char *name = json_string(find_case("saxpy_kernel")->json, "entry");
  char want[4096];
  snprintf(want, sizeof want, "kernel %s: block (2048, 1, 1) has 2048 threads; CUDA allows 1024",
           name);
  T_ASSERT_ERROR(launch(k, 1, 2048, v, 4, 0), CUPLUG_ERR_LAUNCH_CONFIG, want);
  cuplug_launch_args with_stream = {.struct_size = sizeof with_stream, .kernel = k,
                                    .grid = {1, 1, 1}, .block = {32, 1, 1}, .args = v,
                                    .num_args = 4, .stream = (void *)1};
  snprintf(want, sizeof want,
           "launch: kernel %s runs on the host, which has no streams: stream must be NULL", name);
  T_ASSERT_ERROR(t_api()->launch(&with_stream), CUPLUG_ERR_INVALID_ARGUMENT, want);
  free(x);
  free(y);
  free(r);
  t_api()->library_unload(l);
}
END_TEST

START_TEST(atomic_values) {
  enum { N = 4096 };
  cuplug_library *l = case_library("k_atomic");
  cuplug_kernel *k = kernel(l);
  float x[N], acc = 0;
  double sum = 0;
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 17);
    sum += x[i];
  }
  int32_t cnt[2] = {0, -1};
  cuplug_array aacc = array1(&acc, CUPLUG_TYPE_FLOAT32, 1, 4),
               acnt = array1(cnt, CUPLUG_TYPE_INT32, 2, 4), ax = array1(x, CUPLUG_TYPE_FLOAT32, N, 4);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &aacc}, {CUPLUG_TYPE_ARRAY, &acnt}, {CUPLUG_TYPE_ARRAY, &ax}};
  T_ASSERT_OK(launch(k, N / 128, 128, v, 3, 0)); /* 32 blocks over every core */
  ck_assert_float_eq(acc, (float)sum);
  ck_assert_int_eq(cnt[0], N);
  ck_assert_int_eq(cnt[1], N - 1);
  t_api()->library_unload(l);
}
END_TEST

START_TEST(reduce_values) {
  enum { N = 256 * 40 + 77, BLOCKS = 41 };
  cuplug_library *l = case_library("k_reduce"); /* shared memory, syncthreads in a loop */
  cuplug_kernel *k = kernel(l);
  float *x = malloc(N * 4), out[BLOCKS];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 9) - 4.0f;
  cuplug_array aout = array1(out, CUPLUG_TYPE_FLOAT32, BLOCKS, 4), ax = array1(x, CUPLUG_TYPE_FLOAT32, N, 4);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &aout}, {CUPLUG_TYPE_ARRAY, &ax}};
  T_ASSERT_OK(launch(k, BLOCKS, 256, v, 2, 0));
  for (int b = 0; b < BLOCKS; b++) {
    float want = 0;
    for (int i = b * 256; i < (b + 1) * 256 && i < N; i++) want += x[i];
    ck_assert_float_eq(out[b], want);
  }
  free(x);
  t_api()->library_unload(l);
}
END_TEST

/* Each thread: out[t] = shfl_down(t * 10, 1) (segment of 32), then its
 * warp's ballot of odd threads, syncthreads_count of t < 5 and the
 * dynamic shared memory a neighbour wrote. */
static const char collectives_ir[] =
    "@dyn = external addrspace(3) global [0 x i32]\n"
    "define void @coll(i32* %out, i32* %ballot, i32* %count, i32* %neighbour) {\n"
    "entry:\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %v = mul i32 %t, 10\n"
    "  %p = call {i32, i1} @llvm.nvvm.shfl.sync.i32(i32 -1, i32 2, i32 %v, i32 1, i32 31)\n"
    "  %s = extractvalue {i32, i1} %p, 0\n"
    "  %o = getelementptr i32, i32* %out, i32 %t\n"
    "  store i32 %s, i32* %o\n"
    "  %odd = trunc i32 %t to i1\n"
    "  %b = call {i32, i1} @llvm.nvvm.vote.sync(i32 -1, i32 3, i1 %odd)\n"
    "  %bv = extractvalue {i32, i1} %b, 0\n"
    "  %bo = getelementptr i32, i32* %ballot, i32 %t\n"
    "  store i32 %bv, i32* %bo\n"
    "  %lt5 = icmp ult i32 %t, 5\n"
    "  %lt5i = zext i1 %lt5 to i32\n"
    "  %sh = getelementptr [0 x i32], [0 x i32] addrspace(3)* @dyn, i32 0, i32 %t\n"
    "  store i32 %v, i32 addrspace(3)* %sh\n"
    "  %c = call i32 @llvm.nvvm.barrier0.popc(i32 %lt5i)\n"
    "  %co = getelementptr i32, i32* %count, i32 %t\n"
    "  store i32 %c, i32* %co\n"
    "  %n1 = add i32 %t, 1\n"
    "  %n = urem i32 %n1, 40\n"
    "  %nsh = getelementptr [0 x i32], [0 x i32] addrspace(3)* @dyn, i32 0, i32 %n\n"
    "  %nv = load i32, i32 addrspace(3)* %nsh\n"
    "  %no = getelementptr i32, i32* %neighbour, i32 %t\n"
    "  store i32 %nv, i32* %no\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare {i32, i1} @llvm.nvvm.shfl.sync.i32(i32, i32, i32, i32, i32)\n"
    "declare {i32, i1} @llvm.nvvm.vote.sync(i32, i32, i1)\n"
    "declare i32 @llvm.nvvm.barrier0.popc(i32)\n";

START_TEST(warp_collectives_and_dynamic_shared) {
  enum { T = 40 }; /* a full warp and 8 lanes of a second */
  cuplug_library *l;
  T_ASSERT_OK(ir_library(collectives_ir, "coll",
                         "void(CPointer(int32), CPointer(int32), CPointer(int32), CPointer(int32))",
                         CUPLUG_KERNEL, 0, &l));
  cuplug_kernel *k = kernel(l);
  int32_t out[T], ballot[T], count[T], neighbour[T];
  uint64_t p[4] = {(uintptr_t)out, (uintptr_t)ballot, (uintptr_t)count, (uintptr_t)neighbour};
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &p[0]}, {CUPLUG_TYPE_POINTER, &p[1]},
                      {CUPLUG_TYPE_POINTER, &p[2]}, {CUPLUG_TYPE_POINTER, &p[3]}};
  T_ASSERT_OK(launch(k, 3, T, v, 4, T * 4));
  for (int t = 0; t < T; t++) {
    int lane = t % 32, last = t < 32 ? 31 : T - 1 - 32;
    /* down by one within the warp; the last lane keeps its own */
    ck_assert_int_eq(out[t], lane < last ? (t + 1) * 10 : t * 10);
    ck_assert_uint_eq((uint32_t)ballot[t], t < 32 ? 0xaaaaaaaau : 0xaau);
    ck_assert_int_eq(count[t], 5);
    ck_assert_int_eq(neighbour[t], (t + 1) % T * 10);
  }
  t_api()->library_unload(l);
}
END_TEST

/* ---- exceptions ---- */


START_TEST(debug_kernel_reports_exception) {
  cuplug_library *l;
  T_ASSERT_OK(
      ir_library(t_raising_ir, "raiser", "void(CPointer(int32))", CUPLUG_KERNEL, 1, &l));
  cuplug_kernel *k = kernel(l);
  int32_t out = 0;
  uint64_t p = (uintptr_t)&out;
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &p}};
  T_ASSERT_ERROR(launch(k, 2, 8, v, 1, 0), CUPLUG_ERR_KERNEL_EXCEPTION,
                 "kernel raiser raised exception 7: tid=[0, 0, 3] ctaid=[0, 0, 1]");
  T_ASSERT_OK(launch(k, 1, 8, v, 1, 0)); /* cleared before each launch */
  ck_assert_int_eq(out, 1);
  t_api()->library_unload(l);
}
END_TEST

/* Thread 0 returns; the others wait at syncthreads for it. */
static const char divergent_ir[] =
    "define void @diverge(i32* %out) {\n"
    "entry:\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %z = icmp eq i32 %t, 0\n"
    "  br i1 %z, label %done, label %wait\n"
    "wait:\n"
    "  call void @llvm.nvvm.barrier0()\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare void @llvm.nvvm.barrier0()\n";

START_TEST(barrier_not_every_thread_reaches) {
  cuplug_library *l;
  T_ASSERT_OK(ir_library(divergent_ir, "diverge", "void(CPointer(int32))", CUPLUG_KERNEL, 0, &l));
  cuplug_kernel *k = kernel(l);
  uint64_t p = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &p}};
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k, .grid = {1, 2, 1},
                          .block = {64, 1, 1}, .args = v, .num_args = 1, .host_threads = 1};
  T_ASSERT_ERROR(t_api()->launch(&a), CUPLUG_ERR_HOST_BARRIER,
                 "kernel diverge, block (0, 0, 0): a barrier not every thread reaches: 63 of 64 "
                 "threads wait at syncthreads (the first thread 1), 0 at a warp collective (the "
                 "first -1), 1 have returned (the first 0)");
  t_api()->library_unload(l);
}
END_TEST

/* ---- threads ---- */

static void *fn(cuplug_library *l, const char *name);

/* Loads, calls and launches from several threads of one session at once. */
static void *load_and_call(void *arg) {
  intptr_t seed = (intptr_t)arg;
  cuplug_library *l = case_library(seed % 2 ? "add_i32" : "k_reduce");
  if (seed % 2) {
    int64_t (*add)(int32_t, int32_t) = (int64_t(*)(int32_t, int32_t))(uintptr_t)fn(l, "add_i32");
    for (int32_t i = 0; i < 1000; i++) ck_assert_int_eq(add(i, (int32_t)seed), i + seed);
  } else {
    cuplug_kernel *k = kernel(l);
    float x[512], out[2];
    for (int i = 0; i < 512; i++) x[i] = (float)(i % 5);
    cuplug_array ao = array1(out, CUPLUG_TYPE_FLOAT32, 2, 4), ax = array1(x, CUPLUG_TYPE_FLOAT32, 512, 4);
    cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &ao}, {CUPLUG_TYPE_ARRAY, &ax}};
    T_ASSERT_OK(launch(k, 2, 256, v, 2, 0));
    ck_assert_float_eq(out[0], 510.0f); /* x[0..255] */
    ck_assert_float_eq(out[1], 511.0f); /* x[256..511] */
  }
  t_api()->library_unload(l);
  return NULL;
}

START_TEST(loads_and_launches_from_many_threads) {
  pthread_t t[6];
  for (intptr_t i = 0; i < 6; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, load_and_call, (void *)i), 0);
  for (int i = 0; i < 6; i++) pthread_join(t[i], NULL);
}
END_TEST

/* ---- libdevice ---- */

static const char libdevice_ir[] =
    "define float @fadd_rz(float %a, float %b) {\n"
    "  %r = call float @__nv_fadd_rz(float %a, float %b)\n  ret float %r\n}\n"
    "define float @fadd_ru(float %a, float %b) {\n"
    "  %r = call float @__nv_fadd_ru(float %a, float %b)\n  ret float %r\n}\n"
    "define float @fdiv_rd(float %a, float %b) {\n"
    "  %r = call float @__nv_fdiv_rd(float %a, float %b)\n  ret float %r\n}\n"
    "define float @fdiv_ru(float %a, float %b) {\n"
    "  %r = call float @__nv_fdiv_ru(float %a, float %b)\n  ret float %r\n}\n"
    "define i32 @f2i_rn(float %a) {\n"
    "  %r = call i32 @__nv_float2int_rn(float %a)\n  ret i32 %r\n}\n"
    "define i32 @f2i_rz(float %a) {\n"
    "  %r = call i32 @__nv_float2int_rz(float %a)\n  ret i32 %r\n}\n"
    "define i32 @f2u_rn(float %a) {\n"
    "  %r = call i32 @__nv_float2uint_rn(float %a)\n  ret i32 %r\n}\n"
    "define float @d2f_rz(double %a) {\n"
    "  %r = call float @__nv_double2float_rz(double %a)\n  ret float %r\n}\n"
    "define i32 @perm(i32 %a, i32 %b, i32 %s) {\n"
    "  %r = call i32 @__nv_byte_perm(i32 %a, i32 %b, i32 %s)\n  ret i32 %r\n}\n"
    "define i64 @umulhi(i64 %a, i64 %b) {\n"
    "  %r = call i64 @__nv_umul64hi(i64 %a, i64 %b)\n  ret i64 %r\n}\n"
    "define i32 @sad(i32 %a, i32 %b, i32 %c) {\n"
    "  %r = call i32 @__nv_sad(i32 %a, i32 %b, i32 %c)\n  ret i32 %r\n}\n"
    "define float @rint(float %a) {\n"
    "  %r = call float @__nv_rintf(float %a)\n  ret float %r\n}\n"
    "define float @round(float %a) {\n"
    "  %r = call float @__nv_roundf(float %a)\n  ret float %r\n}\n"
    "define double @sin(double %a) {\n"
    "  %r = call double @__nv_sin(double %a)\n  ret double %r\n}\n"
    "declare float @__nv_fadd_rz(float, float)\n"
    "declare float @__nv_fadd_ru(float, float)\n"
    "declare float @__nv_fdiv_rd(float, float)\n"
    "declare float @__nv_fdiv_ru(float, float)\n"
    "declare i32 @__nv_float2int_rn(float)\n"
    "declare i32 @__nv_float2int_rz(float)\n"
    "declare i32 @__nv_float2uint_rn(float)\n"
    "declare float @__nv_double2float_rz(double)\n"
    "declare i32 @__nv_byte_perm(i32, i32, i32)\n"
    "declare i64 @__nv_umul64hi(i64, i64)\n"
    "declare i32 @__nv_sad(i32, i32, i32)\n"
    "declare float @__nv_rintf(float)\n"
    "declare float @__nv_roundf(float)\n"
    "declare double @__nv_sin(double)\n";

static void *fn(cuplug_library *l, const char *name) {
  cuplug_host_function_args f = {.struct_size = sizeof f, .library = l, .name = name};
  T_ASSERT_OK(t_api()->host_function(&f));
  return f.address;
}

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

START_TEST(libdevice_gives_the_gpus_bits) {
  cuplug_library *l;
  T_ASSERT_OK(ir_library(libdevice_ir, "fadd_rz", "float32(float32, float32)",
                         CUPLUG_DEVICE_FUNCTION, 0, &l));
  float (*ff2)(float, float);
  ff2 = (float (*)(float, float))(uintptr_t)fn(l, "fadd_rz");
  ck_assert_uint_eq(bits(ff2(1.0f, 1e-8f)), 0x3f800000u); /* toward zero: 1 */
  ff2 = (float (*)(float, float))(uintptr_t)fn(l, "fadd_ru");
  ck_assert_uint_eq(bits(ff2(1.0f, 1e-8f)), 0x3f800001u); /* up: the next float */
  ff2 = (float (*)(float, float))(uintptr_t)fn(l, "fdiv_rd");
  ck_assert_uint_eq(bits(ff2(1.0f, 3.0f)), 0x3eaaaaaau);
  ff2 = (float (*)(float, float))(uintptr_t)fn(l, "fdiv_ru");
  ck_assert_uint_eq(bits(ff2(1.0f, 3.0f)), 0x3eaaaaabu);
  int32_t (*f2i)(float) = (int32_t(*)(float))(uintptr_t)fn(l, "f2i_rn");
  ck_assert_int_eq(f2i(2.5f), 2); /* ties to even */
  ck_assert_int_eq(f2i(3.5f), 4);
  ck_assert_int_eq(f2i(3e9f), 2147483647); /* cvt saturates */
  ck_assert_int_eq(f2i(-3e9f), -2147483647 - 1);
  ck_assert_int_eq(f2i(NAN), 0);
  f2i = (int32_t(*)(float))(uintptr_t)fn(l, "f2i_rz");
  ck_assert_int_eq(f2i(-2.7f), -2);
  uint32_t (*f2u)(float) = (uint32_t(*)(float))(uintptr_t)fn(l, "f2u_rn");
  ck_assert_uint_eq(f2u(-5.0f), 0);
  ck_assert_uint_eq(f2u(4294967296.0f), 4294967295u);
  float (*d2f)(double) = (float (*)(double))(uintptr_t)fn(l, "d2f_rz");
  ck_assert_uint_eq(bits(d2f(0.1)), 0x3dccccccu); /* to nearest would be ...cd */
  uint32_t (*perm)(uint32_t, uint32_t, uint32_t) =
      (uint32_t(*)(uint32_t, uint32_t, uint32_t))(uintptr_t)fn(l, "perm");
  ck_assert_uint_eq(perm(0x03020100u, 0x07060504u, 0x4567u), 0x04050607u);
  ck_assert_uint_eq(perm(0x03020100u, 0x07060504u, 0x0123u), 0x00010203u);
  uint64_t (*mulhi)(uint64_t, uint64_t) = (uint64_t(*)(uint64_t, uint64_t))(uintptr_t)fn(l, "umulhi");
  ck_assert_uint_eq(mulhi(UINT64_MAX, 2), 1);
  int32_t (*sad)(int32_t, int32_t, int32_t) =
      (int32_t(*)(int32_t, int32_t, int32_t))(uintptr_t)fn(l, "sad");
  ck_assert_int_eq(sad(1, 5, 10), 14);
  float (*f1)(float) = (float (*)(float))(uintptr_t)fn(l, "rint");
  ck_assert(f1(2.5f) == 2.0f && f1(-3.5f) == -4.0f);
  f1 = (float (*)(float))(uintptr_t)fn(l, "round");
  ck_assert(f1(2.5f) == 3.0f && f1(-2.5f) == -3.0f);
  /* sin of a huge argument: libdevice's Payne-Hanek reduction, whose
   * 128-bit arithmetic is inline PTX; within its 2 ulp of libm */
  double (*sind)(double) = (double (*)(double))(uintptr_t)fn(l, "sin");
  static const double xs[] = {0.5, 1e10, 1e300, -3.0};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    double got = sind(xs[i]), want = sin(xs[i]);
    ck_assert_msg(fabs(got - want) <= 2 * (nextafter(fabs(want), INFINITY) - fabs(want)),
                  "sin(%g): %.17g, libm %.17g", xs[i], got, want);
  }
  t_api()->library_unload(l);
}
END_TEST

/* fastmath flushes libdevice's subnormals to zero, as libNVVM's -ftz=1 */
START_TEST(fastmath_flushes_libdevice_subnormals) {
  static const char ir[] =
      "define float @f(float %a, float %b) {\n"
      "  %r = call float @__nv_fmaf(float %a, float %b, float 0.0)\n  ret float %r\n}\n"
      "declare float @__nv_fmaf(float, float, float)\n";
  for (uint32_t fastmath = 0; fastmath < 2; fastmath++) {
    cuplug_module m = {sizeof m, "ftz.ll", ir, sizeof ir - 1};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                             .num_modules = 1, .entry = "f", .signature = "float32(float32, float32)",
                             .entry_abi = CUPLUG_ABI_C, .output = CUPLUG_OUTPUT_HOST,
                             .fastmath = fastmath};
    T_ASSERT_OK(t_api()->compile(&a));
    cuplug_library *l = load(a.artifact);
    t_api()->artifact_destroy(a.artifact);
    float (*f)(float, float) = (float (*)(float, float))(uintptr_t)fn(l, "f");
    float got = f(1e-38f, 0.5f); /* 5e-39: a subnormal */
    ck_assert_uint_eq(bits(got), fastmath ? 0u : bits(5e-39f));
    t_api()->library_unload(l);
  }
}
END_TEST

/* ---- what the host cannot run ---- */

START_TEST(unsupported_constructs) {
  cuplug_library *l = NULL;
  static const char cluster_ir[] =
      "define void @cluster(i32* %p) {\n"
      "entry:\n"
      "  %v = call i32 @llvm.nvvm.read.ptx.sreg.clusterid.x()\n"
      "  store i32 %v, i32* %p\n"
      "  ret void\n"
      "}\n"
      "declare i32 @llvm.nvvm.read.ptx.sreg.clusterid.x()\n";
  T_ASSERT_ERROR(ir_library(cluster_ir, "cluster", "void(CPointer(int32))", CUPLUG_KERNEL, 0, &l),
                 CUPLUG_ERR_HOST_UNSUPPORTED,
                 "the NVVM intrinsic @llvm.nvvm.read.ptx.sreg.clusterid.x has no host "
                 "equivalent (test.ll:3)");
  ck_assert_ptr_null(l);
  static const char x86_ir[] =
      "define void @k(i32* %p) {\n"
      "entry:\n"
      "  %v = call i32 @llvm.x86.rdpid()\n"
      "  store i32 %v, i32* %p\n"
      "  ret void\n"
      "}\n"
      "declare i32 @llvm.x86.rdpid()\n";
  T_ASSERT_ERROR(ir_library(x86_ir, "k", "void(CPointer(int32))", CUPLUG_KERNEL, 0, &l),
                 CUPLUG_ERR_HOST_UNSUPPORTED,
                 "@llvm.x86.rdpid is an intrinsic of another target (test.ll:3)");
  static const char asm_ir[] =
      "define void @smid(i32* %p) {\n"
      "entry:\n"
      "  %v = call i32 asm sideeffect \"mov.u32 $0, %smid;\", \"=r\"()\n"
      "  store i32 %v, i32* %p\n"
      "  ret void\n"
      "}\n";
  T_ASSERT_ERROR(ir_library(asm_ir, "smid", "void(CPointer(int32))", CUPLUG_KERNEL, 0, &l),
                 CUPLUG_ERR_HOST_UNSUPPORTED,
                 "inline PTX assembly \"mov.u32 $0, %smid;\" has no host equivalent (test.ll:3)");
  /* CUDA C++ declared for the GPU: nothing the host can call */
  const t_case *c = find_case("dev_ext_i32");
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_declare(c, s);
  t_case_args(c, s, mods, &a);
  a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_load_args ld = {.struct_size = sizeof ld, .session = s, .artifact = a.artifact};
  T_ASSERT_ERROR(t_api()->load(&ld), CUPLUG_ERR_HOST_UNSUPPORTED,
                 "the IR calls @ext_mul, which has no host implementation (CUDA C++ cannot run "
                 "on the host: declare_device's host_function gives one) (input.ll:14)");
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* ext_mul on the host, under the Numba ABI as the IR calls it */
static int ext_mul_host(int32_t *ret, int32_t a, int32_t b) {
  *ret = a * b;
  return 0;
}

START_TEST(declared_function_with_host_implementation) {
  const t_case *c = find_case("dev_ext_i32");
  cuplug_declare_device_args d = {.struct_size = sizeof d,
                                  .registry = t_api()->session_registry(s),
                                  .name = "ext_mul",
                                  .signature = "int32(int32, int32)",
                                  .abi = CUPLUG_ABI_NUMBA,
                                  .host_function = (void *)(uintptr_t)ext_mul_host};
  T_ASSERT_OK(t_api()->declare_device(&d));
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_library *l = load(a.artifact);
  t_api()->artifact_destroy(a.artifact);
  int32_t x = 6, y = 7;
  int64_t r = 0;
  cuplug_value v[] = {{CUPLUG_TYPE_INT32, &x}, {CUPLUG_TYPE_INT32, &y}};
  T_ASSERT_OK(call(l, v, 2, &r, sizeof r));
  ck_assert_int_eq(r, 43); /* ext_mul(a, b) + 1 */
  t_api()->library_unload(l);
}
END_TEST

START_TEST(host_artifact_holds_ir) {
  const t_case *c = find_case("add_i32");
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  a.output = CUPLUG_OUTPUT_HOST;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_artifact_info info = {.struct_size = sizeof info};
  T_ASSERT_OK(t_api()->artifact_info(a.artifact, &info));
  ck_assert_int_eq(info.output, CUPLUG_OUTPUT_HOST);
  ck_assert_ptr_null(info.data);
  ck_assert_uint_eq(info.size, 0);
  ck_assert_str_eq(info.symbol, "add_i32");
  ck_assert_uint_eq(info.num_ir_modules, 1);
  cuplug_ir_view view = {.struct_size = sizeof view};
  T_ASSERT_OK(t_api()->artifact_ir(a.artifact, 0, &view));
  T_ASSERT_CONTAINS(view.text, "define i64 @\"add_i32\"(i32 %\"x\", i32 %\"y\")");
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

static void setup(void) {
  T_ASSERT_OK(t_api()->session_create(NULL, &s));
  num_cases = t_cases(&cases);
}

static void teardown(void) {
  t_cases_free(cases, num_cases);
  t_api()->session_destroy(s);
}

static Suite *suite_host(void) {
  Suite *suite = suite_create("host");
  TCase *tc = t_tcase(suite, "device_functions", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, device_functions_by_signature);
  tcase_add_test(tc, device_function_as_pointer);
  tcase_add_test(tc, host_call_errors);
  tcase_add_test(tc, growable_arguments);
  tcase_add_test(tc, host_artifact_holds_ir);

  tc = t_tcase(suite, "kernels", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, saxpy_values);
  tcase_add_test(tc, read_only_arrays);
  tcase_add_test(tc, atomic_values);
  tcase_add_test(tc, reduce_values);
  tcase_add_test(tc, warp_collectives_and_dynamic_shared);

  tc = t_tcase(suite, "exceptions", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, debug_kernel_reports_exception);
  tcase_add_test(tc, barrier_not_every_thread_reaches);

  tc = t_tcase(suite, "refused", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, unsupported_constructs);

  /* libdevice is libNVVM's */
  tc = t_tcase(suite, "libdevice", T_HOST | T_NVVM, setup, teardown, 120);
  tcase_add_test(tc, libdevice_gives_the_gpus_bits);
  tcase_add_test(tc, fastmath_flushes_libdevice_subnormals);

  tc = t_tcase(suite, "declared_functions", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, declared_function_with_host_implementation);

  tc = t_tcase(suite, "threads", T_HOST, setup, teardown, 120);
  tcase_add_test(tc, loads_and_launches_from_many_threads);
  return suite;
}

int main(int argc, char **argv) {
  static const t_suite_def suites[] = {{"host", suite_host}};
  return t_main(argc, argv, suites, 1);
}
