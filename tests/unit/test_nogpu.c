/* test_nogpu.c - the GPU calls on a machine without a GPU: each fails with
 * CUPLUG_ERR_NO_DEVICE and the driver's own words, after its argument
 * checks.  Where there is a GPU these cases are skipped (T_NO_GPU, exit
 * 77): the gpu suite covers these calls there, and a case that checked
 * nothing would otherwise count as passed. */
#include <stdio.h>
#include <string.h>

#include "support.h"

static cuplug_session *session;
/* "no CUDA device: " and why (no libcuda, or cuInit's error): the same words
 * get_info reports as driver_status. */
static char no_device[512];

static void setup(void) {
  session = t_session();
  cuplug_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->get_info(&i));
  ck_assert_int_eq(i.device_count, 0);
  snprintf(no_device, sizeof no_device, "%s", i.driver_status);
}

static void teardown(void) { t_api()->session_destroy(session); }

START_TEST(info_says_why) {
  cuplug_info i = {.struct_size = sizeof i};
  T_ASSERT_OK(t_api()->get_info(&i));
  ck_assert_int_eq(i.device_count, 0);
  ck_assert_int_eq(i.device_cc_major, -1);
  ck_assert_int_eq(i.device_cc_minor, -1);
  ck_assert_str_eq(i.device_name, "");
  /* what follows depends on the machine's driver library, or its absence */
  T_ASSERT_STARTS(i.driver_status, "no CUDA device: ");
}
END_TEST

START_TEST(memory_calls) {
  uint64_t p = 0;
  T_ASSERT_ERROR(t_api()->mem_alloc(session, 64, &p), CUPLUG_ERR_NO_DEVICE, no_device);
  char host[64] = {0};
  T_ASSERT_ERROR(t_api()->memcpy_to_device(session, 0x1000, host, sizeof host),
                 CUPLUG_ERR_NO_DEVICE, no_device);
  T_ASSERT_ERROR(t_api()->memcpy_to_host(session, host, 0x1000, sizeof host),
                 CUPLUG_ERR_NO_DEVICE, no_device);
  T_ASSERT_ERROR(t_api()->mem_free(session, 0x1000), CUPLUG_ERR_NO_DEVICE, no_device);
  T_ASSERT_ERROR(t_api()->synchronize(session), CUPLUG_ERR_NO_DEVICE, no_device);
  T_ASSERT_ERROR(t_api()->device_reset(session), CUPLUG_ERR_NO_DEVICE, no_device);
  /* freeing NULL needs no device */
  T_ASSERT_OK(t_api()->mem_free(session, 0));
  /* argument errors come first, and say so */
  T_ASSERT_ERROR(t_api()->mem_alloc(session, 64, NULL), CUPLUG_ERR_INVALID_ARGUMENT,
                 "mem_alloc: NULL argument");
  T_ASSERT_ERROR(t_api()->memcpy_to_host(session, NULL, 0x1000, 4), CUPLUG_ERR_INVALID_ARGUMENT,
                 "memcpy_to_host: NULL argument");
}
END_TEST

START_TEST(load_without_a_device) {
  static const char image[] = "not a cubin";
  cuplug_load_args l = {.struct_size = sizeof l, .session = session, .image = image,
                        .size = sizeof image};
  /* the driver is asked before the image is looked at: the same words */
  T_ASSERT_ERROR(t_api()->load(&l), CUPLUG_ERR_NO_DEVICE, no_device);
  ck_assert_ptr_null(l.library);
  /* argument errors come first */
  l.size = 0;
  T_ASSERT_ERROR(t_api()->load(&l), CUPLUG_ERR_INVALID_ARGUMENT, "load: the image is empty");
  l.image = NULL;
  T_ASSERT_ERROR(t_api()->load(&l), CUPLUG_ERR_INVALID_ARGUMENT,
                 "load: give exactly one of artifact and image");
  ck_assert_ptr_null(l.library);
}
END_TEST

Suite *suite_nogpu(void) {
  Suite *s = suite_create("nogpu");
  TCase *tc = t_tcase(s, "without_a_device", T_NO_GPU, setup, teardown, 0);
  tcase_add_test(tc, info_says_why);
  tcase_add_test(tc, memory_calls);
  tcase_add_test(tc, load_without_a_device);
  return s;
}
