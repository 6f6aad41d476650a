/* irlex.c - the lexer of NVVM-dialect IR text, its keyword sets, and the
 * limits it keeps as it reads every byte. */
#include "lowering/irlex.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* ---- lexer ---- */

/* Character classes of the lexer, looked up rather than computed: lexing
 * is the one pass every stage makes over the whole text.  C_GAP is what
 * lies between tokens (blanks, line breaks, a comment's ';'), C_QUOTE_END
 * what ends a quoted name or string (its '"', or the text's NUL). */
enum {
  C_IDENT = 1,
  C_DIGIT = 2,
  C_SPACE = 4,
  C_ALPHA = 8,
  C_HEX = 16,
  C_GAP = 32,
  C_QUOTE_END = 64
};

static const unsigned char cls[256] = {
    ['\0'] = C_QUOTE_END, ['"'] = C_QUOTE_END,
    [' '] = C_SPACE | C_GAP, ['\t'] = C_SPACE | C_GAP, ['\r'] = C_SPACE | C_GAP,
    ['\f'] = C_SPACE | C_GAP, ['\n'] = C_GAP, [';'] = C_GAP,
    ['-'] = C_IDENT, ['$'] = C_IDENT | C_ALPHA, ['.'] = C_IDENT | C_ALPHA,
    ['_'] = C_IDENT | C_ALPHA, ['\\'] = C_IDENT,
#define D(c) [c] = C_IDENT | C_DIGIT | C_HEX
    D('0'), D('1'), D('2'), D('3'), D('4'), D('5'), D('6'), D('7'), D('8'), D('9'),
#undef D
#define H(c) [c] = C_IDENT | C_ALPHA | C_HEX
    H('a'), H('b'), H('c'), H('d'), H('e'), H('f'),
    H('A'), H('B'), H('C'), H('D'), H('E'), H('F'),
#undef H
#define L(c) [c] = C_IDENT | C_ALPHA
    L('g'), L('h'), L('i'), L('j'), L('k'), L('l'), L('m'), L('n'), L('o'), L('p'),
    L('q'), L('r'), L('s'), L('t'), L('u'), L('v'), L('w'), L('x'), L('y'), L('z'),
    L('G'), L('H'), L('I'), L('J'), L('K'), L('L'), L('M'), L('N'), L('O'), L('P'),
    L('Q'), L('R'), L('S'), L('T'), L('U'), L('V'), L('W'), L('X'), L('Y'), L('Z'),
#undef L
};

static inline bool has(char c, unsigned char k) { return cls[(unsigned char)c] & k; }

/* What a token's first byte makes it, for the kinds most tokens are, in the
 * order they are tested: a word (letters, '_', '$'; 'c' may open c"..."
 * and '.' "...", so those two are left to the switch), punctuation of one
 * byte that no bracket rule touches (most bytes: ',', '*', '=', ':'), a
 * local or global name, an opening or a closing bracket.  The rest is
 * F_OTHER, for the switch: tested in this order, these branches follow
 * the text's few patterns better than one indirect jump. */
enum { F_PUNCT = 0, F_WORD, F_NAME, F_OPEN, F_CLOSE, F_OTHER };

static const unsigned char first_byte[256] = {
    ['%'] = F_NAME, ['@'] = F_NAME, ['('] = F_OPEN, ['['] = F_OPEN, ['{'] = F_OPEN,
    [')'] = F_CLOSE, [']'] = F_CLOSE, ['}'] = F_CLOSE,
    ['!'] = F_OTHER, ['"'] = F_OTHER, ['#'] = F_OTHER, ['-'] = F_OTHER, ['+'] = F_OTHER,
    ['<'] = F_OTHER, ['>'] = F_OTHER, ['.'] = F_OTHER, ['c'] = F_OTHER,
#define D(c) [c] = F_OTHER
    D('0'), D('1'), D('2'), D('3'), D('4'), D('5'), D('6'), D('7'), D('8'), D('9'),
#undef D
    ['$'] = F_WORD, ['_'] = F_WORD,
#define W(c) [c] = F_WORD
    W('a'), W('b'), W('d'), W('e'), W('f'), W('g'), W('h'), W('i'), W('j'), W('k'), W('l'),
    W('m'), W('n'), W('o'), W('p'), W('q'), W('r'), W('s'), W('t'), W('u'), W('v'), W('w'),
    W('x'), W('y'), W('z'),
    W('A'), W('B'), W('C'), W('D'), W('E'), W('F'), W('G'), W('H'), W('I'), W('J'), W('K'),
    W('L'), W('M'), W('N'), W('O'), W('P'), W('Q'), W('R'), W('S'), W('T'), W('U'), W('V'),
    W('W'), W('X'), W('Y'), W('Z'),
#undef W
};

void cuplug__ir_lexer_init(ir_lexer *lx, const char *text, size_t len, size_t pos) {
  /* text[len] is the NUL that ends every scan */
  lx->text = text;
  lx->len = len;
  lx->pos = pos;
  size_t p = pos; /* only blanks between pos and the line's start: the next token begins a line */
  while (p > 0 && has(text[p - 1], C_SPACE)) p--;
  lx->bol = p == 0 || text[p - 1] == '\n';
}

/* The gap before the token at or after p: blanks, comments and line breaks.
 * Returns the token's offset; *bol is set when a line break was passed.
 * The text ends with a NUL, which stops every loop: no bounds checks. */
static inline __attribute__((always_inline)) size_t skip_gap(const char *s, size_t p,
                                                             bool *bol) {
  p += s[p] == ' '; /* most tokens follow one blank, or none: no branch for it */
  while (has(s[p], C_GAP)) {
    if (s[p] == ';')
      while (s[p] && s[p] != '\n') p++;
    else
      *bol |= s[p++] == '\n';
  }
  return p;
}

/* The end of a quoted name or string whose opening quote is at q - 1: past
 * its closing quote, or at the text's end. */
static inline size_t quoted_end(const char *s, size_t q) {
  while (!has(s[q], C_QUOTE_END)) q++;
  return q + (s[q] == '"');
}

/* Lexes the token that starts at p (not a gap, not the end) into *t, which
 * begins a line when bol; returns the offset after it.  *nesting follows
 * the brackets, as LLVM's parser does: by recursion, so that a deep enough
 * module would overflow its stack (and cuplug's type parser's).  Every
 * kind counts, < > too; a closing bracket below zero is dropped. */
static inline __attribute__((always_inline)) size_t lex_token(const char *s, size_t p,
                                                              bool bol, ir_tok *t,
                                                              int *nesting) {
  ir_tok_kind kind;
  int depth = 0;
  size_t q = p + 1;
  unsigned f = first_byte[(unsigned char)s[p]];
  if (f == F_WORD) {
    kind = IR_WORD;
    while (has(s[q], C_IDENT)) q++;
  } else if (f == F_PUNCT) {
    kind = IR_PUNCT;
  } else if (f == F_NAME) {
    kind = s[p] == '%' ? IR_LOCAL : IR_GLOBAL;
    if (s[q] == '"')
      q = quoted_end(s, q + 1);
    else
      while (has(s[q], C_IDENT)) q++;
  } else if (f == F_OPEN) {
    kind = IR_PUNCT;
    depth = 1;
    ++*nesting;
  } else if (f == F_CLOSE) {
    kind = IR_PUNCT;
    depth = -1;
    *nesting -= *nesting > 0;
  } else switch (s[p]) {
    case '!':
      if (s[q] == '"') {
        kind = IR_META;
        q = quoted_end(s, q + 1);
      } else if (has(s[q], C_IDENT)) {
        kind = IR_META;
        while (has(s[q], C_IDENT)) q++;
      } else {
        kind = IR_PUNCT;
      }
      break;
    case '"':
      kind = IR_STRING;
      q = quoted_end(s, q);
      break;
    case '#':
      if (has(s[q], C_DIGIT)) {
        kind = IR_ATTRGRP;
        while (has(s[q], C_DIGIT)) q++;
      } else {
        kind = IR_PUNCT;
      }
      break;
    case '-':
    case '+':
      if (!has(s[q], C_DIGIT)) {
        kind = IR_PUNCT;
        break;
      }
      __attribute__((fallthrough)); /* a signed number */
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      kind = IR_NUMBER;
      if (s[p] == '0' && s[q] == 'x') {
        for (q++; has(s[q], C_HEX) || s[q] == 'K' || s[q] == 'L' || s[q] == 'M' ||
                  s[q] == 'H' || s[q] == 'R';
             q++) {
        }
      } else {
        while (has(s[q], C_DIGIT)) q++;
        if (s[q] == '.')
          for (q++; has(s[q], C_DIGIT); q++) {
          }
        if (s[q] == 'e' || s[q] == 'E') {
          size_t r = q + 1;
          if (s[r] == '+' || s[r] == '-') r++;
          if (has(s[r], C_DIGIT))
            for (q = r; has(s[q], C_DIGIT); q++) {
            }
        }
      }
      break;
    case '<':
      kind = IR_PUNCT;
      ++*nesting;
      break;
    case '>':
      kind = IR_PUNCT;
      *nesting -= *nesting > 0;
      break;
    case 'c':
      if (s[q] == '"') {
        kind = IR_STRING;
        q = quoted_end(s, q + 1);
        break;
      }
      __attribute__((fallthrough)); /* a word */
    default:
      if (has(s[p], C_ALPHA)) {
        if (s[p] == '.' && s[q] == '.' && s[q + 1] == '.') {
          kind = IR_PUNCT; /* "..." */
          q += 2;
        } else {
          kind = IR_WORD;
          while (has(s[q], C_IDENT)) q++;
        }
      } else {
        kind = IR_PUNCT;
      }
      break;
  }
  *t = (ir_tok){(uint32_t)p, (uint32_t)(q - p), (uint8_t)kind, bol, (int8_t)depth};
  return q;
}

ir_tok cuplug__ir_next(ir_lexer *lx) {
  ir_tok t = {0};
  size_t p = skip_gap(lx->text, lx->pos, &lx->bol);
  if (!lx->text[p]) {
    t = (ir_tok){(uint32_t)p, 0, IR_EOF, lx->bol, 0};
    lx->pos = p;
    return t;
  }
  int nesting = 0; /* the limit is cuplug__ir_lex's */
  lx->pos = lex_token(lx->text, p, lx->bol, &t, &nesting);
  lx->bol = false;
  return t;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* The byte that the name text s[*i, n) begins with, an escape ("\41" or
 * "\\") read whole; *i is left on its last byte.  A backslash that begins
 * neither stands for itself. */
static inline char name_byte(const char *s, size_t n, size_t *i) {
  size_t j = *i;
  if (s[j] != '\\') return s[j];
  if (j + 2 < n && hexval(s[j + 1]) >= 0 && hexval(s[j + 2]) >= 0) {
    *i = j + 2;
    return (char)(hexval(s[j + 1]) * 16 + hexval(s[j + 2]));
  }
  if (j + 1 < n && s[j + 1] == '\\') *i = j + 1;
  return '\\';
}

/* The name's text in token t, without its sigil and quotes: [*s, *s + *n). */
static void name_text(const char *text, ir_tok t, const char **s, size_t *n) {
  *s = text + t.start + 1;
  *n = t.len ? t.len - 1 : 0;
  if (*n >= 2 && **s == '"') {
    ++*s;
    *n -= 2;
  }
}

char *cuplug__ir_tok_name(const char *text, ir_tok t) {
  const char *s;
  size_t n;
  name_text(text, t, &s, &n);
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    /* Names rarely hold escapes: memchr finds the next one a vector at a
     * time, and the bytes before it are copied at once. */
    const char *escape = memchr(s + i, '\\', n - i);
    size_t run = escape ? (size_t)(escape - (s + i)) : n - i;
    memcpy(out + k, s + i, run);
    k += run;
    i += run;
    if (i == n) break;
    out[k++] = name_byte(s, n, &i);
  }
  out[k] = '\0';
  return out;
}

bool cuplug__ir_tok_numbered(const char *text, ir_tok t, unsigned long *number) {
  if ((t.kind != IR_LOCAL && t.kind != IR_GLOBAL) || t.len < 2) return false;
  unsigned long v = 0;
  for (size_t i = t.start + 1; i < t.start + t.len; i++) {
    if (!has(text[i], C_DIGIT)) return false;
    v = v * 10 + (unsigned long)(text[i] - '0');
  }
  if (number) *number = v;
  return true;
}

bool cuplug__ir_tok_names(const char *text, ir_tok t, const char *name) {
  const char *s;
  size_t n;
  name_text(text, t, &s, &n);
  size_t k = 0;
  for (size_t i = 0; i < n; i++, k++) {
    char c = s[i] == '\\' ? name_byte(s, n, &i) : s[i];
    if (name[k] == '\0' || name[k] != c) return false;
  }
  return name[k] == '\0';
}

void cuplug__ir_put_name(cuplug__buf *b, char sigil, const char *name) {
  static const char hex[] = "0123456789ABCDEF";
  char open[2] = {sigil, '"'};
  cuplug__buf_append(b, open, 2);
  const unsigned char *p = (const unsigned char *)name;
  for (;;) {
    const unsigned char *run = p; /* the bytes written as they are, at once */
    while (*p >= 0x20 && *p != '"' && *p != '\\') p++;
    cuplug__buf_append(b, (const char *)run, (size_t)(p - run));
    if (!*p) break;
    char escape[3] = {'\\', hex[*p >> 4], hex[*p & 15]};
    cuplug__buf_append(b, escape, 3);
    p++;
  }
  cuplug__buf_putc(b, '"');
}

bool cuplug__ir_ident_char(char c) { return has(c, C_IDENT); }

/* ---- word sets ---- */

static inline uint32_t hash_word(const char *s, size_t n) {
  uint32_t h = (uint32_t)n * 0x9E3779B1u;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x01000193u;
  return (h ^ (h >> 13)) & 255;
}

/* The word's bit in a set's sketch.  The factors are chosen so that the
 * words IR is made of (x, float, i64, store, getelementptr, ...) miss the
 * sketch of legalisation's set: checked over some 150 LLVM keywords and the
 * corpus, only nocapture and norecurse share a bit with it. */
static inline unsigned sketch_bit(const char *s, size_t n) {
  return (unsigned)(n * 41 + (unsigned char)s[0] * 6 + (unsigned char)s[n - 1]) & 511;
}

static pthread_mutex_t wordset_lock = PTHREAD_MUTEX_INITIALIZER;

/* Built on first use; after that a lookup costs one acquire load. */
static void wordset_build(ir_wordset *set) {
  pthread_mutex_lock(&wordset_lock);
  if (!atomic_load_explicit(&set->ready, memory_order_relaxed)) {
    for (size_t i = 0; set->words[i] && i < 128; i++) {
      size_t n = strlen(set->words[i]);
      uint32_t h = hash_word(set->words[i], n);
      while (set->slot[h]) h = (h + 1) & 255;
      set->slot[h] = (uint8_t)(i + 1);
      set->len[i] = (uint8_t)n;
      unsigned bit = sketch_bit(set->words[i], n);
      set->sketch[bit / 64] |= 1ull << (bit % 64);
    }
    atomic_store_explicit(&set->ready, true, memory_order_release);
  }
  pthread_mutex_unlock(&wordset_lock);
}

/* May word t be in the (built) set?  Most words are not, and stop here. */
static inline bool in_sketch(const ir_wordset *set, const char *text, ir_tok t) {
  unsigned bit = sketch_bit(text + t.start, t.len);
  return set->sketch[bit / 64] >> (bit % 64) & 1;
}

/* The index of word t in the (built) set, or -1: the hash table's probe. */
static int word_lookup(const ir_wordset *set, const char *text, ir_tok t) {
  const char *w = text + t.start;
  for (uint32_t h = hash_word(w, t.len); set->slot[h]; h = (h + 1) & 255) {
    int i = set->slot[h] - 1;
    if (set->len[i] == t.len && memcmp(set->words[i], w, t.len) == 0) return i;
  }
  return -1;
}

int cuplug__ir_word_index(ir_wordset *set, const char *text, ir_tok t) {
  if (t.kind != IR_WORD || t.len > 64) return -1;
  if (!atomic_load_explicit(&set->ready, memory_order_acquire)) wordset_build(set);
  return in_sketch(set, text, t) ? word_lookup(set, text, t) : -1;
}

bool cuplug__ir_word_in(ir_wordset *set, const char *text, ir_tok t) {
  return cuplug__ir_word_index(set, text, t) >= 0;
}

/* ---- limits ---- */

/* Counted only for a message. */
size_t cuplug__ir_line_at(const char *text, size_t offset) {
  size_t line = 1;
  for (const char *p = text, *end = text + offset; (p = memchr(p, '\n', (size_t)(end - p)));
       p++)
    line++;
  return line;
}

/* The error for brackets nested deeper than the limit, which token t passed. */
static cuplug_error *too_deep(const char *name, const char *text, ir_tok t) {
  return cuplug__error(CUPLUG_ERR_LIMIT,
                       "IR module %s nests brackets more than %d deep on line %zu", name,
                       CUPLUG_MAX_IR_NESTING, cuplug__ir_line_at(text, t.start));
}

cuplug_error *cuplug__ir_check_size(const char *name, size_t len) {
  if (len > CUPLUG_MAX_MODULE_SIZE)
    return cuplug__error(CUPLUG_ERR_LIMIT, "IR module %s is %zu bytes: modules hold at most %u",
                         name, len, CUPLUG_MAX_MODULE_SIZE);
  return NULL;
}

cuplug_error *cuplug__ir_check_limits(const char *name, const char *text, size_t len) {
  CUPLUG__TRY(cuplug__ir_check_size(name, len));
  int nesting = 0;
  bool bol = true;
  ir_tok t;
  for (size_t p = skip_gap(text, 0, &bol); text[p]; p = skip_gap(text, p, &bol)) {
    p = lex_token(text, p, false, &t, &nesting);
    if (nesting > CUPLUG_MAX_IR_NESTING) return too_deep(name, text, t);
  }
  return NULL;
}

/* Notes token n for the watch list; false when out of memory. */
static bool note_watched(ir_tokens *out, size_t n, size_t *cap) {
  if (out->num_watched == *cap) {
    *cap = *cap ? *cap * 2 : 64;
    uint32_t *v = realloc(out->watched, *cap * sizeof *v);
    if (!v) return false;
    out->watched = v;
  }
  out->watched[out->num_watched++] = (uint32_t)n;
  return true;
}

void cuplug__ir_tokens_free(ir_tokens *t) {
  free(t->toks);
  free(t->lines);
  free(t->watched);
  *t = (ir_tokens){0};
}

/* Line breaks become the next token's bol flag, and a line. */
cuplug_error *cuplug__ir_lex(const char *name, const char *text, size_t len,
                             ir_wordset *watch, ir_tokens *out) {
  *out = (ir_tokens){0};
  if (len >= UINT32_MAX)
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED, "%s: a module of 4 GiB or more", name);
  size_t cap = len / 3 + 16, n = 0, watch_cap = 0;
  if (watch && !atomic_load_explicit(&watch->ready, memory_order_acquire)) wordset_build(watch);
  size_t line_cap = len / 32 + 16, num_lines = 0; /* numba-cuda's kernels have 60 bytes a line */
  /* the lines before the tokens: allocated after them, they left glibc
   * free space at the heap's top to give back when a compile freed both,
   * and the next compile faulted it in again (3% of its time) */
  ir_line *lines = out->lines = malloc(line_cap * sizeof *lines);
  ir_tok *v = out->toks = malloc(cap * sizeof *v);
  if (!v || !lines) {
    cuplug__ir_tokens_free(out);
    return cuplug__error_oom();
  }
  bool bol = true;
  int nesting = 0;
  int32_t depth = 0;
  for (size_t p = skip_gap(text, 0, &bol);; p = skip_gap(text, p, &bol)) {
    if (!text[p]) {
      out->num_toks = n;
      out->num_lines = num_lines;
      out->end_depth = depth;
      return NULL;
    }
    if (n == cap) {
      cap *= 2;
      ir_tok *nv = realloc(v, cap * sizeof *nv);
      if (!nv) break;
      out->toks = v = nv;
    }
    ir_tok *t = &v[n];
    p = lex_token(text, p, bol, t, &nesting);
    if (bol) {
      if (num_lines == line_cap) {
        line_cap *= 2;
        ir_line *nl = realloc(lines, line_cap * sizeof *nl);
        if (!nl) break;
        out->lines = lines = nl;
      }
      lines[num_lines++] = (ir_line){(uint32_t)n, depth};
    }
    bol = false;
    depth += t->depth;
    if (__builtin_expect(nesting > CUPLUG_MAX_IR_NESTING, 0)) {
      cuplug_error *deep = too_deep(name, text, *t);
      cuplug__ir_tokens_free(out);
      return deep;
    }
    if (watch && (t->kind == IR_GLOBAL || (t->kind == IR_WORD && t->len <= 64 &&
                                             in_sketch(watch, text, *t) &&
                                             word_lookup(watch, text, *t) >= 0)) &&
        !note_watched(out, n, &watch_cap))
      break;
    n++;
  }
  cuplug__ir_tokens_free(out);
  return cuplug__error_oom();
}
