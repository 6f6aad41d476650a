/* nvptx.c - one compilation by LLVM's NVPTX backend. */
#include "plugin/compilers/nvptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

static void free_options(cuplug__nvptx_job *j) {
  for (size_t i = 0; j->keep && j->keep[i]; i++) free(j->keep[i]);
  free(j->keep);
  free(j->libnvvm);
  free(j->options);
  j->keep = NULL;
  j->libnvvm = NULL;
  j->options = NULL;
}

/* libdevice is the one beside the libNVVM this process found, which the
 * helper process would not find by itself when the session names a CUDA
 * home: its path goes along. */
static cuplug_error *libdevice_option(cuplug__runner *r, cuplug__nvptx_job *j) {
  const char *data;
  size_t size;
  CUPLUG__TRY(cuplug__toolkit_libdevice(r->toolkit, &data, &size));
  size_t n = strlen(r->toolkit->nvvm_lib.path) + 16;
  if (!(j->libnvvm = malloc(n))) return cuplug__error_oom();
  snprintf(j->libnvvm, n, "-libnvvm=%s", r->toolkit->nvvm_lib.path);
  return NULL;
}

/* The backend's options (tool.h): -cpu, -opt, debug, line info, fastmath,
 * libdevice's libNVVM, and a -keep for each entry. */
static cuplug_error *put_options(cuplug__runner *r, cuplug__nvptx_job *j,
                                 const cuplug__nvptx_options *o) {
  snprintf(j->cpu, sizeof j->cpu, "-cpu=sm_%u%u%s", o->cc_major, o->cc_minor, o->cc_suffix);
  snprintf(j->opt, sizeof j->opt, "-opt=%d", o->opt);
  j->options = calloc(o->num_keep + 8, sizeof *j->options);
  j->keep = calloc(o->num_keep + 1, sizeof *j->keep);
  if (!j->options || !j->keep) return cuplug__error_oom();
  if (o->libdevice) CUPLUG__TRY(libdevice_option(r, j));
  size_t n = 0;
  j->options[n++] = j->cpu;
  j->options[n++] = j->opt;
  if (o->debug) j->options[n++] = "-g";
  if (o->lineinfo) j->options[n++] = "-lineinfo";
  if (o->fastmath) j->options[n++] = "-fastmath";
  if (j->libnvvm) j->options[n++] = j->libnvvm;
  for (size_t i = 0; i < o->num_keep; i++) {
    size_t len = strlen(o->keep[i]) + 7;
    if (!(j->keep[i] = malloc(len))) return cuplug__error_oom();
    snprintf(j->keep[i], len, "-keep=%s", o->keep[i]);
    j->options[n++] = j->keep[i];
  }
  j->job.num_options = n;
  return NULL;
}

cuplug_error *cuplug__nvptx_start(cuplug__runner *r, const char *module, size_t size,
                                  const cuplug__nvptx_options *o, cuplug__nvptx_job *j) {
  cuplug__running reserved = j->run;
  memset(j, 0, sizeof *j);
  j->run = reserved;
  cuplug_error *e = put_options(r, j, o);
  if (!e) {
    j->input = (cuplug__tool_input){0, o->name ? o->name : "the module", module, size};
    j->job.tool = CUPLUG__TOOL_NVPTX;
    j->job.options = j->options;
    j->job.inputs = &j->input;
    j->job.num_inputs = 1;
    j->job.libdevice = o->libdevice;
    e = cuplug__run_start(r, &j->job, o->time_limit_ms, &j->run);
  } else {
    cuplug__run_unreserve(r, &j->run);
  }
  if (e) free_options(j);
  return e;
}

void cuplug__nvptx_reserve(cuplug__runner *r, cuplug__nvptx_job *j) {
  memset(j, 0, sizeof *j);
  cuplug__run_reserve(r, &j->run);
}

void cuplug__nvptx_unreserve(cuplug__runner *r, cuplug__nvptx_job *j) {
  cuplug__run_unreserve(r, &j->run);
}

cuplug_error *cuplug__nvptx_finish(cuplug__runner *r, cuplug__nvptx_job *j, char **ptx,
                                   size_t *ptx_size, char **log) {
  cuplug__tool_output out;
  cuplug_error *e = cuplug__run_finish(r, &j->run, &out);
  free_options(j);
  if (e) return e;
  *ptx = out.data;
  *ptx_size = out.size;
  *log = out.log;
  return NULL;
}

void cuplug__nvptx_cancel(cuplug__runner *r, cuplug__nvptx_job *j) {
  cuplug__run_cancel(r, &j->run);
  free_options(j);
}

cuplug_error *cuplug__nvptx_compile(cuplug__runner *r, const char *module, size_t size,
                                    const cuplug__nvptx_options *o, char **ptx,
                                    size_t *ptx_size, char **log) {
  cuplug__nvptx_job j;
  memset(&j, 0, sizeof j);
  CUPLUG__TRY(cuplug__nvptx_start(r, module, size, o, &j));
  return cuplug__nvptx_finish(r, &j, ptx, ptx_size, log);
}

cuplug_error *cuplug__nvptx_to_text(cuplug__runner *r, const char *name, const char *module,
                                    size_t size, char **text, size_t *text_size) {
  static const char *const options[] = {"-text"};
  cuplug__tool_input input = {0, name, module, size};
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVPTX, .options = options, .num_options = 1,
                          .inputs = &input, .num_inputs = 1};
  cuplug__tool_output out;
  cuplug_error *e = cuplug__run(r, &job, 0, &out);
  if (e && e->code == CUPLUG_ERR_TOOLKIT_CRASH) {
    cuplug__error_destroy(e);
    return cuplug__error(CUPLUG_ERR_IR_PARSE,
                         "IR module %s is malformed bitcode: LLVM's bitcode reader crashed on it "
                         "(in the helper process; the host goes on)",
                         name);
  }
  if (e) return e;
  free(out.log);
  *text = out.data;
  *text_size = out.size;
  return NULL;
}
