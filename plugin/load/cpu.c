/* cpu.c - libraries on the CPU, through libcuplug-host.so (see cpu.h). */
#include "plugin/load/cpu.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "plugin/cpu/cpu.h"
#include "plugin/load/args.h"
#include "plugin/load/objects.h"

static const cuplug__cpu_api *cpu_api;
static char open_error[8192];
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

static void open_cpu_library(void) {
  const char *path = getenv("CUPLUG_HOST_LIBRARY");
  char beside[4096];
  Dl_info self;
  if (!path && dladdr((void *)open_cpu_library, &self) && self.dli_fname) {
    const char *slash = strrchr(self.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - self.dli_fname + 1) : 0;
    snprintf(beside, sizeof beside, "%.*slibcuplug-host.so", (int)dir, self.dli_fname);
    path = beside;
  }
  if (!path) path = "libcuplug-host.so";
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    snprintf(open_error, sizeof open_error, "cannot load %s: %s", path, dlerror());
    return;
  }
  cuplug__cpu_get_fn get = (cuplug__cpu_get_fn)(uintptr_t)dlsym(so, "cuplug__cpu_get");
  cpu_api = get ? get(CUPLUG__CPU_VERSION) : NULL;
  if (!cpu_api)
    snprintf(open_error, sizeof open_error,
             "%s is not the host library of this plugin (no cuplug__cpu_get of version %d)",
             path, CUPLUG__CPU_VERSION);
}

static cuplug_error *api_of(const cuplug__cpu_api **out) {
  pthread_once(&cpu_once, open_cpu_library);
  if (!cpu_api)
    return cuplug__error(CUPLUG_ERR_HOST_NOT_FOUND, "running on the host needs libcuplug-host.so: %s",
                         open_error);
  *out = cpu_api;
  return NULL;
}

/* The CPU library's status and message as an error (takes *msg).  It
 * takes the message's address, read after the call that set it: C leaves
 * the order of a call's arguments open. */
static cuplug_error *error_of(int code, char **msgp) {
  char *msg = *msgp;
  if (!code) return NULL;
  cuplug_error *e = cuplug__error((cuplug_status)code, "%s", msg ? msg : "out of memory");
  free(msg);
  return e;
}

static void jit_destroy(void *jit) {
  if (cpu_api) cpu_api->jit_destroy(jit);
}

static cuplug_error *session_jit(cuplug_session *s, const cuplug__cpu_api *api,
                                 cuplug__cpu_jit **out) {
  pthread_mutex_lock(&s->cpu_lock);
  cuplug_error *e = NULL;
  if (!s->cpu_jit) {
    char *msg = NULL;
    cuplug__cpu_jit *jit = NULL;
    e = error_of(api->jit_create(&jit, &msg), &msg);
    if (!e) {
      s->cpu_jit = jit;
      s->cpu_jit_destroy = jit_destroy;
    }
  }
  *out = s->cpu_jit;
  pthread_mutex_unlock(&s->cpu_lock);
  return e;
}

/* The JIT's library from the artifact's modules: the kernels it names get
 * a launcher each; its declared functions with a CPU implementation are
 * defined. */
static cuplug_error *make_lib(cuplug_session *s, const cuplug__cpu_api *api,
                              cuplug__cpu_jit *jit, const cuplug_artifact *art,
                              cuplug__cpu_lib **out) {
  size_t nk = art->num_kernels ? art->num_kernels : 1;
  size_t nx = art->num_cpu_externs ? art->num_cpu_externs : 1;
  const char **kernels = calloc(nk, sizeof *kernels);
  const char **names = calloc(nx, sizeof *names);
  void **addresses = calloc(nx, sizeof *addresses);
  const cuplug_type **sigs = calloc(nx, sizeof *sigs);
  uint8_t *numba = calloc(nx, 1);
  cuplug_error *e =
      !kernels || !names || !addresses || !sigs || !numba ? cuplug__error_oom() : NULL;
  for (size_t i = 0; !e && i < art->num_kernels; i++) kernels[i] = art->kernels[i].symbol;
  for (size_t i = 0; !e && i < art->num_cpu_externs; i++) {
    names[i] = art->cpu_externs[i].symbol;
    addresses[i] = art->cpu_externs[i].address;
    sigs[i] = art->cpu_externs[i].signature;
    numba[i] = art->cpu_externs[i].abi == CUPLUG_ABI_NUMBA;
  }
  const char *libdevice = NULL;
  size_t libdevice_size = 0;
  if (!e && art->uses_libdevice)
    e = cuplug__toolkit_libdevice(&s->toolkit, &libdevice, &libdevice_size);
  if (!e) {
    char *msg = NULL;
    cuplug__cpu_lib_args la = {.mods = art->ir,
                               .num_mods = art->num_ir,
                               .sources = art->sources,
                               .num_sources = art->num_sources,
                               .kernels = kernels,
                               .num_kernels = art->num_kernels,
                               .entry = art->kind == CUPLUG_KERNEL ? NULL : art->symbol,
                               .libdevice = libdevice,
                               .libdevice_size = libdevice_size,
                               .ftz = art->fastmath,
                               .extern_names = names,
                               .extern_addresses = addresses,
                               .num_externs = art->num_cpu_externs,
                               .extern_signatures = sigs,
                               .extern_numba = numba,
                               .entry_signature =
                                   art->kind == CUPLUG_KERNEL ? NULL : art->signature,
                               .entry_numba = art->abi == CUPLUG_ABI_NUMBA};
    e = error_of(api->lib_create(jit, &la, out, &msg), &msg);
  }
  free(kernels);
  free(names);
  free(addresses);
  free(sigs);
  free(numba);
  return e;
}

cuplug_error *cuplug__load_cpu(cuplug_session *s, const cuplug_artifact *art,
                               cuplug__cpu_lib **out) {
  const cuplug__cpu_api *api = NULL;
  CUPLUG__TRY(api_of(&api));
  cuplug__cpu_jit *jit;
  CUPLUG__TRY(session_jit(s, api, &jit));
  return make_lib(s, api, jit, art, out);
}

void cuplug__unload_cpu(cuplug__cpu_lib *lib) {
  if (lib) cpu_api->lib_destroy(lib);
}

cuplug_error *cuplug__launch_cpu(const cuplug_kernel *k, const cuplug_launch_args *a,
                                 void **params, size_t num_params) {
  if (a->stream)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "launch: kernel %s runs on the host, which has no streams: stream "
                         "must be NULL",
                         k->name);
  cuplug__cpu_grid g = {.kernel = k->name,
                        .shared_mem = a->shared_mem,
                        .params = params,
                        .num_params = num_params,
                        .debug = k->debug,
                        .threads = a->host_threads,
                        .interrupt = a->interrupt};
  for (int d = 0; d < 3; d++) {
    g.grid[d] = a->grid[d] ? a->grid[d] : 1;
    g.block[d] = a->block[d] ? a->block[d] : 1;
  }
  char *msg = NULL;
  return error_of(cpu_api->launch(k->library->cpu, &g, &msg), &msg);
}

/* The function a CPU call or lookup means, and its address. */
static cuplug_error *function_of(cuplug_library *l, const char *name, const char **chosen,
                                 void **address) {
  if (!l) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "host call: library is NULL");
  if (!l->cpu)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "host call: the library was loaded on the GPU, not the host (compile "
                         "with output CUPLUG_OUTPUT_HOST)");
  *chosen = name ? name : l->entry;
  if (!*chosen)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "host call: give the function's name (the artifact names none)");
  *address = cpu_api->lookup(l->cpu, *chosen);
  if (!*address)
    return cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "the host library has no function '%s'",
                         *chosen);
  return NULL;
}

cuplug_error *cuplug__function_cpu(cuplug_host_function_args *a) {
  const char *name;
  CUPLUG__TRY(function_of(a->library, a->name, &name, &a->address));
  a->signature = a->library->entry && strcmp(name, a->library->entry) == 0
                     ? a->library->entry_signature
                     : NULL;
  return NULL;
}

/* A type a CPU call passes or returns: a scalar, a pointer, an array, a
 * record (its address), an opaque value (NULL), or a tuple or struct of
 * them (a struct holds a record's bytes, which no C type of cabi.c stands
 * for); an omitted argument passes nothing. */
static bool callable(const cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_TUPLE || t->kind == CUPLUG_TYPE_STRUCT) {
    for (size_t i = 0; i < t->nargs; i++)
      if (t->args[i]->kind == CUPLUG_TYPE_VOID || !callable(t->args[i]) ||
          (t->kind == CUPLUG_TYPE_STRUCT && t->args[i]->kind == CUPLUG_TYPE_RECORD))
        return false;
    return true;
  }
  return t->kind <= CUPLUG_TYPE_COMPLEX128 || t->kind == CUPLUG_TYPE_POINTER ||
         t->kind == CUPLUG_TYPE_ARRAY || t->kind == CUPLUG_TYPE_BFLOAT16 ||
         t->kind == CUPLUG_TYPE_RECORD || t->kind == CUPLUG_TYPE_OPAQUE ||
         t->kind == CUPLUG_TYPE_OMITTED;
}

/* Bytes of a callable type's value in memory (numba's data model, laid
 * out as C lays out its C type), and its alignment. */
static size_t value_size(const cuplug_type *t, size_t *align) {
  switch (t->kind) {
    case CUPLUG_TYPE_VOID: *align = 1; return 0;
    case CUPLUG_TYPE_POINTER: case CUPLUG_TYPE_RECORD: case CUPLUG_TYPE_OPAQUE:
      *align = 8;
      return 8;
    case CUPLUG_TYPE_ARRAY: *align = 8; return 8 * (5 + 2 * (size_t)t->ndim);
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: *align = cuplug__type_size(t) / 2; return cuplug__type_size(t);
    case CUPLUG_TYPE_TUPLE:
    case CUPLUG_TYPE_STRUCT: {
      size_t size = 0, most = 1;
      for (size_t i = 0; i < t->nargs; i++) {
        size_t a, s = value_size(t->args[i], &a);
        size = (size + a - 1) / a * a + s;
        if (a > most) most = a;
      }
      *align = most;
      return (size + most - 1) / most * most;
    }
    default: *align = cuplug__type_size(t); return cuplug__type_size(t);
  }
}

static cuplug_error *call_signature(cuplug_host_call_args *a, const char *name,
                                    const cuplug_type **out) {
  if (a->signature && a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "host call: give at most one of signature and signature_type");
  const cuplug_type *sig = a->signature_type;
  if (a->signature) CUPLUG__TRY(cuplug__signature_parse(a->signature, &sig));
  if (!sig && !a->name) sig = a->library->entry_signature;
  if (!sig || sig->kind != CUPLUG_TYPE_SIGNATURE)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "host call %s: give its signature", name);
  if (sig->nargs > CUPLUG__MAX_PARAMS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "call %s: more than %d arguments", name,
                         CUPLUG__MAX_PARAMS);
  if (!callable(sig->restype))
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "call %s: a host call cannot return %s", name,
                         sig->restype->name);
  *out = sig;
  return NULL;
}

/* Each argument's value in memory: the caller's, or for an array numba's
 * array struct, made in `arrays` (CUPLUG__MAX_PARAMS slots in all). */
static cuplug_error *call_values(const cuplug__arg_site *site, const cuplug__args *args,
                                 void **values, int64_t *arrays) {
  CUPLUG__TRY(cuplug__args_check(site, args));
  size_t used = 0;
  for (size_t i = 0; i < site->sig->nargs; i++) {
    if (!callable(site->sig->args[i]))
      return cuplug__arg_error(site, i,
                               "a host call takes scalars, pointers, arrays, records and tuples "
                               "of them");
    cuplug__arg v;
    CUPLUG__TRY(cuplug__arg_read(site, args, i, &v));
    values[i] = (void *)v.data;
    if (v.kind != CUPLUG_TYPE_ARRAY) continue;
    if (used + 5 + 2 * (size_t)v.ndim > CUPLUG__MAX_PARAMS)
      return cuplug__arg_error(site, i, "more than %d parameters in all", CUPLUG__MAX_PARAMS);
    CUPLUG__TRY(cuplug__arg_array_struct(site, i, &v, arrays + used));
    values[i] = arrays + used;
    used += 5 + 2 * (size_t)v.ndim;
  }
  return NULL;
}

/* numba's status codes: 0 returned a value, -2 returned None; the rest
 * are exceptions (callconv.py's RETCODE_*). */
static cuplug_error *numba_status(const char *name, int32_t status) {
  if (status == 0 || status == -2) return NULL;
  if (status == -3)
    return cuplug__error(CUPLUG_ERR_KERNEL_EXCEPTION, "call %s raised StopIteration", name);
  if (status < 0)
    return cuplug__error(CUPLUG_ERR_KERNEL_EXCEPTION,
                         "call %s raised an exception (status %d under the Numba ABI)", name,
                         status);
  return cuplug__error(CUPLUG_ERR_KERNEL_EXCEPTION, "call %s raised exception %d", name, status);
}

/* A device function exported under the Numba ABI is `int32 f(R *ret,
 * args...)`: called so, through a return slot of its own, its status read,
 * and the slot's value handed back as a C-ABI call's result would be. */
static cuplug_error *call_numba(const cuplug__cpu_ffi *c, size_t need) {
  const cuplug_type *r = c->sig->restype, *slot_type, *numba_sig;
  /* a None-returning function's slot is a byte nobody reads */
  const cuplug_type *slot = r;
  if (r->kind == CUPLUG_TYPE_VOID) slot = cuplug__type_scalar(CUPLUG_TYPE_INT8);
  /* a record's or an opaque value's slot holds an address */
  if (r->kind == CUPLUG_TYPE_RECORD || r->kind == CUPLUG_TYPE_OPAQUE)
    slot = cuplug__type_scalar(CUPLUG_TYPE_UINT64);
  /* a tuple's or a struct's is room of its size, which no CPointer names
   * (libffi passes every pointer alike) */
  if (r->kind == CUPLUG_TYPE_TUPLE || r->kind == CUPLUG_TYPE_STRUCT)
    slot = cuplug__type_scalar(CUPLUG_TYPE_VOID);
  CUPLUG__TRY(cuplug__type_pointer(slot, &slot_type));
  const cuplug_type *argtypes[CUPLUG__MAX_PARAMS + 1] = {slot_type};
  void *values[CUPLUG__MAX_PARAMS + 1];
  for (size_t i = 0; i < c->sig->nargs; i++) {
    argtypes[i + 1] = c->sig->args[i];
    values[i + 1] = c->args[i];
  }
  CUPLUG__TRY(cuplug__type_signature(cuplug__type_scalar(CUPLUG_TYPE_INT32), argtypes,
                                     c->sig->nargs + 1, &numba_sig));
  void *room = calloc(1, need > 16 ? need : 16);
  if (!room) return cuplug__error_oom();
  uint64_t slot_address = (uint64_t)(uintptr_t)room;
  values[0] = &slot_address;
  int32_t status = 0;
  cuplug__cpu_ffi numba = {.fn = c->fn, .name = c->name, .sig = numba_sig, .args = values,
                           .result = &status, .interrupt = c->interrupt};
  char *msg = NULL;
  cuplug_error *e = error_of(cpu_api->call(&numba, &msg), &msg);
  if (!e) e = numba_status(c->name, status);
  if (!e && need) memcpy(c->result, room, need);
  free(room);
  return e;
}

cuplug_error *cuplug__call_cpu(cuplug_host_call_args *a) {
  const char *name;
  void *fn;
  CUPLUG__TRY(function_of(a->library, a->name, &name, &fn));
  const cuplug_type *sig = NULL;
  CUPLUG__TRY(call_signature(a, name, &sig));
  cuplug__arg_site site = {"call", name, sig};
  cuplug__args args = {a->args, a->arguments, a->num_args};
  void *values[CUPLUG__MAX_PARAMS];
  int64_t arrays[CUPLUG__MAX_PARAMS];
  CUPLUG__TRY(call_values(&site, &args, values, arrays));
  size_t align, need = value_size(sig->restype, &align);
  if (need && (!a->result || a->result_size < need))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "call %s: its %s result needs %zu bytes of room, result_size is %zu",
                         name, sig->restype->name, need, a->result ? a->result_size : 0);
  cuplug__cpu_ffi c = {.fn = fn, .name = name, .sig = sig, .args = values, .result = a->result,
                       .interrupt = a->interrupt};
  if (a->library->entry_numba && strcmp(name, a->library->entry) == 0)
    return call_numba(&c, need);
  char *msg = NULL;
  return error_of(cpu_api->call(&c, &msg), &msg);
}
