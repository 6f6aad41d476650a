/* minijit.c - a tiny expression language, JIT-compiled for the GPU through
 * cuplug's registry.
 *
 * A host front end's whole use of cuplug, in one file:
 *   1. parse a kernel written in the little language below;
 *   2. type it: arithmetic by minijit's own rule, every call through
 *      api->resolve_call, which answers with a signature, a symbol and an
 *      ABI -- for cuplug's built-in CUDA library (math.*, cuda.*) and for a
 *      function minijit registers itself (minijit.clamp);
 *   3. emit NVVM IR (LLVM 7's dialect, which libNVVM reads): convert each
 *      argument to the signature's type, call the symbol, declare it;
 *   4. compile it to a cubin, into which cuplug has inlined every callee;
 *   5. on a GPU, launch it over a million elements and check every one
 *      against the same program evaluated here, in C; without one, compile
 *      it for this CPU (CUPLUG_OUTPUT_HOST) and do the same there.
 *
 * The language
 *     kernel saxpy_sin(out: float32[:], x: float32[:], y: float32[:], a: float32)
 *       out[i] = a * sin(x[i]) + y[i]
 *   - Parameters are int32, int64, float32, float64 or 1-d arrays of them
 *     (`float32[:]`, passed C-contiguous).  All arrays have one length.
 *   - Statements `name[i] = expr` run in order in each thread.  `i` is the
 *     thread's global index, cuda.grid(1); where i >= len(name) the
 *     statement does nothing.  `#` starts a comment.
 *   - Expressions: + - * /, unary -, ( ), literals (2 is int64, 2.0 is
 *     float64, as in numba), scalar parameters, i, x[i], and calls: `sin(e)`
 *     calls the key "math.sin"; a dotted name (`cuda.fma`) is the key itself.
 *     An integer literal passed to a call is typed Literal[int](n), as numba
 *     types a constant.
 *   - Arithmetic promotes as numba does for these four types: equal types
 *     stay; two ints or two floats give the wider; an int with a float gives
 *     float64 (an int32 does not fit in a float32).  `/` is true division:
 *     int / int is float64.  A store converts to the array's type, but never
 *     a float to an int.
 *
 *   minijit [--no-gpu | --gpu-only] [--ptx] [FILE...]
 * With no FILE, the example above.  It prints the IR it emits and what each
 * call resolved to, and whether the PTX still calls it (--ptx: all the PTX).
 * Exit 0; 1 on an error or a wrong element; 77 for --gpu-only without a GPU. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SAMPLE_NAME "minijit"
#include "common/sample.h"

static const char example[] =
    "kernel saxpy_sin(out: float32[:], x: float32[:], y: float32[:], a: float32)\n"
    "  out[i] = a * sin(x[i]) + y[i]\n";

/* ---- types ---------------------------------------------------------- */

typedef enum { I32, I64, F32, F64 } ty;
static const struct {
  const char *name, *ir;
  cuplug_type_kind kind;
  size_t size;
} tys[] = {{"int32", "i32", CUPLUG_TYPE_INT32, 4},
           {"int64", "i64", CUPLUG_TYPE_INT64, 8},
           {"float32", "float", CUPLUG_TYPE_FLOAT32, 4},
           {"float64", "double", CUPLUG_TYPE_FLOAT64, 8}};
#define IS_FLOAT(t) ((t) >= F32)

static ty promote(ty a, ty b) {
  if (IS_FLOAT(a) != IS_FLOAT(b)) return F64;
  return a > b ? a : b; /* the wider of two ints, or of two floats */
}

/* cuplug's types are interned: equal types are the same pointer. */
static bool ty_of(const cuplug_type *t, ty *out) {
  for (ty k = I32; k <= F64; k++)
    if (t == api->type_scalar(tys[k].kind)) return *out = k, true;
  return false;
}

static const char *type_name(const cuplug_type *t) {
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  cuplug_error *e = api->type_info(&i);
  api->error_destroy(e);
  return e ? "?" : i.name; /* the name lives as long as the plugin */
}

/* ---- the program ---------------------------------------------------- */

typedef struct { ty t; int64_t i; double f; } val; /* a value on the host */

typedef struct param {
  char name[64];
  ty t;
  bool array, written;
  const cuplug_type *type; /* float32, or float32[::1] */
  /* in the run on the GPU */
  val value; /* a scalar's */
  union { int32_t i32; int64_t i64; float f32; double f64; } c; /* ... as launch reads it */
  void *host, *got; /* an array's elements: inputs, then the host's and the GPU's results */
  uint64_t dev;
} param;

typedef enum { N_INT, N_FLOAT, N_I, N_SCALAR, N_LOAD, N_NEG, N_BIN, N_CALL } nkind;

typedef struct node {
  nkind kind;
  int line, col;
  ty t;                /* the value's type */
  int64_t ival;        /* N_INT */
  double fval;         /* N_FLOAT */
  param *p;            /* N_SCALAR, N_LOAD */
  char op;             /* N_BIN: + - * /, its operands converted to t */
  struct node *arg[8]; /* N_NEG: 1, N_BIN: 2, N_CALL: nargs */
  int nargs;
  /* N_CALL: the key, and what resolve_call answered */
  char key[72], text[160]; /* text: "math.sin(float32)" */
  const cuplug_type *sig;
  ty argt[8];
  const char *symbol;
  cuplug_abi abi;
  const char *declaration; /* "declare float @sym(float)", for the IR */
} node;

typedef enum { T_EOF, T_NAME, T_INT, T_FLOAT, T_PUNCT } tokkind;
typedef struct {
  tokkind kind;
  char text[64];
  int64_t ival;
  double fval;
  int line, col;
} token;

typedef struct { char *p; size_t n, cap; } buf;
typedef struct { char s[80]; } opnd; /* an IR operand: %t7, 2, %"a" */

typedef struct jit {
  const char *file, *src;
  size_t pos;
  int line, col;
  token tok;
  jmp_buf bail; /* a language error unwinds to front_end(), as Lua's parser does */
  char err[1024];
  cuplug_registry *reg;
  char name[64];
  param params[16];
  int nparams;
  struct { param *target; node *value; } stmts[32];
  int nstmts;
  node pool[512];
  int nnodes;
  node *grid;            /* cuda.grid(1): i */
  const char *unchecked; /* a call the host cannot evaluate, if any */
  /* the emitter's */
  opnd index;
  int ntmp;
  buf allocas, body, ir;
  const node *calls[64]; /* one per symbol, to declare */
  int ncalls;
  const char *sig; /* the kernel's */
} jit;

static _Noreturn void fail(jit *j, int line, int col, const char *fmt, ...) {
  int n = snprintf(j->err, sizeof j->err, "%s:%d:%d: ", j->file, line, col);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(j->err + n, sizeof j->err - (size_t)n, fmt, ap);
  va_end(ap);
  longjmp(j->bail, 1);
}

/* A cuplug error becomes a language error at line:col, in cuplug's words. */
static void check(jit *j, int line, int col, cuplug_error *e) {
  if (!e) return;
  char msg[900];
  snprintf(msg, sizeof msg, "%s: %s", api->status_name(api->error_code(e)), api->error_message(e));
  api->error_destroy(e);
  fail(j, line, col, "%s", msg);
}

/* ---- lexer ---------------------------------------------------------- */

static char peekc(const jit *j) { return j->src[j->pos]; }
static bool digit(char c) { return isdigit((unsigned char)c); }
static bool alpha(char c) { return isalpha((unsigned char)c) || c == '_'; }

static void advance(jit *j) {
  if (j->src[j->pos++] == '\n') j->line++, j->col = 1;
  else j->col++;
}

static void next(jit *j) {
  for (;; advance(j)) { /* blanks, and # comments to the end of the line */
    while (peekc(j) == '#') while (peekc(j) && peekc(j) != '\n') advance(j);
    if (!isspace((unsigned char)peekc(j))) break;
  }
  token *t = &j->tok;
  *t = (token){.line = j->line, .col = j->col};
  const char *s = j->src + j->pos;
  size_t n = 0;
  if (!*s) return; /* T_EOF */
  if (alpha(*s)) { /* a name; dots inside make a key: cuda.fma */
    t->kind = T_NAME;
    while (alpha(s[n]) || digit(s[n]) || (s[n] == '.' && alpha(s[n + 1]))) n++;
  } else if (digit(*s) || (*s == '.' && digit(s[1]))) {
    t->kind = T_INT;
    while (digit(s[n])) n++;
    if (s[n] == '.') for (t->kind = T_FLOAT, n++; digit(s[n]);) n++;
    if ((s[n] == 'e' || s[n] == 'E') &&
        (digit(s[n + 1]) || ((s[n + 1] == '+' || s[n + 1] == '-') && digit(s[n + 2]))))
      for (t->kind = T_FLOAT, n += 2; digit(s[n]);) n++;
  } else if (strchr("()[],:=+-*/", *s)) {
    t->kind = T_PUNCT;
    n = 1;
  } else {
    fail(j, t->line, t->col, "unexpected character '%c'", *s);
  }
  if (n >= sizeof t->text) fail(j, t->line, t->col, "'%.16s...' is too long", s);
  memcpy(t->text, s, n);
  t->text[n] = '\0';
  errno = 0;
  if (t->kind == T_INT) t->ival = strtoll(t->text, NULL, 10);
  if (t->kind == T_FLOAT) t->fval = strtod(t->text, NULL);
  if (errno) fail(j, t->line, t->col, "%s is out of range", t->text);
  while (n--) advance(j);
}

static bool is(const jit *j, char c) { return j->tok.kind == T_PUNCT && j->tok.text[0] == c; }

static bool accept(jit *j, char c) {
  if (!is(j, c)) return false;
  next(j);
  return true;
}

static _Noreturn void expected(jit *j, const char *what) {
  const token *t = &j->tok;
  fail(j, t->line, t->col, "expected %s, found %s%s%s", what, t->kind ? "'" : "the end",
       t->text, t->kind ? "'" : "");
}

static void expect(jit *j, char c) {
  char what[4] = {'\'', c, '\'', '\0'};
  if (!accept(j, c)) expected(j, what);
}

/* ---- parser and typer: each node is typed as it is built ----------- */

static node *new_node(jit *j, nkind kind, ty t, const token *at) {
  if (j->nnodes == (int)(sizeof j->pool / sizeof j->pool[0]))
    fail(j, at->line, at->col, "the kernel is too long for minijit");
  node *n = &j->pool[j->nnodes++];
  *n = (node){.kind = kind, .t = t, .line = at->line, .col = at->col};
  return n;
}

static param *lookup(jit *j, const token *t) {
  for (int k = 0; k < j->nparams; k++)
    if (strcmp(j->params[k].name, t->text) == 0) return &j->params[k];
  fail(j, t->line, t->col, "unknown name '%s'", t->text);
}

static void index_i(jit *j) {
  expect(j, '[');
  if (j->tok.kind != T_NAME || strcmp(j->tok.text, "i") != 0)
    expected(j, "'i' (arrays are indexed by the thread's index only)");
  next(j);
  expect(j, ']');
}

static const struct hostfn *host_fn(const char *key, int nargs);

/* The heart of it: how does the call type, and what is to be called? */
static void resolve(jit *j, node *n) {
  const cuplug_type *argtypes[8];
  int k = snprintf(n->text, sizeof n->text, "%s(", n->key);
  for (int a = 0; a < n->nargs; a++) {
    if (n->arg[a]->kind == N_INT)
      check(j, n->line, n->col, api->type_int_literal(n->arg[a]->ival, &argtypes[a]));
    else
      argtypes[a] = api->type_scalar(tys[n->arg[a]->t].kind);
    k += snprintf(n->text + k, sizeof n->text - (size_t)k, "%s%s", a ? ", " : "",
                  type_name(argtypes[a]));
  }
  snprintf(n->text + k, sizeof n->text - (size_t)k, ")");
  cuplug_resolve_args r = {.struct_size = sizeof r, .registry = j->reg, .key = n->key,
                           .argtypes = argtypes, .nargs = (size_t)n->nargs};
  check(j, n->line, n->col, api->resolve_call(&r));
  cuplug_type_info si = {.struct_size = sizeof si, .type = r.signature};
  check(j, n->line, n->col, api->type_info(&si));
  if (!ty_of(si.restype, &n->t))
    fail(j, n->line, n->col, "%s returns %s, which minijit has no arithmetic for", n->text,
         type_name(si.restype));
  for (int a = 0; a < n->nargs; a++)
    if (!ty_of(si.args[a], &n->argt[a]))
      fail(j, n->line, n->col, "%s types as %s, whose %s minijit cannot pass", n->text, si.name,
           type_name(si.args[a]));
  n->sig = r.signature;
  n->symbol = r.symbol; /* these live as long as the registry */
  n->abi = r.abi;
  n->declaration = r.declaration;
  if (!host_fn(n->key, n->nargs)) j->unchecked = n->key;
}

static node *expr(jit *j);

static node *call(jit *j, const token *name) {
  node *n = new_node(j, N_CALL, I64, name);
  snprintf(n->key, sizeof n->key, "%s%s", strchr(name->text, '.') ? "" : "math.", name->text);
  expect(j, '(');
  if (!is(j, ')')) do {
      if (n->nargs == 8) fail(j, n->line, n->col, "%s: too many arguments", n->key);
      n->arg[n->nargs++] = expr(j);
    } while (accept(j, ','));
  expect(j, ')');
  resolve(j, n);
  return n;
}

static node *primary(jit *j) {
  token t = j->tok;
  if (accept(j, '(')) {
    node *n = expr(j);
    expect(j, ')');
    return n;
  }
  if (t.kind == T_INT || t.kind == T_FLOAT) {
    next(j);
    node *n = new_node(j, t.kind == T_INT ? N_INT : N_FLOAT, t.kind == T_INT ? I64 : F64, &t);
    n->ival = t.ival;
    n->fval = t.fval;
    return n;
  }
  if (t.kind != T_NAME) expected(j, "an expression");
  next(j);
  if (is(j, '(')) return call(j, &t);
  if (strcmp(t.text, "i") == 0) return new_node(j, N_I, I64, &t);
  param *p = lookup(j, &t);
  if (p->array != is(j, '['))
    fail(j, t.line, t.col, p->array ? "'%s' is an array: read it as %s[i]" : "'%s' is a scalar",
         t.text, t.text);
  if (p->array) index_i(j);
  node *n = new_node(j, p->array ? N_LOAD : N_SCALAR, p->t, &t);
  n->p = p;
  return n;
}

static node *unary(jit *j) {
  token t = j->tok;
  if (!accept(j, '-')) return primary(j);
  node *a = unary(j), *n = new_node(j, N_NEG, a->t, &t);
  n->arg[n->nargs++] = a;
  return n;
}

static node *binary(jit *j, const token *op, node *a, node *b) {
  ty t = promote(a->t, b->t);
  if (op->text[0] == '/' && !IS_FLOAT(t)) t = F64; /* true division */
  node *n = new_node(j, N_BIN, t, op);
  n->op = op->text[0];
  n->arg[0] = a;
  n->arg[1] = b;
  n->nargs = 2;
  return n;
}

static node *term(jit *j) {
  node *n = unary(j);
  for (token op; op = j->tok, accept(j, '*') || accept(j, '/');) n = binary(j, &op, n, unary(j));
  return n;
}

static node *expr(jit *j) {
  node *n = term(j);
  for (token op; op = j->tok, accept(j, '+') || accept(j, '-');) n = binary(j, &op, n, term(j));
  return n;
}

/* name: TYPE -- the type in numba's syntax, so cuplug parses it. */
static void parameter(jit *j) {
  token t = j->tok;
  if (t.kind != T_NAME || strchr(t.text, '.')) expected(j, "a parameter name");
  if (strcmp(t.text, "i") == 0) fail(j, t.line, t.col, "'i' is the thread's index");
  for (int k = 0; k < j->nparams; k++)
    if (strcmp(j->params[k].name, t.text) == 0) fail(j, t.line, t.col, "'%s' twice", t.text);
  if (j->nparams == 16) fail(j, t.line, t.col, "more than 16 parameters");
  next(j);
  if (!is(j, ':')) expected(j, "':' and a type");
  while (peekc(j) == ' ' || peekc(j) == '\t') advance(j);
  int line = j->line, col = j->col, depth = 0;
  size_t start = j->pos, len;
  for (char c; (c = peekc(j)) && c != '\n' && (depth || (c != ',' && c != ')')); advance(j))
    depth += (c == '[') - (c == ']');
  for (len = j->pos - start; len && isspace((unsigned char)j->src[start + len - 1]);) len--;
  char text[64];
  snprintf(text, sizeof text, "%.*s", (int)len, j->src + start);
  param *p = &j->params[j->nparams++];
  snprintf(p->name, sizeof p->name, "%s", t.text);
  check(j, line, col, api->type_parse(text, &p->type));
  cuplug_type_info ti = {.struct_size = sizeof ti, .type = p->type};
  check(j, line, col, api->type_info(&ti));
  p->array = ti.kind == CUPLUG_TYPE_ARRAY;
  if ((p->array && ti.ndim != 1) || !ty_of(p->array ? ti.element : p->type, &p->t))
    fail(j, line, col, "%s: minijit takes int32, int64, float32, float64 and 1-d arrays of them",
         text);
  if (p->array) /* minijit indexes data[i]: its kernels take C-contiguous arrays */
    check(j, line, col, api->type_array(ti.element, 1, CUPLUG_LAYOUT_C, &p->type));
  next(j);
}

static void statement(jit *j) {
  token t = j->tok;
  if (t.kind != T_NAME) expected(j, "a statement 'name[i] = expression'");
  param *p = lookup(j, &t);
  if (!p->array) fail(j, t.line, t.col, "'%s' is a scalar: only arrays are assigned", t.text);
  next(j);
  index_i(j);
  token eq = j->tok;
  expect(j, '=');
  node *v = expr(j);
  if (IS_FLOAT(v->t) && !IS_FLOAT(p->t))
    fail(j, eq.line, eq.col, "storing a %s in %s, an array of %s: minijit never converts a "
         "float to an int", tys[v->t].name, p->name, tys[p->t].name);
  if (j->nstmts == 32) fail(j, t.line, t.col, "more than 32 statements");
  p->written = true;
  j->stmts[j->nstmts].target = p;
  j->stmts[j->nstmts++].value = v;
}

static void program(jit *j) {
  next(j);
  if (j->tok.kind != T_NAME || strcmp(j->tok.text, "kernel") != 0) expected(j, "'kernel'");
  next(j);
  if (j->tok.kind != T_NAME || strchr(j->tok.text, '.')) expected(j, "the kernel's name");
  snprintf(j->name, sizeof j->name, "%s", j->tok.text);
  next(j);
  expect(j, '(');
  do parameter(j);
  while (accept(j, ','));
  expect(j, ')');
  /* i = cuda.grid(1), typed through the registry like any call: the
   * dimension count must be a constant, so it goes as Literal[int](1). */
  token at = j->tok;
  j->grid = new_node(j, N_CALL, I64, &at);
  snprintf(j->grid->key, sizeof j->grid->key, "cuda.grid");
  j->grid->arg[j->grid->nargs++] = new_node(j, N_INT, I64, &at);
  j->grid->arg[0]->ival = 1;
  resolve(j, j->grid);
  if (j->grid->t != I64) fail(j, at.line, at.col, "cuda.grid(1) is not an int64");
  do statement(j);
  while (j->tok.kind != T_EOF);
}

/* ---- emitter: NVVM IR, with LLVM 7's typed pointers ------------------ */

static void put(buf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p ? b->p + b->n : NULL, b->cap - b->n, fmt, ap);
    va_end(ap);
    if (b->n + (size_t)k < b->cap) {
      b->n += (size_t)k;
      return;
    }
    b->cap = 2 * (b->n + (size_t)k + 1);
    if (!(b->p = realloc(b->p, b->cap))) abort();
  }
}

static opnd tmp(jit *j) {
  opnd o;
  snprintf(o.s, sizeof o.s, "%%t%d", j->ntmp++);
  return o;
}

static opnd convert(jit *j, opnd v, ty from, ty to) {
  static const char *const how[4][4] = {
      /* to:        int32     int64     float32    float64 */
      /* int32 */ {NULL, "sext", "sitofp", "sitofp"},
      /* int64 */ {"trunc", NULL, "sitofp", "sitofp"},
      /* float32 */ {"fptosi", "fptosi", NULL, "fpext"},
      /* float64 */ {"fptosi", "fptosi", "fptrunc", NULL}};
  if (from == to) return v;
  opnd r = tmp(j);
  put(&j->body, "  %s = %s %s %s to %s\n", r.s, how[from][to], tys[from].ir, v.s, tys[to].ir);
  return r;
}

static opnd emit(jit *j, const node *n);

/* A call under the ABI resolve_call gave: the C ABI's `R sym(args)`, or
 * numba's `i32 sym(R *ret, args)`, the result through a slot.  Its result
 * is `name`, or a new temporary. */
static opnd emit_call(jit *j, const node *n, const char *name) {
  buf args = {0};
  opnd slot, r;
  const char *rt = tys[n->t].ir;
  if (n->abi == CUPLUG_ABI_NUMBA) {
    slot = tmp(j);
    put(&j->allocas, "  %s = alloca %s\n", slot.s, rt);
    put(&args, "%s* %s", rt, slot.s);
  }
  for (int k = 0; k < n->nargs; k++) {
    opnd v = convert(j, emit(j, n->arg[k]), n->arg[k]->t, n->argt[k]);
    put(&args, "%s%s %s", args.n ? ", " : "", tys[n->argt[k]].ir, v.s);
  }
  if (name) snprintf(r.s, sizeof r.s, "%s", name);
  else r = tmp(j);
  if (n->abi == CUPLUG_ABI_NUMBA) { /* the status: 0, as minijit's callees never raise */
    put(&j->body, "  %s.status = call i32 @\"%s\"(%s)\n", r.s, n->symbol, args.p);
    put(&j->body, "  %s = load %s, %s* %s\n", r.s, rt, rt, slot.s);
  } else {
    put(&j->body, "  %s = call %s @\"%s\"(%s)\n", r.s, rt, n->symbol, args.p ? args.p : "");
  }
  free(args.p);
  int k = 0;
  while (k < j->ncalls && strcmp(j->calls[k]->symbol, n->symbol) != 0) k++;
  if (k == j->ncalls && k < (int)(sizeof j->calls / sizeof j->calls[0])) j->calls[j->ncalls++] = n;
  return r;
}

static opnd emit(jit *j, const node *n) {
  static const char ops[] = "+-*/", *const iops[] = {"add", "sub", "mul"},
                    *const fops[] = {"fadd", "fsub", "fmul", "fdiv"};
  const char *ir = tys[n->t].ir;
  opnd r = {""}, a, b;
  switch (n->kind) {
  case N_INT:
    snprintf(r.s, sizeof r.s, "%" PRId64, n->ival);
    return r;
  case N_FLOAT: { /* LLVM writes a double exactly as its bits */
    uint64_t bits;
    memcpy(&bits, &n->fval, sizeof bits);
    snprintf(r.s, sizeof r.s, "0x%016" PRIX64, bits);
    return r;
  }
  case N_I:
    return j->index;
  case N_SCALAR:
    snprintf(r.s, sizeof r.s, "%%\"%s\"", n->p->name);
    return r;
  case N_LOAD: /* x[i]: data, the flattened array's fifth part, at i */
    a = tmp(j), r = tmp(j);
    put(&j->body, "  %s = getelementptr %s, %s* %%\"%s.4\", i64 %s\n", a.s, ir, ir, n->p->name,
        j->index.s);
    put(&j->body, "  %s = load %s, %s* %s\n", r.s, ir, ir, a.s);
    return r;
  case N_NEG: /* LLVM 7 has no fneg */
    a = emit(j, n->arg[0]), r = tmp(j);
    put(&j->body, "  %s = %s %s %s, %s\n", r.s, IS_FLOAT(n->t) ? "fsub" : "sub", ir,
        IS_FLOAT(n->t) ? "-0.0" : "0", a.s);
    return r;
  case N_BIN:
    a = convert(j, emit(j, n->arg[0]), n->arg[0]->t, n->t);
    b = convert(j, emit(j, n->arg[1]), n->arg[1]->t, n->t);
    r = tmp(j);
    put(&j->body, "  %s = %s %s %s, %s\n", r.s,
        (IS_FLOAT(n->t) ? fops : iops)[strchr(ops, n->op) - ops], ir, a.s, b.s);
    return r;
  case N_CALL:
    return emit_call(j, n, NULL);
  }
  return r;
}

/* The kernel, under the C ABI: `define void @name(flattened args...)`. */
static void emit_kernel(jit *j) {
  const cuplug_type *argtypes[16];
  put(&j->ir, "define void @\"%s\"(", j->name);
  for (int k = 0; k < j->nparams; k++) {
    param *p = &j->params[k];
    /* cuplug's data model: an array is meminfo, parent, nitems, itemsize,
     * data, shape, strides; a scalar itself */
    cuplug_type_lower_args l = {.struct_size = sizeof l, .type = p->type, .abi = CUPLUG_ABI_C};
    check(j, 1, 1, api->type_lower(&l));
    for (size_t part = 0; part < l.num_parts; part++) {
      put(&j->ir, "%s%s %%\"%s", k || part ? ", " : "", l.parts[part], p->name);
      put(&j->ir, p->array ? ".%zu\"" : "\"", part);
    }
    argtypes[k] = p->type;
  }
  const cuplug_type *sig;
  check(j, 1, 1, api->type_signature(api->type_scalar(CUPLUG_TYPE_VOID), argtypes,
                                     (size_t)j->nparams, &sig));
  j->sig = type_name(sig);

  j->index = emit_call(j, j->grid, "%i");
  put(&j->body, "  br label %%s0\n");
  for (int k = 0; k < j->nstmts; k++) { /* if (i < len(target)) target[i] = value */
    param *t = j->stmts[k].target;
    node *v = j->stmts[k].value;
    const char *ir = tys[t->t].ir;
    put(&j->body, "s%d:\n  %%in%d = icmp slt i64 %s, %%\"%s.5\"\n", k, k, j->index.s, t->name);
    put(&j->body, "  br i1 %%in%d, label %%body%d, label %%s%d\nbody%d:\n", k, k, k + 1, k);
    opnd x = convert(j, emit(j, v), v->t, t->t), p = tmp(j);
    put(&j->body, "  %s = getelementptr %s, %s* %%\"%s.4\", i64 %s\n", p.s, ir, ir, t->name,
        j->index.s);
    put(&j->body, "  store %s %s, %s* %s\n  br label %%s%d\n", ir, x.s, ir, p.s, k + 1);
  }
  put(&j->ir, ") {\nentry:\n%s%ss%d:\n  ret void\n}\n\n", j->allocas.p ? j->allocas.p : "",
      j->body.p, j->nstmts);
  /* each callee's declaration, as resolve_call wrote it */
  for (int k = 0; k < j->ncalls; k++) put(&j->ir, "%s\n", j->calls[k]->declaration);
}

/* The language's half of the work: text to IR (j->ir), or an error (j->err). */
static bool front_end(jit *j) {
  if (setjmp(j->bail)) return false;
  program(j);
  emit_kernel(j);
  return true;
}

/* ---- the host's reference: the same program, evaluated in C ---------- */

static double clamp(double x, double lo, double hi) { return x < lo ? lo : x > hi ? hi : x; }

/* Each computed in double: a float32 function's result is the exact one,
 * rounded, which the GPU's is within an ulp or two of. */
#define M1(f) {"math." #f, 1, .d1 = f}
#define M2(f) {"math." #f, 2, .d2 = f}
static const struct hostfn {
  const char *key;
  int nargs;
  double (*d1)(double);
  double (*d2)(double, double);
  double (*d3)(double, double, double);
} hostfns[] = {M1(sin), M1(cos), M1(tan), M1(asin), M1(acos), M1(atan), M1(sinh), M1(cosh),
               M1(tanh), M1(asinh), M1(acosh), M1(atanh), M1(exp), M1(exp2), M1(expm1),
               M1(log), M1(log2), M1(log10), M1(log1p), M1(sqrt), M1(fabs), M1(floor),
               M1(ceil), M1(trunc), M1(erf), M1(erfc), M1(lgamma), {"math.gamma", 1, .d1 = tgamma},
               M2(pow), M2(atan2), M2(hypot), M2(fmod), M2(copysign),
               {"cuda.fma", 3, .d3 = fma}, {"minijit.clamp", 3, .d3 = clamp},
               {"cuda.grid", 1, .d1 = NULL}}; /* i itself */

static const struct hostfn *host_fn(const char *key, int nargs) {
  for (size_t k = 0; k < sizeof hostfns / sizeof hostfns[0]; k++)
    if (strcmp(hostfns[k].key, key) == 0 && hostfns[k].nargs == nargs) return &hostfns[k];
  return NULL;
}

/* A value as the GPU holds it: an int32 wraps, a float32 is rounded. */
static val make(ty t, int64_t i, double f) {
  if (t == I32) return (val){t, (int32_t)i, 0};
  return t == F32 ? (val){t, 0, (float)f} : (val){t, i, f};
}

/* What sext, trunc, sitofp, fpext, fptrunc and fptosi do. */
static val cast(val v, ty to) {
  if (!IS_FLOAT(to)) return make(to, IS_FLOAT(v.t) ? (int64_t)v.f : v.i, 0);
  return make(to, 0, IS_FLOAT(v.t) ? v.f : to == F32 ? (float)v.i : (double)v.i);
}

/* a op b, both of a's type.  float32 is done in double and rounded, which
 * gives the float32 operation's own result for + - * /. */
static val arith(char op, val a, val b) {
  if (IS_FLOAT(a.t))
    return make(a.t, 0, op == '+' ? a.f + b.f : op == '-' ? a.f - b.f : op == '*' ? a.f * b.f
                                                                                : a.f / b.f);
  uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i; /* wraps, as the GPU's add and mul do */
  return make(a.t, (int64_t)(op == '+' ? x + y : op == '-' ? x - y : x * y), 0);
}

static val load(ty t, const void *data, size_t i) {
  switch (t) {
  case I32: return make(t, ((const int32_t *)data)[i], 0);
  case I64: return make(t, ((const int64_t *)data)[i], 0);
  case F32: return make(t, 0, ((const float *)data)[i]);
  default: return make(t, 0, ((const double *)data)[i]);
  }
}

static void store(ty t, void *data, size_t i, val v) {
  v = cast(v, t);
  switch (t) {
  case I32: ((int32_t *)data)[i] = (int32_t)v.i; break;
  case I64: ((int64_t *)data)[i] = v.i; break;
  case F32: ((float *)data)[i] = (float)v.f; break;
  case F64: ((double *)data)[i] = v.f; break;
  }
}

static val eval(const node *n, size_t i) {
  switch (n->kind) {
  case N_INT: return make(I64, n->ival, 0);
  case N_FLOAT: return make(F64, 0, n->fval);
  case N_I: return make(I64, (int64_t)i, 0);
  case N_SCALAR: return n->p->value;
  case N_LOAD: return load(n->t, n->p->host, i);
  case N_NEG: {
    val a = eval(n->arg[0], i);
    return IS_FLOAT(a.t) ? make(a.t, 0, -a.f) : arith('-', make(a.t, 0, 0), a);
  }
  case N_BIN: return arith(n->op, cast(eval(n->arg[0], i), n->t), cast(eval(n->arg[1], i), n->t));
  case N_CALL: {
    const struct hostfn *h = host_fn(n->key, n->nargs); /* there is one: see j->unchecked */
    double x[3] = {0};
    if (!h->d1 && !h->d2 && !h->d3) return make(I64, (int64_t)i, 0); /* cuda.grid(1) */
    for (int k = 0; k < n->nargs; k++) x[k] = cast(cast(eval(n->arg[k], i), n->argt[k]), F64).f;
    return make(n->t, 0, n->nargs == 1 ? h->d1(x[0]) : n->nargs == 2 ? h->d2(x[0], x[1])
                                                                     : h->d3(x[0], x[1], x[2]));
  }
  }
  return make(I64, 0, 0);
}

/* Floats agree to a relative tolerance, or an absolute one below 1 (where
 * the GPU's fused multiply-adds and the host's separate ones differ most). */
static bool agree(val got, val want) {
  if (!IS_FLOAT(want.t)) return got.i == want.i;
  if (isnan(want.f) || isnan(got.f)) return isnan(want.f) && isnan(got.f);
  double tol = want.t == F32 ? 1e-5 : 1e-12;
  return got.f == want.f || fabs(got.f - want.f) <= tol * fmax(fabs(want.f), 1.0);
}

static val random_val(ty t, uint64_t *s) { /* xorshift64: floats in [-4, 4), ints in [-1000, 1000] */
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  double u = (double)(*s >> 11) / 9007199254740992.0;
  return IS_FLOAT(t) ? make(t, 0, 8 * u - 4) : make(t, (int64_t)(u * 2001) - 1000, 0);
}

/* ---- cuplug: compile, load, launch ----------------------------------- */

static int report(cuplug_error *e) {
  fprintf(stderr, "minijit: %s: %s\n", api->status_name(api->error_code(e)), api->error_message(e));
  if (*api->error_log(e)) fprintf(stderr, "%s\n", api->error_log(e));
  api->error_destroy(e);
  return 1;
}

/* Launches the kernel (a cubin on the GPU, or a host artifact on this CPU,
 * whose arrays are host memory) and checks every element. */
static int run_kernel(jit *j, cuplug_session *s, cuplug_artifact *art, const char *device,
                      bool host) {
  enum { N = (1 << 20) + 3, BLOCK = 256 }; /* not a whole number of blocks */
  cuplug_load_args l = {.struct_size = sizeof l, .session = s, .artifact = art};
  cuplug_kernel_args k = {.struct_size = sizeof k};
  cuplug_error *e = api->load(&l);
  k.library = l.library;
  if (!e) e = api->kernel_get(&k);
  cuplug_array arrays[16];
  cuplug_value args[16];
  uint64_t seed = 0x9E3779B97F4A7C15u;
  for (int a = 0; a < j->nparams && !e; a++) {
    param *p = &j->params[a];
    size_t bytes = N * tys[p->t].size;
    if (!p->array) { /* launch reads the C value of the scalar's type */
      store(p->t, &p->c, 0, p->value = random_val(p->t, &seed));
      args[a] = (cuplug_value){tys[p->t].kind, &p->c};
      continue;
    }
    if (!(p->host = malloc(bytes)) || !(p->got = malloc(bytes))) abort();
    for (size_t i = 0; i < N; i++) store(p->t, p->host, i, random_val(p->t, &seed));
    if (host) /* the kernel works in place, on a copy */
      memcpy(p->got, p->host, bytes);
    else if (!(e = api->mem_alloc(s, bytes, &p->dev)))
      e = api->memcpy_to_device(s, p->dev, p->host, bytes);
    arrays[a] = (cuplug_array){.data = host ? (uint64_t)(uintptr_t)p->got : p->dev,
                               .dtype = tys[p->t].kind, .ndim = 1,
                               .shape = {N}, .strides = {(int64_t)tys[p->t].size}};
    args[a] = (cuplug_value){CUPLUG_TYPE_ARRAY, &arrays[a]};
  }
  cuplug_launch_args la = {.struct_size = sizeof la, .kernel = k.kernel,
                           .grid = {(N + BLOCK - 1) / BLOCK}, .block = {BLOCK}, .args = args,
                           .num_args = (size_t)j->nparams};
  if (!e) e = api->launch(&la);
  for (int a = 0; a < j->nparams && !e && !host; a++)
    if (j->params[a].written)
      e = api->memcpy_to_host(s, j->params[a].got, j->params[a].dev, N * tys[j->params[a].t].size);
  int rc = e ? report(e) : 0;
  if (!rc) printf("launched on %s: %d threads in blocks of %d\n", device, N, BLOCK);
  if (!rc && j->unchecked) {
    printf("minijit: the host has no %s to check with: results not checked\n", j->unchecked);
  } else if (!rc) { /* each thread's statements in turn, in place */
    for (size_t i = 0; i < N; i++)
      for (int t = 0; t < j->nstmts; t++)
        store(j->stmts[t].target->t, j->stmts[t].target->host, i, eval(j->stmts[t].value, i));
    size_t checked = 0, wrong = 0;
    for (int a = 0; a < j->nparams; a++) {
      const param *p = &j->params[a];
      for (size_t i = 0; p->written && i < N; i++, checked++) {
        val got = load(p->t, p->got, i), want = load(p->t, p->host, i);
        if (!agree(got, want) && wrong++ < 5)
          printf("minijit: %s[%zu] is %.17g, the host says %.17g\n", p->name, i,
                 cast(got, F64).f, cast(want, F64).f);
      }
    }
    if (wrong) printf("minijit: %zu of %zu elements differ\n", wrong, checked);
    else printf("minijit: %zu elements match\n", checked);
    rc = wrong != 0;
  }
  for (int a = 0; a < j->nparams; a++) {
    if (j->params[a].dev) api->error_destroy(api->mem_free(s, j->params[a].dev));
    free(j->params[a].host);
    free(j->params[a].got);
  }
  api->library_unload(l.library);
  return rc;
}

typedef struct { bool gpu, ptx; const char *why_not, *device; } options;

/* The IR to a cubin, the calls left in its PTX, and the GPU's results. */
static int compile_and_run(jit *j, cuplug_session *s, const options *o) {
  cuplug_module m = {sizeof m, j->file, j->ir.p, j->ir.n};
  const cuplug_module *mods[] = {&m};
  cuplug_compile_args a = {.struct_size = sizeof a, .session = s, .modules = mods,
                           .num_modules = 1, .entry = j->name, .signature = j->sig,
                           .entry_abi = CUPLUG_ABI_C, .kind = CUPLUG_KERNEL,
                           .output = CUPLUG_OUTPUT_CUBIN, .cc_major = o->gpu ? 0 : 9,
                           .flags = (o->gpu ? CUPLUG_COMPILE_CURRENT_DEVICE : 0) |
                                    CUPLUG_COMPILE_LINKED_PTX};
  cuplug_error *e = api->compile(&a);
  if (e) return report(e);
  cuplug_artifact_info ai = {.struct_size = sizeof ai};
  cuplug_part ptx = {.struct_size = sizeof ptx}; /* part 1: the linked PTX */
  if ((e = api->artifact_info(a.artifact, &ai)) || (e = api->artifact_part(a.artifact, 1, &ptx)))
    return api->artifact_destroy(a.artifact), report(e);
  printf("cubin: %zu bytes for sm_%u%u.  The calls, as resolve_call typed them:\n", ai.size,
         ai.cc_major, ai.cc_minor);
  for (int k = 0; k < j->ncalls; k++) { /* a symbol the PTX never names was inlined */
    const node *n = j->calls[k];
    printf("  %s: %s %s, %s\n", n->text, type_name(n->sig), n->symbol,
           strstr(ptx.data, n->symbol) ? "CALLED in the PTX" : "inlined");
  }
  if (o->ptx) printf("\n%.*s\n", (int)ptx.size, (const char *)ptx.data);
  int rc = 0;
  if (o->gpu) {
    rc = run_kernel(j, s, a.artifact, o->device, false);
  } else { /* the same IR for this CPU: LLVM's JIT, no GPU */
    printf("minijit: %s: on this CPU instead\n", o->why_not);
    cuplug_artifact *cubin = a.artifact;
    a.output = CUPLUG_OUTPUT_HOST;
    a.flags = 0;
    if ((e = api->compile(&a))) rc = report(e);
    else rc = run_kernel(j, s, a.artifact, "this CPU", true);
    if (!e) api->artifact_destroy(a.artifact);
    a.artifact = cubin;
  }
  api->artifact_destroy(a.artifact);
  return rc;
}

static int run(cuplug_session *s, const char *file, const char *src, const options *o) {
  jit *j = calloc(1, sizeof *j);
  if (!j) return 1;
  j->file = file, j->src = src, j->line = j->col = 1, j->reg = api->session_registry(s);
  int rc = 1;
  if (front_end(j)) {
    printf("%s: kernel %s%s\n\n%s\n", file, j->name, strchr(j->sig, '('), j->ir.p);
    rc = compile_and_run(j, s, o);
  } else {
    fprintf(stderr, "minijit: %s\n", j->err);
  }
  free(j->allocas.p);
  free(j->body.p);
  free(j->ir.p);
  free(j);
  return rc;
}

/* minijit.clamp(x, lo, hi), a function of the host's own: two concrete
 * templates type it, NVVM IR lowers it, under the Numba ABI. */
static cuplug_error *register_clamp(cuplug_registry *reg) {
  static const char *const sigs[] = {"float32(float32, float32, float32)",
                                     "float64(float64, float64, float64)"};
  static const char *const irt[] = {"float", "double"};
  cuplug_error *e = NULL;
  for (int k = 0; k < 2 && !e; k++) {
    char symbol[32], ir[512];
    snprintf(symbol, sizeof symbol, "minijit_clamp_%s", irt[k]);
    snprintf(ir, sizeof ir,
             "define i32 @%2$s(%1$s* %%ret, %1$s %%x, %1$s %%lo, %1$s %%hi) {\n"
             "  %%below = fcmp olt %1$s %%x, %%lo\n"
             "  %%y = select i1 %%below, %1$s %%lo, %1$s %%x\n"
             "  %%above = fcmp ogt %1$s %%y, %%hi\n"
             "  %%z = select i1 %%above, %1$s %%hi, %1$s %%y\n"
             "  store %1$s %%z, %1$s* %%ret\n"
             "  ret i32 0\n"
             "}\n",
             irt[k], symbol);
    cuplug_template_args t = {.struct_size = sizeof t, .registry = reg, .key = "minijit.clamp",
                              .signature = sigs[k]};
    cuplug_lowering_args l = {.struct_size = sizeof l, .registry = reg, .key = "minijit.clamp",
                              .signature = sigs[k], .kind = CUPLUG_LOWER_IR, .symbol = symbol,
                              .source = ir, .abi = CUPLUG_ABI_NUMBA};
    if (!(e = api->register_template(&t))) e = api->register_lowering(&l);
  }
  return e;
}

int main(int argc, char **argv) {
  bool no_gpu = false, gpu_only = false, ptx = false;
  int nfiles = 0;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--no-gpu") == 0) no_gpu = true;
    else if (strcmp(argv[k], "--gpu-only") == 0) gpu_only = true;
    else if (strcmp(argv[k], "--ptx") == 0) ptx = true;
    else if (argv[k][0] != '-') argv[++nfiles] = argv[k]; /* the files, from argv[1] on */
    else nfiles = -1;
  }
  if (nfiles < 0 || (no_gpu && gpu_only)) {
    fprintf(stderr, "usage: minijit [--no-gpu | --gpu-only] [--ptx] [FILE...]\n");
    return 1;
  }
  void *so = sample_load_plugin(2);
  if (!so) return 1;
  cuplug_info info = {.struct_size = sizeof info};
  cuplug_session *s = NULL;
  cuplug_error *e = api->get_info(&info);
  if (!e) e = api->session_create(NULL, &s);
  /* the session's own registry: cuplug's CUDA library, and what we add */
  if (!e) e = register_clamp(api->session_registry(s));
  if (e) {
    api->session_destroy(s);
    return report(e);
  }
  char why[512];
  snprintf(why, sizeof why, "no GPU (%s)", info.driver_status);
  options o = {.gpu = !no_gpu && info.device_count > 0, .ptx = ptx, .device = info.device_name,
               .why_not = no_gpu ? "--no-gpu" : why};
  int rc = 0;
  if (gpu_only && !o.gpu) {
    printf("minijit: skipped: %s\n", why);
    rc = 77;
  } else if (nfiles == 0) {
    rc = run(s, "example", example, &o);
  }
  for (int k = 1; k <= nfiles && rc != 77; k++) {
    char *src = sample_slurp(argv[k], NULL);
    if (!src) fprintf(stderr, "minijit: cannot read %s: %s\n", argv[k], strerror(errno));
    rc |= src ? run(s, argv[k], src, &o) : 1;
    free(src);
  }
  api->session_destroy(s);
  dlclose(so);
  return rc;
}
