/* toolkit.c - finding and loading the CUDA libraries. */
#include "plugin/toolkit/toolkit.h"

#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/error.h"

/* Library folders inside a CUDA home, in the order tried: the Linux
 * installer puts libNVVM under nvvm/lib64 and the rest under lib64; some
 * packagings use lib. */
static const char *const home_dirs[] = {"nvvm/lib64", "lib64", "lib", "nvvm/lib",
                                        "targets/x86_64-linux/lib", NULL};

cuplug_error *cuplug__toolkit_init(cuplug__toolkit *tk, const char *cuda_home) {
  memset(tk, 0, sizeof *tk);
  if (cuda_home && !(tk->cuda_home = cuplug__strdup(cuda_home))) return cuplug__error_oom();
  pthread_mutex_init(&tk->lock, NULL);
  return NULL;
}

static void lib_release(cuplug__lib *l) {
  if (l->handle) dlclose(l->handle);
  free(l->path);
  free(l->error);
  free(l->file);
  memset(l, 0, sizeof *l);
}

cuplug_error *cuplug__toolkit_use_file(cuplug__toolkit *tk, cuplug__lib *lib, const char *path) {
  pthread_mutex_lock(&tk->lock);
  cuplug_error *e = NULL;
  if (lib->state == CUPLUG__LIB_UNTRIED && (!lib->file || strcmp(lib->file, path) != 0)) {
    free(lib->file);
    if (!(lib->file = cuplug__strdup(path))) e = cuplug__error_oom();
  } else if (lib->state != CUPLUG__LIB_UNTRIED && lib->path && strcmp(lib->path, path) != 0) {
    e = cuplug__error(CUPLUG_ERR_HELPER, "the helper runs %s, not %s", lib->path, path);
  }
  pthread_mutex_unlock(&tk->lock);
  return e;
}

void cuplug__toolkit_release(cuplug__toolkit *tk) {
  lib_release(&tk->nvvm_lib);
  lib_release(&tk->nvrtc_lib);
  lib_release(&tk->nvjitlink_lib);
  lib_release(&tk->driver_lib);
  lib_release(&tk->nvptx_lib);
  free(tk->libdevice);
  free(tk->libdevice_error);
  free(tk->nvrtc_archs);
  free(tk->cuda_home);
  free(tk->home);
  free(tk->identity);
  free(tk->cudadevrt);
  pthread_mutex_destroy(&tk->lock);
}

/* The CUDA homes to search, in order: the explicit one, else $CUDA_HOME and
 * /usr/local/cuda. */
static void homes_of(const cuplug__toolkit *tk, const char *homes[3]) {
  homes[0] = homes[1] = homes[2] = NULL;
  if (tk->cuda_home) {
    homes[0] = tk->cuda_home;
    return;
  }
  const char *env = getenv("CUDA_HOME");
  if (env && *env) homes[0] = env;
  homes[homes[0] ? 1 : 0] = "/usr/local/cuda";
}

/* Offers `take` each file a library may be, in order, until it takes one:
 * the file another process chose, else each home's library folders, then
 * (without an explicit home) the bare names, for the loader's search path.
 * `tried` says where it looked. */
static bool each_candidate(const cuplug__toolkit *tk, const cuplug__lib *l,
                           const char *const *files, bool search_homes,
                           bool (*take)(const char *path, void *ctx), void *ctx,
                           cuplug__buf *tried) {
  if (l->file) {
    if (tried) cuplug__buf_printf(tried, "%s", l->file);
    return take(l->file, ctx);
  }
  const char *homes[3];
  homes_of(tk, homes);
  char path[PATH_MAX];
  for (int h = 0; search_homes && h < 3 && homes[h]; h++) {
    for (int d = 0; home_dirs[d]; d++) {
      for (int f = 0; files[f]; f++) {
        snprintf(path, sizeof path, "%s/%s/%s", homes[h], home_dirs[d], files[f]);
        if (take(path, ctx)) return true;
      }
    }
    if (tried) cuplug__buf_printf(tried, "%s%s", tried->len ? ", " : "", homes[h]);
  }
  if (!tk->cuda_home) {
    for (int f = 0; files[f]; f++)
      if (take(files[f], ctx)) return true;
    if (tried)
      cuplug__buf_printf(tried, "%sthe loader's search path", tried->len ? " and " : "");
  }
  return false;
}

static bool take_by_loading(const char *path, void *ctx) {
  cuplug__lib *l = ctx;
  l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (l->handle) l->path = cuplug__strdup(path);
  return l->handle != NULL;
}

/* Loads a library from the first candidate the loader takes.  Records the
 * path or why it failed.  The libraries stay loaded once loaded
 * (RTLD_NODELETE): sessions come and go, and the toolkit's libraries are
 * not made to be unloaded. */
static void lib_open(cuplug__toolkit *tk, cuplug__lib *l, const char *what,
                     const char *const *files, bool search_homes) {
  cuplug__buf tried;
  cuplug__buf_init(&tried);
  each_candidate(tk, l, files, search_homes, take_by_loading, l, &tried);
  if (l->handle) {
    l->state = CUPLUG__LIB_LOADED;
    /* report the file the loader chose */
    struct link_map *lm = NULL;
    if (dlinfo(l->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) {
      char real[PATH_MAX];
      free(l->path);
      l->path = cuplug__strdup(realpath(lm->l_name, real) ? real : lm->l_name);
    }
  } else {
    l->state = CUPLUG__LIB_FAILED;
    cuplug__buf msg;
    cuplug__buf_init(&msg);
    cuplug__buf_printf(&msg, "%s (%s) not found in %s", what, files[0],
                       tried.data ? tried.data : "");
    if (!tk->cuda_home && search_homes)
      cuplug__buf_puts(&msg, "; set CUDA_HOME to the CUDA toolkit");
    l->error = cuplug__buf_take(&msg, NULL);
  }
  cuplug__buf_free(&tried);
}

/* Resolves every symbol of a table; on a missing one records the error. */
static bool resolve(cuplug__lib *l, void **slots, const char *const *names) {
  for (size_t i = 0; names[i]; i++) {
    slots[i] = dlsym(l->handle, names[i]);
    if (!slots[i]) {
      cuplug__buf msg;
      cuplug__buf_init(&msg);
      cuplug__buf_printf(&msg, "%s lacks %s", l->path, names[i]);
      free(l->error);
      l->error = cuplug__buf_take(&msg, NULL);
      l->state = CUPLUG__LIB_FAILED;
      return false;
    }
  }
  return true;
}

static cuplug_error *lib_error(const cuplug__lib *l, cuplug_status code) {
  return cuplug__error(code, "%s", l->error ? l->error : "not loaded");
}

static const char *const nvvm_files[] = {"libnvvm.so.4", "libnvvm.so", NULL};
static const char *const nvvm_syms[] = {
    "nvvmVersion",           "nvvmIRVersion",       "nvvmCreateProgram",
    "nvvmDestroyProgram",    "nvvmAddModuleToProgram", "nvvmLazyAddModuleToProgram",
    "nvvmCompileProgram",    "nvvmGetCompiledResultSize", "nvvmGetCompiledResult",
    "nvvmGetProgramLogSize", "nvvmGetProgramLog",   "nvvmGetErrorString", NULL};

cuplug_error *cuplug__toolkit_nvvm(cuplug__toolkit *tk, const cuplug__nvvm_api **api) {
  pthread_mutex_lock(&tk->lock);
  if (tk->nvvm_lib.state == CUPLUG__LIB_UNTRIED) {
    lib_open(tk, &tk->nvvm_lib, "libNVVM", nvvm_files, true);
    if (tk->nvvm_lib.state == CUPLUG__LIB_LOADED)
      resolve(&tk->nvvm_lib, (void **)&tk->nvvm, nvvm_syms);
  }
  cuplug_error *e = tk->nvvm_lib.state == CUPLUG__LIB_LOADED
                        ? NULL
                        : lib_error(&tk->nvvm_lib, CUPLUG_ERR_NVVM_NOT_FOUND);
  pthread_mutex_unlock(&tk->lock);
  *api = e ? NULL : &tk->nvvm;
  return e;
}

/* libdevice sits beside libNVVM: <home>/nvvm/libdevice/libdevice.10.bc,
 * in one of these folders relative to libNVVM's. */
static const char *const libdevice_dirs[] = {"../libdevice", "../nvvm/libdevice",
                                             "../../nvvm/libdevice", NULL};

static void load_libdevice(cuplug__toolkit *tk) {
  char dir[PATH_MAX], path[2 * PATH_MAX];
  const char *lib = tk->nvvm_lib.path;
  const char *slash = strrchr(lib, '/');
  size_t n = slash ? (size_t)(slash - lib) : 0;
  snprintf(dir, sizeof dir, "%.*s", (int)n, lib);

  cuplug__buf tried;
  cuplug__buf_init(&tried);
  for (int i = 0; libdevice_dirs[i]; i++) {
    snprintf(path, sizeof path, "%s/%s/libdevice.10.bc", dir, libdevice_dirs[i]);
    tk->libdevice = cuplug__read_file(path, &tk->libdevice_size);
    if (tk->libdevice) break;
    cuplug__buf_printf(&tried, "%s%s", tried.len ? ", " : "", path);
  }
  if (!tk->libdevice) {
    cuplug__buf msg;
    cuplug__buf_init(&msg);
    cuplug__buf_printf(&msg, "libdevice.10.bc not found beside %s: tried %s", lib,
                       tried.data ? tried.data : "");
    tk->libdevice_error = cuplug__buf_take(&msg, NULL);
  }
  cuplug__buf_free(&tried);
}

cuplug_error *cuplug__toolkit_libdevice(cuplug__toolkit *tk, const char **data,
                                        size_t *size) {
  const cuplug__nvvm_api *api;
  CUPLUG__TRY(cuplug__toolkit_nvvm(tk, &api));
  pthread_mutex_lock(&tk->lock);
  if (!tk->libdevice && !tk->libdevice_error) load_libdevice(tk);
  cuplug_error *e = NULL;
  if (!tk->libdevice)
    e = cuplug__error(CUPLUG_ERR_LIBDEVICE_NOT_FOUND, "%s",
                      tk->libdevice_error ? tk->libdevice_error : "out of memory");
  *data = tk->libdevice;
  *size = tk->libdevice_size;
  pthread_mutex_unlock(&tk->lock);
  return e;
}

static const char *const nvrtc_files[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
                                          NULL};
static const char *const nvrtc_syms[] = {
    "nvrtcVersion",       "nvrtcGetNumSupportedArchs", "nvrtcGetSupportedArchs",
    "nvrtcCreateProgram", "nvrtcDestroyProgram",       "nvrtcCompileProgram",
    "nvrtcGetPTXSize",    "nvrtcGetPTX",               "nvrtcGetLTOIRSize",
    "nvrtcGetLTOIR",      "nvrtcGetProgramLogSize",    "nvrtcGetProgramLog",
    "nvrtcGetErrorString", NULL};

static int int_cmp(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}

cuplug_error *cuplug__toolkit_nvrtc(cuplug__toolkit *tk, const cuplug__nvrtc_api **api) {
  pthread_mutex_lock(&tk->lock);
  if (tk->nvrtc_lib.state == CUPLUG__LIB_UNTRIED) {
    lib_open(tk, &tk->nvrtc_lib, "NVRTC", nvrtc_files, true);
    if (tk->nvrtc_lib.state == CUPLUG__LIB_LOADED &&
        resolve(&tk->nvrtc_lib, (void **)&tk->nvrtc, nvrtc_syms)) {
      int n = 0;
      if (tk->nvrtc.num_supported_archs(&n) == 0 && n > 0) {
        tk->nvrtc_archs = malloc((size_t)n * sizeof(int));
        if (tk->nvrtc_archs && tk->nvrtc.supported_archs(tk->nvrtc_archs) == 0) {
          qsort(tk->nvrtc_archs, (size_t)n, sizeof(int), int_cmp);
          tk->num_nvrtc_archs = n;
        }
      }
    }
  }
  cuplug_error *e = tk->nvrtc_lib.state == CUPLUG__LIB_LOADED ? NULL
                                             : lib_error(&tk->nvrtc_lib, CUPLUG_ERR_NVRTC_NOT_FOUND);
  pthread_mutex_unlock(&tk->lock);
  *api = e ? NULL : &tk->nvrtc;
  return e;
}

void cuplug__toolkit_nvrtc_archs(cuplug__toolkit *tk, const int **archs, int *n) {
  const cuplug__nvrtc_api *api;
  cuplug_error *e = cuplug__toolkit_nvrtc(tk, &api);
  cuplug__error_destroy(e);
  *archs = tk->nvrtc_archs;
  *n = e ? 0 : tk->num_nvrtc_archs;
}

static const char *const nvjitlink_files[] = {"libnvJitLink.so.13", "libnvJitLink.so.12",
                                              "libnvJitLink.so", NULL};
static const char *const nvjitlink_syms[] = {
    "nvJitLinkVersion",        "nvJitLinkCreate",          "nvJitLinkDestroy",
    "nvJitLinkAddData",        "nvJitLinkComplete",        "nvJitLinkGetLinkedCubinSize",
    "nvJitLinkGetLinkedCubin", "nvJitLinkGetLinkedPtxSize", "nvJitLinkGetLinkedPtx",
    "nvJitLinkGetErrorLogSize", "nvJitLinkGetErrorLog",    "nvJitLinkGetInfoLogSize",
    "nvJitLinkGetInfoLog",     NULL};

cuplug_error *cuplug__toolkit_nvjitlink(cuplug__toolkit *tk,
                                        const cuplug__nvjitlink_api **api) {
  pthread_mutex_lock(&tk->lock);
  if (tk->nvjitlink_lib.state == CUPLUG__LIB_UNTRIED) {
    lib_open(tk, &tk->nvjitlink_lib, "nvJitLink", nvjitlink_files, true);
    if (tk->nvjitlink_lib.state == CUPLUG__LIB_LOADED)
      resolve(&tk->nvjitlink_lib, (void **)&tk->nvjitlink, nvjitlink_syms);
  }
  cuplug_error *e = tk->nvjitlink_lib.state == CUPLUG__LIB_LOADED
                        ? NULL
                        : lib_error(&tk->nvjitlink_lib, CUPLUG_ERR_NVJITLINK_NOT_FOUND);
  pthread_mutex_unlock(&tk->lock);
  *api = e ? NULL : &tk->nvjitlink;
  return e;
}

/* ---- LLVM's NVPTX backend ---- */

/* The file to load: the one another process chose, $CUPLUG_NVPTX_LIBRARY,
 * else libcuplug-nvptx.so in the folder of the plugin (the shared object
 * this code is in). */
static void nvptx_path(const cuplug__lib *l, char *out, size_t cap) {
  const char *env = getenv("CUPLUG_NVPTX_LIBRARY");
  Dl_info self;
  if (l->file) {
    snprintf(out, cap, "%s", l->file);
  } else if (env && *env) {
    snprintf(out, cap, "%s", env);
  } else if (dladdr((void *)cuplug__toolkit_nvptx, &self) && self.dli_fname) {
    const char *slash = strrchr(self.dli_fname, '/');
    int dir = slash ? (int)(slash - self.dli_fname + 1) : 0;
    snprintf(out, cap, "%.*slibcuplug-nvptx.so", dir, self.dli_fname);
  } else {
    snprintf(out, cap, "libcuplug-nvptx.so");
  }
}

static void nvptx_open(cuplug__lib *l, const cuplug__nvptx_api **api) {
  char path[PATH_MAX];
  nvptx_path(l, path, sizeof path);
  cuplug__buf msg;
  cuplug__buf_init(&msg);
  l->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  cuplug__nvptx_get_fn get =
      l->handle ? (cuplug__nvptx_get_fn)(uintptr_t)dlsym(l->handle, "cuplug__nvptx_get") : NULL;
  *api = get ? get(CUPLUG__NVPTX_VERSION) : NULL;
  if (!l->handle)
    cuplug__buf_printf(&msg, "LLVM's NVPTX backend (libcuplug-nvptx.so) cannot be loaded: %s",
                       dlerror());
  else if (!*api)
    cuplug__buf_printf(&msg,
                       "%s is not the NVPTX backend of this plugin (no cuplug__nvptx_get of "
                       "version %d)",
                       path, CUPLUG__NVPTX_VERSION);
  l->state = *api ? CUPLUG__LIB_LOADED : CUPLUG__LIB_FAILED;
  /* the helper loads this file too, from wherever it runs */
  char real[PATH_MAX];
  if (*api) l->path = cuplug__strdup(realpath(path, real) ? real : path);
  l->error = cuplug__buf_take(&msg, NULL);
}

cuplug_error *cuplug__toolkit_nvptx(cuplug__toolkit *tk, const cuplug__nvptx_api **api) {
  pthread_mutex_lock(&tk->lock);
  if (tk->nvptx_lib.state == CUPLUG__LIB_UNTRIED) nvptx_open(&tk->nvptx_lib, &tk->nvptx);
  cuplug_error *e = tk->nvptx_lib.state == CUPLUG__LIB_LOADED
                        ? NULL
                        : lib_error(&tk->nvptx_lib, CUPLUG_ERR_NVPTX_NOT_FOUND);
  pthread_mutex_unlock(&tk->lock);
  *api = e ? NULL : tk->nvptx;
  return e;
}

/* The driver comes from the system, never from the toolkit: the toolkit's
 * libcuda is a stub that fails every call. */
static const char *const driver_files[] = {"libcuda.so.1", "libcuda.so", NULL};
/* The versioned names are those cuda.h maps the calls to. */
static const char *const driver_syms[] = {
    "cuInit",               "cuDriverGetVersion",      "cuDeviceGetCount",
    "cuDeviceGet",          "cuDeviceGetAttribute",    "cuDeviceGetName",
    "cuCtxGetCurrent",      "cuCtxGetDevice",          "cuGetErrorName",
    "cuGetErrorString",     "cuCtxSetCurrent",         "cuCtxSynchronize",
    "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxReset_v2",
    "cuLibraryLoadData",    "cuLibraryUnload",         "cuLibraryGetKernel",
    "cuLibraryGetGlobal",   "cuLaunchKernel",          "cuLaunchCooperativeKernel",
    "cuStreamSynchronize",  "cuMemAlloc_v2",           "cuMemFree_v2",
    "cuMemcpyHtoD_v2",      "cuMemcpyDtoH_v2",         "cuMemsetD32_v2",
    "cuKernelSetAttribute", "cuKernelGetAttribute", NULL};

/* ---- identity ---- */

typedef struct found_file {
  char path[PATH_MAX];
  struct stat st;
} found_file;

static bool take_by_stat(const char *path, void *ctx) {
  found_file *f = ctx;
  size_t n = strlen(path);
  if (n >= sizeof f->path || stat(path, &f->st) != 0 || !S_ISREG(f->st.st_mode)) return false;
  memcpy(f->path, path, n + 1);
  return true;
}

/* name=device:inode:size:mtime: the file, whatever path (or link) leads to
 * it; the bare name when only the loader could tell. */
static void describe_file(cuplug__buf *b, const char *name, const found_file *f, bool found,
                          const char *bare) {
  if (found)
    cuplug__buf_printf(b, "%s=%llu:%llu:%lld:%lld.%09ld;", name,
                       (unsigned long long)f->st.st_dev, (unsigned long long)f->st.st_ino,
                       (long long)f->st.st_size, (long long)f->st.st_mtim.tv_sec,
                       (long)f->st.st_mtim.tv_nsec);
  else
    cuplug__buf_printf(b, "%s=?%s;", name, bare);
}

static void describe_lib(cuplug__toolkit *tk, cuplug__buf *b, const char *name,
                         const cuplug__lib *l, const char *const *files, found_file *f) {
  bool found = l->state == CUPLUG__LIB_LOADED ? take_by_stat(l->path, f)
                             : each_candidate(tk, l, files, true, take_by_stat, f, NULL);
  describe_file(b, name, f, found, files[0]);
}

static char *find_identity(cuplug__toolkit *tk) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  found_file nvvm, f;
  nvvm.path[0] = '\0';
  describe_lib(tk, &b, "nvvm", &tk->nvvm_lib, nvvm_files, &nvvm);
  bool found = false;
  if (nvvm.path[0]) { /* libdevice beside libNVVM, as load_libdevice finds it */
    char dir[PATH_MAX], path[2 * PATH_MAX];
    snprintf(dir, sizeof dir, "%s", nvvm.path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    for (int i = 0; libdevice_dirs[i] && !found; i++) {
      snprintf(path, sizeof path, "%s/%s/libdevice.10.bc", dir, libdevice_dirs[i]);
      found = take_by_stat(path, &f);
    }
  }
  describe_file(&b, "libdevice", &f, found, "libdevice.10.bc");
  describe_lib(tk, &b, "nvrtc", &tk->nvrtc_lib, nvrtc_files, &f);
  describe_lib(tk, &b, "nvjitlink", &tk->nvjitlink_lib, nvjitlink_files, &f);
  /* LLVM's NVPTX backend makes PTX too: another build of it, another key */
  char nvptx[PATH_MAX];
  nvptx_path(&tk->nvptx_lib, nvptx, sizeof nvptx);
  describe_file(&b, "nvptx", &f, take_by_stat(nvptx, &f), "libcuplug-nvptx.so");
  return cuplug__buf_take(&b, NULL);
}

/* The identities found, for the process: sessions come and go (each a
 * toolkit), and the files are looked up once for each way of finding them
 * (the explicit home, or $CUDA_HOME). */
typedef struct known_identity {
  char *search; /* "home=..." or "env=..." */
  char *identity;
  struct known_identity *next;
} known_identity;

static pthread_mutex_t identities_lock = PTHREAD_MUTEX_INITIALIZER;
static known_identity *identities;

/* The plugin may be unloaded (dlclose): what it remembers goes with it. */
__attribute__((destructor)) static void forget_identities(void) {
  for (known_identity *k = identities, *next; k; k = next) {
    next = k->next;
    free(k->search);
    free(k->identity);
    free(k);
  }
  identities = NULL;
}

const char *cuplug__toolkit_identity(cuplug__toolkit *tk) {
  pthread_mutex_lock(&tk->lock);
  if (!tk->identity) {
    const char *env = getenv("CUDA_HOME");
    cuplug__buf key;
    cuplug__buf_init(&key);
    cuplug__buf_printf(&key, tk->cuda_home ? "home=%s" : "env=%s",
                       tk->cuda_home ? tk->cuda_home : env ? env : "");
    bool files_chosen = tk->nvvm_lib.file || tk->nvrtc_lib.file || tk->nvjitlink_lib.file;
    pthread_mutex_lock(&identities_lock);
    known_identity *k = identities;
    while (k && !files_chosen && key.data && strcmp(k->search, key.data) != 0) k = k->next;
    if (k && !files_chosen) {
      tk->identity = cuplug__strdup(k->identity);
    } else if ((tk->identity = find_identity(tk)) && !files_chosen && key.data &&
               (k = calloc(1, sizeof *k))) {
      k->search = cuplug__buf_take(&key, NULL);
      k->identity = cuplug__strdup(tk->identity);
      k->next = identities;
      identities = k;
    }
    pthread_mutex_unlock(&identities_lock);
    cuplug__buf_free(&key);
  }
  pthread_mutex_unlock(&tk->lock);
  return tk->identity ? tk->identity : "";
}

void cuplug__driver_describe(const cuplug__driver_api *api, int code, char *out,
                             size_t cap) {
  const char *name = NULL, *str = NULL;
  if (api->get_error_name) api->get_error_name(code, &name);
  if (api->get_error_string) api->get_error_string(code, &str);
  snprintf(out, cap, "%s (%d)%s%s", name ? name : "CUDA error", code, str ? ": " : "",
           str ? str : "");
}

cuplug_error *cuplug__toolkit_driver(cuplug__toolkit *tk, const cuplug__driver_api **api) {
  pthread_mutex_lock(&tk->lock);
  if (tk->driver_lib.state == CUPLUG__LIB_UNTRIED) {
    lib_open(tk, &tk->driver_lib, "the CUDA driver", driver_files, false);
    if (tk->driver_lib.state == CUPLUG__LIB_LOADED &&
        resolve(&tk->driver_lib, (void **)&tk->driver, driver_syms))
      tk->driver_init_rc = tk->driver.init(0);
  }
  cuplug_error *e = NULL;
  if (tk->driver_lib.state != CUPLUG__LIB_LOADED) {
    e = cuplug__error(CUPLUG_ERR_NO_DEVICE, "no CUDA device: %s",
                      tk->driver_lib.error ? tk->driver_lib.error : "no driver");
  } else if (tk->driver_init_rc) {
    char why[256];
    cuplug__driver_describe(&tk->driver, tk->driver_init_rc, why, sizeof why);
    e = cuplug__error(CUPLUG_ERR_NO_DEVICE, "no CUDA device: cuInit failed with %s", why);
  }
  pthread_mutex_unlock(&tk->lock);
  *api = e ? NULL : &tk->driver;
  return e;
}

/* <home> from a library's path: .../<home>/{lib64,lib,nvvm/lib64,...}/libX.so */
static char *home_of(const char *lib) {
  char buf[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", lib);
  for (int up = 0; up < 3; up++) {
    char *slash = strrchr(buf, '/');
    if (!slash) return NULL;
    *slash = '\0';
    char probe[PATH_MAX + 32];
    snprintf(probe, sizeof probe, "%s/include/cuda.h", buf);
    if (access(probe, R_OK) == 0) return cuplug__strdup(buf);
  }
  return NULL;
}

const char *cuplug__toolkit_home(cuplug__toolkit *tk) {
  pthread_mutex_lock(&tk->lock);
  if (!tk->home) {
    const char *env = getenv("CUDA_HOME");
    if (tk->cuda_home)
      tk->home = cuplug__strdup(tk->cuda_home);
    else if (tk->nvrtc_lib.path && (tk->home = home_of(tk->nvrtc_lib.path)))
      ;
    else if (tk->nvvm_lib.path && (tk->home = home_of(tk->nvvm_lib.path)))
      ;
    else
      tk->home = cuplug__strdup(env && *env ? env : "/usr/local/cuda");
  }
  pthread_mutex_unlock(&tk->lock);
  return tk->home ? tk->home : "/usr/local/cuda";
}

cuplug_error *cuplug__toolkit_cudadevrt(cuplug__toolkit *tk, const void **data, size_t *size) {
  const char *home = cuplug__toolkit_home(tk);
  pthread_mutex_lock(&tk->lock);
  cuplug__buf tried;
  cuplug__buf_init(&tried);
  for (int d = 0; home_dirs[d] && !tk->cudadevrt; d++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/libcudadevrt.a", home, home_dirs[d]);
    tk->cudadevrt = cuplug__read_file(path, &tk->cudadevrt_size);
    if (!tk->cudadevrt) cuplug__buf_printf(&tried, "%s%s", tried.len ? ", " : "", path);
  }
  cuplug_error *e = NULL;
  if (!tk->cudadevrt)
    e = cuplug__error(CUPLUG_ERR_LINK,
                      "cooperative code needs libcudadevrt.a, which is not in %s (tried %s)",
                      home, tried.data ? tried.data : "");
  *data = tk->cudadevrt;
  *size = tk->cudadevrt_size;
  pthread_mutex_unlock(&tk->lock);
  cuplug__buf_free(&tried);
  return e;
}

cuplug_error *cuplug__toolkit_current_cc(cuplug__toolkit *tk, int *major, int *minor) {
  const cuplug__driver_api *cu;
  CUPLUG__TRY(cuplug__toolkit_driver(tk, &cu));
  cuplug__cu_ctx ctx = NULL;
  cuplug__cu_device dev = 0;
  int rc = 0;
  if (cu->ctx_get_current(&ctx) == 0 && ctx)
    rc = cu->ctx_get_device(&dev);
  else
    rc = cu->device_get(&dev, 0);
  if (rc == 0) rc = cu->device_get_attribute(major, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MAJOR, dev);
  if (rc == 0) rc = cu->device_get_attribute(minor, CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MINOR, dev);
  if (rc) {
    char why[256];
    cuplug__driver_describe(cu, rc, why, sizeof why);
    return cuplug__error(rc == CUPLUG__CUDA_ERROR_NO_DEVICE ? CUPLUG_ERR_NO_DEVICE
                                                             : CUPLUG_ERR_DRIVER,
                         "cannot read the current device's compute capability: %s", why);
  }
  return NULL;
}
