/* irscan.c - quick looks at IR text, without lexing: whether a text
 * defines a symbol and how often it names it (the pipeline's entry and its
 * callers), and which functions it declares (the result cache's keys).
 * Each is a search of the bytes, cheaper than a lex. */
#include "lowering/irlex.h"

#include <ctype.h>
#include <string.h>

#include "base/find.h"

/* The next reference to @symbol (written @symbol or @"symbol") at or after
 * p, or NULL; *at is its '@'. */
static const char *next_reference(const char *text, const char *end, const char *p,
                                  const char *symbol, size_t sl, const char **at) {
  size_t head = sl < 4 ? sl : 4; /* found sixteen bytes at a time, the rest compared */
  for (; sl && (p = cuplug__find(p, end, symbol, head)); p++) {
    if ((size_t)(end - p) < sl) return NULL;
    if (memcmp(p + head, symbol + head, sl - head) != 0) continue;
    const char *q = p;
    bool quoted = q > text && q[-1] == '"';
    if (quoted) q--;
    if (q == text || q[-1] != '@') continue;
    char after = p + sl < end ? p[sl] : '\0';
    if (quoted ? after != '"' : cuplug__ir_ident_char(after)) continue;
    *at = q - 1;
    return p;
  }
  return NULL;
}

bool cuplug__ir_text_defines(const char *text, size_t len, const char *symbol) {
  size_t sl = strlen(symbol);
  const char *end = text + len, *at;
  for (const char *p = text; (p = next_reference(text, end, p, symbol, sl, &at)); p++) {
    const char *ls = at;
    while (ls > text && ls[-1] != '\n') ls--;
    while (ls < at && (*ls == ' ' || *ls == '\t')) ls++;
    if ((size_t)(end - ls) > 6 && memcmp(ls, "define", 6) == 0) return true;
  }
  return false;
}

size_t cuplug__ir_text_references(const char *text, size_t len, const char *symbol) {
  size_t sl = strlen(symbol), n = 0;
  const char *end = text + len, *at;
  for (const char *p = text; (p = next_reference(text, end, p, symbol, sl, &at)); p++) n++;
  return n;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The name after the '@' of a declaration line [at, eol), unescaped. */
static size_t declared_name(const char *q, const char *eol, char *name, size_t cap) {
  size_t n = 0;
  if (*q == '"') {
    for (q++; q < eol && *q != '"' && n < cap; q++) {
      int hi, lo;
      if (*q == '\\' && q + 2 < eol && (hi = hex_value(q[1])) >= 0 &&
          (lo = hex_value(q[2])) >= 0) {
        name[n++] = (char)(hi * 16 + lo);
        q += 2;
      } else {
        name[n++] = *q;
      }
    }
    return n;
  }
  for (; q < eol && n < cap && (isalnum((unsigned char)*q) || *q == '_' || *q == '.' ||
                                *q == '$' || *q == '-');
       q++)
    name[n++] = *q;
  return n;
}

/* The next "decl" in [p, end), or NULL: the result cache asks this of
 * every compile's IR, and "decl" is rare in IR but for declarations. */
static const char *next_decl(const char *p, const char *end) {
  return cuplug__find(p, end, "decl", 4);
}

void cuplug__ir_text_each_declared(const char *text, size_t len,
                                   void (*fn)(void *ctx, const char *name, size_t n), void *ctx) {
  const char *end = text + len;
  /* "declare" at the start of a line (after blanks) */
  for (const char *p = text; p < end;) {
    const char *d = next_decl(p, end);
    if (!d) break;
    if ((size_t)(end - d) < 7 || memcmp(d, "declare", 7) != 0) {
      p = d + 4;
      continue;
    }
    p = d + 7;
    const char *ls = d;
    while (ls > text && (ls[-1] == ' ' || ls[-1] == '\t')) ls--;
    if ((ls > text && ls[-1] != '\n') || p >= end || (*p != ' ' && *p != '\t')) continue;
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) eol = end;
    const char *at = memchr(p, '@', (size_t)(eol - p));
    char name[1024];
    size_t n = at && at + 1 < eol ? declared_name(at + 1, eol, name, sizeof name) : 0;
    if (n) fn(ctx, name, n);
    p = eol;
  }
}
