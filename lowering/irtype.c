/* irtype.c - a type written in IR text, read into one spelling.
 *
 * A recursive reader of LLVM's type grammar: first-class types, structs
 * (packed or not), arrays, vectors, function types, pointers with their
 * address spaces, and named types, which are followed to their bodies.  The
 * bodies may refer to one another; so that a reader neither loops nor
 * grows a spelling without bound, it follows at most a few named types deep
 * and gives up on a spelling that grows past a size no signature needs. */
#include "lowering/irtype.h"

#include <stdlib.h>
#include <string.h>

#include "base/error.h"

#define MAX_NAMED_DEPTH 8   /* named types within named types */
#define MAX_NAMED_USES 256  /* named types followed in one spelling */
#define MAX_LEVELS 300      /* recursion: the lexer's bracket limit, and some */
#define MAX_SPELLING 65536  /* bytes: far beyond any signature's type */

typedef struct reader {
  const ir_type_text *t;
  const char *text;
  const ir_tok *toks;
  size_t n, i;
  unsigned named_depth;
  unsigned *named_uses; /* shared by a reader and the readers of its named types */
  unsigned levels;
  bool saw_ptr;
  cuplug__buf *out;
} reader;

static ir_tok cur(const reader *r) {
  return r->i < r->n ? r->toks[r->i] : (ir_tok){.kind = IR_EOF};
}

static bool at_punct(const reader *r, char c) { return cuplug__ir_tok_punct(r->text, cur(r), c); }

static bool eat_punct(reader *r, char c) {
  if (!at_punct(r, c)) return false;
  r->i++;
  return true;
}

static bool at_word(const reader *r, const char *w) {
  ir_tok t = cur(r);
  return t.kind == IR_WORD && cuplug__ir_tok_is(r->text, t, w);
}

/* A decimal number (an array's length, an address space). */
static bool read_count(reader *r, unsigned long long *v) {
  ir_tok t = cur(r);
  if (t.kind != IR_NUMBER || t.len > 19) return false;
  unsigned long long x = 0;
  for (size_t k = 0; k < t.len; k++) {
    char c = r->text[t.start + k];
    if (c < '0' || c > '9') return false;
    x = x * 10 + (unsigned long long)(c - '0');
  }
  r->i++;
  *v = x;
  return true;
}

/* addrspace(N), when it stands here: N, else 0. */
static bool read_addrspace(reader *r, unsigned long long *as) {
  *as = 0;
  if (!at_word(r, "addrspace")) return true;
  r->i++;
  return eat_punct(r, '(') && read_count(r, as) && eat_punct(r, ')');
}

static void put_addrspace(reader *r, unsigned long long as) {
  if (as) cuplug__buf_printf(r->out, " addrspace(%llu)", as);
}

static ir_wordset first_class = CUPLUG__IR_WORDSET(
    "void", "half", "bfloat", "float", "double", "fp128", "x86_fp80", "ppc_fp128", "label",
    "metadata", "token", "x86_mmx", "x86_amx");

static bool is_int_type(const char *s, size_t n) {
  if (n < 2 || s[0] != 'i') return false;
  for (size_t k = 1; k < n; k++)
    if (s[k] < '0' || s[k] > '9') return false;
  return true;
}

static bool read_type(reader *r);

/* T {, T} up to the closing bracket `close` (not eaten); `...` where a
 * function type's parameters allow it. */
static bool read_list(reader *r, char close, bool varargs) {
  for (bool first = true; !at_punct(r, close); first = false) {
    if (!first && !eat_punct(r, ',')) return false;
    if (!first) cuplug__buf_puts(r->out, ", ");
    ir_tok t = cur(r);
    if (varargs && t.kind == IR_PUNCT && cuplug__ir_tok_is(r->text, t, "...")) {
      cuplug__buf_puts(r->out, "...");
      r->i++;
      if (!at_punct(r, close)) return false;
      break;
    }
    if (!read_type(r)) return false;
  }
  return true;
}

/* %T: the body of its `%T = type ...`, read where it stands. */
static bool read_named(reader *r, ir_tok name) {
  const ir_module *m = r->t->m;
  if (!m || r->named_depth >= MAX_NAMED_DEPTH || ++*r->named_uses > MAX_NAMED_USES) return false;
  const ir_item *def = NULL;
  for (size_t k = 0; k < m->num_items && !def; k++) {
    const ir_item *it = &m->items[k];
    if (it->kind == IR_ITEM_TYPE && cuplug__ir_tok_names(r->text, name, it->name)) def = it;
  }
  /* %T = type BODY: the body's tokens follow the first three */
  if (!def || def->last - def->first < 4 ||
      !cuplug__ir_tok_is(m->text, m->toks[def->first + 2], "type"))
    return false;
  reader body = *r;
  body.text = m->text;
  body.toks = m->toks + def->first + 3;
  body.n = def->last - def->first - 3;
  body.i = 0;
  body.named_depth = r->named_depth + 1;
  bool ok = read_type(&body) && body.i == body.n;
  r->saw_ptr |= body.saw_ptr;
  return ok;
}

/* A type without its suffixes. */
static bool read_base(reader *r) {
  ir_tok t = cur(r);
  if (t.kind == IR_WORD && cuplug__ir_tok_is(r->text, t, "ptr")) {
    r->i++;
    unsigned long long as;
    if (!read_addrspace(r, &as)) return false;
    cuplug__buf_puts(r->out, "ptr");
    put_addrspace(r, as);
    r->saw_ptr = true;
    return true;
  }
  if (t.kind == IR_WORD) {
    if (!cuplug__ir_word_in(&first_class, r->text, t) && !is_int_type(r->text + t.start, t.len))
      return false;
    cuplug__buf_append(r->out, r->text + t.start, t.len);
    r->i++;
    return true;
  }
  if (t.kind == IR_LOCAL) {
    r->i++;
    return read_named(r, t);
  }
  if (eat_punct(r, '{')) {
    cuplug__buf_putc(r->out, '{');
    if (!read_list(r, '}', false) || !eat_punct(r, '}')) return false;
    cuplug__buf_putc(r->out, '}');
    return true;
  }
  bool vector = at_punct(r, '<');
  if (vector || at_punct(r, '[')) {
    r->i++;
    if (vector && eat_punct(r, '{')) { /* a packed struct, <{...}> */
      cuplug__buf_puts(r->out, "<{");
      if (!read_list(r, '}', false) || !eat_punct(r, '}') || !eat_punct(r, '>')) return false;
      cuplug__buf_puts(r->out, "}>");
      return true;
    }
    unsigned long long count;
    if (!read_count(r, &count) || !at_word(r, "x")) return false;
    r->i++;
    cuplug__buf_printf(r->out, "%c%llu x ", vector ? '<' : '[', count);
    if (!read_type(r) || !eat_punct(r, vector ? '>' : ']')) return false;
    cuplug__buf_putc(r->out, vector ? '>' : ']');
    return true;
  }
  return false;
}

static bool read_type(reader *r) {
  if (++r->levels > MAX_LEVELS) return false;
  size_t mark = r->out->len;
  bool ok = read_base(r);
  while (ok && r->out->len < MAX_SPELLING) {
    unsigned long long as;
    if (at_word(r, "addrspace") || at_punct(r, '*')) {
      ok = read_addrspace(r, &as) && eat_punct(r, '*');
      if (ok && r->t->opaque) { /* the pointee is what an opaque pointer forgets */
        r->out->len = mark;
        cuplug__buf_puts(r->out, "ptr");
        put_addrspace(r, as);
      } else if (ok) {
        put_addrspace(r, as);
        cuplug__buf_putc(r->out, '*');
      }
    } else if (eat_punct(r, '(')) { /* a function type */
      cuplug__buf_puts(r->out, " (");
      ok = read_list(r, ')', true) && eat_punct(r, ')');
      cuplug__buf_putc(r->out, ')');
    } else {
      break;
    }
  }
  r->levels--;
  return ok && !r->out->oom && r->out->len < MAX_SPELLING;
}

bool cuplug__ir_type_spell(const ir_type_text *t, cuplug__buf *out, bool *saw_ptr) {
  unsigned named_uses = 0;
  reader r = {.t = t, .text = t->text, .toks = t->toks, .n = t->n, .named_uses = &named_uses,
              .out = out};
  size_t mark = out->len;
  bool ok = read_type(&r) && r.i == r.n;
  if (!ok) {
    out->len = mark;
    if (out->data) out->data[mark] = '\0';
  }
  if (saw_ptr) *saw_ptr = r.saw_ptr;
  return ok;
}

bool cuplug__ir_type_spell_string(const char *type, bool opaque, cuplug__buf *out) {
  ir_tokens lexed;
  cuplug_error *e = cuplug__ir_lex("type", type, strlen(type), NULL, &lexed);
  if (e) {
    cuplug__error_destroy(e);
    return false;
  }
  ir_type_text t = {.text = type, .toks = lexed.toks, .n = lexed.num_toks, .opaque = opaque};
  bool ok = cuplug__ir_type_spell(&t, out, NULL);
  cuplug__ir_tokens_free(&lexed);
  return ok;
}
