/* test_types.c - signature strings, type handles and the data model. */
#include <string.h>

#include "support.h"
#include "types.h"

static const cuplug_type *parse(const char *text) {
  const cuplug_type *t = NULL;
  T_ASSERT_OK(t_api()->type_parse(text, &t));
  return t;
}

START_TEST(scalar_names) {
  ck_assert_ptr_eq(parse("int32"), t_api()->type_scalar(CUPLUG_TYPE_INT32));
  ck_assert_ptr_eq(parse("intp"), t_api()->type_scalar(CUPLUG_TYPE_INT64));
  ck_assert_ptr_eq(parse("boolean"), t_api()->type_scalar(CUPLUG_TYPE_BOOL));
  ck_assert_ptr_eq(parse("none"), t_api()->type_scalar(CUPLUG_TYPE_VOID));
  ck_assert_str_eq(parse("float16")->name, "float16");
}
END_TEST

START_TEST(signature_round_trip) {
  const cuplug_type *s = parse("int64(int32, float32[::1], CPointer(float64))");
  ck_assert_int_eq(s->kind, CUPLUG_TYPE_SIGNATURE);
  ck_assert_str_eq(s->name, "int64(int32, float32[::1], CPointer(float64))");
  ck_assert_ptr_eq(parse(s->name), s);
}
END_TEST

START_TEST(syntax_error_names_text_and_position) {
  const cuplug_type *t;
  T_ASSERT_ERROR(t_api()->type_parse("int32(int32,, float32)", &t), CUPLUG_ERR_SIGNATURE_SYNTAX,
                 "signature syntax error at position 12 of 'int32(int32,, float32)': "
                 "expected a type, found ','");
}
END_TEST

START_TEST(data_model_numba_signature) {
  cuplug_type_lower_args a = {.struct_size = sizeof a, .type = parse("int64(int32, int32)"),
                              .abi = CUPLUG_ABI_NUMBA};
  T_ASSERT_OK(t_api()->type_lower(&a));
  ck_assert_str_eq(a.ir_type, "i32 (i64*, i32, i32)");
}
END_TEST

Suite *suite_types(void) {
  Suite *s = suite_create("types");
  TCase *tc = tcase_create("types");
  tcase_add_test(tc, scalar_names);
  tcase_add_test(tc, signature_round_trip);
  tcase_add_test(tc, syntax_error_names_text_and_position);
  tcase_add_test(tc, data_model_numba_signature);
  suite_add_tcase(s, tc);
  return s;
}
