/* buf.c - growable byte buffer. */
#include "base/buf.h"

#include <errno.h>
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

void cuplug__buf_vprintf(cuplug__buf *b, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
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
