/* asm_guard.c - what LLVM's text reader must not be handed: inline asm
 * constraints it reads past the end of. */
#include "plugin/llvm/asm_guard.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "base/error.h"

/* 1-based line of p, for the message. */
static size_t line_at(const char *text, const char *p) {
  size_t line = 1;
  for (const char *q = text; (q = memchr(q, '\n', (size_t)(p - q))); q++) line++;
  return line;
}

static bool name_char(char c) {
  return isalnum((unsigned char)c) || c == '.' || c == '_' || c == '$' || c == '-' || c == '%' ||
         c == '@' || c == '!' || c == '\\';
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static const char *blanks(const char *q, const char *end) {
  while (q < end && (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')) q++;
  return q;
}

const char *cuplug__asm_bad_constraint(const char *s, const char *e, bool escaped,
                                       char *which) {
  bool brace = false;
  for (const char *r = s; r < e; r++) {
    char c = *r;
    if (escaped && c == '\\' && e - r > 2 && hex_digit(r[1]) >= 0 && hex_digit(r[2]) >= 0) {
      c = (char)(hex_digit(r[1]) * 16 + hex_digit(r[2]));
      r += 2;
    }
    if (c == '{') brace = true;
    else if (c == '}') brace = false;
    else if (!brace && (c == '@' || c == '^')) {
      *which = c;
      return r;
    }
  }
  return NULL;
}

cuplug_error *cuplug__llvm_check_asm(const char *name, const char *text, size_t len) {
  if (!memmem(text, len, "asm", 3)) return NULL;
  const char *p = text, *end = text + len;
  while (p < end) {
    if (*p == ';') { /* a comment */
      p = memchr(p, '\n', (size_t)(end - p));
      if (!p) break;
      continue;
    }
    if (*p == '"') { /* a string: no quote inside one but as an escape */
      p = memchr(p + 1, '"', (size_t)(end - p - 1));
      if (!p) break;
      p++;
      continue;
    }
    if (!(end - p > 3 && memcmp(p, "asm", 3) == 0 && (p == text || !name_char(p[-1])) &&
          !name_char(p[3]))) {
      p++;
      continue;
    }
    /* asm [sideeffect] [alignstack] [inteldialect] [unwind] "code", "constraints" */
    const char *q = blanks(p + 3, end);
    while (q < end && isalpha((unsigned char)*q)) {
      while (q < end && isalpha((unsigned char)*q)) q++;
      q = blanks(q, end);
    }
    p = q;
    if (q == end || *q != '"') continue;
    const char *code_end = memchr(q + 1, '"', (size_t)(end - q - 1));
    if (!code_end) break;
    q = blanks(code_end + 1, end);
    p = q;
    if (q == end || *q != ',') continue;
    q = blanks(q + 1, end);
    p = q;
    if (q == end || *q != '"') continue;
    const char *cs = q + 1, *ce = memchr(cs, '"', (size_t)(end - cs));
    if (!ce) break;
    char which = 0;
    const char *bad = cuplug__asm_bad_constraint(cs, ce, true, &which);
    if (bad)
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                           "IR module %s, line %zu: an inline asm constraint string \"%.*s\" "
                           "uses '%c', a kind of constraint NVPTX does not have",
                           name, line_at(text, bad),
                           (int)(ce - cs > 80 ? 80 : ce - cs), cs, which);
    p = ce + 1;
  }
  return NULL;
}
