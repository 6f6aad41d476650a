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

#include <llvm-c/Analysis.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Support.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"

static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void llvm_setup(void) {
  /* A module that carries debug info and fails LLVM's verifier would make
   * the parser's debug-info upgrade abort the process; cuplug reports
   * problems itself. */
  const char *argv[] = {"cuplug", "-disable-auto-upgrade-debug-info"};
  LLVMParseCommandLineOptions(2, argv, NULL);
}

/* The plugin is being unloaded: LLVM frees what it keeps for the process
 * (it cannot be used again, and will not be). */
__attribute__((destructor)) static void llvm_unload(void) { LLVMShutdown(); }

static void ignore_diagnostic(LLVMDiagnosticInfoRef info, void *ctx) {
  (void)info;
  (void)ctx;
}

/* The first line of LLVM's message, trimmed. */
static char *first_line(const char *msg) {
  size_t n = strcspn(msg, "\n");
  return cuplug__strndup(msg, n);
}

static cuplug_error *parse(LLVMContextRef ctx, const cuplug__text *m, LLVMModuleRef *out) {
  /* the text is NUL-terminated and outlives the parse: no copy */
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(m->text, m->size, m->name, 1);
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, buf, out, &msg)) {
    char *line = first_line(msg ? msg : "");
    cuplug_error *e = cuplug__error_log(CUPLUG_ERR_IR_PARSE, msg,
                                        "IR does not parse: %s", line ? line : "");
    free(line);
    LLVMDisposeMessage(msg);
    return e;
  }
  /* What parses may still break LLVM's rules (a value used before it is
   * defined, a block without a terminator); libNVVM must never see it. */
  if (LLVMVerifyModule(*out, LLVMReturnStatusAction, &msg)) {
    char *line = first_line(msg ? msg : "");
    cuplug_error *e = cuplug__error_log(CUPLUG_ERR_IR_INVALID, msg,
                                        "IR of module %s is not valid: %s", m->name,
                                        line ? line : "");
    free(line);
    LLVMDisposeMessage(msg);
    return e;
  }
  LLVMDisposeMessage(msg);
  return NULL;
}

static bool same_type(LLVMTypeRef a, LLVMTypeRef b) {
  if (a == b) return true;
  LLVMTypeKind k = LLVMGetTypeKind(a);
  if (k != LLVMGetTypeKind(b)) return false;
  switch (k) {
    case LLVMIntegerTypeKind:
      return LLVMGetIntTypeWidth(a) == LLVMGetIntTypeWidth(b);
    case LLVMPointerTypeKind:
      return LLVMGetPointerAddressSpace(a) == LLVMGetPointerAddressSpace(b);
    case LLVMStructTypeKind: {
      unsigned n = LLVMCountStructElementTypes(a);
      if (n != LLVMCountStructElementTypes(b)) return false;
      for (unsigned i = 0; i < n; i++)
        if (!same_type(LLVMStructGetTypeAtIndex(a, i), LLVMStructGetTypeAtIndex(b, i)))
          return false;
      return true;
    }
    case LLVMArrayTypeKind:
      return LLVMGetArrayLength2(a) == LLVMGetArrayLength2(b) &&
             same_type(LLVMGetElementType(a), LLVMGetElementType(b));
    case LLVMVectorTypeKind:
      return LLVMGetVectorSize(a) == LLVMGetVectorSize(b) &&
             same_type(LLVMGetElementType(a), LLVMGetElementType(b));
    default:
      return true; /* same kind of float, void, ... */
  }
}

/* "parameter 3 (part 2 of argument 1, float32[::1])" */
static void describe_param(cuplug__buf *b, const cuplug_type *sig, cuplug_abi abi,
                           unsigned index) {
  cuplug__buf_printf(b, "parameter %u", index);
  if (abi == CUPLUG_ABI_NUMBA) {
    if (index == 0) {
      cuplug__buf_puts(b, " (the return slot)");
      return;
    }
    index--;
  }
  for (size_t a = 0; a < sig->nargs; a++) {
    const cuplug__lowered *l =
        cuplug__type_lowered(sig->args[a], abi, CUPLUG_POSITION_ARGUMENT);
    if (index < l->num_parts) {
      if (l->num_parts > 1)
        cuplug__buf_printf(b, " (part %u of argument %zu, %s)", index, a, sig->args[a]->name);
      else
        cuplug__buf_printf(b, " (argument %zu, %s)", a, sig->args[a]->name);
      return;
    }
    index -= (unsigned)l->num_parts;
  }
}

static void put_llvm_type(cuplug__buf *b, LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  cuplug__buf_puts(b, s);
  LLVMDisposeMessage(s);
}

/* Does fn's type match sig under abi?  `what` names fn in the message
 * ("entry @f"), `code` is the error's. */
static cuplug_error *check_type(LLVMContextRef ctx, LLVMValueRef fn, const char *what,
                                const cuplug_type *sig, cuplug_abi abi, cuplug_status code) {
  const cuplug__lowered *want = cuplug__type_lowered(sig, abi, CUPLUG_POSITION_ARGUMENT);
  /* The expected type, read by LLVM from cuplug's own text. */
  cuplug__buf decl;
  cuplug__buf_init(&decl);
  const char *ret_end = strchr(want->ir_type, '(');
  cuplug__buf_append(&decl, "declare ", 8);
  cuplug__buf_append(&decl, want->ir_type, (size_t)(ret_end - want->ir_type));
  cuplug__buf_puts(&decl, "@expected");
  cuplug__buf_puts(&decl, ret_end);
  cuplug__buf_putc(&decl, '\n');
  if (decl.oom) return cuplug__error_oom();
  LLVMModuleRef em = NULL;
  cuplug__text t = {"expected", decl.data, decl.len};
  cuplug_error *e = parse(ctx, &t, &em);
  cuplug__buf_free(&decl);
  if (e) {
    cuplug__error_destroy(e);
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "cannot express signature '%s' as an LLVM type", sig->name);
  }
  LLVMTypeRef expect = LLVMGlobalGetValueType(LLVMGetNamedFunction(em, "expected"));
  LLVMTypeRef found = LLVMGlobalGetValueType(fn);

  cuplug__buf why;
  cuplug__buf_init(&why);
  unsigned nf = LLVMCountParamTypes(found), ne = LLVMCountParamTypes(expect);
  if (!same_type(LLVMGetReturnType(found), LLVMGetReturnType(expect))) {
    cuplug__buf_puts(&why, "the return type is ");
    put_llvm_type(&why, LLVMGetReturnType(found));
    cuplug__buf_puts(&why, ", expected ");
    put_llvm_type(&why, LLVMGetReturnType(expect));
  } else if (nf != ne || LLVMIsFunctionVarArg(found)) {
    cuplug__buf_printf(&why, "it has %u parameters%s, expected %u", nf,
                       LLVMIsFunctionVarArg(found) ? " and varargs" : "", ne);
  } else {
    LLVMTypeRef *pf = malloc(sizeof(LLVMTypeRef) * (nf ? nf : 1));
    LLVMTypeRef *pe = malloc(sizeof(LLVMTypeRef) * (ne ? ne : 1));
    if (!pf || !pe) {
      free(pf);
      free(pe);
      LLVMDisposeModule(em);
      return cuplug__error_oom();
    }
    LLVMGetParamTypes(found, pf);
    LLVMGetParamTypes(expect, pe);
    for (unsigned i = 0; i < nf; i++) {
      if (same_type(pf[i], pe[i])) continue;
      describe_param(&why, sig, abi, i);
      cuplug__buf_puts(&why, " is ");
      put_llvm_type(&why, pf[i]);
      cuplug__buf_puts(&why, ", expected ");
      put_llvm_type(&why, pe[i]);
      break;
    }
    free(pf);
    free(pe);
  }
  e = NULL;
  if (why.len) {
    cuplug__buf ft;
    cuplug__buf_init(&ft);
    put_llvm_type(&ft, found);
    e = cuplug__error(code,
                      "%s does not match signature '%s' under the %s ABI: %s "
                      "(found %s, expected %s)",
                      what, sig->name, abi == CUPLUG_ABI_C ? "C" : "Numba", why.data,
                      ft.data ? ft.data : "?", want->ir_type);
    cuplug__buf_free(&ft);
  }
  cuplug__buf_free(&why);
  LLVMDisposeModule(em);
  return e;
}

/* Names a few functions the modules define, for a missing-entry message. */
static void list_defined(cuplug__buf *b, LLVMModuleRef *mods, size_t n) {
  int shown = 0;
  for (size_t i = 0; i < n; i++) {
    for (LLVMValueRef f = LLVMGetFirstFunction(mods[i]); f; f = LLVMGetNextFunction(f)) {
      if (LLVMIsDeclaration(f)) continue;
      if (shown == 4) {
        cuplug__buf_puts(b, ", ...");
        return;
      }
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      cuplug__buf_printf(b, "%s@%.*s", shown ? ", " : "", (int)len, name);
      shown++;
    }
  }
  if (!shown) cuplug__buf_puts(b, "no functions");
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
    CUPLUG__TRY(check_type(ctx, f, what, d.sig, d.abi, CUPLUG_ERR_DECLARATION_MISMATCH));
  }
  return NULL;
}

cuplug_error *cuplug__validate(const cuplug__text *modules, size_t num_modules,
                               const char *entry, const cuplug_type *sig, cuplug_abi abi,
                               cuplug__declared_fn declared, void *lookup_ctx,
                               size_t *entry_module) {
  pthread_once(&llvm_once, llvm_setup);
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
    list_defined(&b, mods, num_modules);
    e = cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND,
                      "entry @%s is %s in the %zu module(s) given; they define %s", entry,
                      entry_declared ? "declared but not defined" : "not defined", num_modules,
                      b.data ? b.data : "");
    cuplug__buf_free(&b);
  }
  if (!e && sig) {
    char what[1024];
    snprintf(what, sizeof what, "entry @%s", entry);
    e = check_type(ctx, fn, what, sig, abi, CUPLUG_ERR_ENTRY_MISMATCH);
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
  pthread_once(&llvm_once, llvm_setup);
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
    list_defined(&b, &m, 1);
    e = cuplug__error(CUPLUG_ERR_LOWERING,
                      "the lowering of %s for %s does not define the symbol @%s it promises; "
                      "its IR defines %s",
                      key, sig->name, symbol, b.data ? b.data : "");
    cuplug__buf_free(&b);
  }
  if (!e) {
    char what[1024];
    snprintf(what, sizeof what, "the lowering of %s: @%s", key, symbol);
    e = check_type(ctx, fn, what, sig, abi, CUPLUG_ERR_LOWERING);
  }
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return e;
}
