/* nvptx.h - the interface between cuplug and libcuplug-nvptx.so, LLVM 22's
 * NVPTX backend as a library.
 *
 * Modern IR (opaque pointers, LLVM 15 to 22, text or bitcode) goes to
 * LLVM's own code generator rather than to libNVVM, which reads only the
 * typed dialect below compute_100.  That code generator is some 30 MB
 * that a host which only hands libNVVM numba-cuda's IR should not load,
 * and it aborts the process on input it cannot select ("LLVM ERROR: Cannot
 * select"): so it lives in a shared object of its own, beside
 * libcuplug.so, which the toolkit layer opens like a toolkit library
 * (plugin/toolkit/toolkit.c) and runs in the helper process by default
 * (plugin/toolkit/tool.c).  It exports one symbol, cuplug__nvptx_get, which
 * returns this table; both sides are built together, and the version
 * only guards against a stray copy of the other.
 *
 * As libcuplug-host.so, it never makes cuplug_error objects: a call returns
 * 0 or a cuplug_status, and then a message in *msg (malloc'd). */
#ifndef CUPLUG__PLUGIN_NVPTX_NVPTX_H
#define CUPLUG__PLUGIN_NVPTX_NVPTX_H

#include <stddef.h>
#include <stdint.h>

#define CUPLUG__NVPTX_VERSION 2

/* The PTX ISA the backend writes, for every target: the newest that both
 * LLVM 22 writes and CUDA 13.0's nvJitLink and ptxas read, PTX ISA 9.0.
 * Every processor LLVM 22 knows (sm_20 to sm_121f, the 'a' and 'f' ones
 * too) needs 9.0 or less: sm_90a asks for 8.0, sm_100a 8.6, sm_120a 8.7,
 * sm_121 and most 'f' ones 8.8, sm_110 and sm_110f 9.0.  Left to itself LLVM writes the oldest
 * ISA the processor allows (7.8 for sm_90), which lacks newer
 * instructions: this is the feature string to pass. */
#define CUPLUG__NVPTX_FEATURES "+ptx90"

typedef struct cuplug__nvptx_args {
  const void *module; /* the lowered program: LLVM bitcode or text, one module */
  size_t size;
  const char *name;   /* the module's name, for messages */
  const char *const *keep; /* the symbols internalizing keeps (the entries); */
  size_t num_keep;         /* functions of the ptx_kernel convention are kept too */
  const char *cpu;      /* "sm_90", "sm_90a", "sm_100a" ... */
  const char *features; /* CUPLUG__NVPTX_FEATURES, or NULL for it */
  int opt;              /* 0..3 */
  int fastmath; /* as libNVVM's -ftz=1 -prec-div=0 -prec-sqrt=0 -fma=1 */
  int debug;    /* full debug information, -O0 */
  int lineinfo; /* line tables alone: optimised code */
  const void *libdevice; /* libdevice.10.bc, linked where used; NULL: not linked */
  size_t libdevice_size;
} cuplug__nvptx_args;

typedef struct cuplug__nvptx_api {
  uint32_t version;
  /* Compiles one module to PTX: *ptx (NUL-terminated, the NUL not in
   * *ptx_size) and *log, LLVM's diagnostics, both malloc'd.  On failure it
   * returns the status, with *msg and *log (the caller frees both):
   *   CUPLUG_ERR_IR_PARSE      the module does not parse;
   *   CUPLUG_ERR_IR_INVALID    it does not verify (after libdevice's linking);
   *   CUPLUG_ERR_IR_UNSUPPORTED its triple names another target;
   *   CUPLUG_ERR_OPTION_CC     LLVM 22 knows no such processor;
   *   CUPLUG_ERR_NVPTX         libdevice does not link, or LLVM reported an
   *                            error (even when emitting went on);
   *   CUPLUG_ERR_OUT_OF_MEMORY.
   * An LLVM fatal error does not return: see set_fatal_handler.  Each call
   * has an LLVMContext of its own: calls may run on several threads. */
  int (*compile)(const cuplug__nvptx_args *a, char **ptx, size_t *ptx_size, char **log,
                 char **msg);
  /* The LLVM the library carries, "22.1.8". */
  const char *(*llvm_version)(void);
  /* Gives LLVM's fatal errors ("Cannot select") to `report` (NULL: LLVM's
   * own handler, which prints the reason and aborts).  The process ends
   * after it, whatever it does: it is for a helper process, to tell its
   * host why before it goes.  For the whole process. */
  void (*set_fatal_handler)(void (*report)(void *ctx, const char *reason), void *ctx);
  /* Reads a->module (text or bitcode, of any LLVM from 7 to 22) and writes
   * it as LLVM 22's text, *text NUL-terminated; the other arguments are not
   * read.  LLVM's bitcode reader is not made for hostile input (fuzzing
   * crashed it in the host): the plugin reads bitcode here, in the helper
   * process, and parses only the text in its own.  Errors as compile's
   * CUPLUG_ERR_IR_PARSE. */
  int (*to_text)(const cuplug__nvptx_args *a, char **text, size_t *text_size, char **log,
                 char **msg);
} cuplug__nvptx_api;

typedef const cuplug__nvptx_api *(*cuplug__nvptx_get_fn)(uint32_t version);

#endif
