/* scalars.c - a scalar value's text, read and printed as Python writes it,
 * so that a script can compare `cuplug run`'s results with numba-cuda's:
 * integers as integers, floats in the shortest form that reads back to the
 * same bits ("0.1", "3.0", "inf", "nan"), bools as True and False, complex
 * numbers as (re+imj). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scalars.h"

/* ---- reading a value of a scalar kind ---- */

static bool read_int(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 0);
  if (errno || end == s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

static bool read_uint(const char *s, uint64_t hi, uint64_t *out) {
  char *end;
  errno = 0;
  if (*s == '-') return false;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || end == s || *end || v > hi) return false;
  *out = v;
  return true;
}

static bool read_double(const char *s, const char **rest, double *out) {
  char *end;
  *out = strtod(s, &end);
  if (end == s) return false;
  *rest = end;
  return true;
}

/* "(1.5-2j)", "1.5-2j", "2j", "1.5" */
static bool read_complex(const char *s, double *re, double *im) {
  size_t n = strlen(s);
  char buf[256];
  if (n >= sizeof buf) return false;
  if (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
    memcpy(buf, s + 1, n - 2);
    buf[n - 2] = 0;
  } else {
    memcpy(buf, s, n + 1);
  }
  const char *rest;
  double a;
  if (!read_double(buf, &rest, &a)) return false;
  if (!*rest) { /* a real number */
    *re = a;
    *im = 0;
    return true;
  }
  if (!strcmp(rest, "j")) { /* an imaginary one */
    *re = 0;
    *im = a;
    return true;
  }
  double b;
  const char *tail;
  if ((*rest != '+' && *rest != '-') || !read_double(rest, &tail, &b) || strcmp(tail, "j"))
    return false;
  *re = a;
  *im = b;
  return true;
}

bool cli_scalar_read(cuplug_type_kind k, const char *text, void *slot) {
  int64_t i;
  uint64_t u;
  double d, im;
  const char *rest;
  switch (k) {
    case CUPLUG_TYPE_BOOL:
      if (!strcmp(text, "True") || !strcmp(text, "true") || !strcmp(text, "1")) *(uint8_t *)slot = 1;
      else if (!strcmp(text, "False") || !strcmp(text, "false") || !strcmp(text, "0"))
        *(uint8_t *)slot = 0;
      else return false;
      return true;
    case CUPLUG_TYPE_INT8: if (!read_int(text, INT8_MIN, INT8_MAX, &i)) return false; *(int8_t *)slot = (int8_t)i; return true;
    case CUPLUG_TYPE_INT16: if (!read_int(text, INT16_MIN, INT16_MAX, &i)) return false; *(int16_t *)slot = (int16_t)i; return true;
    case CUPLUG_TYPE_INT32: if (!read_int(text, INT32_MIN, INT32_MAX, &i)) return false; *(int32_t *)slot = (int32_t)i; return true;
    case CUPLUG_TYPE_INT64: if (!read_int(text, INT64_MIN, INT64_MAX, &i)) return false; *(int64_t *)slot = i; return true;
    case CUPLUG_TYPE_UINT8: if (!read_uint(text, UINT8_MAX, &u)) return false; *(uint8_t *)slot = (uint8_t)u; return true;
    case CUPLUG_TYPE_UINT16: if (!read_uint(text, UINT16_MAX, &u)) return false; *(uint16_t *)slot = (uint16_t)u; return true;
    case CUPLUG_TYPE_UINT32: if (!read_uint(text, UINT32_MAX, &u)) return false; *(uint32_t *)slot = (uint32_t)u; return true;
    case CUPLUG_TYPE_UINT64: if (!read_uint(text, UINT64_MAX, &u)) return false; *(uint64_t *)slot = u; return true;
    case CUPLUG_TYPE_FLOAT32:
      if (!read_double(text, &rest, &d) || *rest) return false;
      *(float *)slot = strtof(text, NULL); /* rounded once, from the text */
      return true;
    case CUPLUG_TYPE_FLOAT64:
      if (!read_double(text, &rest, &d) || *rest) return false;
      *(double *)slot = d;
      return true;
    case CUPLUG_TYPE_COMPLEX64:
      if (!read_complex(text, &d, &im)) return false;
      ((float *)slot)[0] = (float)d;
      ((float *)slot)[1] = (float)im;
      return true;
    case CUPLUG_TYPE_COMPLEX128:
      if (!read_complex(text, &d, &im)) return false;
      ((double *)slot)[0] = d;
      ((double *)slot)[1] = im;
      return true;
    default: return false;
  }
}

/* ---- printing ---- */

/* The shortest %g form that reads back to the same value, as Python's
 * repr; `is_float` rounds through float32. */
static void shortest(char *out, size_t size, double v, bool is_float) {
  if (isnan(v)) {
    snprintf(out, size, "nan");
    return;
  }
  if (isinf(v)) {
    snprintf(out, size, v < 0 ? "-inf" : "inf");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(out, size, "%.*g", prec, v);
    if (is_float ? strtof(out, NULL) == (float)v : strtod(out, NULL) == v) break;
  }
}

/* A float as Python prints it: "3.0" rather than "3". */
static void print_float(double v, bool is_float) {
  char s[64];
  shortest(s, sizeof s, v, is_float);
  bool plain = strspn(s + (*s == '-'), "0123456789") == strlen(s + (*s == '-'));
  printf("%s%s", s, plain ? ".0" : "");
}

/* A complex part: "1", "1.5", as Python's complex repr writes it. */
static void print_part(double v, bool is_float, bool sign) {
  char s[64];
  shortest(s, sizeof s, v, is_float);
  printf("%s%s", sign && *s != '-' ? "+" : "", s);
}

void cli_scalar_print(cuplug_type_kind k, const void *p) {
  switch (k) {
    case CUPLUG_TYPE_VOID: printf("None"); break;
    case CUPLUG_TYPE_BOOL: printf("%s", *(const uint8_t *)p ? "True" : "False"); break;
    case CUPLUG_TYPE_INT8: printf("%d", *(const int8_t *)p); break;
    case CUPLUG_TYPE_INT16: printf("%d", *(const int16_t *)p); break;
    case CUPLUG_TYPE_INT32: printf("%" PRId32, *(const int32_t *)p); break;
    case CUPLUG_TYPE_INT64: printf("%" PRId64, *(const int64_t *)p); break;
    case CUPLUG_TYPE_UINT8: printf("%u", *(const uint8_t *)p); break;
    case CUPLUG_TYPE_UINT16: printf("%u", *(const uint16_t *)p); break;
    case CUPLUG_TYPE_UINT32: printf("%" PRIu32, *(const uint32_t *)p); break;
    case CUPLUG_TYPE_UINT64: printf("%" PRIu64, *(const uint64_t *)p); break;
    case CUPLUG_TYPE_FLOAT32: print_float(*(const float *)p, true); break;
    case CUPLUG_TYPE_FLOAT64: print_float(*(const double *)p, false); break;
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: {
      bool f = k == CUPLUG_TYPE_COMPLEX64;
      double re = f ? ((const float *)p)[0] : ((const double *)p)[0];
      double im = f ? ((const float *)p)[1] : ((const double *)p)[1];
      printf("(");
      print_part(re, f, false);
      print_part(im, f, true);
      printf("j)");
      break;
    }
    default: printf("?"); break;
  }
}
