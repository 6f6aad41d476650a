/* tool.h - one call of a toolkit library as plain data, run in this
 * process or in a helper process.
 *
 * libNVVM, NVRTC and nvJitLink run code cuplug cannot vouch for: IR a host
 * JIT wrote, CUDA C++ a user wrote, code to link from anywhere.  Fed the
 * wrong input, each can crash or never return.  So by default each call
 * runs in a helper process (helpers.h) that cuplug keeps warm, restarts
 * after a crash and stops after the time limit; a session that trusts its
 * inputs (CUPLUG_SESSION_TRUSTED) runs them here.  A job is what either
 * needs: the tool, its options as the library takes them, its inputs. */
#ifndef CUPLUG__PLUGIN_TOOLKIT_TOOL_H
#define CUPLUG__PLUGIN_TOOLKIT_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "plugin/toolkit/toolkit.h"

typedef enum cuplug__tool {
  CUPLUG__TOOL_NVVM = 1,      /* modules to PTX or LTO-IR */
  CUPLUG__TOOL_NVRTC = 2,     /* one .cu to PTX or LTO-IR */
  CUPLUG__TOOL_NVJITLINK = 3, /* device code to a cubin, or the linked PTX */
  /* LLVM's NVPTX backend (libcuplug-nvptx.so): one module of modern IR to
   * PTX.  Options: -cpu=sm_XY[a|f], -opt=N, -fastmath, -g, -lineinfo,
   * -keep=SYMBOL (each entry), -mattr=FEATURES (nvptx.h's by default),
   * -libnvvm=PATH (libdevice is the one beside that libNVVM). */
  CUPLUG__TOOL_NVPTX = 4
} cuplug__tool;

typedef struct cuplug__tool_input {
  uint32_t kind; /* nvJitLink: its input kind; otherwise 0 */
  const char *name;
  const char *data;
  size_t size;
} cuplug__tool_input;

typedef struct cuplug__tool_job {
  cuplug__tool tool;
  const char *const *options;
  size_t num_options;
  const cuplug__tool_input *inputs;
  size_t num_inputs;
  bool libdevice; /* libNVVM, the NVPTX backend: add libdevice, lazily */
  bool ptx;       /* NVRTC, nvJitLink: PTX, rather than LTO-IR or a cubin */
} cuplug__tool_job;

/* Where a job's time went, on the clock both processes share
 * (base/clock.h): the host handed it over (sent), the library call ran
 * (started to finished), the host had the result back (seen).  A job run
 * in this process is handed over as its call starts and back as it ends. */
typedef struct cuplug__tool_times {
  uint64_t sent, started, finished, seen;
} cuplug__tool_times;

/* What a job made: the bytes (NUL-terminated, PTX without its NUL in
 * size) and the library's log, both malloc'd; and when it ran. */
typedef struct cuplug__tool_output {
  char *data;
  size_t size;
  char *log;
  cuplug__tool_times times;
} cuplug__tool_output;

void cuplug__tool_output_free(cuplug__tool_output *out);

/* Runs a job here, with the toolkit's libraries.  Errors name the tool and
 * carry its log. */
cuplug_error *cuplug__tool_run_here(cuplug__toolkit *tk, const cuplug__tool_job *job,
                                    cuplug__tool_output *out);

/* The library a tool runs with (the name in messages, its path once found). */
const char *cuplug__tool_name(cuplug__tool tool);

#endif
