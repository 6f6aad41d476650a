/* registry_threads.c - the registry under many threads, built with
 * ThreadSanitizer (ctest: threads.registry).
 *
 * Eight threads resolve calls (built-ins, generic and concrete ones, keys
 * that appear while they run) while one thread registers new keys, their
 * lowerings and constant arrays, four threads make constant arrays (each
 * a new implementation of one key), and two threads compile kernels that
 * call what was resolved.  Every answer is checked; TSan checks the rest.
 * Plain C, no Check: its asserts are not for threads. */
#include <pthread.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuplug/cuplug.h"
#include "threads.h"

enum { RESOLVERS = 8, ROUNDS = 400, KEYS = 150, COMPILERS = 2, CONSTANTS = 4, ARRAYS = 60 };

static const cuplug_api *api;
static cuplug_registry *reg;
static cuplug_session *session;
static atomic_int registered; /* keys th.0 .. th.<registered-1> are complete */
atomic_int failures;


static const cuplug_type *ty(const char *s) {
  const cuplug_type *t = NULL;
  cuplug_error *e = api->type_parse(s, &t);
  if (e) {
    FAIL("type_parse %s: %s", s, api->error_message(e));
    api->error_destroy(e);
  }
  return t;
}

static const char *name_of(const cuplug_type *t) {
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  cuplug_error *e = api->type_info(&i);
  api->error_destroy(e);
  return i.name;
}

/* Resolves and checks the signature; returns the symbol or NULL. */
static const char *resolve(const char *key, const cuplug_type *const *args, size_t n,
                           const char *want) {
  cuplug_resolve_args a = {.struct_size = sizeof a, .registry = reg, .key = key,
                           .argtypes = args, .nargs = n};
  cuplug_error *e = api->resolve_call(&a);
  if (e) {
    FAIL("resolve %s: %s", key, api->error_message(e));
    api->error_destroy(e);
    return NULL;
  }
  if (strcmp(name_of(a.signature), want) != 0)
    FAIL("resolve %s: %s, expected %s", key, name_of(a.signature), want);
  return a.symbol;
}

/* A host's generic typer, called from every resolver thread at once. */
static cuplug_callback_status same_typer(void *user, const char *key,
                                         const cuplug_type *const *args, size_t n,
                                         const cuplug_type **sig, char *msg, size_t size) {
  (void)user, (void)key, (void)msg, (void)size;
  if (n != 1) return CUPLUG_CALLBACK_NO_MATCH;
  cuplug_error *e = api->type_signature(args[0], args, 1, sig);
  if (e) {
    api->error_destroy(e);
    return CUPLUG_CALLBACK_FAILED;
  }
  return CUPLUG_CALLBACK_OK;
}

static void *resolver(void *arg) {
  (void)arg;
  const cuplug_type *f32 = ty("float32"), *i32 = ty("int32");
  const cuplug_type *atomic_args[] = {ty("CPointer(float32)"), f32};
  for (int round = 0; round < ROUNDS; round++) {
    resolve("math.sin", &f32, 1, "float32(float32)");
    resolve("math.sin", &i32, 1, "float64(int64)");
    resolve("cuda.atomic.add", atomic_args, 2, "float32(CPointer(float32), float32)");
    resolve("th.same", &i32, 1, "int32(int32)");
    int n = atomic_load(&registered);
    if (n) {
      char key[32], want[32];
      int k = round % n;
      snprintf(key, sizeof key, "th.%d", k);
      const char *sym = resolve(key, &f32, 1, "float32(float32)");
      snprintf(want, sizeof want, "th_%d", k);
      if (sym && strcmp(sym, want) != 0) FAIL("%s resolved to %s, expected %s", key, sym, want);
    }
  }
  return NULL;
}

static void *registrar(void *arg) {
  (void)arg;
  for (int k = 0; k < KEYS; k++) {
    char key[32], sym[32], ir[256];
    snprintf(key, sizeof key, "th.%d", k);
    snprintf(sym, sizeof sym, "th_%d", k);
    snprintf(ir, sizeof ir, "define float @%s(float %%x) {\n  %%y = fadd float %%x, %d.0\n  ret float %%y\n}\n",
             sym, k);
    cuplug_template_args t = {.struct_size = sizeof t, .registry = reg, .key = key,
                              .signature = "float32(float32)"};
    cuplug_lowering_args l = {.struct_size = sizeof l, .registry = reg, .key = key,
                              .signature = "float32(float32)", .kind = CUPLUG_LOWER_IR,
                              .symbol = sym, .source = ir};
    cuplug_error *e = api->register_template(&t);
    if (!e) e = api->register_lowering(&l);
    if (e) {
      FAIL("register %s: %s", key, api->error_message(e));
      api->error_destroy(e);
    }
    atomic_store(&registered, k + 1);
    if (k % 10 == 0) {
      float data[4] = {1, 2, 3, (float)k};
      int64_t shape[1] = {4};
      cuplug_const_array_args c = {.struct_size = sizeof c, .registry = reg, .dtype = ty("float32"),
                                   .ndim = 1, .shape = shape, .data = data, .size = sizeof data};
      e = api->const_array(&c);
      if (e) {
        FAIL("const_array: %s", api->error_message(e));
        api->error_destroy(e);
      }
    }
  }
  return NULL;
}

/* Constant arrays, many at once: each call must answer the symbol of the
 * array it made, whose IR holds its own bytes. */
static char *array_symbols[CONSTANTS * ARRAYS];

static void *constants(void *arg) {
  int me = (int)(intptr_t)arg;
  for (int i = 0; i < ARRAYS; i++) {
    int32_t data[2] = {me, i};
    int64_t shape[1] = {2};
    cuplug_const_array_args c = {.struct_size = sizeof c, .registry = reg, .dtype = ty("int32"),
                                 .ndim = 1, .shape = shape, .data = data, .size = sizeof data};
    cuplug_error *e = api->const_array(&c);
    if (e) {
      FAIL("const_array %d.%d: %s", me, i, api->error_message(e));
      api->error_destroy(e);
      continue;
    }
    if (!strstr(c.declaration, c.symbol))
      FAIL("const_array %d.%d: the declaration '%s' is not of %s", me, i, c.declaration,
           c.symbol);
    array_symbols[me * ARRAYS + i] = strdup(c.symbol);
  }
  return NULL;
}

static int by_string(const void *a, const void *b) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  return strcmp(x ? x : "", y ? y : "");
}

/* Every constant array got a symbol of its own. */
static void check_array_symbols(void) {
  size_t n = CONSTANTS * ARRAYS;
  qsort(array_symbols, n, sizeof *array_symbols, by_string);
  for (size_t i = 0; i < n; i++) {
    if (!array_symbols[i]) FAIL("const_array: a call made no symbol");
    else if (i && array_symbols[i - 1] && !strcmp(array_symbols[i - 1], array_symbols[i]))
      FAIL("const_array: two calls answered the symbol %s", array_symbols[i]);
  }
  for (size_t i = 0; i < n; i++) free(array_symbols[i]);
}

/* A kernel that calls one symbol: out[0] = sym(x). */
static void *compiler(void *arg) {
  (void)arg;
  const cuplug_type *f32 = ty("float32");
  for (int round = 0; round < 3; round++) {
    const char *sym = resolve("math.sqrt", &f32, 1, "float32(float32)");
    if (!sym) continue;
    char ir[512];
    snprintf(ir, sizeof ir,
             "define void @k(float* %%out, float %%x) {\n"
             "  %%y = call float @%s(float %%x)\n"
             "  store float %%y, float* %%out\n"
             "  ret void\n}\ndeclare float @%s(float)\n",
             sym, sym);
    cuplug_module m = {.struct_size = sizeof m, .text = ir, .size = strlen(ir)};
    const cuplug_module *mods[] = {&m};
    cuplug_compile_args c = {.struct_size = sizeof c, .session = session, .modules = mods,
                             .num_modules = 1, .entry = "k",
                             .signature = "void(CPointer(float32), float32)",
                             .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL, .cc_major = 9};
    cuplug_error *e = api->compile(&c);
    if (e) {
      FAIL("compile: %s", api->error_message(e));
      api->error_destroy(e);
      continue;
    }
    cuplug_artifact_info i = {.struct_size = sizeof i};
    api->artifact_info(c.artifact, &i);
    if (!strstr(i.data, "sqrt.rn.f32")) FAIL("compile: no sqrt.rn.f32 in the PTX");
    api->artifact_destroy(c.artifact);
  }
  return NULL;
}

static int count_entries(void *user, const cuplug_listing *entry) {
  (void)entry;
  ++*(int *)user;
  return 0;
}

int main(void) {
  api = cuplug_get_api(CUPLUG_ABI_MAJOR, CUPLUG_ABI_MINOR);
  cuplug_info info = {.struct_size = sizeof info};
  api->error_destroy(api->get_info(&info));
  bool nvvm = info.nvvm_major >= 0;
  cuplug_error *e = api->registry_create(NULL, &reg);
  cuplug_session_options so = {.struct_size = sizeof so, .registry = reg};
  if (!e) e = api->session_create(&so, &session);
  cuplug_template_args t = {.struct_size = sizeof t, .registry = reg, .key = "th.same",
                            .typer = same_typer};
  if (!e) e = api->register_template(&t);
  cuplug_lowering_args l = {.struct_size = sizeof l, .registry = reg, .key = "th.same",
                            .signature = "int32(int32)", .kind = CUPLUG_LOWER_IR,
                            .symbol = "th_same",
                            .source = "define i32 @th_same(i32 %x) {\n  ret i32 %x\n}\n"};
  if (!e) e = api->register_lowering(&l);
  if (e) {
    fprintf(stderr, "setup: %s\n", api->error_message(e));
    return 1;
  }

  pthread_t threads[RESOLVERS + 1 + COMPILERS + CONSTANTS];
  int n = 0;
  pthread_create(&threads[n++], NULL, registrar, NULL);
  for (int i = 0; i < RESOLVERS; i++) pthread_create(&threads[n++], NULL, resolver, NULL);
  for (int i = 0; i < CONSTANTS; i++)
    pthread_create(&threads[n++], NULL, constants, (void *)(intptr_t)i);
  for (int i = 0; nvvm && i < COMPILERS; i++) pthread_create(&threads[n++], NULL, compiler, NULL);
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);

  check_array_symbols();
  /* everything registered is there, once */
  int count = 0;
  e = api->registry_list(reg, "th.", count_entries, &count);
  if (e) FAIL("list: %s", api->error_message(e));
  if (count != KEYS + 1) FAIL("list: %d templates under th., expected %d", count, KEYS + 1);
  api->session_destroy(session);
  api->registry_destroy(reg);
  int f = atomic_load(&failures);
  printf("%d threads, %d resolves each, %d registrations%s: %d failures\n", n - 1,
         ROUNDS * 5, KEYS, nvvm ? ", compiles alongside" : " (no libNVVM: no compiles)", f);
  return f ? 1 : 0;
}
