/* nvvm.c - one libNVVM compilation. */
#include "plugin/compilers/nvvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

cuplug_error *cuplug__nvvm_ir_version(cuplug__toolkit *tk, cuplug__ir_version *v) {
  const cuplug__nvvm_api *nvvm;
  CUPLUG__TRY(cuplug__toolkit_nvvm(tk, &nvvm));
  if (nvvm->ir_version(&v->ir_major, &v->ir_minor, &v->dbg_major, &v->dbg_minor))
    return cuplug__error(CUPLUG_ERR_NVVM, "nvvmIRVersion failed");
  return NULL;
}

/* libNVVM's options for numba-cuda's: -arch, -opt, debug, line info,
 * fastmath (ftz, approximate division and square root, fma), LTO-IR. */
static size_t put_options(cuplug__nvvm_job *j, const cuplug__nvvm_options *o) {
  size_t n = 0;
  /* written by hand: snprintf, which every compile would call here, runs
   * cold after libNVVM and costs a microsecond a call */
  char *p = stpcpy(j->arch, "-arch=compute_");
  p += cuplug__decimal(p, o->cc_major, false);
  p += cuplug__decimal(p, o->cc_minor, false);
  size_t suffix = strnlen(o->cc_suffix, sizeof o->cc_suffix);
  memcpy(p, o->cc_suffix, suffix);
  p[suffix] = '\0';
  p = stpcpy(j->opt, "-opt=");
  cuplug__decimal_signed(p, o->opt);
  j->options[n++] = j->arch;
  j->options[n++] = j->opt;
  if (o->debug) j->options[n++] = "-g";
  if (o->lineinfo) j->options[n++] = "-generate-line-info";
  if (o->fastmath) {
    j->options[n++] = "-ftz=1";
    j->options[n++] = "-prec-div=0";
    j->options[n++] = "-prec-sqrt=0";
    j->options[n++] = "-fma=1";
  }
  if (o->ltoir) j->options[n++] = "-gen-lto";
  return n;
}

cuplug_error *cuplug__nvvm_start(cuplug__runner *r, const cuplug__text *modules,
                                 size_t num_modules, const cuplug__nvvm_options *o,
                                 cuplug__nvvm_job *j) {
  cuplug__running reserved = j->run;
  memset(j, 0, sizeof *j);
  j->run = reserved;
  j->inputs = calloc(num_modules ? num_modules : 1, sizeof *j->inputs);
  if (!j->inputs) {
    cuplug__run_unreserve(r, &j->run);
    return cuplug__error_oom();
  }
  for (size_t i = 0; i < num_modules; i++)
    j->inputs[i] = (cuplug__tool_input){0, modules[i].name, modules[i].text, modules[i].size};
  j->job = (cuplug__tool_job){.tool = CUPLUG__TOOL_NVVM,
                              .options = j->options,
                              .num_options = put_options(j, o),
                              .inputs = j->inputs,
                              .num_inputs = num_modules,
                              .libdevice = o->libdevice};
  cuplug_error *e = cuplug__run_start(r, &j->job, o->time_limit_ms, &j->run);
  if (e) {
    free(j->inputs);
    j->inputs = NULL;
  }
  return e;
}

void cuplug__nvvm_reserve(cuplug__runner *r, cuplug__nvvm_job *j) {
  memset(j, 0, sizeof *j);
  cuplug__run_reserve(r, &j->run);
}

void cuplug__nvvm_unreserve(cuplug__runner *r, cuplug__nvvm_job *j) {
  cuplug__run_unreserve(r, &j->run);
}

cuplug_error *cuplug__nvvm_finish(cuplug__runner *r, cuplug__nvvm_job *j, char **result,
                                  size_t *size, char **log) {
  cuplug__tool_output out;
  cuplug_error *e = cuplug__run_finish(r, &j->run, &out);
  free(j->inputs);
  j->inputs = NULL;
  if (e) return e;
  *result = out.data;
  *size = out.size;
  *log = out.log;
  return NULL;
}

void cuplug__nvvm_cancel(cuplug__runner *r, cuplug__nvvm_job *j) {
  cuplug__run_cancel(r, &j->run);
  free(j->inputs);
  j->inputs = NULL;
}
