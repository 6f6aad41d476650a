/* types.c - interned types and their data model under the Numba and C ABIs.
 *
 * The data model follows numba's: a bool is an i8 in memory and in calls;
 * complex numbers are {re, im} structs, split into their two parts as
 * arguments; arrays travel as numba's array struct, flattened into meminfo,
 * parent, nitems, itemsize, data, shape[N], strides[N].  Under the Numba ABI
 * the return value goes through a pointer (the return slot); under the C
 * ABI it is returned by value.  Arguments are the same under both ABIs, as
 * in numba-cuda's C-ABI wrapper.
 *
 * Tuples are numba's too: a UniTuple is an [N x T] array in memory, any
 * other tuple a struct, and as an argument a tuple is flattened into its
 * elements.  An integer literal is an i64; a number class (a dtype given as
 * an argument) has no value and takes no parameter.  A read-only array
 * (numba's readonly array) is an array like any other: the mark is the
 * type's, which launch reads, not the data model's.
 *
 * Since 1.3, numba-cuda's other models: a bfloat16 is an i16, as a float16;
 * a record is passed by reference, a [size x i8]* (its bytes, [size x i8],
 * where it is stored: an array's data, a pointer's pointee); a pointer to a
 * signature is numba's ExternalFunctionPointer, R (A, B)* of the value
 * types, unflattened; CPointer(void) is an i8*; an Opaque value is one i8*
 * nothing reads; an Omitted argument takes no parameter at all.  A struct
 * is numba's StructModel: named members by value, in memory the literal
 * struct of the members' data types (a record's bytes, a bool's i8; never
 * an array, even when every member is of one type, as a UniTuple would be),
 * flattened member by member as an argument, returned as that struct; in
 * registers the struct of their value types (a bool's i1, a record's
 * pointer), which only a function pointer's signature shows. */
#include "base/types.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/error.h"

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
#define INTERN_BUCKETS 4096
static cuplug_type *interned[INTERN_BUCKETS]; /* derived types, chained by hash */

static const struct {
  cuplug_type_kind kind;
  const char *name;
  const char *ir;
  uint32_t size;
} scalar_info[] = {
    {CUPLUG_TYPE_VOID, "void", "void", 0},
    {CUPLUG_TYPE_BOOL, "bool", "i8", 1},
    {CUPLUG_TYPE_INT8, "int8", "i8", 1},
    {CUPLUG_TYPE_INT16, "int16", "i16", 2},
    {CUPLUG_TYPE_INT32, "int32", "i32", 4},
    {CUPLUG_TYPE_INT64, "int64", "i64", 8},
    {CUPLUG_TYPE_UINT8, "uint8", "i8", 1},
    {CUPLUG_TYPE_UINT16, "uint16", "i16", 2},
    {CUPLUG_TYPE_UINT32, "uint32", "i32", 4},
    {CUPLUG_TYPE_UINT64, "uint64", "i64", 8},
    {CUPLUG_TYPE_FLOAT16, "float16", "i16", 2}, /* numba-cuda: an i16 */
    {CUPLUG_TYPE_FLOAT32, "float32", "float", 4},
    {CUPLUG_TYPE_FLOAT64, "float64", "double", 8},
    {CUPLUG_TYPE_COMPLEX64, "complex64", "{float, float}", 8},
    {CUPLUG_TYPE_COMPLEX128, "complex128", "{double, double}", 16},
    {CUPLUG_TYPE_BFLOAT16, "bfloat16", "i16", 2}, /* numba-cuda: an i16 */
};
#define NUM_SCALARS (sizeof scalar_info / sizeof scalar_info[0])

static cuplug_type scalars[NUM_SCALARS];

/* The scalar table's row of a kind, -1 for none: kinds 1 to 15, then
 * bfloat16, which came later. */
static int scalar_row(cuplug_type_kind kind) {
  if (kind >= CUPLUG_TYPE_VOID && kind <= CUPLUG_TYPE_COMPLEX128) return (int)kind - 1;
  if (kind == CUPLUG_TYPE_BFLOAT16) return (int)NUM_SCALARS - 1;
  return -1;
}
static pthread_once_t scalars_once = PTHREAD_ONCE_INIT;

/* ---- the data model ---- */

/* The type a value has in memory (what a pointer to it points at); a
 * record's value is a pointer to its bytes, which data_bytes holds. */
static const char *data_ir(const cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_RECORD) return t->bytes_ir;
  return t->lowered[0][0].ir_type;
}

/* The type of a value in registers: numba's get_value_type, which a
 * function pointer's signature is made of (a bool is an i1 there, and
 * none an i8*). */
static const char *value_ir(const cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_BOOL) return "i1";
  if (t->kind == CUPLUG_TYPE_VOID) return "i8*";
  return t->lowered[0][0].ir_type;
}

static bool lowered_set(cuplug__lowered *l, char *ir_type, size_t n,
                        char **parts) {
  l->ir_type = ir_type;
  l->num_parts = n;
  l->parts = parts;
  if (!ir_type) return false;
  for (size_t i = 0; i < n; i++)
    if (!parts[i]) return false;
  return n == 0 || parts;
}

static char **parts_alloc(size_t n) { return n ? calloc(n, sizeof(char *)) : NULL; }

static void lowered_free(cuplug__lowered *l) {
  free(l->ir_type);
  for (size_t i = 0; i < l->num_parts && l->parts; i++) free(l->parts[i]);
  free(l->parts);
  memset(l, 0, sizeof *l);
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  va_list ap;
  va_start(ap, f);
  cuplug__buf_vprintf(&b, f, ap);
  va_end(ap);
  return cuplug__buf_take(&b, NULL);
}

static bool is_uniform(const cuplug_type *t) {
  for (size_t i = 1; i < t->nargs; i++)
    if (t->args[i] != t->args[0]) return false;
  return t->nargs > 0;
}

/* A tuple in memory: [N x T] when uniform, else {T1, T2, ...}. */
static char *tuple_ir(const cuplug_type *t) {
  if (is_uniform(t)) return fmt("[%zu x %s]", t->nargs, t->args[0]->lowered[0][0].ir_type);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_putc(&b, '{');
  for (size_t i = 0; i < t->nargs; i++)
    cuplug__buf_printf(&b, "%s%s", i ? ", " : "", t->args[i]->lowered[0][0].ir_type);
  cuplug__buf_putc(&b, '}');
  return cuplug__buf_take(&b, NULL);
}

/* value_ir, and a struct's value type: the struct of its members' */
static void put_value_ir(cuplug__buf *b, const cuplug_type *t) {
  if (t->kind != CUPLUG_TYPE_STRUCT) {
    cuplug__buf_puts(b, value_ir(t));
    return;
  }
  cuplug__buf_putc(b, '{');
  for (size_t i = 0; i < t->nargs; i++) {
    if (i) cuplug__buf_puts(b, ", ");
    put_value_ir(b, t->args[i]);
  }
  cuplug__buf_putc(b, '}');
}

/* A struct in memory: {T1, T2, ...} of the members' data types. */
static char *struct_ir(const cuplug_type *t) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_putc(&b, '{');
  for (size_t i = 0; i < t->nargs; i++)
    cuplug__buf_printf(&b, "%s%s", i ? ", " : "", data_ir(t->args[i]));
  cuplug__buf_putc(&b, '}');
  return cuplug__buf_take(&b, NULL);
}

/* A pointer to t: void* is numba's voidptr, an i8*; a pointer to a
 * signature is numba's ExternalFunctionPointer, R (A, B)* of value types. */
static char *pointer_ir(const cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_VOID) return cuplug__strdup("i8*");
  if (t->kind != CUPLUG_TYPE_SIGNATURE) return fmt("%s*", data_ir(t));
  cuplug__buf b;
  cuplug__buf_init(&b);
  put_value_ir(&b, t->restype);
  cuplug__buf_puts(&b, " (");
  for (size_t i = 0; i < t->nargs; i++) {
    if (i) cuplug__buf_puts(&b, ", ");
    put_value_ir(&b, t->args[i]);
  }
  cuplug__buf_puts(&b, ")*");
  return cuplug__buf_take(&b, NULL);
}

/* A tuple's or a struct's parts: its members', one after another. */
static bool lower_members(const cuplug_type *t, char *ir, cuplug__lowered *l) {
  size_t n = 0;
  for (size_t i = 0; i < t->nargs; i++) n += t->args[i]->lowered[0][0].num_parts;
  char **p = parts_alloc(n);
  if (n && !p) return free(ir), false;
  size_t k = 0;
  for (size_t i = 0; i < t->nargs; i++) {
    const cuplug__lowered *e = &t->args[i]->lowered[0][0];
    for (size_t j = 0; j < e->num_parts; j++) p[k++] = cuplug__strdup(e->parts[j]);
  }
  return lowered_set(l, ir, n, p);
}

/* Argument parts of a value type (the same under both ABIs). */
static bool lower_argument(const cuplug_type *t, cuplug__lowered *l) {
  switch (t->kind) {
    case CUPLUG_TYPE_VOID:
      return lowered_set(l, cuplug__strdup("void"), 0, NULL);
    case CUPLUG_TYPE_COMPLEX64:
    case CUPLUG_TYPE_COMPLEX128: {
      const char *part = t->kind == CUPLUG_TYPE_COMPLEX64 ? "float" : "double";
      char **p = parts_alloc(2);
      if (!p) return false;
      p[0] = cuplug__strdup(part);
      p[1] = cuplug__strdup(part);
      return lowered_set(l, fmt("{%s, %s}", part, part), 2, p);
    }
    case CUPLUG_TYPE_POINTER: {
      char **p = parts_alloc(1);
      if (!p) return false;
      p[0] = pointer_ir(t->element);
      return lowered_set(l, pointer_ir(t->element), 1, p);
    }
    case CUPLUG_TYPE_RECORD: {
      char **p = parts_alloc(1);
      if (!p) return false;
      p[0] = fmt("[%u x i8]*", t->size);
      return lowered_set(l, fmt("[%u x i8]*", t->size), 1, p);
    }
    case CUPLUG_TYPE_OPAQUE: {
      char **p = parts_alloc(1);
      if (!p) return false;
      p[0] = cuplug__strdup("i8*");
      return lowered_set(l, cuplug__strdup("i8*"), 1, p);
    }
    case CUPLUG_TYPE_ARRAY: {
      size_t n = 5 + 2 * (size_t)t->ndim;
      char **p = parts_alloc(n);
      if (!p) return false;
      p[0] = cuplug__strdup("i8*");
      p[1] = cuplug__strdup("i8*");
      p[2] = cuplug__strdup("i64");
      p[3] = cuplug__strdup("i64");
      p[4] = fmt("%s*", data_ir(t->element));
      for (size_t i = 5; i < n; i++) p[i] = cuplug__strdup("i64");
      char *ir = fmt("{i8*, i8*, i64, i64, %s*, [%u x i64], [%u x i64]}",
                     data_ir(t->element), t->ndim, t->ndim);
      return lowered_set(l, ir, n, p);
    }
    case CUPLUG_TYPE_TUPLE: return lower_members(t, tuple_ir(t), l);
    case CUPLUG_TYPE_STRUCT: return lower_members(t, struct_ir(t), l);
    case CUPLUG_TYPE_INT_LITERAL: {
      char **p = parts_alloc(1);
      if (!p) return false;
      p[0] = cuplug__strdup("i64");
      return lowered_set(l, cuplug__strdup("i64"), 1, p);
    }
    case CUPLUG_TYPE_NUMBER_CLASS:
    case CUPLUG_TYPE_OMITTED:
      return lowered_set(l, cuplug__strdup("{}"), 0, NULL);
    case CUPLUG_TYPE_SIGNATURE:
    case CUPLUG_TYPE_INVALID:
      return false;
    default: {
      char **p = parts_alloc(1);
      if (!p) return false;
      p[0] = cuplug__strdup(scalar_info[scalar_row(t->kind)].ir);
      return lowered_set(l, cuplug__strdup(scalar_info[scalar_row(t->kind)].ir), 1, p);
    }
  }
}

/* Numba ABI return: the pointee of the return slot.  numba gives "none" a
 * pointer model, so a void function still gets an i8** slot.  A record is
 * returned as its pointer (numba's get_return_type): an [N x i8]** slot. */
static bool lower_numba_return(const cuplug_type *t, cuplug__lowered *l) {
  const char *slot = t->kind == CUPLUG_TYPE_VOID ? "i8*" : t->lowered[0][0].ir_type;
  char **p = parts_alloc(1);
  if (!p) return false;
  p[0] = cuplug__strdup(slot);
  return lowered_set(l, cuplug__strdup(slot), 1, p);
}

/* C ABI return: the value itself, "void" for none, a record's pointer. */
static bool lower_c_return(const cuplug_type *t, cuplug__lowered *l) {
  return lowered_set(l, cuplug__strdup(t->lowered[0][0].ir_type), 0, NULL);
}

static void join_parts(cuplug__buf *b, const cuplug__lowered *l, bool *first) {
  for (size_t i = 0; i < l->num_parts; i++) {
    if (!*first) cuplug__buf_puts(b, ", ");
    cuplug__buf_puts(b, l->parts[i]);
    *first = false;
  }
}

/* A signature lowers to a function type; its parts are its parameters. */
static bool lower_signature(const cuplug_type *sig, cuplug_abi abi,
                            cuplug__lowered *l) {
  const cuplug__lowered *ret =
      cuplug__type_lowered(sig->restype, abi, CUPLUG_POSITION_RETURN);
  size_t n = abi == CUPLUG_ABI_NUMBA ? 1 : 0;
  for (size_t i = 0; i < sig->nargs; i++)
    n += cuplug__type_lowered(sig->args[i], abi, CUPLUG_POSITION_ARGUMENT)->num_parts;
  char **p = parts_alloc(n);
  if (n && !p) return false;
  size_t k = 0;
  cuplug__buf b;
  cuplug__buf_init(&b);
  if (abi == CUPLUG_ABI_NUMBA) {
    p[k++] = fmt("%s*", ret->ir_type);
    cuplug__buf_printf(&b, "i32 (%s*", ret->ir_type);
  } else {
    cuplug__buf_printf(&b, "%s (", ret->ir_type);
  }
  bool first = abi != CUPLUG_ABI_NUMBA;
  for (size_t i = 0; i < sig->nargs; i++) {
    const cuplug__lowered *a =
        cuplug__type_lowered(sig->args[i], abi, CUPLUG_POSITION_ARGUMENT);
    join_parts(&b, a, &first);
    for (size_t j = 0; j < a->num_parts; j++) p[k++] = cuplug__strdup(a->parts[j]);
  }
  cuplug__buf_putc(&b, ')');
  return lowered_set(l, cuplug__buf_take(&b, NULL), n, p);
}

static bool lower_all(cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_SIGNATURE)
    return lower_signature(t, CUPLUG_ABI_NUMBA, &t->lowered[0][0]) &&
           lower_signature(t, CUPLUG_ABI_C, &t->lowered[1][0]) &&
           lowered_set(&t->lowered[0][1], cuplug__strdup(t->lowered[0][0].ir_type), 0, NULL) &&
           lowered_set(&t->lowered[1][1], cuplug__strdup(t->lowered[1][0].ir_type), 0, NULL);
  return lower_argument(t, &t->lowered[0][0]) &&
         lower_argument(t, &t->lowered[1][0]) &&
         lower_numba_return(t, &t->lowered[0][1]) &&
         lower_c_return(t, &t->lowered[1][1]);
}

static void type_free(cuplug_type *t) {
  for (int a = 0; a < 2; a++)
    for (int p = 0; p < 2; p++) lowered_free(&t->lowered[a][p]);
  free(t->name);
  free(t->args);
  free(t->text);
  for (size_t i = 0; t->field_names && i < t->nargs; i++) free(t->field_names[i]);
  free(t->field_names);
  free(t->offsets);
  free(t->bytes_ir);
  free(t);
}

/* ---- scalars ---- */

static void scalars_init(void) {
  for (size_t i = 0; i < NUM_SCALARS; i++) {
    cuplug_type *t = &scalars[i];
    t->kind = scalar_info[i].kind;
    t->name = (char *)scalar_info[i].name;
    /* Scalars are static; their lowered strings are allocated once and freed
     * at unload.  An allocation failure here leaves ir_type NULL, which the
     * constructors below report as out of memory. */
    if (!lower_all(t))
      for (int a = 0; a < 2; a++)
        for (int p = 0; p < 2; p++) lowered_free(&t->lowered[a][p]);
  }
}

const cuplug_type *cuplug__type_scalar(cuplug_type_kind kind) {
  int row = scalar_row(kind);
  if (row < 0) return NULL;
  pthread_once(&scalars_once, scalars_init);
  const cuplug_type *t = &scalars[row];
  return t->lowered[0][0].ir_type ? t : NULL;
}

bool cuplug__type_is_integer(const cuplug_type *t) {
  return t->kind >= CUPLUG_TYPE_INT8 && t->kind <= CUPLUG_TYPE_UINT64;
}

bool cuplug__type_is_signed(const cuplug_type *t) {
  return (t->kind >= CUPLUG_TYPE_INT8 && t->kind <= CUPLUG_TYPE_INT64) ||
         t->kind == CUPLUG_TYPE_INT_LITERAL;
}

bool cuplug__type_is_float(const cuplug_type *t) {
  return (t->kind >= CUPLUG_TYPE_FLOAT16 && t->kind <= CUPLUG_TYPE_FLOAT64) ||
         t->kind == CUPLUG_TYPE_BFLOAT16;
}

bool cuplug__type_is_scalar_value(const cuplug_type *t) {
  return (t->kind >= CUPLUG_TYPE_BOOL && t->kind <= CUPLUG_TYPE_COMPLEX128) ||
         t->kind == CUPLUG_TYPE_BFLOAT16;
}

bool cuplug__type_is_number(const cuplug_type *t) {
  return cuplug__type_is_scalar_value(t) || t->kind == CUPLUG_TYPE_INT_LITERAL;
}

uint32_t cuplug__type_size(const cuplug_type *t) {
  if (t->kind == CUPLUG_TYPE_POINTER || t->kind == CUPLUG_TYPE_INT_LITERAL) return 8;
  if (t->kind == CUPLUG_TYPE_RECORD || t->kind == CUPLUG_TYPE_STRUCT) return t->size;
  int row = scalar_row(t->kind);
  return row < 0 ? 0 : scalar_info[row].size;
}

/* ---- interning ---- */

static bool same(const cuplug_type *a, const cuplug_type *b) {
  if (a->kind != b->kind || a->element != b->element || a->ndim != b->ndim ||
      a->layout != b->layout || a->readonly != b->readonly || a->restype != b->restype ||
      a->nargs != b->nargs || a->value != b->value || a->size != b->size ||
      a->align != b->align || !a->text != !b->text || (a->text && strcmp(a->text, b->text)))
    return false;
  for (size_t i = 0; i < a->nargs; i++)
    if (a->args[i] != b->args[i]) return false;
  for (size_t i = 0; a->field_names && i < a->nargs; i++)
    if ((a->kind == CUPLUG_TYPE_RECORD && a->offsets[i] != b->offsets[i]) ||
        strcmp(a->field_names[i], b->field_names[i]))
      return false;
  return true;
}

/* FNV-1a over a string, into h */
static uint64_t hash_string(uint64_t h, const char *s) {
  for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static size_t bucket_of(const cuplug_type *t) {
  uint64_t h = 1469598103934665603ull;
  uint64_t words[6] = {(uint64_t)t->kind, (uint64_t)(uintptr_t)t->element,
                       (uint64_t)t->ndim << 8 | (uint64_t)t->readonly << 4 |
                           (uint64_t)t->layout,
                       (uint64_t)(uintptr_t)t->restype, (uint64_t)t->nargs, (uint64_t)t->value};
  for (size_t i = 0; i < 6 + t->nargs; i++) {
    uint64_t w = i < 6 ? words[i] : (uint64_t)(uintptr_t)t->args[i - 6];
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  }
  h = hash_string(h, t->text);
  for (size_t i = 0; t->field_names && i < t->nargs; i++)
    h = hash_string(h ^ (t->kind == CUPLUG_TYPE_RECORD ? t->offsets[i] : 0), t->field_names[i]);
  return (size_t)(h % INTERN_BUCKETS);
}

/* 1 + the depth of the deepest type proto is made of. */
static uint32_t depth_of(const cuplug_type *proto) {
  uint32_t d = 0;
  if (proto->element && proto->element->depth > d) d = proto->element->depth;
  if (proto->restype && proto->restype->depth > d) d = proto->restype->depth;
  for (size_t i = 0; i < proto->nargs; i++)
    if (proto->args[i]->depth > d) d = proto->args[i]->depth;
  return d + 1;
}

/* A record's or a struct's fields and the text of an Opaque or Omitted,
 * owned by t. */
static bool copy_extras(cuplug_type *t, const cuplug_type *proto) {
  if (proto->text && !(t->text = cuplug__strdup(proto->text))) return false;
  bool record = proto->kind == CUPLUG_TYPE_RECORD;
  if (!record && proto->kind != CUPLUG_TYPE_STRUCT) return true;
  if (record && !(t->bytes_ir = fmt("[%u x i8]", proto->size))) return false;
  if (!proto->nargs) return true;
  t->field_names = calloc(proto->nargs, sizeof *t->field_names);
  if (!t->field_names) return false;
  if (record) {
    if (!(t->offsets = malloc(proto->nargs * sizeof *t->offsets))) return false;
    memcpy(t->offsets, proto->offsets, proto->nargs * sizeof *t->offsets);
  }
  for (size_t i = 0; i < proto->nargs; i++)
    if (!(t->field_names[i] = cuplug__strdup(proto->field_names[i]))) return false;
  return true;
}

static cuplug_error *intern(const cuplug_type *proto, char *(*name)(const cuplug_type *),
                            const cuplug_type **out) {
  uint32_t depth = depth_of(proto);
  if (depth > CUPLUG__MAX_TYPE_DEPTH)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a type nested %u deep: types nest at most %d deep",
                         depth, CUPLUG__MAX_TYPE_DEPTH);
  size_t bucket = bucket_of(proto);
  pthread_mutex_lock(&intern_lock);
  for (cuplug_type *t = interned[bucket]; t; t = t->next) {
    if (same(t, proto)) {
      pthread_mutex_unlock(&intern_lock);
      *out = t;
      return NULL;
    }
  }
  cuplug_type *t = calloc(1, sizeof *t);
  if (!t) goto oom;
  *t = *proto;
  t->depth = depth;
  t->args = NULL;
  t->next = NULL;
  t->text = NULL;
  t->field_names = NULL;
  t->offsets = NULL;
  if (proto->nargs) {
    t->args = malloc(proto->nargs * sizeof *t->args);
    if (!t->args) goto oom_free;
    memcpy(t->args, proto->args, proto->nargs * sizeof *t->args);
  }
  if (!copy_extras(t, proto)) goto oom_free;
  t->name = name(t);
  if (!t->name || !lower_all(t)) goto oom_free;
  t->next = interned[bucket];
  interned[bucket] = t;
  pthread_mutex_unlock(&intern_lock);
  *out = t;
  return NULL;
oom_free:
  type_free(t);
oom:
  pthread_mutex_unlock(&intern_lock);
  return cuplug__error_oom();
}

static char *pointer_name(const cuplug_type *t) {
  return fmt("CPointer(%s)", t->element->name);
}

static char *array_name(const cuplug_type *t) {
  static const char layouts[] = {'A', 'C', 'F'};
  if (t->ndim == 0) /* a 0-d array has no T[...] spelling */
    return fmt("array(%s, 0d, %c)", t->element->name, layouts[t->layout]);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_printf(&b, "%s[", t->element->name);
  for (uint32_t i = 0; i < t->ndim; i++) {
    if (i) cuplug__buf_puts(&b, ", ");
    bool contiguous = (t->layout == CUPLUG_LAYOUT_C && i == t->ndim - 1) ||
                      (t->layout == CUPLUG_LAYOUT_F && i == 0);
    cuplug__buf_puts(&b, contiguous ? "::1" : ":");
  }
  cuplug__buf_putc(&b, ']');
  return cuplug__buf_take(&b, NULL);
}

/* numba's own name for it: readonly arrays have no T[...] spelling. */
static char *readonly_array_name(const cuplug_type *t) {
  static const char layouts[] = {'A', 'C', 'F'};
  return fmt("readonly array(%s, %ud, %c)", t->element->name, t->ndim, layouts[t->layout]);
}

static char *signature_name(const cuplug_type *t) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_printf(&b, "%s(", t->restype->name);
  for (size_t i = 0; i < t->nargs; i++)
    cuplug__buf_printf(&b, "%s%s", i ? ", " : "", t->args[i]->name);
  cuplug__buf_putc(&b, ')');
  return cuplug__buf_take(&b, NULL);
}

static char *tuple_name(const cuplug_type *t) {
  if (is_uniform(t)) return fmt("UniTuple(%s x %zu)", t->args[0]->name, t->nargs);
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, "Tuple(");
  for (size_t i = 0; i < t->nargs; i++)
    cuplug__buf_printf(&b, "%s%s", i ? ", " : "", t->args[i]->name);
  cuplug__buf_putc(&b, ')');
  return cuplug__buf_take(&b, NULL);
}

static char *literal_name(const cuplug_type *t) {
  return fmt("Literal[int](%lld)", (long long)t->value);
}

static char *class_name(const cuplug_type *t) { return fmt("class(%s)", t->element->name); }

/* text between double quotes, with \" and \\ escaped, as the parser reads it */
static void put_quoted(cuplug__buf *b, const char *text) {
  cuplug__buf_putc(b, '"');
  for (const char *c = text; *c; c++) {
    if (*c == '"' || *c == '\\') cuplug__buf_putc(b, '\\');
    cuplug__buf_putc(b, *c);
  }
  cuplug__buf_putc(b, '"');
}

static bool is_identifier(const char *s) {
  if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return false;
  return true;
}

/* a field's name as the parser reads it: bare when it is an identifier */
static void put_field_name(cuplug__buf *b, const char *name) {
  if (is_identifier(name))
    cuplug__buf_puts(b, name);
  else
    put_quoted(b, name);
}

static uint32_t default_align(const cuplug_type *t) {
  uint32_t align = 1, size, a;
  for (size_t i = 0; i < t->nargs; i++)
    if (cuplug__type_field_layout(t->args[i], &size, &a) && a > align) align = a;
  return align;
}

/* Record(a: int32 @ 0, "b c": float64 @ 8, size=16[, align=N]) */
static char *record_name(const cuplug_type *t) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, "Record(");
  for (size_t i = 0; i < t->nargs; i++) {
    put_field_name(&b, t->field_names[i]);
    cuplug__buf_printf(&b, ": %s @ %u, ", t->args[i]->name, t->offsets[i]);
  }
  cuplug__buf_printf(&b, "size=%u", t->size);
  if (t->align != default_align(t)) cuplug__buf_printf(&b, ", align=%u", t->align);
  cuplug__buf_putc(&b, ')');
  return cuplug__buf_take(&b, NULL);
}

/* Struct(x: int32, "a b": float32) */
static char *struct_name(const cuplug_type *t) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, "Struct(");
  for (size_t i = 0; i < t->nargs; i++) {
    if (i) cuplug__buf_puts(&b, ", ");
    put_field_name(&b, t->field_names[i]);
    cuplug__buf_printf(&b, ": %s", t->args[i]->name);
  }
  cuplug__buf_putc(&b, ')');
  return cuplug__buf_take(&b, NULL);
}

static char *named_name(const cuplug_type *t) {
  cuplug__buf b;
  cuplug__buf_init(&b);
  cuplug__buf_puts(&b, t->kind == CUPLUG_TYPE_OPAQUE ? "Opaque(" : "Omitted(");
  put_quoted(&b, t->text);
  cuplug__buf_putc(&b, ')');
  return cuplug__buf_take(&b, NULL);
}

static bool is_value_type(const cuplug_type *t) {
  return t && t->kind != CUPLUG_TYPE_INVALID && t->kind != CUPLUG_TYPE_SIGNATURE;
}

cuplug_error *cuplug__type_pointer(const cuplug_type *pointee,
                                   const cuplug_type **out) {
  if (!pointee || !out)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_pointer: NULL argument");
  if (!cuplug__type_is_scalar_value(pointee) && pointee->kind != CUPLUG_TYPE_POINTER &&
      pointee->kind != CUPLUG_TYPE_VOID && pointee->kind != CUPLUG_TYPE_SIGNATURE &&
      pointee->kind != CUPLUG_TYPE_RECORD)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "CPointer(%s): a pointer must point at a scalar, a pointer, a record, "
                         "void or a signature",
                         pointee->name);
  cuplug_type proto = {.kind = CUPLUG_TYPE_POINTER, .element = pointee};
  return intern(&proto, pointer_name, out);
}

bool cuplug__type_is_array_dtype(const cuplug_type *t) {
  if (cuplug__type_is_scalar_value(t) || t->kind == CUPLUG_TYPE_RECORD) return true;
  if (t->kind == CUPLUG_TYPE_STRUCT) {
    for (size_t i = 0; i < t->nargs; i++)
      if (!cuplug__type_is_array_dtype(t->args[i])) return false;
    return true;
  }
  if (t->kind != CUPLUG_TYPE_TUPLE || t->nargs == 0) return false;
  for (size_t i = 0; i < t->nargs; i++) {
    cuplug_type_kind k = t->args[i]->kind;
    if (!cuplug__type_is_scalar_value(t->args[i]) &&
        ((k != CUPLUG_TYPE_TUPLE && k != CUPLUG_TYPE_STRUCT) ||
         !cuplug__type_is_array_dtype(t->args[i])))
      return false;
  }
  return true;
}

cuplug_error *cuplug__type_array(const cuplug_type *dtype, uint32_t ndim,
                                 cuplug_layout layout, const cuplug_type **out) {
  if (!dtype || !out)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_array: NULL argument");
  if (!cuplug__type_is_array_dtype(dtype))
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "array of %s: an array's dtype must be bool, an integer, "
                         "a float, a complex, a record or a tuple of them",
                         dtype->name);
  if (ndim > CUPLUG__MAX_NDIM)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "array of %s with %u dimensions: arrays have 0 to %d",
                         dtype->name, ndim, CUPLUG__MAX_NDIM);
  if (layout != CUPLUG_LAYOUT_ANY && layout != CUPLUG_LAYOUT_C &&
      layout != CUPLUG_LAYOUT_F)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                         "type_array: layout %d is not ANY, C or F", (int)layout);
  /* numba calls every contiguous 1-d array C. */
  if (ndim == 1 && layout == CUPLUG_LAYOUT_F) layout = CUPLUG_LAYOUT_C;
  cuplug_type proto = {.kind = CUPLUG_TYPE_ARRAY, .element = dtype, .ndim = ndim,
                       .layout = layout};
  return intern(&proto, array_name, out);
}

cuplug_error *cuplug__type_array_readonly(const cuplug_type *array, bool readonly,
                                          const cuplug_type **out) {
  if (!array || !out)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_array_readonly: NULL argument");
  if (array->kind != CUPLUG_TYPE_ARRAY)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "readonly %s: only arrays are read-only",
                         array->name);
  cuplug_type proto = {.kind = CUPLUG_TYPE_ARRAY, .element = array->element,
                       .ndim = array->ndim, .layout = array->layout, .readonly = readonly};
  return intern(&proto, readonly ? readonly_array_name : array_name, out);
}

cuplug_error *cuplug__type_signature(const cuplug_type *restype,
                                     const cuplug_type *const *args,
                                     size_t nargs, const cuplug_type **out) {
  if (!restype || !out || (nargs && !args))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_signature: NULL argument");
  if (nargs > CUPLUG_MAX_ARGS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a signature of %zu arguments: at most %d", nargs,
                         CUPLUG_MAX_ARGS);
  if (restype && restype->kind == CUPLUG_TYPE_OMITTED)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "a signature cannot return %s: an omitted argument has no value",
                         restype->name);
  if (!is_value_type(restype) || restype->kind == CUPLUG_TYPE_NUMBER_CLASS)
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "a signature cannot return %s", restype->name);
  for (size_t i = 0; i < nargs; i++) {
    if (!args[i])
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT,
                           "type_signature: argument %zu is NULL", i);
    if (!is_value_type(args[i]) || args[i]->kind == CUPLUG_TYPE_VOID)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "argument %zu of a signature cannot be %s", i,
                           args[i]->name);
  }
  cuplug_type proto = {.kind = CUPLUG_TYPE_SIGNATURE, .restype = restype,
                       .nargs = nargs, .args = (const cuplug_type **)args};
  return intern(&proto, signature_name, out);
}

/* A tuple's or struct's parameters once flattened, capped: each is a
 * string made when the type is, and nesting multiplies them
 * (UniTuple(UniTuple(int8 x 256) x 256) x 256 would be 16 million). */
#define MAX_FLAT_PARTS 65536

static cuplug_error *check_flat_parts(const char *what, const cuplug_type *const *members,
                                      size_t n) {
  uint64_t parts = 0;
  for (size_t i = 0; i < n; i++) parts += members[i]->lowered[0][0].num_parts;
  if (parts > MAX_FLAT_PARTS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a %s of %llu parameters once flattened: at most %d",
                         what, (unsigned long long)parts, MAX_FLAT_PARTS);
  return NULL;
}

cuplug_error *cuplug__type_tuple(const cuplug_type *const *elements, size_t n,
                                 const cuplug_type **out) {
  if (!out || (n && !elements))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_tuple: NULL argument");
  if (n > CUPLUG_MAX_ARGS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a tuple of %zu elements: at most %d", n,
                         CUPLUG_MAX_ARGS);
  for (size_t i = 0; i < n; i++) {
    if (!elements[i])
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_tuple: element %zu is NULL", i);
    if (!is_value_type(elements[i]) || elements[i]->kind == CUPLUG_TYPE_VOID ||
        elements[i]->kind == CUPLUG_TYPE_NUMBER_CLASS ||
        elements[i]->kind == CUPLUG_TYPE_OMITTED)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "element %zu of a tuple cannot be %s", i,
                           elements[i]->name);
  }
  CUPLUG__TRY(check_flat_parts("tuple", elements, n));
  cuplug_type proto = {.kind = CUPLUG_TYPE_TUPLE, .nargs = n,
                       .args = (const cuplug_type **)elements};
  return intern(&proto, tuple_name, out);
}

cuplug_error *cuplug__type_int_literal(int64_t value, const cuplug_type **out) {
  if (!out) return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_int_literal: out is NULL");
  cuplug_type proto = {.kind = CUPLUG_TYPE_INT_LITERAL, .value = value};
  return intern(&proto, literal_name, out);
}

cuplug_error *cuplug__type_number_class(const cuplug_type *dtype, const cuplug_type **out) {
  if (!dtype || !out)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_number_class: NULL argument");
  if (!cuplug__type_is_scalar_value(dtype))
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "class(%s): a number class is of bool, an integer, a float or a "
                         "complex",
                         dtype->name);
  cuplug_type proto = {.kind = CUPLUG_TYPE_NUMBER_CLASS, .element = dtype};
  return intern(&proto, class_name, out);
}

bool cuplug__type_field_layout(const cuplug_type *t, uint32_t *size, uint32_t *align) {
  if (t->kind == CUPLUG_TYPE_RECORD) {
    *size = t->size;
    *align = t->align;
    return true;
  }
  if (t->kind == CUPLUG_TYPE_TUPLE && is_uniform(t) &&
      cuplug__type_field_layout(t->args[0], size, align)) {
    /* nested UniTuples multiply: past 4 GiB the size stays UINT32_MAX,
     * which no record holds */
    uint64_t total = (uint64_t)*size * t->nargs;
    *size = total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
    return true;
  }
  if (!cuplug__type_is_scalar_value(t)) return false;
  *size = cuplug__type_size(t);
  bool complex = t->kind == CUPLUG_TYPE_COMPLEX64 || t->kind == CUPLUG_TYPE_COMPLEX128;
  *align = complex ? *size / 2 : *size;
  return true;
}

/* Lays member `size` bytes aligned to `align` after *end; the struct's
 * alignment in *most. */
static void place(uint32_t size, uint32_t align, uint64_t *end, uint32_t *most) {
  *end = (*end + align - 1) / align * align + size;
  if (align > *most) *most = align;
}

bool cuplug__type_data_layout(const cuplug_type *t, uint32_t *size, uint32_t *align) {
  switch (t->kind) {
    case CUPLUG_TYPE_RECORD: /* its bytes, [size x i8], which LLVM aligns to 1 */
      *size = t->size;
      *align = 1;
      return true;
    case CUPLUG_TYPE_STRUCT:
      *size = t->size;
      *align = t->align;
      return true;
    case CUPLUG_TYPE_POINTER: case CUPLUG_TYPE_OPAQUE: case CUPLUG_TYPE_INT_LITERAL:
      *size = *align = 8;
      return true;
    case CUPLUG_TYPE_ARRAY:
      *size = 8 * (5 + 2 * t->ndim);
      *align = 8;
      return true;
    case CUPLUG_TYPE_TUPLE: {
      /* a tuple holds a record's pointer (tuple_ir), [N x T] lays out as
       * N members of T do */
      uint64_t end = 0;
      uint32_t most = 1, s, a;
      for (size_t i = 0; i < t->nargs; i++) {
        if (t->args[i]->kind == CUPLUG_TYPE_RECORD)
          s = a = 8;
        else if (!cuplug__type_data_layout(t->args[i], &s, &a))
          return false;
        place(s, a, &end, &most);
      }
      *size = (uint32_t)((end + most - 1) / most * most);
      *align = most;
      return true;
    }
    default:
      return cuplug__type_field_layout(t, size, align);
  }
}

/* Is each field a field type, named once, and inside the record? */
static cuplug_error *check_fields(const char *const *names, const cuplug_type *const *types,
                                  const uint32_t *offsets, size_t n, uint32_t size) {
  for (size_t i = 0; i < n; i++) {
    if (!names[i] || !types[i])
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_record: field %zu is NULL", i);
    if (!*names[i])
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "field %zu of a record has no name", i);
    for (size_t j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0)
        return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                             "field '%s' of a record is named twice (fields %zu and %zu)",
                             names[i], j, i);
    uint32_t fsize, falign;
    if (!cuplug__type_field_layout(types[i], &fsize, &falign))
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "field '%s' of a record cannot be %s: a field is a scalar, a "
                           "record or a UniTuple of them",
                           names[i], types[i]->name);
    if (fsize == UINT32_MAX)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "field '%s' of a record (%s) is 4 GiB or more", names[i],
                           types[i]->name);
    if ((uint64_t)offsets[i] + fsize > size)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "field '%s' of a record (%s at byte %u) ends at byte %llu, past "
                           "the record's size of %u bytes",
                           names[i], types[i]->name, offsets[i],
                           (unsigned long long)offsets[i] + fsize, size);
  }
  return NULL;
}

cuplug_error *cuplug__type_record(const char *const *names, const cuplug_type *const *types,
                                  const uint32_t *offsets, size_t n, uint32_t size,
                                  uint32_t align, const cuplug_type **out) {
  if (!out || (n && (!names || !types || !offsets)))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_record: NULL argument");
  if (n > CUPLUG_MAX_ARGS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a record of %zu fields: at most %d", n,
                         CUPLUG_MAX_ARGS);
  CUPLUG__TRY(check_fields(names, types, offsets, n, size));
  if (align & (align - 1))
    return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                         "a record aligned to %u bytes: an alignment is a power of two", align);
  cuplug_type proto = {.kind = CUPLUG_TYPE_RECORD, .nargs = n,
                       .args = (const cuplug_type **)types, .size = size,
                       .field_names = (char **)names, .offsets = (uint32_t *)offsets};
  proto.align = align ? align : default_align(&proto);
  return intern(&proto, record_name, out);
}

/* Is each member a tuple's element, named, and named once? */
static cuplug_error *check_members(const char *const *names, const cuplug_type *const *types,
                                   size_t n) {
  if (!n) return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "Struct(): a struct has at least one field");
  for (size_t i = 0; i < n; i++) {
    if (!names[i] || !types[i])
      return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_struct: field %zu is NULL", i);
    if (!*names[i])
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE, "field %zu of a struct has no name", i);
    for (size_t j = 0; j < i; j++)
      if (strcmp(names[i], names[j]) == 0)
        return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                             "field '%s' of a struct is named twice (fields %zu and %zu)",
                             names[i], j, i);
    cuplug_type_kind k = types[i]->kind;
    if (!is_value_type(types[i]) || k == CUPLUG_TYPE_VOID || k == CUPLUG_TYPE_NUMBER_CLASS ||
        k == CUPLUG_TYPE_OMITTED)
      return cuplug__error(CUPLUG_ERR_INVALID_TYPE,
                           "field '%s' of a struct cannot be %s: a field holds what a tuple's "
                           "element may",
                           names[i], types[i]->name);
  }
  return NULL;
}

cuplug_error *cuplug__type_struct(const char *const *names, const cuplug_type *const *types,
                                  size_t n, const cuplug_type **out) {
  if (!out || (n && (!names || !types)))
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_struct: NULL argument");
  if (n > CUPLUG_MAX_ARGS)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a struct of %zu fields: at most %d", n,
                         CUPLUG_MAX_ARGS);
  CUPLUG__TRY(check_members(names, types, n));
  CUPLUG__TRY(check_flat_parts("struct", types, n));
  uint64_t end = 0;
  uint32_t most = 1, s, a;
  for (size_t i = 0; i < n; i++) {
    if (!cuplug__type_data_layout(types[i], &s, &a)) s = 0, a = 1;
    place(s, a, &end, &most);
  }
  end = (end + most - 1) / most * most;
  if (end > UINT32_MAX)
    return cuplug__error(CUPLUG_ERR_LIMIT, "a struct of %llu bytes: at most %u",
                         (unsigned long long)end, UINT32_MAX);
  cuplug_type proto = {.kind = CUPLUG_TYPE_STRUCT, .nargs = n,
                       .args = (const cuplug_type **)types, .size = (uint32_t)end,
                       .align = most, .field_names = (char **)names};
  return intern(&proto, struct_name, out);
}

cuplug_error *cuplug__type_named(cuplug_type_kind kind, const char *text,
                                 const cuplug_type **out) {
  if (!text || !out)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_named: NULL argument");
  if (kind != CUPLUG_TYPE_OPAQUE && kind != CUPLUG_TYPE_OMITTED)
    return cuplug__error(CUPLUG_ERR_INVALID_ARGUMENT, "type_named: kind %d is not OPAQUE or "
                         "OMITTED", (int)kind);
  cuplug_type proto = {.kind = kind, .text = (char *)text};
  return intern(&proto, named_name, out);
}

__attribute__((destructor)) void cuplug__types_shutdown(void) {
  pthread_mutex_lock(&intern_lock);
  for (size_t b = 0; b < INTERN_BUCKETS; b++) {
    while (interned[b]) {
      cuplug_type *t = interned[b];
      interned[b] = t->next;
      type_free(t);
    }
  }
  pthread_mutex_unlock(&intern_lock);
  for (size_t i = 0; i < NUM_SCALARS; i++)
    for (int a = 0; a < 2; a++)
      for (int p = 0; p < 2; p++) lowered_free(&scalars[i].lowered[a][p]);
}
