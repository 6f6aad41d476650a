/* toolkit.h - the CUDA libraries, found and loaded at run time.
 *
 * cuplug links none of CUDA: it loads libNVVM, NVRTC, nvJitLink and the
 * driver with dlopen when a call first needs them, so that the plugin loads
 * everywhere and a missing piece becomes a clear error from the call that
 * needed it.  The declarations below are cuplug's own, for the few entry
 * points it calls; no CUDA header is needed to build. */
#ifndef CUPLUG__PLUGIN_TOOLKIT_TOOLKIT_H
#define CUPLUG__PLUGIN_TOOLKIT_TOOLKIT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/nvptx/nvptx.h"

/* ---- libNVVM ---- */

typedef struct cuplug__nvvm_prog_s *cuplug__nvvm_prog;

typedef struct cuplug__nvvm_api {
  int (*version)(int *major, int *minor);
  int (*ir_version)(int *ir_major, int *ir_minor, int *dbg_major, int *dbg_minor);
  int (*create)(cuplug__nvvm_prog *prog);
  int (*destroy)(cuplug__nvvm_prog *prog);
  int (*add_module)(cuplug__nvvm_prog prog, const char *buf, size_t size, const char *name);
  int (*lazy_add_module)(cuplug__nvvm_prog prog, const char *buf, size_t size,
                         const char *name);
  int (*compile)(cuplug__nvvm_prog prog, int num_options, const char **options);
  int (*result_size)(cuplug__nvvm_prog prog, size_t *size);
  int (*result)(cuplug__nvvm_prog prog, char *buf);
  int (*log_size)(cuplug__nvvm_prog prog, size_t *size);
  int (*log)(cuplug__nvvm_prog prog, char *buf);
  const char *(*error_string)(int result);
} cuplug__nvvm_api;

/* ---- NVRTC ---- */

typedef struct cuplug__nvrtc_prog_s *cuplug__nvrtc_prog;

typedef struct cuplug__nvrtc_api {
  int (*version)(int *major, int *minor);
  int (*num_supported_archs)(int *n);
  int (*supported_archs)(int *archs);
  int (*create)(cuplug__nvrtc_prog *prog, const char *src, const char *name, int num_headers,
                const char *const *headers, const char *const *include_names);
  int (*destroy)(cuplug__nvrtc_prog *prog);
  int (*compile)(cuplug__nvrtc_prog prog, int num_options, const char *const *options);
  int (*ptx_size)(cuplug__nvrtc_prog prog, size_t *size);
  int (*ptx)(cuplug__nvrtc_prog prog, char *ptx);
  int (*ltoir_size)(cuplug__nvrtc_prog prog, size_t *size);
  int (*ltoir)(cuplug__nvrtc_prog prog, char *ltoir);
  int (*log_size)(cuplug__nvrtc_prog prog, size_t *size);
  int (*log)(cuplug__nvrtc_prog prog, char *log);
  const char *(*error_string)(int result);
} cuplug__nvrtc_api;

/* ---- nvJitLink ---- */

typedef struct cuplug__nvjitlink_s *cuplug__nvjitlink;

/* nvJitLinkInputType */
enum {
  CUPLUG__NVJL_CUBIN = 1,
  CUPLUG__NVJL_PTX = 2,
  CUPLUG__NVJL_LTOIR = 3,
  CUPLUG__NVJL_FATBIN = 4,
  CUPLUG__NVJL_OBJECT = 5,
  CUPLUG__NVJL_LIBRARY = 6
};

typedef struct cuplug__nvjitlink_api {
  int (*version)(unsigned *major, unsigned *minor);
  int (*create)(cuplug__nvjitlink *handle, uint32_t num_options, const char **options);
  int (*destroy)(cuplug__nvjitlink *handle);
  int (*add_data)(cuplug__nvjitlink handle, int kind, const void *data, size_t size,
                  const char *name);
  int (*complete)(cuplug__nvjitlink handle);
  int (*cubin_size)(cuplug__nvjitlink handle, size_t *size);
  int (*cubin)(cuplug__nvjitlink handle, void *cubin);
  int (*ptx_size)(cuplug__nvjitlink handle, size_t *size);
  int (*ptx)(cuplug__nvjitlink handle, char *ptx);
  int (*error_log_size)(cuplug__nvjitlink handle, size_t *size);
  int (*error_log)(cuplug__nvjitlink handle, char *log);
  int (*info_log_size)(cuplug__nvjitlink handle, size_t *size);
  int (*info_log)(cuplug__nvjitlink handle, char *log);
} cuplug__nvjitlink_api;

/* ---- the driver ---- */

typedef int cuplug__cu_device;
typedef struct cuplug__cu_ctx_s *cuplug__cu_ctx;
typedef struct cuplug__cu_library_s *cuplug__cu_library;
typedef struct cuplug__cu_kernel_s *cuplug__cu_kernel;
typedef struct cuplug__cu_stream_s *cuplug__cu_stream;
typedef uint64_t cuplug__cu_ptr;

typedef struct cuplug__driver_api {
  int (*init)(unsigned flags);
  int (*driver_get_version)(int *version);
  int (*device_get_count)(int *count);
  int (*device_get)(cuplug__cu_device *dev, int ordinal);
  int (*device_get_attribute)(int *value, int attribute, cuplug__cu_device dev);
  int (*device_get_name)(char *name, int len, cuplug__cu_device dev);
  int (*ctx_get_current)(cuplug__cu_ctx *ctx);
  int (*ctx_get_device)(cuplug__cu_device *dev);
  int (*get_error_name)(int error, const char **name);
  int (*get_error_string)(int error, const char **str);
  int (*ctx_set_current)(cuplug__cu_ctx ctx);
  int (*ctx_synchronize)(void);
  int (*primary_ctx_retain)(cuplug__cu_ctx *ctx, cuplug__cu_device dev);
  int (*primary_ctx_release)(cuplug__cu_device dev);
  int (*primary_ctx_reset)(cuplug__cu_device dev);
  int (*library_load_data)(cuplug__cu_library *lib, const void *image, void *jit_options,
                           void **jit_values, unsigned num_jit, void *lib_options,
                           void **lib_values, unsigned num_lib);
  int (*library_unload)(cuplug__cu_library lib);
  int (*library_get_kernel)(cuplug__cu_kernel *kernel, cuplug__cu_library lib, const char *name);
  int (*library_get_global)(cuplug__cu_ptr *ptr, size_t *bytes, cuplug__cu_library lib,
                            const char *name);
  int (*launch_kernel)(cuplug__cu_kernel f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                       unsigned by, unsigned bz, unsigned shared, cuplug__cu_stream stream,
                       void **params, void **extra);
  int (*launch_cooperative_kernel)(cuplug__cu_kernel f, unsigned gx, unsigned gy, unsigned gz,
                                   unsigned bx, unsigned by, unsigned bz, unsigned shared,
                                   cuplug__cu_stream stream, void **params);
  int (*stream_synchronize)(cuplug__cu_stream stream);
  int (*mem_alloc)(cuplug__cu_ptr *ptr, size_t bytes);
  int (*mem_free)(cuplug__cu_ptr ptr);
  int (*memcpy_htod)(cuplug__cu_ptr dst, const void *src, size_t bytes);
  int (*memcpy_dtoh)(void *dst, cuplug__cu_ptr src, size_t bytes);
  int (*memset_d32)(cuplug__cu_ptr dst, unsigned value, size_t count);
  int (*kernel_set_attribute)(int attribute, int value, cuplug__cu_kernel kernel,
                              cuplug__cu_device dev);
  int (*kernel_get_attribute)(int *value, int attribute, cuplug__cu_kernel kernel,
                              cuplug__cu_device dev);
} cuplug__driver_api;

/* CUdevice_attribute values cuplug reads */
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK 1
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X 2
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y 3
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z 4
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X 5
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y 6
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z 7
#define CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MAJOR 75
#define CUPLUG__CU_DEVICE_ATTRIBUTE_CC_MINOR 76
#define CUPLUG__CU_DEVICE_ATTRIBUTE_MAX_SHARED_PER_BLOCK_OPTIN 97
#define CUPLUG__CUDA_ERROR_NO_DEVICE 100
/* CUfunction_attribute: a kernel's static shared memory, and the dynamic
 * shared memory it may be launched with, 48 KiB less the static unless
 * raised */
#define CUPLUG__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES 1
#define CUPLUG__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CUPLUG__CU_DEFAULT_DYNAMIC_SHARED (48u * 1024u)

/* ---- the toolkit of a session ---- */

typedef enum cuplug__lib_state {
  CUPLUG__LIB_UNTRIED = 0,
  CUPLUG__LIB_LOADED,
  CUPLUG__LIB_FAILED
} cuplug__lib_state;

typedef struct cuplug__lib {
  cuplug__lib_state state;
  void *handle;
  char *path;  /* the file loaded */
  char *error; /* why it failed */
  char *file;  /* load exactly this file rather than search (see toolkit_use_file) */
} cuplug__lib;

typedef struct cuplug__toolkit {
  char *cuda_home; /* explicit home, or NULL to search */
  pthread_mutex_t lock;
  cuplug__lib nvvm_lib, nvrtc_lib, nvjitlink_lib, driver_lib;
  cuplug__lib nvptx_lib; /* libcuplug-nvptx.so, cuplug's own (plugin/nvptx/) */
  const cuplug__nvptx_api *nvptx;
  cuplug__nvvm_api nvvm;
  cuplug__nvrtc_api nvrtc;
  cuplug__nvjitlink_api nvjitlink;
  cuplug__driver_api driver;
  int driver_init_rc; /* cuInit's CUresult (0: success), once the driver is loaded */
  char *libdevice;
  size_t libdevice_size;
  char *libdevice_error;
  int *nvrtc_archs; /* e.g. 75, 80, ... ascending */
  int num_nvrtc_archs;
  bool nvrtc_archs_known;
  char *home;        /* the CUDA home the libraries came from, for headers and cudadevrt */
  char *cudadevrt;   /* libcudadevrt.a, read on first need */
  size_t cudadevrt_size;
  char *identity;    /* see toolkit_identity */
} cuplug__toolkit;

/* A toolkit that finds the libraries under cuda_home (NULL: search).
 * Where they run is the runner's business (plugin/helper/run.h). */
cuplug_error *cuplug__toolkit_init(cuplug__toolkit *tk, const char *cuda_home);
/* Makes `lib` (one of tk's) load from the file at `path`, which another
 * process found, rather than search; only before its first use.  The
 * helper process runs every job with the libraries its host chose. */
cuplug_error *cuplug__toolkit_use_file(cuplug__toolkit *tk, cuplug__lib *lib, const char *path);
void cuplug__toolkit_release(cuplug__toolkit *tk);

/* Each loads its library on first use (thread-safe) and then returns the
 * cached table, or the cached reason it could not. */
cuplug_error *cuplug__toolkit_nvvm(cuplug__toolkit *tk, const cuplug__nvvm_api **api);
cuplug_error *cuplug__toolkit_libdevice(cuplug__toolkit *tk, const char **data,
                                        size_t *size);
cuplug_error *cuplug__toolkit_nvrtc(cuplug__toolkit *tk, const cuplug__nvrtc_api **api);
/* NVRTC's supported archs (major*10+minor), ascending; n = 0 when unknown. */
void cuplug__toolkit_nvrtc_archs(cuplug__toolkit *tk, const int **archs, int *n);
cuplug_error *cuplug__toolkit_nvjitlink(cuplug__toolkit *tk,
                                        const cuplug__nvjitlink_api **api);
/* LLVM's NVPTX backend, libcuplug-nvptx.so: not CUDA's, but loaded and
 * run like its libraries, from $CUPLUG_NVPTX_LIBRARY, else beside the
 * plugin.  CUPLUG_ERR_NVPTX_NOT_FOUND, with the path and the loader's
 * reason, when it cannot be loaded. */
cuplug_error *cuplug__toolkit_nvptx(cuplug__toolkit *tk, const cuplug__nvptx_api **api);
/* The driver, initialised (cuInit).  CUPLUG_ERR_NO_DEVICE when there is no
 * driver or no device. */
cuplug_error *cuplug__toolkit_driver(cuplug__toolkit *tk, const cuplug__driver_api **api);
/* The cc of the current context's device, or of device 0. */
cuplug_error *cuplug__toolkit_current_cc(cuplug__toolkit *tk, int *major, int *minor);
/* The CUDA home whose headers NVRTC compiles against: $CUDA_HOME, the
 * explicit home, or the folder the toolkit libraries were found in. */
const char *cuplug__toolkit_home(cuplug__toolkit *tk);
/* libcudadevrt.a, for cooperative (grid-synchronising) code. */
cuplug_error *cuplug__toolkit_cudadevrt(cuplug__toolkit *tk, const void **data, size_t *size);

/* What a compile's result depends on in the toolkit, as text for the
 * cache's keys: the file libNVVM, libdevice, NVRTC and nvJitLink are (or
 * would be) loaded from, as device, inode, size and modification time.
 * Found with stat alone (no library is loaded), once a process for each
 * way of finding them. */
const char *cuplug__toolkit_identity(cuplug__toolkit *tk);

/* A driver error as "CUDA_ERROR_X (n): text". */
void cuplug__driver_describe(const cuplug__driver_api *api, int code, char *out,
                             size_t cap);

#endif
