/* values.c - values.json's values: each read as a C value of its kind,
 * an array's elements into a buffer of its dtype, and a result compared
 * with the value numba-cuda gave.  Integers and bools compare exactly;
 * floats within "ulps" units in the last place (0: the same bits, NaN
 * equal to NaN). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"

int values_kind_of(const cuplug_api *api, const cuplug_type *t, cuplug_type_info *info) {
  *info = (cuplug_type_info){.struct_size = sizeof *info, .type = t};
  cuplug_error *e = api->type_info(info);
  api->error_destroy(e);
  return (int)info->kind;
}

size_t values_size_of(cuplug_type_kind k) {
  switch (k) {
    case CUPLUG_TYPE_BOOL: case CUPLUG_TYPE_INT8: case CUPLUG_TYPE_UINT8: return 1;
    case CUPLUG_TYPE_INT16: case CUPLUG_TYPE_UINT16: case CUPLUG_TYPE_FLOAT16: return 2;
    case CUPLUG_TYPE_INT32: case CUPLUG_TYPE_UINT32: case CUPLUG_TYPE_FLOAT32: return 4;
    case CUPLUG_TYPE_COMPLEX64: case CUPLUG_TYPE_INT64: case CUPLUG_TYPE_UINT64:
    case CUPLUG_TYPE_FLOAT64: case CUPLUG_TYPE_POINTER: return 8;
    case CUPLUG_TYPE_COMPLEX128: return 16;
    default: return 0;
  }
}

static const struct {
  const char *name;
  cuplug_type_kind kind;
} dtypes[] = {{"bool", CUPLUG_TYPE_BOOL},       {"int8", CUPLUG_TYPE_INT8},
              {"int16", CUPLUG_TYPE_INT16},     {"int32", CUPLUG_TYPE_INT32},
              {"int64", CUPLUG_TYPE_INT64},     {"uint8", CUPLUG_TYPE_UINT8},
              {"uint16", CUPLUG_TYPE_UINT16},   {"uint32", CUPLUG_TYPE_UINT32},
              {"uint64", CUPLUG_TYPE_UINT64},   {"float32", CUPLUG_TYPE_FLOAT32},
              {"float64", CUPLUG_TYPE_FLOAT64}, {"complex64", CUPLUG_TYPE_COMPLEX64},
              {"complex128", CUPLUG_TYPE_COMPLEX128}};

static cuplug_type_kind dtype_kind(const char *name) {
  for (size_t i = 0; name && i < sizeof dtypes / sizeof dtypes[0]; i++)
    if (!strcmp(dtypes[i].name, name)) return dtypes[i].kind;
  return CUPLUG_TYPE_INVALID;
}

/* Is d an integer within [lo, hi]?  (Converting one that is not to an
 * integer type is undefined.) */
static bool integral(double d, double lo, double hi) {
  return d >= lo && d <= hi && d == floor(d);
}

bool values_store(cuplug_type_kind k, const json *v, void *p) {
  if (k == CUPLUG_TYPE_COMPLEX64 || k == CUPLUG_TYPE_COMPLEX128) {
    if (!v || v->kind != JSON_ARRAY || v->count != 2) return false;
    size_t half = k == CUPLUG_TYPE_COMPLEX64 ? 4 : 8;
    cuplug_type_kind part = half == 4 ? CUPLUG_TYPE_FLOAT32 : CUPLUG_TYPE_FLOAT64;
    return values_store(part, v->items[0], p) && values_store(part, v->items[1], (char *)p + half);
  }
  if (!v || (v->kind != JSON_NUMBER && v->kind != JSON_BOOL)) return false;
  double d = v->kind == JSON_BOOL ? v->boolean : v->number;
  /* 2^63 and 2^64 are the first doubles past int64's and uint64's range */
  static const double two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  switch (k) {
    case CUPLUG_TYPE_BOOL: *(uint8_t *)p = d != 0; return true;
    case CUPLUG_TYPE_INT8: return integral(d, INT8_MIN, INT8_MAX) && (*(int8_t *)p = (int8_t)d, true);
    case CUPLUG_TYPE_INT16:
      return integral(d, INT16_MIN, INT16_MAX) && (*(int16_t *)p = (int16_t)d, true);
    case CUPLUG_TYPE_INT32:
      return integral(d, INT32_MIN, INT32_MAX) && (*(int32_t *)p = (int32_t)d, true);
    case CUPLUG_TYPE_INT64:
      return integral(d, -two63, two63) && d < two63 && (*(int64_t *)p = (int64_t)d, true);
    case CUPLUG_TYPE_UINT8: return integral(d, 0, UINT8_MAX) && (*(uint8_t *)p = (uint8_t)d, true);
    case CUPLUG_TYPE_UINT16:
      return integral(d, 0, UINT16_MAX) && (*(uint16_t *)p = (uint16_t)d, true);
    case CUPLUG_TYPE_UINT32:
      return integral(d, 0, UINT32_MAX) && (*(uint32_t *)p = (uint32_t)d, true);
    case CUPLUG_TYPE_UINT64:
      return integral(d, 0, two64) && d < two64 && (*(uint64_t *)p = (uint64_t)d, true);
    case CUPLUG_TYPE_FLOAT32: *(float *)p = (float)d; return true;
    case CUPLUG_TYPE_FLOAT64: *(double *)p = d; return true;
    default: return false;
  }
}

/* Units in the last place between two floats of the same width. */
static double ulps_apart(double a, double b, bool single) {
  if (a == b) return 0;
  if (isnan(a) || isnan(b) || isinf(a) || isinf(b)) return INFINITY;
  int e;
  frexp(fmax(fabs(a), fabs(b)), &e);
  return fabs(a - b) / ldexp(1.0, e - (single ? 24 : 53));
}

/* A C value of kind k as text, for a message. */
static void describe(cuplug_type_kind k, const void *p, char *out, size_t size) {
  switch (k) {
    case CUPLUG_TYPE_BOOL: snprintf(out, size, "%s", *(const uint8_t *)p ? "True" : "False"); break;
    case CUPLUG_TYPE_INT8: snprintf(out, size, "%d", *(const int8_t *)p); break;
    case CUPLUG_TYPE_INT16: snprintf(out, size, "%d", *(const int16_t *)p); break;
    case CUPLUG_TYPE_INT32: snprintf(out, size, "%d", *(const int32_t *)p); break;
    case CUPLUG_TYPE_INT64: snprintf(out, size, "%lld", (long long)*(const int64_t *)p); break;
    case CUPLUG_TYPE_UINT8: snprintf(out, size, "%u", *(const uint8_t *)p); break;
    case CUPLUG_TYPE_UINT16: snprintf(out, size, "%u", *(const uint16_t *)p); break;
    case CUPLUG_TYPE_UINT32: snprintf(out, size, "%u", *(const uint32_t *)p); break;
    case CUPLUG_TYPE_UINT64:
      snprintf(out, size, "%llu", (unsigned long long)*(const uint64_t *)p);
      break;
    case CUPLUG_TYPE_FLOAT32: snprintf(out, size, "%.9g", *(const float *)p); break;
    case CUPLUG_TYPE_FLOAT64: snprintf(out, size, "%.17g", *(const double *)p); break;
    case CUPLUG_TYPE_COMPLEX64:
      snprintf(out, size, "(%.9g%+.9gj)", ((const float *)p)[0], ((const float *)p)[1]);
      break;
    case CUPLUG_TYPE_COMPLEX128:
      snprintf(out, size, "(%.17g%+.17gj)", ((const double *)p)[0], ((const double *)p)[1]);
      break;
    default: snprintf(out, size, "?"); break;
  }
}

bool values_compare(checker *c, cuplug_type_kind k, const void *got, const json *want,
                    const char *where, size_t index) {
  unsigned char expect[16] = {0};
  if (!values_store(k, want, expect)) {
    fprintf(stderr, "cuplug: %s/values.json: %s[%zu]: not a value of its type\n", c->dir, where,
            index);
    c->mismatched++;
    return false;
  }
  size_t n = values_size_of(k);
  c->compared++;
  if (!memcmp(got, expect, n)) {
    c->exact++;
    return true;
  }
  bool single = k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_COMPLEX64;
  bool ok = false;
  double g[2] = {0}, w[2] = {0};
  if (k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_COMPLEX64) {
    for (int i = 0; i < (k == CUPLUG_TYPE_COMPLEX64 ? 2 : 1); i++) {
      g[i] = ((const float *)got)[i];
      w[i] = ((const float *)expect)[i];
    }
  } else if (k == CUPLUG_TYPE_FLOAT64 || k == CUPLUG_TYPE_COMPLEX128) {
    for (int i = 0; i < (k == CUPLUG_TYPE_COMPLEX128 ? 2 : 1); i++) {
      g[i] = ((const double *)got)[i];
      w[i] = ((const double *)expect)[i];
    }
  }
  if (values_size_of(k) && (k == CUPLUG_TYPE_FLOAT32 || k == CUPLUG_TYPE_FLOAT64 ||
                     k == CUPLUG_TYPE_COMPLEX64 || k == CUPLUG_TYPE_COMPLEX128)) {
    bool nan = (isnan(g[0]) && isnan(w[0])) || (isnan(g[1]) && isnan(w[1]));
    ok = nan || (ulps_apart(g[0], w[0], single) <= c->ulps &&
                 ulps_apart(g[1], w[1], single) <= c->ulps);
  }
  if (!ok && c->mismatched++ < 5) {
    char a[96], b[96];
    describe(k, got, a, sizeof a);
    describe(k, expect, b, sizeof b);
    fprintf(stderr, "cuplug: %s: %s[%zu]: the host gave %s, numba-cuda %s\n", c->dir, where,
            index, a, b);
  }
  return ok;
}

void *values_read_buffer(const json *a, cuplug_type_kind *dtype, size_t *count) {
  const json *data = json_get(a, "data");
  cuplug_type_kind dt = dtype_kind(json_string(a, "dtype"));
  if (!data || data->kind != JSON_ARRAY || !values_size_of(dt)) return NULL;
  size_t item = values_size_of(dt);
  char *buf = calloc(data->count ? data->count : 1, item);
  for (size_t e = 0; e < data->count && buf; e++) {
    if (!values_store(dt, data->items[e], buf + e * item)) {
      free(buf);
      return NULL;
    }
  }
  *dtype = dt;
  *count = data->count;
  return buf;
}
