/* verify.h - LLVM's verifier, on modules a user passed, and its messages. */
#ifndef CUPLUG__PLUGIN_LLVM_VERIFY_H
#define CUPLUG__PLUGIN_LLVM_VERIFY_H

#include <llvm-c/Core.h>

#include "cuplug/cuplug.h"

/* Checks the module's debug-info chains (debug_chains.h), which LLVM's
 * verifier would follow without looking, then runs the verifier.
 * Errors: CUPLUG_ERR_IR_INVALID, naming the module `name`, with the first
 * line of the verifier's message (all of it in the log). */
cuplug_error *cuplug__llvm_verify(LLVMModuleRef m, const char *name);

/* An error "<what>: <the first line of LLVM's message>", all of the message
 * in its log; takes msg (LLVM's, NULL for none) and disposes of it. */
cuplug_error *cuplug__llvm_error(cuplug_status code, char *msg, const char *what);

#endif
