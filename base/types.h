/* types.h - numba-style types, interned, with their data model. */
#ifndef CUPLUG__BASE_TYPES_H
#define CUPLUG__BASE_TYPES_H

#include <stdbool.h>

#include "cuplug/cuplug.h"

#define CUPLUG__MAX_NDIM 8

/* The nesting of a type's name in its parser, and of types in one another */
#define CUPLUG__MAX_TYPE_DEPTH CUPLUG_MAX_TYPE_DEPTH

/* How a type travels through a call under one ABI and position. */
typedef struct cuplug__lowered {
  char *ir_type;      /* the type as one IR value ("void" for no return) */
  size_t num_parts;   /* flattened parameter types */
  char **parts;
} cuplug__lowered;

struct cuplug_type {
  cuplug_type_kind kind;
  const cuplug_type *element; /* pointee or dtype */
  uint32_t ndim;
  cuplug_layout layout;
  bool readonly;             /* an array the code only reads (numba's readonly array) */
  const cuplug_type *restype;
  size_t nargs;
  const cuplug_type **args; /* a signature's arguments, a tuple's elements */
  int64_t value;             /* an INT_LITERAL's */
  char *text;                /* an OPAQUE's or OMITTED's host name of it */
  char **field_names;        /* a RECORD's or a STRUCT's, one per args[i] */
  uint32_t *offsets;         /* a RECORD's, bytes from its start (a STRUCT has none) */
  uint32_t size, align;      /* a RECORD's bytes and alignment, a STRUCT's in memory */
  char *bytes_ir;            /* a RECORD's data type, [size x i8] */
  uint32_t depth;            /* 0 for a scalar; 1 + the deepest part's otherwise */
  char *name;
  /* [abi - 1][position]: numba/c x argument/return, computed at creation. */
  cuplug__lowered lowered[2][2];
  struct cuplug_type *next; /* intern chain */
};

const cuplug_type *cuplug__type_scalar(cuplug_type_kind kind);
cuplug_error *cuplug__type_pointer(const cuplug_type *pointee,
                                   const cuplug_type **out);
cuplug_error *cuplug__type_array(const cuplug_type *dtype, uint32_t ndim,
                                 cuplug_layout layout, const cuplug_type **out);
/* The array type `array` with its read-only mark set or cleared: the same
 * data model, another type (numba's readonly array(T, Nd, L)). */
cuplug_error *cuplug__type_array_readonly(const cuplug_type *array, bool readonly,
                                          const cuplug_type **out);
cuplug_error *cuplug__type_signature(const cuplug_type *restype,
                                     const cuplug_type *const *args,
                                     size_t nargs, const cuplug_type **out);
cuplug_error *cuplug__type_tuple(const cuplug_type *const *elements, size_t n,
                                 const cuplug_type **out);
cuplug_error *cuplug__type_int_literal(int64_t value, const cuplug_type **out);
cuplug_error *cuplug__type_number_class(const cuplug_type *dtype, const cuplug_type **out);
/* A record of n fields (names, types, byte offsets) in `size` bytes; align
 * 0 takes the largest field's alignment. */
cuplug_error *cuplug__type_record(const char *const *names, const cuplug_type *const *types,
                                  const uint32_t *offsets, size_t n, uint32_t size,
                                  uint32_t align, const cuplug_type **out);
/* A struct of n members (names, types), numba's StructModel; at least one. */
cuplug_error *cuplug__type_struct(const char *const *names, const cuplug_type *const *types,
                                  size_t n, const cuplug_type **out);
/* Opaque(text) or Omitted(text), as kind says */
cuplug_error *cuplug__type_named(cuplug_type_kind kind, const char *text,
                                 const cuplug_type **out);
/* Bytes and alignment of a record field's type: a scalar, a record, or a
 * UniTuple of them; false for anything else. */
bool cuplug__type_field_layout(const cuplug_type *t, uint32_t *size, uint32_t *align);
/* Bytes and alignment of a value in memory, as its data type lays it out
 * (natural alignment, as on x86-64 and NVPTX): a scalar, a pointer, an
 * array's struct, a record's bytes, a tuple, a struct; false for a type
 * with no value. */
bool cuplug__type_data_layout(const cuplug_type *t, uint32_t *size, uint32_t *align);
cuplug_error *cuplug__type_parse(const char *text, const cuplug_type **out);
/* Parses a signature and insists that it is one. */
cuplug_error *cuplug__signature_parse(const char *text, const cuplug_type **out);

static inline const cuplug__lowered *cuplug__type_lowered(const cuplug_type *t,
                                                         cuplug_abi abi,
                                                         cuplug_position pos) {
  return &t->lowered[abi == CUPLUG_ABI_C][pos == CUPLUG_POSITION_RETURN];
}

/* Is abi one of DEFAULT, NUMBA and C? */
static inline bool cuplug__abi_valid(cuplug_abi abi) {
  return abi == CUPLUG_ABI_DEFAULT || abi == CUPLUG_ABI_NUMBA || abi == CUPLUG_ABI_C;
}

bool cuplug__type_is_integer(const cuplug_type *t);
bool cuplug__type_is_signed(const cuplug_type *t); /* int8..int64, and literals */
bool cuplug__type_is_float(const cuplug_type *t);  /* float16..float64, bfloat16 */
bool cuplug__type_is_scalar_value(const cuplug_type *t); /* bool, int, float, complex */
bool cuplug__type_is_number(const cuplug_type *t); /* a scalar value or an integer literal */
/* What an array may hold: a scalar value, a record, a tuple of scalar
 * values and such tuples and structs (numba's arrays of structs and of
 * fixed strings), or a struct of what an array may hold. */
bool cuplug__type_is_array_dtype(const cuplug_type *t);
/* Bytes of a scalar or pointer value (a record's or a struct's: its
 * size), 0 otherwise. */
uint32_t cuplug__type_size(const cuplug_type *t);

/* Frees every interned type; called when the plugin is unloaded. */
void cuplug__types_shutdown(void);

#endif
