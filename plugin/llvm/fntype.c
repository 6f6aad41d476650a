/* fntype.c - a function's LLVM type against a cuplug signature: the
 * validator's check of the text pipeline's IR, and the modern pipeline's
 * check of its entry and the types of the C-ABI wrapper it builds. */
#include "plugin/llvm/fntype.h"

#include <llvm-c/IRReader.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"

static const char *matching_open(const char *ir) {
  const char *close = strrchr(ir, ')');
  int level = 0;
  for (const char *c = close; c && c >= ir; c--) {
    level += *c == ')' ? 1 : *c == '(' ? -1 : 0;
    if (!level) return c;
  }
  return NULL;
}

cuplug_error *cuplug__llvm_sig_type(LLVMContextRef ctx, const cuplug_type *sig, cuplug_abi abi,
                                    LLVMTypeRef *fn_type, LLVMTypeRef *slot_type) {
  const cuplug__lowered *want = cuplug__type_lowered(sig, abi, CUPLUG_POSITION_ARGUMENT);
  const char *slot =
      cuplug__type_lowered(sig->restype, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN)->ir_type;
  /* "i32 (i64*, i32)" -> "declare i32 @expected(i64*, i32)"; the return type
   * may be a function pointer, "double (double)* (i32)": its parameters'
   * '(' is the one matching the last ')' */
  const char *ret_end = matching_open(want->ir_type);
  cuplug__buf decl;
  cuplug__buf_init(&decl);
  cuplug__buf_puts(&decl, "declare ");
  cuplug__buf_append(&decl, want->ir_type, ret_end ? (size_t)(ret_end - want->ir_type) : 0);
  cuplug__buf_printf(&decl, "@expected%s\ndeclare %s @slot()\n", ret_end ? ret_end : "()", slot);
  if (decl.oom) return cuplug__error_oom();
  LLVMMemoryBufferRef mb =
      LLVMCreateMemoryBufferWithMemoryRange(decl.data, decl.len, "expected", 1);
  LLVMModuleRef em = NULL;
  char *msg = NULL;
  bool bad = LLVMParseIRInContext2(ctx, mb, &em, &msg);
  LLVMDisposeMemoryBuffer(mb);
  LLVMDisposeMessage(msg);
  cuplug__buf_free(&decl);
  if (bad || !ret_end)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "cannot express signature '%s' as an LLVM type",
                         sig->name);
  /* types belong to the context: they outlive the module */
  *fn_type = LLVMGlobalGetValueType(LLVMGetNamedFunction(em, "expected"));
  if (slot_type)
    *slot_type = LLVMGetReturnType(LLVMGlobalGetValueType(LLVMGetNamedFunction(em, "slot")));
  LLVMDisposeModule(em);
  return NULL;
}

/* with any_space, a pointer matches a pointer of any address space */
static bool same_type(LLVMTypeRef a, LLVMTypeRef b, bool any_space) {
  if (a == b) return true;
  LLVMTypeKind k = LLVMGetTypeKind(a);
  if (k != LLVMGetTypeKind(b)) return false;
  switch (k) {
    case LLVMIntegerTypeKind:
      return LLVMGetIntTypeWidth(a) == LLVMGetIntTypeWidth(b);
    case LLVMPointerTypeKind:
      return any_space || LLVMGetPointerAddressSpace(a) == LLVMGetPointerAddressSpace(b);
    case LLVMStructTypeKind: {
      unsigned n = LLVMCountStructElementTypes(a);
      if (n != LLVMCountStructElementTypes(b)) return false;
      for (unsigned i = 0; i < n; i++)
        if (!same_type(LLVMStructGetTypeAtIndex(a, i), LLVMStructGetTypeAtIndex(b, i),
                       any_space))
          return false;
      return true;
    }
    case LLVMArrayTypeKind:
      return LLVMGetArrayLength2(a) == LLVMGetArrayLength2(b) &&
             same_type(LLVMGetElementType(a), LLVMGetElementType(b), any_space);
    case LLVMVectorTypeKind:
      return LLVMGetVectorSize(a) == LLVMGetVectorSize(b) &&
             same_type(LLVMGetElementType(a), LLVMGetElementType(b), any_space);
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

/* Why `found` is not `expect` (nothing when it is), in `why`. */
static cuplug_error *explain(cuplug__buf *why, LLVMTypeRef found, LLVMTypeRef expect,
                             const cuplug_type *sig, cuplug_abi abi, bool any_space) {
  unsigned nf = LLVMCountParamTypes(found), ne = LLVMCountParamTypes(expect);
  if (!same_type(LLVMGetReturnType(found), LLVMGetReturnType(expect), any_space)) {
    cuplug__buf_puts(why, "the return type is ");
    put_llvm_type(why, LLVMGetReturnType(found));
    cuplug__buf_puts(why, ", expected ");
    put_llvm_type(why, LLVMGetReturnType(expect));
    return NULL;
  }
  if (nf != ne || LLVMIsFunctionVarArg(found)) {
    cuplug__buf_printf(why, "it has %u parameters%s, expected %u", nf,
                       LLVMIsFunctionVarArg(found) ? " and varargs" : "", ne);
    return NULL;
  }
  LLVMTypeRef *pf = malloc(sizeof(LLVMTypeRef) * (nf ? nf : 1));
  LLVMTypeRef *pe = malloc(sizeof(LLVMTypeRef) * (ne ? ne : 1));
  if (!pf || !pe) {
    free(pf);
    free(pe);
    return cuplug__error_oom();
  }
  LLVMGetParamTypes(found, pf);
  LLVMGetParamTypes(expect, pe);
  for (unsigned i = 0; i < nf; i++) {
    if (same_type(pf[i], pe[i], any_space)) continue;
    describe_param(why, sig, abi, i);
    cuplug__buf_puts(why, " is ");
    put_llvm_type(why, pf[i]);
    cuplug__buf_puts(why, ", expected ");
    put_llvm_type(why, pe[i]);
    break;
  }
  free(pf);
  free(pe);
  return NULL;
}

cuplug_error *cuplug__llvm_check_type(LLVMContextRef ctx, LLVMValueRef fn, const char *what,
                                      const cuplug_type *sig, cuplug_abi abi, bool any_space,
                                      cuplug_status code) {
  LLVMTypeRef expect;
  CUPLUG__TRY(cuplug__llvm_sig_type(ctx, sig, abi, &expect, NULL));
  LLVMTypeRef found = LLVMGlobalGetValueType(fn);
  cuplug__buf why;
  cuplug__buf_init(&why);
  cuplug_error *e = explain(&why, found, expect, sig, abi, any_space);
  if (!e && why.len) {
    cuplug__buf ft;
    cuplug__buf_init(&ft);
    put_llvm_type(&ft, found);
    e = cuplug__error(code,
                      "%s does not match signature '%s' under the %s ABI: %s "
                      "(found %s, expected %s)",
                      what, sig->name, abi == CUPLUG_ABI_C ? "C" : "Numba", why.data,
                      ft.data ? ft.data : "?",
                      cuplug__type_lowered(sig, abi, CUPLUG_POSITION_ARGUMENT)->ir_type);
    cuplug__buf_free(&ft);
  }
  cuplug__buf_free(&why);
  return e;
}

void cuplug__llvm_list_defined(cuplug__buf *b, const LLVMModuleRef *mods, size_t n) {
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
