/* signature.c - the entry of a modern module and its signature: checked
 * against the one the host gives, as the validator checks typed IR, or
 * read from the IR of a kernel the host marked itself (Triton's, clang's:
 * `ptx_kernel`, C ABI), whose parameters say all a launch needs to know:
 * their sizes and which are pointers. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"
#include "plugin/llvm/fntype.h"
#include "plugin/llvm/internal.h"

LLVMValueRef cuplug__modern_defined(cuplug__modern *m, const char *name, cuplug_error **e) {
  LLVMValueRef f = LLVMGetNamedFunction(m->mod, name);
  if (f && !LLVMIsDeclaration(f)) return f;
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__llvm_list_defined(&b, &m->mod, 1);
  *e = cuplug__error(CUPLUG_ERR_ENTRY_NOT_FOUND,
                     "entry @%s is %s in the %zu module(s) given; they define %s", name,
                     f ? "declared but not defined" : "not defined", m->num_inputs,
                     b.data ? b.data : "");
  cuplug__buf_free(&b);
  return NULL;
}

/* The signature type of one parameter, NULL for a type none stands for. */
static const cuplug_type *param_type(LLVMTypeRef t) {
  static const cuplug_type_kind ints[] = {CUPLUG_TYPE_INT8, CUPLUG_TYPE_INT16,
                                          CUPLUG_TYPE_INT32, CUPLUG_TYPE_INT64};
  const cuplug_type *p = NULL;
  switch (LLVMGetTypeKind(t)) {
    case LLVMIntegerTypeKind: {
      unsigned w = LLVMGetIntTypeWidth(t);
      if (w == 1) return cuplug__type_scalar(CUPLUG_TYPE_BOOL);
      for (unsigned i = 0, bits = 8; i < 4; i++, bits *= 2)
        if (w == bits) return cuplug__type_scalar(ints[i]);
      return NULL;
    }
    case LLVMHalfTypeKind:
      return cuplug__type_scalar(CUPLUG_TYPE_FLOAT16);
    case LLVMFloatTypeKind:
      return cuplug__type_scalar(CUPLUG_TYPE_FLOAT32);
    case LLVMDoubleTypeKind:
      return cuplug__type_scalar(CUPLUG_TYPE_FLOAT64);
    case LLVMPointerTypeKind: {
      cuplug_error *e = cuplug__type_pointer(cuplug__type_scalar(CUPLUG_TYPE_UINT8), &p);
      cuplug__error_destroy(e);
      return p;
    }
    default:
      return NULL;
  }
}

static cuplug_error *unreadable(const char *entry, const char *what, LLVMTypeRef t) {
  char *ts = LLVMPrintTypeToString(t);
  cuplug_error *e = cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                                  "the signature of kernel @%s cannot be read from its IR: "
                                  "%s is %s, which no signature type stands for; give the "
                                  "signature",
                                  entry, what, ts);
  LLVMDisposeMessage(ts);
  return e;
}

/* A parameter passed by value in the kernel's parameter space (clang's
 * struct arguments: `ptr byval(%struct.S)`): its type is a pointer, its
 * bytes the struct's, which no signature type stands for yet.  Launched as
 * a pointer it would be read past.  -1: none. */
static int byval_param(LLVMValueRef fn) {
  unsigned kind = LLVMGetEnumAttributeKindForName("byval", 5);
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n; i++)
    if (LLVMGetEnumAttributeAtIndex(fn, i + 1, kind)) return (int)i;
  return -1;
}

static cuplug_error *refuse_byval(LLVMValueRef fn, const char *entry) {
  int i = byval_param(fn);
  if (i < 0) return NULL;
  size_t len;
  const char *name = LLVMGetValueName2(LLVMGetParam(fn, (unsigned)i), &len);
  return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                       "kernel @%s takes parameter %d%s%.*s%s by value (byval, a struct): "
                       "cuplug's signatures have no struct type to launch it with yet",
                       entry, i, len ? " (%" : "", (int)len, name, len ? ")" : "");
}

/* void(...) from a native kernel's parameters. */
static cuplug_error *read_signature(LLVMValueRef fn, const char *entry,
                                    const cuplug_type **out) {
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind)
    return unreadable(entry, "its return type", LLVMGetReturnType(ft));
  if (LLVMIsFunctionVarArg(ft))
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                         "the signature of kernel @%s cannot be read from its IR: it takes "
                         "varargs; give the signature",
                         entry);
  unsigned n = LLVMCountParams(fn);
  const cuplug_type **args = malloc((n ? n : 1) * sizeof *args);
  if (!args) return cuplug__error_oom();
  cuplug_error *e = NULL;
  for (unsigned i = 0; i < n && !e; i++) {
    LLVMValueRef p = LLVMGetParam(fn, i);
    if ((args[i] = param_type(LLVMTypeOf(p)))) continue;
    size_t len;
    const char *name = LLVMGetValueName2(p, &len);
    cuplug__buf what;
    cuplug__buf_init(&what);
    cuplug__buf_printf(&what, "parameter %u", i);
    if (len) cuplug__buf_printf(&what, " (%%%.*s)", (int)len, name);
    e = what.oom ? cuplug__error_oom() : unreadable(entry, what.data, LLVMTypeOf(p));
    cuplug__buf_free(&what);
  }
  if (!e) e = cuplug__type_signature(cuplug__type_scalar(CUPLUG_TYPE_VOID), args, n, out);
  free(args);
  return e;
}

cuplug_error *cuplug__modern_entry(cuplug__modern *m, const char *entry, cuplug_abi entry_abi,
                                   const cuplug_type *sig, const cuplug_type **sig_out,
                                   bool *is_ptx_kernel) {
  cuplug_error *e = NULL;
  LLVMValueRef fn = cuplug__modern_defined(m, entry, &e);
  if (!fn) return e;
  /* A kernel the IR marks is a native one, whatever ABI the caller named:
   * it returns void, so the Numba ABI's status and return slot cannot be
   * there.  Its pointers may be of any address space (Triton's are global,
   * addrspace(1)): the driver passes them, not a call. */
  bool marked = LLVMGetFunctionCallConv(fn) == LLVMPTXKernelCallConv;
  bool native = marked;
  if (marked) CUPLUG__TRY(refuse_byval(fn, entry));
  if (marked) entry_abi = CUPLUG_ABI_C;
  if (is_ptx_kernel) *is_ptx_kernel = marked;
  if (!sig) {
    if (!marked)
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "compile: entry @%s needs its signature: only a kernel the IR "
                           "marks (ptx_kernel) has it read from the IR",
                           entry);
    CUPLUG__TRY(read_signature(fn, entry, &sig));
  } else {
    cuplug__buf what;
    cuplug__buf_init(&what);
    cuplug__buf_printf(&what, "entry @%s", entry);
    e = what.oom ? cuplug__error_oom()
                 : cuplug__llvm_check_type(m->ctx, fn, what.data, sig, entry_abi,
                                           native, CUPLUG_ERR_ENTRY_MISMATCH);
    cuplug__buf_free(&what);
    if (e) return e;
  }
  if (sig_out) *sig_out = sig;
  return NULL;
}
