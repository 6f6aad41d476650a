/* irtext.h - NVVM-dialect IR as text: a lexer, the module's top-level
 * items, function headers and bodies, and edits that rewrite the text.
 *
 * libNVVM reads LLVM 7 IR with typed pointers; LLVM 19 can read that text
 * but not write it.  So every transformation cuplug makes (C-ABI wrapper,
 * kernel fix-up, exception store, legalisation) is an edit of the host's own
 * text: the model below records byte spans, and an edit list replaces spans.
 * Everything that is not edited passes through byte for byte. */
#ifndef CUPLUG__LOWERING_IRTEXT_H
#define CUPLUG__LOWERING_IRTEXT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "cuplug/cuplug.h"

/* ---- tokens ---- */

typedef enum ir_tok_kind {
  IR_EOF,
  IR_NEWLINE,
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
  bool bol;       /* the first token of its line (set in a module's tokens) */
  int8_t depth;   /* +1 for ( [ {, -1 for ) ] }, else 0 */
} ir_tok;

typedef struct ir_lexer {
  const char *text;
  size_t len;
  size_t pos;
} ir_lexer;

/* The text must be NUL-terminated (text[len] == '\0'): the NUL is the
 * lexer's sentinel. */
void cuplug__ir_lexer_init(ir_lexer *lx, const char *text, size_t len, size_t pos);
/* The next token; comments and blanks are skipped, newlines are tokens.
 * An unterminated string ends at the end of the text. */
ir_tok cuplug__ir_next(ir_lexer *lx);

/* Is t the text `word`?  Inline, so that a literal's length is folded. */
static inline bool cuplug__ir_tok_is(const char *text, ir_tok t, const char *word) {
  size_t n = __builtin_strlen(word);
  return t.len == n && __builtin_memcmp(text + t.start, word, n) == 0;
}
bool cuplug__ir_tok_punct(const char *text, ir_tok t, char c);
/* The name of a %, @ or ! identifier, unquoted and unescaped (malloc'd). */
char *cuplug__ir_tok_name(const char *text, ir_tok t);
/* True for %12 / @12: a numbered (unnamed) value. */
bool cuplug__ir_tok_numbered(const char *text, ir_tok t, unsigned long *number);

/* Does the %, @ or ! identifier t name `name` (no allocation)? */
bool cuplug__ir_tok_names(const char *text, ir_tok t, const char *name);
/* Writes `sigil` and a name, quoted and escaped as LLVM's parser reads it. */
void cuplug__ir_put_name(cuplug__buf *b, char sigil, const char *name);

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

/* ---- top-level items ---- */

typedef enum ir_item_kind {
  IR_ITEM_OTHER,      /* source_filename, comdats, module asm, ... (comments are no item) */
  IR_ITEM_TARGET,     /* target triple / target datalayout */
  IR_ITEM_DEFINE,
  IR_ITEM_DECLARE,
  IR_ITEM_GLOBAL,     /* @x = ... (variables and aliases) */
  IR_ITEM_TYPE,       /* %T = type ... */
  IR_ITEM_NAMED_META, /* !name = !{...} */
  IR_ITEM_META,       /* !12 = ... */
  IR_ITEM_ATTRS       /* attributes #0 = { ... } */
} ir_item_kind;

typedef struct ir_item {
  ir_item_kind kind;
  size_t start, end; /* the item's text, [start, end), with its newline */
  size_t first, last; /* its tokens: the module's toks[first..last) */
  char *name;        /* symbol, metadata name, or "12" for !12 and #12 */
} ir_item;

typedef struct ir_module {
  const char *name; /* for messages */
  const char *text;
  size_t len;
  ir_tok *toks;     /* every token, newlines left out (see ir_tok.bol) */
  size_t num_toks;
  ir_item *items;
  size_t num_items;
  long max_meta;  /* highest !N defined, -1 if none */
  long max_attrs; /* highest #N defined, -1 if none */
  /* With a watch set: the indices, in order, of the tokens a pass looks
   * for, noted while lexing: every IR_WORD in the set and every IR_GLOBAL.
   * A pass that would otherwise walk every token walks these. */
  const ir_wordset *watch;
  uint32_t *watched;
  size_t num_watched;
} ir_module;

/* Lexes a module once and splits it into items; text[len] must be NUL.
 * `watch` (may be NULL) fills m->watched.  Fails with CUPLUG_ERR_LIMIT on
 * brackets nested deeper than CUPLUG_MAX_IR_NESTING (before any item is
 * read), and with CUPLUG_ERR_IR_PARSE only on text that has no
 * recognisable structure, such as an unclosed function body; full checking
 * is LLVM's job (validate.c). */
cuplug_error *cuplug__ir_module_parse(ir_module *m, const char *name, const char *text,
                              size_t len, ir_wordset *watch);
void cuplug__ir_module_free(ir_module *m);
/* The first item of a kind with a name, or NULL. */
const ir_item *cuplug__ir_module_find(const ir_module *m, ir_item_kind kind,
                              const char *name);
/* A quick look, without lexing: does a line of the text begin with
 * "define" and name @symbol?  (False negatives are possible for names
 * written with escapes; callers fall back to a full parse.) */
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

/* Is the module within cuplug's limits: CUPLUG_MAX_MODULE_SIZE bytes, and
 * brackets ( [ { < nested at most CUPLUG_MAX_IR_NESTING deep (outside
 * strings and comments)?  LLVM's parser recurses on nesting: a deeper
 * module would overflow its stack.  The text must be NUL-terminated.
 * (cuplug__ir_module_parse keeps to the nesting limit as it lexes.)
 * Errors: CUPLUG_ERR_LIMIT, naming the line. */
cuplug_error *cuplug__ir_check_limits(const char *name, const char *text, size_t len);
/* The size limit alone. */
cuplug_error *cuplug__ir_check_size(const char *name, size_t len);

/* 1-based line number of a byte offset, for messages. */
size_t cuplug__ir_line_of(const ir_module *m, size_t offset);
/* The module's tokens that lie in bytes [start, end): a slice of m->toks. */
size_t cuplug__ir_slice(const ir_module *m, size_t start, size_t end, const ir_tok **toks);

/* ---- functions ---- */

typedef struct ir_span {
  size_t start, end;
} ir_span;

typedef struct ir_param {
  ir_span all;  /* the whole parameter */
  ir_span type; /* its type */
  ir_tok name;  /* IR_LOCAL, or IR_EOF when unnamed */
} ir_param;

typedef struct ir_function {
  const ir_item *item;
  size_t body_first, body_last; /* tokens inside the braces */
  ir_span linkage;    /* empty (start == end) when absent */
  ir_span ret_attrs;  /* return attributes, possibly empty */
  ir_span ret_type;
  ir_tok name;        /* the @name token */
  size_t params_open, params_close; /* offsets of '(' and ')' */
  ir_param *params;
  size_t num_params;
  bool varargs;
  ir_span fn_attrs;   /* between ')' and '{' (or the end of a declare) */
  size_t body_open, body_close; /* offsets of '{' and '}'; 0 for declares */
} ir_function;

cuplug_error *cuplug__ir_function_parse(const ir_module *m, const ir_item *item,
                                ir_function *fn);
void cuplug__ir_function_free(ir_function *fn);

/* Statements of a body: one instruction or one label each.  Spans cover the
 * statement's tokens, not its trailing comment or newline. */
typedef struct ir_stmt {
  const ir_tok *toks; /* a slice of the module's tokens */
  size_t n;
  size_t start, end;
  size_t line_start, line_end; /* the whole line(s), newline included */
} ir_stmt;

/* Iterates over a body: *cursor starts at 0; returns false at the end. */
bool cuplug__ir_next_stmt(const ir_module *m, const ir_function *fn, size_t *cursor, ir_stmt *s);

/* Splits a statement's tokens at their top-level commas, counting from
 * token `first`: the index of the token that starts operand `which`
 * (0-based; operand 0 starts at `first`), or n when there are fewer. */
size_t cuplug__ir_operand_start(const char *text, const ir_tok *toks, size_t n, size_t first,
                        size_t which);

/* ---- edits ---- */

typedef struct ir_edit {
  size_t start, end;
  char *text; /* replacement, owned */
  size_t seq; /* insertion order, to keep equal offsets stable */
} ir_edit;

typedef struct ir_edits {
  ir_edit *v;
  size_t n, cap;
  bool oom;
} ir_edits;

void cuplug__ir_edits_init(ir_edits *e);
void cuplug__ir_edits_free(ir_edits *e);
void cuplug__ir_edit_replace(ir_edits *e, size_t start, size_t end, const char *text);
void cuplug__ir_edit_insert(ir_edits *e, size_t at, const char *text);
void cuplug__ir_edit_delete(ir_edits *e, size_t start, size_t end);
/* Applies the edits to text into out.  Edits may not overlap, but one may
 * lie inside the span another replaces; it is then dropped. */
cuplug_error *cuplug__ir_edits_apply(ir_edits *e, const char *text, size_t len,
                             cuplug__buf *out);


/* ---- rewrites: a module, its edits, and the items to append ---- */

typedef struct ir_named_add {
  char *name;   /* named metadata, e.g. "nvvm.annotations" */
  cuplug__buf ids; /* ", !12, !13" to add */
} ir_named_add;

typedef struct ir_rewrite {
  ir_module m;
  ir_edits edits;
  cuplug__buf tail; /* new top-level items, appended at the end */
  long next_meta;
  long next_attrs;
  ir_named_add *named;
  size_t num_named;
} ir_rewrite;

/* Parses the module (with cuplug__ir_module_parse's `watch`) for passes to edit. */
cuplug_error *cuplug__ir_rewrite_begin(ir_rewrite *rw, const char *name, const char *text,
                               size_t len, ir_wordset *watch);
/* A fresh !N / #N number. */
long cuplug__ir_rewrite_meta_id(ir_rewrite *rw);
long cuplug__ir_rewrite_attrs_id(ir_rewrite *rw);
/* Adds node !id to the named metadata `name`, creating it if needed. */
void cuplug__ir_rewrite_named_meta(ir_rewrite *rw, const char *name, long id);
/* Applies everything; the result is malloc'd and NUL-terminated.  The
 * rewrite is released whether or not it succeeds.  Several passes may edit
 * one rewrite (see cuplug__ir_edits_apply for how their edits combine). */
cuplug_error *cuplug__ir_rewrite_finish(ir_rewrite *rw, char **out, size_t *out_len);
void cuplug__ir_rewrite_abort(ir_rewrite *rw);

#endif
