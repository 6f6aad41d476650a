/* validate.c - checking the input IR with LLVM before libNVVM sees it.
 *
 * LLVM 22 reads the typed-pointer text of NVVM IR (it upgrades it to opaque
 * pointers), so it can tell early, with a line and column, that a module
 * does not parse, that the entry is missing, or that the entry's type is
 * not what its signature says.  Pointers come back opaque, so the check is
 * on pointer-ness, not pointee types: the pipeline checks the types in the
 * text first (lowering/sigcheck.c), and asks LLVM only for those it could
 * not read.  Nothing LLVM produces goes on to libNVVM. */
#include "plugin/llvm/validate.h"

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/llvm/asm_guard.h"
#include "base/types.h"
#include "plugin/llvm/fntype.h"
#include "plugin/llvm/setup.h"
#include "plugin/llvm/verify.h"

static void ignore_diagnostic(LLVMDiagnosticInfoRef info, void *ctx) {
  (void)info;
  (void)ctx;
}

static cuplug_error *parse(LLVMContextRef ctx, const cuplug__text *m, LLVMModuleRef *out) {
  CUPLUG__TRY(cuplug__llvm_check_asm(m->name, m->text, m->size));
  /* the text is NUL-terminated and outlives the parse: no copy */
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(m->text, m->size, m->name, 1);
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, buf, out, &msg))
    return cuplug__llvm_error(CUPLUG_ERR_IR_PARSE, msg, "IR does not parse");
  /* What parses may still break LLVM's rules (a value used before it is
   * defined, a block without a terminator); libNVVM must never see it. */
  return cuplug__llvm_verify(*out, m->name);
}

/* Checks the module's declarations of registered functions. */
static cuplug_error *check_declarations(LLVMContextRef ctx, LLVMModuleRef m,
                                        cuplug__declared_fn declared, void *lookup_ctx) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f)) continue;
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    cuplug__declared d;
    if (!declared(lookup_ctx, name, len, &d)) continue;
    char what[1024];
    if (strlen(d.key) == len && strncmp(d.key, name, len) == 0)
      snprintf(what, sizeof what, "the IR's declaration of @%.*s", (int)len, name);
    else
      snprintf(what, sizeof what, "the IR's declaration of @%.*s (%s)", (int)len, name, d.key);
    CUPLUG__TRY(cuplug__llvm_check_type(ctx, f, what, d.sig, d.abi, false,
                                        CUPLUG_ERR_DECLARATION_MISMATCH));
  }
  return NULL;
}

cuplug_error *cuplug__validate(const cuplug__text *modules, size_t num_modules,
                               const char *entry, const cuplug_type *sig, cuplug_abi abi,
                               cuplug__declared_fn declared, void *lookup_ctx,
                               size_t *entry_module) {
  cuplug__llvm_setup();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(ctx, ignore_diagnostic, NULL);
  LLVMModuleRef *mods = calloc(num_modules, sizeof *mods);
  cuplug_error *e = mods ? NULL : cuplug__error_oom();
  LLVMValueRef fn = NULL;
  bool entry_declared = false;
  for (size_t i = 0; i < num_modules && !e; i++) {
    e = parse(ctx, &modules[i], &mods[i]);
    if (e) break;
    LLVMValueRef f = LLVMGetNamedFunction(mods[i], entry);
    if (f && !LLVMIsDeclaration(f) && !fn) {
      fn = f;
      *entry_module = i;
    } else if (f) {
      entry_declared = true;
    }
  }
  if (!e && !fn) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    cuplug__llvm_list_defined(&b, mods, num_modules);
    e = cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND,
                      "entry @%s is %s in the %zu module(s) given; they define %s", entry,
                      entry_declared ? "declared but not defined" : "not defined", num_modules,
                      b.data ? b.data : "");
    cuplug__buf_free(&b);
  }
  if (!e && sig) {
    char what[1024];
    snprintf(what, sizeof what, "entry @%s", entry);
    e = cuplug__llvm_check_type(ctx, fn, what, sig, abi, false, CUPLUG_ERR_ENTRY_MISMATCH);
  }
  for (size_t i = 0; !e && declared && i < num_modules; i++)
    e = check_declarations(ctx, mods[i], declared, lookup_ctx);
  for (size_t i = 0; mods && i < num_modules; i++)
    if (mods[i]) LLVMDisposeModule(mods[i]);
  free(mods);
  LLVMContextDispose(ctx);
  return e;
}

cuplug_error *cuplug__validate_lowering(const cuplug__text *module, const char *key,
                                        const char *symbol, const cuplug_type *sig,
                                        cuplug_abi abi) {
  cuplug__llvm_setup();
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(ctx, ignore_diagnostic, NULL);
  LLVMModuleRef m = NULL;
  cuplug_error *e = parse(ctx, module, &m);
  if (e) {
    cuplug_error *l = cuplug__error_log(CUPLUG_ERR_LOWERING, e->log,
                                        "the lowering of %s for %s: %s", key, sig->name,
                                        e->message);
    cuplug__error_destroy(e);
    e = l;
  }
  LLVMValueRef fn = m ? LLVMGetNamedFunction(m, symbol) : NULL;
  if (!e && (!fn || LLVMIsDeclaration(fn))) {
    cuplug__buf b;
    cuplug__buf_init(&b);
    cuplug__llvm_list_defined(&b, &m, 1);
    e = cuplug__error(CUPLUG_ERR_LOWERING,
                      "the lowering of %s for %s does not define the symbol @%s it promises; "
                      "its IR defines %s",
                      key, sig->name, symbol, b.data ? b.data : "");
    cuplug__buf_free(&b);
  }
  if (!e) {
    char what[1024];
    snprintf(what, sizeof what, "the lowering of %s: @%s", key, symbol);
    e = cuplug__llvm_check_type(ctx, fn, what, sig, abi, false, CUPLUG_ERR_LOWERING);
  }
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return e;
}
