/* work.c - a compilation's state and its diagnostics. */
#include "plugin/nvptx/work.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuplug/cuplug.h"

static const char *severity_word(LLVMDiagnosticSeverity s) {
  switch (s) {
    case LLVMDSError: return "error";
    case LLVMDSWarning: return "warning";
    case LLVMDSRemark: return "remark";
    case LLVMDSNote: return "note";
  }
  return "note";
}

static void diagnose(LLVMDiagnosticInfoRef info, void *ctx) {
  cuplug__nvptx_work *w = ctx;
  LLVMDiagnosticSeverity severity = LLVMGetDiagInfoSeverity(info);
  /* the C handler gets every remark ("28 instructions in function"), asked
   * for or not: they are no one's business here */
  if (severity == LLVMDSRemark) return;
  char *text = LLVMGetDiagInfoDescription(info);
  cuplug__buf_printf(&w->log, "%s: %s\n", severity_word(severity), text ? text : "");
  if (severity == LLVMDSError && w->errors++ == 0)
    w->first_error = cuplug__strdup(text ? text : "an error LLVM gave no words to");
  LLVMDisposeMessage(text);
}

int cuplug__nvptx_work_init(cuplug__nvptx_work *w, const cuplug__nvptx_args *a) {
  memset(w, 0, sizeof *w);
  w->args = a;
  cuplug__buf_init(&w->log);
  cuplug__buf_puts(&w->log, "");
  w->ctx = LLVMContextCreate();
  if (!w->ctx || w->log.oom) return cuplug__nvptx_fail(w, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  LLVMContextSetDiagnosticHandler(w->ctx, diagnose, w);
  return 0;
}

void cuplug__nvptx_work_end(cuplug__nvptx_work *w) {
  if (w->mod) LLVMDisposeModule(w->mod);
  if (w->tm) LLVMDisposeTargetMachine(w->tm);
  if (w->ctx) LLVMContextDispose(w->ctx);
  free(w->first_error);
  w->mod = NULL;
  w->tm = NULL;
  w->ctx = NULL;
  w->first_error = NULL;
}

int cuplug__nvptx_fail(cuplug__nvptx_work *w, int status, const char *fmt, ...) {
  if (w->status) return w->status;
  cuplug__buf b;
  cuplug__buf_init(&b);
  va_list ap;
  va_start(ap, fmt);
  cuplug__buf_vprintf(&b, fmt, ap);
  va_end(ap);
  w->status = b.oom ? CUPLUG_ERR_OUT_OF_MEMORY : status;
  w->msg = cuplug__buf_take(&b, NULL);
  return w->status;
}

int cuplug__nvptx_check_errors(cuplug__nvptx_work *w) {
  if (!w->errors) return w->status;
  return cuplug__nvptx_fail(w, CUPLUG_ERR_NVPTX, "LLVM's NVPTX backend failed to compile %s: %s",
                            w->args->name ? w->args->name : "the module",
                            w->first_error ? w->first_error : "out of memory");
}
