/* work.h - one compilation in libcuplug-nvptx.so: what its steps share,
 * and LLVM's diagnostics, collected into a log.
 *
 * LLVM reports errors it can go on from (an inline-assembly constraint it
 * cannot allocate, say) as diagnostics and then goes on: emitting can
 * return success after one.  So every diagnostic goes into the log, and
 * the work counts the errors itself: one error fails the compile. */
#ifndef CUPLUG__PLUGIN_NVPTX_WORK_H
#define CUPLUG__PLUGIN_NVPTX_WORK_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "base/buf.h"
#include "plugin/nvptx/nvptx.h"

typedef struct cuplug__nvptx_work {
  const cuplug__nvptx_args *args;
  LLVMContextRef ctx; /* its own: compiles may run on several threads */
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  cuplug__buf log;    /* "error: ...", "warning: ..." lines */
  unsigned errors;    /* error diagnostics so far */
  char *first_error;  /* the first one's text */
  int status;         /* the first failure's (0: none yet) */
  char *msg;
} cuplug__nvptx_work;

/* A compile's work, with its context, its diagnostics going to the log. */
int cuplug__nvptx_work_init(cuplug__nvptx_work *w, const cuplug__nvptx_args *a);
/* Disposes of what LLVM made; the log and message stay. */
void cuplug__nvptx_work_end(cuplug__nvptx_work *w);

/* Records a failure (the first one wins) and returns its status. */
int cuplug__nvptx_fail(cuplug__nvptx_work *w, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* CUPLUG_ERR_NVPTX with the first error diagnostic, if there was one. */
int cuplug__nvptx_check_errors(cuplug__nvptx_work *w);

#endif
