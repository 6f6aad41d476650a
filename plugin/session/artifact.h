/* artifact.h - what a compile or a link produced: code, logs, warnings,
 * and what loading its kernels needs to know. */
#ifndef CUPLUG__PLUGIN_SESSION_ARTIFACT_H
#define CUPLUG__PLUGIN_SESSION_ARTIFACT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/code.h"
#include "base/ir.h"
#include "cuplug/cuplug.h"

typedef struct cuplug__stage_time {
  const char *name; /* static: the stage's */
  uint64_t ns;
} cuplug__stage_time;

typedef struct cuplug__artifact_kernel {
  char *symbol;
  const cuplug_type *signature;
  bool debug; /* compiled with the exception store */
} cuplug__artifact_kernel;

/* A declared function's implementation on the CPU (declare_device's
 * host_function), for a CPU artifact that calls it. */
typedef struct cuplug__cpu_extern {
  char *symbol;
  void *address;
  const cuplug_type *signature; /* as declared: the C function's C types */
  cuplug_abi abi;               /* NUMBA or C */
} cuplug__cpu_extern;

struct cuplug_artifact {
  cuplug_output output;     /* PTX, LTOIR, CUBIN, or HOST (IR for the CPU JIT, no parts) */
  cuplug__code *parts;      /* parts[0] is the result */
  size_t num_parts;
  char *symbol;             /* the exported function or kernel, or NULL */
  char *log;                /* libNVVM's */
  char *link_log;           /* nvJitLink's */
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" or "f" */
  cuplug_backend backend;   /* what made the PTX or LTO-IR: LIBNVVM, LLVM, or DEFAULT */
  cuplug_function_kind kind;
  uint32_t debug, lineinfo, max_registers;
  const cuplug_type *signature; /* the entry's, or NULL */
  /* The kernels it holds, each with its signature and whether it has the
   * exception store: a compile's one, or every kernel a link took in.
   * load() hands them to kernel_get, which finds them by name. */
  cuplug__artifact_kernel *kernels;
  size_t num_kernels;
  bool cooperative;
  cuplug_error **warnings;
  size_t num_warnings;
  /* the modules as they went to libNVVM (CUPLUG_COMPILE_KEEP_IR), or, for
   * the CPU, as they would have: the artifact owns their names and texts */
  cuplug__text *ir;
  size_t num_ir;
  /* a CPU artifact (CUPLUG_OUTPUT_HOST): the caller's modules as given,
   * whose lines an error of the CPU compile names (owned, as ir) */
  cuplug__text *sources;
  size_t num_sources;
  bool uses_libdevice; /* a CPU artifact that calls __nv_* functions */
  bool fastmath;       /* ... compiled with fastmath: libdevice flushes to zero */
  cuplug_abi abi;      /* ... the ABI its device function is exported under */
  /* ... and the declared functions it calls that have a CPU implementation */
  cuplug__cpu_extern *cpu_externs;
  size_t num_cpu_externs;
  cuplug_cache_result cache; /* built, or found in the cache (not saved) */
  /* the compile's stages and their times (not saved in the cache) */
  cuplug__stage_time *stages;
  size_t num_stages;
};

cuplug_artifact *cuplug__artifact_new(void);
void cuplug__artifact_destroy(cuplug_artifact *a);
/* Appends a warning to an artifact (takes ownership). */
cuplug_error *cuplug__artifact_warn(cuplug_artifact *a, cuplug_error *w);
/* Appends a part (takes the code's contents). */
cuplug_error *cuplug__artifact_add_part(cuplug_artifact *a, cuplug__code *code);

/* Notes a kernel the artifact holds (copies the symbol). */
cuplug_error *cuplug__artifact_add_kernel(cuplug_artifact *a, const char *symbol,
                                          const cuplug_type *signature, bool debug);

/* The artifact as bytes, appended to b, and back (artifact_io.c): what the
 * result cache keeps.  restore fails with CUPLUG_ERR_IO on bytes that do
 * not read back. */
struct cuplug__buf;
cuplug_error *cuplug__artifact_save(const cuplug_artifact *a, struct cuplug__buf *b);
cuplug_error *cuplug__artifact_restore(const void *data, size_t size, cuplug_artifact **out);

#endif
