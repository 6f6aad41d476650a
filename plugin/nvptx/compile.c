/* compile.c - one module to PTX, as a list of steps read top to bottom. */
#include "plugin/nvptx/compile.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/IRReader.h>
#include <stdlib.h>
#include <string.h>

#include "cuplug/cuplug.h"
#include "plugin/nvptx/codegen.h"
#include "plugin/nvptx/edit.h"
#include "plugin/nvptx/work.h"

/* Text or bitcode, LLVM 7 to 22: the reader tells them apart and upgrades
 * the old (typed pointers, "kernel" annotations) as it reads. */
static int parse(cuplug__nvptx_work *w) {
  const cuplug__nvptx_args *a = w->args;
  /* a copy: the text reader wants a NUL after the last byte */
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(a->module, a->size, a->name);
  if (!buf) return cuplug__nvptx_fail(w, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  char *why = NULL;
  LLVMBool bad = LLVMParseIRInContext2(w->ctx, buf, &w->mod, &why);
  LLVMDisposeMemoryBuffer(buf);
  if (bad) {
    /* the message, then the line and a caret under the place: the log */
    cuplug__buf_printf(&w->log, "%s\n", why ? why : "");
    char *nl = why ? strchr(why, '\n') : NULL;
    if (nl) *nl = '\0';
    cuplug__nvptx_fail(w, CUPLUG_ERR_IR_PARSE, "LLVM 22 cannot read %s: %s", a->name,
                       why && *why ? why : "no reason given");
    LLVMDisposeMessage(why);
    w->mod = NULL;
  }
  return w->status;
}

/* After libdevice's linking and the edits: the optimiser and the code
 * generator assume valid IR, and crash on the rest. */
static int verify(cuplug__nvptx_work *w) {
  char *why = NULL;
  if (!LLVMVerifyModule(w->mod, LLVMReturnStatusAction, &why)) {
    LLVMDisposeMessage(why);
    return 0;
  }
  cuplug__buf_puts(&w->log, why ? why : "");
  char *nl = why ? strchr(why, '\n') : NULL;
  if (nl) *nl = '\0';
  cuplug__nvptx_fail(w, CUPLUG_ERR_IR_INVALID, "%s is not valid IR: %s", w->args->name,
                     why && *why ? why : "the verifier gave no reason");
  LLVMDisposeMessage(why);
  return w->status;
}

static int (*const steps[])(cuplug__nvptx_work *) = {
    parse,                        /* text or bitcode, upgraded */
    cuplug__nvptx_target,         /* the processor, triple and data layout */
    cuplug__nvptx_link_libdevice, /* the __nv_ functions it calls */
    cuplug__nvptx_reflect,        /* __CUDA_FTZ, __CUDA_PREC_SQRT */
    cuplug__nvptx_fp_flags,       /* contraction, fastmath */
    cuplug__nvptx_internalize,    /* all but the entries */
    cuplug__nvptx_debug_info,     /* what debug and lineinfo keep */
    verify,
    cuplug__nvptx_optimise,       /* default<On> with the target machine */
};

int cuplug__nvptx_to_text(const cuplug__nvptx_args *a, char **text, size_t *text_size,
                          char **log, char **msg) {
  *text = *log = *msg = NULL;
  *text_size = 0;
  cuplug__nvptx_args named = *a;
  if (!named.name) named.name = "the module";
  cuplug__nvptx_work w;
  int status = cuplug__nvptx_work_init(&w, &named);
  if (!status) status = parse(&w);
  if (!status) {
    char *printed = LLVMPrintModuleToString(w.mod);
    *text_size = strlen(printed);
    *text = malloc(*text_size + 1);
    if (*text) memcpy(*text, printed, *text_size + 1);
    else status = CUPLUG_ERR_OUT_OF_MEMORY;
    LLVMDisposeMessage(printed);
  }
  cuplug__nvptx_work_end(&w);
  *log = cuplug__buf_take(&w.log, NULL);
  *msg = w.msg;
  return status;
}

int cuplug__nvptx_compile_module(const cuplug__nvptx_args *a, char **ptx, size_t *ptx_size,
                                 char **log, char **msg) {
  *ptx = *log = *msg = NULL;
  *ptx_size = 0;
  cuplug__nvptx_args named = *a;
  if (!named.name) named.name = "the module";
  cuplug__nvptx_work w;
  int status = cuplug__nvptx_work_init(&w, &named);
  for (size_t i = 0; !status && i < sizeof steps / sizeof steps[0]; i++) status = steps[i](&w);
  if (!status) status = cuplug__nvptx_emit(&w, ptx, ptx_size);
  cuplug__nvptx_work_end(&w);
  *log = cuplug__buf_take(&w.log, NULL);
  if (!status && !*log) {
    free(*ptx);
    *ptx = NULL;
    status = CUPLUG_ERR_OUT_OF_MEMORY;
  }
  *msg = w.msg;
  return status;
}
