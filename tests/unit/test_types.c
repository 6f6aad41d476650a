/* test_types.c - signature strings, type handles and the data model.
 *
 * Covers the numba-style parser (sigparse.c: names, pointers, arrays,
 * signatures and every error it reports, with its exact message), the
 * builders and interning (types.c), type_info, and type_lower: how each type
 * travels through a call under the Numba and C ABIs.  All through the public
 * table, as a host sees it. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "base/typeconv.h"
#include "base/types.h"

static const cuplug_type *parse(const char *text) {
  const cuplug_type *t = NULL;
  T_ASSERT_OK(t_api()->type_parse(text, &t));
  return t;
}

static const cuplug_type *scalar(cuplug_type_kind kind) {
  const cuplug_type *t = t_api()->type_scalar(kind);
  ck_assert_ptr_nonnull(t);
  return t;
}

/* The parse error of `text`: its code and exact message. */
#define ASSERT_PARSE_ERROR(text, code, message)                                \
  do {                                                                         \
    const cuplug_type *t_ = NULL;                                              \
    T_ASSERT_ERROR(t_api()->type_parse((text), &t_), code, message);           \
    ck_assert_ptr_null(t_);                                                    \
  } while (0)

static cuplug_type_info info(const cuplug_type *t) {
  cuplug_type_info i = {.struct_size = sizeof i, .type = t};
  T_ASSERT_OK(t_api()->type_info(&i));
  return i;
}

static cuplug_type_lower_args lower(const char *type, cuplug_abi abi, cuplug_position pos) {
  cuplug_type_lower_args a = {.struct_size = sizeof a, .type = parse(type), .abi = abi,
                              .position = pos};
  T_ASSERT_OK(t_api()->type_lower(&a));
  return a;
}

/* The parts of a lowering joined with " | " (parts may contain commas). */
static const char *parts_of(const cuplug_type_lower_args *a) {
  static char buf[1024];
  buf[0] = '\0';
  for (size_t i = 0; i < a->num_parts; i++) {
    if (i) strcat(buf, " | ");
    strcat(buf, a->parts[i]);
  }
  return buf;
}

#define ASSERT_LOWERED(type, abi, pos, want_ir, want_n, want_parts)            \
  do {                                                                         \
    cuplug_type_lower_args a_ = lower((type), (abi), (pos));                   \
    ck_assert_str_eq(a_.ir_type, (want_ir));                                   \
    ck_assert_uint_eq(a_.num_parts, (want_n));                                 \
    ck_assert_str_eq(parts_of(&a_), (want_parts));                             \
  } while (0)

/* ---- names ---- */

START_TEST(scalar_names) {
  ck_assert_ptr_eq(parse("int32"), t_api()->type_scalar(CUPLUG_TYPE_INT32));
  ck_assert_ptr_eq(parse("intp"), t_api()->type_scalar(CUPLUG_TYPE_INT64));
  ck_assert_ptr_eq(parse("boolean"), t_api()->type_scalar(CUPLUG_TYPE_BOOL));
  ck_assert_ptr_eq(parse("none"), t_api()->type_scalar(CUPLUG_TYPE_VOID));
  ck_assert_str_eq(parse("float16")->name, "float16");
}
END_TEST

static const struct {
  const char *name;
  cuplug_type_kind kind;
  const char *canonical;
} all_names[] = {
    {"void", CUPLUG_TYPE_VOID, "void"},
    {"none", CUPLUG_TYPE_VOID, "void"},
    {"bool", CUPLUG_TYPE_BOOL, "bool"},
    {"boolean", CUPLUG_TYPE_BOOL, "bool"},
    {"b1", CUPLUG_TYPE_BOOL, "bool"},
    {"int8", CUPLUG_TYPE_INT8, "int8"},
    {"int16", CUPLUG_TYPE_INT16, "int16"},
    {"int32", CUPLUG_TYPE_INT32, "int32"},
    {"int64", CUPLUG_TYPE_INT64, "int64"},
    {"intp", CUPLUG_TYPE_INT64, "int64"},
    {"uint8", CUPLUG_TYPE_UINT8, "uint8"},
    {"uint16", CUPLUG_TYPE_UINT16, "uint16"},
    {"uint32", CUPLUG_TYPE_UINT32, "uint32"},
    {"uint64", CUPLUG_TYPE_UINT64, "uint64"},
    {"uintp", CUPLUG_TYPE_UINT64, "uint64"},
    {"float16", CUPLUG_TYPE_FLOAT16, "float16"},
    {"float32", CUPLUG_TYPE_FLOAT32, "float32"},
    {"float64", CUPLUG_TYPE_FLOAT64, "float64"},
    {"complex64", CUPLUG_TYPE_COMPLEX64, "complex64"},
    {"complex128", CUPLUG_TYPE_COMPLEX128, "complex128"},
    {"i1", CUPLUG_TYPE_INT8, "int8"},
    {"i2", CUPLUG_TYPE_INT16, "int16"},
    {"i4", CUPLUG_TYPE_INT32, "int32"},
    {"i8", CUPLUG_TYPE_INT64, "int64"},
    {"u1", CUPLUG_TYPE_UINT8, "uint8"},
    {"u2", CUPLUG_TYPE_UINT16, "uint16"},
    {"u4", CUPLUG_TYPE_UINT32, "uint32"},
    {"u8", CUPLUG_TYPE_UINT64, "uint64"},
    {"f2", CUPLUG_TYPE_FLOAT16, "float16"},
    {"f4", CUPLUG_TYPE_FLOAT32, "float32"},
    {"f8", CUPLUG_TYPE_FLOAT64, "float64"},
    {"c8", CUPLUG_TYPE_COMPLEX64, "complex64"},
    {"c16", CUPLUG_TYPE_COMPLEX128, "complex128"},
};

/* A loop test: _i indexes all_names. */
START_TEST(every_scalar_name_and_alias) {
  const cuplug_type *t = parse(all_names[_i].name);
  ck_assert_int_eq(t->kind, all_names[_i].kind);
  ck_assert_ptr_eq(t, t_api()->type_scalar(all_names[_i].kind));
  ck_assert_str_eq(t->name, all_names[_i].canonical);
}
END_TEST

START_TEST(type_scalar_only_for_scalar_kinds) {
  ck_assert_ptr_null(t_api()->type_scalar(CUPLUG_TYPE_INVALID));
  ck_assert_ptr_null(t_api()->type_scalar(CUPLUG_TYPE_POINTER));
  ck_assert_ptr_null(t_api()->type_scalar(CUPLUG_TYPE_ARRAY));
  ck_assert_ptr_null(t_api()->type_scalar(CUPLUG_TYPE_SIGNATURE));
  ck_assert_ptr_null(t_api()->type_scalar((cuplug_type_kind)99));
  ck_assert_int_eq(scalar(CUPLUG_TYPE_VOID)->kind, CUPLUG_TYPE_VOID);
  ck_assert_int_eq(scalar(CUPLUG_TYPE_COMPLEX128)->kind, CUPLUG_TYPE_COMPLEX128);
}
END_TEST

START_TEST(unknown_names) {
  ASSERT_PARSE_ERROR("int32(flaot32)", CUPLUG_ERR_UNKNOWN_TYPE,
                     "unknown type 'flaot32' at position 6 of 'int32(flaot32)'");
  ASSERT_PARSE_ERROR("int32x", CUPLUG_ERR_UNKNOWN_TYPE,
                     "unknown type 'int32x' at position 0 of 'int32x'");
  ASSERT_PARSE_ERROR("CPointer(flaot32)", CUPLUG_ERR_UNKNOWN_TYPE,
                     "unknown type 'flaot32' at position 9 of 'CPointer(flaot32)'");
  /* "array" is only a type as numba prints one: array(dtype, Nd, L) */
  ASSERT_PARSE_ERROR("array", CUPLUG_ERR_UNKNOWN_TYPE,
                     "unknown type 'array' at position 0 of 'array'");
}
END_TEST

START_TEST(blanks_are_ignored) {
  const cuplug_type *t = parse("  int32 (  float32 [ :, :: 1 ] ,CPointer( int8 ) ) \n");
  ck_assert_str_eq(t->name, "int32(float32[:, ::1], CPointer(int8))");
  ck_assert_ptr_eq(t, parse("int32(float32[:,::1],int8*)"));
}
END_TEST

/* ---- pointers ---- */

START_TEST(pointer_spellings_are_one_type) {
  const cuplug_type *p = parse("CPointer(float32)");
  ck_assert_int_eq(p->kind, CUPLUG_TYPE_POINTER);
  ck_assert_str_eq(p->name, "CPointer(float32)");
  ck_assert_ptr_eq(p->element, scalar(CUPLUG_TYPE_FLOAT32));
  ck_assert_ptr_eq(parse("float32*"), p);
  ck_assert_ptr_eq(parse("f4 *"), p);
  const cuplug_type *built = NULL;
  T_ASSERT_OK(t_api()->type_pointer(scalar(CUPLUG_TYPE_FLOAT32), &built));
  ck_assert_ptr_eq(built, p);
}
END_TEST

START_TEST(nested_pointers) {
  const cuplug_type *pp = parse("float64**");
  ck_assert_str_eq(pp->name, "CPointer(CPointer(float64))");
  ck_assert_ptr_eq(pp, parse("CPointer(CPointer(float64))"));
  ck_assert_ptr_eq(pp, parse("CPointer(float64*)"));
  ck_assert_ptr_eq(pp, parse("CPointer(float64)*"));
  ck_assert_ptr_eq(pp->element, parse("float64*"));
  ck_assert_ptr_eq(pp->element->element, scalar(CUPLUG_TYPE_FLOAT64));
  ck_assert_str_eq(parse("bool***")->name, "CPointer(CPointer(CPointer(bool)))");
}
END_TEST

START_TEST(pointer_errors) {
  ASSERT_PARSE_ERROR("CPointer(Omitted(\"3\"))", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'CPointer(Omitted(\"3\"))': a pointer must "
                     "point at a scalar, a pointer, a record, void or a signature, not "
                     "Omitted(\"3\")");
  ASSERT_PARSE_ERROR("void(CPointer(class(int8)))", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 5 of 'void(CPointer(class(int8)))': a pointer "
                     "must point at a scalar, a pointer, a record, void or a signature, not "
                     "class(int8)");
  ASSERT_PARSE_ERROR("int32(Opaque(\"m\")*)", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 6 of 'int32(Opaque(\"m\")*)': a pointer must "
                     "point at a scalar, a pointer, a record or void");
  /* a pointer to an array */
  ASSERT_PARSE_ERROR("CPointer(float32[:])", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'CPointer(float32[:])': a pointer must "
                     "point at a scalar, a pointer, a record, void or a signature, not "
                     "float32[:]");
  ASSERT_PARSE_ERROR("float32[::1]*", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'float32[::1]*': a pointer must point "
                     "at a scalar, a pointer, a record or void");
  ASSERT_PARSE_ERROR("CPointer float32", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 9 of 'CPointer float32': "
                     "expected '(' after 'CPointer', found 'float32'");
  ASSERT_PARSE_ERROR("CPointer(float32", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 16 of 'CPointer(float32': "
                     "expected ')' closing CPointer(...), found the end of the text");
}
END_TEST

/* ---- arrays ---- */

static void assert_array(const char *text, const char *name, uint32_t ndim,
                         cuplug_layout layout) {
  const cuplug_type *a = parse(text);
  ck_assert_int_eq(a->kind, CUPLUG_TYPE_ARRAY);
  ck_assert_str_eq(a->name, name);
  ck_assert_uint_eq(a->ndim, ndim);
  ck_assert_int_eq(a->layout, layout);
  ck_assert_ptr_eq(a->element, scalar(CUPLUG_TYPE_FLOAT32));
  ck_assert_ptr_eq(parse(a->name), a);
}

START_TEST(array_layouts) {
  assert_array("float32[:]", "float32[:]", 1, CUPLUG_LAYOUT_ANY);
  assert_array("float32[::1]", "float32[::1]", 1, CUPLUG_LAYOUT_C);
  assert_array("float32[:, ::1]", "float32[:, ::1]", 2, CUPLUG_LAYOUT_C);
  assert_array("float32[::1, :]", "float32[::1, :]", 2, CUPLUG_LAYOUT_F);
  assert_array("float32[:, :]", "float32[:, :]", 2, CUPLUG_LAYOUT_ANY);
  assert_array("float32[:,:,::1]", "float32[:, :, ::1]", 3, CUPLUG_LAYOUT_C);
  assert_array("float32[:, :, :, :, :, :, :, ::1]", "float32[:, :, :, :, :, :, :, ::1]", 8,
               CUPLUG_LAYOUT_C);
}
END_TEST

START_TEST(array_builder_matches_parser) {
  const cuplug_type *f32 = scalar(CUPLUG_TYPE_FLOAT32), *a = NULL;
  T_ASSERT_OK(t_api()->type_array(f32, 2, CUPLUG_LAYOUT_F, &a));
  ck_assert_ptr_eq(a, parse("float32[::1, :]"));
  T_ASSERT_OK(t_api()->type_array(f32, 2, CUPLUG_LAYOUT_ANY, &a));
  ck_assert_ptr_eq(a, parse("float32[:, :]"));
  /* numba calls every contiguous 1-d array C */
  T_ASSERT_OK(t_api()->type_array(f32, 1, CUPLUG_LAYOUT_F, &a));
  ck_assert_ptr_eq(a, parse("float32[::1]"));
  ck_assert_int_eq(a->layout, CUPLUG_LAYOUT_C);
}
END_TEST

START_TEST(numba_printed_array_form) {
  ck_assert_ptr_eq(parse("array(float32, 2d, C)"), parse("float32[:, ::1]"));
  ck_assert_ptr_eq(parse("array(int32, 2d, F)"), parse("int32[::1, :]"));
  ck_assert_ptr_eq(parse("array(float64, 1d, A)"), parse("float64[:]"));
  ck_assert_ptr_eq(parse("array(float64, 1d, F)"), parse("float64[::1]"));
  ck_assert_ptr_eq(parse("void(array(uint8, 3d, A), array(c8, 1d, C))"),
                   parse("void(uint8[:, :, :], complex64[::1])"));
  ASSERT_PARSE_ERROR("array(float32, 2d, X)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 19 of 'array(float32, 2d, X)': "
                     "expected a layout 'C', 'F' or 'A', found 'X'");
  ASSERT_PARSE_ERROR("array(float32, two, C)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 15 of 'array(float32, two, C)': "
                     "expected a rank such as '2d', found 'two'");
  ASSERT_PARSE_ERROR("array(float32, 9d, C)", CUPLUG_ERR_INVALID_TYPE,
                     "array of float32 with 9 dimensions: arrays have 0 to 8");
  /* numba's 0-d array (a NumPy scalar array): no shape, no strides */
  const cuplug_type *zero = parse("array(float32, 0d, C)");
  ck_assert_str_eq(zero->name, "array(float32, 0d, C)");
  ck_assert_ptr_eq(parse(zero->name), zero);
  ck_assert_uint_eq(zero->ndim, 0);
  ck_assert_str_eq(parse("readonly array(int64, 0d, C)")->name, "readonly array(int64, 0d, C)");
  /* an array of signatures cannot be written: the dtype ends at '(' */
  ASSERT_PARSE_ERROR("array(int32(int32), 1d, C)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 11 of 'array(int32(int32), 1d, C)': "
                     "expected ',' after the array's dtype, found '('");
}
END_TEST

START_TEST(array_rank_limit) {
  assert_array("float32[:, :, :, :, :, :, :, :]", "float32[:, :, :, :, :, :, :, :]", 8,
               CUPLUG_LAYOUT_ANY);
  ASSERT_PARSE_ERROR("int8[:, :, :, :, :, :, :, :, :]", CUPLUG_ERR_INVALID_TYPE,
                     "array at position 4 of 'int8[:, :, :, :, :, :, :, :, :]' has 9 "
                     "dimensions: arrays have 0 to 8");
  ASSERT_PARSE_ERROR("void(int32, int8[:, :, :, :, :, :, :, :, ::1])", CUPLUG_ERR_INVALID_TYPE,
                     "array at position 16 of 'void(int32, int8[:, :, :, :, :, :, :, :, ::1])' "
                     "has 9 dimensions: arrays have 0 to 8");
}
END_TEST

START_TEST(array_syntax_errors) {
  ASSERT_PARSE_ERROR("float32[:, ::1, :]", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 7 of 'float32[:, ::1, :]': only the "
                     "first or the last dimension of an array may be '::1'");
  ASSERT_PARSE_ERROR("float32[::1, ::1]", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 7 of 'float32[::1, ::1]': only the "
                     "first or the last dimension of an array may be '::1'");
  ASSERT_PARSE_ERROR("float32[]", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 8 of 'float32[]': expected ':' or "
                     "'::1' (an array dimension), found ']'");
  ASSERT_PARSE_ERROR("float32[::2]", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 10 of 'float32[::2]': expected '1' "
                     "after '::', found '2'");
  ASSERT_PARSE_ERROR("float32[:", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 9 of 'float32[:': expected ',' or "
                     "']', found the end of the text");
}
END_TEST

START_TEST(array_dtype_errors) {
  /* an array of pointers, of arrays, of void */
  ASSERT_PARSE_ERROR("float32*[:]", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'float32*[:]': an array's dtype must be "
                     "bool, an integer, a float, a complex, a record or a tuple of them, not "
                     "CPointer(float32)");
  ASSERT_PARSE_ERROR("int32(int8, float32[:][:])", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 12 of 'int32(int8, float32[:][:])': an array's "
                     "dtype must be bool, an integer, a float, a complex, a record or a tuple of "
                     "them, not float32[:]");
  ASSERT_PARSE_ERROR("void[:]", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'void[:]': an array's dtype must be "
                     "bool, an integer, a float, a complex, a record or a tuple of them, not "
                     "void");
  /* numba's arrays of struct models and of fixed strings hold tuples of
   * scalars: their data is the tuple's struct or array */
  const cuplug_type *chars = parse("array(UniTuple(uint8 x 12), 1d, C)");
  ck_assert_str_eq(chars->name, "UniTuple(uint8 x 12)[::1]");
  const cuplug_type *pairs = parse("Tuple(int32, Tuple(float32, bool))[:]");
  ck_assert_str_eq(pairs->name, "Tuple(int32, Tuple(float32, bool))[:]");
  ASSERT_PARSE_ERROR("Tuple(int32, float32[:])[:]", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'Tuple(int32, float32[:])[:]': an array's "
                     "dtype must be bool, an integer, a float, a complex, a record or a tuple of "
                     "them, not Tuple(int32, float32[:])");
}
END_TEST

START_TEST(canonical_names_round_trip) {
  static const char *const texts[] = {
      "b1[::1]",          "c16[:, :]",       "CPointer(c8)",     "uintp**",
      "none(i4, f2[::1, :])", "array(bool, 4d, F)", "int16(CPointer(CPointer(u2)))",
      "void()",
  };
  static const char *const names[] = {
      "bool[::1]",        "complex128[:, :]", "CPointer(complex64)",
      "CPointer(CPointer(uint64))", "void(int32, float16[::1, :])",
      "bool[::1, :, :, :]", "int16(CPointer(CPointer(uint16)))", "void()",
  };
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    const cuplug_type *t = parse(texts[i]);
    ck_assert_str_eq(t->name, names[i]);
    ck_assert_ptr_eq(parse(t->name), t);
  }
}
END_TEST

/* numba's readonly array: its own type with numba's name, the writable
 * array's data model, and numba's conversions (writable to read-only,
 * never back). */
START_TEST(readonly_arrays) {
  const cuplug_type *ro = parse("readonly array(float32, 1d, C)");
  const cuplug_type *rw = parse("float32[::1]");
  ck_assert_ptr_ne(ro, rw);
  ck_assert_str_eq(ro->name, "readonly array(float32, 1d, C)");
  ck_assert_ptr_eq(parse(ro->name), ro);
  ck_assert_ptr_eq(parse(" readonly  array( f4 , 1d , F ) "), ro); /* 1-d F is C */
  ck_assert_str_eq(parse("readonly array(int16, 3d, A)")->name, "readonly array(int16, 3d, A)");
  ck_assert_str_eq(parse("readonly array(c8, 2d, F)")->name, "readonly array(complex64, 2d, F)");
  const cuplug_type *sig = parse("void(readonly array(float64, 2d, C), float64[:, ::1])");
  ck_assert_str_eq(sig->name, "void(readonly array(float64, 2d, C), float64[:, ::1])");
  ck_assert_ptr_eq(parse(sig->name), sig);
  ck_assert_ptr_ne(sig->args[0], sig->args[1]);
  const cuplug_type *back = NULL;
  T_ASSERT_OK(cuplug__type_array_readonly(ro, false, &back));
  ck_assert_ptr_eq(back, rw);
  T_ASSERT_OK(cuplug__type_array_readonly(rw, true, &back));
  ck_assert_ptr_eq(back, ro);
  T_ASSERT_ERROR(cuplug__type_array_readonly(scalar(CUPLUG_TYPE_INT32), true, &back),
                 CUPLUG_ERR_INVALID_TYPE, "readonly int32: only arrays are read-only");

  ck_assert_int_eq(cuplug__convert(rw, ro, NULL), CUPLUG__CONV_SAFE);
  ck_assert_int_eq(cuplug__convert(rw, parse("readonly array(float32, 1d, A)"), NULL),
                   CUPLUG__CONV_SAFE);
  ck_assert_int_eq(cuplug__convert(ro, rw, NULL), CUPLUG__CONV_NONE);
  ck_assert_int_eq(cuplug__convert(ro, parse("float32[:]"), NULL), CUPLUG__CONV_NONE);
  ck_assert_int_eq(cuplug__convert(parse("float32[:]"), ro, NULL), CUPLUG__CONV_NONE);
  ck_assert_int_eq(cuplug__convert(rw, parse("float32[:]"), NULL), CUPLUG__CONV_SAFE);

  ASSERT_PARSE_ERROR("readonly float32[::1]", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 9 of 'readonly float32[::1]': "
                     "expected 'array(' after 'readonly', found 'float32'");
  ASSERT_PARSE_ERROR("void(readonly)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 13 of 'void(readonly)': "
                     "expected 'array(' after 'readonly', found ')'");
  ASSERT_PARSE_ERROR("readonly array", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 14 of 'readonly array': "
                     "expected '(' after 'array', found the end of the text");
  ASSERT_PARSE_ERROR("readonly array(float32, 1d, C)[:]", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'readonly array(float32, 1d, C)[:]': an "
                     "array's dtype must be bool, an integer, a float, a complex, a record or a "
                     "tuple of them, not readonly array(float32, 1d, C)");
}
END_TEST

/* ---- signatures ---- */

START_TEST(signature_round_trip) {
  const cuplug_type *s = parse("int64(int32, float32[::1], CPointer(float64))");
  ck_assert_int_eq(s->kind, CUPLUG_TYPE_SIGNATURE);
  ck_assert_str_eq(s->name, "int64(int32, float32[::1], CPointer(float64))");
  ck_assert_ptr_eq(parse(s->name), s);
}
END_TEST

START_TEST(signature_parts) {
  const cuplug_type *s = parse("void(int32)");
  ck_assert_str_eq(s->name, "void(int32)");
  ck_assert_ptr_eq(s->restype, scalar(CUPLUG_TYPE_VOID));
  ck_assert_uint_eq(s->nargs, 1);
  ck_assert_ptr_eq(s->args[0], scalar(CUPLUG_TYPE_INT32));
  ck_assert_ptr_eq(parse("none(i4)"), s);

  const cuplug_type *e = parse("f8()");
  ck_assert_str_eq(e->name, "float64()");
  ck_assert_uint_eq(e->nargs, 0);

  const cuplug_type *m = parse("b1(u1, c8[:, ::1], intp*)");
  ck_assert_str_eq(m->name, "bool(uint8, complex64[:, ::1], CPointer(int64))");
  ck_assert_uint_eq(m->nargs, 3);
  ck_assert_ptr_eq(m->args[1], parse("complex64[:, ::1]"));
  ck_assert_ptr_eq(m->args[2], parse("CPointer(int64)"));
  ck_assert_ptr_ne(m, parse("b1(u1, c8[:, ::1], intp)"));
}
END_TEST

START_TEST(signature_builder_matches_parser) {
  const cuplug_type *args[] = {scalar(CUPLUG_TYPE_INT32), parse("float32[::1]")};
  const cuplug_type *s = NULL;
  T_ASSERT_OK(t_api()->type_signature(scalar(CUPLUG_TYPE_INT64), args, 2, &s));
  ck_assert_ptr_eq(s, parse("int64(int32, float32[::1])"));
  T_ASSERT_OK(t_api()->type_signature(scalar(CUPLUG_TYPE_VOID), NULL, 0, &s));
  ck_assert_ptr_eq(s, parse("void()"));
}
END_TEST

START_TEST(syntax_error_names_text_and_position) {
  const cuplug_type *t;
  T_ASSERT_ERROR(t_api()->type_parse("int32(int32,, float32)", &t), CUPLUG_ERR_SIGNATURE_SYNTAX,
                 "signature syntax error at position 12 of 'int32(int32,, float32)': "
                 "expected a type, found ','");
}
END_TEST

START_TEST(signature_syntax_errors) {
  ASSERT_PARSE_ERROR("int32(,)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 6 of 'int32(,)': expected a type, "
                     "found ','");
  ASSERT_PARSE_ERROR("int32(int32", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 11 of 'int32(int32': expected ',' or "
                     "')' in the argument list, found the end of the text");
  ASSERT_PARSE_ERROR("int32(int32 float32)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 12 of 'int32(int32 float32)': "
                     "expected ',' or ')' in the argument list, found 'float32'");
  ASSERT_PARSE_ERROR("int32(int32) x", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 13 of 'int32(int32) x': expected the "
                     "end of the text, found 'x'");
  ASSERT_PARSE_ERROR("int32 float32", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 6 of 'int32 float32': expected the "
                     "end of the text, found 'float32'");
  /* a signature cannot be a return type, nor an array's dtype */
  ASSERT_PARSE_ERROR("int32(int32)(int32)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 12 of 'int32(int32)(int32)': "
                     "expected the end of the text, found '('");
  ASSERT_PARSE_ERROR("int32(int32)[:]", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 12 of 'int32(int32)[:]': "
                     "expected the end of the text, found '['");
  ASSERT_PARSE_ERROR("", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 0 of '': expected a type, found "
                     "the end of the text");
  ASSERT_PARSE_ERROR("   ", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 3 of '   ': expected a type, found "
                     "the end of the text");
  ASSERT_PARSE_ERROR("1int(int32)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 0 of '1int(int32)': expected a "
                     "type, found '1int'");
}
END_TEST

/* Messages are UTF-8 (cuplug.h): a non-ASCII culprit is quoted whole. */
START_TEST(syntax_error_quotes_utf8_whole) {
  ASSERT_PARSE_ERROR("int32(\xc3\xa9)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 6 of 'int32(\xc3\xa9)': expected a "
                     "type, found '\xc3\xa9'");
}
END_TEST

START_TEST(void_argument) {
  ASSERT_PARSE_ERROR("int32(void)", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 6 of 'int32(void)': an argument cannot be void");
  ASSERT_PARSE_ERROR("int32(int32, none)", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 13 of 'int32(int32, none)': an argument "
                     "cannot be void");
}
END_TEST

static char *many_args(size_t n) {
  static char buf[8192];
  strcpy(buf, "void(");
  for (size_t i = 0; i < n; i++) strcat(buf, i ? ", int32" : "int32");
  strcat(buf, ")");
  return buf;
}

START_TEST(argument_count_limit) {
  ck_assert_uint_eq(parse(many_args(256))->nargs, 256);
  char text[8192], want[8300];
  strcpy(text, many_args(257));
  snprintf(want, sizeof want, "signature '%.64s...' has more than 256 arguments", text);
  ASSERT_PARSE_ERROR(text, CUPLUG_ERR_LIMIT, want);
}
END_TEST

START_TEST(signature_parse_insists_on_a_signature) {
  const cuplug_type *t = NULL;
  T_ASSERT_OK(cuplug__signature_parse("void(int32)", &t));
  ck_assert_ptr_eq(t, parse("void(int32)"));
  T_ASSERT_ERROR(cuplug__signature_parse("int32", &t), CUPLUG_ERR_SIGNATURE_SYNTAX,
                 "signature syntax error at position 5 of 'int32': expected '(' and an "
                 "argument list (a signature), found the end of the text");
}
END_TEST

/* ---- builders' errors ---- */

START_TEST(builders_refuse_null) {
  const cuplug_type *i32 = scalar(CUPLUG_TYPE_INT32), *t = NULL;
  T_ASSERT_ERROR(t_api()->type_parse(NULL, &t), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_parse: NULL argument");
  T_ASSERT_ERROR(t_api()->type_parse("int32", NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_parse: out is NULL");
  T_ASSERT_ERROR(t_api()->type_pointer(NULL, &t), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_pointer: NULL argument");
  T_ASSERT_ERROR(t_api()->type_pointer(i32, NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_pointer: NULL argument");
  T_ASSERT_ERROR(t_api()->type_array(NULL, 1, CUPLUG_LAYOUT_C, &t),
                 CUPLUG_ERR_INVALID_ARGUMENT, "type_array: NULL argument");
  T_ASSERT_ERROR(t_api()->type_array(i32, 1, CUPLUG_LAYOUT_C, NULL),
                 CUPLUG_ERR_INVALID_ARGUMENT, "type_array: NULL argument");
  T_ASSERT_ERROR(t_api()->type_signature(NULL, NULL, 0, &t), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_signature: NULL argument");
  T_ASSERT_ERROR(t_api()->type_signature(i32, NULL, 1, &t), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_signature: NULL argument");
  const cuplug_type *args[] = {i32, NULL};
  T_ASSERT_ERROR(t_api()->type_signature(i32, args, 2, &t), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_signature: argument 1 is NULL");
  ck_assert_ptr_null(t);
}
END_TEST

START_TEST(builders_refuse_impossible_types) {
  const cuplug_type *sig = parse("int32(int32)"), *t = NULL;
  const cuplug_type *f32 = scalar(CUPLUG_TYPE_FLOAT32);
  T_ASSERT_ERROR(t_api()->type_pointer(parse("Omitted(\"x\")"), &t), CUPLUG_ERR_INVALID_TYPE,
                 "CPointer(Omitted(\"x\")): a pointer must point at a scalar, a pointer, a "
                 "record, void or a signature");
  T_ASSERT_ERROR(t_api()->type_pointer(parse("class(int8)"), &t), CUPLUG_ERR_INVALID_TYPE,
                 "CPointer(class(int8)): a pointer must point at a scalar, a pointer, a "
                 "record, void or a signature");
  T_ASSERT_ERROR(t_api()->type_pointer(parse("f4[:]"), &t), CUPLUG_ERR_INVALID_TYPE,
                 "CPointer(float32[:]): a pointer must point at a scalar, a pointer, a "
                 "record, void or a signature");
  T_ASSERT_ERROR(t_api()->type_array(sig, 1, CUPLUG_LAYOUT_C, &t), CUPLUG_ERR_INVALID_TYPE,
                 "array of int32(int32): an array's dtype must be bool, an integer, a float, "
                 "a complex, a record or a tuple of them");
  T_ASSERT_ERROR(t_api()->type_array(parse("f4*"), 1, CUPLUG_LAYOUT_C, &t),
                 CUPLUG_ERR_INVALID_TYPE,
                 "array of CPointer(float32): an array's dtype must be bool, an integer, a "
                 "float, a complex, a record or a tuple of them");
  T_ASSERT_ERROR(t_api()->type_array(f32, 9, CUPLUG_LAYOUT_ANY, &t), CUPLUG_ERR_INVALID_TYPE,
                 "array of float32 with 9 dimensions: arrays have 0 to 8");
  T_ASSERT_ERROR(t_api()->type_array(f32, 2, (cuplug_layout)3, &t),
                 CUPLUG_ERR_INVALID_ARGUMENT, "type_array: layout 3 is not ANY, C or F");
  T_ASSERT_ERROR(t_api()->type_signature(sig, NULL, 0, &t), CUPLUG_ERR_INVALID_TYPE,
                 "a signature cannot return int32(int32)");
  const cuplug_type *bad[] = {f32, scalar(CUPLUG_TYPE_VOID)};
  T_ASSERT_ERROR(t_api()->type_signature(f32, bad, 2, &t), CUPLUG_ERR_INVALID_TYPE,
                 "argument 1 of a signature cannot be void");
  const cuplug_type *fn[] = {sig};
  T_ASSERT_ERROR(t_api()->type_signature(f32, fn, 1, &t), CUPLUG_ERR_INVALID_TYPE,
                 "argument 0 of a signature cannot be int32(int32)");
  ck_assert_ptr_null(t);
}
END_TEST

/* ---- type_info ---- */

START_TEST(info_of_scalar) {
  cuplug_type_info i = info(parse("i4"));
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_INT32);
  ck_assert_str_eq(i.name, "int32");
  ck_assert_ptr_null(i.element);
  ck_assert_uint_eq(i.ndim, 0);
  ck_assert_int_eq(i.layout, CUPLUG_LAYOUT_ANY);
  ck_assert_ptr_null(i.restype);
  ck_assert_uint_eq(i.num_args, 0);
  ck_assert_ptr_null(i.args);
  ck_assert_uint_eq(i.size, 4);
  ck_assert_uint_eq(info(parse("void")).size, 0);
  ck_assert_uint_eq(info(parse("bool")).size, 1);
  ck_assert_uint_eq(info(parse("float16")).size, 2);
  ck_assert_uint_eq(info(parse("uint64")).size, 8);
  ck_assert_uint_eq(info(parse("complex64")).size, 8);
  ck_assert_uint_eq(info(parse("complex128")).size, 16);
}
END_TEST

START_TEST(info_of_pointer) {
  cuplug_type_info i = info(parse("complex128*"));
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_POINTER);
  ck_assert_str_eq(i.name, "CPointer(complex128)");
  ck_assert_ptr_eq(i.element, scalar(CUPLUG_TYPE_COMPLEX128));
  ck_assert_uint_eq(i.ndim, 0);
  ck_assert_ptr_null(i.restype);
  ck_assert_uint_eq(i.size, 8);
}
END_TEST

START_TEST(info_of_array) {
  cuplug_type_info i = info(parse("array(int16, 3d, F)"));
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_ARRAY);
  ck_assert_str_eq(i.name, "int16[::1, :, :]");
  ck_assert_ptr_eq(i.element, scalar(CUPLUG_TYPE_INT16));
  ck_assert_uint_eq(i.ndim, 3);
  ck_assert_int_eq(i.layout, CUPLUG_LAYOUT_F);
  ck_assert_ptr_null(i.restype);
  ck_assert_uint_eq(i.num_args, 0);
  ck_assert_uint_eq(i.size, 0);
}
END_TEST

START_TEST(info_of_readonly_array) {
  cuplug_type_info i = info(parse("readonly array(int16, 3d, F)"));
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_ARRAY);
  ck_assert_str_eq(i.name, "readonly array(int16, 3d, F)");
  ck_assert_ptr_eq(i.element, scalar(CUPLUG_TYPE_INT16));
  ck_assert_uint_eq(i.ndim, 3);
  ck_assert_int_eq(i.layout, CUPLUG_LAYOUT_F);
  ck_assert_uint_eq(i.readonly, 1);
  ck_assert_uint_eq(info(parse("int16[::1, :, :]")).readonly, 0);
  ck_assert_uint_eq(info(scalar(CUPLUG_TYPE_INT16)).readonly, 0);
}
END_TEST

START_TEST(info_of_signature) {
  const cuplug_type *s = parse("int64(int32, float32[::1])");
  cuplug_type_info i = info(s);
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_SIGNATURE);
  ck_assert_str_eq(i.name, "int64(int32, float32[::1])");
  ck_assert_ptr_null(i.element);
  ck_assert_ptr_eq(i.restype, scalar(CUPLUG_TYPE_INT64));
  ck_assert_uint_eq(i.num_args, 2);
  ck_assert_ptr_eq(i.args[0], scalar(CUPLUG_TYPE_INT32));
  ck_assert_ptr_eq(i.args[1], parse("float32[::1]"));
  ck_assert_uint_eq(i.size, 0);
  ck_assert_ptr_eq(parse(i.name), s);
}
END_TEST

START_TEST(info_refuses_bad_args) {
  cuplug_type_info i = {.struct_size = sizeof i};
  T_ASSERT_ERROR(t_api()->type_info(&i), CUPLUG_ERR_INVALID_ARGUMENT, "type_info: type is NULL");
  T_ASSERT_ERROR(t_api()->type_info(NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_type_info is NULL");
  i = (cuplug_type_info){.struct_size = 0, .type = parse("int32")};
  T_ASSERT_ERROR(t_api()->type_info(&i), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_type_info has struct_size 0, less than the 16 bytes of its first version: "
                 "set struct_size = sizeof(cuplug_type_info)");
}
END_TEST

/* A caller built against an older header: fields past its struct_size are
 * neither read nor written. */
START_TEST(info_fills_only_the_callers_struct) {
  cuplug_type_info i = {.struct_size = offsetof(cuplug_type_info, name),
                        .type = parse("float32[::1]"), .name = "untouched"};
  T_ASSERT_OK(t_api()->type_info(&i));
  ck_assert_uint_eq(i.struct_size, offsetof(cuplug_type_info, name));
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_ARRAY);
  ck_assert_str_eq(i.name, "untouched");
  ck_assert_ptr_null(i.element);
}
END_TEST

/* A caller built against a newer header that sets a field this plugin lacks. */
START_TEST(info_refuses_unknown_fields) {
  struct {
    cuplug_type_info info;
    uint64_t newer;
  } n = {.info = {.struct_size = sizeof n, .type = parse("int32")}, .newer = 0};
  T_ASSERT_OK(t_api()->type_info(&n.info));
  ck_assert_str_eq(n.info.name, "int32");
  n.newer = 1;
  char want[256];
  snprintf(want, sizeof want,
           "cuplug_type_info sets byte %zu, beyond the %zu bytes this plugin (ABI %d.%d) "
           "knows: a field of a newer ABI that it cannot honour",
           sizeof(cuplug_type_info), sizeof(cuplug_type_info), CUPLUG_ABI_MAJOR,
           CUPLUG_ABI_MINOR);
  T_ASSERT_ERROR(t_api()->type_info(&n.info), CUPLUG_ERR_ABI_FIELD, want);
}
END_TEST

/* ---- the data model ---- */

START_TEST(data_model_numba_signature) {
  cuplug_type_lower_args a = {.struct_size = sizeof a, .type = parse("int64(int32, int32)"),
                              .abi = CUPLUG_ABI_NUMBA};
  T_ASSERT_OK(t_api()->type_lower(&a));
  ck_assert_str_eq(a.ir_type, "i32 (i64*, i32, i32)");
}
END_TEST

START_TEST(argument_scalars) {
  const cuplug_abi N = CUPLUG_ABI_NUMBA;
  const cuplug_position A = CUPLUG_POSITION_ARGUMENT;
  ASSERT_LOWERED("int32", N, A, "i32", 1, "i32");
  ASSERT_LOWERED("bool", N, A, "i8", 1, "i8");
  ASSERT_LOWERED("uint16", N, A, "i16", 1, "i16");
  ASSERT_LOWERED("float16", N, A, "i16", 1, "i16"); /* numba-cuda's model */
  ASSERT_LOWERED("float64", N, A, "double", 1, "double");
  ASSERT_LOWERED("complex64", N, A, "{float, float}", 2, "float | float");
  ASSERT_LOWERED("complex128", N, A, "{double, double}", 2, "double | double");
  /* arguments are the same under the C ABI */
  ASSERT_LOWERED("complex64", CUPLUG_ABI_C, A, "{float, float}", 2, "float | float");
  ASSERT_LOWERED("bool", CUPLUG_ABI_C, A, "i8", 1, "i8");
}
END_TEST

START_TEST(argument_pointers) {
  const cuplug_abi N = CUPLUG_ABI_NUMBA;
  const cuplug_position A = CUPLUG_POSITION_ARGUMENT;
  ASSERT_LOWERED("CPointer(bool)", N, A, "i8*", 1, "i8*");
  ASSERT_LOWERED("CPointer(complex128)", N, A, "{double, double}*", 1, "{double, double}*");
  ASSERT_LOWERED("CPointer(CPointer(float32))", N, A, "float**", 1, "float**");
  ASSERT_LOWERED("float16*", CUPLUG_ABI_C, A, "i16*", 1, "i16*");
}
END_TEST

START_TEST(argument_arrays) {
  const cuplug_abi N = CUPLUG_ABI_NUMBA;
  const cuplug_position A = CUPLUG_POSITION_ARGUMENT;
  ASSERT_LOWERED("float32[:, ::1]", N, A, "{i8*, i8*, i64, i64, float*, [2 x i64], [2 x i64]}",
                 9, "i8* | i8* | i64 | i64 | float* | i64 | i64 | i64 | i64");
  ASSERT_LOWERED("bool[:]", N, A, "{i8*, i8*, i64, i64, i8*, [1 x i64], [1 x i64]}", 7,
                 "i8* | i8* | i64 | i64 | i8* | i64 | i64");
  ASSERT_LOWERED("complex64[::1]", CUPLUG_ABI_C, A,
                 "{i8*, i8*, i64, i64, {float, float}*, [1 x i64], [1 x i64]}", 7,
                 "i8* | i8* | i64 | i64 | {float, float}* | i64 | i64");
  /* numba's [char x 12] and its 0-d arrays */
  ASSERT_LOWERED("UniTuple(uint8 x 12)[::1]", N, A,
                 "{i8*, i8*, i64, i64, [12 x i8]*, [1 x i64], [1 x i64]}", 7,
                 "i8* | i8* | i64 | i64 | [12 x i8]* | i64 | i64");
  ASSERT_LOWERED("array(int64, 0d, C)", N, A, "{i8*, i8*, i64, i64, i64*, [0 x i64], [0 x i64]}",
                 5, "i8* | i8* | i64 | i64 | i64*");
}
END_TEST

START_TEST(readonly_arrays_lower_as_arrays) {
  const cuplug_abi N = CUPLUG_ABI_NUMBA;
  const cuplug_position A = CUPLUG_POSITION_ARGUMENT;
  ASSERT_LOWERED("readonly array(float32, 2d, C)", N, A,
                 "{i8*, i8*, i64, i64, float*, [2 x i64], [2 x i64]}", 9,
                 "i8* | i8* | i64 | i64 | float* | i64 | i64 | i64 | i64");
  ASSERT_LOWERED("void(readonly array(int32, 1d, A), int32[:])", N, A,
                 "i32 (i8**, i8*, i8*, i64, i64, i32*, i64, i64, i8*, i8*, i64, i64, i32*, "
                 "i64, i64)",
                 15,
                 "i8** | i8* | i8* | i64 | i64 | i32* | i64 | i64 | i8* | i8* | i64 | i64 | "
                 "i32* | i64 | i64");
}
END_TEST

START_TEST(return_slots) {
  const cuplug_position R = CUPLUG_POSITION_RETURN;
  /* numba: the pointee of the return slot; none gets a pointer model */
  ASSERT_LOWERED("void", CUPLUG_ABI_NUMBA, R, "i8*", 1, "i8*");
  ASSERT_LOWERED("bool", CUPLUG_ABI_NUMBA, R, "i8", 1, "i8");
  ASSERT_LOWERED("complex64", CUPLUG_ABI_NUMBA, R, "{float, float}", 1, "{float, float}");
  ASSERT_LOWERED("float32*", CUPLUG_ABI_NUMBA, R, "float*", 1, "float*");
  /* C: the value itself */
  ASSERT_LOWERED("bool", CUPLUG_ABI_C, R, "i8", 0, "");
  ASSERT_LOWERED("void", CUPLUG_ABI_C, R, "void", 0, "");
  ASSERT_LOWERED("complex64", CUPLUG_ABI_C, R, "{float, float}", 0, "");
  ASSERT_LOWERED("int64", CUPLUG_ABI_C, R, "i64", 0, "");
}
END_TEST

START_TEST(signatures_lower_to_function_types) {
  const cuplug_position A = CUPLUG_POSITION_ARGUMENT;
  ASSERT_LOWERED("int64(int32, int32)", CUPLUG_ABI_NUMBA, A, "i32 (i64*, i32, i32)", 3,
                 "i64* | i32 | i32");
  ASSERT_LOWERED("int64(int32, int32)", CUPLUG_ABI_C, A, "i64 (i32, i32)", 2, "i32 | i32");
  ASSERT_LOWERED("int64(int32, int32)", CUPLUG_ABI_DEFAULT, A, "i32 (i64*, i32, i32)", 3,
                 "i64* | i32 | i32");
  ASSERT_LOWERED("void(float32[::1], float32)", CUPLUG_ABI_NUMBA, A,
                 "i32 (i8**, i8*, i8*, i64, i64, float*, i64, i64, float)", 9,
                 "i8** | i8* | i8* | i64 | i64 | float* | i64 | i64 | float");
  ASSERT_LOWERED("void(float32[::1], float32)", CUPLUG_ABI_C, A,
                 "void (i8*, i8*, i64, i64, float*, i64, i64, float)", 8,
                 "i8* | i8* | i64 | i64 | float* | i64 | i64 | float");
  ASSERT_LOWERED("complex64(complex64, bool)", CUPLUG_ABI_NUMBA, A,
                 "i32 ({float, float}*, float, float, i8)", 4,
                 "{float, float}* | float | float | i8");
  ASSERT_LOWERED("complex64(complex64, bool)", CUPLUG_ABI_C, A,
                 "{float, float} (float, float, i8)", 3, "float | float | i8");
  ASSERT_LOWERED("void()", CUPLUG_ABI_NUMBA, A, "i32 (i8**)", 1, "i8**");
  ASSERT_LOWERED("void()", CUPLUG_ABI_C, A, "void ()", 0, "");
}
END_TEST

START_TEST(lower_refuses_bad_args) {
  cuplug_type_lower_args a = {.struct_size = sizeof a, .type = parse("void")};
  T_ASSERT_ERROR(t_api()->type_lower(&a), CUPLUG_ERR_INVALID_TYPE,
                 "void is not an argument type");
  a = (cuplug_type_lower_args){.struct_size = sizeof a, .type = parse("int32"),
                               .abi = (cuplug_abi)3};
  T_ASSERT_ERROR(t_api()->type_lower(&a), CUPLUG_ERR_OPTION_ABI, "Unsupported ABI: 3 (numba or c)");
  a = (cuplug_type_lower_args){.struct_size = sizeof a, .type = parse("int32"),
                               .position = (cuplug_position)2};
  T_ASSERT_ERROR(t_api()->type_lower(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_lower: position 2 is not one");
  a = (cuplug_type_lower_args){.struct_size = sizeof a};
  T_ASSERT_ERROR(t_api()->type_lower(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "type_lower: type is NULL");
  T_ASSERT_ERROR(t_api()->type_lower(NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_type_lower_args is NULL");
  a = (cuplug_type_lower_args){.struct_size = 0, .type = parse("int32")};
  T_ASSERT_ERROR(t_api()->type_lower(&a), CUPLUG_ERR_INVALID_ARGUMENT,
                 "cuplug_type_lower_args has struct_size 0, less than the 24 bytes of its "
                 "first version: set struct_size = sizeof(cuplug_type_lower_args)");
  ck_assert_ptr_null(a.ir_type);
}
END_TEST

/* ---- threads ---- */

#define NTHREADS 8
#define ROUNDS 200

static const char *const shared_texts[] = {
    "int16(CPointer(CPointer(uint16)), complex64[:, :, ::1])",
    "float64(float64, float64)",
    "void(int8[::1, :], b1, c16*)",
    "c16(c8, f2[:], u8**)",
};
#define NSHARED (sizeof shared_texts / sizeof shared_texts[0])

typedef struct job {
  int id;
  pthread_barrier_t *start;
  const cuplug_type *shared[NSHARED]; /* the first pointer of each */
  const cuplug_type *own;             /* a type only this thread makes */
  const cuplug_type *built;           /* float32** through the builders */
  int mismatches;
  int errors;
} job;

/* "int32(" + CPointer( x (id + 1) + uint32[:] ... + ")": unique per thread. */
static void own_text(int id, char *buf, size_t size) {
  int n = snprintf(buf, size, "int32(");
  for (int i = 0; i <= id; i++) n += snprintf(buf + n, size - (size_t)n, "CPointer(");
  n += snprintf(buf + n, size - (size_t)n, "uint32");
  for (int i = 0; i <= id; i++) n += snprintf(buf + n, size - (size_t)n, ")");
  snprintf(buf + n, size - (size_t)n, ", float32[:, ::1])");
}

static void *parse_many(void *arg) {
  job *j = arg;
  const cuplug_api *api = t_api();
  char text[256];
  own_text(j->id, text, sizeof text);
  pthread_barrier_wait(j->start);
  for (int r = 0; r < ROUNDS; r++) {
    for (size_t k = 0; k < NSHARED; k++) {
      const cuplug_type *t = NULL;
      cuplug_error *e = api->type_parse(shared_texts[(k + (size_t)j->id) % NSHARED], &t);
      if (e) {
        j->errors++;
        api->error_destroy(e);
        continue;
      }
      size_t slot = (k + (size_t)j->id) % NSHARED;
      if (!j->shared[slot]) j->shared[slot] = t;
      if (j->shared[slot] != t) j->mismatches++;
    }
    const cuplug_type *own = NULL, *p = NULL, *pp = NULL;
    cuplug_error *e = api->type_parse(text, &own);
    if (!e) e = api->type_pointer(api->type_scalar(CUPLUG_TYPE_FLOAT32), &p);
    if (!e) e = api->type_pointer(p, &pp);
    if (e) {
      j->errors++;
      api->error_destroy(e);
      continue;
    }
    if (!j->own) j->own = own;
    if (!j->built) j->built = pp;
    if (j->own != own || j->built != pp) j->mismatches++;
  }
  return NULL;
}

START_TEST(concurrent_interning) {
  (void)t_api(); /* its lazy init is not meant for racing threads */
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, NTHREADS);
  pthread_t th[NTHREADS];
  job jobs[NTHREADS];
  memset(jobs, 0, sizeof jobs);
  for (int i = 0; i < NTHREADS; i++) {
    jobs[i].id = i;
    jobs[i].start = &start;
    ck_assert_int_eq(pthread_create(&th[i], NULL, parse_many, &jobs[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&start);

  for (int i = 0; i < NTHREADS; i++) {
    ck_assert_int_eq(jobs[i].errors, 0);
    ck_assert_int_eq(jobs[i].mismatches, 0);
    for (size_t k = 0; k < NSHARED; k++)
      ck_assert_ptr_eq(jobs[i].shared[k], parse(shared_texts[k]));
    char text[256];
    own_text(i, text, sizeof text);
    ck_assert_ptr_eq(jobs[i].own, parse(text));
    ck_assert_ptr_eq(jobs[i].built, parse("float32**"));
    for (int k = 0; k < i; k++) ck_assert_ptr_ne(jobs[i].own, jobs[k].own);
  }
  ck_assert_str_eq(jobs[2].own->name,
                   "int32(CPointer(CPointer(CPointer(uint32))), float32[:, ::1])");
}
END_TEST

/* ---- since 1.2: tuples, integer literals, number classes ---- */

START_TEST(tuples) {
  const cuplug_type *u = parse("UniTuple(int64 x 2)");
  ck_assert_ptr_eq(parse("UniTuple(int64, 2)"), u);
  ck_assert_ptr_eq(parse("Tuple(int64, int64)"), u); /* a uniform tuple is a UniTuple */
  ck_assert_str_eq(info(u).name, "UniTuple(int64 x 2)");
  ck_assert_int_eq(info(u).kind, CUPLUG_TYPE_TUPLE);
  ck_assert_uint_eq(info(u).num_args, 2);
  ck_assert_ptr_eq(info(u).args[1], scalar(CUPLUG_TYPE_INT64));
  ck_assert_str_eq(info(parse("Tuple(float32, int32)")).name, "Tuple(float32, int32)");
  ck_assert_str_eq(info(parse("Tuple()")).name, "Tuple()");
  ck_assert_str_eq(info(parse("UniTuple(UniTuple(int8 x 2) x 3)")).name,
                   "UniTuple(UniTuple(int8 x 2) x 3)");
  const cuplug_type *elems[] = {scalar(CUPLUG_TYPE_FLOAT32), scalar(CUPLUG_TYPE_INT32)};
  const cuplug_type *t;
  T_ASSERT_OK(t_api()->type_tuple(elems, 2, &t));
  ck_assert_ptr_eq(t, parse("Tuple(float32, int32)"));
  /* numba's data model: [N x T] for a UniTuple, a struct otherwise; flattened as arguments */
  const cuplug_abi C = CUPLUG_ABI_C;
  ASSERT_LOWERED("UniTuple(int64 x 2)", C, CUPLUG_POSITION_ARGUMENT, "[2 x i64]", 2, "i64 | i64");
  ASSERT_LOWERED("Tuple(float32, int32)", C, CUPLUG_POSITION_RETURN, "{float, i32}", 0, "");
  ASSERT_LOWERED("Tuple(float32[:], int8)", C, CUPLUG_POSITION_ARGUMENT,
                 "{{i8*, i8*, i64, i64, float*, [1 x i64], [1 x i64]}, i8}", 8,
                 "i8* | i8* | i64 | i64 | float* | i64 | i64 | i8");
  ASSERT_PARSE_ERROR("UniTuple(int64 x 0)", CUPLUG_ERR_INVALID_TYPE,
                     "tuple length 0 at position 17 of 'UniTuple(int64 x 0)': 1 to 256");
  ASSERT_PARSE_ERROR("UniTuple(int64 y 2)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 15 of 'UniTuple(int64 y 2)': expected "
                     "'x' or ',' and the tuple's length, found 'y'");
  ASSERT_PARSE_ERROR("Tuple(int32, void)", CUPLUG_ERR_INVALID_TYPE,
                     "element 1 of a tuple cannot be void");
  ASSERT_PARSE_ERROR("CPointer(UniTuple(int8 x 2))", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'CPointer(UniTuple(int8 x 2))': a pointer "
                     "must point at a scalar, a pointer, a record, void or a signature, not "
                     "UniTuple(int8 x 2)");
}
END_TEST

START_TEST(integer_literals) {
  const cuplug_type *t = parse("Literal[int](2)");
  ck_assert_int_eq(info(t).kind, CUPLUG_TYPE_INT_LITERAL);
  ck_assert_int_eq(info(t).literal_value, 2);
  ck_assert_str_eq(info(parse("Literal[int](-9223372036854775808)")).name,
                   "Literal[int](-9223372036854775808)");
  const cuplug_type *b;
  T_ASSERT_OK(t_api()->type_int_literal(2, &b));
  ck_assert_ptr_eq(b, t);
  ck_assert_ptr_ne(parse("Literal[int](3)"), t);
  ASSERT_LOWERED("Literal[int](7)", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "i64", 1, "i64");
  ASSERT_PARSE_ERROR("Literal[float](1.5)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 8 of 'Literal[float](1.5)': expected "
                     "'int' (the only literals are integers), found 'float'");
  ASSERT_PARSE_ERROR("Literal[int](9223372036854775808)", CUPLUG_ERR_INVALID_TYPE,
                     "integer at position 13 of 'Literal[int](9223372036854775808)' does not "
                     "fit in int64");
  ASSERT_PARSE_ERROR("Literal[int](x)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 13 of 'Literal[int](x)': expected an "
                     "integer, found 'x'");
}
END_TEST

START_TEST(number_classes) {
  const cuplug_type *t = parse("class(float32)");
  ck_assert_int_eq(info(t).kind, CUPLUG_TYPE_NUMBER_CLASS);
  ck_assert_ptr_eq(info(t).element, scalar(CUPLUG_TYPE_FLOAT32));
  const cuplug_type *b;
  T_ASSERT_OK(t_api()->type_number_class(scalar(CUPLUG_TYPE_FLOAT32), &b));
  ck_assert_ptr_eq(b, t);
  /* it has no value: no parameter */
  ASSERT_LOWERED("class(int8)", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "{}", 0, "");
  ck_assert_str_eq(info(parse("float32[::1](Literal[int](4), class(float32))")).name,
                   "float32[::1](Literal[int](4), class(float32))");
  ASSERT_PARSE_ERROR("class(float32[:])", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 6 of 'class(float32[:])': a number class is of "
                     "bool, an integer, a float or a complex, not float32[:]");
  ASSERT_PARSE_ERROR("class(int32)()", CUPLUG_ERR_INVALID_TYPE,
                     "a signature cannot return class(int32)");
  T_ASSERT_ERROR(t_api()->type_number_class(parse("CPointer(int8)"), &b), CUPLUG_ERR_INVALID_TYPE,
                 "class(CPointer(int8)): a number class is of bool, an integer, a float or a "
                 "complex");
}
END_TEST

/* ---- since 1.3: bfloat16, records, function pointers, void*, opaque and
 * omitted values ---- */

START_TEST(bfloat16_is_a_narrow_float) {
  const cuplug_type *t = parse("bfloat16");
  ck_assert_ptr_eq(t, scalar(CUPLUG_TYPE_BFLOAT16));
  ck_assert_ptr_eq(parse("__nv_bfloat16"), t);
  cuplug_type_info i = info(t);
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_BFLOAT16);
  ck_assert_str_eq(i.name, "bfloat16");
  ck_assert_uint_eq(i.size, 2);
  ASSERT_LOWERED("bfloat16", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT, "i16", 1, "i16");
  ASSERT_LOWERED("bfloat16", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN, "i16", 1, "i16");
  ASSERT_LOWERED("bfloat16", CUPLUG_ABI_C, CUPLUG_POSITION_RETURN, "i16", 0, "");
  ASSERT_LOWERED("bfloat16[::1]", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT,
                 "{i8*, i8*, i64, i64, i16*, [1 x i64], [1 x i64]}", 7,
                 "i8* | i8* | i64 | i64 | i16* | i64 | i64");
  ck_assert_str_eq(parse("bfloat16(bfloat16, CPointer(bfloat16))")->name,
                   "bfloat16(bfloat16, CPointer(bfloat16))");
  const cuplug_type *f32 = scalar(CUPLUG_TYPE_FLOAT32);
  ck_assert_int_eq(cuplug__convert(t, f32, NULL), CUPLUG__CONV_PROMOTE);
  ck_assert_int_eq(cuplug__convert(t, scalar(CUPLUG_TYPE_FLOAT64), NULL), CUPLUG__CONV_PROMOTE);
  ck_assert_int_eq(cuplug__convert(f32, t, NULL), CUPLUG__CONV_UNSAFE);
  ck_assert_int_eq(cuplug__convert(scalar(CUPLUG_TYPE_INT8), t, NULL), CUPLUG__CONV_SAFE);
  ck_assert_int_eq(cuplug__convert(scalar(CUPLUG_TYPE_FLOAT16), t, NULL), CUPLUG__CONV_UNSAFE);
  ck_assert_int_eq(cuplug__convert(parse("Literal[int](256)"), t, NULL), CUPLUG__CONV_SAFE);
  ck_assert_int_eq(cuplug__convert(parse("Literal[int](257)"), t, NULL), CUPLUG__CONV_UNSAFE);
}
END_TEST

#define REC "Record(a: int32 @ 0, b: float64 @ 8, size=16)"

START_TEST(records_round_trip_and_intern) {
  const cuplug_type *t = parse(REC);
  ck_assert_str_eq(t->name, REC);
  ck_assert_ptr_eq(parse("Record( a :int32@0 ,b: f8 @ 8, size = 16 )"), t);
  ck_assert_ptr_eq(parse("Record(a: int32 @ 0, b: float64 @ 8, size=16, align=8)"), t);
  const cuplug_type *wide = parse("Record(a: int32 @ 0, b: float64 @ 8, size=16, align=16)");
  ck_assert_ptr_ne(wide, t);
  ck_assert_str_eq(wide->name, "Record(a: int32 @ 0, b: float64 @ 8, size=16, align=16)");
  ck_assert_ptr_ne(parse("Record(a: int32 @ 4, b: float64 @ 8, size=16)"), t);
  ck_assert_ptr_ne(parse("Record(c: int32 @ 0, b: float64 @ 8, size=16)"), t);
  ck_assert_ptr_ne(parse("Record(a: int32 @ 0, b: float64 @ 8, size=24)"), t);
  cuplug_type_info i = info(t);
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_RECORD);
  ck_assert_uint_eq(i.size, 16);
  ck_assert_uint_eq(i.align, 8);
  ck_assert_uint_eq(i.num_args, 2);
  ck_assert_ptr_eq(i.args[0], scalar(CUPLUG_TYPE_INT32));
  ck_assert_ptr_eq(i.args[1], scalar(CUPLUG_TYPE_FLOAT64));
  ck_assert_str_eq(i.field_names[0], "a");
  ck_assert_str_eq(i.field_names[1], "b");
  ck_assert_uint_eq(i.field_offsets[0], 0);
  ck_assert_uint_eq(i.field_offsets[1], 8);
  ck_assert_ptr_null(i.text);
  /* any field name, nested records, fixed arrays as UniTuples, bfloat16 */
  const char *nested = "Record(\"x y\": int8 @ 0, \"q\\\"\\\\\": Record(u: bfloat16 @ 0, "
                       "size=2) @ 2, v: UniTuple(UniTuple(float32 x 2) x 3) @ 4, size=28)";
  const cuplug_type *n = parse(nested);
  ck_assert_str_eq(n->name, nested);
  ck_assert_str_eq(info(n).field_names[1], "q\"\\");
  ck_assert_uint_eq(info(n).align, 4);
  ck_assert_ptr_eq(parse("Record(size=0)"), parse("Record( size=0 )"));
  ck_assert_uint_eq(info(parse("Record(size=0)")).align, 1);
  /* a field may be named size or align */
  ck_assert_str_eq(parse("Record(size: int8 @ 0, align: int8 @ 1, size=2)")->name,
                   "Record(size: int8 @ 0, align: int8 @ 1, size=2)");
  /* overlapping and unaligned fields are the host's business */
  ck_assert_str_eq(parse("Record(a: int32 @ 1, b: int16 @ 2, size=5)")->name,
                   "Record(a: int32 @ 1, b: int16 @ 2, size=5)");
}
END_TEST

START_TEST(records_lower_by_reference) {
  ASSERT_LOWERED(REC, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT, "[16 x i8]*", 1, "[16 x i8]*");
  ASSERT_LOWERED(REC, CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "[16 x i8]*", 1, "[16 x i8]*");
  ASSERT_LOWERED(REC, CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN, "[16 x i8]*", 1, "[16 x i8]*");
  ASSERT_LOWERED(REC, CUPLUG_ABI_C, CUPLUG_POSITION_RETURN, "[16 x i8]*", 0, "");
  ASSERT_LOWERED(REC "(" REC ", int32)", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT,
                 "i32 ([16 x i8]**, [16 x i8]*, i32)", 3, "[16 x i8]** | [16 x i8]* | i32");
  ASSERT_LOWERED(REC "(" REC ", int32)", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT,
                 "[16 x i8]* ([16 x i8]*, i32)", 2, "[16 x i8]* | i32");
  /* an array of records holds their bytes; a pointer points at them */
  const cuplug_type *arr = parse(REC "[::1]");
  ck_assert_str_eq(arr->name, REC "[::1]");
  ck_assert_ptr_eq(parse("array(" REC ", 1d, C)"), arr);
  ck_assert_ptr_eq(info(arr).element, parse(REC));
  ASSERT_LOWERED(REC "[:, :]", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT,
                 "{i8*, i8*, i64, i64, [16 x i8]*, [2 x i64], [2 x i64]}", 9,
                 "i8* | i8* | i64 | i64 | [16 x i8]* | i64 | i64 | i64 | i64");
  ASSERT_LOWERED("CPointer(" REC ")", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "[16 x i8]*", 1,
                 "[16 x i8]*");
  ASSERT_LOWERED("UniTuple(" REC " x 2)", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT,
                 "[2 x [16 x i8]*]", 2, "[16 x i8]* | [16 x i8]*");
}
END_TEST

START_TEST(record_errors_name_the_field) {
  ASSERT_PARSE_ERROR("Record(a: int32 @ 0, b: float64 @ 12, size=16)", CUPLUG_ERR_INVALID_TYPE,
                     "field 'b' of a record (float64 at byte 12) ends at byte 20, past the "
                     "record's size of 16 bytes");
  ASSERT_PARSE_ERROR("Record(a: int32 @ 0, a: float64 @ 8, size=16)", CUPLUG_ERR_INVALID_TYPE,
                     "field 'a' of a record is named twice (fields 0 and 1)");
  /* 2^16 x 2^16 bytes: a size past 32 bits once wrapped, and the field fitted */
  ASSERT_PARSE_ERROR("Record(a: UniTuple(UniTuple(UniTuple(int8 x 256) x 256) x 256) @ 0, "
                     "size=0)",
                     CUPLUG_ERR_LIMIT,
                     "a tuple of 16777216 parameters once flattened: at most 65536");
  ASSERT_PARSE_ERROR("Record(a: UniTuple(Record(size=4000000000) x 2) @ 0, size=8)",
                     CUPLUG_ERR_INVALID_TYPE,
                     "field 'a' of a record (UniTuple(Record(size=4000000000) x 2)) is 4 GiB or "
                     "more");
  ASSERT_PARSE_ERROR("Record(p: CPointer(int8) @ 0, size=8)", CUPLUG_ERR_INVALID_TYPE,
                     "field 'p' of a record cannot be CPointer(int8): a field is a scalar, a "
                     "record or a UniTuple of them");
  ASSERT_PARSE_ERROR("Record(\"\": int8 @ 0, size=1)", CUPLUG_ERR_INVALID_TYPE,
                     "field 0 of a record has no name");
  ASSERT_PARSE_ERROR("Record(a: int8 @ 0, size=1, align=3)", CUPLUG_ERR_INVALID_TYPE,
                     "a record aligned to 3 bytes: an alignment is a power of two");
  ASSERT_PARSE_ERROR("Record(a: int8 @ 0)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 18 of 'Record(a: int8 @ 0)': "
                     "expected ',' after a field, found ')'");
  ASSERT_PARSE_ERROR("Record(a: int8 @ -1, size=1)", CUPLUG_ERR_INVALID_TYPE,
                     "a field's offset -1 at position 17 of 'Record(a: int8 @ -1, size=1)': 0 "
                     "to 4294967295");
  ASSERT_PARSE_ERROR("Record(a: int8, size=1)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 14 of 'Record(a: int8, size=1)': "
                     "expected '@' and the field's byte offset, found ','");
  ASSERT_PARSE_ERROR("Record(\"a: int8 @ 0, size=1)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 28 of 'Record(\"a: int8 @ 0, "
                     "size=1)': expected '\"' closing the quoted name, found the end of the "
                     "text");
  ASSERT_PARSE_ERROR("Opaque(\"a\\n\")", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 10 of 'Opaque(\"a\\n\")': expected "
                     "'\\\"' or '\\\\' (the only escapes in a quoted name), found 'n'");
}
END_TEST

START_TEST(function_pointers_and_void_pointers) {
  const cuplug_type *fp = parse("CPointer(float64(float64, int32))");
  ck_assert_str_eq(fp->name, "CPointer(float64(float64, int32))");
  ck_assert_int_eq(info(fp).kind, CUPLUG_TYPE_POINTER);
  ck_assert_ptr_eq(info(fp).element, parse("float64(float64, int32)"));
  ck_assert_uint_eq(info(fp).size, 8);
  ASSERT_LOWERED("CPointer(float64(float64, int32))", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT,
                 "double (double, i32)*", 1, "double (double, i32)*");
  /* value types, unflattened: numba's ExternalFunctionPointer */
  ASSERT_LOWERED("CPointer(void(bool, complex64, Record(a: int8 @ 0, size=1)))", CUPLUG_ABI_C,
                 CUPLUG_POSITION_ARGUMENT, "i8* (i1, {float, float}, [1 x i8]*)*", 1,
                 "i8* (i1, {float, float}, [1 x i8]*)*");
  ASSERT_LOWERED("CPointer(int32())", CUPLUG_ABI_C, CUPLUG_POSITION_RETURN, "i32 ()*", 0, "");
  ASSERT_LOWERED("int32(CPointer(int32()))", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT,
                 "i32 (i32 ()*)", 1, "i32 ()*");
  const cuplug_type *vp = parse("CPointer(void)");
  ck_assert_ptr_eq(parse("void*"), vp);
  ck_assert_ptr_eq(parse("none*"), vp);
  ck_assert_str_eq(vp->name, "CPointer(void)");
  ASSERT_LOWERED("CPointer(void)", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT, "i8*", 1, "i8*");
  ASSERT_LOWERED("CPointer(void)", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN, "i8*", 1, "i8*");
  ASSERT_LOWERED("CPointer(CPointer(void))", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "i8**", 1,
                 "i8**");
}
END_TEST

START_TEST(opaque_values) {
  const cuplug_type *t = parse("Opaque(\"Module(<module 'math'>)\")");
  ck_assert_str_eq(t->name, "Opaque(\"Module(<module 'math'>)\")");
  ck_assert_int_eq(info(t).kind, CUPLUG_TYPE_OPAQUE);
  ck_assert_str_eq(info(t).text, "Module(<module 'math'>)");
  ck_assert_uint_eq(info(t).size, 0);
  ck_assert_ptr_eq(parse("Opaque( \"Module(<module 'math'>)\" )"), t);
  ck_assert_ptr_ne(parse("Opaque(\"Module(<module 'cmath'>)\")"), t);
  ck_assert_ptr_ne(parse("Omitted(\"Module(<module 'math'>)\")"), t);
  const cuplug_type *esc = parse("Opaque(\"a\\\"b\\\\c\")");
  ck_assert_str_eq(info(esc).text, "a\"b\\c");
  ck_assert_str_eq(esc->name, "Opaque(\"a\\\"b\\\\c\")");
  ASSERT_LOWERED("Opaque(\"f\")", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT, "i8*", 1, "i8*");
  ASSERT_LOWERED("Opaque(\"f\")", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "i8*", 1, "i8*");
  ASSERT_LOWERED("Opaque(\"f\")", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_RETURN, "i8*", 1, "i8*");
  ASSERT_LOWERED("Opaque(\"f\")", CUPLUG_ABI_C, CUPLUG_POSITION_RETURN, "i8*", 0, "");
  ASSERT_LOWERED("int32(Opaque(\"f\"), int32)", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT,
                 "i32 (i32*, i8*, i32)", 3, "i32* | i8* | i32");
  ASSERT_LOWERED("Tuple(Opaque(\"f\"), int32)", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT,
                 "{i8*, i32}", 2, "i8* | i32");
}
END_TEST

START_TEST(omitted_arguments) {
  const cuplug_type *t = parse("Omitted(\"3\")");
  ck_assert_int_eq(info(t).kind, CUPLUG_TYPE_OMITTED);
  ck_assert_str_eq(info(t).text, "3");
  ck_assert_str_eq(t->name, "Omitted(\"3\")");
  ASSERT_LOWERED("Omitted(\"3\")", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT, "{}", 0, "");
  ASSERT_LOWERED("Omitted(\"3\")", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT, "{}", 0, "");
  ASSERT_LOWERED("void(int32, Omitted(\"3\"))", CUPLUG_ABI_NUMBA, CUPLUG_POSITION_ARGUMENT,
                 "i32 (i8**, i32)", 2, "i8** | i32");
  ASSERT_LOWERED("void(Omitted(\"None\"), int32)", CUPLUG_ABI_C, CUPLUG_POSITION_ARGUMENT,
                 "void (i32)", 1, "i32");
  ASSERT_PARSE_ERROR("Omitted(\"3\")(int32)", CUPLUG_ERR_INVALID_TYPE,
                     "a signature cannot return Omitted(\"3\"): an omitted argument has no "
                     "value");
  const cuplug_type *sig = NULL, *args[] = {scalar(CUPLUG_TYPE_INT32)};
  T_ASSERT_ERROR(t_api()->type_signature(t, args, 1, &sig), CUPLUG_ERR_INVALID_TYPE,
                 "a signature cannot return Omitted(\"3\"): an omitted argument has no value");
  ASSERT_PARSE_ERROR("Tuple(int32, Omitted(\"3\"))", CUPLUG_ERR_INVALID_TYPE,
                     "element 1 of a tuple cannot be Omitted(\"3\")");
  ASSERT_PARSE_ERROR("Omitted(3)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 8 of 'Omitted(3)': expected a "
                     "double-quoted name, found '3'");
}
END_TEST

#define XY "Struct(x: int32, y: float32)"

START_TEST(structs_round_trip_and_intern) {
  const cuplug_type *t = parse(XY);
  ck_assert_str_eq(t->name, XY);
  ck_assert_ptr_eq(parse("Struct( x :i4 ,\"y\": f4 )"), t);
  /* the names are part of its identity, and so is their order */
  ck_assert_ptr_ne(parse("Struct(x: int32, z: float32)"), t);
  ck_assert_ptr_ne(parse("Struct(y: float32, x: int32)"), t);
  ck_assert_ptr_ne(parse("Tuple(int32, float32)"), t);
  cuplug_type_info i = info(t);
  ck_assert_int_eq(i.kind, CUPLUG_TYPE_STRUCT);
  ck_assert_int_eq(i.kind, 26);
  ck_assert_uint_eq(i.num_args, 2);
  ck_assert_ptr_eq(i.args[0], scalar(CUPLUG_TYPE_INT32));
  ck_assert_ptr_eq(i.args[1], scalar(CUPLUG_TYPE_FLOAT32));
  ck_assert_str_eq(i.field_names[0], "x");
  ck_assert_str_eq(i.field_names[1], "y");
  ck_assert_ptr_null(i.field_offsets);
  ck_assert_uint_eq(i.size, 8);
  ck_assert_uint_eq(i.align, 4);
  ck_assert_ptr_null(i.text);
  /* of one type throughout it stays a struct: numba's StructModel is no UniTuple */
  const cuplug_type *ab = parse("Struct(a: int32, b: int32)");
  ck_assert_str_eq(ab->name, "Struct(a: int32, b: int32)");
  ck_assert_int_eq(info(ab).kind, CUPLUG_TYPE_STRUCT);
  ck_assert_ptr_ne(ab, parse("UniTuple(int32 x 2)"));
  /* quoted names, nesting, and what a tuple may hold */
  const char *nested = "Struct(\"a b\": int8, \"q\\\"\": Struct(v: float64, ok: bool), "
                       "t: UniTuple(int16 x 3), r: Record(a: int32 @ 0, size=4), "
                       "p: CPointer(float32), arr: float32[:, ::1])";
  const cuplug_type *n = parse(nested);
  ck_assert_str_eq(n->name, nested);
  ck_assert_str_eq(info(n).field_names[1], "q\"");
  ck_assert_ptr_eq(info(n).args[1], parse("Struct(v: float64, ok: bool)"));
  /* int8 @ 0, {f64, i8} @ 8 (16 bytes), [3 x i16] @ 24, [4 x i8] @ 30, ptr @ 40, array @ 48 */
  ck_assert_uint_eq(info(n).size, 48 + 72);
  ck_assert_uint_eq(info(n).align, 8);
  /* a record member is its bytes, [N x i8], aligned to 1 as LLVM aligns them */
  ck_assert_uint_eq(info(parse("Struct(c: int8, r: Record(a: int32 @ 0, size=4))")).size, 5);
  ck_assert_uint_eq(info(parse("Struct(c: int8, r: Record(a: int32 @ 0, size=4))")).align, 1);
  /* a field may be named as a type is */
  ck_assert_str_eq(parse("Struct(int32: int32, Struct: int8)")->name,
                   "Struct(int32: int32, Struct: int8)");
  /* a struct may be a tuple's element and an array's dtype */
  ck_assert_str_eq(parse("Tuple(" XY ", int8)")->name, "Tuple(" XY ", int8)");
  ck_assert_str_eq(parse("UniTuple(" XY " x 2)")->name, "UniTuple(" XY " x 2)");
  ck_assert_ptr_eq(parse("array(" XY ", 2d, A)"), parse(XY "[:, :]"));
  ck_assert_ptr_eq(info(parse(XY "[::1]")).element, t);
}
END_TEST

START_TEST(structs_lower_as_numba_struct_models) {
  const cuplug_abi N = CUPLUG_ABI_NUMBA, C = CUPLUG_ABI_C;
  const cuplug_position A = CUPLUG_POSITION_ARGUMENT, R = CUPLUG_POSITION_RETURN;
  ASSERT_LOWERED(XY, N, A, "{i32, float}", 2, "i32 | float");
  ASSERT_LOWERED(XY, C, A, "{i32, float}", 2, "i32 | float");
  ASSERT_LOWERED(XY, N, R, "{i32, float}", 1, "{i32, float}");
  ASSERT_LOWERED(XY, C, R, "{i32, float}", 0, "");
  /* the literal struct, where a UniTuple is an array */
  ASSERT_LOWERED("Struct(a: int32, b: int32)", N, A, "{i32, i32}", 2, "i32 | i32");
  ASSERT_LOWERED("Struct(a: int32, b: int32)", N, R, "{i32, i32}", 1, "{i32, i32}");
  ASSERT_LOWERED("Struct(a: int32, b: int32)[::1]", N, A,
                 "{i8*, i8*, i64, i64, {i32, i32}*, [1 x i64], [1 x i64]}", 7,
                 "i8* | i8* | i64 | i64 | {i32, i32}* | i64 | i64");
  ASSERT_LOWERED("Struct(a: int32, b: int32)[::1]", C, A,
                 "{i8*, i8*, i64, i64, {i32, i32}*, [1 x i64], [1 x i64]}", 7,
                 "i8* | i8* | i64 | i64 | {i32, i32}* | i64 | i64");
  /* flattened member by member: a complex into its parts, an array into its struct's */
  ASSERT_LOWERED("Struct(z: complex64, v: float64[:], b: bool)", N, A,
                 "{{float, float}, {i8*, i8*, i64, i64, double*, [1 x i64], [1 x i64]}, i8}",
                 10, "float | float | i8* | i8* | i64 | i64 | double* | i64 | i64 | i8");
  /* in memory a record member is its bytes (numba's data type), as an argument its pointer */
  ASSERT_LOWERED("Struct(r: Record(a: int32 @ 0, size=4), n: int8)", N, A, "{[4 x i8], i8}", 2,
                 "[4 x i8]* | i8");
  ASSERT_LOWERED("Struct(r: Record(a: int32 @ 0, size=4), n: int8)", N, R, "{[4 x i8], i8}", 1,
                 "{[4 x i8], i8}");
  /* nested, in a tuple, in signatures */
  ASSERT_LOWERED("Tuple(Struct(a: int8, b: int8), int8)", N, A, "{{i8, i8}, i8}", 3,
                 "i8 | i8 | i8");
  ASSERT_LOWERED("UniTuple(Struct(a: int8, b: int8) x 2)", C, R, "[2 x {i8, i8}]", 0, "");
  ASSERT_LOWERED(XY "(" XY ", int64)", N, A, "i32 ({i32, float}*, i32, float, i64)", 4,
                 "{i32, float}* | i32 | float | i64");
  ASSERT_LOWERED(XY "(" XY ", int64)", C, A, "{i32, float} (i32, float, i64)", 3,
                 "i32 | float | i64");
  /* a function pointer's signature has value types: a bool is an i1 there */
  ASSERT_LOWERED("CPointer(Struct(b: bool, r: Record(a: int8 @ 0, size=1))(Struct(c: bool)))", C,
                 A, "{i1, [1 x i8]*} ({i1})*", 1, "{i1, [1 x i8]*} ({i1})*");
}
END_TEST

START_TEST(struct_errors) {
  ASSERT_PARSE_ERROR("Struct(a: int32, a: float32)", CUPLUG_ERR_INVALID_TYPE,
                     "field 'a' of a struct is named twice (fields 0 and 1)");
  ASSERT_PARSE_ERROR("Struct()", CUPLUG_ERR_INVALID_TYPE,
                     "Struct(): a struct has at least one field");
  ASSERT_PARSE_ERROR("Struct(a: int32, v: void)", CUPLUG_ERR_INVALID_TYPE,
                     "field 'v' of a struct cannot be void: a field holds what a tuple's element "
                     "may");
  ASSERT_PARSE_ERROR("Struct(c: class(float32))", CUPLUG_ERR_INVALID_TYPE,
                     "field 'c' of a struct cannot be class(float32): a field holds what a "
                     "tuple's element may");
  ASSERT_PARSE_ERROR("Struct(o: Omitted(\"3\"))", CUPLUG_ERR_INVALID_TYPE,
                     "field 'o' of a struct cannot be Omitted(\"3\"): a field holds what a "
                     "tuple's element may");
  ASSERT_PARSE_ERROR("Struct(\"\": int8)", CUPLUG_ERR_INVALID_TYPE,
                     "field 0 of a struct has no name");
  ASSERT_PARSE_ERROR("Struct(a: int32 @ 0)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 16 of 'Struct(a: int32 @ 0)': expected "
                     "',' or ')' in Struct(...), found '@'");
  ASSERT_PARSE_ERROR("Struct(int32)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 12 of 'Struct(int32)': expected ':' "
                     "and the field's type, found ')'");
  ASSERT_PARSE_ERROR("Struct(a: int32,)", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 16 of 'Struct(a: int32,)': expected a "
                     "field's name, found ')'");
  ASSERT_PARSE_ERROR("Struct", CUPLUG_ERR_SIGNATURE_SYNTAX,
                     "signature syntax error at position 6 of 'Struct': expected '(' after "
                     "'Struct', found the end of the text");
  /* not a pointee, as a tuple is not; a struct of pointers is no array's dtype */
  ASSERT_PARSE_ERROR("CPointer(" XY ")", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'CPointer(" XY ")': a pointer must point at "
                     "a scalar, a pointer, a record, void or a signature, not " XY);
  ASSERT_PARSE_ERROR("Struct(p: int8*)[:]", CUPLUG_ERR_INVALID_TYPE,
                     "invalid type at position 0 of 'Struct(p: int8*)[:]': an array's dtype "
                     "must be bool, an integer, a float, a complex, a record or a tuple of "
                     "them, not Struct(p: CPointer(int8))");
}
END_TEST

Suite *suite_types(void) {
  Suite *s = suite_create("types");
  TCase *names = t_tcase(s, "names", 0, NULL, NULL, 0);
  tcase_add_test(names, scalar_names);
  tcase_add_loop_test(names, every_scalar_name_and_alias, 0,
                      (int)(sizeof all_names / sizeof all_names[0]));
  tcase_add_test(names, type_scalar_only_for_scalar_kinds);
  tcase_add_test(names, unknown_names);
  tcase_add_test(names, blanks_are_ignored);
  tcase_add_test(names, pointer_spellings_are_one_type);
  tcase_add_test(names, nested_pointers);
  tcase_add_test(names, pointer_errors);
  tcase_add_test(names, array_layouts);
  tcase_add_test(names, array_builder_matches_parser);
  tcase_add_test(names, numba_printed_array_form);
  tcase_add_test(names, array_rank_limit);
  tcase_add_test(names, array_syntax_errors);
  tcase_add_test(names, array_dtype_errors);
  tcase_add_test(names, canonical_names_round_trip);
  tcase_add_test(names, readonly_arrays);
  tcase_add_test(names, tuples);
  tcase_add_test(names, integer_literals);
  tcase_add_test(names, number_classes);

  TCase *sigs = t_tcase(s, "signatures", 0, NULL, NULL, 0);
  tcase_add_test(sigs, signature_round_trip);
  tcase_add_test(sigs, signature_parts);
  tcase_add_test(sigs, signature_builder_matches_parser);
  tcase_add_test(sigs, syntax_error_names_text_and_position);
  tcase_add_test(sigs, signature_syntax_errors);
  tcase_add_test(sigs, syntax_error_quotes_utf8_whole);
  tcase_add_test(sigs, void_argument);
  tcase_add_test(sigs, argument_count_limit);
  tcase_add_test(sigs, signature_parse_insists_on_a_signature);
  tcase_add_test(sigs, builders_refuse_null);
  tcase_add_test(sigs, builders_refuse_impossible_types);

  TCase *inf = t_tcase(s, "info", 0, NULL, NULL, 0);
  tcase_add_test(inf, info_of_scalar);
  tcase_add_test(inf, info_of_pointer);
  tcase_add_test(inf, info_of_array);
  tcase_add_test(inf, info_of_readonly_array);
  tcase_add_test(inf, info_of_signature);
  tcase_add_test(inf, info_refuses_bad_args);
  tcase_add_test(inf, info_fills_only_the_callers_struct);
  tcase_add_test(inf, info_refuses_unknown_fields);

  TCase *dm = t_tcase(s, "data_model", 0, NULL, NULL, 0);
  tcase_add_test(dm, data_model_numba_signature);
  tcase_add_test(dm, argument_scalars);
  tcase_add_test(dm, argument_pointers);
  tcase_add_test(dm, argument_arrays);
  tcase_add_test(dm, readonly_arrays_lower_as_arrays);
  tcase_add_test(dm, return_slots);
  tcase_add_test(dm, signatures_lower_to_function_types);
  tcase_add_test(dm, lower_refuses_bad_args);

  TCase *th = t_tcase(s, "threads", 0, NULL, NULL, 0);
  tcase_add_test(th, concurrent_interning);

  TCase *more = t_tcase(s, "since_1_3", 0, NULL, NULL, 0);
  tcase_add_test(more, bfloat16_is_a_narrow_float);
  tcase_add_test(more, records_round_trip_and_intern);
  tcase_add_test(more, records_lower_by_reference);
  tcase_add_test(more, record_errors_name_the_field);
  tcase_add_test(more, function_pointers_and_void_pointers);
  tcase_add_test(more, opaque_values);
  tcase_add_test(more, omitted_arguments);
  tcase_add_test(more, structs_round_trip_and_intern);
  tcase_add_test(more, structs_lower_as_numba_struct_models);
  tcase_add_test(more, struct_errors);
  return s;
}
