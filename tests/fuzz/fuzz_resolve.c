/* fuzz_resolve.c - resolve_call with random keys, argument types and
 * integer literals, over the built-in registry and a host's generic typer. */
#include "cuplug/cuplug.h"
#include "fuzz.h"

static const char *const type_names[] = {
    "bool",       "int8",       "int16",        "int32",          "int64",
    "uint8",      "uint16",     "uint32",       "uint64",         "float16",
    "float32",    "float64",    "complex64",    "complex128",     "CPointer(float32)",
    "CPointer(int64)", "float32[::1]", "int32[:, :]", "float64[::1, :]", "uint64[:]",
    "UniTuple(int64 x 2)", "Tuple(float32, int32)", "class(float32)", "class(int64)"};
enum { NTYPES = sizeof type_names / sizeof type_names[0] };

static const cuplug_api *api;
static cuplug_registry *reg;
static const char **keys;
static size_t num_keys;

static int note_key(void *user, const cuplug_listing *l) {
  (void)user;
  if (num_keys && !strcmp(keys[num_keys - 1], l->key)) return 0;
  keys = realloc(keys, (num_keys + 1) * sizeof *keys);
  keys[num_keys++] = strdup(l->key);
  return 0;
}

/* A host's generic template: T(T, ...) for any argument types. */
static cuplug_callback_status same(void *user, const char *key, const cuplug_type *const *args,
                                   size_t n, const cuplug_type **sig, char *msg, size_t size) {
  (void)user, (void)key, (void)msg, (void)size;
  if (!n) return CUPLUG_CALLBACK_NO_MATCH;
  cuplug_error *e = api->type_signature(args[0], args, n, sig);
  if (e) {
    api->error_destroy(e);
    return CUPLUG_CALLBACK_FAILED;
  }
  return CUPLUG_CALLBACK_OK;
}

static void setup(void) {
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  if (api->registry_create(NULL, &reg)) abort();
  cuplug_template_args t = {.struct_size = sizeof t, .registry = reg, .key = "host.same",
                            .typer = same};
  if (api->register_template(&t)) abort();
  api->error_destroy(api->registry_list(reg, NULL, note_key, NULL));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!api) setup();
  const char *key = keys[fuzz_choose(&data, &size, (unsigned)num_keys)];
  const cuplug_type *args[8];
  size_t n = fuzz_choose(&data, &size, 9);
  for (size_t i = 0; i < n; i++) {
    unsigned c = fuzz_choose(&data, &size, NTYPES + 1);
    cuplug_error *e;
    if (c == NTYPES) { /* a literal from the next 8 bytes */
      int64_t v = 0;
      size_t k = size < 8 ? size : 8;
      memcpy(&v, data, k);
      data += k;
      size -= k;
      e = api->type_int_literal(v, &args[i]);
    } else {
      e = api->type_parse(type_names[c], &args[i]);
    }
    if (e) abort();
  }
  /* numba-cuda's rule or the strict one; each argument's conversion */
  uint32_t flags = fuzz_choose(&data, &size, 2) ? CUPLUG_RESOLVE_STRICT : 0;
  cuplug_conversion conv[8];
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = reg, .key = key,
                           .argtypes = args, .nargs = n, .flags = flags,
                           .arg_conversions = conv};
  cuplug_error *e = api->resolve_call(&a);
  if (!e && (!a.signature || !a.symbol || !a.declaration)) abort();
  if (!e) { /* the worst conversion is the one reported, and each is a rank */
    cuplug_conversion worst = CUPLUG_CONV_EXACT;
    for (size_t i = 0; i < n; i++) {
      if (conv[i] > CUPLUG_CONV_UNSAFE) abort();
      if (conv[i] > worst) worst = conv[i];
    }
    if (a.conversion != worst) abort();
  }
  if (e && !api->error_message(e)[0]) abort();
  api->error_destroy(e);
  return 0;
}
