/* dialect.c - telling typed-pointer text, opaque-pointer text and bitcode
 * apart, from the bytes alone.
 *
 * Text that spells a typed pointer (`float*`, a `*` outside comments and
 * strings) is numba-cuda's LLVM 7 dialect: LLVM 17 and later have none.
 * Other text is modern when it spells the type `ptr`: LLVM 15 and later
 * write every pointer so.  The scan follows LLVM's lexer only as far as
 * that takes: comments and strings are skipped, names after a sigil (%ptr,
 * @ptr_x, !ptr, $ptr, #0, ^0, and quoted ones) are not words, and a word
 * followed by ':' is a label.  A debug record (`#dbg_value(...)`, LLVM 19
 * and later, between a function's instructions) makes text modern too:
 * LLVM 7's `#` names only attribute groups (`#0`).
 *
 * Text with no pointer at all is what a modern producer writes for a
 * function of numbers: clang's, rustc's or MLIR's device math.  It is
 * modern when it holds what LLVM 7, and so libNVVM's reader, cannot read,
 * which a modern producer writes in nearly every such function:
 *   - a parameter named by number in a definition (`define i32 @f(i32 %0)`:
 *     LLVM 7 leaves unnamed parameters unnamed, and its reader refuses the
 *     name);
 *   - an instruction flag newer than LLVM 7 (`or disjoint`, `zext nneg`,
 *     `icmp samesign`) or the `freeze` instruction;
 *   - a call of an integer minimum, maximum or absolute value intrinsic
 *     (`@llvm.smax.i32`, quoted or not; LLVM 12), which clang makes of min,
 *     max and abs.
 * None of these is valid LLVM 7, so text read as modern for them could
 * never have compiled as typed.  Pointer-free text with none of them reads
 * the same in both dialects: it is typed, the dialect libNVVM takes (for
 * every architecture, where modern IR takes it from cc 10.0). */
#include "lowering/dialect.h"

#include <stdbool.h>
#include <string.h>

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

/* Whether the text spells a typed pointer: a `*` outside comments and
 * strings (LLVM's text has no other, and modern text none at all).  Typed
 * text has one within its first definition, so the first `*` memchr finds
 * decides, and numba-cuda's text needs no scan; its line is read from its
 * start to tell a comment or a string (which do not span lines in printed
 * IR) from code. */
static bool has_typed_pointer(const unsigned char *p, size_t size) {
  const unsigned char *start = p, *end = p + size;
  for (const unsigned char *star; (star = memchr(p, '*', (size_t)(end - p))); p = star + 1) {
    const unsigned char *q = star;
    while (q > start && q[-1] != '\n') q--;
    bool code = true;
    for (; q < star && code; q++) {
      if (*q == ';') code = false;
      if (*q == '"') {
        const unsigned char *close = memchr(q + 1, '"', (size_t)(star - q - 1));
        if (!close) code = false;
        q = close ? close : star;
      }
    }
    if (code) return true;
  }
  return false;
}

/* The calls of LLVM 12's integer intrinsics, by the name after '@'. */
static bool newer_intrinsic(const unsigned char *name, const unsigned char *end) {
  static const char *const names[] = {"llvm.smax.", "llvm.smin.", "llvm.umax.", "llvm.umin.",
                                      "llvm.abs."};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t n = strlen(names[i]);
    if ((size_t)(end - name) >= n && memcmp(name, names[i], n) == 0) return true;
  }
  return false;
}

/* A word only modern text holds: the `ptr` type, the instruction flags
 * and the instruction newer than LLVM 7. */
static bool modern_word(const unsigned char *w, size_t n) {
  switch (n) {
    case 3: return memcmp(w, "ptr", 3) == 0;
    case 4: return memcmp(w, "nneg", 4) == 0;
    case 6: return memcmp(w, "freeze", 6) == 0;
    case 8: return memcmp(w, "disjoint", 8) == 0 || memcmp(w, "samesign", 8) == 0;
    default: return false;
  }
}

cuplug__dialect cuplug__ir_dialect(const char *bytes, size_t size) {
  const unsigned char *p = (const unsigned char *)bytes, *end = p + size;
  if (is_bitcode(p, size)) return CUPLUG__DIALECT_BITCODE;
  if (has_typed_pointer(p, size)) return CUPLUG__DIALECT_TYPED;
  bool header = false; /* between `define` and its body's '{' */
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
      if ((c == '%' && header && p < end && *p >= '0' && *p <= '9') ||
          (c == '@' && newer_intrinsic(p + (p < end && *p == '"'), end)))
        return CUPLUG__DIALECT_MODERN;
      if (p < end && *p == '"')
        p = skip_string(p + 1, end);
      else
        while (p < end && (word_char(*p) || *p == '\\')) p++;
    } else if (word_char(c)) {
      const unsigned char *w = p;
      while (p < end && word_char(*p)) p++;
      bool label = p < end && *p == ':';
      if (!label && modern_word(w, (size_t)(p - w))) return CUPLUG__DIALECT_MODERN;
      if (p - w == 6 && memcmp(w, "define", 6) == 0) header = true;
    } else {
      if (c == '{' || c == '\n') header = false;
      p++;
    }
  }
  return CUPLUG__DIALECT_TYPED;
}
