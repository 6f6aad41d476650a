/* irtext.c - lexer, structure and edits of NVVM-dialect IR text. */
#include "lowering/irtext.h"

#include <ctype.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* ---- lexer ---- */

void cuplug__ir_lexer_init(ir_lexer *lx, const char *text, size_t len, size_t pos) {
  /* text[len] is the NUL that ends every scan */
  lx->text = text;
  lx->len = len;
  lx->pos = pos;
}

/* Character classes of the lexer, looked up rather than computed: lexing
 * is the one pass every stage makes over the whole text. */
enum { C_IDENT = 1, C_DIGIT = 2, C_SPACE = 4, C_ALPHA = 8, C_HEX = 16 };

static const unsigned char cls[256] = {
    [' '] = C_SPACE, ['\t'] = C_SPACE, ['\r'] = C_SPACE, ['\f'] = C_SPACE,
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

/* Lexes the token at or after p into *t; returns the offset after it.
 * The text ends with a NUL, which stops every loop: no bounds checks. */
static inline __attribute__((always_inline)) size_t lex_at(const char *s, size_t p, ir_tok *t) {
  for (;;) {
    p += s[p] == ' '; /* most tokens follow one blank, or none: no branch for it */
    while (has(s[p], C_SPACE)) p++;
    if (s[p] != ';') break;
    while (s[p] && s[p] != '\n') p++;
  }
  t->start = (uint32_t)p;
  t->depth = 0;
  size_t q = p + 1;
  switch (s[p]) {
    case '\0':
      t->kind = IR_EOF;
      t->len = 0;
      return p;
    case '\n':
      t->kind = IR_NEWLINE;
      break;
    case '%':
    case '@':
      t->kind = s[p] == '%' ? IR_LOCAL : IR_GLOBAL;
      if (s[q] == '"') {
        for (q++; s[q] && s[q] != '"'; q++) {
        }
        if (s[q]) q++;
      } else {
        while (has(s[q], C_IDENT)) q++;
      }
      break;
    case '!':
      if (s[q] == '"') {
        t->kind = IR_META;
        for (q++; s[q] && s[q] != '"'; q++) {
        }
        if (s[q]) q++;
      } else if (has(s[q], C_IDENT)) {
        t->kind = IR_META;
        while (has(s[q], C_IDENT)) q++;
      } else {
        t->kind = IR_PUNCT;
      }
      break;
    case '"':
      t->kind = IR_STRING;
      while (s[q] && s[q] != '"') q++;
      if (s[q]) q++;
      break;
    case '#':
      if (has(s[q], C_DIGIT)) {
        t->kind = IR_ATTRGRP;
        while (has(s[q], C_DIGIT)) q++;
      } else {
        t->kind = IR_PUNCT;
      }
      break;
    case '-':
    case '+':
      if (!has(s[q], C_DIGIT)) {
        t->kind = IR_PUNCT;
        break;
      }
      __attribute__((fallthrough)); /* a signed number */
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      t->kind = IR_NUMBER;
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
    case '(':
    case '[':
    case '{':
      t->kind = IR_PUNCT;
      t->depth = 1;
      break;
    case ')':
    case ']':
    case '}':
      t->kind = IR_PUNCT;
      t->depth = -1;
      break;
    case 'c':
      if (s[q] == '"') {
        t->kind = IR_STRING;
        for (q++; s[q] && s[q] != '"'; q++) {
        }
        if (s[q]) q++;
        break;
      }
      __attribute__((fallthrough)); /* a word */
    default:
      if (s[p] == '.' && s[q] == '.' && s[q + 1] == '.') {
        t->kind = IR_PUNCT; /* "..." */
        q += 2;
      } else if (has(s[p], C_ALPHA)) {
        t->kind = IR_WORD;
        while (has(s[q], C_IDENT)) q++;
      } else {
        t->kind = IR_PUNCT;
      }
      break;
  }
  t->len = (uint32_t)(q - p);
  return q;
}

ir_tok cuplug__ir_next(ir_lexer *lx) {
  ir_tok t = {0};
  lx->pos = lex_at(lx->text, lx->pos, &t);
  return t;
}

bool cuplug__ir_tok_punct(const char *text, ir_tok t, char c) {
  return t.kind == IR_PUNCT && t.len == 1 && text[t.start] == c;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *cuplug__ir_tok_name(const char *text, ir_tok t) {
  const char *s = text + t.start + 1;
  size_t n = t.len ? t.len - 1 : 0;
  if (n >= 2 && s[0] == '"') {
    s++;
    n -= 2;
  }
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\\' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
      out[k++] = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
      i += 2;
    } else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\\') {
      out[k++] = '\\';
      i++;
    } else {
      out[k++] = s[i];
    }
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
  const char *s = text + t.start + 1;
  size_t n = t.len ? t.len - 1 : 0;
  if (n >= 2 && s[0] == '"') {
    s++;
    n -= 2;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++, k++) {
    char c = s[i];
    if (s[i] == '\\' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
      c = (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
      i += 2;
    } else if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\\') {
      i++;
    }
    if (name[k] == '\0' || name[k] != c) return false;
  }
  return name[k] == '\0';
}

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

void cuplug__ir_put_name(cuplug__buf *b, char sigil, const char *name) {
  cuplug__buf_putc(b, sigil);
  cuplug__buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    if (*p == '"' || *p == '\\' || *p < 0x20)
      cuplug__buf_printf(b, "\\%02X", *p);
    else
      cuplug__buf_putc(b, (char)*p);
  }
  cuplug__buf_putc(b, '"');
}

/* ---- top-level items ---- */

static bool is_number_text(const char *s, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  return true;
}

/* Notes token n for the watch list; false when out of memory. */
static bool note_watched(ir_module *m, size_t n, size_t *cap) {
  if (m->num_watched == *cap) {
    *cap = *cap ? *cap * 2 : 64;
    uint32_t *v = realloc(m->watched, *cap * sizeof *v);
    if (!v) return false;
    m->watched = v;
  }
  m->watched[m->num_watched++] = (uint32_t)n;
  return true;
}

/* ---- limits ---- */

/* The line of a byte offset, 1-based: counted only for a message. */
static size_t line_at(const char *text, size_t offset) {
  size_t line = 1;
  for (const char *p = text, *end = text + offset; (p = memchr(p, '\n', (size_t)(end - p)));
       p++)
    line++;
  return line;
}

/* Bracket nesting, as LLVM's parser follows it: by recursion, so that a
 * deep enough module would overflow its stack (and cuplug's type parser's).
 * Every kind counts, < > too; a closing bracket below zero is dropped. */
typedef struct nesting {
  int depth;
} nesting;

static const int8_t angle[256] = {['<'] = 1, ['>'] = -1};

/* Counted without a branch on the token: only a token that begins with a
 * bracket has a step (t.depth for ( [ {, a string never begins with <). */
static inline cuplug_error *nest(nesting *n, const char *name, const char *text, ir_tok t) {
  int d = n->depth + t.depth + angle[(unsigned char)text[t.start]];
  n->depth = d & ~(d >> 31); /* a closing bracket below zero is dropped */
  if (__builtin_expect(n->depth > CUPLUG_MAX_IR_NESTING, 0))
    return cuplug__error(CUPLUG_ERR_LIMIT,
                         "IR module %s nests brackets more than %d deep on line %zu", name,
                         CUPLUG_MAX_IR_NESTING, line_at(text, t.start));
  return NULL;
}

cuplug_error *cuplug__ir_check_size(const char *name, size_t len) {
  if (len > CUPLUG_MAX_MODULE_SIZE)
    return cuplug__error(CUPLUG_ERR_LIMIT, "IR module %s is %zu bytes: modules hold at most %u",
                         name, len, CUPLUG_MAX_MODULE_SIZE);
  return NULL;
}

cuplug_error *cuplug__ir_check_limits(const char *name, const char *text, size_t len) {
  CUPLUG__TRY(cuplug__ir_check_size(name, len));
  nesting n = {0};
  ir_tok t;
  for (size_t p = lex_at(text, 0, &t); t.kind != IR_EOF; p = lex_at(text, p, &t))
    CUPLUG__TRY(nest(&n, name, text, t));
  return NULL;
}

/* Lexes the whole text once; newlines become the next token's bol flag.
 * It keeps to CUPLUG_MAX_IR_NESTING, so that no later pass, and no parse by
 * LLVM, meets a deeper module. */
static cuplug_error *lex_all(ir_module *m, ir_wordset *watch) {
  if (m->len >= UINT32_MAX)
    return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED, "%s: a module of 4 GiB or more", m->name);
  size_t cap = m->len / 3 + 16, n = 0, watch_cap = 0;
  if (watch && !atomic_load_explicit(&watch->ready, memory_order_acquire)) wordset_build(watch);
  ir_tok *v = malloc(cap * sizeof *v);
  if (!v) return cuplug__error_oom();
  bool bol = true;
  nesting depth = {0};
  for (size_t p = 0;;) {
    if (n == cap) {
      cap *= 2;
      ir_tok *nv = realloc(v, cap * sizeof *nv);
      if (!nv) break;
      v = nv;
    }
    ir_tok *t = &v[n];
    p = lex_at(m->text, p, t);
    if (t->kind == IR_EOF) {
      m->toks = v;
      m->num_toks = n;
      return NULL;
    }
    if (t->kind == IR_NEWLINE) {
      bol = true;
      continue;
    }
    t->bol = bol;
    bol = false;
    cuplug_error *deep = nest(&depth, m->name, m->text, *t);
    if (deep) {
      free(v);
      free(m->watched);
      m->watched = NULL;
      return deep;
    }
    if (watch && (t->kind == IR_GLOBAL || (t->kind == IR_WORD && t->len <= 64 &&
                                             in_sketch(watch, m->text, *t) &&
                                             word_lookup(watch, m->text, *t) >= 0)) &&
        !note_watched(m, n, &watch_cap))
      break;
    n++;
  }
  free(v);
  free(m->watched);
  m->watched = NULL;
  return cuplug__error_oom();
}

static ir_item_kind classify(const ir_module *m, size_t i, size_t *name_tok) {
  const char *text = m->text;
  ir_tok first = m->toks[i];
  ir_tok second = i + 1 < m->num_toks ? m->toks[i + 1] : (ir_tok){.kind = IR_EOF};
  *name_tok = i;
  if (first.kind == IR_WORD) {
    bool define = cuplug__ir_tok_is(text, first, "define");
    if (define || cuplug__ir_tok_is(text, first, "declare")) {
      for (size_t k = i + 1; k < m->num_toks && !m->toks[k].bol; k++) {
        if (m->toks[k].kind == IR_GLOBAL) {
          *name_tok = k;
          break;
        }
      }
      return define ? IR_ITEM_DEFINE : IR_ITEM_DECLARE;
    }
    if (cuplug__ir_tok_is(text, first, "target")) return IR_ITEM_TARGET;
    if (cuplug__ir_tok_is(text, first, "attributes")) {
      if (second.kind == IR_ATTRGRP) *name_tok = i + 1;
      return IR_ITEM_ATTRS;
    }
    return IR_ITEM_OTHER;
  }
  bool assigns = cuplug__ir_tok_punct(text, second, '=');
  if (first.kind == IR_GLOBAL && assigns) return IR_ITEM_GLOBAL;
  if (first.kind == IR_LOCAL && assigns) return IR_ITEM_TYPE;
  if (first.kind == IR_META && assigns)
    return is_number_text(text + first.start + 1, first.len - 1) ? IR_ITEM_META
                                                                  : IR_ITEM_NAMED_META;
  return IR_ITEM_OTHER;
}

static bool named_kind(ir_item_kind k) {
  return k != IR_ITEM_OTHER && k != IR_ITEM_TARGET;
}

cuplug_error *cuplug__ir_module_parse(ir_module *m, const char *name, const char *text,
                              size_t len, ir_wordset *watch) {
  memset(m, 0, sizeof *m);
  m->name = name;
  m->text = text;
  m->len = len;
  m->max_meta = -1;
  m->max_attrs = -1;
  m->watch = watch;
  CUPLUG__TRY(lex_all(m, watch));
  size_t cap = 0;
  for (size_t i = 0; i < m->num_toks;) {
    size_t name_tok;
    ir_item_kind kind = classify(m, i, &name_tok);
    /* An item runs to the first line break outside brackets; a definition
     * runs to the line break after its body's closing brace, which may open
     * on a line of its own (llvmlite writes it so). */
    bool define = kind == IR_ITEM_DEFINE;
    int depth = 0;
    size_t k = i;
    for (; k < m->num_toks; k++) {
      if (k > i && m->toks[k].bol && depth <= 0 &&
          (!define || cuplug__ir_tok_punct(text, m->toks[k - 1], '}')))
        break;
      depth += m->toks[k].depth;
    }
    if (depth > 0) {
      size_t line = cuplug__ir_line_of(m, m->toks[i].start);
      cuplug__ir_module_free(m);
      return cuplug__error(CUPLUG_ERR_IR_PARSE,
                           "%s:%zu: unbalanced brackets: the item that starts here "
                           "is never closed",
                           name, line);
    }
    size_t end = k < m->num_toks ? m->toks[k].start : len;
    /* keep the item's own line break (and trailing comment) with it */
    size_t last_end = m->toks[k - 1].start + m->toks[k - 1].len;
    const char *nl = memchr(text + last_end, '\n', end - last_end);
    if (nl) end = (size_t)(nl - text) + 1;
    ir_item it = {kind, m->toks[i].start, end, i, k, NULL};
    ir_tok_kind name_kind = m->toks[name_tok].kind;
    bool has_name = (kind == IR_ITEM_DEFINE || kind == IR_ITEM_DECLARE) ? name_kind == IR_GLOBAL
                    : kind == IR_ITEM_ATTRS ? name_kind == IR_ATTRGRP
                                            : named_kind(kind);
    it.name = has_name ? cuplug__ir_tok_name(text, m->toks[name_tok]) : cuplug__strdup("");
    if (!it.name) {
      cuplug__ir_module_free(m);
      return cuplug__error_oom();
    }
    if (m->num_items == cap) {
      cap = cap ? cap * 2 : 32;
      ir_item *v = realloc(m->items, cap * sizeof *v);
      if (!v) {
        free(it.name);
        cuplug__ir_module_free(m);
        return cuplug__error_oom();
      }
      m->items = v;
    }
    m->items[m->num_items++] = it;
    if (kind == IR_ITEM_META || (kind == IR_ITEM_ATTRS && *it.name)) {
      /* LLVM numbers metadata and attribute groups with 32 bits; a larger
       * number would overflow the numbers a rewrite hands out after it */
      unsigned long long v = strtoull(it.name, NULL, 10);
      if (v > UINT32_MAX) {
        cuplug_error *e = cuplug__error(CUPLUG_ERR_IR_PARSE,
                                        "%s:%zu: %c%.24s...: the number is beyond 32 bits", name,
                                        cuplug__ir_line_of(m, it.start),
                                        kind == IR_ITEM_META ? '!' : '#', it.name);
        cuplug__ir_module_free(m);
        return e;
      }
      long *max = kind == IR_ITEM_META ? &m->max_meta : &m->max_attrs;
      if ((long)v > *max) *max = (long)v;
    }
    i = k;
  }
  return NULL;
}

void cuplug__ir_module_free(ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++) free(m->items[i].name);
  free(m->items);
  free(m->toks);
  free(m->watched);
  m->items = NULL;
  m->toks = NULL;
  m->watched = NULL;
  m->num_items = m->num_toks = m->num_watched = 0;
}

const ir_item *cuplug__ir_module_find(const ir_module *m, ir_item_kind kind,
                              const char *name) {
  for (size_t i = 0; i < m->num_items; i++)
    if (m->items[i].kind == kind && strcmp(m->items[i].name, name) == 0)
      return &m->items[i];
  return NULL;
}

/* The next reference to @symbol (written @symbol or @"symbol") at or after
 * p, or NULL; *at is its '@'. */
static const char *next_reference(const char *text, const char *end, const char *p,
                                  const char *symbol, size_t sl, const char **at) {
  for (; sl && (p = memmem(p, (size_t)(end - p), symbol, sl)); p++) {
    const char *q = p;
    bool quoted = q > text && q[-1] == '"';
    if (quoted) q--;
    if (q == text || q[-1] != '@') continue;
    char after = p + sl < end ? p[sl] : '\0';
    if (quoted ? after != '"' : has(after, C_IDENT)) continue;
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

/* The next "decl" in [p, end), or NULL.  The result cache asks this of
 * every compile's IR, so it looks at sixteen bytes at a time (SSE2, which
 * every x86-64 has): "decl" is rare in IR but for declarations. */
static const char *next_decl(const char *p, const char *end) {
#if defined(__SSE2__)
  const __m128i d = _mm_set1_epi8('d'), e = _mm_set1_epi8('e'), c = _mm_set1_epi8('c'),
                l = _mm_set1_epi8('l');
  for (; end - p >= 19; p += 16) {
    __m128i m = _mm_and_si128(
        _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), d),
                      _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 1)), e)),
        _mm_and_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 2)), c),
                      _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 3)), l)));
    unsigned bits = (unsigned)_mm_movemask_epi8(m);
    if (bits) return p + __builtin_ctz(bits);
  }
#endif
  return memmem(p, (size_t)(end - p), "decl", 4);
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

size_t cuplug__ir_line_of(const ir_module *m, size_t offset) {
  return line_at(m->text, offset < m->len ? offset : m->len);
}

/* The index of the first token starting at or after `offset`. */
static size_t tok_index(const ir_module *m, size_t offset) {
  size_t lo = 0, hi = m->num_toks;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->toks[mid].start < offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

size_t cuplug__ir_slice(const ir_module *m, size_t start, size_t end, const ir_tok **toks) {
  size_t a = tok_index(m, start), b = tok_index(m, end);
  *toks = m->toks + a;
  return b > a ? b - a : 0;
}

/* ---- functions ---- */

static ir_wordset linkages = CUPLUG__IR_WORDSET(
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external");

/* Keywords between define/declare and the return type, apart from the
 * linkage and the return attributes. */
static ir_wordset prefix_words = CUPLUG__IR_WORDSET(
    "default", "hidden", "protected", "dllimport", "dllexport", "dso_local",
    "dso_preemptable", "ccc", "fastcc", "coldcc", "ptx_kernel", "ptx_device",
    "x86_stdcallcc", "preserve_mostcc", "preserve_allcc", "cxx_fast_tlscc", "swiftcc",
    "thread_local", "unnamed_addr", "local_unnamed_addr");

static ir_wordset ret_attr_words = CUPLUG__IR_WORDSET(
    "zeroext", "signext", "inreg", "noalias", "nonnull", "noundef", "dereferenceable",
    "dereferenceable_or_null", "align", "range", "nofpclass");

/* A small token cursor over one item. */
typedef struct cursor {
  const char *text;
  const ir_tok *toks;
  size_t n, i;
} cursor;

static ir_tok cur(const cursor *c) {
  return c->i < c->n ? c->toks[c->i] : (ir_tok){.kind = IR_EOF};
}

static bool cur_punct(const cursor *c, char ch) { return cuplug__ir_tok_punct(c->text, cur(c), ch); }

/* Skips a balanced group starting at an opening bracket. */
static void skip_group(cursor *c) {
  int depth = 0;
  do {
    depth += cur(c).depth;
    c->i++;
  } while (c->i < c->n && depth > 0);
}

/* Parses one type; returns false when the tokens do not start a type. */
static bool parse_type(cursor *c) {
  ir_tok t = cur(c);
  if (t.kind == IR_WORD || t.kind == IR_LOCAL) {
    c->i++;
  } else if (cur_punct(c, '{') || cur_punct(c, '[')) {
    skip_group(c);
  } else if (cur_punct(c, '<')) {
    /* <N x T> or <{ ... }> */
    int depth = 0;
    do {
      if (cur_punct(c, '<')) depth++;
      if (cur_punct(c, '>')) depth--;
      c->i++;
    } while (c->i < c->n && depth > 0);
  } else {
    return false;
  }
  for (;;) {
    if (cur_punct(c, '*')) {
      c->i++;
    } else if (cuplug__ir_tok_is(c->text, cur(c), "addrspace") && c->i + 1 < c->n &&
               cuplug__ir_tok_punct(c->text, c->toks[c->i + 1], '(')) {
      c->i++;
      skip_group(c);
    } else if (cur_punct(c, '(')) {
      skip_group(c); /* function type's parameters */
    } else {
      return true;
    }
  }
}

static size_t tok_end(ir_tok t) { return t.start + t.len; }

static cuplug_error *header_error(const ir_module *m, const ir_item *item,
                                  const char *what) {
  return cuplug__error(CUPLUG_ERR_IR_PARSE, "%s:%zu: function @%s: %s", m->name,
                       cuplug__ir_line_of(m, item->start), item->name, what);
}

/* Linkage, visibility, calling convention and return attributes, the
 * return type, the @name and the '(' that follows it. */
static cuplug_error *parse_prefix(const ir_module *m, const ir_item *item, cursor *c,
                                  ir_function *fn) {
  size_t ret_attr_start = 0;
  bool have_ret_attr = false;
  for (;;) {
    ir_tok t = cur(c);
    if (cuplug__ir_word_in(&linkages, m->text, t)) {
      fn->linkage = (ir_span){t.start, tok_end(t)};
      c->i++;
    } else if (cuplug__ir_word_in(&prefix_words, m->text, t)) {
      c->i++;
    } else if (cuplug__ir_tok_is(m->text, t, "cc") && c->i + 1 < c->n) {
      c->i += 2;
    } else if (cuplug__ir_word_in(&ret_attr_words, m->text, t)) {
      if (!have_ret_attr) ret_attr_start = t.start;
      have_ret_attr = true;
      c->i++;
      if (cur_punct(c, '('))
        skip_group(c);
      else if (cuplug__ir_tok_is(m->text, t, "align") && cur(c).kind == IR_NUMBER)
        c->i++;
    } else {
      break;
    }
  }
  size_t type_start = cur(c).start;
  fn->ret_attrs = have_ret_attr ? (ir_span){ret_attr_start, type_start}
                                : (ir_span){type_start, type_start};
  size_t type_first = c->i;
  if (!parse_type(c) || c->i == type_first)
    return header_error(m, item, "cannot read the return type");
  fn->ret_type = (ir_span){type_start, tok_end(c->toks[c->i - 1])};
  if (cur(c).kind != IR_GLOBAL)
    return header_error(m, item, "expected the function's @name after its return type");
  fn->name = cur(c);
  c->i++;
  if (!cur_punct(c, '(')) return header_error(m, item, "expected '(' after the function's name");
  fn->params_open = cur(c).start;
  c->i++;
  return NULL;
}

/* One parameter: its type, then attributes and its %name up to ',' or ')'. */
static bool parse_param(cursor *c, ir_param *p) {
  *p = (ir_param){{cur(c).start, 0}, {cur(c).start, 0}, {.kind = IR_EOF}};
  if (!parse_type(c)) return false;
  p->type.end = tok_end(c->toks[c->i - 1]);
  while (c->i < c->n && !cur_punct(c, ',') && !cur_punct(c, ')')) {
    if (cur(c).kind == IR_LOCAL) p->name = cur(c);
    if (cur_punct(c, '(') || cur_punct(c, '{') || cur_punct(c, '['))
      skip_group(c);
    else
      c->i++;
  }
  p->all.end = tok_end(c->toks[c->i - 1]);
  return true;
}

/* The parameters, up to and past the closing ')'. */
static cuplug_error *parse_params(const ir_module *m, const ir_item *item, cursor *c,
                                  ir_function *fn) {
  size_t cap = 0;
  while (!cur_punct(c, ')')) {
    if (c->i >= c->n) return header_error(m, item, "unterminated parameter list");
    if (cur(c).kind == IR_PUNCT && cuplug__ir_tok_is(m->text, cur(c), "...")) {
      fn->varargs = true;
      c->i++;
      continue;
    }
    ir_param p;
    if (!parse_param(c, &p)) return header_error(m, item, "cannot read a parameter's type");
    if (fn->num_params == cap) {
      size_t nc = cap ? cap * 2 : 8;
      ir_param *v = realloc(fn->params, nc * sizeof *v);
      if (!v) return cuplug__error_oom();
      fn->params = v;
      cap = nc;
    }
    fn->params[fn->num_params++] = p;
    if (cur_punct(c, ',')) c->i++;
  }
  fn->params_close = cur(c).start;
  c->i++;
  return NULL;
}

/* Function attributes, then a definition's body between its braces. */
static cuplug_error *parse_body(const ir_module *m, const ir_item *item, cursor *c,
                                ir_function *fn) {
  size_t attrs_start = c->i < c->n ? cur(c).start : fn->params_close + 1;
  if (item->kind != IR_ITEM_DEFINE) {
    size_t end = c->n ? tok_end(c->toks[c->n - 1]) : attrs_start;
    fn->fn_attrs = (ir_span){attrs_start, end < attrs_start ? attrs_start : end};
    return NULL;
  }
  while (c->i < c->n && !cur_punct(c, '{')) c->i++;
  if (c->i >= c->n) return header_error(m, item, "expected '{' opening the body");
  fn->fn_attrs = (ir_span){attrs_start, cur(c).start};
  fn->body_open = cur(c).start;
  fn->body_first = item->first + c->i + 1;
  ir_tok last = c->toks[c->n - 1];
  if (!cuplug__ir_tok_punct(m->text, last, '}'))
    return header_error(m, item, "expected '}' closing the body");
  fn->body_close = last.start;
  fn->body_last = item->last - 1;
  return NULL;
}

cuplug_error *cuplug__ir_function_parse(const ir_module *m, const ir_item *item,
                                        ir_function *fn) {
  memset(fn, 0, sizeof *fn);
  fn->item = item;
  cursor c = {m->text, m->toks + item->first, item->last - item->first, 1}; /* past define */
  cuplug_error *e = parse_prefix(m, item, &c, fn);
  if (!e) e = parse_params(m, item, &c, fn);
  if (!e) e = parse_body(m, item, &c, fn);
  if (e) cuplug__ir_function_free(fn);
  return e;
}

void cuplug__ir_function_free(ir_function *fn) {
  free(fn->params);
  fn->params = NULL;
  fn->num_params = 0;
}

static size_t line_begin(const char *text, size_t at) {
  while (at > 0 && text[at - 1] != '\n') at--;
  return at;
}

bool cuplug__ir_next_stmt(const ir_module *m, const ir_function *fn, size_t *cursor, ir_stmt *s) {
  size_t i = fn->body_first + *cursor;
  if (!fn->body_close || i >= fn->body_last) return false;
  const ir_tok *t = m->toks;
  size_t k = i + 1;
  bool label = (t[i].kind == IR_WORD || t[i].kind == IR_NUMBER || t[i].kind == IR_STRING) &&
               k < fn->body_last && cuplug__ir_tok_punct(m->text, t[k], ':') && !t[k].bol;
  if (label) {
    k++;
  } else {
    int depth = t[i].depth;
    for (; k < fn->body_last && !(t[k].bol && depth <= 0); k++) depth += t[k].depth;
  }
  s->toks = t + i;
  s->n = k - i;
  s->start = t[i].start;
  s->end = tok_end(t[k - 1]);
  s->line_start = line_begin(m->text, s->start);
  size_t le = s->end;
  while (le < fn->body_close && m->text[le] != '\n') le++;
  s->line_end = le < fn->body_close ? le + 1 : le;
  *cursor = k - fn->body_first;
  return true;
}

size_t cuplug__ir_operand_start(const char *text, const ir_tok *toks, size_t n, size_t first,
                        size_t which) {
  int depth = 0;
  size_t k = 0;
  if (which == 0) return first;
  for (size_t i = first; i < n; i++) {
    ir_tok t = toks[i];
    if (t.kind == IR_PUNCT && t.len == 1) {
      char c = text[t.start];
      if (c == '(' || c == '[' || c == '{' || c == '<') depth++;
      if (c == ')' || c == ']' || c == '}' || c == '>') depth--;
      if (c == ',' && depth == 0 && ++k == which) return i + 1;
    }
  }
  return n;
}

/* ---- edits ---- */

void cuplug__ir_edits_init(ir_edits *e) { memset(e, 0, sizeof *e); }

void cuplug__ir_edits_free(ir_edits *e) {
  for (size_t i = 0; i < e->n; i++) free(e->v[i].text);
  free(e->v);
  cuplug__ir_edits_init(e);
}

void cuplug__ir_edit_replace(ir_edits *e, size_t start, size_t end, const char *text) {
  if (e->oom) return;
  if (e->n == e->cap) {
    size_t nc = e->cap ? e->cap * 2 : 16;
    ir_edit *v = realloc(e->v, nc * sizeof *v);
    if (!v) {
      e->oom = true;
      return;
    }
    e->v = v;
    e->cap = nc;
  }
  char *copy = cuplug__strdup(text ? text : "");
  if (!copy) {
    e->oom = true;
    return;
  }
  e->v[e->n] = (ir_edit){start, end, copy, e->n};
  e->n++;
}

void cuplug__ir_edit_insert(ir_edits *e, size_t at, const char *text) {
  cuplug__ir_edit_replace(e, at, at, text);
}

void cuplug__ir_edit_delete(ir_edits *e, size_t start, size_t end) {
  cuplug__ir_edit_replace(e, start, end, "");
}

static int edit_cmp(const void *a, const void *b) {
  const ir_edit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  /* insertions (empty spans) before replacements at the same offset, and
   * the longer of two replacements first, so that it swallows the other */
  bool xi = x->start == x->end, yi = y->start == y->end;
  if (xi != yi) return xi ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

cuplug_error *cuplug__ir_edits_apply(ir_edits *e, const char *text, size_t len,
                             cuplug__buf *out) {
  if (e->oom) return cuplug__error_oom();
  if (e->n) qsort(e->v, e->n, sizeof *e->v, edit_cmp); /* qsort takes no NULL */
  size_t pos = 0;
  if (!cuplug__buf_reserve(out, len + 256)) return cuplug__error_oom();
  for (size_t i = 0; i < e->n; i++) {
    const ir_edit *d = &e->v[i];
    /* An edit inside text another edit replaced goes with that text: a
     * pass that deletes a statement outranks one that tidies a token in it. */
    if (d->start < pos && d->end <= pos && i > 0) continue;
    if (d->end < d->start || d->end > len)
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                           "internal error: an IR edit of bytes %zu..%zu outside the text of "
                           "%zu bytes",
                           d->start, d->end, len);
    if (d->start < pos)
      return cuplug__error(CUPLUG_ERR_IR_UNSUPPORTED,
                           "internal error: overlapping IR edits at byte %zu", d->start);
    cuplug__buf_append(out, text + pos, d->start - pos);
    cuplug__buf_puts(out, d->text);
    pos = d->end;
  }
  cuplug__buf_append(out, text + pos, len - pos);
  return out->oom ? cuplug__error_oom() : NULL;
}

/* ---- rewrites ---- */

cuplug_error *cuplug__ir_rewrite_begin(ir_rewrite *rw, const char *name, const char *text,
                               size_t len, ir_wordset *watch) {
  memset(rw, 0, sizeof *rw);
  CUPLUG__TRY(cuplug__ir_module_parse(&rw->m, name, text, len, watch));
  cuplug__ir_edits_init(&rw->edits);
  cuplug__buf_init(&rw->tail);
  rw->next_meta = rw->m.max_meta + 1;
  rw->next_attrs = rw->m.max_attrs + 1;
  return NULL;
}

long cuplug__ir_rewrite_meta_id(ir_rewrite *rw) { return rw->next_meta++; }
long cuplug__ir_rewrite_attrs_id(ir_rewrite *rw) { return rw->next_attrs++; }

void cuplug__ir_rewrite_named_meta(ir_rewrite *rw, const char *name, long id) {
  ir_named_add *a = NULL;
  for (size_t i = 0; i < rw->num_named; i++)
    if (strcmp(rw->named[i].name, name) == 0) a = &rw->named[i];
  if (!a) {
    ir_named_add *v = realloc(rw->named, (rw->num_named + 1) * sizeof *v);
    if (!v) {
      rw->edits.oom = true;
      return;
    }
    rw->named = v;
    a = &v[rw->num_named];
    a->name = cuplug__strdup(name);
    cuplug__buf_init(&a->ids);
    if (!a->name) {
      rw->edits.oom = true;
      return;
    }
    rw->num_named++;
  }
  cuplug__buf_printf(&a->ids, ", !%ld", id);
}

/* Adds the pending named-metadata nodes: into the existing list when the
 * module has one, else as a new item. */
static void flush_named(ir_rewrite *rw) {
  for (size_t i = 0; i < rw->num_named; i++) {
    ir_named_add *a = &rw->named[i];
    const char *ids = a->ids.data ? a->ids.data : "";
    const ir_item *it = cuplug__ir_module_find(&rw->m, IR_ITEM_NAMED_META, a->name);
    if (it) {
      /* before the list's closing brace: the item's last '}' token (a
       * trailing comment is no token) */
      const ir_tok *toks = rw->m.toks + it->first;
      size_t n = it->last - it->first;
      while (n && !cuplug__ir_tok_punct(rw->m.text, toks[n - 1], '}')) n--;
      if (!n) continue;
      bool empty = n >= 2 && cuplug__ir_tok_punct(rw->m.text, toks[n - 2], '{');
      cuplug__ir_edit_insert(&rw->edits, toks[n - 1].start, empty ? ids + 2 : ids);
    } else {
      cuplug__buf_putc(&rw->tail, '!');
      cuplug__buf_puts(&rw->tail, a->name);
      cuplug__buf_printf(&rw->tail, " = !{%s}\n", ids + 2);
    }
  }
}

static void rewrite_release(ir_rewrite *rw) {
  for (size_t i = 0; i < rw->num_named; i++) {
    free(rw->named[i].name);
    cuplug__buf_free(&rw->named[i].ids);
  }
  free(rw->named);
  cuplug__ir_edits_free(&rw->edits);
  cuplug__buf_free(&rw->tail);
  cuplug__ir_module_free(&rw->m);
  memset(rw, 0, sizeof *rw);
}

void cuplug__ir_rewrite_abort(ir_rewrite *rw) { rewrite_release(rw); }

cuplug_error *cuplug__ir_rewrite_finish(ir_rewrite *rw, char **out, size_t *out_len) {
  flush_named(rw);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug_error *e = cuplug__ir_edits_apply(&rw->edits, rw->m.text, rw->m.len, &b);
  if (!e && rw->tail.len) {
    if (b.len && b.data[b.len - 1] != '\n') cuplug__buf_putc(&b, '\n');
    cuplug__buf_append(&b, rw->tail.data, rw->tail.len);
  }
  if (!e && rw->tail.oom) e = cuplug__error_oom();
  rewrite_release(rw);
  if (e) {
    cuplug__buf_free(&b);
    return e;
  }
  *out = cuplug__buf_take(&b, out_len);
  return *out ? NULL : cuplug__error_oom();
}
