/* builtins.c - the values cuplug's built-in CUDA library computes, checked
 * the same way on each target: what gpu.builtins (tests/gpu/test_builtins.c,
 * a cubin on the GPU) and host.builtins (tests/host/test_builtins.c, the CPU)
 * share.
 *
 * Each built-in is resolved with resolve_call in the session's registry,
 * called from a small kernel (NVVM IR), compiled for the target, run on
 * deterministic pseudo-random inputs and checked against a host reference:
 *   math.*       libdevice: relative 1e-6 (float32) or 1e-14 (float64), or
 *                exact where the result is (sqrt, floor, fabs, isnan...)
 *   bits         cuda.popc, clz, ffs, brev, fma: exact; cbrt within 1 ulp
 *   cuda.fp16.*  float16 as uint16_t bits: exact (and math on float16)
 *   warps        lane ids, special registers, shuffles, votes, masks
 *   atomics      the pointer form on every dtype it takes; the array form
 *                with negative and tuple indices
 *   grid         cuda.grid and cuda.gridsize on a 2-d launch
 *   arrays       shared (static and dynamic), local and constant arrays
 *   timers       clock64, globaltimer and nanosleep
 * Each family is a case of the suite (gpu.builtins.math, ...), skipped
 * where what it needs on the target is missing: the GPU and the toolkit,
 * or on the CPU libdevice (libNVVM's), for the built-ins that call it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"

static const t_target *target;
static cuplug_session *s;

/* ---- the target's memory (t_dev_*: the host's on the CPU) ---- */

static void dev_free_n(const uint64_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) t_dev_free(s, p[i]);
}
#define DEV_FREE(...) dev_free_n((uint64_t[]){__VA_ARGS__}, sizeof((uint64_t[]){__VA_ARGS__}) / 8)

#define PTR(p) ((cuplug_value){CUPLUG_TYPE_POINTER, &(p)})

/* ---- deterministic pseudo-random numbers (splitmix64), seeded per case ---- */

static uint64_t rng;

static void seed(const char *a, const char *b) {
  rng = 0xcbf29ce484222325u;
  for (const char *p = a; *p; p++) rng = (rng ^ (unsigned char)*p) * 0x100000001b3u;
  for (const char *p = b; *p; p++) rng = (rng ^ (unsigned char)*p) * 0x100000001b3u;
}

static uint64_t next64(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static double uniform(double lo, double hi) {
  return lo + (hi - lo) * (double)(next64() >> 11) * 0x1p-53;
}

/* ---- float16 as bits ---- */

static double half_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double sign = h & 0x8000 ? -1.0 : 1.0;
  if (e == 31) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexp(m, -24);
  return sign * ldexp(1024 + m, e - 25);
}

/* Rounds to the nearest float16, ties to even. */
static uint16_t half_bits(double x) {
  if (isnan(x)) return 0x7e00;
  uint16_t sign = signbit(x) ? 0x8000 : 0;
  double a = fabs(x);
  if (a >= 65520.0) return sign | 0x7c00;
  if (a < 0x1p-14) return sign | (uint16_t)nearbyint(a * 0x1p24); /* 1024 is 0x1p-14 */
  int e;
  frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  double q = nearbyint(ldexp(a, 11 - e)); /* 11 bits: [1024, 2048] */
  if (q == 2048) {
    q = 1024;
    e++;
  }
  if (e + 14 >= 31) return sign | 0x7c00;
  return sign | (uint16_t)((e + 14) << 10) | (uint16_t)(q - 1024);
}

/* ---- values of any scalar kind ---- */

/* A scalar as the device holds it: .u the bits (zero- or sign-extended),
 * .i the same as signed, .f its numeric value. */
typedef struct val {
  int64_t i;
  uint64_t u;
  double f;
} val;

static val F(double x) { return (val){.f = x}; }
static val U(uint64_t x) { return (val){.i = (int64_t)x, .u = x, .f = (double)x}; }

static size_t ksize(cuplug_type_kind k) {
  switch (k) {
    case CUPLUG_TYPE_BOOL: case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_UINT8: return 1;
    case CUPLUG_TYPE_INT16: case CUPLUG_TYPE_UINT16: case CUPLUG_TYPE_FLOAT16: return 2;
    case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_UINT32: case CUPLUG_TYPE_FLOAT32: return 4;
    default: return 8;
  }
}

static bool kfloat(cuplug_type_kind k) {
  return k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_FLOAT64;
}
static bool ksigned(cuplug_type_kind k) { return k >= CUPLUG_TYPE_INT8 && k <= CUPLUG_TYPE_INT64; }

static void put(void *buf, cuplug_type_kind k, size_t i, val v) {
  char *p = (char *)buf + i * ksize(k);
  if (k == CUPLUG_TYPE_FLOAT32) {
    float f = (float)v.f;
    memcpy(p, &f, 4);
  } else if (k == CUPLUG_TYPE_FLOAT64) {
    memcpy(p, &v.f, 8);
  } else {
    memcpy(p, &v.u, ksize(k)); /* little-endian: the low bytes */
  }
}

static val get(const void *buf, cuplug_type_kind k, size_t i) {
  size_t n = ksize(k);
  uint64_t raw = 0;
  memcpy(&raw, (const char *)buf + i * n, n);
  val v = {.i = (int64_t)raw, .u = raw};
  if (k == CUPLUG_TYPE_FLOAT32) {
    float f;
    memcpy(&f, &raw, 4);
    v.f = f;
  } else if (k == CUPLUG_TYPE_FLOAT64) {
    memcpy(&v.f, &raw, 8);
  } else if (k == CUPLUG_TYPE_FLOAT16) {
    v.f = half_value((uint16_t)raw);
  } else if (ksigned(k)) {
    unsigned shift = 64 - 8 * (unsigned)n;
    v.i = (int64_t)(raw << shift) >> shift;
    v.u = (uint64_t)v.i;
    v.f = (double)v.i;
  } else {
    v.f = (double)raw;
  }
  return v;
}

/* Through the device's representation: rounded or truncated, then extended. */
static val as_kind(cuplug_type_kind k, val v) {
  char b[8];
  put(b, k, 0, v);
  return get(b, k, 0);
}

static const char *show(cuplug_type_kind k, val v, char *buf, size_t n) {
  if (kfloat(k)) {
    val b = as_kind(k, v); /* float32: the value rounded, and its bits */
    snprintf(buf, n, "%.*g (0x%llx)", k == CUPLUG_TYPE_FLOAT32 ? 9 : 17, b.f,
             (unsigned long long)b.u);
  } else if (k == CUPLUG_TYPE_FLOAT16)
    snprintf(buf, n, "0x%04llx (%g)", (unsigned long long)(v.u & 0xffff),
             half_value((uint16_t)v.u));
  else if (ksigned(k))
    snprintf(buf, n, "%lld", (long long)v.i);
  else
    snprintf(buf, n, "%llu (0x%llx)", (unsigned long long)v.u, (unsigned long long)v.u);
  return buf;
}

/* Ulps between two floats of kind k (both finite). */
static uint64_t ulps(cuplug_type_kind k, double a, double b) {
  int64_t x, y;
  if (k == CUPLUG_TYPE_FLOAT32) {
    float fa = (float)a, fb = (float)b;
    int32_t ia, ib;
    memcpy(&ia, &fa, 4);
    memcpy(&ib, &fb, 4);
    x = ia < 0 ? INT32_MIN - (int64_t)ia : ia;
    y = ib < 0 ? INT32_MIN - (int64_t)ib : ib;
  } else {
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    x = x < 0 ? INT64_MIN - x : x;
    y = y < 0 ? INT64_MIN - y : y;
  }
  return x > y ? (uint64_t)x - (uint64_t)y : (uint64_t)y - (uint64_t)x;
}

typedef enum { EXACT, REL, ULP1 } check_t;

/* Does `got` (as the device wrote it) agree with the reference `want`? */
static bool agrees(cuplug_type_kind k, check_t c, val got, val want) {
  if (kfloat(k)) {
    double g = got.f, w = k == CUPLUG_TYPE_FLOAT32 ? (double)(float)want.f : want.f;
    if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
    if (c == EXACT) return g == w && signbit(g) == signbit(w);
    if (g == w) return true;
    if (isinf(g) || isinf(w)) return false;
    if (c == ULP1) return ulps(k, g, w) <= 1;
    return fabs(g - w) <= (k == CUPLUG_TYPE_FLOAT32 ? 1e-6 : 1e-14) * fabs(w);
  }
  unsigned bits = 8 * (unsigned)ksize(k);
  uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
  return (got.u & mask) == (want.u & mask);
}

/* -1, 0, 1 in the order of kind k. */
static int order(cuplug_type_kind k, val a, val b) {
  if (kfloat(k)) return a.f < b.f ? -1 : a.f > b.f;
  if (ksigned(k)) return a.i < b.i ? -1 : a.i > b.i;
  return a.u < b.u ? -1 : a.u > b.u;
}

static cuplug_type_kind sort_kind;
static int by_order(const void *a, const void *b) {
  return order(sort_kind, *(const val *)a, *(const val *)b);
}
static void sort_vals(val *v, size_t n, cuplug_type_kind k) {
  sort_kind = k;
  qsort(v, n, sizeof *v, by_order);
}

/* ---- types and resolution ---- */

/* key(argtypes) in the session's registry: a C-ABI symbol to call. */
static cuplug_resolve_args resolve(const char *key, const char *argtypes) {
  const cuplug_type *const *args;
  size_t n;
  t_argtypes(argtypes, &args, &n);
  cuplug_resolve_args r = {.struct_size = sizeof r, .registry = t_api()->session_registry(s),
                           .key = key, .argtypes = args, .nargs = n};
  T_ASSERT_OK(t_api()->resolve_call(&r));
  ck_assert_msg(r.abi == CUPLUG_ABI_C, "%s(%s) resolves to a Numba-ABI symbol", key, argtypes);
  return r;
}

static const char *restype_ir(const cuplug_resolve_args *r) {
  return t_ir_type(t_type_info(r->signature).restype);
}

/* ---- writing IR ---- */

typedef struct sbuf {
  char *s;
  size_t len, cap;
} sbuf;

__attribute__((format(printf, 2, 3))) static void sbf(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (b->len + (size_t)n + 1 > b->cap) {
    b->cap = (b->len + (size_t)n + 1) * 2;
    b->s = realloc(b->s, b->cap);
    ck_assert_ptr_nonnull(b->s);
  }
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

/* %i: the thread's global index (x), %t its index in the block, both i64. */
static const char gid_ir[] =
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %base = mul i32 %ntid, %ctaid\n"
    "  %i32 = add i32 %base, %tid\n"
    "  %i = sext i32 %i32 to i64\n"
    "  %t = sext i32 %tid to i64\n";

static const char sreg_decls[] =
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.y()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()\n";

/* A template's {NAME}s replaced: {GID} by gid_ir, the rest from dict
 * (name, value pairs, NULL-terminated).  Other braces are IR's. */
static void expand(sbuf *b, const char *t, const char *const *dict) {
  while (*t) {
    size_t n = *t == '{' ? strspn(t + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") : 0;
    const char *value = NULL;
    if (n && t[1 + n] == '}') {
      if (n == 3 && !strncmp(t + 1, "GID", 3)) value = gid_ir;
      for (size_t d = 0; dict && dict[d] && !value; d += 2)
        if (strlen(dict[d]) == n && !strncmp(t + 1, dict[d], n)) value = dict[d + 1];
      ck_assert_msg(value != NULL, "template name {%.*s} has no value", (int)n, t + 1);
      sbf(b, "%s", value);
      t += n + 2;
    } else {
      sbf(b, "%c", *t++);
    }
  }
}

/* "declare R @symbol(parts...)" for a resolved call. */
static void declare(sbuf *b, const cuplug_resolve_args *r) {
  cuplug_type_lower_args l = {.struct_size = sizeof l, .type = r->signature, .abi = CUPLUG_ABI_C};
  T_ASSERT_OK(t_api()->type_lower(&l));
  sbf(b, "declare %s @%s(", restype_ir(r), r->symbol);
  for (size_t p = 0; p < l.num_parts; p++) sbf(b, "%s%s", p ? ", " : "", l.parts[p]);
  sbf(b, ")\n");
}

typedef struct kern {
  cuplug_library *lib;
  cuplug_kernel *k;
} kern;

/* Compiles kernel @k (C ABI entry, signature ksig) for the target, and
 * loads it. */
static kern build(const char *ir, const char *ksig) {
  cuplug_module m = {sizeof m, "test", ir, strlen(ir)};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = "k", .signature = ksig,
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL,
                           .output = target->output, .flags = target->flags};
  cuplug_error *e = t_api()->compile(&a);
  if (e) fprintf(stderr, "kernel %s failed to compile:\n%s\n", ksig, ir);
  T_ASSERT_OK(e);
  kern k = {0};
  cuplug_load_args la = {.struct_size = sizeof la, .session = s, .artifact = a.artifact};
  T_ASSERT_OK(t_api()->load(&la));
  t_api()->artifact_destroy(a.artifact); /* the library keeps what it needs */
  k.lib = la.library;
  cuplug_kernel_args ka = {.struct_size = sizeof ka, .library = k.lib};
  T_ASSERT_OK(t_api()->kernel_get(&ka));
  k.k = ka.kernel;
  return k;
}

/* A template expanded, the calls declared, compiled and loaded. */
static kern build_template(const char *tmpl, const char *const *dict,
                           const cuplug_resolve_args *calls, size_t ncalls, const char *ksig) {
  sbuf b = {0};
  expand(&b, tmpl, dict);
  sbf(&b, "\n%s", sreg_decls);
  for (size_t c = 0; c < ncalls; c++) declare(&b, &calls[c]);
  kern k = build(b.s, ksig);
  free(b.s);
  return k;
}

static void unload(kern k) { t_api()->library_unload(k.lib); }

static void launch(kern k, unsigned gx, unsigned gy, unsigned bx, unsigned by,
                   const cuplug_value *v, size_t n, uint32_t shared_mem) {
  cuplug_launch_args a = {.struct_size = sizeof a, .kernel = k.k, .grid = {gx, gy, 1},
                          .block = {bx, by, 1}, .args = v, .num_args = n,
                          .shared_mem = shared_mem};
  T_ASSERT_OK(t_api()->launch(&a));
  if (target->synchronize) T_ASSERT_OK(t_api()->synchronize(s));
}

/* ---- elementwise: thread i computes out[i] = key(in0[i], in1[i], ...) ---- */

/* How inputs are drawn (floats; integers where it says so). */
typedef enum {
  G_REAL,    /* [-100, 100]; integers [-1000, 1000] ([0, 1000] unsigned) */
  G_POS,     /* [0.001, 100] */
  G_EXP,     /* [-20, 20] */
  G_SMALL,   /* [-4, 4]; integers [-6, 6] */
  G_UNIT,    /* [0.5, 2] */
  G_SPECIAL, /* G_REAL with NaN, +-inf, +-0, halves and large values */
  G_FINITE,  /* G_SPECIAL without NaN and inf */
  G_BITS,    /* integers: random bits, with 0, all ones and single bits */
  G_HALF, G_HALF_NZ, G_HALF_POS, /* float16 k/64, |k| <= 640 (not 0; > 0) */
  G_HALF_COARSE, /* float16 k/4, |k| <= 20, with -0: many ties */
  G_ZERO, G_ONE, G_MASK, /* 0, 1, all ones */
  G_LANE,    /* a random lane */
  G_EVERY3,  /* i % 3 == 0 */
  G_VOTE     /* per warp: all, none, only lane 5, all but lane 7 */
} gen_t;

static val generate(gen_t g, cuplug_type_kind k, size_t i) {
  double x = 0;
  unsigned bits = 8 * (unsigned)ksize(k);
  switch (g) {
    case G_BITS: {
      uint64_t u = next64();
      if (i % 16 == 0) u = 0;
      if (i % 16 == 1) u = ~0ull;
      if (i % 16 == 2) u = 1ull << (i / 16 % bits);
      return U(u);
    }
    case G_MASK: return U(~0ull);
    case G_HALF: case G_HALF_NZ: case G_HALF_POS: {
      int q;
      do q = (int)(next64() % 1281) - 640;
      while ((g != G_HALF && q == 0) || (g == G_HALF_POS && q < 0));
      return U(half_bits(q / 64.0));
    }
    case G_HALF_COARSE: {
      int q = i % 16 == 0 ? 0 : (int)(next64() % 41) - 20; /* 0: +0 or -0 */
      return U(half_bits(q == 0 && next64() % 2 ? -0.0 : q / 4.0));
    }
    case G_ZERO: x = 0; break;
    case G_ONE: x = 1; break;
    case G_LANE: x = (double)(next64() % 32); break;
    case G_EVERY3: x = i % 3 == 0; break;
    case G_VOTE: {
      size_t w = i / 32 % 4, lane = i % 32;
      x = w == 0 || (w == 2 && lane == 5) || (w == 3 && lane != 7);
      if (x && kfloat(k)) x = 1.5;
      break;
    }
    case G_REAL:
      if (kfloat(k)) x = uniform(-100, 100);
      else x = ksigned(k) ? (double)(next64() % 2001) - 1000 : (double)(next64() % 1001);
      break;
    case G_POS: x = uniform(1e-3, 100); break;
    case G_EXP: x = uniform(-20, 20); break;
    case G_SMALL: x = kfloat(k) ? uniform(-4, 4) : (double)(next64() % 13) - 6; break;
    case G_UNIT: x = uniform(0.5, 2); break;
    case G_SPECIAL: case G_FINITE:
      switch (i % 16) {
        case 3: x = NAN; break;
        case 5: x = INFINITY; break;
        case 7: x = -INFINITY; break;
        case 9: x = -0.0; break;
        case 11: x = 0.0; break;
        case 13: x = -(double)(i % 7) - 0.5; break; /* halves: floor, ceil and trunc differ */
        case 15: x = i % 32 == 15 ? 1e30 : -1e30; break;
        default: x = uniform(-100, 100); break;
      }
      if (g == G_FINITE && !isfinite(x)) x = uniform(-100, 100);
      break;
  }
  if (k == CUPLUG_TYPE_FLOAT16) return U(half_bits(x));
  if (kfloat(k)) return F(x);
  return U((uint64_t)(int64_t)x);
}

/* The reference of one element: in[a][i] is argument a of thread i. */
typedef val (*ref_fn)(val *const *in, size_t i);

typedef struct ew_case {
  const char *key, *args;
  gen_t gen[3];
  ref_fn ref;
  check_t check;
} ew_case;

enum { EW_N = 1024, EW_BLOCK = 128 }; /* full warps: 32 of them in 8 blocks */

#define X(a) in[a][i]
#define REF(name, expr)                                                                          \
  static val name(val *const *in, size_t i) {                                                    \
    (void)in;                                                                                     \
    (void)i;                                                                                      \
    return (expr);                                                                                \
  }

static void run_elementwise(const ew_case *c) {
  cuplug_resolve_args r = resolve(c->key, c->args);
  cuplug_type_info si = t_type_info(r.signature);
  cuplug_type_kind rk = t_type_info(si.restype).kind, ak[3] = {0};
  ck_assert_uint_le(si.num_args, 3);
  char ksig[1024];
  char *ir = t_elementwise_kernel(r.signature, r.symbol, ksig, sizeof ksig);
  kern k = build(ir, ksig);
  free(ir);

  seed(c->key, c->args);
  val *in[3] = {0};
  uint64_t dev[4];
  cuplug_value v[4];
  size_t out_bytes = EW_N * ksize(rk);
  dev[0] = t_dev_alloc(s, out_bytes);
  v[0] = PTR(dev[0]);
  for (size_t a = 0; a < si.num_args; a++) {
    ak[a] = t_type_info(si.args[a]).kind;
    void *host = calloc(EW_N, ksize(ak[a]));
    in[a] = calloc(EW_N, sizeof(val));
    for (size_t i = 0; i < EW_N; i++) {
      put(host, ak[a], i, generate(c->gen[a], ak[a], i));
      in[a][i] = get(host, ak[a], i); /* as the device sees it */
    }
    dev[a + 1] = t_dev_copy(s, host, EW_N * ksize(ak[a]));
    v[a + 1] = PTR(dev[a + 1]);
    free(host);
  }
  launch(k, EW_N / EW_BLOCK, 1, EW_BLOCK, 1, v, si.num_args + 1, 0);
  void *got = malloc(out_bytes);
  t_to_host(s, got, dev[0], out_bytes);
  for (size_t i = 0; i < EW_N; i++) {
    val have = get(got, rk, i), want = c->ref(in, i);
    if (agrees(rk, c->check, have, want)) continue;
    char h[64], w[64], args[3][64] = {"", "", ""};
    for (size_t a = 0; a < si.num_args; a++) show(ak[a], in[a][i], args[a], sizeof args[a]);
    ck_assert_msg(0, "%s(%s): element %zu: got %s, expected %s; arguments %s %s %s", c->key,
                  c->args, i, show(rk, have, h, sizeof h), show(rk, want, w, sizeof w), args[0],
                  args[1], args[2]);
  }
  free(got);
  dev_free_n(dev, si.num_args + 1);
  for (size_t a = 0; a < 3; a++) free(in[a]);
  unload(k);
}

/* ---- math ---- */

REF(r_sin, F(sin(X(0).f)))
REF(r_cos, F(cos(X(0).f)))
REF(r_exp, F(exp(X(0).f)))
REF(r_log, F(log(X(0).f)))
REF(r_sqrt, F(sqrt(X(0).f)))
REF(r_pow, F(pow(X(0).f, X(1).f)))
REF(r_atan2, F(atan2(X(0).f, X(1).f)))
REF(r_floor, F(floor(X(0).f)))
REF(r_ceil, F(ceil(X(0).f)))
REF(r_trunc, F(trunc(X(0).f)))
REF(r_fabs, F(fabs(X(0).f)))
REF(r_isnan, U(isnan(X(0).f) != 0))
REF(r_isinf, U(isinf(X(0).f) != 0))
REF(r_isfinite, U(isfinite(X(0).f) != 0))
REF(r_degrees, F(X(0).f * (180.0 / M_PI)))
REF(r_nextafter, F(nextafter(X(0).f, X(1).f)))
REF(r_nextafterf, F(nextafterf((float)X(0).f, (float)X(1).f)))

#define MATH2(key, gen, ref, check)                                                              \
  {key, "float32", {gen}, ref, check}, { key, "float64", {gen}, ref, check }

static const ew_case math_cases[] = {
    MATH2("math.sin", G_REAL, r_sin, REL),
    MATH2("math.cos", G_REAL, r_cos, REL),
    MATH2("math.exp", G_EXP, r_exp, REL),
    MATH2("math.log", G_POS, r_log, REL),
    MATH2("math.sqrt", G_POS, r_sqrt, EXACT), /* IEEE: correctly rounded */
    MATH2("math.floor", G_SPECIAL, r_floor, EXACT),
    MATH2("math.ceil", G_SPECIAL, r_ceil, EXACT),
    MATH2("math.trunc", G_SPECIAL, r_trunc, EXACT),
    MATH2("math.fabs", G_SPECIAL, r_fabs, EXACT),
    MATH2("math.isnan", G_SPECIAL, r_isnan, EXACT),
    MATH2("math.isinf", G_SPECIAL, r_isinf, EXACT),
    MATH2("math.isfinite", G_SPECIAL, r_isfinite, EXACT),
    MATH2("math.degrees", G_REAL, r_degrees, REL),
    {"math.atan2", "float32, float32", {G_REAL, G_REAL}, r_atan2, REL},
    {"math.atan2", "float64, float64", {G_REAL, G_REAL}, r_atan2, REL},
    {"math.nextafter", "float32, float32", {G_REAL, G_REAL}, r_nextafterf, EXACT},
    {"math.nextafter", "float64, float64", {G_REAL, G_REAL}, r_nextafter, EXACT},
    {"math.pow", "float32, float32", {G_POS, G_SMALL}, r_pow, REL},
    {"math.pow", "float64, float64", {G_POS, G_SMALL}, r_pow, REL},
    {"math.pow", "float32, int32", {G_UNIT, G_SMALL}, r_pow, REL},
    {"math.pow", "float64, int32", {G_UNIT, G_SMALL}, r_pow, REL},
    {"math.sin", "int64", {G_REAL}, r_sin, REL}, /* float64(int64) */
    {"math.sqrt", "uint64", {G_REAL}, r_sqrt, EXACT},
    {"math.isnan", "int64", {G_REAL}, r_isnan, EXACT},
    {"math.isfinite", "int64", {G_REAL}, r_isfinite, EXACT},
};

START_TEST(math_values) { run_elementwise(&math_cases[_i]); }
END_TEST

/* ---- bits, fma, cbrt ---- */

static uint64_t brev(uint64_t x, unsigned bits) {
  uint64_t r = 0;
  for (unsigned b = 0; b < bits; b++) r |= ((x >> b) & 1) << (bits - 1 - b);
  return r;
}

REF(r_popc32, U((uint64_t)__builtin_popcountll(X(0).u & 0xffffffffu)))
REF(r_popc64, U((uint64_t)__builtin_popcountll(X(0).u)))
REF(r_clz32, U((uint32_t)X(0).u ? (uint64_t)__builtin_clz((uint32_t)X(0).u) : 32))
REF(r_clz64, U(X(0).u ? (uint64_t)__builtin_clzll(X(0).u) : 64))
REF(r_ffs32, U((uint64_t)__builtin_ffs((int)(uint32_t)X(0).u)))
REF(r_ffs64, U((uint64_t)__builtin_ffsll((long long)X(0).u)))
REF(r_ffs8, U((uint64_t)__builtin_ffs((int)(int8_t)X(0).u)))
REF(r_ffs16, U((uint64_t)__builtin_ffs((int)(uint16_t)X(0).u)))
REF(r_brev32, U(brev(X(0).u, 32)))
REF(r_brev64, U(brev(X(0).u, 64)))
REF(r_fmaf, F(fmaf((float)X(0).f, (float)X(1).f, (float)X(2).f)))
REF(r_fma, F(fma(X(0).f, X(1).f, X(2).f)))
REF(r_cbrtf, F(cbrt(X(0).f)))
REF(r_cbrt, F((double)cbrtl((long double)X(0).f)))

static const ew_case bit_cases[] = {
    {"cuda.popc", "int32", {G_BITS}, r_popc32, EXACT},
    {"cuda.popc", "uint32", {G_BITS}, r_popc32, EXACT},
    {"cuda.popc", "int64", {G_BITS}, r_popc64, EXACT},
    {"cuda.popc", "uint64", {G_BITS}, r_popc64, EXACT},
    {"cuda.clz", "int32", {G_BITS}, r_clz32, EXACT},
    {"cuda.clz", "uint32", {G_BITS}, r_clz32, EXACT},
    {"cuda.clz", "int64", {G_BITS}, r_clz64, EXACT},
    {"cuda.clz", "uint64", {G_BITS}, r_clz64, EXACT},
    {"cuda.fma", "float32, float32, float32", {G_REAL, G_REAL, G_REAL}, r_fmaf, EXACT},
    {"cuda.fma", "float64, float64, float64", {G_REAL, G_REAL, G_REAL}, r_fma, EXACT},
};
/* through libdevice, on the CPU too */
static const ew_case libdevice_bit_cases[] = {
    {"cuda.ffs", "int32", {G_BITS}, r_ffs32, EXACT},
    {"cuda.ffs", "uint32", {G_BITS}, r_ffs32, EXACT},
    {"cuda.ffs", "int64", {G_BITS}, r_ffs64, EXACT},
    {"cuda.ffs", "int8", {G_BITS}, r_ffs8, EXACT}, /* numba-cuda's 8 and 16-bit forms */
    {"cuda.ffs", "uint16", {G_BITS}, r_ffs16, EXACT},
    {"cuda.ffs", "uint64", {G_BITS}, r_ffs64, EXACT},
    {"cuda.brev", "uint32", {G_BITS}, r_brev32, EXACT},
    {"cuda.brev", "uint64", {G_BITS}, r_brev64, EXACT},
    {"cuda.cbrt", "float32", {G_REAL}, r_cbrtf, ULP1},
    {"cuda.cbrt", "float64", {G_REAL}, r_cbrt, ULP1},
};

START_TEST(bit_values) { run_elementwise(&bit_cases[_i]); }
END_TEST

START_TEST(libdevice_bit_values) { run_elementwise(&libdevice_bit_cases[_i]); }
END_TEST

/* ---- cuda.fp16 (and math on float16, which computes in float32) ---- */

REF(r_hadd, U(half_bits(X(0).f + X(1).f)))
REF(r_hsub, U(half_bits(X(0).f - X(1).f)))
REF(r_hmul, U(half_bits(X(0).f * X(1).f)))
REF(r_hdiv, U(half_bits((float)X(0).f / (float)X(1).f))) /* through float32, as lowered */
REF(r_hneg, U(X(0).u ^ 0x8000))
REF(r_habs, U(X(0).u & 0x7fff))
REF(r_hfma, U(half_bits(X(0).f * X(1).f + X(2).f))) /* exact in double on these inputs */
REF(r_heq, U(X(0).f == X(1).f))
REF(r_hne, U(!(X(0).f == X(1).f)))
REF(r_hlt, U(X(0).f < X(1).f))
REF(r_hle, U(X(0).f <= X(1).f))
REF(r_hgt, U(X(0).f > X(1).f))
REF(r_hge, U(X(0).f >= X(1).f))
REF(r_hmax, X(0).f > X(1).f ? X(0) : X(1))
REF(r_hmin, X(0).f < X(1).f ? X(0) : X(1))
REF(r_hsqrt, U(half_bits((float)sqrt(X(0).f))))
REF(r_hfloor, U(half_bits(floor(X(0).f))))

#define HALF2(key, gen, ref) {"cuda.fp16." key, "float16, float16", {G_HALF, gen}, ref, EXACT}
#define HCMP(key, ref)                                                                           \
  { "cuda.fp16." key, "float16, float16", {G_HALF_COARSE, G_HALF_COARSE}, ref, EXACT }

static const ew_case half_cases[] = {
    HALF2("hadd", G_HALF, r_hadd),
    HALF2("hsub", G_HALF, r_hsub),
    HALF2("hmul", G_HALF, r_hmul),
    HALF2("hdiv", G_HALF_NZ, r_hdiv),
    {"cuda.fp16.hneg", "float16", {G_HALF_COARSE}, r_hneg, EXACT},
    {"cuda.fp16.habs", "float16", {G_HALF_COARSE}, r_habs, EXACT},
    {"cuda.fp16.hfma", "float16, float16, float16", {G_HALF, G_HALF, G_HALF}, r_hfma, EXACT},
    HCMP("heq", r_heq),
    HCMP("hne", r_hne),
    HCMP("hlt", r_hlt),
    HCMP("hle", r_hle),
    HCMP("hgt", r_hgt),
    HCMP("hge", r_hge),
    HCMP("hmax", r_hmax),
    HCMP("hmin", r_hmin),
};

START_TEST(half_values) { run_elementwise(&half_cases[_i]); }
END_TEST

/* through libdevice, on the CPU too */
static const ew_case half_math_cases[] = {
    {"math.sqrt", "float16", {G_HALF_POS}, r_hsqrt, EXACT},
    {"math.floor", "float16", {G_HALF}, r_hfloor, EXACT},
};

START_TEST(half_math_values) { run_elementwise(&half_math_cases[_i]); }
END_TEST

/* ---- warps: special registers, shuffles, votes ---- */

#define LANE (i % 32)
#define WARP0 (i - LANE)

static size_t shuffled(size_t i, long src) { return src < 0 || src > 31 ? i : WARP0 + (size_t)src; }
static uint32_t ballot(val *const *in, size_t i) {
  uint32_t m = 0;
  for (size_t l = 0; l < 32; l++) m |= (uint32_t)(in[1][WARP0 + l].f != 0) << l;
  return m;
}

REF(r_laneid, U(LANE))
REF(r_warpsize, U(32))
REF(r_tid, U(i % EW_BLOCK))
REF(r_ctaid, U(i / EW_BLOCK))
REF(r_ntid, U(EW_BLOCK))
REF(r_activemask, U(0xffffffffu))
REF(r_lanemask_lt, U((1ull << LANE) - 1))
REF(r_shfl_idx, in[1][shuffled(i, (long)(X(2).u & 31))])
REF(r_shfl_up, in[1][shuffled(i, (long)LANE - X(2).i)])
REF(r_shfl_down, in[1][shuffled(i, (long)LANE + X(2).i)])
REF(r_shfl_xor, in[1][shuffled(i, (long)(LANE ^ X(2).u))])
REF(r_ballot, U(ballot(in, i)))
REF(r_all, U(ballot(in, i) == 0xffffffffu))
REF(r_any, U(ballot(in, i) != 0))
REF(r_eq, U(ballot(in, i) == 0xffffffffu || ballot(in, i) == 0))

#define SHFL(key, ty, gen, delta, ref)                                                           \
  { "cuda." key, "int32, " ty ", int32", {G_MASK, gen, delta}, ref, EXACT }
#define SHFL4(key, delta, ref)                                                                   \
  SHFL(key, "int32", G_BITS, delta, ref), SHFL(key, "int64", G_BITS, delta, ref),                \
      SHFL(key, "float32", G_REAL, delta, ref), SHFL(key, "float64", G_REAL, delta, ref)

static const ew_case warp_cases[] = {
    {"cuda.laneid", "", {0}, r_laneid, EXACT},
    {"cuda.warpsize", "", {0}, r_warpsize, EXACT},
    {"cuda.threadIdx.x", "", {0}, r_tid, EXACT},
    {"cuda.blockIdx.x", "", {0}, r_ctaid, EXACT},
    {"cuda.blockDim.x", "", {0}, r_ntid, EXACT},
    {"cuda.activemask", "", {0}, r_activemask, EXACT},
    {"cuda.lanemask_lt", "", {0}, r_lanemask_lt, EXACT},
    SHFL4("shfl_sync", G_ZERO, r_shfl_idx), /* every lane reads lane 0 */
    SHFL("shfl_sync", "int32", G_BITS, G_LANE, r_shfl_idx),
    SHFL4("shfl_down_sync", G_ONE, r_shfl_down),
    SHFL4("shfl_up_sync", G_ONE, r_shfl_up),
    SHFL4("shfl_xor_sync", G_ONE, r_shfl_xor),
    {"cuda.ballot_sync", "int32, int32", {G_MASK, G_EVERY3}, r_ballot, EXACT},
    {"cuda.ballot_sync", "int32, bool", {G_MASK, G_EVERY3}, r_ballot, EXACT},
    {"cuda.all_sync", "int32, int32", {G_MASK, G_VOTE}, r_all, EXACT},
    {"cuda.any_sync", "int32, int32", {G_MASK, G_VOTE}, r_any, EXACT},
    {"cuda.any_sync", "int32, bool", {G_MASK, G_VOTE}, r_any, EXACT},
    {"cuda.eq_sync", "int32, int32", {G_MASK, G_VOTE}, r_eq, EXACT},
};

START_TEST(warp_values) { run_elementwise(&warp_cases[_i]); }
END_TEST

/* ---- tuple returns: math.frexp and math.modf ---- */

static const char tuple_ir[] =
    "define void @k({E0}* %out0, {E1}* %out1, {A}* %in) {\n"
    "entry:\n{GID}"
    "  %p = getelementptr {A}, {A}* %in, i64 %i\n"
    "  %x = load {A}, {A}* %p\n"
    "  %r = call {R} @{F}({A} %x)\n"
    "  %r0 = extractvalue {R} %r, 0\n"
    "  %r1 = extractvalue {R} %r, 1\n"
    "  %q0 = getelementptr {E0}, {E0}* %out0, i64 %i\n"
    "  store {E0} %r0, {E0}* %q0\n"
    "  %q1 = getelementptr {E1}, {E1}* %out1, i64 %i\n"
    "  store {E1} %r1, {E1}* %q1\n"
    "  ret void\n"
    "}\n";

START_TEST(tuple_values) {
  static const char *const cases[][2] = {{"math.frexp", "float32"}, {"math.frexp", "float64"},
                                         {"math.modf", "float32"}, {"math.modf", "float64"}};
  const char *key = cases[_i][0], *arg = cases[_i][1];
  bool frexp_ = !strcmp(key, "math.frexp");
  cuplug_resolve_args r = resolve(key, arg);
  cuplug_type_info si = t_type_info(r.signature), ri = t_type_info(si.restype);
  ck_assert_uint_eq(ri.num_args, 2);
  cuplug_type_kind k0 = t_type_info(ri.args[0]).kind, k1 = t_type_info(ri.args[1]).kind,
                   ka = t_type_info(si.args[0]).kind;
  const char *dict[] = {"E0", t_ir_type(ri.args[0]), "E1", t_ir_type(ri.args[1]),
                        "A", t_ir_type(si.args[0]), "R", t_ir_type(si.restype), "F", r.symbol, NULL};
  char ksig[256];
  snprintf(ksig, sizeof ksig, "void(CPointer(%s), CPointer(%s), CPointer(%s))",
           t_type_info(ri.args[0]).name, t_type_info(ri.args[1]).name, arg);
  kern k = build_template(tuple_ir, dict, &r, 1, ksig);

  seed(key, arg);
  char in[EW_N * 8], out0[EW_N * 8], out1[EW_N * 8];
  for (size_t i = 0; i < EW_N; i++) put(in, ka, i, generate(G_FINITE, ka, i));
  uint64_t din = t_dev_copy(s, in, sizeof in), d0 = t_dev_alloc(s, sizeof out0), d1 = t_dev_alloc(s, sizeof out1);
  cuplug_value v[] = {PTR(d0), PTR(d1), PTR(din)};
  launch(k, EW_N / EW_BLOCK, 1, EW_BLOCK, 1, v, 3, 0);
  t_to_host(s, out0, d0, sizeof out0);
  t_to_host(s, out1, d1, sizeof out1);
  for (size_t i = 0; i < EW_N; i++) {
    double x = get(in, ka, i).f, second = 0;
    int e = 0;
    double first = frexp_ ? frexp(x, &e) : modf(x, &second);
    val w0 = F(first), w1 = frexp_ ? U((uint64_t)(int64_t)e) : F(second);
    val g0 = get(out0, k0, i), g1 = get(out1, k1, i);
    char a[64], b[64], c[64], d[64];
    ck_assert_msg(agrees(k0, EXACT, g0, w0) && agrees(k1, EXACT, g1, w1),
                  "%s(%s) element %zu of %.17g: got (%s, %s), expected (%s, %s)", key, arg, i, x,
                  show(k0, g0, a, 64), show(k1, g1, b, 64), show(k0, w0, c, 64),
                  show(k1, w1, d, 64));
  }
  DEV_FREE(din, d0, d1);
  unload(k);
}
END_TEST

/* ---- atomics, pointer form: op(CPointer(T), value), cas(CPointer(T), old, value) ---- */

static const char atomic_ir[] =
    "define void @k({T}* %target, {T}* %vals, {T}* %olds) {\n"
    "entry:\n{GID}"
    "  %pv = getelementptr {T}, {T}* %vals, i64 %i\n"
    "  %v = load {T}, {T}* %pv\n"
    "  %old = call {T} @{F}({T}* %target, {T} %v)\n"
    "  %po = getelementptr {T}, {T}* %olds, i64 %i\n"
    "  store {T} %old, {T}* %po\n"
    "  ret void\n"
    "}\n";

static const char cas_ir[] =
    "define void @k({T}* %target, {T}* %cmps, {T}* %vals, {T}* %olds) {\n"
    "entry:\n{GID}"
    "  %pc = getelementptr {T}, {T}* %cmps, i64 %i\n"
    "  %c = load {T}, {T}* %pc\n"
    "  %pv = getelementptr {T}, {T}* %vals, i64 %i\n"
    "  %v = load {T}, {T}* %pv\n"
    "  %old = call {T} @{F}({T}* %target, {T} %c, {T} %v)\n"
    "  %po = getelementptr {T}, {T}* %olds, i64 %i\n"
    "  store {T} %old, {T}* %po\n"
    "  ret void\n"
    "}\n";

typedef enum { AT_ADD1, AT_MAX, AT_MIN, AT_EXCH, AT_INC, AT_DEC, AT_CAS, AT_AND, AT_OR, AT_XOR }
at_op;

typedef struct at_case {
  const char *key, *dtype;
  at_op op;
} at_case;

#define AT4(key, op)                                                                             \
  {key, "int32", op}, {key, "uint32", op}, {key, "int64", op}, { key, "uint64", op }
#define AT6(key, op) AT4(key, op), {key, "float32", op}, {key, "float64", op}

static const at_case atomic_cases[] = {
    AT6("cuda.atomic.add", AT_ADD1),
    AT6("cuda.atomic.max", AT_MAX),
    AT6("cuda.atomic.min", AT_MIN),
    AT6("cuda.atomic.exch", AT_EXCH),
    {"cuda.atomic.inc", "uint32", AT_INC}, {"cuda.atomic.inc", "uint64", AT_INC},
    {"cuda.atomic.dec", "uint32", AT_DEC}, {"cuda.atomic.dec", "uint64", AT_DEC},
    AT4("cuda.atomic.cas", AT_CAS),
    {"cuda.atomic.and_", "uint32", AT_AND}, {"cuda.atomic.and_", "int64", AT_AND},
    {"cuda.atomic.or_", "uint32", AT_OR}, {"cuda.atomic.or_", "int64", AT_OR},
    {"cuda.atomic.xor", "uint32", AT_XOR}, {"cuda.atomic.xor", "int64", AT_XOR},
};

enum { AT_N = 4096, AT_BLOCK = 256, AT_WRAP = 100 };

/* A number as a value of kind k. */
static val num(cuplug_type_kind k, double x) { return kfloat(k) ? F(x) : U((uint64_t)(int64_t)x); }

START_TEST(atomic_pointer_values) {
  const at_case *c = &atomic_cases[_i];
  cuplug_type_kind k = t_type_info(t_type(c->dtype)).kind;
  unsigned bits = 8 * (unsigned)ksize(k);
  bool cas = c->op == AT_CAS;
  char args[128], ksig[256], what[160], p[32];
  snprintf(args, sizeof args, "CPointer(%s), %s%s%s", c->dtype, c->dtype, cas ? ", " : "",
           cas ? c->dtype : "");
  snprintf(p, sizeof p, "CPointer(%s)", c->dtype);
  snprintf(ksig, sizeof ksig, "void(%s, %s, %s%s%s)", p, p, p, cas ? ", " : "", cas ? p : "");
  snprintf(what, sizeof what, "%s(%s)", c->key, args);
  cuplug_resolve_args r = resolve(c->key, args);
  const char *dict[] = {"T", t_ir_type(t_type(c->dtype)), "F", r.symbol, NULL};
  kern kn = build_template(cas ? cas_ir : atomic_ir, dict, &r, 1, ksig);

  /* initial value and per-thread operands */
  seed(c->key, c->dtype);
  val init = num(k, 0), *vals = calloc(AT_N, sizeof(val)), *seq = calloc(AT_N + 1, sizeof(val));
  for (size_t i = 0; i < AT_N; i++) {
    switch (c->op) {
      case AT_ADD1: vals[i] = num(k, 1); break;
      case AT_MAX: case AT_MIN:
        vals[i] = kfloat(k) ? F(uniform(-1000, 1000)) : U(next64()); break;
      case AT_EXCH: vals[i] = num(k, kfloat(k) ? (double)(i + 1) * 0.5 : (double)(i + 1)); break;
      case AT_INC: case AT_DEC: vals[i] = num(k, AT_WRAP); break;
      case AT_CAS: vals[i] = num(k, (double)(i + 1)); break;
      case AT_AND: vals[i] = U(~(1ull << (i % (bits / 2)))); break;
      case AT_OR: vals[i] = U(1ull << (i * 7 % (bits - 3))); break;
      case AT_XOR: vals[i] = U(next64()); break;
    }
    vals[i] = as_kind(k, vals[i]);
  }
  if (c->op == AT_EXCH) init = num(k, kfloat(k) ? -1.5 : AT_N + 12345);
  if (c->op == AT_DEC) init = num(k, AT_WRAP / 2);
  if (c->op == AT_AND) init = U(~0ull);
  if (c->op == AT_XOR) init = U(next64());
  init = as_kind(k, init);

  size_t sz = ksize(k);
  char *host = calloc(AT_N, sz), *olds = calloc(AT_N, sz), target[8];
  put(target, k, 0, init);
  for (size_t i = 0; i < AT_N; i++) put(host, k, i, vals[i]);
  uint64_t dt = t_dev_copy(s, target, sz), dv = t_dev_copy(s, host, AT_N * sz), dold = t_dev_alloc(s, AT_N * sz);
  memset(host, 0, AT_N * sz); /* cas compares with 0 */
  uint64_t dcmp = t_dev_copy(s, host, AT_N * sz);
  cuplug_value v4[] = {PTR(dt), PTR(dcmp), PTR(dv), PTR(dold)},
               v3[] = {PTR(dt), PTR(dv), PTR(dold)};
  launch(kn, AT_N / AT_BLOCK, 1, AT_BLOCK, 1, cas ? v4 : v3, cas ? 4 : 3, 0);
  t_to_host(s, target, dt, sz);
  t_to_host(s, olds, dold, AT_N * sz);
  val final = get(target, k, 0), *got = calloc(AT_N + 1, sizeof(val));
  for (size_t i = 0; i < AT_N; i++) got[i] = get(olds, k, i);

  /* the final value: folded on the host */
  val want = init;
  for (size_t i = 0; i < AT_N; i++) {
    val x = vals[i];
    switch (c->op) {
      case AT_ADD1: want = num(k, (double)AT_N); break;
      case AT_MAX: if (order(k, x, want) > 0) want = x; break;
      case AT_MIN: if (order(k, x, want) < 0) want = x; break;
      case AT_INC: case AT_DEC: /* the sequence of old values is the same in any order */
        seq[i] = want;
        if (c->op == AT_INC) want = U(want.u >= AT_WRAP ? 0 : want.u + 1);
        else want = U(want.u == 0 || want.u > AT_WRAP ? AT_WRAP : want.u - 1);
        break;
      case AT_AND: want = U(want.u & x.u); break;
      case AT_OR: want = U(want.u | x.u); break;
      case AT_XOR: want = U(want.u ^ x.u); break;
      default: break;
    }
  }
  char a[64], b[64];
  if (c->op != AT_EXCH && c->op != AT_CAS)
    ck_assert_msg(agrees(k, EXACT, final, as_kind(k, want)), "%s: final value %s, expected %s",
                  what, show(k, final, a, 64), show(k, as_kind(k, want), b, 64));

  /* the old values, sorted, against the multiset they must be: 0..N-1 for
   * add; the sequence inc and dec step through; for exch, the olds and the
   * final value are the initial value and each operand once */
  size_t m = 0, hits = 0;
  if (c->op == AT_ADD1)
    for (size_t i = 0; i < AT_N; i++) seq[m++] = num(k, (double)i);
  if (c->op == AT_INC || c->op == AT_DEC) m = AT_N;
  if (c->op == AT_EXCH) {
    memcpy(seq, vals, AT_N * sizeof(val));
    seq[AT_N] = init;
    got[AT_N] = final;
    m = AT_N + 1;
  }
  sort_vals(got, m, k);
  sort_vals(seq, m, k);
  for (size_t i = 0; i < m; i++)
    ck_assert_msg(agrees(k, EXACT, got[i], seq[i]), "%s: sorted old value %zu is %s, expected %s",
                  what, i, show(k, got[i], a, 64), show(k, seq[i], b, 64));
  switch (c->op) {
    case AT_MAX: case AT_MIN: /* each within the final; the first saw init */
      for (size_t i = 0; i < AT_N; i++) {
        int o = order(k, got[i], final);
        ck_assert_msg(c->op == AT_MAX ? o <= 0 : o >= 0,
                      "%s: thread %zu saw %s beyond the final %s", what, i,
                      show(k, got[i], a, 64), show(k, final, b, 64));
        hits += agrees(k, EXACT, got[i], init);
      }
      ck_assert_msg(hits >= 1, "%s: no thread saw the initial value", what);
      break;
    case AT_CAS: /* one thread swapped 0 for its value; the rest saw that value */
      for (size_t i = 0; i < AT_N; i++) {
        if (agrees(k, EXACT, got[i], init)) {
          hits++;
          ck_assert_msg(agrees(k, EXACT, final, vals[i]), "%s: thread %zu won, but the final is %s",
                        what, i, show(k, final, a, 64));
        } else {
          ck_assert_msg(agrees(k, EXACT, got[i], final), "%s: thread %zu saw %s, the final is %s",
                        what, i, show(k, got[i], a, 64), show(k, final, b, 64));
        }
      }
      ck_assert_msg(hits == 1, "%s: %zu threads saw the initial 0", what, hits);
      break;
    case AT_OR:
      for (size_t i = 0; i < AT_N; i++)
        ck_assert_msg((got[i].u & ~final.u) == 0, "%s: thread %zu saw bits beyond the final: %s",
                      what, i, show(k, got[i], a, 64));
      break;
    default:
      break;
  }
  DEV_FREE(dt, dv, dold, dcmp);
  free(host);
  free(olds);
  free(vals);
  free(seq);
  free(got);
  unload(kn);
}
END_TEST

/* ---- atomics, array form: add(ary, index, value) ---- */

/* float32[::1]: meminfo, parent, nitems, itemsize, data, shape, strides */
static const char atomic_1d_ir[] =
    "define void @k(i8* %m, i8* %par, i64 %n, i64 %isz, float* %d, i64 %sh0, i64 %st0,\n"
    "               i64* %idx, float* %olds) {\n"
    "entry:\n{GID}"
    "  %pi = getelementptr i64, i64* %idx, i64 %i\n"
    "  %ix = load i64, i64* %pi\n"
    "  %old = call float @{F}(i8* %m, i8* %par, i64 %n, i64 %isz, float* %d, i64 %sh0, i64 %st0,\n"
    "                         i64 %ix, float 1.0)\n"
    "  %po = getelementptr float, float* %olds, i64 %i\n"
    "  store float %old, float* %po\n"
    "  ret void\n"
    "}\n";

/* int32[:, :] with a UniTuple(int64 x 2) index */
static const char atomic_2d_ir[] =
    "define void @k(i8* %m, i8* %par, i64 %n, i64 %isz, i32* %d, i64 %sh0, i64 %sh1,\n"
    "               i64 %st0, i64 %st1, i64* %rows, i64* %cols, i32* %olds) {\n"
    "entry:\n{GID}"
    "  %pr = getelementptr i64, i64* %rows, i64 %i\n"
    "  %r = load i64, i64* %pr\n"
    "  %pc = getelementptr i64, i64* %cols, i64 %i\n"
    "  %c = load i64, i64* %pc\n"
    "  %old = call i32 @{F}(i8* %m, i8* %par, i64 %n, i64 %isz, i32* %d, i64 %sh0, i64 %sh1,\n"
    "                       i64 %st0, i64 %st1, i64 %r, i64 %c, i32 1)\n"
    "  %po = getelementptr i32, i32* %olds, i64 %i\n"
    "  store i32 %old, i32* %po\n"
    "  ret void\n"
    "}\n";

/* Within each element, the old values a thread saw are 0..count-1. */
static void check_olds(const char *what, const int64_t *cell, const double *olds, size_t n,
                       size_t ncells) {
  for (size_t c = 0; c < ncells; c++) {
    char *seen = calloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) {
      if ((size_t)cell[i] != c) continue;
      double o = olds[i];
      ck_assert_msg(o >= 0 && o < (double)n && o == floor(o) && !seen[(size_t)o],
                    "%s: thread %zu saw %g in element %zu (twice, or out of range)", what, i, o, c);
      seen[(size_t)o] = 1;
    }
    free(seen);
  }
}

START_TEST(atomic_array_values) {
  enum { N = 2048, M = 37, R = 5, C = 7, PITCH = 8 };
  int64_t idx[N], rows[N], cols[N], cell[N];
  double olds[N];

  /* 1-d: every other thread counts from the end */
  cuplug_resolve_args r1 = resolve("cuda.atomic.add", "float32[::1], int64, float32");
  const char *d1[] = {"F", r1.symbol, NULL};
  kern k1 = build_template(atomic_1d_ir, d1, &r1, 1,
                           "void(float32[::1], CPointer(int64), CPointer(float32))");
  float acc[M] = {0}, fold[N];
  for (size_t i = 0; i < N; i++) {
    cell[i] = (int64_t)(i * 13 % M);
    idx[i] = i % 2 ? cell[i] - M : cell[i];
  }
  uint64_t dacc = t_dev_copy(s, acc, sizeof acc), didx = t_dev_copy(s, idx, sizeof idx),
           dold = t_dev_alloc(s, sizeof fold);
  cuplug_array a1 = {.data = dacc, .dtype = CUPLUG_TYPE_FLOAT32, .ndim = 1, .shape = {M},
                     .strides = {4}};
  cuplug_value v1[] = {{CUPLUG_TYPE_ARRAY, &a1}, PTR(didx), PTR(dold)};
  launch(k1, N / 128, 1, 128, 1, v1, 3, 0);
  t_to_host(s, acc, dacc, sizeof acc);
  t_to_host(s, fold, dold, sizeof fold);
  float want1[M] = {0};
  for (size_t i = 0; i < N; i++) want1[cell[i]] += 1;
  for (size_t c = 0; c < M; c++)
    ck_assert_msg(acc[c] == want1[c], "add(float32[::1]): element %zu is %g, expected %g", c,
                  (double)acc[c], (double)want1[c]);
  for (size_t i = 0; i < N; i++) olds[i] = fold[i];
  check_olds("add(float32[::1])", cell, olds, N, M);
  DEV_FREE(dacc, didx, dold);
  unload(k1);

  /* 2-d with padded rows (layout A): negative rows and columns wrap */
  cuplug_resolve_args r2 = resolve("cuda.atomic.add", "int32[:, :], UniTuple(int64 x 2), int32");
  const char *d2[] = {"F", r2.symbol, NULL};
  kern k2 = build_template(atomic_2d_ir, d2, &r2, 1,
                           "void(int32[:, :], CPointer(int64), CPointer(int64), CPointer(int32))");
  int32_t grid[R * PITCH], iold[N];
  for (size_t e = 0; e < R * PITCH; e++) grid[e] = e % PITCH == C ? -777 : 0; /* padding */
  for (size_t i = 0; i < N; i++) {
    int64_t row = (int64_t)(i % R), col = (int64_t)(i / R % C);
    cell[i] = row * C + col;
    rows[i] = i % 2 ? row - R : row;
    cols[i] = i % 3 == 0 ? col - C : col;
  }
  uint64_t dg = t_dev_copy(s, grid, sizeof grid), drows = t_dev_copy(s, rows, sizeof rows),
           dcols = t_dev_copy(s, cols, sizeof cols), diold = t_dev_alloc(s, sizeof iold);
  cuplug_array a2 = {.data = dg, .dtype = CUPLUG_TYPE_INT32, .ndim = 2, .shape = {R, C},
                     .strides = {PITCH * 4, 4}};
  cuplug_value v2[] = {{CUPLUG_TYPE_ARRAY, &a2}, PTR(drows), PTR(dcols), PTR(diold)};
  launch(k2, N / 128, 1, 128, 1, v2, 4, 0);
  t_to_host(s, grid, dg, sizeof grid);
  t_to_host(s, iold, diold, sizeof iold);
  int32_t want2[R * PITCH];
  for (size_t e = 0; e < R * PITCH; e++) want2[e] = e % PITCH == C ? -777 : 0;
  for (size_t i = 0; i < N; i++) want2[cell[i] / C * PITCH + cell[i] % C]++;
  for (size_t e = 0; e < R * PITCH; e++)
    ck_assert_msg(grid[e] == want2[e],
                  "add(int32[:, :], (row, col)): [%zu, %zu] is %d, expected %d", e / PITCH,
                  e % PITCH, grid[e], want2[e]);
  for (size_t i = 0; i < N; i++) olds[i] = iold[i];
  check_olds("add(int32[:, :], (row, col))", cell, olds, N, R * C);
  DEV_FREE(dg, drows, dcols, diold);
  unload(k2);
}
END_TEST

/* ---- cuda.grid and cuda.gridsize on a 2-d launch ---- */

static const char grid_ir[] =
    "define void @k(i64* %out) {\n"
    "entry:\n"
    "  %tx = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
    "  %bx = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %by = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()\n"
    "  %nx = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %ny = call i32 @llvm.nvvm.read.ptx.sreg.ntid.y()\n"
    "  %gx = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()\n"
    "  %b0 = mul i32 %by, %gx\n  %b1 = add i32 %b0, %bx\n" /* block number */
    "  %t0 = mul i32 %b1, %ny\n  %t1 = add i32 %t0, %ty\n"
    "  %t2 = mul i32 %t1, %nx\n  %lin = add i32 %t2, %tx\n" /* thread number */
    "  %lin64 = sext i32 %lin to i64\n  %at = mul i64 %lin64, 6\n"
    "  %g1 = call i64 @{G1}(i32 1)\n"
    "  %g2 = call [2 x i64] @{G2}(i32 2)\n"
    "  %g2x = extractvalue [2 x i64] %g2, 0\n  %g2y = extractvalue [2 x i64] %g2, 1\n"
    "  %s1 = call i64 @{S1}(i32 1)\n"
    "  %s2 = call [2 x i64] @{S2}(i32 2)\n"
    "  %s2x = extractvalue [2 x i64] %s2, 0\n  %s2y = extractvalue [2 x i64] %s2, 1\n"
    "  %p0 = getelementptr i64, i64* %out, i64 %at\n  store i64 %g1, i64* %p0\n"
    "  %p1 = getelementptr i64, i64* %p0, i64 1\n  store i64 %g2x, i64* %p1\n"
    "  %p2 = getelementptr i64, i64* %p0, i64 2\n  store i64 %g2y, i64* %p2\n"
    "  %p3 = getelementptr i64, i64* %p0, i64 3\n  store i64 %s1, i64* %p3\n"
    "  %p4 = getelementptr i64, i64* %p0, i64 4\n  store i64 %s2x, i64* %p4\n"
    "  %p5 = getelementptr i64, i64* %p0, i64 5\n  store i64 %s2y, i64* %p5\n"
    "  ret void\n"
    "}\n";

START_TEST(grid_values) {
  enum { GX = 3, GY = 2, BX = 16, BY = 8, N = GX * GY * BX * BY };
  cuplug_resolve_args r[] = {resolve("cuda.grid", "Literal[int](1)"),
                             resolve("cuda.grid", "Literal[int](2)"),
                             resolve("cuda.gridsize", "Literal[int](1)"),
                             resolve("cuda.gridsize", "Literal[int](2)")};
  ck_assert_str_eq(restype_ir(&r[1]), "[2 x i64]");
  const char *dict[] = {"G1", r[0].symbol, "G2", r[1].symbol, "S1", r[2].symbol,
                        "S2", r[3].symbol, NULL};
  kern k = build_template(grid_ir, dict, r, 4, "void(CPointer(int64))");
  int64_t *out = calloc(N * 6, 8);
  uint64_t d = t_dev_alloc(s, N * 6 * 8);
  cuplug_value v[] = {PTR(d)};
  launch(k, GX, GY, BX, BY, v, 1, 0);
  t_to_host(s, out, d, N * 6 * 8);
  static const char *const what[] = {"grid(1)", "grid(2)[0]", "grid(2)[1]", "gridsize(1)",
                                     "gridsize(2)[0]", "gridsize(2)[1]"};
  for (int by = 0; by < GY; by++)
    for (int bx = 0; bx < GX; bx++)
      for (int ty = 0; ty < BY; ty++)
        for (int tx = 0; tx < BX; tx++) {
          size_t lin = (((size_t)by * GX + bx) * BY + ty) * BX + tx;
          int64_t want[6] = {bx * BX + tx, bx * BX + tx, by * BY + ty, GX * BX, GX * BX, GY * BY};
          for (int q = 0; q < 6; q++)
            ck_assert_msg(out[lin * 6 + q] == want[q],
                          "%s in thread (%d, %d) of block (%d, %d): got %lld, expected %lld",
                          what[q], tx, ty, bx, by, (long long)out[lin * 6 + q], (long long)want[q]);
        }
  free(out);
  DEV_FREE(d);
  unload(k);
}
END_TEST

/* ---- shared arrays ---- */

/* Two static arrays of 128 float32: each block writes its inputs to A (and
 * twice them plus one to B), synchronises, and reads them back reversed. */
static const char shared_ir[] =
    "define void @k(float* %in, float* %out0, float* %out1, i64* %meta) {\n"
    "entry:\n{GID}"
    "  %a = call {R} @{A}(i64 128)\n"
    "  %b = call {R} @{B}(i64 128)\n"
    "  %ad = extractvalue {R} %a, 4\n"
    "  %bd = extractvalue {R} %b, 4\n"
    "  %px = getelementptr float, float* %in, i64 %i\n"
    "  %x = load float, float* %px\n"
    "  %y0 = fmul float %x, 2.0\n  %y = fadd float %y0, 1.0\n"
    "  %pa = getelementptr float, float* %ad, i64 %t\n  store float %x, float* %pa\n"
    "  %pb = getelementptr float, float* %bd, i64 %t\n  store float %y, float* %pb\n"
    "  call void @{SYNC}()\n"
    "  %rev = sub i64 127, %t\n"
    "  %qa = getelementptr float, float* %ad, i64 %rev\n  %va = load float, float* %qa\n"
    "  %qb = getelementptr float, float* %bd, i64 %rev\n  %vb = load float, float* %qb\n"
    "  %o0 = getelementptr float, float* %out0, i64 %i\n  store float %va, float* %o0\n"
    "  %o1 = getelementptr float, float* %out1, i64 %i\n  store float %vb, float* %o1\n"
    "  %first = icmp eq i64 %i, 0\n"
    "  br i1 %first, label %write_meta, label %done\n"
    "write_meta:\n"
    "  %na = extractvalue {R} %a, 2\n  store i64 %na, i64* %meta\n"
    "  %sa = extractvalue {R} %a, 5, 0\n"
    "  %m1 = getelementptr i64, i64* %meta, i64 1\n  store i64 %sa, i64* %m1\n"
    "  %ia = ptrtoint float* %ad to i64\n  %ib = ptrtoint float* %bd to i64\n"
    "  %m2 = getelementptr i64, i64* %meta, i64 2\n  store i64 %ia, i64* %m2\n"
    "  %m3 = getelementptr i64, i64* %meta, i64 3\n  store i64 %ib, i64* %m3\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n";

/* The dynamic shared memory: the same reversal, and its length per thread. */
static const char dynamic_ir[] =
    "define void @k(float* %in, float* %out, i64* %len) {\n"
    "entry:\n{GID}"
    "  %a = call {R} @{D}(i64 0)\n"
    "  %d = extractvalue {R} %a, 4\n"
    "  %px = getelementptr float, float* %in, i64 %i\n  %x = load float, float* %px\n"
    "  %pa = getelementptr float, float* %d, i64 %t\n  store float %x, float* %pa\n"
    "  call void @{SYNC}()\n"
    "  %n = sext i32 %ntid to i64\n  %last = sub i64 %n, 1\n  %rev = sub i64 %last, %t\n"
    "  %qa = getelementptr float, float* %d, i64 %rev\n  %v = load float, float* %qa\n"
    "  %o = getelementptr float, float* %out, i64 %i\n  store float %v, float* %o\n"
    "  %nitems = extractvalue {R} %a, 2\n  %shape = extractvalue {R} %a, 5, 0\n"
    "  %at = mul i64 %i, 2\n"
    "  %l0 = getelementptr i64, i64* %len, i64 %at\n  store i64 %nitems, i64* %l0\n"
    "  %l1 = getelementptr i64, i64* %l0, i64 1\n  store i64 %shape, i64* %l1\n"
    "  ret void\n"
    "}\n";

START_TEST(shared_static_values) {
  enum { B = 128, G = 4, N = B * G };
  cuplug_resolve_args r[] = {resolve("cuda.shared.array", "Literal[int](128), class(float32)"),
                             resolve("cuda.shared.array", "Literal[int](128), class(float32)"),
                             resolve("cuda.syncthreads", "")};
  ck_assert_str_ne(r[0].symbol, r[1].symbol); /* one array per call site */
  const char *dict[] = {"R", restype_ir(&r[0]), "A", r[0].symbol, "B", r[1].symbol,
                        "SYNC", r[2].symbol, NULL};
  kern k = build_template(shared_ir, dict, r, 3,
                          "void(CPointer(float32), CPointer(float32), CPointer(float32), "
                          "CPointer(int64))");
  float in[N], out0[N], out1[N];
  int64_t meta[4];
  for (size_t i = 0; i < N; i++) in[i] = (float)i * 0.25f - 7.0f;
  uint64_t din = t_dev_copy(s, in, sizeof in), d0 = t_dev_alloc(s, sizeof out0), d1 = t_dev_alloc(s, sizeof out1),
           dm = t_dev_alloc(s, sizeof meta);
  cuplug_value v[] = {PTR(din), PTR(d0), PTR(d1), PTR(dm)};
  launch(k, G, 1, B, 1, v, 4, 0);
  t_to_host(s, out0, d0, sizeof out0);
  t_to_host(s, out1, d1, sizeof out1);
  t_to_host(s, meta, dm, sizeof meta);
  for (size_t i = 0; i < N; i++) {
    size_t j = i - i % B + (B - 1 - i % B);
    ck_assert_msg(out0[i] == in[j] && out1[i] == in[j] * 2.0f + 1.0f,
                  "shared arrays, thread %zu: got (%g, %g), expected (%g, %g)", i, (double)out0[i],
                  (double)out1[i], (double)in[j], (double)(in[j] * 2.0f + 1.0f));
  }
  ck_assert_int_eq(meta[0], B); /* nitems */
  ck_assert_int_eq(meta[1], B); /* shape[0] */
  ck_assert_msg(meta[2] != meta[3] && llabs(meta[2] - meta[3]) >= B * 4,
                "the two shared arrays overlap: 0x%llx and 0x%llx", (unsigned long long)meta[2],
                (unsigned long long)meta[3]);
  DEV_FREE(din, d0, d1, dm);
  unload(k);
}
END_TEST

/* shared.array(0, float32): the launch's shared_mem bytes, shared_mem / 4 floats */
START_TEST(shared_dynamic_values) {
  enum { B = 128, G = 4, N = B * G };
  cuplug_resolve_args rd[] = {resolve("cuda.shared.array", "Literal[int](0), class(float32)"),
                              resolve("cuda.syncthreads", "")};
  float in[N], out0[N];
  for (size_t i = 0; i < N; i++) in[i] = (float)i * 0.25f - 7.0f;
  uint64_t din = t_dev_copy(s, in, sizeof in);
  const char *dd[] = {"R", restype_ir(&rd[0]), "D", rd[0].symbol, "SYNC", rd[1].symbol, NULL};
  kern kd = build_template(dynamic_ir, dd, rd, 2,
                           "void(CPointer(float32), CPointer(float32), CPointer(int64))");
  static const uint32_t bytes[] = {B * 4, 4096};
  for (size_t q = 0; q < 2; q++) {
    int64_t len[N * 2];
    uint64_t dout = t_dev_alloc(s, sizeof out0), dlen = t_dev_alloc(s, sizeof len);
    cuplug_value vd[] = {PTR(din), PTR(dout), PTR(dlen)};
    launch(kd, G, 1, B, 1, vd, 3, bytes[q]);
    t_to_host(s, out0, dout, sizeof out0);
    t_to_host(s, len, dlen, sizeof len);
    for (size_t i = 0; i < N; i++) {
      size_t j = i - i % B + (B - 1 - i % B);
      ck_assert_msg(out0[i] == in[j], "dynamic shared, %u bytes, thread %zu: got %g, expected %g",
                    bytes[q], i, (double)out0[i], (double)in[j]);
      ck_assert_msg(len[2 * i] == bytes[q] / 4 && len[2 * i + 1] == bytes[q] / 4,
                    "dynamic shared, %u bytes, thread %zu: nitems %lld, shape %lld, expected %u",
                    bytes[q], i, (long long)len[2 * i], (long long)len[2 * i + 1], bytes[q] / 4);
    }
    DEV_FREE(dout, dlen);
  }
  DEV_FREE(din);
  unload(kd);
}
END_TEST

/* ---- local and constant arrays ---- */

/* l = local.array(4, int32); l[k] = x * (k + 1); out0 = l[i % 4] (an index
 * the compiler cannot fold), out1 = l[0] + 10 l[1] + 100 l[2] + 1000 l[3]. */
static const char local_ir[] =
    "define void @k(i32* %in, i32* %out0, i32* %out1, i64* %len) {\n"
    "entry:\n{GID}"
    "  %l = call {R} @{L}(i64 4)\n"
    "  %d = extractvalue {R} %l, 4\n"
    "  %px = getelementptr i32, i32* %in, i64 %i\n  %x = load i32, i32* %px\n"
    "  %x2 = mul i32 %x, 2\n  %x3 = mul i32 %x, 3\n  %x4 = mul i32 %x, 4\n"
    "  %e1 = getelementptr i32, i32* %d, i64 1\n  %e2 = getelementptr i32, i32* %d, i64 2\n"
    "  %e3 = getelementptr i32, i32* %d, i64 3\n"
    "  store i32 %x, i32* %d\n  store i32 %x2, i32* %e1\n"
    "  store i32 %x3, i32* %e2\n  store i32 %x4, i32* %e3\n"
    "  %j = and i64 %i, 3\n  %ej = getelementptr i32, i32* %d, i64 %j\n"
    "  %vj = load volatile i32, i32* %ej\n"
    "  %o0 = getelementptr i32, i32* %out0, i64 %i\n  store i32 %vj, i32* %o0\n"
    "  %v0 = load i32, i32* %d\n  %v1 = load i32, i32* %e1\n"
    "  %v2 = load i32, i32* %e2\n  %v3 = load i32, i32* %e3\n"
    "  %w1 = mul i32 %v1, 10\n  %w2 = mul i32 %v2, 100\n  %w3 = mul i32 %v3, 1000\n"
    "  %s1 = add i32 %v0, %w1\n  %s2 = add i32 %s1, %w2\n  %s3 = add i32 %s2, %w3\n"
    "  %o1 = getelementptr i32, i32* %out1, i64 %i\n  store i32 %s3, i32* %o1\n"
    "  %n = extractvalue {R} %l, 2\n"
    "  %pl = getelementptr i64, i64* %len, i64 %i\n  store i64 %n, i64* %pl\n"
    "  ret void\n"
    "}\n";

/* out0 = c1[i % 16] (float64[::1]); out1 = c2[i % 3, i / 3 % 5] (int32[:, ::1])
 * through the array's own shape and strides. */
static const char const_ir[] =
    "define void @k(double* %out0, i32* %out1) {\n"
    "entry:\n{GID}"
    "  %c1 = call {R1} @{C1}()\n"
    "  %d1 = extractvalue {R1} %c1, 4\n"
    "  %j = urem i64 %i, 16\n"
    "  %p1 = getelementptr double, double* %d1, i64 %j\n  %v1 = load double, double* %p1\n"
    "  %o0 = getelementptr double, double* %out0, i64 %i\n  store double %v1, double* %o0\n"
    "  %c2 = call {R2} @{C2}()\n"
    "  %d2 = extractvalue {R2} %c2, 4\n"
    "  %sh0 = extractvalue {R2} %c2, 5, 0\n  %sh1 = extractvalue {R2} %c2, 5, 1\n"
    "  %st0 = extractvalue {R2} %c2, 6, 0\n  %st1 = extractvalue {R2} %c2, 6, 1\n"
    "  %row = urem i64 %i, %sh0\n  %q = udiv i64 %i, %sh0\n  %col = urem i64 %q, %sh1\n"
    "  %b0 = mul i64 %row, %st0\n  %b1 = mul i64 %col, %st1\n  %off = add i64 %b0, %b1\n"
    "  %raw = bitcast i32* %d2 to i8*\n"
    "  %pe = getelementptr i8, i8* %raw, i64 %off\n  %p2 = bitcast i8* %pe to i32*\n"
    "  %v2 = load i32, i32* %p2\n"
    "  %o1 = getelementptr i32, i32* %out1, i64 %i\n  store i32 %v2, i32* %o1\n"
    "  ret void\n"
    "}\n";

START_TEST(local_and_const_values) {
  enum { N = 1024 };
  /* local */
  cuplug_resolve_args rl = resolve("cuda.local.array", "Literal[int](4), class(int32)");
  const char *dl[] = {"R", restype_ir(&rl), "L", rl.symbol, NULL};
  kern kl = build_template(local_ir, dl, &rl, 1,
                           "void(CPointer(int32), CPointer(int32), CPointer(int32), "
                           "CPointer(int64))");
  int32_t in[N], out0[N], out1[N];
  int64_t len[N];
  seed("cuda.local.array", "");
  for (size_t i = 0; i < N; i++) in[i] = (int32_t)(next64() % 2001) - 1000;
  uint64_t din = t_dev_copy(s, in, sizeof in), d0 = t_dev_alloc(s, sizeof out0), d1 = t_dev_alloc(s, sizeof out1),
           dlen = t_dev_alloc(s, sizeof len);
  cuplug_value v[] = {PTR(din), PTR(d0), PTR(d1), PTR(dlen)};
  launch(kl, N / 128, 1, 128, 1, v, 4, 0);
  t_to_host(s, out0, d0, sizeof out0);
  t_to_host(s, out1, d1, sizeof out1);
  t_to_host(s, len, dlen, sizeof len);
  for (size_t i = 0; i < N; i++) {
    ck_assert_msg(out0[i] == in[i] * (int32_t)(i % 4 + 1),
                  "local array, thread %zu: l[%zu] is %d, expected %d", i, i % 4, out0[i],
                  in[i] * (int32_t)(i % 4 + 1));
    ck_assert_msg(out1[i] == in[i] * 4321, "local array, thread %zu: got %d, expected %d", i,
                  out1[i], in[i] * 4321);
    ck_assert_msg(len[i] == 4, "local array, thread %zu: nitems %lld", i, (long long)len[i]);
  }
  DEV_FREE(din, d0, d1, dlen);
  unload(kl);

  /* constant */
  double c1[16];
  int32_t c2[3][5];
  for (int j = 0; j < 16; j++) c1[j] = sin(j + 1.0) * 1e3;
  for (int j = 0; j < 15; j++) c2[j / 5][j % 5] = (j - 7) * 1001;
  int64_t s1[] = {16}, s2[] = {3, 5};
  cuplug_const_array_args ca[] = {
      {.struct_size = sizeof ca[0], .registry = t_api()->session_registry(s),
       .dtype = t_api()->type_scalar(CUPLUG_TYPE_FLOAT64), .ndim = 1, .shape = s1, .data = c1,
       .size = sizeof c1},
      {.struct_size = sizeof ca[1], .registry = t_api()->session_registry(s),
       .dtype = t_api()->type_scalar(CUPLUG_TYPE_INT32), .ndim = 2, .shape = s2, .data = c2,
       .size = sizeof c2}};
  cuplug_resolve_args rc[2];
  for (int q = 0; q < 2; q++) {
    T_ASSERT_OK(t_api()->const_array(&ca[q]));
    rc[q] = (cuplug_resolve_args){.struct_size = sizeof rc[q], .signature = ca[q].signature,
                                  .symbol = ca[q].symbol, .abi = ca[q].abi};
  }
  const char *dc[] = {"R1", restype_ir(&rc[0]), "C1", rc[0].symbol,
                      "R2", restype_ir(&rc[1]), "C2", rc[1].symbol, NULL};
  kern kc = build_template(const_ir, dc, rc, 2, "void(CPointer(float64), CPointer(int32))");
  double f[N];
  uint64_t df = t_dev_alloc(s, sizeof f);
  d1 = t_dev_alloc(s, sizeof out1);
  cuplug_value vc[] = {PTR(df), PTR(d1)};
  launch(kc, N / 128, 1, 128, 1, vc, 2, 0);
  t_to_host(s, f, df, sizeof f);
  t_to_host(s, out1, d1, sizeof out1);
  for (size_t i = 0; i < N; i++) {
    ck_assert_msg(f[i] == c1[i % 16], "const float64[16], thread %zu: got %.17g, expected %.17g",
                  i, f[i], c1[i % 16]);
    ck_assert_msg(out1[i] == c2[i % 3][i / 3 % 5],
                  "const int32[3, 5], thread %zu: [%zu, %zu] is %d, expected %d", i, i % 3,
                  i / 3 % 5, out1[i], c2[i % 3][i / 3 % 5]);
  }
  DEV_FREE(df, d1);
  unload(kc);
}
END_TEST

/* ---- timers: clock64, globaltimer, nanosleep ---- */

/* One thread: two clock reads, a sleep, a third; two globaltimer reads,
 * then sleeps until the timer moves (at most 100000 times). */
static const char timer_ir[] =
    "define void @k(i64* %out) {\n"
    "entry:\n"
    "  %c0 = call i64 @{CLK}()\n"
    "  %c1 = call i64 @{CLK}()\n"
    "  call void @{SLEEP}(i32 1000)\n"
    "  %c2 = call i64 @{CLK}()\n"
    "  %g0 = call i64 @{GT}()\n"
    "  %g1 = call i64 @{GT}()\n"
    "  br label %wait\n"
    "wait:\n"
    "  %n = phi i32 [0, %entry], [%n1, %wait]\n"
    "  call void @{SLEEP}(i32 1000)\n"
    "  %g2 = call i64 @{GT}()\n"
    "  %n1 = add i32 %n, 1\n"
    "  %still = icmp ule i64 %g2, %g1\n"
    "  %more = icmp ult i32 %n1, 100000\n"
    "  %again = and i1 %still, %more\n"
    "  br i1 %again, label %wait, label %done\n"
    "done:\n"
    "  %sleeps = zext i32 %n1 to i64\n"
    "  store i64 %c0, i64* %out\n"
    "  %p1 = getelementptr i64, i64* %out, i64 1\n  store i64 %c1, i64* %p1\n"
    "  %p2 = getelementptr i64, i64* %out, i64 2\n  store i64 %c2, i64* %p2\n"
    "  %p3 = getelementptr i64, i64* %out, i64 3\n  store i64 %g0, i64* %p3\n"
    "  %p4 = getelementptr i64, i64* %out, i64 4\n  store i64 %g1, i64* %p4\n"
    "  %p5 = getelementptr i64, i64* %out, i64 5\n  store i64 %g2, i64* %p5\n"
    "  %p6 = getelementptr i64, i64* %out, i64 6\n  store i64 %sleeps, i64* %p6\n"
    "  ret void\n"
    "}\n";

START_TEST(timer_values) {
  cuplug_resolve_args r[] = {resolve("cuda.clock64", ""), resolve("cuda.globaltimer", ""),
                             resolve("cuda.nanosleep", "uint32")};
  const char *dict[] = {"CLK", r[0].symbol, "GT", r[1].symbol, "SLEEP", r[2].symbol, NULL};
  kern k = build_template(timer_ir, dict, r, 3, "void(CPointer(uint64))");
  uint64_t out[7] = {0}, d = t_dev_copy(s, out, sizeof out);
  cuplug_value v[] = {PTR(d)};
  launch(k, 1, 1, 1, 1, v, 1, 0);
  t_to_host(s, out, d, sizeof out);
  ck_assert_msg(out[0] <= out[1] && out[1] < out[2],
                "clock64: %llu, %llu, then %llu after nanosleep(1000)", (unsigned long long)out[0],
                (unsigned long long)out[1], (unsigned long long)out[2]);
  ck_assert_msg(out[3] <= out[4] && out[4] < out[5],
                "globaltimer: %llu, %llu, then %llu after %llu nanosleep(1000)",
                (unsigned long long)out[3], (unsigned long long)out[4], (unsigned long long)out[5],
                (unsigned long long)out[6]);
  ck_assert_msg(out[5] - out[3] < 1000000000ull, "globaltimer moved %llu ns in a few sleeps",
                (unsigned long long)(out[5] - out[3]));
  DEV_FREE(d);
  unload(k);
}
END_TEST

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

/* One session for a case's tests, made in the runner's process: each
 * forked test starts from it. */
static void open_session(void) { s = t_session(); }
static void close_session(void) { t_api()->session_destroy(s); }

/* A case of the suite: the target's needs (and libNVVM's libdevice, which
 * the host links too, where its built-ins call it), the session. */
static TCase *family(Suite *suite, const char *name, bool libdevice) {
  TCase *tc = t_tcase(suite, name, target->needs | (libdevice ? T_NVVM : 0), NULL, NULL, 300);
  tcase_add_unchecked_fixture(tc, open_session, close_session);
  return tc;
}

Suite *t_builtins_suite(const t_target *on) {
  target = on;
  Suite *suite = suite_create("builtins");
  tcase_add_loop_test(family(suite, "math", true), math_values, 0, COUNT(math_cases));
  tcase_add_loop_test(family(suite, "bits", false), bit_values, 0, COUNT(bit_cases));
  tcase_add_loop_test(family(suite, "bits_libdevice", true), libdevice_bit_values, 0,
                      COUNT(libdevice_bit_cases));
  tcase_add_loop_test(family(suite, "half", false), half_values, 0, COUNT(half_cases));
  tcase_add_loop_test(family(suite, "half_math", true), half_math_values, 0,
                      COUNT(half_math_cases));
  tcase_add_loop_test(family(suite, "warps", false), warp_values, 0, COUNT(warp_cases));
  tcase_add_loop_test(family(suite, "tuples", true), tuple_values, 0, 4);
  TCase *tc = family(suite, "atomics", false);
  tcase_add_loop_test(tc, atomic_pointer_values, 0, COUNT(atomic_cases));
  tcase_add_test(tc, atomic_array_values);
  tcase_add_test(family(suite, "grid", false), grid_values);
  tc = family(suite, "arrays", false);
  tcase_add_test(tc, shared_static_values);
  tcase_add_test(tc, shared_dynamic_values);
  tcase_add_test(tc, local_and_const_values);
  tcase_add_test(family(suite, "timers", false), timer_values);
  return suite;
}
