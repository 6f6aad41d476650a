/* irlex.h - NVVM-dialect IR text as tokens: the lexer, keyword sets and
 * the limits a module is held to; and quick looks at the text that need no
 * lexing (irscan.c).
 *
 * A module is lexed once, into an array of 12-byte tokens that every later
 * stage walks (irparse.h splits it into items, functions and statements).
 * The lexer reads every byte, so it also keeps the nesting limit. */
#ifndef CUPLUG__LOWERING_IRLEX_H
#define CUPLUG__LOWERING_IRLEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "cuplug/cuplug.h"

/* ---- tokens ---- */

typedef enum ir_tok_kind {
  IR_EOF,
  IR_LOCAL,    /* %x  %"x"  %12 */
  IR_GLOBAL,   /* @x  @"x"  @12 */
  IR_META,     /* !x  !12  !"str" (a lone '!' before '{' is IR_PUNCT) */
  IR_ATTRGRP,  /* #12 */
  IR_STRING,   /* "..."  c"..." */
  IR_WORD,     /* keywords, types (i32, float), bare labels */
  IR_NUMBER,   /* 12  -3  1.5e+2  0x3FF0000000000000 */
  IR_PUNCT     /* one of ( ) [ ] { } < > , = * ! : | and '...' */
} ir_tok_kind;

/* 12 bytes: a module's tokens are an array that every stage walks. */
typedef struct ir_tok {
  uint32_t start; /* byte offset in the text (modules are < 4 GiB) */
  uint32_t len;
  uint8_t kind;   /* ir_tok_kind */
  bool bol;       /* the first token of its line */
  int8_t depth;   /* +1 for ( [ {, -1 for ) ] }, else 0 */
} ir_tok;

typedef struct ir_lexer {
  const char *text;
  size_t len;
  size_t pos;
  bool bol; /* a line break lies between the last token and pos */
} ir_lexer;

/* The text must be NUL-terminated (text[len] == '\0'): the NUL is the
 * lexer's sentinel. */
void cuplug__ir_lexer_init(ir_lexer *lx, const char *text, size_t len, size_t pos);
/* The next token; comments, blanks and line breaks are skipped (the first
 * token of a line has bol set).  An unterminated string ends at the end of
 * the text. */
ir_tok cuplug__ir_next(ir_lexer *lx);

/* Is t the text `word`?  Inline, so that a literal's length is folded. */
static inline bool cuplug__ir_tok_is(const char *text, ir_tok t, const char *word) {
  size_t n = __builtin_strlen(word);
  return t.len == n && __builtin_memcmp(text + t.start, word, n) == 0;
}
/* Is t the one-character punctuation c?  Inline: the header parser and
 * the signature check ask it several times a token. */
static inline bool cuplug__ir_tok_punct(const char *text, ir_tok t, char c) {
  return t.kind == IR_PUNCT && t.len == 1 && text[t.start] == c;
}
/* The name of a %, @ or ! identifier, unquoted and unescaped (malloc'd). */
char *cuplug__ir_tok_name(const char *text, ir_tok t);
/* True for %12 / @12: a numbered (unnamed) value. */
bool cuplug__ir_tok_numbered(const char *text, ir_tok t, unsigned long *number);

/* Does the %, @ or ! identifier t name `name` (no allocation)? */
bool cuplug__ir_tok_names(const char *text, ir_tok t, const char *name);
/* Writes `sigil` and a name, quoted and escaped as LLVM's parser reads it. */
void cuplug__ir_put_name(cuplug__buf *b, char sigil, const char *name);
/* May c continue an unquoted %, @ or ! name (letters, digits, - $ . _ \)? */
bool cuplug__ir_ident_char(char c);

/* ---- word sets: constant-time keyword lookup ---- */

typedef struct ir_wordset {
  const char *const *words; /* NULL-terminated */
  atomic_bool ready;
  uint8_t slot[256];        /* 1 + index into words, 0 = empty */
  uint8_t len[128];         /* each word's length */
  uint64_t sketch[8];       /* a bit per (length, first, last letter) of a word:
                               most words miss it and are never hashed */
} ir_wordset;

#define CUPLUG__IR_WORDSET(...) {(const char *const[]){__VA_ARGS__, NULL}, false, {0}, {0}, {0}}

/* Is t an IR_WORD in the set?  Sets hold at most 128 words. */
bool cuplug__ir_word_in(ir_wordset *set, const char *text, ir_tok t);
/* The index of t in the set's list, or -1. */
int cuplug__ir_word_index(ir_wordset *set, const char *text, ir_tok t);

/* ---- a whole text ---- */

/* A line of the text that holds a token: its first token, and the bracket
 * depth before it (the sum of ir_tok.depth over every earlier token).  The
 * passes that split a text at line breaks outside brackets (into items,
 * and a body into statements) step from line to line with these rather
 * than from token to token: a kernel's body has ten tokens a line. */
typedef struct ir_line {
  uint32_t tok;
  int32_t depth;
} ir_line;

/* A text's tokens, newlines left out (each becomes the next token's bol),
 * and its lines.  With a watch set, also the indices, in order, of the
 * tokens a pass looks for, noted while lexing: every IR_WORD in the set and
 * every IR_GLOBAL. */
typedef struct ir_tokens {
  ir_tok *toks;
  size_t num_toks;
  ir_line *lines; /* one for each token with bol set, in order */
  size_t num_lines;
  int32_t end_depth; /* the bracket depth after the last token */
  uint32_t *watched;
  size_t num_watched;
} ir_tokens;

/* Frees what cuplug__ir_lex gave. */
void cuplug__ir_tokens_free(ir_tokens *t);

/* Lexes the whole text once (text[len] must be NUL: the NUL is the lexer's
 * sentinel); `watch` may be NULL.  Fails with CUPLUG_ERR_LIMIT on brackets
 * nested deeper than CUPLUG_MAX_IR_NESTING, so that no later pass, and no
 * parse by LLVM, meets a deeper module.  `name` is for messages. */
cuplug_error *cuplug__ir_lex(const char *name, const char *text, size_t len,
                             ir_wordset *watch, ir_tokens *out);

/* Is the module within cuplug's limits: CUPLUG_MAX_MODULE_SIZE bytes, and
 * brackets ( [ { < nested at most CUPLUG_MAX_IR_NESTING deep (outside
 * strings and comments)?  LLVM's parser recurses on nesting: a deeper
 * module would overflow its stack.  The text must be NUL-terminated.
 * (cuplug__ir_lex keeps to the nesting limit as it lexes.)
 * Errors: CUPLUG_ERR_LIMIT, naming the line. */
cuplug_error *cuplug__ir_check_limits(const char *name, const char *text, size_t len);
/* The size limit alone. */
cuplug_error *cuplug__ir_check_size(const char *name, size_t len);

/* 1-based line number of a byte offset, for messages. */
size_t cuplug__ir_line_at(const char *text, size_t offset);

/* ---- quick looks, without lexing (irscan.c) ---- */

/* Does a line of the text begin with "define" and name @symbol?  (False
 * negatives are possible for names written with escapes; callers fall back
 * to a full parse.) */
bool cuplug__ir_text_defines(const char *text, size_t len, const char *symbol);
/* How many times the text names @symbol, its definition included, by the
 * same quick look (comments count: it errs towards more). */
size_t cuplug__ir_text_references(const char *text, size_t len, const char *symbol);
/* Calls `fn` with the name of every function the text declares (a line
 * that begins with "declare"), quoted names unescaped, by the same quick
 * look.  Names longer than 1023 bytes are passed cut short, which only
 * makes the caller look for one that is not there. */
void cuplug__ir_text_each_declared(const char *text, size_t len,
                                   void (*fn)(void *ctx, const char *name, size_t n), void *ctx);

#endif
