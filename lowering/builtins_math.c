/* builtins_math.c - the math module and cuda.fp16.
 *
 * numba-cuda types math.* for CUDA (cudamath.py) with these signatures and
 * lowers them to libdevice: float64 functions are __nv_<name>, float32 ones
 * __nv_<name>f; int64 and uint64 arguments become double first; float16
 * ones (sin, cos, tanh, ceil, floor, trunc, sqrt, log, log2, log10, exp,
 * exp2, fabs) compute in float32 and round back.  On CUDA math.floor, ceil and trunc return a
 * float, unlike Python's.
 *
 * cuda.fp16's arithmetic is PTX's f16 instructions on numba-cuda's float16,
 * an i16 in IR; division goes through float32, as PTX has no div.f16. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "base/types.h"
#include "lowering/builtins.h"

#define SIGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* Families: how arguments and the result pass to libdevice. */
enum { CALL, SCALE, PREDICATE, FREXP, MODF, POWI };

#define UNARY SIGS("float64(int64)", "float64(uint64)", "float32(float32)", "float64(float64)")
#define UNARY16                                                                                  \
  SIGS("float64(int64)", "float64(uint64)", "float32(float32)", "float64(float64)",              \
       "float16(float16)")
#define BINARY_INT                                                                               \
  SIGS("float64(int64, int64)", "float64(uint64, uint64)", "float32(float32, float32)",          \
       "float64(float64, float64)")
#define BINARY SIGS("float32(float32, float32)", "float64(float64, float64)")
#define PREDICATES SIGS("bool(int64)", "bool(uint64)", "bool(float32)", "bool(float64)")

static const char *f16_to_f32 = "cvt.f32.f16 $0, $1;";
static const char *f32_to_f16 = "cvt.rn.f16.f32 $0, $1;";

/* Converts argument `arg` for a libdevice call in float (single) or
 * double; the value is %a<arg>. */
static void convert_arg(cuplug__buf *out, const cuplug_type *sig, size_t arg, bool single) {
  const cuplug_type *t = sig->args[arg];
  size_t p = cuplug__bi_param(sig, arg);
  const char *want = single ? "float" : "double";
  switch (t->kind) {
    case CUPLUG_TYPE_INT64:
      cuplug__buf_printf(out, "  %%a%zu = sitofp i64 %%p%zu to %s\n", arg, p, want);
      break;
    case CUPLUG_TYPE_UINT64:
      cuplug__buf_printf(out, "  %%a%zu = uitofp i64 %%p%zu to %s\n", arg, p, want);
      break;
    case CUPLUG_TYPE_FLOAT16:
      cuplug__buf_printf(out, "  %%a%zu = call float asm \"%s\", \"=f,h\"(i16 %%p%zu)\n", arg,
                         f16_to_f32, p);
      break;
    case CUPLUG_TYPE_INT32:
      cuplug__buf_printf(out, "  %%a%zu = bitcast i32 %%p%zu to i32\n", arg, p);
      break;
    default: /* already float or double (bitcast: no arithmetic, -0.0 stays) */
      cuplug__buf_printf(out, "  %%a%zu = bitcast %s %%p%zu to %s\n", arg, want, p, want);
      break;
  }
}

/* The libdevice name for a stem in single or double precision. */
static void libdevice_name(char *buf, size_t n, const char *stem, bool single) {
  snprintf(buf, n, "__nv_%s%s", stem, single ? "f" : "");
}

/* The IR type a computation in single or double precision uses. */
static const char *fp_type(bool single) { return single ? "float" : "double"; }

/* degrees and radians: one multiplication by a constant of the type */
static void write_scale(const cuplug__builtin *b, const cuplug_type *sig, bool single,
                        cuplug__buf *out) {
  double k = strcmp(b->name, "degrees") == 0 ? 180.0 / M_PI : M_PI / 180.0;
  if (single) k = (double)(float)k;
  uint64_t bits;
  memcpy(&bits, &k, sizeof bits);
  cuplug__buf_printf(out, "  %%v = fmul %s %%a0, 0x%016llX\n  ret %s %%v\n}\n", fp_type(single),
                     (unsigned long long)bits, cuplug__bi_ir(sig->restype));
}

/* isnan, isinf and isfinite of a float: libdevice's __nv_isnand/f,
 * __nv_isinfd/f, __nv_isfinited and __nv_finitef, as a bool */
static void write_predicate(const cuplug__builtin *b, bool single, cuplug__buf *out) {
  const char *ft = fp_type(single);
  char callee[64];
  if (strcmp(b->name, "isfinite") == 0)
    snprintf(callee, sizeof callee, "%s", single ? "__nv_finitef" : "__nv_isfinited");
  else
    snprintf(callee, sizeof callee, "__nv_%s%s", b->name, single ? "f" : "d");
  cuplug__buf_printf(out,
                     "  %%i = call i32 @%s(%s %%a0)\n  %%b = icmp ne i32 %%i, 0\n"
                     "  %%v = zext i1 %%b to i8\n  ret i8 %%v\n}\ndeclare i32 @%s(%s)\n",
                     callee, ft, callee, ft);
}

/* frexp and modf: libdevice returns one part and stores the other through a
 * pointer; the result is the tuple of both */
static void write_parts(const cuplug__builtin *b, const cuplug_type *sig, bool single,
                        cuplug__buf *out) {
  const char *ft = fp_type(single), *rt = cuplug__bi_ir(sig->restype);
  const char *other = b->op == FREXP ? "i32" : ft;
  char callee[64];
  libdevice_name(callee, sizeof callee, b->name, single);
  cuplug__buf_printf(out,
                     "  %%slot = alloca %s\n"
                     "  %%first = call %s @%s(%s %%a0, %s* %%slot)\n"
                     "  %%second = load %s, %s* %%slot\n"
                     "  %%t0 = insertvalue %s undef, %s %%first, 0\n"
                     "  %%t1 = insertvalue %s %%t0, %s %%second, 1\n"
                     "  ret %s %%t1\n}\ndeclare %s @%s(%s, %s*)\n",
                     other, ft, callee, ft, other, other, other, rt, ft, rt, other, rt, ft,
                     callee, ft, other);
}

/* CALL and POWI: __nv_<stem>[f](args...), its result rounded back to
 * float16 when the signature returns one */
static void write_call(const cuplug__builtin *b, const cuplug_type *sig, bool single,
                       cuplug__buf *out) {
  const char *ft = fp_type(single);
  char callee[64];
  if (b->op == POWI && sig->args[1]->kind == CUPLUG_TYPE_INT32)
    snprintf(callee, sizeof callee, "__nv_powi%s", single ? "f" : "");
  else
    libdevice_name(callee, sizeof callee, b->name, single);
  cuplug__buf params, types;
  cuplug__buf_init(&params);
  cuplug__buf_init(&types);
  for (size_t i = 0; i < sig->nargs; i++) {
    const char *t = sig->args[i]->kind == CUPLUG_TYPE_INT32 ? "i32" : ft;
    cuplug__buf_printf(&params, "%s%s %%a%zu", i ? ", " : "", t, i);
    cuplug__buf_printf(&types, "%s%s", i ? ", " : "", t);
  }
  cuplug__buf_printf(out, "  %%v = call %s @%s(%s)\n", ft, callee, params.data);
  if (sig->restype->kind == CUPLUG_TYPE_FLOAT16)
    cuplug__buf_printf(out, "  %%h = call i16 asm \"%s\", \"=h,f\"(float %%v)\n  ret i16 %%h\n}\n",
                       f32_to_f16);
  else
    cuplug__buf_printf(out, "  ret %s %%v\n}\n", cuplug__bi_ir(sig->restype));
  cuplug__buf_printf(out, "declare %s @%s(%s)\n", ft, callee, types.data);
  out->oom |= params.oom || types.oom;
  cuplug__buf_free(&params);
  cuplug__buf_free(&types);
}

static cuplug_error *lower_math(const cuplug__builtin *b, const cuplug_type *sig,
                                const char *symbol, cuplug__buf *out) {
  const cuplug_type *a0 = sig->args[0];
  /* the precision of the computation: float32 (also for float16) or float64 */
  bool single = a0->kind == CUPLUG_TYPE_FLOAT32 || a0->kind == CUPLUG_TYPE_FLOAT16;
  cuplug__bi_begin(out, sig, symbol);
  if (b->op == PREDICATE && cuplug__type_is_integer(a0)) {
    /* an integer is never NaN nor infinite */
    cuplug__buf_printf(out, "  ret i8 %d\n}\n", strcmp(b->name, "isfinite") == 0);
    return NULL;
  }
  for (size_t i = 0; i < sig->nargs; i++) convert_arg(out, sig, i, single);
  switch (b->op) {
    case SCALE:
      write_scale(b, sig, single, out);
      break;
    case PREDICATE:
      write_predicate(b, single, out);
      break;
    case FREXP:
    case MODF:
      write_parts(b, sig, single, out);
      break;
    default:
      write_call(b, sig, single, out);
      break;
  }
  return NULL;
}

/* ---- cuda.fp16 ---- */

enum { H_ASM, H_COMPARE, H_SELECT, H_DIV };

static cuplug_error *lower_half(const cuplug__builtin *b, const cuplug_type *sig,
                                const char *symbol, cuplug__buf *out) {
  cuplug__bi_begin(out, sig, symbol);
  switch (b->op) {
    case H_ASM: {
      /* name: the instruction; one "=h" output, an "h" per argument */
      cuplug__buf_printf(out, "  %%v = call i16 asm \"%s $0", b->name);
      for (size_t i = 0; i < sig->nargs; i++) cuplug__buf_printf(out, ", $%zu", i + 1);
      cuplug__buf_puts(out, ";\", \"=h");
      for (size_t i = 0; i < sig->nargs; i++) cuplug__buf_puts(out, ",h");
      cuplug__buf_puts(out, "\"(");
      for (size_t i = 0; i < sig->nargs; i++) cuplug__buf_printf(out, "%si16 %%p%zu", i ? ", " : "", i);
      cuplug__buf_puts(out, ")\n  ret i16 %v\n}\n");
      break;
    }
    case H_COMPARE:
      cuplug__buf_printf(out,
                         "  %%s = call i16 asm \"{ .reg .pred %%cmp; setp.%s.f16 %%cmp, $1, $2; "
                         "selp.u16 $0, 1, 0, %%cmp; }\", \"=h,h,h\"(i16 %%p0, i16 %%p1)\n"
                         "  %%b = icmp ne i16 %%s, 0\n  %%v = zext i1 %%b to i8\n  ret i8 %%v\n}\n",
                         b->name);
      break;
    case H_SELECT:
      cuplug__buf_printf(out,
                         "  %%v = call i16 asm \"{ .reg .pred %%pick; setp.%s.f16 %%pick, $1, $2; "
                         "selp.b16 $0, $1, $2, %%pick; }\", \"=h,h,h\"(i16 %%p0, i16 %%p1)\n"
                         "  ret i16 %%v\n}\n",
                         b->name);
      break;
    default:
      cuplug__buf_printf(out,
                         "  %%x = call float asm \"%s\", \"=f,h\"(i16 %%p0)\n"
                         "  %%y = call float asm \"%s\", \"=f,h\"(i16 %%p1)\n"
                         "  %%q = fdiv float %%x, %%y\n"
                         "  %%v = call i16 asm \"%s\", \"=h,f\"(float %%q)\n  ret i16 %%v\n}\n",
                         f16_to_f32, f16_to_f32, f32_to_f16);
      break;
  }
  return NULL;
}

#define MATH(key, stem, sigs, op) {"math." key, sigs, NULL, NULL, lower_math, stem, op, false}
#define H2 SIGS("float16(float16, float16)")
#define HCMP SIGS("bool(float16, float16)")

const cuplug__builtin cuplug__builtins_math[] = {
    MATH("acos", "acos", UNARY, CALL),
    MATH("acosh", "acosh", UNARY, CALL),
    MATH("asin", "asin", UNARY, CALL),
    MATH("asinh", "asinh", UNARY, CALL),
    MATH("atan", "atan", UNARY, CALL),
    MATH("atanh", "atanh", UNARY, CALL),
    MATH("cosh", "cosh", UNARY, CALL),
    MATH("sinh", "sinh", UNARY, CALL),
    MATH("tanh", "tanh", UNARY16, CALL), /* float16: numba-cuda's fp16 overload */
    MATH("tan", "tan", UNARY, CALL),
    MATH("erf", "erf", UNARY, CALL),
    MATH("erfc", "erfc", UNARY, CALL),
    MATH("expm1", "expm1", UNARY, CALL),
    MATH("gamma", "tgamma", UNARY, CALL),
    MATH("lgamma", "lgamma", UNARY, CALL),
    MATH("log1p", "log1p", UNARY, CALL),
    MATH("degrees", "degrees", UNARY, SCALE),
    MATH("radians", "radians", UNARY, SCALE),
    MATH("sin", "sin", UNARY16, CALL),
    MATH("cos", "cos", UNARY16, CALL),
    MATH("ceil", "ceil", UNARY16, CALL),
    MATH("floor", "floor", UNARY16, CALL),
    MATH("trunc", "trunc", UNARY16, CALL),
    MATH("sqrt", "sqrt", UNARY16, CALL),
    MATH("log", "log", UNARY16, CALL),
    MATH("log2", "log2", UNARY16, CALL),
    MATH("log10", "log10", UNARY16, CALL),
    MATH("exp", "exp", UNARY16, CALL),
    MATH("exp2", "exp2", UNARY16, CALL),
    MATH("fabs", "fabs", UNARY16, CALL),
    MATH("atan2", "atan2", BINARY_INT, CALL),
    MATH("hypot", "hypot", BINARY_INT, CALL),
    MATH("copysign", "copysign", BINARY, CALL),
    MATH("fmod", "fmod", BINARY, CALL),
    MATH("remainder", "remainder", BINARY, CALL),
    MATH("nextafter", "nextafter", BINARY, CALL),
    MATH("pow", "pow",
         SIGS("float32(float32, float32)", "float64(float64, float64)", "float32(float32, int32)",
              "float64(float64, int32)"),
         POWI),
    MATH("ldexp", "ldexp", SIGS("float32(float32, int32)", "float64(float64, int32)"), CALL),
    MATH("isnan", "isnan", PREDICATES, PREDICATE),
    MATH("isinf", "isinf", PREDICATES, PREDICATE),
    MATH("isfinite", "isfinite", PREDICATES, PREDICATE),
    MATH("frexp", "frexp", SIGS("Tuple(float32, int32)(float32)", "Tuple(float64, int32)(float64)"),
         FREXP),
    /* float64 first, as numba-cuda declares them: modf(bool) is float64's */
    MATH("modf", "modf", SIGS("UniTuple(float64 x 2)(float64)", "UniTuple(float32 x 2)(float32)"),
         MODF),
    {"cuda.fp16.hadd", H2, NULL, NULL, lower_half, "add.f16", H_ASM, false},
    {"cuda.fp16.hsub", H2, NULL, NULL, lower_half, "sub.f16", H_ASM, false},
    {"cuda.fp16.hmul", H2, NULL, NULL, lower_half, "mul.f16", H_ASM, false},
    {"cuda.fp16.hdiv", H2, NULL, NULL, lower_half, NULL, H_DIV, false},
    {"cuda.fp16.hneg", SIGS("float16(float16)"), NULL, NULL, lower_half, "neg.f16", H_ASM, false},
    {"cuda.fp16.habs", SIGS("float16(float16)"), NULL, NULL, lower_half, "abs.f16", H_ASM, false},
    {"cuda.fp16.hfma", SIGS("float16(float16, float16, float16)"), NULL, NULL, lower_half,
     "fma.rn.f16", H_ASM, false},
    {"cuda.fp16.heq", HCMP, NULL, NULL, lower_half, "eq", H_COMPARE, false},
    {"cuda.fp16.hne", HCMP, NULL, NULL, lower_half, "neu", H_COMPARE, false},
    {"cuda.fp16.hgt", HCMP, NULL, NULL, lower_half, "gt", H_COMPARE, false},
    {"cuda.fp16.hge", HCMP, NULL, NULL, lower_half, "ge", H_COMPARE, false},
    {"cuda.fp16.hlt", HCMP, NULL, NULL, lower_half, "lt", H_COMPARE, false},
    {"cuda.fp16.hle", HCMP, NULL, NULL, lower_half, "le", H_COMPARE, false},
    {"cuda.fp16.hmax", H2, NULL, NULL, lower_half, "gt", H_SELECT, false},
    {"cuda.fp16.hmin", H2, NULL, NULL, lower_half, "lt", H_SELECT, false},
};
const size_t cuplug__num_builtins_math =
    sizeof cuplug__builtins_math / sizeof cuplug__builtins_math[0];
