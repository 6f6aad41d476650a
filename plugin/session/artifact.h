/* artifact.h - what a compile or a link produced: code, logs, warnings,
 * and what loading its kernels needs to know. */
#ifndef CUPLUG__PLUGIN_SESSION_ARTIFACT_H
#define CUPLUG__PLUGIN_SESSION_ARTIFACT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/code.h"
#include "cuplug/cuplug.h"

typedef struct cuplug__artifact_kernel {
  char *symbol;
  const cuplug_type *signature;
  bool debug; /* compiled with the exception store */
} cuplug__artifact_kernel;

typedef struct cuplug__host_extern {
  char *symbol;
  void *address;
} cuplug__host_extern;

typedef struct cuplug__ir_module {
  char *name;
  char *text;
  size_t size;
} cuplug__ir_module;

struct cuplug_artifact {
  cuplug_output output;     /* PTX, LTOIR or CUBIN */
  cuplug__code *parts;      /* parts[0] is the result */
  size_t num_parts;
  char *symbol;             /* the exported function or kernel, or NULL */
  char *log;                /* libNVVM's */
  char *link_log;           /* nvJitLink's */
  uint32_t cc_major, cc_minor;
  char cc_suffix[2]; /* "", "a" or "f" */
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
  cuplug__ir_module *ir;
  size_t num_ir;
  /* a host artifact: the caller's modules as given, whose lines an error
   * of the host compile names */
  cuplug__ir_module *sources;
  size_t num_sources;
  bool uses_libdevice; /* a host artifact that calls __nv_* functions */
  bool fastmath;       /* ... compiled with fastmath: libdevice flushes to zero */
  /* ... and the declared functions it calls that have a host implementation */
  cuplug__host_extern *host_externs;
  size_t num_host_externs;
  cuplug_cache_result cache; /* built, or found in the cache (not saved) */
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
