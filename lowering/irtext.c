/* irtext.c - lexer, structure and edits of NVVM-dialect IR text. */
#include "irtext.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

/* ---- lexer ---- */

void ir_lexer_init(ir_lexer *lx, const char *text, size_t len, size_t pos) {
  lx->text = text;
  lx->len = len;
  lx->pos = pos;
}

static bool is_ident_char(char c) {
  return isalnum((unsigned char)c) || c == '-' || c == '$' || c == '.' || c == '_';
}

/* Skips a "..." string starting at pos (on the quote); returns the offset
 * after the closing quote, or len.  LLVM escapes quotes as \22, so the
 * first quote closes. */
static size_t skip_string(const char *s, size_t pos, size_t len) {
  pos++;
  while (pos < len && s[pos] != '"') pos++;
  return pos < len ? pos + 1 : len;
}

static size_t skip_ident(const char *s, size_t pos, size_t len) {
  while (pos < len && (is_ident_char(s[pos]) || s[pos] == '\\')) pos++;
  return pos;
}

ir_tok ir_next(ir_lexer *lx) {
  const char *s = lx->text;
  size_t n = lx->len, p = lx->pos;
  for (;;) {
    while (p < n && (s[p] == ' ' || s[p] == '\t' || s[p] == '\r' || s[p] == '\f'))
      p++;
    if (p < n && s[p] == ';') {
      while (p < n && s[p] != '\n') p++;
      continue;
    }
    break;
  }
  ir_tok t = {IR_EOF, p, 0};
  if (p >= n) {
    lx->pos = n;
    return t;
  }
  char c = s[p];
  size_t q = p + 1;
  if (c == '\n') {
    t.kind = IR_NEWLINE;
  } else if (c == '%' || c == '@') {
    t.kind = c == '%' ? IR_LOCAL : IR_GLOBAL;
    q = (q < n && s[q] == '"') ? skip_string(s, q, n) : skip_ident(s, q, n);
  } else if (c == '!') {
    if (q < n && s[q] == '"') {
      t.kind = IR_META;
      q = skip_string(s, q, n);
    } else if (q < n && (is_ident_char(s[q]) || s[q] == '\\')) {
      t.kind = IR_META;
      q = skip_ident(s, q, n);
    } else {
      t.kind = IR_PUNCT;
    }
  } else if (c == '#' && q < n && isdigit((unsigned char)s[q])) {
    t.kind = IR_ATTRGRP;
    while (q < n && isdigit((unsigned char)s[q])) q++;
  } else if (c == '"') {
    t.kind = IR_STRING;
    q = skip_string(s, p, n);
  } else if (c == 'c' && q < n && s[q] == '"') {
    t.kind = IR_STRING;
    q = skip_string(s, q, n);
  } else if (isdigit((unsigned char)c) ||
             ((c == '-' || c == '+') && q < n && isdigit((unsigned char)s[q]))) {
    t.kind = IR_NUMBER;
    if (c == '0' && q < n && s[q] == 'x') {
      q++;
      while (q < n && isalnum((unsigned char)s[q])) q++;
    } else {
      while (q < n && isdigit((unsigned char)s[q])) q++;
      if (q < n && s[q] == '.') {
        q++;
        while (q < n && isdigit((unsigned char)s[q])) q++;
      }
      if (q < n && (s[q] == 'e' || s[q] == 'E')) {
        size_t r = q + 1;
        if (r < n && (s[r] == '+' || s[r] == '-')) r++;
        if (r < n && isdigit((unsigned char)s[r])) {
          q = r;
          while (q < n && isdigit((unsigned char)s[q])) q++;
        }
      }
    }
  } else if (isalpha((unsigned char)c) || c == '_' || c == '$' || c == '.') {
    if (c == '.' && q + 1 < n && s[q] == '.' && s[q + 1] == '.') {
      t.kind = IR_PUNCT; /* "..." */
      q += 2;
    } else {
      t.kind = IR_WORD;
      q = skip_ident(s, q, n);
    }
  } else {
    t.kind = IR_PUNCT;
  }
  t.len = q - p;
  lx->pos = q;
  return t;
}

bool ir_tok_is(const char *text, ir_tok t, const char *word) {
  size_t n = strlen(word);
  return t.len == n && memcmp(text + t.start, word, n) == 0;
}

bool ir_tok_punct(const char *text, ir_tok t, char c) {
  return t.kind == IR_PUNCT && t.len == 1 && text[t.start] == c;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *ir_tok_name(const char *text, ir_tok t) {
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

bool ir_tok_numbered(const char *text, ir_tok t, unsigned long *number) {
  if ((t.kind != IR_LOCAL && t.kind != IR_GLOBAL) || t.len < 2) return false;
  unsigned long v = 0;
  for (size_t i = t.start + 1; i < t.start + t.len; i++) {
    if (!isdigit((unsigned char)text[i])) return false;
    v = v * 10 + (unsigned long)(text[i] - '0');
  }
  if (number) *number = v;
  return true;
}

void ir_put_name(cuplug__buf *b, char sigil, const char *name) {
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

static int depth_delta(const char *text, ir_tok t) {
  if (t.kind != IR_PUNCT || t.len != 1) return 0;
  switch (text[t.start]) {
    case '(':
    case '[':
    case '{':
      return 1;
    case ')':
    case ']':
    case '}':
      return -1;
    default:
      return 0;
  }
}

static bool is_number_text(const char *s, size_t n) {
  if (!n) return false;
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  return true;
}

static cuplug_error *push_item(ir_module *m, size_t *cap, ir_item it) {
  if (m->num_items == *cap) {
    size_t nc = *cap ? *cap * 2 : 32;
    ir_item *v = realloc(m->items, nc * sizeof *v);
    if (!v) return cuplug__error_oom();
    m->items = v;
    *cap = nc;
  }
  m->items[m->num_items++] = it;
  return NULL;
}

static ir_item_kind classify(const char *text, ir_lexer *lx, ir_tok first,
                             ir_tok *name_tok) {
  ir_lexer peek = *lx;
  ir_tok second = ir_next(&peek);
  *name_tok = first;
  if (first.kind == IR_WORD) {
    if (ir_tok_is(text, first, "define") || ir_tok_is(text, first, "declare")) {
      /* the name is the first @ token */
      ir_lexer l2 = *lx;
      for (ir_tok t = ir_next(&l2); t.kind != IR_EOF; t = ir_next(&l2)) {
        if (t.kind == IR_GLOBAL) {
          *name_tok = t;
          break;
        }
        if (t.kind == IR_PUNCT && text[t.start] == '{' && ir_tok_is(text, first, "define"))
          break;
      }
      return ir_tok_is(text, first, "define") ? IR_ITEM_DEFINE : IR_ITEM_DECLARE;
    }
    if (ir_tok_is(text, first, "target")) return IR_ITEM_TARGET;
    if (ir_tok_is(text, first, "attributes")) {
      if (second.kind == IR_ATTRGRP) *name_tok = second;
      return IR_ITEM_ATTRS;
    }
    return IR_ITEM_OTHER;
  }
  bool assigns = ir_tok_punct(text, second, '=');
  if (first.kind == IR_GLOBAL && assigns) return IR_ITEM_GLOBAL;
  if (first.kind == IR_LOCAL && assigns) return IR_ITEM_TYPE;
  if (first.kind == IR_META && assigns)
    return is_number_text(text + first.start + 1, first.len - 1) ? IR_ITEM_META
                                                                  : IR_ITEM_NAMED_META;
  return IR_ITEM_OTHER;
}

static char *item_name(const char *text, ir_item_kind kind, ir_tok t) {
  switch (kind) {
    case IR_ITEM_DEFINE:
    case IR_ITEM_DECLARE:
    case IR_ITEM_GLOBAL:
    case IR_ITEM_TYPE:
    case IR_ITEM_META:
    case IR_ITEM_NAMED_META:
    case IR_ITEM_ATTRS:
      if (t.kind == IR_GLOBAL || t.kind == IR_LOCAL || t.kind == IR_META ||
          t.kind == IR_ATTRGRP)
        return ir_tok_name(text, t);
      return cuplug__strdup("");
    default:
      return cuplug__strdup("");
  }
}

cuplug_error *ir_module_parse(ir_module *m, const char *name, const char *text,
                              size_t len) {
  memset(m, 0, sizeof *m);
  m->name = name;
  m->text = text;
  m->len = len;
  m->max_meta = -1;
  m->max_attrs = -1;
  size_t cap = 0;
  ir_lexer lx;
  ir_lexer_init(&lx, text, len, 0);
  for (;;) {
    ir_tok first = ir_next(&lx);
    if (first.kind == IR_EOF) break;
    if (first.kind == IR_NEWLINE) continue;
    ir_tok name_tok;
    ir_item_kind kind = classify(text, &lx, first, &name_tok);
    int depth = depth_delta(text, first);
    size_t end = len;
    bool closed = false;
    /* A definition ends after its body's closing brace, which may open on
     * a line of its own (llvmlite writes it so). */
    bool define = kind == IR_ITEM_DEFINE;
    ir_tok prev = first;
    for (ir_tok t = ir_next(&lx); t.kind != IR_EOF; t = ir_next(&lx)) {
      depth += depth_delta(text, t);
      if (t.kind == IR_NEWLINE && depth <= 0 &&
          (!define || ir_tok_punct(text, prev, '}'))) {
        end = t.start + 1;
        closed = true;
        break;
      }
      if (t.kind != IR_NEWLINE) prev = t;
    }
    if (!closed && depth > 0) {
      ir_module_free(m);
      return cuplug__error(CUPLUG_ERR_IR_PARSE,
                           "%s:%zu: unbalanced brackets: the item that starts here "
                           "is never closed",
                           name, ir_line_of(&(ir_module){.text = text, .len = len},
                                            first.start));
    }
    ir_item it = {kind, first.start, end, item_name(text, kind, name_tok)};
    if (!it.name) {
      ir_module_free(m);
      return cuplug__error_oom();
    }
    cuplug_error *e = push_item(m, &cap, it);
    if (e) {
      free(it.name);
      ir_module_free(m);
      return e;
    }
    if (kind == IR_ITEM_META) {
      long v = strtol(it.name, NULL, 10);
      if (v > m->max_meta) m->max_meta = v;
    } else if (kind == IR_ITEM_ATTRS && *it.name) {
      long v = strtol(it.name, NULL, 10);
      if (v > m->max_attrs) m->max_attrs = v;
    }
  }
  return NULL;
}

void ir_module_free(ir_module *m) {
  for (size_t i = 0; i < m->num_items; i++) free(m->items[i].name);
  free(m->items);
  m->items = NULL;
  m->num_items = 0;
}

const ir_item *ir_module_find(const ir_module *m, ir_item_kind kind,
                              const char *name) {
  for (size_t i = 0; i < m->num_items; i++)
    if (m->items[i].kind == kind && strcmp(m->items[i].name, name) == 0)
      return &m->items[i];
  return NULL;
}

size_t ir_line_of(const ir_module *m, size_t offset) {
  size_t line = 1;
  for (size_t i = 0; i < offset && i < m->len; i++)
    if (m->text[i] == '\n') line++;
  return line;
}

/* ---- functions ---- */

static const char *const linkages[] = {
    "private",     "internal",  "available_externally", "linkonce", "weak",
    "common",      "appending", "extern_weak",          "linkonce_odr",
    "weak_odr",    "external",  NULL};

/* Keywords between define/declare and the return type, apart from the
 * linkage and the return attributes. */
static const char *const prefix_words[] = {
    "default", "hidden", "protected", "dllimport", "dllexport", "dso_local",
    "dso_preemptable", "ccc", "fastcc", "coldcc", "ptx_kernel", "ptx_device",
    "x86_stdcallcc", "preserve_mostcc", "preserve_allcc", "cxx_fast_tlscc",
    "swiftcc", "thread_local", "unnamed_addr", "local_unnamed_addr", NULL};

static const char *const ret_attr_words[] = {
    "zeroext", "signext", "inreg", "noalias", "nonnull", "noundef",
    "dereferenceable", "dereferenceable_or_null", "align", NULL};

static bool in_list(const char *text, ir_tok t, const char *const *list) {
  if (t.kind != IR_WORD) return false;
  for (size_t i = 0; list[i]; i++)
    if (ir_tok_is(text, t, list[i])) return true;
  return false;
}

/* A small token cursor over one item. */
typedef struct cursor {
  const char *text;
  ir_tok *toks;
  size_t n, i;
} cursor;

static ir_tok cur(const cursor *c) {
  return c->i < c->n ? c->toks[c->i] : (ir_tok){IR_EOF, c->n ? c->toks[c->n - 1].start + c->toks[c->n - 1].len : 0, 0};
}

static bool cur_punct(const cursor *c, char ch) { return ir_tok_punct(c->text, cur(c), ch); }

/* Skips a balanced group starting at an opening bracket. */
static void skip_group(cursor *c) {
  int depth = 0;
  do {
    depth += depth_delta(c->text, cur(c));
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
    } else if (ir_tok_is(c->text, cur(c), "addrspace") && c->i + 1 < c->n &&
               ir_tok_punct(c->text, c->toks[c->i + 1], '(')) {
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

static cuplug_error *tokens_of(const ir_module *m, size_t start, size_t end,
                               bool newlines, ir_tok **out, size_t *n) {
  size_t cap = 64, k = 0;
  ir_tok *v = malloc(cap * sizeof *v);
  if (!v) return cuplug__error_oom();
  ir_lexer lx;
  ir_lexer_init(&lx, m->text, end, start);
  for (ir_tok t = ir_next(&lx); t.kind != IR_EOF; t = ir_next(&lx)) {
    if (t.kind == IR_NEWLINE && !newlines) continue;
    if (k == cap) {
      ir_tok *nv = realloc(v, 2 * cap * sizeof *v);
      if (!nv) {
        free(v);
        return cuplug__error_oom();
      }
      v = nv;
      cap *= 2;
    }
    v[k++] = t;
  }
  *out = v;
  *n = k;
  return NULL;
}

static cuplug_error *header_error(const ir_module *m, const ir_item *item,
                                  const char *what) {
  return cuplug__error(CUPLUG_ERR_IR_PARSE, "%s:%zu: function @%s: %s", m->name,
                       ir_line_of(m, item->start), item->name, what);
}

cuplug_error *ir_function_parse(const ir_module *m, const ir_item *item,
                                ir_function *fn) {
  memset(fn, 0, sizeof *fn);
  fn->item = item;
  ir_tok *toks;
  size_t n;
  CUPLUG_TRY(tokens_of(m, item->start, item->end, false, &toks, &n));
  cursor c = {m->text, toks, n, 1}; /* past define/declare */
  cuplug_error *e = NULL;

  /* linkage, visibility, calling convention, return attributes */
  size_t ret_attr_start = 0;
  bool have_ret_attr = false;
  for (;;) {
    ir_tok t = cur(&c);
    if (in_list(m->text, t, linkages)) {
      fn->linkage = (ir_span){t.start, tok_end(t)};
      c.i++;
    } else if (in_list(m->text, t, prefix_words)) {
      c.i++;
    } else if (ir_tok_is(m->text, t, "cc") && c.i + 1 < n) {
      c.i += 2;
    } else if (in_list(m->text, t, ret_attr_words)) {
      if (!have_ret_attr) ret_attr_start = t.start;
      have_ret_attr = true;
      c.i++;
      if (cur_punct(&c, '('))
        skip_group(&c);
      else if (ir_tok_is(m->text, t, "align") && cur(&c).kind == IR_NUMBER)
        c.i++;
    } else {
      break;
    }
  }
  size_t type_start = cur(&c).start;
  fn->ret_attrs = have_ret_attr ? (ir_span){ret_attr_start, type_start}
                                : (ir_span){type_start, type_start};
  size_t type_first = c.i;
  if (!parse_type(&c) || c.i == type_first) {
    e = header_error(m, item, "cannot read the return type");
    goto done;
  }
  fn->ret_type = (ir_span){type_start, tok_end(toks[c.i - 1])};
  if (cur(&c).kind != IR_GLOBAL) {
    e = header_error(m, item, "expected the function's @name after its return type");
    goto done;
  }
  fn->name = cur(&c);
  c.i++;
  if (!cur_punct(&c, '(')) {
    e = header_error(m, item, "expected '(' after the function's name");
    goto done;
  }
  fn->params_open = cur(&c).start;
  c.i++;
  size_t cap = 0;
  while (!cur_punct(&c, ')')) {
    if (c.i >= n) {
      e = header_error(m, item, "unterminated parameter list");
      goto done;
    }
    if (cur(&c).kind == IR_PUNCT && ir_tok_is(m->text, cur(&c), "...")) {
      fn->varargs = true;
      c.i++;
      continue;
    }
    ir_param p = {0};
    p.all.start = cur(&c).start;
    p.type.start = cur(&c).start;
    if (!parse_type(&c)) {
      e = header_error(m, item, "cannot read a parameter's type");
      goto done;
    }
    p.type.end = tok_end(toks[c.i - 1]);
    p.name.kind = IR_EOF;
    while (c.i < n && !cur_punct(&c, ',') && !cur_punct(&c, ')')) {
      if (cur(&c).kind == IR_LOCAL) p.name = cur(&c);
      if (cur_punct(&c, '(') || cur_punct(&c, '{') || cur_punct(&c, '['))
        skip_group(&c);
      else
        c.i++;
    }
    p.all.end = tok_end(toks[c.i - 1]);
    if (fn->num_params == cap) {
      size_t nc = cap ? cap * 2 : 8;
      ir_param *v = realloc(fn->params, nc * sizeof *v);
      if (!v) {
        e = cuplug__error_oom();
        goto done;
      }
      fn->params = v;
      cap = nc;
    }
    fn->params[fn->num_params++] = p;
    if (cur_punct(&c, ',')) c.i++;
  }
  fn->params_close = cur(&c).start;
  c.i++;
  size_t attrs_start = c.i < n ? cur(&c).start : fn->params_close + 1;
  if (item->kind == IR_ITEM_DEFINE) {
    while (c.i < n && !cur_punct(&c, '{')) c.i++;
    if (c.i >= n) {
      e = header_error(m, item, "expected '{' opening the body");
      goto done;
    }
    fn->fn_attrs = (ir_span){attrs_start, cur(&c).start};
    fn->body_open = cur(&c).start;
    ir_tok last = toks[n - 1];
    if (!ir_tok_punct(m->text, last, '}')) {
      e = header_error(m, item, "expected '}' closing the body");
      goto done;
    }
    fn->body_close = last.start;
  } else {
    fn->fn_attrs = (ir_span){attrs_start, n ? tok_end(toks[n - 1]) : attrs_start};
    if (fn->fn_attrs.end < attrs_start) fn->fn_attrs.end = attrs_start;
  }
done:
  free(toks);
  if (e) ir_function_free(fn);
  return e;
}

void ir_function_free(ir_function *fn) {
  free(fn->params);
  fn->params = NULL;
  fn->num_params = 0;
}

static size_t line_begin(const char *text, size_t at) {
  while (at > 0 && text[at - 1] != '\n') at--;
  return at;
}

cuplug_error *ir_function_body(const ir_module *m, const ir_function *fn,
                               ir_stmt **out, size_t *num) {
  *out = NULL;
  *num = 0;
  if (!fn->body_close) return NULL;
  size_t cap = 0;
  ir_stmt *v = NULL;
  ir_lexer lx;
  ir_lexer_init(&lx, m->text, fn->body_close, fn->body_open + 1);
  ir_tok t = ir_next(&lx);
  while (t.kind != IR_EOF) {
    if (t.kind == IR_NEWLINE) {
      t = ir_next(&lx);
      continue;
    }
    ir_stmt s = {t.start, tok_end(t), line_begin(m->text, t.start), 0};
    ir_tok next = ir_next(&lx);
    bool label = (t.kind == IR_WORD || t.kind == IR_NUMBER || t.kind == IR_STRING) &&
                 ir_tok_punct(m->text, next, ':');
    if (label) {
      s.end = tok_end(next);
      t = ir_next(&lx);
    } else {
      int depth = depth_delta(m->text, t);
      t = next;
      while (t.kind != IR_EOF && !(t.kind == IR_NEWLINE && depth <= 0)) {
        depth += depth_delta(m->text, t);
        s.end = tok_end(t);
        t = ir_next(&lx);
      }
    }
    /* The line ends at the next newline (a trailing comment included). */
    size_t le = s.end;
    while (le < fn->body_close && m->text[le] != '\n') le++;
    s.line_end = le < fn->body_close ? le + 1 : le;
    if (*num == cap) {
      cap = cap ? cap * 2 : 64;
      ir_stmt *nv = realloc(v, cap * sizeof *nv);
      if (!nv) {
        free(v);
        return cuplug__error_oom();
      }
      v = nv;
    }
    v[(*num)++] = s;
  }
  *out = v;
  return NULL;
}

/* ---- edits ---- */

void ir_edits_init(ir_edits *e) { memset(e, 0, sizeof *e); }

void ir_edits_free(ir_edits *e) {
  for (size_t i = 0; i < e->n; i++) free(e->v[i].text);
  free(e->v);
  ir_edits_init(e);
}

void ir_edit_replace(ir_edits *e, size_t start, size_t end, const char *text) {
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

void ir_edit_insert(ir_edits *e, size_t at, const char *text) {
  ir_edit_replace(e, at, at, text);
}

void ir_edit_delete(ir_edits *e, size_t start, size_t end) {
  ir_edit_replace(e, start, end, "");
}

static int edit_cmp(const void *a, const void *b) {
  const ir_edit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  /* insertions (empty spans) before replacements at the same offset */
  bool xi = x->start == x->end, yi = y->start == y->end;
  if (xi != yi) return xi ? -1 : 1;
  return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

cuplug_error *ir_edits_apply(ir_edits *e, const char *text, size_t len,
                             cuplug__buf *out) {
  if (e->oom) return cuplug__error_oom();
  qsort(e->v, e->n, sizeof *e->v, edit_cmp);
  size_t pos = 0;
  if (!cuplug__buf_reserve(out, len + 256)) return cuplug__error_oom();
  for (size_t i = 0; i < e->n; i++) {
    const ir_edit *d = &e->v[i];
    if (d->start < pos || d->end < d->start || d->end > len)
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

cuplug_error *ir_tokens(const ir_module *m, size_t start, size_t end, ir_tok **toks,
                        size_t *n) {
  return tokens_of(m, start, end, false, toks, n);
}

cuplug_error *ir_rewrite_begin(ir_rewrite *rw, const char *name, const char *text,
                               size_t len) {
  memset(rw, 0, sizeof *rw);
  CUPLUG_TRY(ir_module_parse(&rw->m, name, text, len));
  ir_edits_init(&rw->edits);
  cuplug__buf_init(&rw->tail);
  rw->next_meta = rw->m.max_meta + 1;
  rw->next_attrs = rw->m.max_attrs + 1;
  return NULL;
}

long ir_rewrite_meta_id(ir_rewrite *rw) { return rw->next_meta++; }
long ir_rewrite_attrs_id(ir_rewrite *rw) { return rw->next_attrs++; }

void ir_rewrite_named_meta(ir_rewrite *rw, const char *name, long id) {
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
    const ir_item *it = ir_module_find(&rw->m, IR_ITEM_NAMED_META, a->name);
    if (it) {
      /* insert before the list's closing brace */
      size_t close = it->end;
      while (close > it->start && rw->m.text[close - 1] != '}') close--;
      if (close == it->start) continue;
      close--;
      size_t k = close;
      while (k > it->start && isspace((unsigned char)rw->m.text[k - 1])) k--;
      bool empty = rw->m.text[k - 1] == '{';
      ir_edit_insert(&rw->edits, close, empty ? ids + 2 : ids);
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
  ir_edits_free(&rw->edits);
  cuplug__buf_free(&rw->tail);
  ir_module_free(&rw->m);
  memset(rw, 0, sizeof *rw);
}

void ir_rewrite_abort(ir_rewrite *rw) { rewrite_release(rw); }

cuplug_error *ir_rewrite_finish(ir_rewrite *rw, char **out, size_t *out_len) {
  flush_named(rw);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug_error *e = ir_edits_apply(&rw->edits, rw->m.text, rw->m.len, &b);
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
