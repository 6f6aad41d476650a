/* buf.c - growable byte buffer. */
#include "base/buf.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cuplug__buf_init(cuplug__buf *b) { memset(b, 0, sizeof *b); }

void cuplug__buf_free(cuplug__buf *b) {
  free(b->data);
  cuplug__buf_init(b);
}

void cuplug__buf_clear(cuplug__buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

bool cuplug__buf_reserve(cuplug__buf *b, size_t extra) {
  if (b->oom) return false;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return true;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    b->oom = true;
    return false;
  }
  b->data = p;
  b->cap = cap;
  return true;
}

void cuplug__buf_append(cuplug__buf *b, const char *s, size_t n) {
  if (!cuplug__buf_reserve(b, n)) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void cuplug__buf_puts(cuplug__buf *b, const char *s) {
  cuplug__buf_append(b, s, strlen(s));
}

void cuplug__buf_putc(cuplug__buf *b, char c) { cuplug__buf_append(b, &c, 1); }

/* ---- formatting ---- */

/* The conversions cuplug's builders use: %s, %.*s, %c, %%, and %d %i %u with
 * no length, l, ll or z.  These are written here; a format with any other
 * goes to vsnprintf, which handles everything but costs a few microseconds
 * a call when it runs cold, as it does after a toolkit call: a compile
 * formats dozens of lines (wrappers, annotations, types, versions). */
typedef enum { LEN_INT, LEN_LONG, LEN_LLONG, LEN_SIZE } int_length;

typedef struct conversion {
  char letter;
  int_length length;
  bool star; /* %.*s */
} conversion;

/* Reads the conversion after a '%' at p; returns the text after it, or NULL
 * for one this file does not write. */
static const char *read_conversion(const char *p, conversion *c) {
  *c = (conversion){0, LEN_INT, false};
  if (p[0] == '.' && p[1] == '*' && p[2] == 's') {
    c->star = true;
    c->letter = 's';
    return p + 3;
  }
  if (p[0] == 'l' && p[1] == 'l') {
    c->length = LEN_LLONG;
    p += 2;
  } else if (p[0] == 'l' || p[0] == 'z') {
    c->length = p[0] == 'l' ? LEN_LONG : LEN_SIZE;
    p++;
  }
  bool integer = *p == 'd' || *p == 'i' || *p == 'u';
  if (!integer && (c->length != LEN_INT || (*p != 's' && *p != 'c' && *p != '%'))) return NULL;
  c->letter = *p;
  return p + 1;
}

static bool written_here(const char *fmt) {
  conversion c;
  for (const char *p = fmt; (p = strchr(p, '%'));)
    if (!(p = read_conversion(p + 1, &c))) return false;
  return true;
}

size_t cuplug__decimal(char out[CUPLUG__DECIMAL_MAX], unsigned long long v, bool negative) {
  char digits[CUPLUG__DECIMAL_MAX];
  size_t n = 0;
  do {
    digits[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  size_t k = 0;
  if (negative) out[k++] = '-';
  while (n) out[k++] = digits[--n];
  out[k] = '\0';
  return k;
}

static void put_integer(cuplug__buf *b, const conversion *c, va_list *ap) {
  char digits[CUPLUG__DECIMAL_MAX];
  size_t n;
  if (c->letter == 'u') {
    unsigned long long u;
    switch (c->length) {
      case LEN_INT: u = va_arg(*ap, unsigned); break;
      case LEN_LONG: u = va_arg(*ap, unsigned long); break;
      case LEN_LLONG: u = va_arg(*ap, unsigned long long); break;
      default: u = va_arg(*ap, size_t); break;
    }
    n = cuplug__decimal(digits, u, false);
  } else {
    long long v;
    switch (c->length) {
      case LEN_INT: v = va_arg(*ap, int); break;
      case LEN_LONG: v = va_arg(*ap, long); break;
      case LEN_LLONG: v = va_arg(*ap, long long); break;
      default: v = va_arg(*ap, ptrdiff_t); break; /* %zd: the signed size_t */
    }
    n = cuplug__decimal_signed(digits, v);
  }
  cuplug__buf_append(b, digits, n);
}

static void put_string(cuplug__buf *b, const conversion *c, va_list *ap) {
  int precision = c->star ? va_arg(*ap, int) : -1;
  const char *s = va_arg(*ap, const char *);
  if (!s) s = precision >= 0 && precision < 6 ? "" : "(null)"; /* as glibc writes it */
  size_t n = precision >= 0 ? strnlen(s, (size_t)precision) : strlen(s);
  cuplug__buf_append(b, s, n);
}

static void put_formatted(cuplug__buf *b, const char *fmt, va_list *ap) {
  for (const char *p = fmt;;) {
    const char *pct = strchr(p, '%');
    cuplug__buf_append(b, p, pct ? (size_t)(pct - p) : strlen(p));
    if (!pct) return;
    conversion c;
    p = read_conversion(pct + 1, &c);
    if (c.letter == '%')
      cuplug__buf_putc(b, '%');
    else if (c.letter == 'c')
      cuplug__buf_putc(b, (char)va_arg(*ap, int));
    else if (c.letter == 's')
      put_string(b, &c, ap);
    else
      put_integer(b, &c, ap);
  }
}

void cuplug__buf_vprintf(cuplug__buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  if (written_here(fmt)) {
    put_formatted(b, fmt, &ap2);
    va_end(ap2);
    return;
  }
  char small[256];
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof small) {
    cuplug__buf_append(b, small, (size_t)n);
  } else if (cuplug__buf_reserve(b, (size_t)n)) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
    b->len += (size_t)n;
  }
  va_end(ap2);
}

void cuplug__buf_printf(cuplug__buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cuplug__buf_vprintf(b, fmt, ap);
  va_end(ap);
}

char *cuplug__buf_take(cuplug__buf *b, size_t *len) {
  if (b->oom) {
    cuplug__buf_free(b);
    return NULL;
  }
  if (!b->data) {
    /* nothing was put: the empty string, not the allocation's garbage */
    if (!cuplug__buf_reserve(b, 0)) return NULL;
    b->data[0] = '\0';
  }
  char *p = b->data;
  if (len) *len = b->len;
  cuplug__buf_init(b);
  return p;
}

char *cuplug__strdup(const char *s) {
  return s ? cuplug__strndup(s, strlen(s)) : NULL;
}

char *cuplug__strndup(const char *s, size_t n) {
  if (!s) return NULL;
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *cuplug__read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  cuplug__buf b;
  cuplug__buf_init(&b);
  char chunk[1 << 16];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) cuplug__buf_append(&b, chunk, n);
  int failed = ferror(f);
  fclose(f);
  if (failed || b.oom) {
    cuplug__buf_free(&b);
    errno = failed ? EIO : ENOMEM;
    return NULL;
  }
  return cuplug__buf_take(&b, size);
}
