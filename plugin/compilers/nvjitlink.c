/* nvjitlink.c - linking device code into a cubin with nvJitLink. */
#include "plugin/compilers/nvjitlink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/helper/run.h"

static uint32_t input_kind(cuplug_code_kind k) {
  switch (k) {
    case CUPLUG_CODE_PTX: return CUPLUG__NVJL_PTX;
    case CUPLUG_CODE_LTOIR: return CUPLUG__NVJL_LTOIR;
    case CUPLUG_CODE_CUBIN: return CUPLUG__NVJL_CUBIN;
    case CUPLUG_CODE_FATBIN: return CUPLUG__NVJL_FATBIN;
    case CUPLUG_CODE_OBJECT: return CUPLUG__NVJL_OBJECT;
    case CUPLUG_CODE_ARCHIVE: return CUPLUG__NVJL_LIBRARY;
    default: return 0;
  }
}

/* One link: the cubin, or (ptx) the linked PTX. */
static cuplug_error *link_once(cuplug__runner *r, const cuplug__tool_input *inputs, size_t n,
                               const cuplug__link_options *o, bool ptx, cuplug__code *out,
                               char **log) {
  char arch[32], regs[48];
  const char *opts[8];
  size_t k = 0;
  snprintf(arch, sizeof arch, "-arch=sm_%u%u%s", o->cc_major, o->cc_minor, o->cc_suffix);
  opts[k++] = arch;
  if (o->lto) opts[k++] = "-lto";
  if (ptx) opts[k++] = "-ptx";
  if (o->max_registers) {
    snprintf(regs, sizeof regs, "-maxrregcount=%u", o->max_registers);
    opts[k++] = regs;
  }
  if (o->lineinfo) opts[k++] = "-lineinfo";
  if (o->debug) opts[k++] = "-g";
  cuplug__tool_job job = {.tool = CUPLUG__TOOL_NVJITLINK, .options = opts, .num_options = k,
                          .inputs = inputs, .num_inputs = n, .ptx = ptx};
  cuplug__tool_output result;
  CUPLUG__TRY(cuplug__run(r, &job, o->time_limit_ms, &result));
  out->kind = ptx ? CUPLUG_CODE_PTX : CUPLUG_CODE_CUBIN;
  out->data = result.data;
  out->size = result.size;
  out->name = cuplug__strdup(ptx ? "linked.ptx" : "linked.cubin");
  if (log)
    *log = result.log;
  else
    free(result.log);
  if (!out->name) {
    cuplug__code_free(out);
    return cuplug__error_oom();
  }
  return NULL;
}

cuplug_error *cuplug__nvjitlink_link(cuplug__runner *r, const cuplug__code *inputs,
                                     size_t n, const cuplug__link_options *o,
                                     cuplug__code *cubin, cuplug__code *ptx, char **log) {
  memset(cubin, 0, sizeof *cubin);
  if (ptx) memset(ptx, 0, sizeof *ptx);
  *log = NULL;
  if (ptx && !o->lto)
    return cuplug__error(CUPLUG_ERR_LINK,
                         "nvJitLink gives the linked PTX only with link-time optimisation");
  cuplug__tool_input *in = calloc(n ? n : 1, sizeof *in);
  if (!in) return cuplug__error_oom();
  cuplug_error *e = NULL;
  for (size_t i = 0; i < n && !e; i++) {
    in[i] = (cuplug__tool_input){input_kind(inputs[i].kind), inputs[i].name, inputs[i].data,
                                 inputs[i].size};
    if (!in[i].kind)
      e = cuplug__error(CUPLUG_ERR_CODE_KIND, "%s: %s code cannot be linked as it is",
                        inputs[i].name, cuplug__code_kind_name(inputs[i].kind));
  }
  if (!e) e = link_once(r, in, n, o, false, cubin, log);
  if (!e && ptx) {
    e = link_once(r, in, n, o, true, ptx, NULL);
    if (e) {
      cuplug__code_free(cubin);
      free(*log);
      *log = NULL;
    }
  }
  free(in);
  return e;
}
