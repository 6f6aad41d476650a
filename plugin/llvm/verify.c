/* verify.c - LLVM's verifier, after the debug-info chains it trusts, and
 * LLVM's messages as cuplug's errors. */
#include "plugin/llvm/verify.h"

#include <llvm-c/Analysis.h>
#include <stdio.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/llvm/debug_chains.h"

/* What is wrong with the chain, in the words of the IR text. */
static void describe(const cuplug__chain_finding *f, char *out, size_t cap) {
  char node[64];
  if (f->line)
    snprintf(node, sizeof node, "a %s (line %u)", f->node, f->line);
  else
    snprintf(node, sizeof node, "a %s", f->node);
  static const char local[] = "a !DISubprogram, !DILexicalBlock or !DILexicalBlockFile";
  switch (f->fault) {
    case CUPLUG__CHAIN_INLINED_AT_CYCLE:
      snprintf(out, cap, "the inlinedAt locations of %s lead back to it (a cycle of %u), "
               "where they must end", node, f->cycle);
      return;
    case CUPLUG__CHAIN_SCOPE_CYCLE:
      snprintf(out, cap, "the scopes of %s lead back to it (a cycle of %u), where they must "
               "end at a !DISubprogram", node, f->cycle);
      return;
    case CUPLUG__CHAIN_BAD_INLINED_AT:
      snprintf(out, cap, "%s is inlined at a %s, where it must be a !DILocation", node, f->link);
      return;
    case CUPLUG__CHAIN_BAD_SCOPE:
    case CUPLUG__CHAIN_OK:
      if (!f->link)
        snprintf(out, cap, "%s has no scope, where it must have %s", node, local);
      else
        snprintf(out, cap, "the scope of %s is a %s, where it must be %s", node, f->link, local);
      return;
  }
}

static cuplug_error *chain_error(const char *name, const cuplug__chain_finding *f) {
  char what[256];
  describe(f, what, sizeof what);
  if (f->fn_len)
    return cuplug__error(CUPLUG_ERR_IR_INVALID,
                         "IR of module %s is not valid: in the debug info of @%.*s, %s", name,
                         (int)f->fn_len, f->fn, what);
  return cuplug__error(CUPLUG_ERR_IR_INVALID,
                       "IR of module %s is not valid: in the module's debug info, %s", name,
                       what);
}

cuplug_error *cuplug__llvm_error(cuplug_status code, char *msg, const char *what) {
  const char *text = msg ? msg : "";
  cuplug_error *e =
      cuplug__error_log(code, text, "%s: %.*s", what, (int)strcspn(text, "\n"), text);
  LLVMDisposeMessage(msg);
  return e;
}

cuplug_error *cuplug__llvm_verify(LLVMModuleRef m, const char *name) {
  cuplug__chain_finding f;
  if (!cuplug__debug_chains_check(m, &f)) return chain_error(name, &f);
  char *msg = NULL;
  if (!LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    LLVMDisposeMessage(msg);
    return NULL;
  }
  cuplug__buf what;
  cuplug__buf_init(&what);
  cuplug__buf_printf(&what, "IR of module %s is not valid", name);
  if (what.oom) {
    LLVMDisposeMessage(msg);
    return cuplug__error_oom();
  }
  cuplug_error *e = cuplug__llvm_error(CUPLUG_ERR_IR_INVALID, msg, what.data);
  cuplug__buf_free(&what);
  return e;
}
