/* irparse.h - the structure of an NVVM-dialect IR module, read from its
 * tokens (irlex.h): top-level items, function headers and bodies, and the
 * statements of a body.
 *
 * Only as much structure as the passes need: byte spans and token ranges
 * into the text, never a tree.  Full checking is LLVM's job (validate.c). */
#ifndef CUPLUG__LOWERING_IRPARSE_H
#define CUPLUG__LOWERING_IRPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuplug/cuplug.h"
#include "lowering/irlex.h"

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
  ir_line *lines;   /* the lines that hold a token (irlex.h) */
  size_t num_lines;
  int32_t end_depth;
  ir_item *items;
  size_t num_items;
  long max_meta;  /* highest !N defined, -1 if none */
  long max_attrs; /* highest #N defined, -1 if none */
  /* With a watch set: the indices, in order, of the tokens a pass looks
   * for (ir_tokens.watched).  A pass that would otherwise walk every token
   * walks these. */
  const ir_wordset *watch;
  uint32_t *watched;
  size_t num_watched;
} ir_module;

/* Lexes a module once (cuplug__ir_lex, with `watch`, which may be NULL) and
 * splits it into items; text[len] must be NUL.  Fails with CUPLUG_ERR_LIMIT
 * on brackets nested deeper than CUPLUG_MAX_IR_NESTING (before any item is
 * read), and with CUPLUG_ERR_IR_PARSE only on text that has no
 * recognisable structure, such as an unclosed function body. */
cuplug_error *cuplug__ir_module_parse(ir_module *m, const char *name, const char *text,
                              size_t len, ir_wordset *watch);
void cuplug__ir_module_free(ir_module *m);
/* The first item of a kind with a name, or NULL. */
const ir_item *cuplug__ir_module_find(const ir_module *m, ir_item_kind kind,
                              const char *name);

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

/* ---- statements ---- */

/* Statements of a body: one instruction or one label each.  Spans cover the
 * statement's tokens, not its trailing comment or newline. */
typedef struct ir_stmt {
  const ir_tok *toks; /* a slice of the module's tokens */
  size_t n;
  size_t start, end;
} ir_stmt;

/* Where an iteration over a body stands: {0} before its first statement. */
typedef struct ir_stmt_cursor {
  size_t tok;  /* the next statement's first token, from the body's first */
  size_t line; /* 1 + the index of its line in ir_module.lines when it starts
                  one, else 0 */
} ir_stmt_cursor;

/* Iterates over a body; returns false at the end. */
bool cuplug__ir_next_stmt(const ir_module *m, const ir_function *fn, ir_stmt_cursor *cursor,
                          ir_stmt *s);

/* What deleting statement s deletes, [*start, *end): its whole line(s),
 * comment and newline included, where it has them to itself; where a label
 * or the body's '{' comes before it on its line, or the '}' after it, that
 * stays.  s must be one of fn's statements (from cuplug__ir_next_stmt on
 * fn).  Asked of the few statements an edit removes, not found for each. */
void cuplug__ir_stmt_lines(const ir_module *m, const ir_function *fn, const ir_stmt *s,
                           size_t *start, size_t *end);

/* Splits a statement's tokens at their top-level commas, counting from
 * token `first`: the index of the token that starts operand `which`
 * (0-based; operand 0 starts at `first`), or n when there are fewer. */
size_t cuplug__ir_operand_start(const char *text, const ir_tok *toks, size_t n, size_t first,
                        size_t which);

#endif
