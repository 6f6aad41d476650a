/* irparse.c - a module's items, a function's header and body, and the
 * statements of a body, read from the module's tokens. */
#include "lowering/irparse.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* ---- top-level items ---- */

static bool is_number_text(const char *s, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  return true;
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

/* The item that starts line `line` (items start lines): its kind, its
 * extent and its name (malloc'd); *next is the line after it. */
static cuplug_error *read_item(const ir_module *m, size_t line, ir_item *it, size_t *next) {
  const char *text = m->text;
  size_t i = m->lines[line].tok, name_tok;
  ir_item_kind kind = classify(m, i, &name_tok);
  /* An item runs to the first line break outside brackets; a definition
   * runs to the line break after its body's closing brace, which may open
   * on a line of its own (llvmlite writes it so).  Depths count from the
   * item's start. */
  bool define = kind == IR_ITEM_DEFINE;
  int32_t base = m->lines[line].depth, depth = m->end_depth - base;
  size_t k = m->num_toks, l = line + 1;
  for (; l < m->num_lines; l++) {
    const ir_line *ln = &m->lines[l];
    if (ln->depth - base <= 0 &&
        (!define || cuplug__ir_tok_punct(text, m->toks[ln->tok - 1], '}'))) {
      k = ln->tok;
      depth = ln->depth - base;
      break;
    }
  }
  *next = l;
  if (depth > 0)
    return cuplug__error(CUPLUG_ERR_IR_PARSE,
                         "%s:%zu: unbalanced brackets: the item that starts here "
                         "is never closed",
                         m->name, cuplug__ir_line_of(m, m->toks[i].start));
  size_t end = k < m->num_toks ? m->toks[k].start : m->len;
  /* keep the item's own line break (and trailing comment) with it */
  size_t last_end = m->toks[k - 1].start + m->toks[k - 1].len;
  const char *nl = memchr(text + last_end, '\n', end - last_end);
  if (nl) end = (size_t)(nl - text) + 1;
  *it = (ir_item){kind, m->toks[i].start, end, i, k, NULL};
  ir_tok_kind name_kind = m->toks[name_tok].kind;
  bool has_name = (kind == IR_ITEM_DEFINE || kind == IR_ITEM_DECLARE) ? name_kind == IR_GLOBAL
                  : kind == IR_ITEM_ATTRS ? name_kind == IR_ATTRGRP
                                          : named_kind(kind);
  it->name = has_name ? cuplug__ir_tok_name(text, m->toks[name_tok]) : cuplug__strdup("");
  return it->name ? NULL : cuplug__error_oom();
}

/* Appends an item, which then owns its name; false when out of memory. */
static bool add_item(ir_module *m, ir_item it, size_t *cap) {
  if (m->num_items == *cap) {
    *cap = *cap ? *cap * 2 : 32;
    ir_item *v = realloc(m->items, *cap * sizeof *v);
    if (!v) return false;
    m->items = v;
  }
  m->items[m->num_items++] = it;
  return true;
}

/* Keeps the highest !N and #N defined, which a rewrite numbers after. */
static cuplug_error *note_number(ir_module *m, const ir_item *it) {
  if (it->kind != IR_ITEM_META && (it->kind != IR_ITEM_ATTRS || !*it->name)) return NULL;
  /* LLVM numbers metadata and attribute groups with 32 bits; a larger
   * number would overflow the numbers a rewrite hands out after it */
  unsigned long long v = 0; /* the name is digits; read past 32 bits no further */
  for (const char *d = it->name; *d >= '0' && *d <= '9' && v <= UINT32_MAX; d++)
    v = v * 10 + (unsigned)(*d - '0');
  if (v > UINT32_MAX)
    return cuplug__error(CUPLUG_ERR_IR_PARSE, "%s:%zu: %c%.24s...: the number is beyond 32 bits",
                         m->name, cuplug__ir_line_of(m, it->start),
                         it->kind == IR_ITEM_META ? '!' : '#', it->name);
  long *max = it->kind == IR_ITEM_META ? &m->max_meta : &m->max_attrs;
  if ((long)v > *max) *max = (long)v;
  return NULL;
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
  ir_tokens lexed;
  CUPLUG__TRY(cuplug__ir_lex(name, text, len, watch, &lexed));
  m->toks = lexed.toks;
  m->num_toks = lexed.num_toks;
  m->lines = lexed.lines;
  m->num_lines = lexed.num_lines;
  m->end_depth = lexed.end_depth;
  m->watched = lexed.watched;
  m->num_watched = lexed.num_watched;
  size_t cap = 0;
  for (size_t line = 0; line < m->num_lines;) {
    ir_item it = {0};
    cuplug_error *e = read_item(m, line, &it, &line);
    if (!e && !add_item(m, it, &cap)) {
      free(it.name);
      e = cuplug__error_oom();
    }
    if (!e) e = note_number(m, &it);
    if (e) {
      cuplug__ir_module_free(m);
      return e;
    }
  }
  return NULL;
}

void cuplug__ir_module_free(ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++) free(m->items[i].name);
  free(m->items);
  /* the lexer's arrays, which the module holds: freed as the lexer says */
  ir_tokens lexed = {m->toks, m->num_toks, m->lines, m->num_lines, m->end_depth, m->watched,
                     m->num_watched};
  cuplug__ir_tokens_free(&lexed);
  m->items = NULL;
  m->toks = NULL;
  m->lines = NULL;
  m->watched = NULL;
  m->num_items = m->num_toks = m->num_lines = m->num_watched = 0;
}

const ir_item *cuplug__ir_module_find(const ir_module *m, ir_item_kind kind,
                              const char *name) {
  for (size_t i = 0; i < m->num_items; i++)
    if (m->items[i].kind == kind && strcmp(m->items[i].name, name) == 0)
      return &m->items[i];
  return NULL;
}

size_t cuplug__ir_line_of(const ir_module *m, size_t offset) {
  return cuplug__ir_line_at(m->text, offset < m->len ? offset : m->len);
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

/* ---- statements ---- */

static size_t line_begin(const char *text, size_t at) {
  while (at > 0 && text[at - 1] != '\n') at--;
  return at;
}

/* The index of the first line that starts after token i. */
static size_t line_after(const ir_module *m, size_t i) {
  size_t lo = 0, hi = m->num_lines;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (m->lines[mid].tok <= i)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

bool cuplug__ir_next_stmt(const ir_module *m, const ir_function *fn, ir_stmt_cursor *cursor,
                          ir_stmt *s) {
  size_t i = fn->body_first + cursor->tok;
  if (!fn->body_close || i >= fn->body_last) return false;
  const ir_tok *t = m->toks;
  /* l: the first line after token i; the cursor knows it when i starts one */
  size_t l = cursor->line;
  if (!(l > 0 && l <= m->num_lines && m->lines[l - 1].tok == i)) l = line_after(m, i);
  size_t k = i + 1, next_line = 0;
  bool label = (t[i].kind == IR_WORD || t[i].kind == IR_NUMBER || t[i].kind == IR_STRING) &&
               k < fn->body_last && cuplug__ir_tok_punct(m->text, t[k], ':') && !t[k].bol;
  if (label) {
    k++;
    if (l < m->num_lines && m->lines[l].tok == k) next_line = l + 1;
  } else {
    /* the statement runs to the first line break outside its brackets:
     * the first line after it whose depth is no deeper than its start's
     * (i lies on line l - 1, after that line's first token when not at it) */
    int32_t base = m->lines[l - 1].depth;
    for (size_t j = m->lines[l - 1].tok; j < i; j++) base += t[j].depth;
    k = fn->body_last;
    for (; l < m->num_lines && m->lines[l].tok < fn->body_last; l++)
      if (m->lines[l].depth <= base) {
        k = m->lines[l].tok;
        next_line = l + 1;
        break;
      }
  }
  s->toks = t + i;
  s->n = k - i;
  s->start = t[i].start;
  s->end = tok_end(t[k - 1]);
  *cursor = (ir_stmt_cursor){k - fn->body_first, next_line};
  return true;
}

void cuplug__ir_stmt_lines(const ir_module *m, const ir_function *fn, const ir_stmt *s,
                           size_t *start, size_t *end) {
  const char *text = m->text;
  size_t a = line_begin(text, s->start);
  while (a < s->start && (text[a] == ' ' || text[a] == '\t')) a++;
  *start = a == s->start ? line_begin(text, s->start) : s->start; /* after a label or '{' */
  size_t e = s->end;
  while (e < fn->body_close && (text[e] == ' ' || text[e] == '\t' || text[e] == '\r')) e++;
  if (e < fn->body_close && text[e] == ';') { /* its comment goes with it */
    const char *nl = memchr(text + e, '\n', fn->body_close - e);
    e = nl ? (size_t)(nl - text) : fn->body_close;
  }
  *end = e < fn->body_close && text[e] == '\n' ? e + 1 : s->end; /* before '}' on its line */
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
