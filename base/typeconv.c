/* typeconv.c - how one type converts to another, numba's way.
 *
 * numba ranks a conversion as exact, a promotion (a wider type of the same
 * kind: int32 to int64, float32 to float64), safe (no value is lost: int32
 * to float64, uint8 to int16) or unsafe (int64 to int32, float64 to
 * float32).  Its rules (numba-cuda's typeconv/rules.py) give a few direct
 * conversions between numbers, each with its way back, which is unsafe;
 * the rest follow by chaining, a chain being as bad as its worst step.  The
 * table below holds those rules; the closure is computed once.  So every
 * real number converts to every other (unsafely at worst), a real to a
 * complex, and a complex to no real at all.
 *
 * An integer literal is better than its int64: it converts to any integer
 * type that holds its value as a promotion, and to a float that holds it
 * exactly as a safe conversion, so that f(int32) takes 2 and pow(float32,
 * float32) takes (x, 2).
 *
 * Each conversion also has a distance, for choosing between conversions of
 * the same rank: a step costs 1, or 8 when it leaves its kind (integer to
 * float), so that uint8 goes to int64 rather than float32 and float16 to
 * float32 rather than float64. */
#include "base/typeconv.h"

#include <pthread.h>

#define FIRST CUPLUG_TYPE_BOOL
#define LAST CUPLUG_TYPE_COMPLEX128
#define N (LAST - FIRST + 2) /* bool..complex128, then bfloat16 */

/* A kind's row of the table, -1 for a kind with no numeric conversions. */
static int row(cuplug_type_kind kind) {
  if (kind >= FIRST && kind <= LAST) return (int)(kind - FIRST);
  return kind == CUPLUG_TYPE_BFLOAT16 ? N - 1 : -1;
}

/* numba-cuda's casting rules: BOTH(a, b, how) is a -> b `how` and back
 * unsafe (its safe_unsafe, promote_unsafe, unsafe_unsafe); ONE_WAY has no
 * way back (its safe). */
#define BOTH(a, b, how) {CUPLUG_TYPE_##a, CUPLUG_TYPE_##b, CUPLUG__CONV_##how, CUPLUG__CONV_UNSAFE}
#define ONE_WAY(a, b, how) {CUPLUG_TYPE_##a, CUPLUG_TYPE_##b, CUPLUG__CONV_##how, CUPLUG__CONV_NONE}
static const struct {
  cuplug_type_kind from, to;
  cuplug__conversion how, back;
} rules[] = {
    BOTH(BOOL, INT8, SAFE),
    BOTH(BOOL, UINT8, SAFE),
    BOTH(INT8, INT16, PROMOTE),
    BOTH(UINT8, UINT16, PROMOTE),
    BOTH(INT16, INT32, PROMOTE),
    BOTH(UINT16, UINT32, PROMOTE),
    BOTH(INT32, INT64, PROMOTE),
    BOTH(UINT32, UINT64, PROMOTE),
    BOTH(UINT8, INT16, SAFE),
    BOTH(UINT16, INT32, SAFE),
    BOTH(UINT32, INT64, SAFE),
    BOTH(INT8, FLOAT16, SAFE),
    BOTH(INT16, FLOAT32, SAFE),
    BOTH(INT32, FLOAT64, SAFE),
    BOTH(INT16, FLOAT16, UNSAFE),
    BOTH(INT32, FLOAT32, UNSAFE),
    /* numba calls these safe too, so that float64 + int64 types as float64 */
    BOTH(INT64, FLOAT64, SAFE),
    BOTH(UINT64, FLOAT64, SAFE),
    BOTH(FLOAT16, FLOAT32, PROMOTE),
    BOTH(FLOAT32, FLOAT64, PROMOTE),
    /* bfloat16: a float narrower than float32, with float32's range; its 8
     * significant bits hold every int8 */
    BOTH(INT8, BFLOAT16, SAFE),
    BOTH(INT16, BFLOAT16, UNSAFE),
    BOTH(BFLOAT16, FLOAT32, PROMOTE),
    ONE_WAY(FLOAT32, COMPLEX64, SAFE),
    ONE_WAY(FLOAT64, COMPLEX128, SAFE),
    BOTH(COMPLEX64, COMPLEX128, PROMOTE),
};
#undef BOTH
#undef ONE_WAY

static cuplug__conversion table[N][N];
static unsigned distance[N][N];

/* bool, integer, float or complex, of a row */
static int category(int r) {
  if (r == N - 1) return 2; /* bfloat16 */
  int kind = r + FIRST;
  if (kind == CUPLUG_TYPE_BOOL) return 0;
  if (kind <= CUPLUG_TYPE_UINT64) return 1;
  if (kind <= CUPLUG_TYPE_FLOAT64) return 2;
  return 3;
}

/* Is (c, d) a better conversion than (table, distance) at [i][j]? */
static bool better(cuplug__conversion c, unsigned d, int i, int j) {
  return c < table[i][j] || (c == table[i][j] && d < distance[i][j]);
}
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_init(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      table[i][j] = i == j ? CUPLUG__CONV_EXACT : CUPLUG__CONV_NONE;
      distance[i][j] = 0;
    }
  for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
    int i = row(rules[r].from), j = row(rules[r].to);
    unsigned d = category(i) == category(j) ? 1 : 8;
    table[i][j] = rules[r].how;
    distance[i][j] = d;
    if (rules[r].back != CUPLUG__CONV_NONE) {
      table[j][i] = rules[r].back;
      distance[j][i] = d;
    }
  }
  /* the best chain: as bad as its worst step, as long as its steps */
  for (int k = 0; k < N; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) {
        cuplug__conversion via = table[i][k] > table[k][j] ? table[i][k] : table[k][j];
        unsigned d = distance[i][k] + distance[k][j];
        if (better(via, d, i, j)) {
          table[i][j] = via;
          distance[i][j] = d;
        }
      }
}

static cuplug__conversion worst(cuplug__conversion a, cuplug__conversion b) {
  return a > b ? a : b;
}

/* Does the float type hold the integer exactly?  Its odd part must fit the
 * significand (and a float16 tops out at 65504). */
static bool exact_in_float(int64_t v, cuplug_type_kind kind) {
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  if (kind == CUPLUG_TYPE_FLOAT16 && u > 65504) return false;
  while (u && !(u & 1)) u >>= 1;
  int bits = kind == CUPLUG_TYPE_FLOAT16    ? 11
             : kind == CUPLUG_TYPE_BFLOAT16 ? 8
             : kind == CUPLUG_TYPE_FLOAT32  ? 24
                                            : 53;
  return u < (UINT64_C(1) << bits);
}

cuplug__conversion cuplug__convert(const cuplug_type *from, const cuplug_type *to,
                                   unsigned *dist) {
  unsigned ignored;
  if (!dist) dist = &ignored;
  *dist = 0;
  if (from == to) return CUPLUG__CONV_EXACT;
  if (from->kind == CUPLUG_TYPE_INT_LITERAL) {
    int64_t v = from->value;
    if (cuplug__type_is_integer(to)) {
      unsigned bits = cuplug__type_size(to) * 8;
      bool is_signed = cuplug__type_is_signed(to);
      bool fits = bits == 64 ? (is_signed || v >= 0)
                  : is_signed ? v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1))
                              : v >= 0 && v < (INT64_C(1) << bits);
      if (fits) {
        *dist = bits / 8; /* the narrowest type that holds it is the nearest */
        return CUPLUG__CONV_PROMOTE;
      }
    } else if (cuplug__type_is_float(to)) {
      if (exact_in_float(v, to->kind)) {
        *dist = 16 + cuplug__type_size(to);
        return CUPLUG__CONV_SAFE;
      }
    }
    /* otherwise as its int64 would, and never exact */
    const cuplug_type *i64 = cuplug__type_scalar(CUPLUG_TYPE_INT64);
    if (!i64) return CUPLUG__CONV_NONE;
    cuplug__conversion c = worst(cuplug__convert(i64, to, dist), CUPLUG__CONV_PROMOTE);
    *dist += 32;
    return c;
  }
  if (row(from->kind) >= 0 && row(to->kind) >= 0) {
    pthread_once(&table_once, table_init);
    *dist = distance[row(from->kind)][row(to->kind)];
    return table[row(from->kind)][row(to->kind)];
  }
  if (from->kind == CUPLUG_TYPE_ARRAY && to->kind == CUPLUG_TYPE_ARRAY) {
    /* numba's Array.can_convert_to: a contiguous array is also an array of
     * any layout, a writable one also a read-only one, never the reverse */
    if (from->element == to->element && from->ndim == to->ndim &&
        (to->layout == CUPLUG_LAYOUT_ANY || to->layout == from->layout) &&
        (to->readonly || !from->readonly)) {
      *dist = 1;
      return CUPLUG__CONV_SAFE;
    }
    return CUPLUG__CONV_NONE;
  }
  /* a Struct converts to itself alone (from == to): numba's struct models
   * are nominal, their members' conversions are not theirs */
  if (from->kind == CUPLUG_TYPE_TUPLE && to->kind == CUPLUG_TYPE_TUPLE &&
      from->nargs == to->nargs) {
    cuplug__conversion c = CUPLUG__CONV_EXACT;
    for (size_t i = 0; i < from->nargs; i++) {
      unsigned d;
      c = worst(c, cuplug__convert(from->args[i], to->args[i], &d));
      *dist += d;
    }
    return c;
  }
  return CUPLUG__CONV_NONE;
}

const char *cuplug__conversion_name(cuplug__conversion c) {
  static const char *const names[] = {"exact", "promote", "safe", "unsafe", "none"};
  return c <= CUPLUG__CONV_NONE ? names[c] : "?";
}
