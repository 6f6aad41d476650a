/* cpu.h - the interface between libcuplug.so and libcuplug-host.so.
 *
 * Running device code on the CPU needs LLVM's X86 backend, ORC and the
 * optimiser: some 40 MB that a host which never runs on the CPU should not
 * load.  So they live in a second shared object, libcuplug-host.so, beside
 * the plugin, which the plugin opens the first time a session loads a host
 * artifact (plugin/load/cpu.c).  It exports one symbol, cuplug__cpu_get,
 * which returns this table.  Both sides are built together: the version
 * only guards against a stray copy of the other.
 *
 * The CPU library never makes cuplug_error objects (each shared object
 * would have its own static out-of-memory error): a call returns 0 or a
 * cuplug_status, and then a message in *msg (malloc'd; the caller frees). */
#ifndef CUPLUG__PLUGIN_CPU_CPU_H
#define CUPLUG__PLUGIN_CPU_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "base/ir.h"
#include "base/types.h"

#define CUPLUG__CPU_VERSION 3

typedef struct cuplug__cpu_jit cuplug__cpu_jit; /* one per session */
typedef struct cuplug__cpu_lib cuplug__cpu_lib; /* one per load() */

/* A library to make. */
typedef struct cuplug__cpu_lib_args {
  /* NVVM IR as the compile would hand libNVVM, or modern IR (opaque
   * pointers, as llvm-dis-22 prints it): text, NUL-terminated */
  const cuplug__text *mods;
  size_t num_mods;
  const cuplug__text *sources; /* the caller's, for the lines in messages */
  size_t num_sources;
  const char *const *kernels; /* each gets a launcher */
  size_t num_kernels;
  const char *entry; /* a device function to compile at once (NULL: none) */
  const void *libdevice; /* libdevice.10.bc, when the modules call it (NULL: they do not) */
  size_t libdevice_size;
  int ftz; /* libdevice flushes subnormals to zero (fastmath, as libNVVM's -ftz=1) */
  /* external functions the host provides (declare_device's host_function) */
  const char *const *extern_names;
  void *const *extern_addresses;
  size_t num_externs;
  /* Their signatures and ABIs (numba: int f(R *ret, args...)), and the
   * entry's: each is called, or exported, with the C types of the platform's
   * C ABI (cabi.c).  The types are libcuplug.so's, read, never freed. */
  const cuplug_type *const *extern_signatures;
  const uint8_t *extern_numba;
  const cuplug_type *entry_signature; /* NULL: the entry is not wrapped */
  int entry_numba;
} cuplug__cpu_lib_args;

/* A kernel to launch on a CPU grid. */
typedef struct cuplug__cpu_grid {
  const char *kernel; /* its symbol */
  uint32_t grid[3], block[3]; /* none 0 */
  uint32_t shared_mem;        /* dynamic shared memory, bytes */
  void **params;              /* as cuLaunchKernel takes them */
  size_t num_params;
  int debug;        /* it has the exception store: read it after */
  uint32_t threads; /* host threads to run blocks on; 0: one per core */
  const volatile int32_t *interrupt; /* the host's stop flag (interrupt.c), or NULL */
} cuplug__cpu_grid;

/* A C-ABI function called through libffi: its signature's types are its
 * C types (cabi.c says which). */
typedef struct cuplug__cpu_ffi {
  void *fn;
  const char *name; /* for messages */
  const cuplug_type *sig;
  void **args;  /* each points at its value in memory (an array: numba's array struct) */
  void *result; /* room for the result's value in memory */
  const volatile int32_t *interrupt; /* the host's stop flag (interrupt.c), or NULL */
} cuplug__cpu_ffi;

typedef struct cuplug__cpu_api {
  uint32_t version;
  int (*jit_create)(cuplug__cpu_jit **out, char **msg);
  void (*jit_destroy)(cuplug__cpu_jit *jit);
  /* Parses, links, retargets, optimises and JIT-compiles the modules; the
   * kernels named get a launcher each.  Thread-safe on one JIT. */
  int (*lib_create)(cuplug__cpu_jit *jit, const cuplug__cpu_lib_args *a, cuplug__cpu_lib **out,
                    char **msg);
  void (*lib_destroy)(cuplug__cpu_lib *lib);
  /* The address of a symbol the library defines, or NULL. */
  void *(*lookup)(cuplug__cpu_lib *lib, const char *name);
  int (*launch)(cuplug__cpu_lib *lib, const cuplug__cpu_grid *g, char **msg);
  int (*call)(const cuplug__cpu_ffi *c, char **msg);
} cuplug__cpu_api;

typedef const cuplug__cpu_api *(*cuplug__cpu_get_fn)(uint32_t version);

#endif
