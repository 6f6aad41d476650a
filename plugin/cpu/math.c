/* math.c - the NVVM intrinsics libdevice calls, and its inline PTX, in C.
 *
 * libdevice.10.bc is LLVM bitcode that LLVM 22 reads: linked into the
 * host module (libdevice.c), its __nv_* functions run on the CPU once the
 * intrinsics they call exist here, by the names LLVM 22's reader gives
 * them (fabs.f becomes fabs.f32, ex2.approx.f ex2.approx.f32, and
 * tanh.approx.f32 the generic llvm.tanh, which libm's tanhf computes).
 * What PTX rounds exactly, this rounds exactly, so that integer and
 * correctly rounded operations give the GPU's bits:
 *
 *   add, mul, div, fma, sqrt, rcp in the four rounding modes (.rn .rz .rm
 *   .rp): the host's own operation under fesetround (this file is built
 *   with -frounding-math);
 *   .ftz: subnormal inputs and results flushed to a zero of their sign;
 *   conversions: PTX's cvt, which saturates to the integer's range and
 *   makes NaN 0;
 *   min, max: PTX's min.f32 (a NaN loses to a number; -0 is below +0).
 *
 * The .approx operations (ex2, lg2, sin, cos, rsqrt, rcp, div, sqrt) and
 * div.full are the exact ones here: within the GPU's documented error of the true
 * value, but not its bits. */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "plugin/cpu/math.h"

#define RN FE_TONEAREST
#define RZ FE_TOWARDZERO
#define RM FE_DOWNWARD
#define RP FE_UPWARD

static float ftz(float x) { return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x; }
static double ftzd(double x) { return fpclassify(x) == FP_SUBNORMAL ? copysign(0.0, x) : x; }

/* ---- arithmetic in a rounding mode ---- */

#define IN_MODE(T, mode, expr)          \
  do {                                  \
    int old_ = fegetround();            \
    fesetround(mode);                   \
    volatile T r_ = (expr);             \
    fesetround(old_);                   \
    return r_;                          \
  } while (0)

#define BINARY(name, op, M)                                                             \
  static float name##_##M##_f(float a, float b) { IN_MODE(float, M, a op b); }          \
  static float name##_##M##_ftz_f(float a, float b) { IN_MODE(float, M, ftz(ftz(a) op ftz(b))); } \
  static double name##_##M##_d(double a, double b) { IN_MODE(double, M, a op b); }
#define FOUR(macro, name, op) macro(name, op, RN) macro(name, op, RZ) macro(name, op, RM) macro(name, op, RP)
FOUR(BINARY, add, +)
FOUR(BINARY, sub, -)
FOUR(BINARY, mul, *)
FOUR(BINARY, div, /)

#define FMA(M)                                                                              \
  static float fma_##M##_f(float a, float b, float c) { IN_MODE(float, M, fmaf(a, b, c)); } \
  static float fma_##M##_ftz_f(float a, float b, float c) {                                 \
    IN_MODE(float, M, ftz(fmaf(ftz(a), ftz(b), ftz(c))));                                   \
  }                                                                                         \
  static double fma_##M##_d(double a, double b, double c) { IN_MODE(double, M, fma(a, b, c)); }
FMA(RN) FMA(RZ) FMA(RM) FMA(RP)

#define UNARY(name, fexpr, dexpr, M)                                                 \
  static float name##_##M##_f(float a) { IN_MODE(float, M, fexpr); }                 \
  static float name##_##M##_ftz_f(float a) {                                         \
    a = ftz(a);                                                                      \
    IN_MODE(float, M, ftz(fexpr));                                                   \
  }                                                                                  \
  static double name##_##M##_d(double a) { IN_MODE(double, M, dexpr); }
#define FOUR_UNARY(name, fexpr, dexpr) \
  UNARY(name, fexpr, dexpr, RN) UNARY(name, fexpr, dexpr, RZ) UNARY(name, fexpr, dexpr, RM) \
  UNARY(name, fexpr, dexpr, RP)
FOUR_UNARY(sqrt, sqrtf(a), sqrt(a))
FOUR_UNARY(rcp, 1.0f / a, 1.0 / a)

/* ---- conversions (cvt): saturating, NaN to 0 ---- */

#define TO_INT(name, T, F, lo, hi, fin, M)                        \
  static T name##_##M(F x) {                                      \
    x = fin(x);                                                   \
    if (isnan(x)) return 0;                                       \
    int old_ = fegetround();                                      \
    fesetround(M);                                                \
    volatile F r = sizeof(F) == 4 ? nearbyintf((float)x) : nearbyint((double)x); \
    fesetround(old_);                                             \
    if (r <= (F)(lo)) return (T)(lo);                             \
    if (r >= (F)(hi)) return (T)(hi);                             \
    return (T)r;                                                  \
  }
#define NOFTZ(x) (x)
#define FOUR_TO_INT(name, T, F, lo, hi, fin) \
  TO_INT(name, T, F, lo, hi, fin, RN) TO_INT(name, T, F, lo, hi, fin, RZ) \
  TO_INT(name, T, F, lo, hi, fin, RM) TO_INT(name, T, F, lo, hi, fin, RP)
/* (F)(hi) rounds up to 2^31 and so on: r >= it saturates exactly */
FOUR_TO_INT(f2i, int32_t, float, INT32_MIN, INT32_MAX, NOFTZ)
FOUR_TO_INT(f2i_ftz, int32_t, float, INT32_MIN, INT32_MAX, ftz)
FOUR_TO_INT(f2ui, uint32_t, float, 0, UINT32_MAX, NOFTZ)
FOUR_TO_INT(f2ui_ftz, uint32_t, float, 0, UINT32_MAX, ftz)
FOUR_TO_INT(f2ll, int64_t, float, INT64_MIN, INT64_MAX, NOFTZ)
FOUR_TO_INT(f2ll_ftz, int64_t, float, INT64_MIN, INT64_MAX, ftz)
FOUR_TO_INT(f2ull, uint64_t, float, 0, UINT64_MAX, NOFTZ)
FOUR_TO_INT(f2ull_ftz, uint64_t, float, 0, UINT64_MAX, ftz)
FOUR_TO_INT(d2i, int32_t, double, INT32_MIN, INT32_MAX, NOFTZ)
FOUR_TO_INT(d2ui, uint32_t, double, 0, UINT32_MAX, NOFTZ)
FOUR_TO_INT(d2ll, int64_t, double, INT64_MIN, INT64_MAX, NOFTZ)
FOUR_TO_INT(d2ull, uint64_t, double, 0, UINT64_MAX, NOFTZ)

#define TO_FLOAT(name, T, I, M) \
  static T name##_##M(I x) { IN_MODE(T, M, (T)x); }
#define FOUR_TO_FLOAT(name, T, I) \
  TO_FLOAT(name, T, I, RN) TO_FLOAT(name, T, I, RZ) TO_FLOAT(name, T, I, RM) TO_FLOAT(name, T, I, RP)
FOUR_TO_FLOAT(i2f, float, int32_t)
FOUR_TO_FLOAT(ui2f, float, uint32_t)
FOUR_TO_FLOAT(ll2f, float, int64_t)
FOUR_TO_FLOAT(ull2f, float, uint64_t)
FOUR_TO_FLOAT(i2d, double, int32_t)
FOUR_TO_FLOAT(ui2d, double, uint32_t)
FOUR_TO_FLOAT(ll2d, double, int64_t)
FOUR_TO_FLOAT(ull2d, double, uint64_t)
FOUR_TO_FLOAT(d2f, float, double)
#define D2F_FTZ(M) \
  static float d2f_ftz_##M(double x) { return ftz(d2f_##M(x)); }
D2F_FTZ(RN) D2F_FTZ(RZ) D2F_FTZ(RM) D2F_FTZ(RP)

/* float to half, to nearest even: the bits */
static uint16_t f2h_rn(float x) {
  _Float16 h = (_Float16)x;
  uint16_t bits;
  memcpy(&bits, &h, 2);
  return bits;
}
static uint16_t f2h_rn_ftz(float x) { return f2h_rn(ftz(x)); }

/* ---- the rest ---- */

static float fabs_f(float a) { return fabsf(a); }
static float fabs_ftz_f(float a) { return fabsf(ftz(a)); }
static double fabs_d(double a) { return fabs(a); }
static float floor_f(float a) { return floorf(a); }
static float floor_ftz_f(float a) { return floorf(ftz(a)); }
static double floor_d(double a) { return floor(a); }
static float ceil_f(float a) { return ceilf(a); }
static float ceil_ftz_f(float a) { return ceilf(ftz(a)); }
static double ceil_d(double a) { return ceil(a); }
static float trunc_f(float a) { return truncf(a); }
static double trunc_d(double a) { return trunc(a); }
/* cvt.rni: to the nearest integer, ties to even (rint, not round) */
static float round_f(float a) { return nearbyintf(a); }
static double round_d(double a) { return nearbyint(a); }

/* min.f32: a NaN loses to a number; of two zeros, -0 is the smaller */
static double pick_min(double a, double b) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static double pick_max(double a, double b) {
  if (isnan(a)) return b;
  if (isnan(b)) return a;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static float fmin_f(float a, float b) { return (float)pick_min(a, b); }
static float fmin_ftz_f(float a, float b) { return (float)pick_min(ftz(a), ftz(b)); }
static double fmin_d(double a, double b) { return pick_min(a, b); }
static float fmax_f(float a, float b) { return (float)pick_max(a, b); }
static float fmax_ftz_f(float a, float b) { return (float)pick_max(ftz(a), ftz(b)); }
static double fmax_d(double a, double b) { return pick_max(a, b); }
/* cvt.sat: to [0, 1], NaN to 0 */
static float saturate_f(float a) { return isnan(a) ? 0.0f : a < 0 ? 0.0f : a > 1 ? 1.0f : a; }
static float saturate_ftz_f(float a) { return saturate_f(ftz(a)); }

/* the approximations, exact here */
static float ex2_f(float a) { return exp2f(a); }
static float ex2_ftz_f(float a) { return ftz(exp2f(ftz(a))); }
static double ex2_d(double a) { return exp2(a); }
static float lg2_f(float a) { return log2f(a); }
static float lg2_ftz_f(float a) { return ftz(log2f(ftz(a))); }
static float sin_f(float a) { return sinf(a); }
static float sin_ftz_f(float a) { return ftz(sinf(ftz(a))); }
static float cos_f(float a) { return cosf(a); }
static float cos_ftz_f(float a) { return ftz(cosf(ftz(a))); }
static float rsqrt_f(float a) { return 1.0f / sqrtf(a); }
static float rsqrt_ftz_f(float a) { return ftz(1.0f / sqrtf(ftz(a))); }
static double rsqrt_d(double a) { return 1.0 / sqrt(a); }
static double rsqrt_ftz_d(double a) { return 1.0 / sqrt(ftzd(a)); }
static double rcp_approx_ftz_d(double a) { return ftzd(1.0 / ftzd(a)); }
static float rcp_approx_ftz_f(float a) { return ftz(1.0f / ftz(a)); }
static float div_approx_f(float a, float b) { return a / b; }
static float div_approx_ftz_f(float a, float b) { return ftz(ftz(a) / ftz(b)); }
static float sqrt_approx_f(float a) { return sqrtf(a); }
static float sqrt_approx_ftz_f(float a) { return ftz(sqrtf(ftz(a))); }

/* bits */
static int32_t d2i_hi(double a) {
  uint64_t u;
  memcpy(&u, &a, 8);
  return (int32_t)(u >> 32);
}
static int32_t d2i_lo(double a) {
  uint64_t u;
  memcpy(&u, &a, 8);
  return (int32_t)(uint32_t)u;
}
static double lohi_i2d(int32_t lo, int32_t hi) {
  uint64_t u = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static int32_t mulhi_i(int32_t a, int32_t b) { return (int32_t)(((int64_t)a * b) >> 32); }
static uint32_t mulhi_ui(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
static int64_t mulhi_ll(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }
static uint64_t mulhi_ull(uint64_t a, uint64_t b) {
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
static int32_t sad_i(int32_t a, int32_t b, int32_t c) {
  int64_t d = (int64_t)a - b;
  return (int32_t)((uint32_t)(d < 0 ? -d : d) + (uint32_t)c);
}
static uint32_t sad_ui(uint32_t a, uint32_t b, uint32_t c) { return (a > b ? a - b : b - a) + c; }
/* prmt.b32: each result byte picks one of the eight bytes of {b, a}, or
 * that byte's sign bit when the selector nibble's high bit is set */
static uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t bytes = (uint64_t)b << 32 | a;
  uint32_t r = 0;
  for (int i = 0; i < 4; i++) {
    uint32_t s = (sel >> (4 * i)) & 0xf;
    uint32_t byte = (uint32_t)(bytes >> (8 * (s & 7))) & 0xff;
    if (s & 8) byte = byte & 0x80 ? 0xff : 0;
    r |= byte << (8 * i);
  }
  return r;
}

/* ---- float16: the inline PTX of cuplug's cuda.fp16 built-ins ---- */

/* Bits in and out, as the PTX's "h" registers hold them. */
static _Float16 h_of(uint16_t bits) {
  _Float16 h;
  memcpy(&h, &bits, 2);
  return h;
}
static uint16_t bits_of(_Float16 h) {
  uint16_t bits;
  memcpy(&bits, &h, 2);
  return bits;
}
/* +, -, * of halves in float are exact (float's 24 bits hold twice half's
 * 11 and two more), so one rounding to half is the correct rounding */
static uint16_t h_add(uint16_t a, uint16_t b) { return bits_of((_Float16)((float)h_of(a) + (float)h_of(b))); }
static uint16_t h_sub(uint16_t a, uint16_t b) { return bits_of((_Float16)((float)h_of(a) - (float)h_of(b))); }
static uint16_t h_mul(uint16_t a, uint16_t b) { return bits_of((_Float16)((float)h_of(a) * (float)h_of(b))); }
static uint16_t h_neg(uint16_t a) { return a ^ 0x8000u; }
static uint16_t h_abs(uint16_t a) { return a & 0x7fffu; }
/* fma.rn.f16: a * b + c in double rounded to odd (toward zero, the last
 * bit set when inexact), then to half: one correct rounding */
static uint16_t h_fma(uint16_t a, uint16_t b, uint16_t c) {
  int old = fegetround();
  fesetround(FE_TOWARDZERO);
  feclearexcept(FE_INEXACT);
  volatile double r = fma((double)h_of(a), (double)h_of(b), (double)h_of(c));
  int inexact = fetestexcept(FE_INEXACT);
  fesetround(old);
  double d = r;
  if (inexact && isfinite(d)) {
    uint64_t u;
    memcpy(&u, &d, 8);
    u |= 1;
    memcpy(&d, &u, 8);
  }
  return bits_of((_Float16)d);
}
static float h_to_f(uint16_t a) { return (float)h_of(a); }
static uint16_t f_to_h(float f) { return bits_of((_Float16)f); }
/* setp.<cmp>.f16 then selp.u16 1, 0: ordered compares, and neu */
static uint16_t h_eq(uint16_t a, uint16_t b) { return h_of(a) == h_of(b); }
static uint16_t h_neu(uint16_t a, uint16_t b) { return !(h_of(a) == h_of(b)); }
static uint16_t h_gt(uint16_t a, uint16_t b) { return h_of(a) > h_of(b); }
static uint16_t h_ge(uint16_t a, uint16_t b) { return h_of(a) >= h_of(b); }
static uint16_t h_lt(uint16_t a, uint16_t b) { return h_of(a) < h_of(b); }
static uint16_t h_le(uint16_t a, uint16_t b) { return h_of(a) <= h_of(b); }
/* setp then selp.b16 $0, $1, $2: a when it compares so, else b */
static uint16_t h_pick_gt(uint16_t a, uint16_t b) { return h_gt(a, b) ? a : b; }
static uint16_t h_pick_lt(uint16_t a, uint16_t b) { return h_lt(a, b) ? a : b; }

/* ---- libdevice's inline PTX ---- */

/* {i32, i32} and {i64, i64} come back in rax and rdx: two eightbytes */
typedef struct pair64 {
  uint64_t lo, hi;
} pair64;

/* mad.lo.cc.u32 $0, a, b, c; madc.hi.u32 $1, a, b, 0: a * b + c, split */
static pair64 mad_wide_u32(uint32_t a, uint32_t b, uint32_t c) {
  uint64_t full = (uint64_t)a * b + c;
  return (pair64){(uint32_t)full, full >> 32};
}
static pair64 mul_wide_u64(uint64_t a, uint64_t b) {
  unsigned __int128 p = (unsigned __int128)a * b;
  return (pair64){(uint64_t)p, (uint64_t)(p >> 64)};
}
static pair64 mad_wide_u64(uint64_t a, uint64_t b, uint64_t c) {
  unsigned __int128 p = (unsigned __int128)a * b + c;
  return (pair64){(uint64_t)p, (uint64_t)(p >> 64)};
}
static pair64 add_u128(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi) {
  unsigned __int128 r = ((unsigned __int128)ahi << 64 | alo) + ((unsigned __int128)bhi << 64 | blo);
  return (pair64){(uint64_t)r, (uint64_t)(r >> 64)};
}
static pair64 sub_u128(uint64_t alo, uint64_t ahi, uint64_t blo, uint64_t bhi) {
  unsigned __int128 r = ((unsigned __int128)ahi << 64 | alo) - ((unsigned __int128)bhi << 64 | blo);
  return (pair64){(uint64_t)r, (uint64_t)(r >> 64)};
}
/* setp.equ.f64 p, a, b (equal or unordered); selp.f64 $0, c, d, p */
static double select_equ(double a, double b, double c, double d) {
  return a == b || isnan(a) || isnan(b) ? c : d;
}
/* bfind.shiftamt.u32: the left shift that brings the top set bit to bit 31 */
static uint32_t bfind_shiftamt(uint32_t x) { return x ? (uint32_t)__builtin_clz(x) : 0xffffffffu; }

/* ---- the tables ---- */

#define FN(f) ((void *)(uintptr_t)(f))
#define MODES4(prefix, name, suffix)                                          \
  {prefix ".rn" suffix, FN(name##_RN)}, {prefix ".rz" suffix, FN(name##_RZ)}, \
      {prefix ".rm" suffix, FN(name##_RM)}, {prefix ".rp" suffix, FN(name##_RP)}
#define ARITH(op)                                                                      \
  {#op ".rn.f", FN(op##_RN_f)}, {#op ".rz.f", FN(op##_RZ_f)},                          \
      {#op ".rm.f", FN(op##_RM_f)}, {#op ".rp.f", FN(op##_RP_f)},                      \
      {#op ".rn.ftz.f", FN(op##_RN_ftz_f)}, {#op ".rz.ftz.f", FN(op##_RZ_ftz_f)},      \
      {#op ".rm.ftz.f", FN(op##_RM_ftz_f)}, {#op ".rp.ftz.f", FN(op##_RP_ftz_f)},      \
      {#op ".rn.d", FN(op##_RN_d)}, {#op ".rz.d", FN(op##_RZ_d)},                      \
      {#op ".rm.d", FN(op##_RM_d)}, {#op ".rp.d", FN(op##_RP_d)}

static const cuplug__cpu_symbol intrinsics[] = {
    ARITH(add), ARITH(mul), ARITH(div), ARITH(fma), ARITH(sqrt), ARITH(rcp),
    MODES4("f2i", f2i, ""), MODES4("f2i", f2i_ftz, ".ftz"), MODES4("f2ui", f2ui, ""),
    MODES4("f2ui", f2ui_ftz, ".ftz"), MODES4("f2ll", f2ll, ""), MODES4("f2ll", f2ll_ftz, ".ftz"),
    MODES4("f2ull", f2ull, ""), MODES4("f2ull", f2ull_ftz, ".ftz"), MODES4("d2i", d2i, ""),
    MODES4("d2ui", d2ui, ""), MODES4("d2ll", d2ll, ""), MODES4("d2ull", d2ull, ""),
    MODES4("i2f", i2f, ""), MODES4("ui2f", ui2f, ""), MODES4("ll2f", ll2f, ""),
    MODES4("ull2f", ull2f, ""), MODES4("i2d", i2d, ""), MODES4("ui2d", ui2d, ""),
    MODES4("ll2d", ll2d, ""), MODES4("ull2d", ull2d, ""), MODES4("d2f", d2f, ""),
    MODES4("d2f", d2f_ftz, ".ftz"),
    {"f2h.rn", FN(f2h_rn)}, {"f2h.rn.ftz", FN(f2h_rn_ftz)},
    {"fabs.f32", FN(fabs_f)}, {"fabs.ftz.f32", FN(fabs_ftz_f)}, {"fabs.f64", FN(fabs_d)},
    {"floor.f", FN(floor_f)}, {"floor.ftz.f", FN(floor_ftz_f)}, {"floor.d", FN(floor_d)},
    {"ceil.f", FN(ceil_f)}, {"ceil.ftz.f", FN(ceil_ftz_f)}, {"ceil.d", FN(ceil_d)},
    {"trunc.f", FN(trunc_f)}, {"trunc.d", FN(trunc_d)},
    {"round.f", FN(round_f)}, {"round.d", FN(round_d)},
    {"fmin.f", FN(fmin_f)}, {"fmin.ftz.f", FN(fmin_ftz_f)}, {"fmin.d", FN(fmin_d)},
    {"fmax.f", FN(fmax_f)}, {"fmax.ftz.f", FN(fmax_ftz_f)}, {"fmax.d", FN(fmax_d)},
    {"saturate.f", FN(saturate_f)}, {"saturate.ftz.f", FN(saturate_ftz_f)},
    {"ex2.approx.f32", FN(ex2_f)}, {"ex2.approx.ftz.f32", FN(ex2_ftz_f)},
    {"ex2.approx.f64", FN(ex2_d)},
    {"lg2.approx.f", FN(lg2_f)}, {"lg2.approx.ftz.f", FN(lg2_ftz_f)},
    {"sin.approx.f", FN(sin_f)}, {"sin.approx.ftz.f", FN(sin_ftz_f)},
    {"cos.approx.f", FN(cos_f)}, {"cos.approx.ftz.f", FN(cos_ftz_f)},
    {"rsqrt.approx.f", FN(rsqrt_f)}, {"rsqrt.approx.ftz.f", FN(rsqrt_ftz_f)},
    {"rsqrt.approx.d", FN(rsqrt_d)}, {"rcp.approx.ftz.d", FN(rcp_approx_ftz_d)},
    {"div.approx.f", FN(div_approx_f)}, {"div.approx.ftz.f", FN(div_approx_ftz_f)},
    {"div.full", FN(div_approx_f)}, {"div.full.ftz", FN(div_approx_ftz_f)},
    {"sqrt.approx.f", FN(sqrt_approx_f)}, {"sqrt.approx.ftz.f", FN(sqrt_approx_ftz_f)},
    {"d2i.hi", FN(d2i_hi)}, {"d2i.lo", FN(d2i_lo)}, {"lohi.i2d", FN(lohi_i2d)},
    {"mulhi.i", FN(mulhi_i)}, {"mulhi.ui", FN(mulhi_ui)}, {"mulhi.ll", FN(mulhi_ll)},
    {"mulhi.ull", FN(mulhi_ull)}, {"sad.i", FN(sad_i)}, {"sad.ui", FN(sad_ui)},
    {"prmt", FN(prmt)},
    /* cuda.fp16's inline PTX */
    {"asm.add.f16", FN(h_add)}, {"asm.sub.f16", FN(h_sub)}, {"asm.mul.f16", FN(h_mul)},
    {"asm.neg.f16", FN(h_neg)}, {"asm.abs.f16", FN(h_abs)}, {"asm.fma.rn.f16", FN(h_fma)},
    {"asm.cvt.f32.f16", FN(h_to_f)}, {"asm.cvt.rn.f16.f32", FN(f_to_h)},
    {"asm.setp.eq.f16", FN(h_eq)}, {"asm.setp.neu.f16", FN(h_neu)},
    {"asm.setp.gt.f16", FN(h_gt)}, {"asm.setp.ge.f16", FN(h_ge)},
    {"asm.setp.lt.f16", FN(h_lt)}, {"asm.setp.le.f16", FN(h_le)},
    {"asm.max.f16", FN(h_pick_gt)}, {"asm.min.f16", FN(h_pick_lt)},
    /* libdevice's inline PTX, by the runtime names asm_table gives it */
    {"asm.mad.wide.u32", FN(mad_wide_u32)}, {"asm.mul.wide.u64", FN(mul_wide_u64)},
    {"asm.mad.wide.u64", FN(mad_wide_u64)}, {"asm.add.u128", FN(add_u128)},
    {"asm.sub.u128", FN(sub_u128)}, {"asm.select.equ.f64", FN(select_equ)},
    {"asm.bfind.shiftamt.u32", FN(bfind_shiftamt)},
    {"asm.rcp.approx.ftz.f32", FN(rcp_approx_ftz_f)},
    {"asm.rsqrt.approx.ftz.f64", FN(rsqrt_ftz_d)},
    {"asm.sub.rn.f32", FN(sub_RN_f)}, {"asm.sub.rz.f32", FN(sub_RZ_f)},
    {"asm.sub.rm.f32", FN(sub_RM_f)}, {"asm.sub.rp.f32", FN(sub_RP_f)},
    {"asm.sub.rn.ftz.f32", FN(sub_RN_ftz_f)}, {"asm.sub.rz.ftz.f32", FN(sub_RZ_ftz_f)},
    {"asm.sub.rm.ftz.f32", FN(sub_RM_ftz_f)}, {"asm.sub.rp.ftz.f32", FN(sub_RP_ftz_f)},
    {"asm.sub.rn.f64", FN(sub_RN_d)}, {"asm.sub.rz.f64", FN(sub_RZ_d)},
    {"asm.sub.rm.f64", FN(sub_RM_d)}, {"asm.sub.rp.f64", FN(sub_RP_d)},
};

const cuplug__cpu_symbol *cuplug__cpu_math_symbols(size_t *n) {
  *n = sizeof intrinsics / sizeof intrinsics[0];
  return intrinsics;
}
