/* sigparse.c - numba-style type and signature strings.
 *
 *   signature := type '(' [type {',' type}] ')'
 *   type      := base {'*' | '[' dims ']'}
 *   base      := NAME | 'CPointer' '(' type ')' | ['readonly'] 'array' '(' type ',' Nd ',' L ')'
 *              | 'UniTuple' '(' type ('x' | ',') N ')' | 'Tuple' '(' [type {',' type}] ')'
 *              | 'Literal' '[' 'int' ']' '(' ['-'] N ')' | 'class' '(' type ')'
 *              | 'CPointer' '(' type '(' [type {',' type}] ')' ')'
 *              | 'Record' '(' {field ','} 'size' '=' N [',' 'align' '=' N] ')'
 *              | 'Opaque' '(' STRING ')' | 'Omitted' '(' STRING ')'
 *              | 'Struct' '(' member {',' member} ')'
 *   field     := (NAME | STRING) ':' type '@' N
 *   member    := (NAME | STRING) ':' type
 *   dims      := dim {',' dim}          dim := ':' | '::1'
 *   STRING    := '"' {char | '\"' | '\\'} '"'
 *
 * Errors name the offending text and its position (0-based byte offset). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"
#include "base/types.h"

typedef struct parser {
  const char *text;
  size_t pos;
  unsigned depth; /* of parse_type's recursion */
} parser;

static const struct {
  const char *name;
  cuplug_type_kind kind;
} names[] = {
    {"void", CUPLUG_TYPE_VOID},       {"none", CUPLUG_TYPE_VOID},
    {"bool", CUPLUG_TYPE_BOOL},       {"boolean", CUPLUG_TYPE_BOOL},
    {"b1", CUPLUG_TYPE_BOOL},         {"int8", CUPLUG_TYPE_INT8},
    {"int16", CUPLUG_TYPE_INT16},     {"int32", CUPLUG_TYPE_INT32},
    {"int64", CUPLUG_TYPE_INT64},     {"intp", CUPLUG_TYPE_INT64},
    {"uint8", CUPLUG_TYPE_UINT8},     {"uint16", CUPLUG_TYPE_UINT16},
    {"uint32", CUPLUG_TYPE_UINT32},   {"uint64", CUPLUG_TYPE_UINT64},
    {"uintp", CUPLUG_TYPE_UINT64},    {"float16", CUPLUG_TYPE_FLOAT16},
    {"float32", CUPLUG_TYPE_FLOAT32}, {"float64", CUPLUG_TYPE_FLOAT64},
    {"complex64", CUPLUG_TYPE_COMPLEX64}, {"complex128", CUPLUG_TYPE_COMPLEX128},
    {"bfloat16", CUPLUG_TYPE_BFLOAT16}, {"__nv_bfloat16", CUPLUG_TYPE_BFLOAT16},
    /* numba's C-flavoured aliases */
    {"double", CUPLUG_TYPE_FLOAT64},  {"float_", CUPLUG_TYPE_FLOAT32},
    {"int_", CUPLUG_TYPE_INT64},      {"uint", CUPLUG_TYPE_UINT64},
    /* numba's short names */
    {"i1", CUPLUG_TYPE_INT8},  {"i2", CUPLUG_TYPE_INT16}, {"i4", CUPLUG_TYPE_INT32},
    {"i8", CUPLUG_TYPE_INT64}, {"u1", CUPLUG_TYPE_UINT8}, {"u2", CUPLUG_TYPE_UINT16},
    {"u4", CUPLUG_TYPE_UINT32}, {"u8", CUPLUG_TYPE_UINT64}, {"f2", CUPLUG_TYPE_FLOAT16},
    {"f4", CUPLUG_TYPE_FLOAT32}, {"f8", CUPLUG_TYPE_FLOAT64},
    {"c8", CUPLUG_TYPE_COMPLEX64}, {"c16", CUPLUG_TYPE_COMPLEX128},
};

static void skip_space(parser *p) {
  while (isspace((unsigned char)p->text[p->pos])) p->pos++;
}

static char peek(parser *p) {
  skip_space(p);
  return p->text[p->pos];
}

/* Describes what stands at the position, for messages. */
static void describe_here(cuplug__buf *b, parser *p) {
  skip_space(p);
  const char *s = p->text + p->pos;
  if (!*s) {
    cuplug__buf_puts(b, "the end of the text");
    return;
  }
  size_t n = 0;
  if (isalnum((unsigned char)*s) || *s == '_') {
    while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
  } else {
    /* one character: all the bytes of a UTF-8 sequence */
    n = 1;
    while ((s[n] & 0xC0) == 0x80) n++;
  }
  cuplug__buf_printf(b, "'%.*s'", (int)n, s);
}

static cuplug_error *syntax_error(parser *p, const char *expected) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  describe_here(&b, p);
  char *found = cuplug__buf_take(&b, NULL);
  cuplug_error *e = cuplug__error(CUPLUG_ERR_SIGNATURE_SYNTAX,
                                  "signature syntax error at position %zu of '%s': "
                                  "expected %s, found %s",
                                  p->pos, p->text, expected, found ? found : "?");
  free(found);
  return e;
}

static cuplug_error *expect(parser *p, char c, const char *what) {
  if (peek(p) != c) return syntax_error(p, what);
  p->pos++;
  return NULL;
}

static size_t ident_length(const char *s) {
  size_t n = 0;
  if (!isalpha((unsigned char)s[0]) && s[0] != '_') return 0;
  while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
  return n;
}

static bool word_is(const char *s, size_t n, const char *w) {
  return strlen(w) == n && memcmp(s, w, n) == 0;
}

static cuplug_error *parse_type(parser *p, const cuplug_type **out);

/* [dims]: ':' or '::1' separated by commas. */
static cuplug_error *parse_dims(parser *p, const cuplug_type *dtype,
                                const cuplug_type **out) {
  size_t open = p->pos;
  p->pos++; /* '[' */
  uint32_t ndim = 0;
  int first_contig = 0, last_contig = 0, contig_count = 0;
  for (;;) {
    skip_space(p);
    if (p->text[p->pos] != ':') return syntax_error(p, "':' or '::1' (an array dimension)");
    p->pos++;
    bool contiguous = false;
    if (p->text[p->pos] == ':') {
      p->pos++;
      if (peek(p) != '1') return syntax_error(p, "'1' after '::'");
      p->pos++;
      contiguous = true;
    }
    ndim++;
    if (contiguous) {
      contig_count++;
      if (ndim == 1) first_contig = 1;
      last_contig = 1;
    } else {
      last_contig = 0;
    }
    char c = peek(p);
    if (c == ',') {
      p->pos++;
      continue;
    }
    if (c == ']') {
      p->pos++;
      break;
    }
    return syntax_error(p, "',' or ']'");
  }
  cuplug_layout layout = CUPLUG_LAYOUT_ANY;
  if (contig_count == 1 && last_contig)
    layout = CUPLUG_LAYOUT_C;
  else if (contig_count == 1 && first_contig)
    layout = CUPLUG_LAYOUT_F;
  else if (contig_count)
    return cuplug__error(CUPLUG_ERR_SIGNATURE_SYNTAX,
                         "signature syntax error at position %zu of '%s': only the "
                         "first or the last dimension of an array may be '::1'",
                         open, p->text);
  if (ndim > CUPLUG__MAX_NDIM)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "array at position %zu of '%s' has %u dimensions: "
                         "arrays have 0 to %d",
                         open, p->text, ndim, CUPLUG__MAX_NDIM);
  return cuplug__type_array(dtype, ndim, layout, out);
}

/* array(dtype, Nd, L) as numba prints array types. */
static cuplug_error *parse_array_call(parser *p, const cuplug_type **out) {
  const cuplug_type *dtype;
  CUPLUG__TRY(expect(p, '(', "'(' after 'array'"));
  CUPLUG__TRY(parse_type(p, &dtype));
  CUPLUG__TRY(expect(p, ',', "',' after the array's dtype"));
  skip_space(p);
  const char *s = p->text + p->pos;
  unsigned ndim = 0;
  size_t n = 0;
  while (isdigit((unsigned char)s[n]) && ndim < 1000) ndim = ndim * 10 + (unsigned)(s[n++] - '0');
  if (!n || s[n] != 'd') return syntax_error(p, "a rank such as '2d'");
  p->pos += n + 1;
  CUPLUG__TRY(expect(p, ',', "',' after the array's rank"));
  char l = peek(p);
  cuplug_layout layout;
  if (l == 'C')
    layout = CUPLUG_LAYOUT_C;
  else if (l == 'F')
    layout = CUPLUG_LAYOUT_F;
  else if (l == 'A')
    layout = CUPLUG_LAYOUT_ANY;
  else
    return syntax_error(p, "a layout 'C', 'F' or 'A'");
  p->pos++;
  CUPLUG__TRY(expect(p, ')', "')' closing array(...)"));
  return cuplug__type_array(dtype, ndim, layout, out);
}

/* readonly array(dtype, Nd, L): numba's name for an array the code only
 * reads, and the only way to write one. */
static cuplug_error *parse_readonly(parser *p, const cuplug_type **out) {
  skip_space(p);
  const char *s = p->text + p->pos;
  size_t n = ident_length(s);
  if (!word_is(s, n, "array")) return syntax_error(p, "'array(' after 'readonly'");
  p->pos += n;
  const cuplug_type *array;
  CUPLUG__TRY(parse_array_call(p, &array));
  return cuplug__type_array_readonly(array, true, out);
}

/* A decimal integer, optionally negative; `what` names it in messages. */
static cuplug_error *parse_integer(parser *p, const char *what, int64_t *out) {
  skip_space(p);
  const char *s = p->text + p->pos;
  size_t n = s[0] == '-' ? 1 : 0;
  if (!isdigit((unsigned char)s[n])) return syntax_error(p, what);
  uint64_t v = 0;
  for (; isdigit((unsigned char)s[n]); n++) {
    unsigned d = (unsigned)(s[n] - '0');
    if (v > (UINT64_C(9223372036854775808) - d) / 10)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "integer at position %zu of '%s' does not fit in int64", p->pos,
                           p->text);
    v = v * 10 + d;
  }
  if (s[0] != '-' && v > INT64_MAX)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "integer at position %zu of '%s' does not fit in int64", p->pos,
                         p->text);
  p->pos += n;
  *out = s[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
  return NULL;
}

/* UniTuple(T x N), UniTuple(T, N) or Tuple(T1, T2, ...). */
static cuplug_error *parse_tuple(parser *p, bool uniform, const cuplug_type **out) {
  const cuplug_type *elems[CUPLUG_MAX_ARGS];
  size_t n = 0;
  CUPLUG__TRY(expect(p, '(', uniform ? "'(' after 'UniTuple'" : "'(' after 'Tuple'"));
  if (uniform) {
    CUPLUG__TRY(parse_type(p, &elems[0]));
    char c = peek(p);
    if (c == 'x' && !isalnum((unsigned char)p->text[p->pos + 1]))
      p->pos++;
    else if (c == ',')
      p->pos++;
    else
      return syntax_error(p, "'x' or ',' and the tuple's length");
    int64_t count;
    size_t at = (skip_space(p), p->pos);
    CUPLUG__TRY(parse_integer(p, "the tuple's length", &count));
    if (count < 1 || count > 256)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "tuple length %lld at position %zu of '%s': 1 to 256",
                           (long long)count, at, p->text);
    for (n = 1; n < (size_t)count; n++) elems[n] = elems[0];
  } else if (peek(p) != ')') {
    for (;;) {
      if (n == sizeof elems / sizeof elems[0])
        return cuplug__error(CUPLUG_ERR_LIMIT, "a tuple in '%.64s...' has more than %d elements",
                             p->text, CUPLUG_MAX_ARGS);
      CUPLUG__TRY(parse_type(p, &elems[n++]));
      if (peek(p) != ',') break;
      p->pos++;
    }
  }
  CUPLUG__TRY(expect(p, ')', uniform ? "')' closing UniTuple(...)" : "',' or ')' in Tuple(...)"));
  return cuplug__type_tuple(elems, n, out);
}

static cuplug_error *parse_signature_rest(parser *p, const cuplug_type *restype,
                                          const cuplug_type **out);

/* CPointer(T), or CPointer(R(A, B)): a pointer to a function */
static cuplug_error *parse_pointer(parser *p, size_t start, const cuplug_type **out) {
  const cuplug_type *pointee;
  CUPLUG__TRY(expect(p, '(', "'(' after 'CPointer'"));
  CUPLUG__TRY(parse_type(p, &pointee));
  if (peek(p) == '(') CUPLUG__TRY(parse_signature_rest(p, pointee, &pointee));
  CUPLUG__TRY(expect(p, ')', "')' closing CPointer(...)"));
  cuplug_error *e = cuplug__type_pointer(pointee, out);
  if (e && e->code == CUPLUG_ERR_INVALID_TYPE) {
    cuplug__error_destroy(e);
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "invalid type at position %zu of '%s': a pointer must "
                         "point at a scalar, a pointer, a record, void or a signature, not %s",
                         start, p->text, pointee->name);
  }
  return e;
}

/* "text" with \" and \\ as its only escapes, into a new string. */
static cuplug_error *parse_string(parser *p, const char *what, char **out) {
  if (peek(p) != '"') return syntax_error(p, what);
  cuplug__buf b;
  cuplug__buf_init(&b);
  const char *s = p->text + p->pos + 1;
  size_t n = 0;
  for (; s[n] && s[n] != '"'; n++) {
    if (s[n] == '\\') {
      n++;
      if (s[n] != '"' && s[n] != '\\') {
        cuplug__buf_free(&b);
        p->pos += n + 1;
        return syntax_error(p, "'\\\"' or '\\\\' (the only escapes in a quoted name)");
      }
    }
    cuplug__buf_putc(&b, s[n]);
  }
  if (!s[n]) {
    cuplug__buf_free(&b);
    p->pos += n + 1;
    return syntax_error(p, "'\"' closing the quoted name");
  }
  p->pos += n + 2;
  *out = cuplug__buf_take(&b, NULL);
  return *out ? NULL : cuplug__error_oom();
}

/* A non-negative integer that fits in 32 bits. */
static cuplug_error *parse_u32(parser *p, const char *what, uint32_t *out) {
  size_t at = (skip_space(p), p->pos);
  int64_t v;
  CUPLUG__TRY(parse_integer(p, what, &v));
  if (v < 0 || v > UINT32_MAX)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "%s %lld at position %zu of '%s': 0 to %u", what, (long long)v, at,
                         p->text, UINT32_MAX);
  *out = (uint32_t)v;
  return NULL;
}

typedef struct fields {
  char *names[CUPLUG_MAX_ARGS];
  const cuplug_type *types[CUPLUG_MAX_ARGS];
  uint32_t offsets[CUPLUG_MAX_ARGS];
  size_t n;
  uint32_t size, align;
} fields;

/* name: type, into f; `what` is "a record" or "a struct", `expected`
 * what may stand instead of a name */
static cuplug_error *parse_member(parser *p, fields *f, const char *what,
                                  const char *expected) {
  if (f->n == CUPLUG_MAX_ARGS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "%s in '%.64s...' has more than %d fields", what,
                         p->text, CUPLUG_MAX_ARGS);
  char *name;
  if (peek(p) == '"') {
    CUPLUG__TRY(parse_string(p, "a field's name", &name));
  } else {
    size_t n = ident_length(p->text + p->pos);
    if (!n) return syntax_error(p, expected);
    name = malloc(n + 1);
    if (!name) return cuplug__error_oom();
    memcpy(name, p->text + p->pos, n);
    name[n] = '\0';
    p->pos += n;
  }
  f->names[f->n] = name;
  f->types[f->n] = NULL;
  f->offsets[f->n++] = 0;
  CUPLUG__TRY(expect(p, ':', "':' and the field's type"));
  return parse_type(p, &f->types[f->n - 1]);
}

/* name: type @ offset */
static cuplug_error *parse_field(parser *p, fields *f) {
  CUPLUG__TRY(parse_member(p, f, "a record", "a field's name, or 'size='"));
  CUPLUG__TRY(expect(p, '@', "'@' and the field's byte offset"));
  return parse_u32(p, "a field's offset", &f->offsets[f->n - 1]);
}

/* The fields, then size=N and align=N. */
static cuplug_error *parse_record_body(parser *p, fields *f) {
  CUPLUG__TRY(expect(p, '(', "'(' after 'Record'"));
  for (;;) {
    skip_space(p);
    const char *s = p->text + p->pos;
    size_t n = ident_length(s);
    size_t after = n;
    while (isspace((unsigned char)s[after])) after++;
    if (word_is(s, n, "size") && s[after] == '=') {
      p->pos += after + 1;
      CUPLUG__TRY(parse_u32(p, "a record's size", &f->size));
      break;
    }
    CUPLUG__TRY(parse_field(p, f));
    CUPLUG__TRY(expect(p, ',', "',' after a field"));
  }
  if (peek(p) == ',') {
    p->pos++;
    skip_space(p);
    const char *s = p->text + p->pos;
    size_t n = ident_length(s);
    if (!word_is(s, n, "align")) return syntax_error(p, "'align='");
    p->pos += n;
    CUPLUG__TRY(expect(p, '=', "'=' after 'align'"));
    CUPLUG__TRY(parse_u32(p, "a record's alignment", &f->align));
    if (!f->align)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "a record aligned to 0 bytes in '%s': an alignment is a power of two",
                           p->text);
  }
  return expect(p, ')', "')' closing Record(...)");
}

static cuplug_error *parse_record(parser *p, const cuplug_type **out) {
  fields *f = calloc(1, sizeof *f);
  if (!f) return cuplug__error_oom();
  cuplug_error *e = parse_record_body(p, f);
  if (!e)
    e = cuplug__type_record((const char *const *)f->names, f->types, f->offsets, f->n, f->size,
                            f->align, out);
  for (size_t i = 0; i < f->n; i++) free(f->names[i]);
  free(f);
  return e;
}

/* Struct(name: type, ...): members by value, at least one */
static cuplug_error *parse_struct_body(parser *p, fields *f) {
  CUPLUG__TRY(expect(p, '(', "'(' after 'Struct'"));
  if (peek(p) == ')') {
    p->pos++;
    return NULL; /* the builder says a struct has fields */
  }
  for (;;) {
    CUPLUG__TRY(parse_member(p, f, "a struct", "a field's name"));
    if (peek(p) != ',') break;
    p->pos++;
  }
  return expect(p, ')', "',' or ')' in Struct(...)");
}

static cuplug_error *parse_struct(parser *p, const cuplug_type **out) {
  fields *f = calloc(1, sizeof *f);
  if (!f) return cuplug__error_oom();
  cuplug_error *e = parse_struct_body(p, f);
  if (!e) e = cuplug__type_struct((const char *const *)f->names, f->types, f->n, out);
  for (size_t i = 0; i < f->n; i++) free(f->names[i]);
  free(f);
  return e;
}

static cuplug_error *parse_base(parser *p, const cuplug_type **out) {
  skip_space(p);
  size_t start = p->pos;
  const char *s = p->text + start;
  size_t n = ident_length(s);
  if (!n) return syntax_error(p, "a type");
  p->pos += n;
  if (word_is(s, n, "CPointer")) return parse_pointer(p, start, out);
  if (word_is(s, n, "Record")) return parse_record(p, out);
  if (word_is(s, n, "Struct")) return parse_struct(p, out);
  if (word_is(s, n, "Opaque") || word_is(s, n, "Omitted")) {
    bool opaque = word_is(s, n, "Opaque");
    char *text;
    CUPLUG__TRY(expect(p, '(', opaque ? "'(' after 'Opaque'" : "'(' after 'Omitted'"));
    CUPLUG__TRY(parse_string(p, "a double-quoted name", &text));
    cuplug_error *e = expect(p, ')', opaque ? "')' closing Opaque(...)" : "')' closing Omitted(...)");
    if (!e)
      e = cuplug__type_named(opaque ? CUPLUG_TYPE_OPAQUE : CUPLUG_TYPE_OMITTED, text, out);
    free(text);
    return e;
  }
  if (word_is(s, n, "array") && peek(p) == '(') return parse_array_call(p, out);
  if (word_is(s, n, "readonly")) return parse_readonly(p, out);
  if (word_is(s, n, "UniTuple") || word_is(s, n, "Tuple"))
    return parse_tuple(p, word_is(s, n, "UniTuple"), out);
  if (word_is(s, n, "Literal")) {
    CUPLUG__TRY(expect(p, '[', "'[' after 'Literal'"));
    skip_space(p);
    if (strncmp(p->text + p->pos, "int", 3) != 0 || ident_length(p->text + p->pos) != 3)
      return syntax_error(p, "'int' (the only literals are integers)");
    p->pos += 3;
    CUPLUG__TRY(expect(p, ']', "']' after 'Literal[int'"));
    CUPLUG__TRY(expect(p, '(', "'(' and the literal's value"));
    int64_t v;
    CUPLUG__TRY(parse_integer(p, "an integer", &v));
    CUPLUG__TRY(expect(p, ')', "')' closing Literal[int](...)"));
    return cuplug__type_int_literal(v, out);
  }
  if (word_is(s, n, "class")) {
    const cuplug_type *dtype;
    CUPLUG__TRY(expect(p, '(', "'(' after 'class'"));
    size_t at = (skip_space(p), p->pos);
    CUPLUG__TRY(parse_type(p, &dtype));
    CUPLUG__TRY(expect(p, ')', "')' closing class(...)"));
    if (!cuplug__type_is_scalar_value(dtype))
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "invalid type at position %zu of '%s': a number class is of bool, "
                           "an integer, a float or a complex, not %s",
                           at, p->text, dtype->name);
    return cuplug__type_number_class(dtype, out);
  }
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (word_is(s, n, names[i].name)) {
      *out = cuplug__type_scalar(names[i].kind);
      return *out ? NULL : cuplug__error_oom();
    }
  }
  return cuplug__error(CUPLUG_ERR_UNKNOWN_TYPE,
                       "unknown type '%.*s' at position %zu of '%s'", (int)n, s,
                       start, p->text);
}

static cuplug_error *parse_type(parser *p, const cuplug_type **out) {
  const cuplug_type *t;
  size_t start = (skip_space(p), p->pos);
  if (p->depth > CUPLUG__MAX_TYPE_DEPTH) /* the innermost name is a level of its own */
    return cuplug__error(CUPLUG_ERR_LIMIT,
                         "the type at position %zu of '%.64s...' nests more than %d deep", start,
                         p->text, CUPLUG__MAX_TYPE_DEPTH);
  p->depth++;
  cuplug_error *e = parse_base(p, &t);
  p->depth--;
  if (e) return e;
  for (;;) {
    char c = peek(p);
    if (c == '*') {
      p->pos++;
      cuplug_error *e = cuplug__type_pointer(t, &t);
      if (e && e->code == CUPLUG_ERR_INVALID_TYPE) {
        cuplug__error_destroy(e);
        return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                             "invalid type at position %zu of '%s': a pointer must "
                             "point at a scalar, a pointer, a record or void",
                             start, p->text);
      }
      CUPLUG__TRY(e);
    } else if (c == '[') {
      if (!cuplug__type_is_array_dtype(t))
        return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                             "invalid type at position %zu of '%s': an array's dtype must be "
                             "bool, an integer, a float, a complex, a record or a tuple of "
                             "them, not %s",
                             start, p->text, t->name);
      CUPLUG__TRY(parse_dims(p, t, &t));
    } else {
      break;
    }
  }
  *out = t;
  return NULL;
}

static cuplug_error *parse_signature_rest(parser *p, const cuplug_type *restype,
                                          const cuplug_type **out) {
  const cuplug_type *args[CUPLUG_MAX_ARGS];
  size_t nargs = 0;
  p->pos++; /* '(' */
  if (peek(p) == ')') {
    p->pos++;
  } else {
    for (;;) {
      if (nargs == CUPLUG_MAX_ARGS)
        return cuplug__error(CUPLUG_ERR_LIMIT, "signature '%.64s...' has more than %d arguments",
                             p->text, CUPLUG_MAX_ARGS);
      size_t at = (skip_space(p), p->pos);
      CUPLUG__TRY(parse_type(p, &args[nargs]));
      if (args[nargs]->kind == CUPLUG_TYPE_VOID)
        return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                             "invalid type at position %zu of '%s': an argument "
                             "cannot be void",
                             at, p->text);
      nargs++;
      char c = peek(p);
      if (c == ',') {
        p->pos++;
        continue;
      }
      if (c == ')') {
        p->pos++;
        break;
      }
      return syntax_error(p, "',' or ')' in the argument list");
    }
  }
  return cuplug__type_signature(restype, args, nargs, out);
}

cuplug_error *cuplug__type_parse(const char *text, const cuplug_type **out) {
  if (!text || !out)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_parse: NULL argument");
  parser p = {text, 0, 0};
  const cuplug_type *t;
  CUPLUG__TRY(parse_type(&p, &t));
  if (peek(&p) == '(') CUPLUG__TRY(parse_signature_rest(&p, t, &t));
  if (peek(&p) != '\0') return syntax_error(&p, "the end of the text");
  *out = t;
  return NULL;
}

/* A host compiles under the same signature again and again: each thread
 * keeps the last one it read.  Types are interned for the library's life,
 * so the pointer stays good. */
static _Thread_local struct {
  char text[120];
  const cuplug_type *type;
} last_signature;

cuplug_error *cuplug__signature_parse(const char *text, const cuplug_type **out) {
  if (text && out && last_signature.type && strcmp(text, last_signature.text) == 0) {
    *out = last_signature.type;
    return NULL;
  }
  const cuplug_type *t;
  CUPLUG__TRY(cuplug__type_parse(text, &t));
  if (t->kind != CUPLUG_TYPE_SIGNATURE) {
    parser p = {text, strlen(text), 0};
    return syntax_error(&p, "'(' and an argument list (a signature)");
  }
  size_t n = strlen(text);
  if (n < sizeof last_signature.text) {
    memcpy(last_signature.text, text, n + 1);
    last_signature.type = t;
  }
  *out = t;
  return NULL;
}
