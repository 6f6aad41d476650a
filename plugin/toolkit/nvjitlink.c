/* nvjitlink.c - linking device code into a cubin with nvJitLink. */
#include "plugin/toolkit/nvjitlink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/toolkit/log.h"

static int input_kind(cuplug_code_kind k) {
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

static char *get_log(const cuplug__nvjitlink_api *jl, cuplug__nvjitlink h, bool error_log) {
  size_t n = 0;
  if ((error_log ? jl->error_log_size(h, &n) : jl->info_log_size(h, &n)) || n <= 1)
    return cuplug__strdup("");
  char *log = malloc(n + 1);
  if (log && (error_log ? jl->error_log(h, log) : jl->info_log(h, log))) log[0] = '\0';
  return cuplug__log_finish(log, n);
}

static cuplug_error *run(const cuplug__nvjitlink_api *jl, const cuplug__code *inputs, size_t n,
                         const cuplug__link_options *o, bool ptx, cuplug__code *out, char **log) {
  char arch[32], regs[48];
  const char *opts[8];
  uint32_t k = 0;
  snprintf(arch, sizeof arch, "-arch=sm_%u%u", o->cc_major, o->cc_minor);
  opts[k++] = arch;
  if (o->lto) opts[k++] = "-lto";
  if (ptx) opts[k++] = "-ptx";
  if (o->max_registers) {
    snprintf(regs, sizeof regs, "-maxrregcount=%u", o->max_registers);
    opts[k++] = regs;
  }
  if (o->lineinfo) opts[k++] = "-lineinfo";
  if (o->debug) opts[k++] = "-g";

  cuplug__nvjitlink h = NULL;
  int rc = jl->create(&h, k, opts);
  if (rc) return cuplug__error(CUPLUG_ERR_LINK, "nvJitLink refused the options (error %d)", rc);
  cuplug_error *e = NULL;
  for (size_t i = 0; i < n && !e; i++) {
    int kind = input_kind(inputs[i].kind);
    if (!kind) {
      e = cuplug__error(CUPLUG_ERR_CODE_KIND, "%s: %s code cannot be linked as it is",
                        inputs[i].name, cuplug__code_kind_name(inputs[i].kind));
      break;
    }
    /* nvJitLink reads PTX as a C string */
    size_t size = inputs[i].kind == CUPLUG_CODE_PTX ? inputs[i].size + 1 : inputs[i].size;
    if (jl->add_data(h, kind, inputs[i].data, size, inputs[i].name)) {
      char *lg = get_log(jl, h, true);
      char line[512];
      cuplug__log_first_error(lg ? lg : "", line, sizeof line);
      e = cuplug__error_log(CUPLUG_ERR_LINK, lg, "nvJitLink rejected %s (%s): %s", inputs[i].name,
                            cuplug__code_kind_name(inputs[i].kind), line);
      free(lg);
    }
  }
  if (!e && jl->complete(h)) {
    char *lg = get_log(jl, h, true);
    char line[512];
    cuplug__log_first_error(lg ? lg : "", line, sizeof line);
    e = cuplug__error_log(CUPLUG_ERR_LINK, lg, "nvJitLink failed to link: %s", line);
    free(lg);
  }
  if (!e) {
    size_t size = 0;
    rc = ptx ? jl->ptx_size(h, &size) : jl->cubin_size(h, &size);
    char *bytes = rc ? NULL : malloc(size + 1);
    if (bytes && (ptx ? jl->ptx(h, bytes) : jl->cubin(h, bytes)) == 0) {
      if (ptx) size = strnlen(bytes, size);
      bytes[size] = '\0';
      out->kind = ptx ? CUPLUG_CODE_PTX : CUPLUG_CODE_CUBIN;
      out->data = bytes;
      out->size = size;
      out->name = cuplug__strdup(ptx ? "linked.ptx" : "linked.cubin");
      if (log) *log = get_log(jl, h, false);
      if (!out->name || (log && !*log)) e = cuplug__error_oom();
    } else {
      free(bytes);
      e = cuplug__error(CUPLUG_ERR_LINK, "cannot read nvJitLink's %s", ptx ? "PTX" : "cubin");
    }
  }
  jl->destroy(&h);
  if (e) cuplug__code_free(out);
  return e;
}

cuplug_error *cuplug__nvjitlink_link(cuplug__toolkit *tk, const cuplug__code *inputs,
                                    size_t n, const cuplug__link_options *o,
                                    cuplug__code *cubin, cuplug__code *ptx, char **log) {
  const cuplug__nvjitlink_api *jl;
  memset(cubin, 0, sizeof *cubin);
  if (ptx) memset(ptx, 0, sizeof *ptx);
  *log = NULL;
  CUPLUG__TRY(cuplug__toolkit_nvjitlink(tk, &jl));
  if (ptx && !o->lto)
    return cuplug__error(CUPLUG_ERR_LINK,
                         "nvJitLink gives the linked PTX only with link-time optimisation");
  CUPLUG__TRY(run(jl, inputs, n, o, false, cubin, log));
  if (ptx) {
    cuplug_error *e = run(jl, inputs, n, o, true, ptx, NULL);
    if (e) {
      cuplug__code_free(cubin);
      free(*log);
      *log = NULL;
      return e;
    }
  }
  return NULL;
}
