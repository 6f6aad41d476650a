/* dialect.c - telling typed-pointer text, opaque-pointer text and bitcode
 * apart, from the bytes alone.
 *
 * Text is modern when it spells the type `ptr`: LLVM 15 and later write
 * every pointer so, and numba-cuda's LLVM 7 text never does.  The scan
 * follows LLVM's lexer only as far as that takes: comments and strings are
 * skipped, names after a sigil (%ptr, @ptr_x, !ptr, $ptr, #0, ^0, and
 * quoted ones) are not words, and a word followed by ':' is a label.  A
 * debug record (`#dbg_value(...)`, LLVM 19 and later, between a function's
 * instructions) makes text modern too, with no pointer in it: LLVM 7's `#`
 * names only attribute groups (`#0`).  Text with neither reads the same in
 * both dialects: it is typed, the dialect libNVVM takes. */
#include "lowering/dialect.h"

#include <stdbool.h>
#include <string.h>

#include "base/find.h"

static bool is_bitcode(const unsigned char *p, size_t size) {
  static const unsigned char raw[4] = {'B', 'C', 0xC0, 0xDE};
  static const unsigned char wrapper[4] = {0xDE, 0xC0, 0x17, 0x0B}; /* 0x0B17C0DE, LE */
  return size >= 4 && (memcmp(p, raw, 4) == 0 || memcmp(p, wrapper, 4) == 0);
}

static bool word_char(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         c == '_' || c == '.' || c == '$' || c == '-';
}

static bool sigil(unsigned char c) {
  return c == '%' || c == '@' || c == '!' || c == '$' || c == '#' || c == '^';
}

/* Past the string whose opening quote is just before p (LLVM's strings
 * escape a quote as \22, so the next quote closes it). */
static const unsigned char *skip_string(const unsigned char *p, const unsigned char *end) {
  const unsigned char *q = memchr(p, '"', (size_t)(end - p));
  return q ? q + 1 : end;
}

/* Whether "ptr" stands anywhere as a word of its own, by its neighbours
 * alone: without one (numba-cuda's text has "getelementptr", "inttoptr",
 * never "ptr"), the text is typed and the scan below need not run, which
 * costs as much as lexing the text.  The letters are found sixteen bytes
 * at a time (base/find.h). */
static bool may_say_ptr(const unsigned char *p, size_t size) {
  const unsigned char *start = p, *end = p + size;
  while (p < end) {
    const unsigned char *hit =
        (const unsigned char *)cuplug__find((const char *)p, (const char *)end, "ptr", 3);
    if (!hit) return false;
    if ((hit == start || !word_char(hit[-1])) && (hit + 3 == end || !word_char(hit[3])))
      return true;
    p = hit + 3;
  }
  return false;
}

cuplug__dialect cuplug__ir_dialect(const char *bytes, size_t size) {
  const unsigned char *p = (const unsigned char *)bytes, *end = p + size;
  if (is_bitcode(p, size)) return CUPLUG__DIALECT_BITCODE;
  if (!may_say_ptr(p, size) && !cuplug__find(bytes, bytes + size, "#dbg", 4))
    return CUPLUG__DIALECT_TYPED;
  while (p < end) {
    unsigned char c = *p;
    if (c == ';') {
      p = memchr(p, '\n', (size_t)(end - p));
      if (!p) break;
    } else if (c == '"') {
      p = skip_string(p + 1, end);
    } else if (sigil(c)) {
      p++;
      if (c == '#' && end - p >= 4 && memcmp(p, "dbg_", 4) == 0) return CUPLUG__DIALECT_MODERN;
      if (p < end && *p == '"')
        p = skip_string(p + 1, end);
      else
        while (p < end && (word_char(*p) || *p == '\\')) p++;
    } else if (word_char(c)) {
      const unsigned char *w = p;
      while (p < end && word_char(*p)) p++;
      if (p - w == 3 && memcmp(w, "ptr", 3) == 0 && !(p < end && *p == ':'))
        return CUPLUG__DIALECT_MODERN;
    } else {
      p++;
    }
  }
  return CUPLUG__DIALECT_TYPED;
}
