/* buf.h - a growable byte buffer, the one string builder of cuplug. */
#ifndef CUPLUG__BASE_BUF_H
#define CUPLUG__BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* The contents are always NUL-terminated (when data is not NULL).  A failed
 * allocation sets `oom` and makes later appends no-ops, so a builder can run
 * to its end and check once. */
typedef struct cuplug__buf {
  char *data;
  size_t len;
  size_t cap;
  bool oom;
} cuplug__buf;

void cuplug__buf_init(cuplug__buf *b);
void cuplug__buf_free(cuplug__buf *b);
/* Empties the buffer, keeping its memory (and its oom). */
void cuplug__buf_clear(cuplug__buf *b);
bool cuplug__buf_reserve(cuplug__buf *b, size_t extra);
void cuplug__buf_append(cuplug__buf *b, const char *s, size_t n);
void cuplug__buf_puts(cuplug__buf *b, const char *s);
void cuplug__buf_putc(cuplug__buf *b, char c);
/* printf into the buffer.  %s, %.*s, %c, %% and %d %i %u (plain, l, ll, z)
 * are written by cuplug itself, quickly; other conversions by vsnprintf. */
void cuplug__buf_printf(cuplug__buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cuplug__buf_vprintf(cuplug__buf *b, const char *fmt, va_list ap);
/* The decimal digits of v (after a '-' when negative), NUL-terminated;
 * returns their count. */
#define CUPLUG__DECIMAL_MAX 22
size_t cuplug__decimal(char out[CUPLUG__DECIMAL_MAX], unsigned long long v, bool negative);
/* The same for a signed number. */
static inline size_t cuplug__decimal_signed(char out[CUPLUG__DECIMAL_MAX], long long v) {
  return cuplug__decimal(out, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0);
}

/* Hands the contents to the caller (free() them) and resets the buffer.
 * Returns NULL if an allocation failed along the way. */
char *cuplug__buf_take(cuplug__buf *b, size_t *len);

/* strdup/strndup that tolerate NULL (giving NULL). */
char *cuplug__strdup(const char *s);
char *cuplug__strndup(const char *s, size_t n);

/* Reads a whole file; the result is NUL-terminated.  NULL with errno set. */
char *cuplug__read_file(const char *path, size_t *size);

#endif
