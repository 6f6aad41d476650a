/* host.c - host libraries: device code compiled for the CPU.
 *
 * The work is libcuplug-host.so's (plugin/cpu/), which carries LLVM's X86
 * backend, ORC and the optimiser: it is opened the first time a process
 * loads a host artifact, so that hosts which never run on the CPU do not
 * pay for it (at start-up or in memory).  It is looked for beside
 * libcuplug.so, or at $CUPLUG_HOST_LIBRARY.  Each session makes its JIT on
 * its first host load. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/load/load.h"
#include "plugin/cpu/cpu.h"

#define MAX_PARAMS 512

static const cuplug__host_api *host_api;
static char host_error[8192];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void open_host(void) {
  const char *path = getenv("CUPLUG_HOST_LIBRARY");
  char beside[4096];
  Dl_info self;
  if (!path && dladdr((void *)open_host, &self) && self.dli_fname) {
    const char *slash = strrchr(self.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - self.dli_fname + 1) : 0;
    snprintf(beside, sizeof beside, "%.*slibcuplug-host.so", (int)dir, self.dli_fname);
    path = beside;
  }
  if (!path) path = "libcuplug-host.so";
  void *so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!so) {
    snprintf(host_error, sizeof host_error, "cannot load %s: %s", path, dlerror());
    return;
  }
  cuplug__host_get_fn get = (cuplug__host_get_fn)(uintptr_t)dlsym(so, "cuplug__host_get");
  host_api = get ? get(CUPLUG__HOST_VERSION) : NULL;
  if (!host_api)
    snprintf(host_error, sizeof host_error,
             "%s is not the host library of this plugin (no cuplug__host_get of version %d)",
             path, CUPLUG__HOST_VERSION);
}

static cuplug_error *api_of(const cuplug__host_api **out) {
  pthread_once(&host_once, open_host);
  if (!host_api)
    return cuplug__error(CUPLUG_ERR_HOST_NOT_FOUND, "running on the host needs libcuplug-host.so: %s",
                         host_error);
  *out = host_api;
  return NULL;
}

/* The host object's status and message as an error (takes *msg).  It
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
  if (host_api) host_api->jit_destroy(jit);
}

static cuplug_error *session_jit(cuplug_session *s, const cuplug__host_api *api,
                                 cuplug__host_jit **out) {
  pthread_mutex_lock(&s->host_lock);
  cuplug_error *e = NULL;
  if (!s->host_jit) {
    char *msg = NULL;
    cuplug__host_jit *jit = NULL;
    e = error_of(api->jit_create(&jit, &msg), &msg);
    if (!e) {
      s->host_jit = jit;
      s->host_jit_destroy = jit_destroy;
    }
  }
  *out = s->host_jit;
  pthread_mutex_unlock(&s->host_lock);
  return e;
}

cuplug_error *cuplug__host_load(cuplug_load_args *a) {
  const cuplug_artifact *art = a->artifact;
  const cuplug__host_api *api = NULL;
  CUPLUG__TRY(api_of(&api));
  cuplug__host_jit *jit;
  CUPLUG__TRY(session_jit(a->session, api, &jit));
  size_t num_mods = art->num_ir + art->num_sources;
  cuplug__host_module *mods = calloc(num_mods ? num_mods : 1, sizeof *mods);
  const char **kernels = calloc(art->num_kernels ? art->num_kernels : 1, sizeof *kernels);
  cuplug_library *l = calloc(1, sizeof *l);
  if (!mods || !kernels || !l) {
    free(mods);
    free(kernels);
    free(l);
    return cuplug__error_oom();
  }
  for (size_t i = 0; i < art->num_ir; i++)
    mods[i] = (cuplug__host_module){art->ir[i].name, art->ir[i].text, art->ir[i].size};
  for (size_t i = 0; i < art->num_sources; i++)
    mods[art->num_ir + i] = (cuplug__host_module){art->sources[i].name, art->sources[i].text,
                                                  art->sources[i].size};
  for (size_t i = 0; i < art->num_kernels; i++) kernels[i] = art->kernels[i].symbol;
  pthread_mutex_init(&l->lock, NULL);
  l->session = a->session;
  l->host_signature = art->signature;
  cuplug_error *e = NULL;
  if (art->symbol && !(l->host_symbol = cuplug__strdup(art->symbol))) e = cuplug__error_oom();
  if (!e && art->num_kernels) {
    l->known = calloc(art->num_kernels, sizeof *l->known);
    if (!l->known) e = cuplug__error_oom();
    for (size_t i = 0; !e && i < art->num_kernels; i++) {
      l->known[i] = art->kernels[i];
      if (!(l->known[i].symbol = cuplug__strdup(art->kernels[i].symbol))) e = cuplug__error_oom();
      else l->num_known++;
    }
  }
  const char *libdevice = NULL;
  size_t libdevice_size = 0;
  size_t nx = art->num_host_externs ? art->num_host_externs : 1;
  char **names = calloc(nx, sizeof *names);
  void **addresses = calloc(nx, sizeof *addresses);
  if (!e && (!names || !addresses)) e = cuplug__error_oom();
  for (size_t i = 0; !e && i < art->num_host_externs; i++) {
    names[i] = art->host_externs[i].symbol;
    addresses[i] = art->host_externs[i].address;
  }
  if (!e && art->uses_libdevice)
    e = cuplug__toolkit_libdevice(&a->session->toolkit, &libdevice, &libdevice_size);
  if (!e) {
    char *msg = NULL;
    cuplug__host_lib_args la = {.mods = mods,
                                .num_mods = art->num_ir,
                                .sources = mods + art->num_ir,
                                .num_sources = art->num_sources,
                                .kernels = kernels,
                                .num_kernels = art->num_kernels,
                                .entry = art->kind == CUPLUG_KERNEL ? NULL : art->symbol,
                                .libdevice = libdevice,
                                .libdevice_size = libdevice_size,
                                .ftz = art->fastmath,
                                .extern_names = (const char *const *)names,
                                .extern_addresses = addresses,
                                .num_externs = art->num_host_externs};
    int rc = api->lib_create(jit, &la, &l->host, &msg);
    e = error_of(rc, &msg);
  }
  free(mods);
  free(kernels);
  free(names);
  free(addresses);
  if (e) {
    cuplug__host_unload(l);
    return e;
  }
  a->library = l;
  return NULL;
}

void cuplug__host_unload(cuplug_library *l) {
  if (l->host) host_api->lib_destroy(l->host);
  cuplug__library_free(l);
}

bool cuplug__host_has(cuplug_library *l, const char *name) {
  for (size_t i = 0; i < l->num_known; i++)
    if (strcmp(l->known[i].symbol, name) == 0) return true;
  return false;
}

cuplug_error *cuplug__host_launch_grid(const cuplug_kernel *k, const cuplug_launch_args *a,
                                       void **params, size_t num_params) {
  if (a->stream)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "launch: kernel %s runs on the host, which has no streams: stream "
                         "must be NULL",
                         k->name);
  cuplug__host_grid g = {.kernel = k->name,
                         .shared_mem = a->shared_mem,
                         .params = params,
                         .num_params = num_params,
                         .debug = k->debug,
                         .threads = a->host_threads};
  for (int d = 0; d < 3; d++) {
    g.grid[d] = a->grid[d] ? a->grid[d] : 1;
    g.block[d] = a->block[d] ? a->block[d] : 1;
  }
  char *msg = NULL;
  return error_of(host_api->launch(k->library->host, &g, &msg), &msg);
}

/* The function a host call or lookup means, and its signature. */
static cuplug_error *function_of(cuplug_library *l, const char *name, const char **chosen,
                                 void **address) {
  if (!l) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "host call: library is NULL");
  if (!l->host)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "host call: the library was loaded on the GPU, not the host (compile "
                         "with output CUPLUG_OUTPUT_HOST)");
  *chosen = name ? name : l->host_symbol;
  if (!*chosen)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "host call: give the function's name (the artifact names none)");
  *address = host_api->lookup(l->host, *chosen);
  if (!*address)
    return cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND, "the host library has no function '%s'",
                         *chosen);
  return NULL;
}

cuplug_error *cuplug__host_function(cuplug_host_function_args *a) {
  const char *name;
  CUPLUG__TRY(function_of(a->library, a->name, &name, &a->address));
  a->signature = a->library->host_symbol && strcmp(name, a->library->host_symbol) == 0
                     ? a->library->host_signature
                     : NULL;
  return NULL;
}

static cuplug_error *call_error(const char *name, const cuplug_type *sig, size_t i,
                                const char *why) {
  return cuplug__error(CUPLUG_ERR_LAUNCH_ARGS, "call %s, argument %zu (%s): %s", name, i,
                       sig->args[i]->name, why);
}

cuplug_error *cuplug__host_call(cuplug_host_call_args *a) {
  const char *name;
  void *fn;
  CUPLUG__TRY(function_of(a->library, a->name, &name, &fn));
  if (a->signature && a->signature_type)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "host call: give at most one of signature and signature_type");
  const cuplug_type *sig = a->signature_type;
  if (a->signature) CUPLUG__TRY(cuplug__signature_parse(a->signature, &sig));
  if (!sig && !a->name) sig = a->library->host_signature;
  if (!sig || sig->kind != CUPLUG_TYPE_SIGNATURE)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "host call %s: give its signature", name);
  if (a->num_args != sig->nargs)
    return cuplug__error(CUPLUG_ERR_LAUNCH_ARGS, "call %s takes %zu arguments (%s), got %zu",
                         name, sig->nargs, sig->name, a->num_args);
  if (a->num_args && !a->args)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "host call: args is NULL");
  if (sig->nargs > MAX_PARAMS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "call %s: more than %d arguments", name, MAX_PARAMS);
  uint32_t kinds[MAX_PARAMS];
  void *args[MAX_PARAMS];
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug_type *t = sig->args[i];
    if (a->args[i].kind != t->kind) return call_error(name, sig, i, "its value is of another kind");
    if (!a->args[i].data) return call_error(name, sig, i, "its value's data is NULL");
    if (t->kind == CUPLUG_TYPE_ARRAY || (t->kind > CUPLUG_TYPE_COMPLEX128 &&
                                         t->kind != CUPLUG_TYPE_POINTER))
      return call_error(name, sig, i, "a host call takes scalars and pointers only");
    kinds[i] = t->kind;
    args[i] = (void *)a->args[i].data;
  }
  const cuplug_type *r = sig->restype;
  if (r->kind == CUPLUG_TYPE_ARRAY ||
      (r->kind > CUPLUG_TYPE_COMPLEX128 && r->kind != CUPLUG_TYPE_POINTER))
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "call %s: a host call cannot return %s", name,
                         r->name);
  size_t need = r->kind == CUPLUG_TYPE_VOID ? 0 : r->kind == CUPLUG_TYPE_POINTER ? 8
                                                                                : cuplug__type_size(r);
  if (need && (!a->result || a->result_size < need))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "call %s: its %s result needs %zu bytes of room, result_size is %zu",
                         name, r->name, need, a->result ? a->result_size : 0);
  unsigned char result[32] = {0};
  cuplug__host_ffi c = {.fn = fn,
                         .restype = r->kind,
                         .argtypes = kinds,
                         .nargs = sig->nargs,
                         .args = args,
                         .result = result};
  char *msg = NULL;
  CUPLUG__TRY(error_of(host_api->call(&c, &msg), &msg));
  if (need) memcpy(a->result, result, need);
  return NULL;
}
