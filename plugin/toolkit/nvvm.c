/* nvvm.c - one libNVVM compilation. */
#include "plugin/toolkit/nvvm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/toolkit/log.h"

cuplug_error *cuplug__nvvm_ir_version(cuplug__toolkit *tk, cuplug__ir_version *v) {
  const cuplug__nvvm_api *nvvm;
  CUPLUG__TRY(cuplug__toolkit_nvvm(tk, &nvvm));
  if (nvvm->ir_version(&v->ir_major, &v->ir_minor, &v->dbg_major, &v->dbg_minor))
    return cuplug__error(CUPLUG_ERR_NVVM, "nvvmIRVersion failed");
  return NULL;
}

static char *program_log(const cuplug__nvvm_api *nvvm, cuplug__nvvm_prog prog) {
  size_t n = 0;
  if (nvvm->log_size(prog, &n) || n == 0) return cuplug__strdup("");
  char *log = malloc(n + 1);
  if (log && nvvm->log(prog, log)) log[0] = '\0';
  return cuplug__log_finish(log, n);
}

cuplug_error *cuplug__nvvm_compile(cuplug__toolkit *tk, const cuplug__text *modules,
                                   size_t num_modules, const cuplug__nvvm_options *o,
                                   char **result, size_t *size, char **log) {
  const cuplug__nvvm_api *nvvm;
  const char *libdevice = NULL;
  size_t libdevice_size = 0;
  CUPLUG__TRY(cuplug__toolkit_nvvm(tk, &nvvm));
  if (o->libdevice) CUPLUG__TRY(cuplug__toolkit_libdevice(tk, &libdevice, &libdevice_size));

  char arch[32], opt[16];
  const char *options[12];
  int n = 0;
  snprintf(arch, sizeof arch, "-arch=compute_%u%u", o->cc_major, o->cc_minor);
  snprintf(opt, sizeof opt, "-opt=%d", o->opt);
  options[n++] = arch;
  options[n++] = opt;
  if (o->debug) options[n++] = "-g";
  if (o->lineinfo) options[n++] = "-generate-line-info";
  if (o->fastmath) {
    options[n++] = "-ftz=1";
    options[n++] = "-prec-div=0";
    options[n++] = "-prec-sqrt=0";
    options[n++] = "-fma=1";
  }
  if (o->ltoir) options[n++] = "-gen-lto";

  cuplug__nvvm_prog prog = NULL;
  int rc = nvvm->create(&prog);
  if (rc) return cuplug__error(CUPLUG_ERR_NVVM, "nvvmCreateProgram failed: %s",
                               nvvm->error_string(rc));
  cuplug_error *e = NULL;
  for (size_t i = 0; i < num_modules && !rc; i++) {
    rc = nvvm->add_module(prog, modules[i].text, modules[i].size, modules[i].name);
    if (rc) {
      char *lg = program_log(nvvm, prog);
      e = cuplug__error_log(CUPLUG_ERR_NVVM, lg, "libNVVM rejected module %s: %s",
                            modules[i].name, nvvm->error_string(rc));
      free(lg);
    }
  }
  if (!e && libdevice) {
    rc = nvvm->lazy_add_module(prog, libdevice, libdevice_size, "libdevice");
    if (rc)
      e = cuplug__error(CUPLUG_ERR_NVVM, "libNVVM rejected libdevice: %s",
                        nvvm->error_string(rc));
  }
  if (!e) {
    rc = nvvm->compile(prog, n, options);
    char *lg = program_log(nvvm, prog);
    if (rc) {
      char line[512];
      cuplug__log_first_error(lg ? lg : "", line, sizeof line);
      e = cuplug__error_log(CUPLUG_ERR_NVVM, lg, "libNVVM failed to compile (%s): %s",
                            nvvm->error_string(rc), line);
      free(lg);
    } else {
      size_t rs = 0;
      char *out = NULL;
      if (nvvm->result_size(prog, &rs) == 0 && (out = malloc(rs + 1)) &&
          nvvm->result(prog, out) == 0) {
        out[rs] = '\0';
        /* PTX comes with its terminating NUL counted */
        if (!o->ltoir) rs = strlen(out);
        *result = out;
        *size = rs;
        *log = lg ? lg : cuplug__strdup("");
      } else {
        free(out);
        free(lg);
        e = out ? cuplug__error(CUPLUG_ERR_NVVM, "cannot read libNVVM's result")
                : cuplug__error_oom();
      }
    }
  }
  nvvm->destroy(&prog);
  return e;
}
