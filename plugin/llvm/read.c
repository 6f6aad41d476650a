/* read.c - modern IR into one LLVM module: each module parsed (text of
 * either dialect, or bitcode), checked, and linked with the others; the
 * registry's implementations linked in later; what the module declares.
 *
 * Bitcode is looked at before LLVM reads it (bitcode.c): bitcode from a
 * newer LLVM may fail with a message that names no version, or may even
 * read, and bitcode cut short fails as a malformed block.  Each module is
 * verified on its own, so that the verifier's finding names the module it
 * is in. */
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "plugin/llvm/asm_guard.h"
#include "plugin/llvm/bitcode.h"
#include "plugin/llvm/spaces.h"
#include "plugin/llvm/internal.h"
#include "plugin/llvm/setup.h"
#include "plugin/llvm/verify.h"

static void on_diagnostic(LLVMDiagnosticInfoRef info, void *arg) {
  cuplug__modern *m = arg;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || m->diag) return;
  char *d = LLVMGetDiagInfoDescription(info);
  m->diag = cuplug__strdup(d ? d : "");
  LLVMDisposeMessage(d);
}

char *cuplug__modern_take_diag(cuplug__modern *m) {
  char *d = m->diag;
  m->diag = NULL;
  return d;
}

/* Where bitcode ends short of what it must hold, as words for a message
 * ("inside a block that runs to byte 96"), or NULL. */
static const char *cut_short(const cuplug__bitcode_info *bi, char *buf, size_t cap) {
  if (bi->truncated && !bi->needed) return "inside the header of a block";
  if (bi->truncated) {
    snprintf(buf, cap, "inside a block that runs to byte %zu", bi->needed);
    return buf;
  }
  if (!bi->has_module && (bi->num_blocks == 0 || bi->major >= 5)) return "before its module";
  if (bi->has_module && !bi->has_strtab && bi->major >= 5)
    return "before the string table that follows its module";
  return NULL;
}

/* Newer or truncated bitcode, named before LLVM tries it. */
cuplug_error *cuplug__modern_check_bitcode(const cuplug__text *t) {
  cuplug__bitcode_info bi;
  cuplug__bitcode_scan(t->text, t->size, &bi);
  char buf[96];
  const char *where = cut_short(&bi, buf, sizeof buf);
  if (where)
    return cuplug__error(CUPLUG_ERR_IR_PARSE,
                         "IR module %s is truncated bitcode: it ends at byte %zu, %s", t->name,
                         t->size, where);
  unsigned major, minor, patch;
  LLVMGetVersion(&major, &minor, &patch);
  if (bi.major > (int)major)
    return cuplug__error(CUPLUG_ERR_IR_VERSION,
                         "IR module %s is bitcode from LLVM %d.%d.%d, newer than the LLVM "
                         "%u.%u.%u cuplug reads it with: write it with LLVM %u or older, or "
                         "give it as text",
                         t->name, bi.major, bi.minor, bi.patch, major, minor, patch, major);
  if (bi.hidden_body)
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                         "IR module %s (bitcode): its symbol table places a function's body "
                         "outside the module's blocks, where cuplug cannot check it (LLVM "
                         "writes no such file)",
                         t->name);
  if (!bi.walked)
    return cuplug__error(CUPLUG_ERR_IR_PARSE,
                         "IR module %s is malformed bitcode: its blocks do not read through "
                         "as LLVM writes them, and cuplug does not hand such bitcode to LLVM's "
                         "reader (which crashes on some)",
                         t->name);
  if (bi.bad_asm)
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                         "IR module %s (bitcode): an inline asm constraint string \"%s\" uses "
                         "'%c', a kind of constraint NVPTX does not have",
                         t->name, bi.asm_constraints, bi.asm_code);
  return NULL;
}

static cuplug_error *check_target(const cuplug__text *t, LLVMModuleRef mod) {
  const char *triple = LLVMGetTarget(mod);
  if (!*triple || strcmp(triple, "nvptx64-nvidia-cuda") == 0 ||
      strcmp(triple, "nvptx-nvidia-cuda") == 0)
    return NULL;
  return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                       "IR module %s targets %s: cuplug compiles IR for nvptx64-nvidia-cuda "
                       "or nvptx-nvidia-cuda, or IR that names no target",
                       t->name, triple);
}

/* Parses one module into m's context, and checks it. */
static cuplug_error *parse(cuplug__modern *m, const cuplug__text *t, LLVMModuleRef *out) {
  bool bitcode = cuplug__is_bitcode(t->text, t->size);
  if (bitcode) CUPLUG__TRY(cuplug__modern_check_bitcode(t));
  else CUPLUG__TRY(cuplug__llvm_check_asm(t->name, t->text, t->size));
  /* LLVM's lexer needs a NUL after the text: text is copied, bitcode not */
  LLVMMemoryBufferRef mb =
      bitcode ? LLVMCreateMemoryBufferWithMemoryRange(t->text, t->size, t->name, 0)
              : LLVMCreateMemoryBufferWithMemoryRangeCopy(t->text, t->size, t->name);
  char *msg = NULL;
  bool failed = LLVMParseIRInContext2(m->ctx, mb, out, &msg);
  LLVMDisposeMemoryBuffer(mb);
  if (failed) {
    *out = NULL;
    return cuplug__llvm_error(CUPLUG_ERR_IR_PARSE, msg, "IR does not parse");
  }
  LLVMDisposeMessage(msg);
  cuplug_error *e = check_target(t, *out);
  if (!e) e = cuplug__llvm_verify(*out, t->name);
  if (e) {
    LLVMDisposeModule(*out);
    *out = NULL;
  }
  return e;
}

/* Links src into m (src is gone after); `what` names it for the error. */
static cuplug_error *link_into(cuplug__modern *m, LLVMModuleRef src, const char *what) {
  free(cuplug__modern_take_diag(m)); /* the linker's error is the one to tell */
  if (!LLVMLinkModules2(m->mod, src)) return NULL;
  char *d = cuplug__modern_take_diag(m);
  cuplug_error *e = cuplug__error(CUPLUG_ERR_IR_INVALID, "%s does not link with the modules "
                                  "before it: %s", what, d ? d : "the linker failed");
  free(d);
  return e;
}

cuplug_error *cuplug__modern_read(const cuplug__text *mods, size_t num, bool for_cpu,
                                  cuplug__modern **out) {
  *out = NULL;
  if (!num) return cuplug__error(CUPLUG_ERR_IR_EMPTY, "compile: no IR modules given");
  cuplug__llvm_setup();
  cuplug__modern *m = calloc(1, sizeof *m);
  if (!m) return cuplug__error_oom();
  m->ctx = LLVMContextCreate();
  m->num_inputs = num;
  m->for_cpu = for_cpu;
  LLVMContextSetDiagnosticHandler(m->ctx, on_diagnostic, m);
  cuplug_error *e = parse(m, &mods[0], &m->mod);
  for (size_t i = 1; i < num && !e; i++) {
    LLVMModuleRef src;
    e = parse(m, &mods[i], &src);
    if (e) break;
    cuplug__buf what;
    cuplug__buf_init(&what);
    cuplug__buf_printf(&what, "IR module %s", mods[i].name);
    e = what.oom ? cuplug__error_oom() : link_into(m, src, what.data);
    if (what.oom) LLVMDisposeModule(src);
    cuplug__buf_free(&what);
  }
  if (e) {
    cuplug__modern_free(m);
    return e;
  }
  *out = m;
  return NULL;
}

void cuplug__modern_free(cuplug__modern *m) {
  if (!m) return;
  for (size_t i = 0; i < m->num_declared; i++) free(m->declared[i]);
  free(m->declared);
  free(m->diag);
  if (m->mod) LLVMDisposeModule(m->mod);
  LLVMContextDispose(m->ctx);
  free(m);
}

static bool is_intrinsic(LLVMValueRef fn) {
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  return LLVMGetIntrinsicID(fn) != 0 || (len > 5 && memcmp(name, "llvm.", 5) == 0);
}

cuplug_error *cuplug__modern_declared(cuplug__modern *m, const char *const **names,
                                      size_t *num) {
  for (size_t i = 0; i < m->num_declared; i++) free(m->declared[i]);
  m->num_declared = 0;
  size_t cap = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f)) {
    if (!LLVMIsDeclaration(f) || is_intrinsic(f)) continue;
    if (m->num_declared == cap) {
      cap = cap ? 2 * cap : 16;
      char **v = realloc(m->declared, cap * sizeof *v);
      if (!v) return cuplug__error_oom();
      m->declared = v;
    }
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (!(m->declared[m->num_declared] = cuplug__strndup(name, len))) return cuplug__error_oom();
    m->num_declared++;
  }
  *names = (const char *const *)m->declared;
  *num = m->num_declared;
  return NULL;
}

/* An implementation's definitions, ready to join: see modern.h. */
static void linkonce_definitions(cuplug__modern *m, LLVMModuleRef src) {
  for (LLVMValueRef f = LLVMGetFirstFunction(src); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    LLVMLinkage l = LLVMGetLinkage(f);
    if (l == LLVMExternalLinkage) {
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
    } else if (l == LLVMInternalLinkage || l == LLVMPrivateLinkage) {
      size_t len;
      const char *name = LLVMGetValueName2(f, &len);
      LLVMValueRef d = LLVMGetNamedFunction(m->mod, name);
      if (d && LLVMIsDeclaration(d)) {
        LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
        LLVMSetVisibility(f, LLVMDefaultVisibility);
      }
    }
  }
}

cuplug_error *cuplug__modern_link(cuplug__modern *m, const cuplug__text *mod) {
  LLVMModuleRef src;
  CUPLUG__TRY(parse(m, mod, &src));
  linkonce_definitions(m, src);
  cuplug__buf what;
  cuplug__buf_init(&what);
  cuplug__buf_printf(&what, "the IR of %s", mod->name);
  if (what.oom) {
    LLVMDisposeModule(src);
    return cuplug__error_oom();
  }
  cuplug_error *e = link_into(m, src, what.data);
  cuplug__buf_free(&what);
  return e;
}

bool cuplug__modern_uses_libdevice(cuplug__modern *m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m->mod); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (LLVMIsDeclaration(f) && len > 5 && memcmp(name, "__nv_", 5) == 0) return true;
  }
  return false;
}

static bool nvptx_space(unsigned as) { return as <= 7 ? as != 2 : as == 101; }
static bool libnvvm_space(unsigned as) { return as <= 5 && as != 2; }

cuplug_error *cuplug__modern_check_spaces(cuplug__modern *m, bool libnvvm) {
  LLVMValueRef where = NULL;
  unsigned as = cuplug__llvm_foreign_space(m->mod, libnvvm ? libnvvm_space : nvptx_space, &where);
  if (!as) return NULL;
  size_t len;
  const char *name = LLVMGetValueName2(where, &len);
  return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                       "@%.*s uses address space %u, which %s lacks (it has generic 0, global 1, "
                       "shared 3, constant 4, local 5%s)",
                       (int)len, name, as, libnvvm ? "libNVVM" : "LLVM's NVPTX backend",
                       libnvvm ? "" : ", tensor memory 6, cluster shared 7 and parameter 101");
}
