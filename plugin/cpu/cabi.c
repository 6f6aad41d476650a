/* cabi.c - the C ABI of x86-64 (System V) for a host library's C-ABI
 * functions and the host functions it calls.
 *
 * numba-cuda's C ABI is written for the GPU: the IR takes a complex as two
 * floats and returns a first-class {float, float}.  Compiled for x86-64 as
 * it stands, each float travels in a register of its own, where a C caller
 * passes and takes a `float _Complex` in one (and so does libffi): the
 * results were wrong.  So every type of a signature travels as the C type
 * of its value in memory (numba's data model, base/types.c), by value:
 *
 *   bool, intN, uintN   _Bool, intN_t, uintN_t (narrow ones extended, as
 *                       clang extends them)
 *   float16, bfloat16   uint16_t, its bits (as CUDA's __half on the host)
 *   float32, float64    float, double
 *   complex64/128       float _Complex, double _Complex ({re, im})
 *   CPointer(T)         T * (of a signature: a function pointer)
 *   Record(...)         a pointer to its bytes;  Opaque(...): void *
 *   Omitted(...)        no parameter
 *   Tuple(...)          a struct of its members (UniTuple: T[N])
 *   Struct(...)         a struct of its members, always (a record member:
 *                       its bytes, which no C type here passes: refused)
 *   T[:, ...]           numba's array struct: {meminfo, parent, nitems,
 *                       itemsize, data, shape[N], strides[N]}
 *   Literal[int]        int64_t;  class(T): no parameter
 *
 * each classified as the psABI (3.2.3) classifies a C type: an aggregate
 * of 16 bytes or less in one or two registers, by eightbyte (INTEGER
 * wins over SSE); a larger one in memory (byval, and sret for a result);
 * one that would not fit the registers left, in memory too.  The IR is
 * compared with what clang emits for the same C types.
 *
 * An exported function becomes a wrapper around the IR's (renamed
 * <name>.flat), which the optimiser inlines; a declared host function gets
 * a body that calls the C function.  Both go through a 16-byte-or-larger
 * buffer in memory, as clang's own coercions do: SROA folds it away. */
#include "plugin/cpu/cabi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "plugin/cpu/fail.h"

#define FREE_GPRS 6 /* rdi rsi rdx rcx r8 r9 */
#define FREE_SSE 8  /* xmm0-7 */

typedef enum { CLS_NONE, CLS_INT, CLS_SSE } eightbyte_class;

typedef enum {
  PASS_IGNORE, /* no value: void, class(T), an empty tuple */
  PASS_DIRECT, /* a scalar, as itself */
  PASS_COERCE, /* an aggregate in one or two registers */
  PASS_MEMORY  /* an aggregate on the stack (byval), or a result through sret */
} pass_kind;

/* How one value travels. */
typedef struct passing {
  pass_kind kind;
  LLVMTypeRef mem;   /* its type in memory */
  LLVMTypeRef eb[2]; /* DIRECT: eb[0] is the scalar; COERCE: one per eightbyte */
  unsigned num_eb, num_int, num_sse;
  const char *ext; /* DIRECT: "signext", "zeroext" or NULL */
} passing;

/* A function's C type: its result, then each argument. */
typedef struct cfn {
  LLVMContextRef c;
  LLVMTargetDataRef td;
  const cuplug__cpu_cabi_fn *f;
  bool import; /* the host's function, which the IR calls */
  passing ret, *args;
  unsigned *first; /* each argument's first C parameter */
  LLVMTypeRef type;
  unsigned num_params;
} cfn;

/* ---- types ---- */

static bool uniform(const cuplug_type *t) {
  for (size_t i = 1; i < t->nargs; i++)
    if (t->args[i] != t->args[0]) return false;
  return t->nargs > 0;
}

/* A type's value in memory, as the IR lays it out. */
static LLVMTypeRef mem_type(LLVMContextRef c, const cuplug_type *t) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(c), ptr = LLVMPointerTypeInContext(c, 0);
  switch (t->kind) {
    case CUPLUG_TYPE_BOOL: case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_UINT8:
      return LLVMInt8TypeInContext(c);
    case CUPLUG_TYPE_INT16: case CUPLUG_TYPE_UINT16: case CUPLUG_TYPE_FLOAT16:
    case CUPLUG_TYPE_BFLOAT16:
      return LLVMInt16TypeInContext(c);
    case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_UINT32: return LLVMInt32TypeInContext(c);
    case CUPLUG_TYPE_INT64: case CUPLUG_TYPE_UINT64: case CUPLUG_TYPE_INT_LITERAL: return i64;
    case CUPLUG_TYPE_FLOAT32: return LLVMFloatTypeInContext(c);
    case CUPLUG_TYPE_FLOAT64: return LLVMDoubleTypeInContext(c);
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: {
      LLVMTypeRef part = t->kind == CUPLUG_TYPE_COMPLEX64 ? LLVMFloatTypeInContext(c)
                                                           : LLVMDoubleTypeInContext(c);
      LLVMTypeRef parts[2] = {part, part};
      return LLVMStructTypeInContext(c, parts, 2, 0);
    }
    case CUPLUG_TYPE_POINTER: case CUPLUG_TYPE_RECORD: case CUPLUG_TYPE_OPAQUE: return ptr;
    case CUPLUG_TYPE_ARRAY: {
      LLVMTypeRef dims = LLVMArrayType2(i64, t->ndim);
      LLVMTypeRef fields[7] = {ptr, ptr, i64, i64, ptr, dims, dims};
      return LLVMStructTypeInContext(c, fields, 7, 0);
    }
    case CUPLUG_TYPE_TUPLE:
    case CUPLUG_TYPE_STRUCT: {
      if (t->kind == CUPLUG_TYPE_TUPLE && uniform(t))
        return LLVMArrayType2(mem_type(c, t->args[0]), t->nargs);
      LLVMTypeRef members[CUPLUG_MAX_ARGS];
      for (size_t i = 0; i < t->nargs; i++) members[i] = mem_type(c, t->args[i]);
      return LLVMStructTypeInContext(c, members, (unsigned)t->nargs, 0);
    }
    case CUPLUG_TYPE_NUMBER_CLASS: case CUPLUG_TYPE_OMITTED:
      return LLVMStructTypeInContext(c, NULL, 0, 0);
    default: return LLVMVoidTypeInContext(c);
  }
}

/* Does a struct in t hold a record's bytes (numba's data type of a record
 * member), which no C type of this file stands for? */
static bool holds_record(const cuplug_type *t) {
  if (t->kind != CUPLUG_TYPE_TUPLE && t->kind != CUPLUG_TYPE_STRUCT) return false;
  for (size_t i = 0; i < t->nargs; i++)
    if ((t->kind == CUPLUG_TYPE_STRUCT && t->args[i]->kind == CUPLUG_TYPE_RECORD) ||
        holds_record(t->args[i]))
      return true;
  return false;
}

static bool aggregate(LLVMTypeRef t) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  return k == LLVMStructTypeKind || k == LLVMArrayTypeKind;
}

/* The i-th member of an aggregate. */
static LLVMTypeRef member(LLVMTypeRef t, unsigned i) {
  return LLVMGetTypeKind(t) == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, i)
                                                  : LLVMGetElementType(t);
}

static unsigned members(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMStructTypeKind ? LLVMCountStructElementTypes(t)
                                                  : (unsigned)LLVMGetArrayLength2(t);
}

static uint64_t member_offset(LLVMTargetDataRef td, LLVMTypeRef t, unsigned i) {
  return LLVMGetTypeKind(t) == LLVMStructTypeKind
             ? LLVMOffsetOfElement(td, t, i)
             : i * LLVMABISizeOfType(td, LLVMGetElementType(t));
}

/* ---- classification (psABI 3.2.3) ---- */

typedef struct eightbytes {
  eightbyte_class cls[2];
  bool dbl[2]; /* an SSE eightbyte that holds a double */
} eightbytes;

static void classify(LLVMTargetDataRef td, LLVMTypeRef t, uint64_t offset, eightbytes *e) {
  if (aggregate(t)) {
    for (unsigned i = 0; i < members(t); i++)
      classify(td, member(t, i), offset + member_offset(td, t, i), e);
    return;
  }
  LLVMTypeKind k = LLVMGetTypeKind(t);
  unsigned n = (unsigned)(offset / 8);
  bool sse = k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
  if (e->cls[n] != CLS_INT) e->cls[n] = sse ? CLS_SSE : CLS_INT;
  if (k == LLVMDoubleTypeKind) e->dbl[n] = true;
}

/* The register type of eightbyte n of `size` bytes, as clang coerces it
 * (the first of two is whole). */
static LLVMTypeRef eightbyte_type(LLVMContextRef c, const eightbytes *e, unsigned n,
                                  uint64_t size) {
  uint64_t bytes = n == 0 && size > 8 ? 8 : size - 8 * n;
  if (e->cls[n] == CLS_INT) return LLVMIntTypeInContext(c, (unsigned)(bytes * 8));
  if (e->dbl[n]) return LLVMDoubleTypeInContext(c);
  return bytes > 4 ? LLVMVectorType(LLVMFloatTypeInContext(c), 2) : LLVMFloatTypeInContext(c);
}

static const char *extension(const cuplug_type *t) {
  switch (t->kind) {
    case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_INT16: return "signext";
    case CUPLUG_TYPE_BOOL: case CUPLUG_TYPE_UINT8: case CUPLUG_TYPE_UINT16:
    case CUPLUG_TYPE_FLOAT16: case CUPLUG_TYPE_BFLOAT16: return "zeroext";
    default: return NULL;
  }
}

static passing passing_of(LLVMContextRef c, LLVMTargetDataRef td, const cuplug_type *t) {
  passing p = {.mem = mem_type(c, t)};
  LLVMTypeKind k = LLVMGetTypeKind(p.mem);
  if (k == LLVMVoidTypeKind) return p; /* PASS_IGNORE */
  if (!aggregate(p.mem)) {
    bool sse = k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
    p = (passing){PASS_DIRECT, p.mem, {p.mem}, 1, !sse, sse, extension(t)};
    return p;
  }
  uint64_t size = LLVMABISizeOfType(td, p.mem);
  if (size == 0) return p;
  if (size > 16) {
    p.kind = PASS_MEMORY;
    return p;
  }
  eightbytes e = {{CLS_NONE, CLS_NONE}, {false, false}};
  classify(td, p.mem, 0, &e);
  p.kind = PASS_COERCE;
  p.num_eb = size > 8 ? 2 : 1;
  for (unsigned n = 0; n < p.num_eb; n++) {
    p.eb[n] = eightbyte_type(c, &e, n, size);
    if (e.cls[n] == CLS_SSE) p.num_sse++;
    else p.num_int++;
  }
  return p;
}

/* ---- the function's C type ---- */

static unsigned registers(const passing *p) {
  return p->kind == PASS_DIRECT || p->kind == PASS_COERCE ? p->num_eb : 0;
}

static void cfn_free(cfn *f) {
  free(f->args);
  free(f->first);
}

/* Registers are taken in order; an aggregate that would not fit the ones
 * left goes on the stack whole, and takes none. */
static int cfn_make(cfn *f, char **msg) {
  const cuplug_type *sig = f->f->sig;
  size_t n = sig->nargs;
  for (size_t i = 0; i <= n; i++) {
    const cuplug_type *t = i < n ? sig->args[i] : sig->restype;
    if (holds_record(t))
      return cuplug__cpu_fail(msg, CUPLUG_ERR_INVALID_TYPE,
                              "%s: the CPU target passes no struct that holds a record's bytes "
                              "(%s)",
                              f->f->name, t->name);
  }
  f->args = calloc(n + 1, sizeof *f->args);
  f->first = calloc(n + 1, sizeof *f->first);
  LLVMTypeRef *params = calloc(2 * n + 1, sizeof *params);
  if (!f->args || !f->first || !params) {
    free(params);
    return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  }
  LLVMTypeRef ptr = LLVMPointerTypeInContext(f->c, 0);
  unsigned gprs = FREE_GPRS, sse = FREE_SSE, k = 0;
  f->ret = passing_of(f->c, f->td, sig->restype);
  if (f->f->numba || f->ret.kind == PASS_MEMORY) {
    params[k++] = ptr; /* the return slot, or sret */
    gprs--;
  }
  for (size_t i = 0; i < n; i++) {
    passing *p = &f->args[i];
    *p = passing_of(f->c, f->td, sig->args[i]);
    f->first[i] = k;
    if (p->kind == PASS_COERCE && (p->num_int > gprs || p->num_sse > sse))
      p->kind = PASS_MEMORY;
    if (p->kind == PASS_MEMORY) params[k++] = ptr;
    if (!registers(p)) continue;
    gprs -= p->num_int < gprs ? p->num_int : gprs;
    sse -= p->num_sse < sse ? p->num_sse : sse;
    for (unsigned e = 0; e < p->num_eb; e++) params[k++] = p->eb[e];
  }
  LLVMTypeRef ret;
  if (f->f->numba) ret = LLVMInt32TypeInContext(f->c);
  else if (f->ret.kind == PASS_DIRECT) ret = f->ret.eb[0];
  else if (f->ret.kind == PASS_COERCE && f->ret.num_eb == 2)
    ret = LLVMStructTypeInContext(f->c, f->ret.eb, 2, 0);
  else if (f->ret.kind == PASS_COERCE) ret = f->ret.eb[0];
  else ret = LLVMVoidTypeInContext(f->c);
  f->type = LLVMFunctionType(ret, params, k, 0);
  f->num_params = k;
  free(params);
  return 0;
}

static LLVMAttributeRef enum_attr(LLVMContextRef c, const char *name, uint64_t value) {
  return LLVMCreateEnumAttribute(c, LLVMGetEnumAttributeKindForName(name, strlen(name)), value);
}

static void add_attr(LLVMValueRef v, bool call, LLVMAttributeIndex i, LLVMAttributeRef a) {
  if (call) LLVMAddCallSiteAttribute(v, i, a);
  else LLVMAddAttributeAtIndex(v, i, a);
}

/* byval or sret, with the stack's alignment, on parameter i (0-based). */
static void memory_attrs(const cfn *f, LLVMValueRef v, bool call, unsigned i, LLVMTypeRef mem,
                         const char *what) {
  unsigned kind = LLVMGetEnumAttributeKindForName(what, strlen(what));
  unsigned align = LLVMABIAlignmentOfType(f->td, mem);
  add_attr(v, call, i + 1, LLVMCreateTypeAttribute(f->c, kind, mem));
  add_attr(v, call, i + 1, enum_attr(f->c, "align", align > 8 ? align : 8));
}

/* The attributes that make the C ABI: sret and byval; narrow integers
 * extended by whoever hands them over (the caller of the host's function,
 * the exported function for its result). */
static void cabi_attrs(const cfn *f, LLVMValueRef v, bool call) {
  if (!f->f->numba && f->ret.kind == PASS_MEMORY) memory_attrs(f, v, call, 0, f->ret.mem, "sret");
  if (!f->import && !f->f->numba && f->ret.kind == PASS_DIRECT && f->ret.ext)
    add_attr(v, call, LLVMAttributeReturnIndex, enum_attr(f->c, f->ret.ext, 0));
  for (size_t i = 0; i < f->f->sig->nargs; i++) {
    const passing *p = &f->args[i];
    if (p->kind == PASS_MEMORY) memory_attrs(f, v, call, f->first[i], p->mem, "byval");
    if (f->import && p->kind == PASS_DIRECT && p->ext)
      add_attr(v, call, f->first[i] + 1, enum_attr(f->c, p->ext, 0));
  }
}

/* ---- the IR's flattened parameters ---- */

/* The flat function's parameters, from its first `from`: each scalar
 * member of a value in memory, in order, loaded (load) or stored. */
typedef struct flat {
  LLVMBuilderRef b;
  LLVMValueRef fn;
  unsigned next;
  bool load;
  LLVMValueRef *values; /* load: each parameter's value */
} flat;

static void walk(flat *w, LLVMTypeRef mem, LLVMValueRef at) {
  if (!aggregate(mem)) {
    LLVMValueRef param = LLVMGetParam(w->fn, w->next);
    if (w->load) w->values[w->next] = LLVMBuildLoad2(w->b, LLVMTypeOf(param), at, "");
    else LLVMBuildStore(w->b, param, at);
    w->next++;
    return;
  }
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetTypeContext(mem));
  for (unsigned i = 0; i < members(mem); i++) {
    LLVMValueRef idx[2] = {LLVMConstInt(i32, 0, 0), LLVMConstInt(i32, i, 0)};
    walk(w, member(mem, i), LLVMBuildInBoundsGEP2(w->b, mem, at, idx, 2, ""));
  }
}

/* Do the flat function's parameters, from `from`, have the sizes of the
 * signature's values' scalar members? */
static bool parts_match(LLVMTargetDataRef td, LLVMTypeRef mem, LLVMTypeRef *params, unsigned n,
                        unsigned *next) {
  if (!aggregate(mem)) {
    if (*next >= n) return false;
    LLVMTypeRef p = params[(*next)++];
    return LLVMStoreSizeOfType(td, p) == LLVMStoreSizeOfType(td, mem);
  }
  for (unsigned i = 0; i < members(mem); i++)
    if (!parts_match(td, member(mem, i), params, n, next)) return false;
  return true;
}

static int check_flat(const cfn *f, LLVMValueRef fn, int code, const char *what, char **msg) {
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  unsigned n = LLVMCountParamTypes(fty);
  LLVMTypeRef *params = calloc(n + 1, sizeof *params);
  if (!params) return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  LLVMGetParamTypes(fty, params);
  unsigned next = f->f->numba ? 1 : 0;
  bool ok = next <= n;
  for (size_t i = 0; ok && i < f->f->sig->nargs; i++)
    ok = parts_match(f->td, f->args[i].mem, params, n, &next);
  free(params);
  if (ok && next == n) return 0;
  return cuplug__cpu_fail(msg, code,
                          "%s %s: the IR's %u parameters are not its signature %s flattened "
                          "under the %s ABI",
                          what, f->f->name, n, f->f->sig->name, f->f->numba ? "Numba" : "C");
}

/* ---- memory between the two forms ---- */

/* Room for a value of `mem`, at least two eightbytes. */
static LLVMValueRef buffer(const cfn *f, LLVMBuilderRef b, LLVMTypeRef mem) {
  uint64_t size = LLVMGetTypeKind(mem) == LLVMVoidTypeKind ? 0 : LLVMABISizeOfType(f->td, mem);
  LLVMTypeRef bytes = LLVMArrayType2(LLVMInt8TypeInContext(f->c), size > 16 ? size : 16);
  LLVMValueRef a = LLVMBuildAlloca(b, bytes, "");
  LLVMSetAlignment(a, 16);
  LLVMBuildStore(b, LLVMConstNull(bytes), a);
  return a;
}

static LLVMValueRef at_eightbyte(const cfn *f, LLVMBuilderRef b, LLVMValueRef buf, unsigned n) {
  LLVMValueRef off = LLVMConstInt(LLVMInt64TypeInContext(f->c), 8 * n, 0);
  return LLVMBuildInBoundsGEP2(b, LLVMInt8TypeInContext(f->c), buf, &off, 1, "");
}

/* The registers of a coerced value in buf, as the function's result. */
static LLVMValueRef load_registers(const cfn *f, LLVMBuilderRef b, const passing *p,
                                   LLVMValueRef buf) {
  LLVMValueRef v0 = LLVMBuildLoad2(b, p->eb[0], buf, "");
  if (p->num_eb == 1) return v0;
  LLVMValueRef v1 = LLVMBuildLoad2(b, p->eb[1], at_eightbyte(f, b, buf, 1), "");
  LLVMValueRef pair = LLVMGetUndef(LLVMStructTypeInContext(f->c, (LLVMTypeRef *)p->eb, 2, 0));
  pair = LLVMBuildInsertValue(b, pair, v0, 0, "");
  return LLVMBuildInsertValue(b, pair, v1, 1, "");
}

static void store_registers(const cfn *f, LLVMBuilderRef b, const passing *p, LLVMValueRef v,
                            LLVMValueRef buf) {
  if (p->num_eb == 1) {
    LLVMBuildStore(b, v, buf);
    return;
  }
  LLVMBuildStore(b, LLVMBuildExtractValue(b, v, 0, ""), buf);
  LLVMBuildStore(b, LLVMBuildExtractValue(b, v, 1, ""), at_eightbyte(f, b, buf, 1));
}

/* ---- exported: the C caller's registers to the IR's parameters ---- */

static void export_body(const cfn *f, LLVMBuilderRef b, LLVMValueRef w, LLVMValueRef flat_fn) {
  unsigned n = LLVMCountParams(flat_fn);
  LLVMValueRef *values = calloc(n + 1, sizeof *values);
  if (!values) return;
  flat walker = {b, flat_fn, 0, true, values};
  if (f->f->numba) values[walker.next++] = LLVMGetParam(w, 0);
  for (size_t i = 0; i < f->f->sig->nargs; i++) {
    const passing *p = &f->args[i];
    LLVMValueRef at = p->kind == PASS_MEMORY ? LLVMGetParam(w, f->first[i]) : buffer(f, b, p->mem);
    for (unsigned e = 0; e < registers(p); e++)
      LLVMBuildStore(b, LLVMGetParam(w, f->first[i] + e), at_eightbyte(f, b, at, e));
    walk(&walker, p->mem, at);
  }
  LLVMValueRef r = LLVMBuildCall2(b, LLVMGlobalGetValueType(flat_fn), flat_fn, values, n, "");
  free(values);
  if (f->f->numba) {
    LLVMBuildRet(b, r);
  } else if (f->ret.kind == PASS_MEMORY) {
    LLVMBuildStore(b, r, LLVMGetParam(w, 0));
    LLVMBuildRetVoid(b);
  } else if (f->ret.kind == PASS_DIRECT || f->ret.kind == PASS_COERCE) {
    LLVMValueRef buf = buffer(f, b, f->ret.mem);
    LLVMBuildStore(b, r, buf);
    LLVMBuildRet(b, load_registers(f, b, &f->ret, buf));
  } else {
    LLVMBuildRetVoid(b);
  }
}

/* ---- imported: the IR's parameters to the host function's registers ---- */

static void import_body(const cfn *f, LLVMBuilderRef b, LLVMValueRef thunk, LLVMValueRef host) {
  LLVMValueRef *params = calloc(f->num_params + 1, sizeof *params);
  if (!params) return;
  flat walker = {b, thunk, 0, false, NULL};
  LLVMValueRef sret = NULL;
  if (f->f->numba) params[0] = LLVMGetParam(thunk, walker.next++);
  else if (f->ret.kind == PASS_MEMORY) params[0] = sret = buffer(f, b, f->ret.mem);
  for (size_t i = 0; i < f->f->sig->nargs; i++) {
    const passing *p = &f->args[i];
    LLVMValueRef at = buffer(f, b, p->mem);
    walk(&walker, p->mem, at);
    if (p->kind == PASS_MEMORY) params[f->first[i]] = at;
    for (unsigned e = 0; e < registers(p); e++)
      params[f->first[i] + e] = LLVMBuildLoad2(b, p->eb[e], at_eightbyte(f, b, at, e), "");
  }
  LLVMValueRef r = LLVMBuildCall2(b, f->type, host, params, f->num_params, "");
  free(params);
  cabi_attrs(f, r, true);
  LLVMTypeRef want = LLVMGetReturnType(LLVMGlobalGetValueType(thunk));
  if (f->f->numba) {
    LLVMBuildRet(b, r);
  } else if (LLVMGetTypeKind(want) == LLVMVoidTypeKind || f->ret.kind == PASS_IGNORE) {
    LLVMBuildRetVoid(b);
  } else {
    LLVMValueRef buf = sret;
    if (!buf) {
      buf = buffer(f, b, f->ret.mem);
      store_registers(f, b, &f->ret, r, buf);
    }
    LLVMBuildRet(b, LLVMBuildLoad2(b, want, buf, ""));
  }
}

/* ---- the two directions ---- */

static int cfn_for(LLVMModuleRef m, const cuplug__cpu_cabi_fn *fn, bool import, cfn *f,
                   char **msg) {
  *f = (cfn){.c = LLVMGetModuleContext(m), .td = LLVMGetModuleDataLayout(m), .f = fn,
             .import = import};
  return cfn_make(f, msg);
}

/* Gives `fn` the name <name>.flat and internal linkage. */
static int set_aside(LLVMValueRef fn, const char *name, char **msg) {
  char *flat_name = NULL;
  if (asprintf(&flat_name, "%s.flat", name) < 0)
    return cuplug__cpu_fail(msg, CUPLUG_ERR_OUT_OF_MEMORY, "out of memory");
  LLVMSetValueName2(fn, flat_name, strlen(flat_name));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  free(flat_name);
  return 0;
}

static LLVMBuilderRef entry_of(const cfn *f, LLVMValueRef fn) {
  LLVMBuilderRef b = LLVMCreateBuilderInContext(f->c);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(f->c, fn, "entry"));
  return b;
}

int cuplug__cpu_cabi_export(LLVMModuleRef m, const cuplug__cpu_cabi_fn *fn, char **msg) {
  LLVMValueRef flat_fn = LLVMGetNamedFunction(m, fn->name);
  if (!flat_fn || LLVMIsDeclaration(flat_fn)) return 0; /* the lookup names it */
  cfn f;
  int rc = cfn_for(m, fn, false, &f, msg);
  if (!rc) rc = check_flat(&f, flat_fn, CUPLUG_ERR_ENTRY_MISMATCH, "function", msg);
  if (!rc) rc = set_aside(flat_fn, fn->name, msg);
  if (!rc) {
    LLVMValueRef w = LLVMAddFunction(m, fn->name, f.type);
    cabi_attrs(&f, w, false);
    LLVMBuilderRef b = entry_of(&f, w);
    export_body(&f, b, w, flat_fn);
    LLVMDisposeBuilder(b);
  }
  cfn_free(&f);
  return rc;
}

int cuplug__cpu_cabi_import(LLVMModuleRef m, const cuplug__cpu_cabi_fn *fn, char **msg) {
  LLVMValueRef decl = LLVMGetNamedFunction(m, fn->name);
  if (!decl || !LLVMIsDeclaration(decl)) return 0;
  cfn f;
  int rc = cfn_for(m, fn, true, &f, msg);
  if (!rc) rc = check_flat(&f, decl, CUPLUG_ERR_DECLARATION_MISMATCH, "declared function", msg);
  if (!rc) rc = set_aside(decl, fn->name, msg);
  if (!rc) { /* the declaration, given a body, calls the host's function */
    LLVMValueRef thunk = LLVMAddFunction(m, "", LLVMGlobalGetValueType(decl));
    LLVMReplaceAllUsesWith(decl, thunk);
    LLVMDeleteFunction(decl);
    LLVMSetLinkage(thunk, LLVMInternalLinkage);
    LLVMValueRef host = LLVMAddFunction(m, fn->name, f.type);
    cabi_attrs(&f, host, false);
    LLVMBuilderRef b = entry_of(&f, thunk);
    import_body(&f, b, thunk, host);
    LLVMDisposeBuilder(b);
    rc = set_aside(thunk, fn->name, msg);
  }
  cfn_free(&f);
  return rc;
}
