/* test_gpu.c - what runs on the GPU: the corpus' values, exceptions,
 * faults, launch errors, a library of two kernels, cooperative launches.
 *
 * Every case of the numba-cuda corpus runs and is checked against values
 * computed on the host from the case's Python source: device functions
 * through a small CUDA C++ kernel that calls the C-ABI function, kernels on
 * arrays.  Without a CUDA device the program prints "skipped: no CUDA
 * device" and exits 77, which ctest reports as skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "printf_kernel.h"

static cuplug_session *s;

/* ---- helpers ---- */

/* A 1-d C-contiguous array argument. */
static cuplug_array array1(uint64_t data, cuplug_type_kind dtype, int64_t n, int64_t itemsize) {
  cuplug_array a = {.data = data, .dtype = dtype, .ndim = 1};
  a.shape[0] = n;
  a.strides[0] = itemsize;
  return a;
}

static const t_case *find_case(t_case *cases, int n, const char *name) {
  for (int i = 0; i < n; i++)
    if (strcmp(cases[i].name, name) == 0) return &cases[i];
  return NULL;
}

static t_case *cases;
static int num_cases;

/* Compiles a corpus case with extra options, and its own signature (or
 * sig NULL: the case's). */
static cuplug_artifact *compile_case_sig(const t_case *c, cuplug_output output, uint32_t debug,
                                         const char *sig) {
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_declare(c, s);
  t_case_args(c, s, mods, &a);
  if (sig) a.signature = sig;
  a.output = output;
  a.flags = CUPLUG_COMPILE_CURRENT_DEVICE;
  a.debug = debug;
  if (debug) a.opt = CUPLUG_OPT_NONE;
  cuplug_error *e = output == CUPLUG_OUTPUT_LTOIR ? t_api()->compile_all(&a) : t_api()->compile(&a);
  T_ASSERT_OK(e);
  return a.artifact;
}

static cuplug_artifact *compile_case(const t_case *c, cuplug_output output, uint32_t debug) {
  return compile_case_sig(c, output, debug, NULL);
}

static cuplug_library *load(const cuplug_artifact *art) {
  cuplug_load_args a = {.struct_size = sizeof a, .session = s, .artifact = art};
  T_ASSERT_OK(t_api()->load(&a));
  return a.library;
}

static cuplug_kernel *kernel(cuplug_library *l, const char *name, const char *sig) {
  cuplug_kernel_args a = {.struct_size = sizeof a, .library = l, .name = name, .signature = sig};
  T_ASSERT_OK(t_api()->kernel_get(&a));
  return a.kernel;
}

static cuplug_error *launch(cuplug_kernel *k, unsigned grid, unsigned block, const cuplug_value *v,
                            size_t n) {
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k, .grid = {grid, 1, 1},
                          .block = {block, 1, 1}, .args = v, .num_args = n};
  return t_api()->launch(&a);
}

/* ---- device functions, through a CUDA C++ kernel ---- */

typedef enum { I32, U8, I64, U64, F32, F64, B } ctype;
static const char *const cname[] = {"int", "unsigned char", "long long", "unsigned long long",
                                    "float", "double", "bool"};
static const size_t csize[] = {4, 1, 8, 8, 4, 8, 1};

/* A device function of the corpus: its C types, and its Python source as C.
 * `base` marks an argument passed as the array itself (a CPointer). */
typedef struct dev_case {
  const char *name, *symbol;
  ctype ret;
  int nargs;
  ctype args[3];
  bool base[3];
  double (*ref)(const double *a, const float *p);
} dev_case;

static double ref_add(const double *a, const float *p) { (void)p; return a[0] + a[1]; }
static double ref_add_f32(const double *a, const float *p) { (void)p; return (float)((float)a[0] + (float)a[1]); }
static double ref_bool(const double *a, const float *p) { (void)p; return (a[0] && !a[1]) || a[2]; }
static double ref_ext(const double *a, const float *p) { (void)p; return (double)((int32_t)((int64_t)a[0] * (int64_t)a[1])) + 1; }
static double ref_ptr(const double *a, const float *p) { return (double)p[(int)a[1]] * 2.0; }
static double ref_poly(const double *a, const float *p) { (void)p; return 3.0 * a[0] * a[0] + 2.0 * a[0] + 1.0; }
static double ref_pred(const double *a, const float *p) { (void)p; return a[0] > 0; }

static const dev_case dev_cases[] = {
    {"add_f32", "add_f32", F32, 2, {F32, F32}, {0}, ref_add_f32},
    {"add_i32", "add_i32", I64, 2, {I32, I32}, {0}, ref_add},
    {"dev_bool", "dev_bool", B, 3, {B, B, B}, {0}, ref_bool},
    {"dev_ext_i32", "dev_ext", I64, 2, {I32, I32}, {0}, ref_ext},
    {"dev_ptr_f32", "dev_ptr", F64, 2, {F32, I32}, {true, false}, ref_ptr},
    {"dev_u8", "dev_u8", U64, 2, {U8, U8}, {0}, ref_add},
    {"poly_f64", "poly_f64", F64, 1, {F64}, {0}, ref_poly},
    {"pred_i32", "pred", B, 1, {I32}, {0}, ref_pred},
};
#define NUM_DEV (sizeof dev_cases / sizeof dev_cases[0])

static void store(void *buf, ctype t, size_t i, double v) {
  switch (t) {
    case I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case U8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case I64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case F32: ((float *)buf)[i] = (float)v; break;
    case F64: ((double *)buf)[i] = v; break;
    case B: ((uint8_t *)buf)[i] = v != 0; break;
  }
}

static double load_value(const void *buf, ctype t, size_t i) {
  switch (t) {
    case I32: return ((const int32_t *)buf)[i];
    case U8: return ((const uint8_t *)buf)[i];
    case I64: return (double)((const int64_t *)buf)[i];
    case U64: return (double)((const uint64_t *)buf)[i];
    case F32: return ((const float *)buf)[i];
    case F64: return ((const double *)buf)[i];
    case B: return ((const uint8_t *)buf)[i];
  }
  return 0;
}

/* Random inputs: ints in [-1000, 1000] (bytes in [0, 120], indices in
 * [0, n)), floats in [-100, 100], bools 0/1. */
static double random_value(ctype t, bool index, int n) {
  if (index) return rand() % n;
  switch (t) {
    case U8: return rand() % 121;
    case B: return rand() % 2;
    case F32:
    case F64: return (rand() / (double)RAND_MAX) * 200.0 - 100.0;
    default: return rand() % 2001 - 1000;
  }
}

START_TEST(device_function_values) {
  const dev_case *d = &dev_cases[_i];
  const t_case *c = find_case(cases, num_cases, d->name);
  ck_assert_msg(c != NULL, "corpus case %s missing", d->name);
  /* the C-ABI function as LTO-IR (and what it links), and a kernel calling it */
  cuplug_artifact *fn = compile_case(c, CUPLUG_OUTPUT_LTOIR, 0);
  char src[2048];
  int k = snprintf(src, sizeof src, "extern \"C\" __device__ %s %s(", cname[d->ret], d->symbol);
  for (int a = 0; a < d->nargs; a++)
    k += snprintf(src + k, sizeof src - (size_t)k, "%s%s%s", a ? ", " : "", cname[d->args[a]],
                  d->base[a] ? "*" : "");
  k += snprintf(src + k, sizeof src - (size_t)k,
                ");\nextern \"C\" __global__ void cuplug_test(%s *out", cname[d->ret]);
  for (int a = 0; a < d->nargs; a++)
    k += snprintf(src + k, sizeof src - (size_t)k, ", %s *a%d", cname[d->args[a]], a);
  k += snprintf(src + k, sizeof src - (size_t)k,
                ", int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) out[i] = %s(",
                d->symbol);
  for (int a = 0; a < d->nargs; a++)
    k += snprintf(src + k, sizeof src - (size_t)k, "%sa%d%s", a ? ", " : "", a,
                  d->base[a] ? "" : "[i]");
  snprintf(src + k, sizeof src - (size_t)k, ");\n}\n");

  cuplug_code test = {.struct_size = sizeof test, .kind = CUPLUG_CODE_CU, .name = "test.cu",
                      .data = src, .size = strlen(src)};
  const cuplug_code *code[] = {&test};
  const cuplug_artifact *arts[] = {fn};
  cuplug_link_args la = {.struct_size = sizeof la, .session = s, .code = code, .num_code = 1,
                         .artifacts = arts, .num_artifacts = 1};
  T_ASSERT_OK(t_api()->link(&la));

  enum { N = 1000 };
  double in[3][N];
  void *host[3];
  uint64_t dev[3];
  for (int a = 0; a < d->nargs; a++) {
    host[a] = malloc(N * csize[d->args[a]]);
    bool index = !d->base[a] && d->nargs > 1 && d->base[0] && a == 1;
    for (int i = 0; i < N; i++) {
      in[a][i] = random_value(d->args[a], index, N);
      store(host[a], d->args[a], (size_t)i, in[a][i]);
      in[a][i] = load_value(host[a], d->args[a], (size_t)i); /* as the device sees it */
    }
    dev[a] = t_dev_copy(s, host[a], N * csize[d->args[a]]);
  }
  uint64_t out = t_dev_alloc(s, N * csize[d->ret]);

  char sig[256] = "void(CPointer(uint8)";
  for (int a = 0; a < d->nargs; a++) strcat(sig, ", CPointer(uint8)");
  strcat(sig, ", int32)");
  cuplug_library *lib = load(la.artifact);
  cuplug_kernel *kern = kernel(lib, "cuplug_test", sig);
  int32_t n = N;
  cuplug_value v[5] = {{CUPLUG_TYPE_POINTER, &out}};
  for (int a = 0; a < d->nargs; a++) v[1 + a] = (cuplug_value){CUPLUG_TYPE_POINTER, &dev[a]};
  v[1 + d->nargs] = (cuplug_value){CUPLUG_TYPE_INT32, &n};
  T_ASSERT_OK(launch(kern, (N + 127) / 128, 128, v, (size_t)d->nargs + 2));

  void *got = malloc(N * csize[d->ret]);
  t_to_host(s, got, out, N * csize[d->ret]);
  for (int i = 0; i < N; i++) {
    double args[3] = {in[0][i], d->nargs > 1 ? in[1][i] : 0, d->nargs > 2 ? in[2][i] : 0};
    double want = d->ref(args, d->base[0] ? (const float *)host[0] : NULL);
    double have = load_value(got, d->ret, (size_t)i);
    double tol = d->ret == F64 ? 1e-12 * fabs(want) : 0; /* fma contraction on the device */
    ck_assert_msg(fabs(have - want) <= tol, "%s: element %d: got %.17g, expected %.17g", d->name,
                  i, have, want);
  }
  free(got);
  for (int a = 0; a < d->nargs; a++) {
    t_dev_free(s, dev[a]);
    free(host[a]);
  }
  t_dev_free(s, out);
  t_api()->library_unload(lib);
  t_api()->artifact_destroy(la.artifact);
  t_api()->artifact_destroy(fn);
}
END_TEST

/* ---- kernels on arrays ---- */

static cuplug_kernel *case_kernel(const char *name, uint32_t debug, cuplug_library **lib) {
  const t_case *c = find_case(cases, num_cases, name);
  ck_assert_msg(c != NULL, "corpus case %s missing", name);
  cuplug_artifact *art = compile_case(c, CUPLUG_OUTPUT_CUBIN, debug);
  *lib = load(art);
  t_api()->artifact_destroy(art); /* the library keeps what it needs */
  return kernel(*lib, NULL, NULL);
}

static void run_saxpy(void) {
  enum { N = 100000 };
  cuplug_library *lib;
  cuplug_kernel *k = case_kernel("saxpy_kernel", 0, &lib);
  float *x = malloc(N * 4), *y = malloc(N * 4), *r = malloc(N * 4);
  for (int i = 0; i < N; i++) {
    x[i] = (float)(rand() % 1000) / 7.0f;
    y[i] = (float)(rand() % 1000) / 3.0f;
  }
  uint64_t dx = t_dev_copy(s, x, N * 4), dy = t_dev_copy(s, y, N * 4), dr = t_dev_alloc(s, N * 4);
  cuplug_array ar = array1(dr, CUPLUG_TYPE_FLOAT32, N, 4), ax = array1(dx, CUPLUG_TYPE_FLOAT32, N, 4),
               ay = array1(dy, CUPLUG_TYPE_FLOAT32, N, 4);
  float a = 2.5f;
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &ar}, {CUPLUG_TYPE_ARRAY, &ax}, {CUPLUG_TYPE_ARRAY, &ay},
                      {CUPLUG_TYPE_FLOAT32, &a}};
  T_ASSERT_OK(launch(k, (N + 255) / 256, 256, v, 4));
  t_to_host(s, r, dr, N * 4);
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], fmaf(a, x[i], y[i]));
  t_dev_free(s, dx);
  t_dev_free(s, dy);
  t_dev_free(s, dr);
  free(x);
  free(y);
  free(r);
  t_api()->library_unload(lib);
}

START_TEST(saxpy_values) { run_saxpy(); }
END_TEST

START_TEST(atomic_values) {
  enum { N = 4096 };
  cuplug_library *lib;
  cuplug_kernel *k = case_kernel("k_atomic", 0, &lib);
  float x[N], acc = 0;
  double sum = 0;
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 17);
    sum += x[i];
  }
  int32_t cnt[2] = {0, -1};
  uint64_t dacc = t_dev_copy(s, &acc, 4), dcnt = t_dev_copy(s, cnt, 8), dx = t_dev_copy(s, x, sizeof x);
  cuplug_array aacc = array1(dacc, CUPLUG_TYPE_FLOAT32, 1, 4), acnt = array1(dcnt, CUPLUG_TYPE_INT32, 2, 4),
               ax = array1(dx, CUPLUG_TYPE_FLOAT32, N, 4);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &aacc}, {CUPLUG_TYPE_ARRAY, &acnt}, {CUPLUG_TYPE_ARRAY, &ax}};
  T_ASSERT_OK(launch(k, N / 128, 128, v, 3));
  t_to_host(s, &acc, dacc, 4);
  t_to_host(s, cnt, dcnt, 8);
  ck_assert_float_eq(acc, (float)sum); /* small integers: every order sums exactly */
  ck_assert_int_eq(cnt[0], N);
  ck_assert_int_eq(cnt[1], N - 1);
  t_dev_free(s, dacc);
  t_dev_free(s, dcnt);
  t_dev_free(s, dx);
  t_api()->library_unload(lib);
}
END_TEST

START_TEST(reduce_values) {
  enum { N = 256 * 40 + 77, BLOCKS = 41 };
  cuplug_library *lib;
  cuplug_kernel *k = case_kernel("k_reduce", 0, &lib);
  float *x = malloc(N * 4), out[BLOCKS];
  for (int i = 0; i < N; i++) x[i] = (float)(i % 9) - 4.0f;
  uint64_t dx = t_dev_copy(s, x, N * 4), dout = t_dev_alloc(s, sizeof out);
  cuplug_array aout = array1(dout, CUPLUG_TYPE_FLOAT32, BLOCKS, 4), ax = array1(dx, CUPLUG_TYPE_FLOAT32, N, 4);
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &aout}, {CUPLUG_TYPE_ARRAY, &ax}};
  T_ASSERT_OK(launch(k, BLOCKS, 256, v, 2));
  t_to_host(s, out, dout, sizeof out);
  for (int b = 0; b < BLOCKS; b++) {
    float want = 0;
    for (int i = b * 256; i < (b + 1) * 256 && i < N; i++) want += x[i];
    ck_assert_float_eq(out[b], want); /* small integers again: exact */
  }
  t_dev_free(s, dx);
  t_dev_free(s, dout);
  free(x);
  t_api()->library_unload(lib);
}
END_TEST

/* ---- exceptions and faults ---- */


/* A kernel that stores through a pointer into nowhere. */
static const char faulting_ir[] =
    "define i32 @faulter(i8** %ret, i64 %addr) {\n"
    "entry:\n"
    "  %p = inttoptr i64 %addr to i32*\n"
    "  store volatile i32 1, i32* %p\n"
    "  ret i32 0\n"
    "}\n";

static cuplug_kernel *ir_kernel(const char *ir, const char *entry, const char *sig, uint32_t debug,
                                cuplug_library **lib) {
  cuplug_module m = {sizeof m, entry, ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods, .num_modules = 1,
                           .entry = entry, .signature = sig, .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_CUBIN, .debug = debug,
                           .flags = CUPLUG_COMPILE_CURRENT_DEVICE,
                           .opt = debug ? CUPLUG_OPT_NONE : 0};
  T_ASSERT_OK(t_api()->compile(&a));
  *lib = load(a.artifact);
  t_api()->artifact_destroy(a.artifact);
  return kernel(*lib, NULL, NULL);
}

START_TEST(debug_kernel_reports_exception) {
  cuplug_library *lib;
  cuplug_kernel *k = ir_kernel(t_raising_ir, "raiser", "void(CPointer(int32))", 1, &lib);
  uint64_t out = t_dev_alloc(s, 4);
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &out}};
  T_ASSERT_ERROR(launch(k, 2, 8, v, 1), CUPLUG_ERR_KERNEL_EXCEPTION,
                 "kernel raiser raised exception 7: tid=[0, 0, 3] ctaid=[0, 0, 1]");
  /* the store is cleared for the next launch: one block only raises nothing */
  T_ASSERT_OK(launch(k, 1, 8, v, 1));
  t_dev_free(s, out);
  t_api()->library_unload(lib);
}
END_TEST

/* CUDA's printf on the GPU, and the runtime's on this CPU (device_lib.c),
 * print the same from the same kernel */
START_TEST(printf_on_both_targets) {
  for (int host = 0; host < 2; host++) {
    cuplug_module m = {sizeof m, "say.ll", t_printf_ir, strlen(t_printf_ir)};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                             .num_modules = 1, .entry = "say", .kind = CUPLUG_KERNEL,
                             .output = host ? CUPLUG_OUTPUT_HOST : CUPLUG_OUTPUT_CUBIN,
                             .flags = host ? 0 : CUPLUG_COMPILE_CURRENT_DEVICE};
    T_ASSERT_OK(t_api()->compile(&a));
    cuplug_library *lib = load(a.artifact);
    t_api()->artifact_destroy(a.artifact);
    cuplug_kernel *k = kernel(lib, NULL, NULL);
    int32_t base = 0;
    cuplug_value v[] = {{CUPLUG_TYPE_INT32, &base}};
    int saved = t_stdout_capture();
    cuplug_error *e = launch(k, 1, 1, v, 1);
    if (!e) e = t_api()->synchronize(s);
    char *printed = t_stdout_captured(saved); /* before any assertion can leave the test */
    T_ASSERT_OK(e);
    ck_assert_msg(strcmp(printed, t_printf_expected) == 0, "%s printed \"%s\"",
                  host ? "this CPU" : "the GPU", printed);
    free(printed);
    t_api()->library_unload(lib);
  }
}
END_TEST

START_TEST(fault_then_fresh_context) {
  cuplug_library *lib;
  cuplug_kernel *k = ir_kernel(faulting_ir, "faulter", "void(int64)", 0, &lib);
  int64_t nowhere = 0x10;
  cuplug_value v[] = {{CUPLUG_TYPE_INT64, &nowhere}};
  cuplug_error *e = launch(k, 1, 1, v, 1);
  if (!e) e = t_api()->synchronize(s);
  ck_assert_int_eq(t_api()->error_code(e), CUPLUG_ERR_KERNEL_FAULT);
  ck_assert_str_eq(t_api()->error_message(e),
                   "cuCtxSynchronize: a kernel faulted: CUDA_ERROR_ILLEGAL_ADDRESS (700): an "
                   "illegal memory access was encountered; the context is lost: device_reset() "
                   "asks the driver for a fresh one");
  t_api()->error_destroy(e);
  t_api()->library_unload(lib);
  e = t_api()->device_reset(s);
  if (e) {
    /* CUDA's rule: a fault takes the device from the process for good */
    T_ASSERT_ERROR(e, CUPLUG_ERR_KERNEL_FAULT,
                   "device_reset: the CUDA driver keeps this process from the device after the "
                   "fault (CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was "
                   "encountered): GPU work needs a new process; compiling and linking go on");
    printf("gpu: the driver refused a fresh context after the fault, as CUDA documents\n");
    /* ...and the process goes on compiling and linking */
    cuplug_artifact *art = compile_case(find_case(cases, num_cases, "saxpy_kernel"),
                                        CUPLUG_OUTPUT_CUBIN, 0);
    ck_assert_int_eq(t_api()->error_code(NULL), CUPLUG_OK);
    cuplug_artifact_info info = {.struct_size = sizeof info};
    T_ASSERT_OK(t_api()->artifact_info(art, &info));
    ck_assert(t_elf_has_symbol(info.data, info.size, info.symbol));
    t_api()->artifact_destroy(art);
  } else {
    printf("gpu: the driver gave a fresh context after the fault\n");
    run_saxpy(); /* and GPU work goes on */
  }
}
END_TEST

/* ---- read-only memory ---- */

/* A read-only device array (a __cuda_array_interface__ whose data is
 * (ptr, True)) goes only to a parameter declared readonly, as on the host. */
START_TEST(read_only_arrays) {
  enum { N = 4096 };
  const t_case *c = find_case(cases, num_cases, "saxpy_kernel");
  const char *name = json_string(c->json, "entry");
  float x[N], y[N], r[N], a = 2.0f;
  for (int i = 0; i < N; i++) x[i] = (float)(i % 100), y[i] = (float)(i % 7), r[i] = -1;
  uint64_t dx = t_dev_copy(s, x, sizeof x), dy = t_dev_copy(s, y, sizeof y),
           dr = t_dev_copy(s, r, sizeof r);
  int64_t shape[] = {N}, strides[] = {4};
  cuplug_ndarray nr = {CUPLUG_NDARRAY_STRUCT_SIZE, dr, CUPLUG_TYPE_FLOAT32, 1, shape, strides, 0};
  cuplug_ndarray nx = nr, ny = nr;
  nx.data = dx;
  ny.data = dy;
  nx.flags = ny.flags = CUPLUG_ARRAY_READONLY;
  cuplug_argument ar = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &nr},
                  ax = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &nx},
                  ay = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_ARRAY, &ny},
                  aa = {CUPLUG_ARGUMENT_STRUCT_SIZE, CUPLUG_TYPE_FLOAT32, &a};
  const cuplug_argument *argv[] = {&ar, &ax, &ay, &aa};
  cuplug_library *lib;
  cuplug_launch_args la = {.struct_size = CUPLUG_LAUNCH_ARGS_STRUCT_SIZE,
                           .kernel = case_kernel("saxpy_kernel", 0, &lib), .grid = {N / 256},
                           .block = {256}, .arguments = argv, .num_args = 4};
  char want[4096];
  snprintf(want, sizeof want,
           "kernel %s, argument 1 (float32[::1]): the array is read-only; the kernel may write "
           "it (declare the parameter readonly array(float32, 1d, C) if it does not)", name);
  T_ASSERT_ERROR(t_api()->launch(&la), CUPLUG_ERR_LAUNCH_ARGS, want);
  T_ASSERT_OK(t_api()->synchronize(s));
  t_to_host(s, r, dr, sizeof r);
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], -1); /* it never ran */
  t_api()->library_unload(lib);

  cuplug_artifact *art = compile_case_sig(c, CUPLUG_OUTPUT_CUBIN, 0,
                                          "void(float32[::1], readonly array(float32, 1d, C), "
                                          "readonly array(float32, 1d, C), float32)");
  lib = load(art);
  t_api()->artifact_destroy(art);
  la.kernel = kernel(lib, NULL, NULL);
  T_ASSERT_OK(t_api()->launch(&la));
  t_to_host(s, r, dr, sizeof r);
  for (int i = 0; i < N; i++) ck_assert_float_eq(r[i], fmaf(a, x[i], y[i]));
  t_dev_free(s, dx);
  t_dev_free(s, dy);
  t_dev_free(s, dr);
  t_api()->library_unload(lib);
}
END_TEST

/* ---- launch errors ---- */

START_TEST(launch_errors) {
  cuplug_library *lib;
  cuplug_kernel *k = case_kernel("saxpy_kernel", 0, &lib);
  const char *name = json_string(find_case(cases, num_cases, "saxpy_kernel")->json, "entry");
  uint64_t d = t_dev_alloc(s, 64);
  cuplug_array arr = array1(d, CUPLUG_TYPE_FLOAT32, 16, 4);
  float a = 1;
  cuplug_value v[] = {{CUPLUG_TYPE_ARRAY, &arr}, {CUPLUG_TYPE_ARRAY, &arr}, {CUPLUG_TYPE_ARRAY, &arr},
                      {CUPLUG_TYPE_FLOAT32, &a}};
  char want[4096];
  snprintf(want, sizeof want,
           "kernel %s takes 4 arguments (void(float32[::1], float32[::1], float32[::1], "
           "float32)), got 3",
           name);
  T_ASSERT_ERROR(launch(k, 1, 16, v, 3), CUPLUG_ERR_LAUNCH_ARGS, want);
  cuplug_value wrong[] = {v[0], v[1], v[2], {CUPLUG_TYPE_FLOAT64, &a}};
  snprintf(want, sizeof want, "kernel %s, argument 3 (float32): got float64", name);
  T_ASSERT_ERROR(launch(k, 1, 16, wrong, 4), CUPLUG_ERR_LAUNCH_ARGS, want);
  cuplug_array ints = array1(d, CUPLUG_TYPE_INT32, 16, 4);
  cuplug_value wrong_dtype[] = {{CUPLUG_TYPE_ARRAY, &ints}, v[1], v[2], v[3]};
  snprintf(want, sizeof want,
           "kernel %s, argument 0 (float32[::1]): got an array of int32 with 1 dimensions", name);
  T_ASSERT_ERROR(launch(k, 1, 16, wrong_dtype, 4), CUPLUG_ERR_LAUNCH_ARGS, want);
  cuplug_array strided = array1(d, CUPLUG_TYPE_FLOAT32, 8, 8);
  cuplug_value not_c[] = {{CUPLUG_TYPE_ARRAY, &strided}, v[1], v[2], v[3]};
  snprintf(want, sizeof want,
           "kernel %s, argument 0 (float32[::1]): its strides are not C-contiguous", name);
  T_ASSERT_ERROR(launch(k, 1, 16, not_c, 4), CUPLUG_ERR_LAUNCH_ARGS, want);
  snprintf(want, sizeof want, "kernel %s: block (2048, 1, 1) has 2048 threads; the device allows 1024",
           name);
  T_ASSERT_ERROR(launch(k, 1, 2048, v, 4), CUPLUG_ERR_LAUNCH_CONFIG, want);
  cuplug_launch_args big = {.struct_size = sizeof big, .kernel = k, .grid = {1, 1, 1},
                            .block = {32, 1, 1}, .args = v, .num_args = 4,
                            .shared_mem = 1u << 30};
  snprintf(want, sizeof want,
           "kernel %s: 1073741824 bytes of dynamic shared memory; the device allows 232448", name);
  T_ASSERT_ERROR(t_api()->launch(&big), CUPLUG_ERR_LAUNCH_CONFIG, want);

  cuplug_kernel_args ka = {.struct_size = sizeof ka, .library = lib, .name = "nope",
                           .signature = "void()"};
  T_ASSERT_ERROR(t_api()->kernel_get(&ka), CUPLUG_ERR_KERNEL_NOT_FOUND,
                 "no kernel named 'nope' in the library");
  t_dev_free(s, d);
  t_api()->library_unload(lib);
}
END_TEST

START_TEST(load_refuses_ltoir) {
  const t_case *c = find_case(cases, num_cases, "saxpy_kernel");
  cuplug_module m = {sizeof m, "input.ll", c->ir, c->ir_size};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a;
  t_case_args(c, s, mods, &a);
  a.output = CUPLUG_OUTPUT_LTOIR;
  T_ASSERT_OK(t_api()->compile(&a));
  cuplug_load_args la = {.struct_size = sizeof la, .session = s, .artifact = a.artifact};
  T_ASSERT_ERROR(t_api()->load(&la), CUPLUG_ERR_LOAD,
                 "load: the artifact holds ltoir, which the driver cannot load: link it to a "
                 "cubin first (output CUPLUG_OUTPUT_CUBIN, or link())");
  ck_assert_ptr_null(la.library);
  t_api()->artifact_destroy(a.artifact);
}
END_TEST

/* ---- a library of two kernels ---- */

/* A cubin linked from two kernels has no one kernel: kernel_get needs a
 * name, and with it takes that kernel's signature from the artifact. */
START_TEST(two_kernels_by_name) {
  cuplug_artifact *one =
      t_compile_kernel(s, &t_k_const, CUPLUG_OUTPUT_LTOIR, CUPLUG_COMPILE_CURRENT_DEVICE);
  cuplug_artifact *two =
      t_compile_kernel(s, &t_k_sum, CUPLUG_OUTPUT_LTOIR, CUPLUG_COMPILE_CURRENT_DEVICE);
  const cuplug_artifact *arts[] = {one, two};
  cuplug_link_args la = {.struct_size = sizeof la, .session = s, .artifacts = arts,
                         .num_artifacts = 2};
  T_ASSERT_OK(t_api()->link(&la));
  cuplug_library *lib = load(la.artifact);
  t_api()->artifact_destroy(la.artifact); /* the library keeps what it needs */
  t_api()->artifact_destroy(one);
  t_api()->artifact_destroy(two);

  cuplug_kernel_args ka = {.struct_size = sizeof ka, .library = lib};
  T_ASSERT_ERROR(t_api()->kernel_get(&ka), CUPLUG_ERR_INVALID_ARGUMENT,
                 "kernel_get: the library holds 2 kernels (k_const, k_sum): name one");
  ck_assert_ptr_null(ka.kernel);
  cuplug_kernel *k_const = kernel(lib, "k_const", NULL), *k_sum = kernel(lib, "k_sum", NULL);
  /* kernel_info tells each kernel's name and the signature it settled on */
  const cuplug_type *sum_sig = NULL;
  T_ASSERT_OK(t_api()->type_parse("void(CPointer(int32), int32, int32)", &sum_sig));
  cuplug_kernel_info info = {.struct_size = sizeof info, .kernel = k_sum};
  T_ASSERT_OK(t_api()->kernel_info(&info));
  ck_assert_str_eq(info.name, "k_sum");
  ck_assert_ptr_eq(info.signature, sum_sig); /* types are interned */
  ck_assert_uint_eq(info.debug, 0);
  ck_assert_uint_eq(info.cooperative, 0);
  info.kernel = k_const;
  T_ASSERT_OK(t_api()->kernel_info(&info));
  ck_assert_str_eq(info.name, "k_const");
  ck_assert_ptr_ne(info.signature, sum_sig);

  uint64_t out = t_dev_alloc(s, 4);
  int32_t got = 0, a = 30, b = 12;
  cuplug_value v_const[] = {{CUPLUG_TYPE_POINTER, &out}};
  T_ASSERT_OK(launch(k_const, 1, 1, v_const, 1));
  t_to_host(s, &got, out, 4);
  ck_assert_int_eq(got, 11);
  cuplug_value v_sum[] = {{CUPLUG_TYPE_POINTER, &out}, {CUPLUG_TYPE_INT32, &a},
                          {CUPLUG_TYPE_INT32, &b}};
  T_ASSERT_OK(launch(k_sum, 1, 1, v_sum, 3));
  t_to_host(s, &got, out, 4);
  ck_assert_int_eq(got, 42);
  /* each kernel has its own signature: k_sum refuses k_const's arguments */
  T_ASSERT_ERROR(launch(k_sum, 1, 1, v_const, 1), CUPLUG_ERR_LAUNCH_ARGS,
                 "kernel k_sum takes 3 arguments (void(CPointer(int32), int32, int32)), got 1");
  t_dev_free(s, out);
  t_api()->library_unload(lib);
}
END_TEST

/* ---- a cooperative kernel: grid-wide synchronisation through a declared
 * CUDA C++ function, which links libcudadevrt and launches cooperatively */

static const char grid_sync_cu[] =
    "#include <cooperative_groups.h>\n"
    "extern \"C\" __device__ int grid_sync(int *ret) {\n"
    "  cooperative_groups::this_grid().sync();\n"
    "  *ret = 0;\n"
    "  return 0;\n"
    "}\n";

/* Each thread writes its index, the grid synchronises, then each thread
 * reads its mirror's: wrong without a grid-wide barrier. */
static const char mirror_ir[] =
    "define i32 @mirror(i8** %ret, i32* %buf, i32* %out, i32 %n) {\n"
    "entry:\n"
    "  %slot = alloca i32\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %b = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %w = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %bw = mul i32 %b, %w\n"
    "  %i = add i32 %bw, %t\n"
    "  %p = getelementptr i32, i32* %buf, i32 %i\n"
    "  store volatile i32 %i, i32* %p\n"
    "  %st = call i32 @grid_sync(i32* %slot)\n"
    "  %last = sub i32 %n, 1\n"
    "  %j = sub i32 %last, %i\n"
    "  %q = getelementptr i32, i32* %buf, i32 %j\n"
    "  %v = load volatile i32, i32* %q\n"
    "  %o = getelementptr i32, i32* %out, i32 %i\n"
    "  store i32 %v, i32* %o\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @grid_sync(i32*)\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n";

START_TEST(cooperative_grid_sync) {
  cuplug_code cu = {.struct_size = sizeof cu, .name = "grid_sync.cu", .data = grid_sync_cu,
                    .size = strlen(grid_sync_cu)};
  const cuplug_code *code[] = {&cu};
  cuplug_declare_device_args d = {.struct_size = sizeof d, .registry = t_api()->session_registry(s),
                                  .name = "grid_sync", .signature = "int32()", .link = code,
                                  .num_link = 1, .use_cooperative = 1};
  cuplug_error *e = t_api()->declare_device(&d);
  if (e && t_api()->error_code(e) == CUPLUG_ERR_DUPLICATE) t_api()->error_destroy(e); /* rerun */
  else T_ASSERT_OK(e);
  cuplug_library *lib;
  cuplug_kernel *k =
      ir_kernel(mirror_ir, "mirror", "void(CPointer(int32), CPointer(int32), int32)", 0, &lib);
  enum { BLOCKS = 8, THREADS = 128, N = BLOCKS * THREADS };
  uint64_t buf = t_dev_alloc(s, N * 4), out = t_dev_alloc(s, N * 4);
  int32_t n = N;
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &buf}, {CUPLUG_TYPE_POINTER, &out}, {CUPLUG_TYPE_INT32, &n}};
  T_ASSERT_OK(launch(k, BLOCKS, THREADS, v, 3));
  int32_t host[N];
  t_to_host(s, host, out, sizeof host);
  for (int i = 0; i < N; i++) ck_assert_int_eq(host[i], N - 1 - i);
  t_dev_free(s, buf);
  t_dev_free(s, out);
  t_api()->library_unload(lib);
}
END_TEST

/* 96 KiB of dynamic shared memory, as Triton's matmul takes: each thread
 * writes its index into the last 1024 slots (beyond 48 KiB), and reads
 * them back mirrored after a barrier.  The launch must raise the kernel's
 * limit first (cuKernelSetAttribute), which a launch under 48 KiB never
 * does. */
static const char big_shared_ir[] =
    "@dyn = external addrspace(3) global [0 x i32], align 4\n"
    "define i32 @big_shared(i8** %ret, i32* %out) {\n"
    "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %slot = add i32 %t, 23552\n"
    "  %p = getelementptr [0 x i32], [0 x i32] addrspace(3)* @dyn, i32 0, i32 %slot\n"
    "  store i32 %t, i32 addrspace(3)* %p\n"
    "  call void @llvm.nvvm.barrier0()\n"
    "  %m = sub i32 24575, %t\n"
    "  %q = getelementptr [0 x i32], [0 x i32] addrspace(3)* @dyn, i32 0, i32 %m\n"
    "  %v = load i32, i32 addrspace(3)* %q\n"
    "  %o = getelementptr i32, i32* %out, i32 %t\n"
    "  store i32 %v, i32* %o\n"
    "  ret i32 0\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare void @llvm.nvvm.barrier0()\n";

START_TEST(large_dynamic_shared_memory) {
  cuplug_library *lib;
  cuplug_kernel *k = ir_kernel(big_shared_ir, "big_shared", "void(CPointer(int32))", 0, &lib);
  uint64_t out = t_dev_alloc(s, 1024 * 4);
  cuplug_value v[] = {{CUPLUG_TYPE_POINTER, &out}};
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k, .grid = {1, 1, 1},
                          .block = {1024, 1, 1}, .args = v, .num_args = 1,
                          .shared_mem = 96 * 1024};
  T_ASSERT_OK(t_api()->launch(&a));
  T_ASSERT_OK(t_api()->launch(&a)); /* raised once, kept */
  int32_t host[1024];
  t_to_host(s, host, out, sizeof host);
  for (int i = 0; i < 1024; i++) ck_assert_int_eq(host[i], 1023 - i);
  t_dev_free(s, out);
  t_api()->library_unload(lib);
}
END_TEST

int main(void) {
  if (!t_have_nvvm()) {
    printf("skipped: libNVVM not found (set CUDA_HOME)\n");
    return T_SKIP;
  }
  if (!t_have_gpu()) {
    printf("skipped: no CUDA device\n");
    return T_SKIP;
  }
  num_cases = t_cases(&cases);
  cuplug_error *e = t_api()->session_create(NULL, &s); /* outside a test: no ck_assert */
  if (e) {
    fprintf(stderr, "session_create: %s\n", t_api()->error_message(e));
    return 1;
  }
  srand(12345);
  Suite *suite = suite_create("gpu");
  TCase *tc = tcase_create("gpu");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, device_function_values, 0, (int)NUM_DEV);
  tcase_add_test(tc, saxpy_values);
  tcase_add_test(tc, atomic_values);
  tcase_add_test(tc, reduce_values);
  tcase_add_test(tc, debug_kernel_reports_exception);
  tcase_add_test(tc, launch_errors);
  tcase_add_test(tc, read_only_arrays);
  tcase_add_test(tc, load_refuses_ltoir);
  tcase_add_test(tc, two_kernels_by_name);
  tcase_add_test(tc, cooperative_grid_sync);
  tcase_add_test(tc, large_dynamic_shared_memory);
  tcase_add_test(tc, printf_on_both_targets);
  tcase_add_test(tc, fault_then_fresh_context); /* last: the context is lost */
  suite_add_tcase(suite, tc);
  int rc = t_run_suite(suite);
  t_api()->session_destroy(s);
  t_cases_free(cases, num_cases);
  return rc;
}
