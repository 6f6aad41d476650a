/* fuzz_launch_args.c - the arguments of a launch or a CPU call, in both of
 * the ABI's forms, read and packed against a signature as launch() packs
 * them (plugin/load/args.c): the fuzzer picks the signature (a kernel's, of
 * a few parameters), each argument's form, kind, struct sizes, array
 * dtype, rank, flags, shape and strides.  Pointers are the harness's own,
 * so that what is fuzzed is what a host controls.  Every input packs or
 * fails with an error; nothing is read outside what was given. */
#include "base/error.h"
#include "base/types.h"
#include "fuzz.h"
#include "plugin/load/args.h"

static const char *const signatures[] = {
    "void(float32[::1], float32[::1], float32)", "void(int8[:, ::1], CPointer(int64), bool)",
    "void(readonly array(float64, 3d, A), complex64, int16)", "void(float32[::1, :], uint64)",
    "void()", "void(UniTuple(int32 x 2), float16)"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const cuplug_type *sig;
  cuplug_error *e = cuplug__signature_parse(
      signatures[fuzz_choose(&data, &size, sizeof signatures / sizeof signatures[0])], &sig);
  if (e) abort();
  enum { N = 4 };
  int64_t dims[N][2][8];       /* each argument's shape and strides */
  unsigned char scalars[N][16]; /* each argument's value */
  /* a struct_size may claim more than the header knows: what follows it is
   * there, zero but for a byte the fuzzer may set (a newer host's field) */
  struct { cuplug_ndarray s; unsigned char newer[64]; } arrays[N];
  struct { cuplug_argument s; unsigned char newer[64]; } growable[N];
  cuplug_array fixed[N];
  const cuplug_argument *argv[N];
  cuplug_value values[N];
  memset(dims, 0, sizeof dims);
  memset(scalars, 0, sizeof scalars);
  memset(arrays, 0, sizeof arrays);
  memset(growable, 0, sizeof growable);
  bool use_growable = fuzz_choose(&data, &size, 2);
  size_t n = fuzz_choose(&data, &size, N + 1);
  for (size_t i = 0; i < n; i++) {
    cuplug_type_kind kind = (cuplug_type_kind)fuzz_choose(&data, &size, 24);
    cuplug_type_kind dtype = (cuplug_type_kind)fuzz_choose(&data, &size, 24);
    uint32_t ndim = fuzz_choose(&data, &size, 10);
    uint32_t flags = fuzz_choose(&data, &size, 4);
    size_t struct_size = fuzz_choose(&data, &size, 64 + sizeof(cuplug_argument));
    for (int d = 0; d < 8; d++) {
      dims[i][0][d] = (int64_t)fuzz_choose(&data, &size, 256) - 8;
      dims[i][1][d] = (int64_t)fuzz_choose(&data, &size, 256) - 8;
    }
    bool array = kind == CUPLUG_TYPE_ARRAY;
    uint64_t base = (uint64_t)(uintptr_t)scalars[i];
    arrays[i].s = (cuplug_ndarray){fuzz_choose(&data, &size, 2) ? CUPLUG_NDARRAY_STRUCT_SIZE
                                                                : struct_size,
                                   base, dtype, ndim, dims[i][0], dims[i][1], flags};
    arrays[i].newer[fuzz_choose(&data, &size, 64)] = (unsigned char)fuzz_choose(&data, &size, 2);
    growable[i].newer[fuzz_choose(&data, &size, 64)] = (unsigned char)fuzz_choose(&data, &size, 2);
    fixed[i] = (cuplug_array){.data = base, .dtype = dtype, .ndim = ndim};
    memcpy(fixed[i].shape, dims[i][0], sizeof fixed[i].shape);
    memcpy(fixed[i].strides, dims[i][1], sizeof fixed[i].strides);
    growable[i].s = (cuplug_argument){fuzz_choose(&data, &size, 2) ? CUPLUG_ARGUMENT_STRUCT_SIZE
                                                                   : struct_size,
                                      kind, array ? (void *)&arrays[i].s : (void *)scalars[i]};
    argv[i] = &growable[i].s;
    values[i] = (cuplug_value){kind, array ? (void *)&fixed[i] : (void *)scalars[i]};
  }
  cuplug__arg_site site = {"kernel", "k", sig};
  cuplug__args args = {use_growable ? NULL : values, use_growable ? argv : NULL, n};
  void *params[CUPLUG__MAX_PARAMS];
  int64_t slots[CUPLUG__MAX_PARAMS];
  size_t num_params = 0;
  e = cuplug__args_pack(&site, &args, params, slots, &num_params);
  if (!e && num_params > CUPLUG__MAX_PARAMS) abort();
  cuplug__error_destroy(e);
  return 0;
}
