/* tests/test_device_choice.c: which GPU a call works on
 * (core/backend/cuda/device_choice.h), without a driver: the default
 * device $TILEPIPE_DEVICE names, and the refusal of work under another
 * device's context, with messages that name the value or both devices. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/device_choice.h"

#define ck_assert_message_has(needle)                                                       \
  ck_assert_msg(strstr(tp_error_message(), (needle)) != NULL, "message '%s' lacks '%s'",  \
                tp_error_message(), (needle))

START_TEST(default_ordinal_from_the_environment) {
  int ordinal = -1;
  ck_assert_int_eq(tp_cuda_default_ordinal(NULL, 1, &ordinal), TP_OK);
  ck_assert_int_eq(ordinal, 0);
  ordinal = -1;
  ck_assert_int_eq(tp_cuda_default_ordinal("", 2, &ordinal), TP_OK);
  ck_assert_int_eq(ordinal, 0);
  ck_assert_int_eq(tp_cuda_default_ordinal("1", 2, &ordinal), TP_OK);
  ck_assert_int_eq(ordinal, 1);
  ck_assert_int_eq(tp_cuda_default_ordinal("7", 8, &ordinal), TP_OK);
  ck_assert_int_eq(ordinal, 7);
}
END_TEST

START_TEST(bad_default_ordinals_are_refused) {
  static const char *bad[] = {"2", "-1", "1x", "x", "0.5", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int ordinal = 5;
    ck_assert_int_eq(tp_cuda_default_ordinal(bad[i], 2, &ordinal), TP_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(ordinal, 0);
    char value[64];
    snprintf(value, sizeof value, "TILEPIPE_DEVICE='%s'", bad[i]);
    ck_assert_message_has(value);
    ck_assert_message_has("has 2: 0..1");
  }
  int ordinal = 5;
  ck_assert_int_eq(tp_cuda_default_ordinal(NULL, 0, &ordinal), TP_ERR_NO_DEVICE);
  ck_assert_int_eq(ordinal, 0);
  ck_assert_message_has("no CUDA device");
}
END_TEST

START_TEST(work_runs_on_its_device_or_none) {
  ck_assert_int_eq(tp_cuda_device_for("run: the plan", 0, TP_CUDA_NO_CONTEXT), TP_OK);
  ck_assert_int_eq(tp_cuda_device_for("run: the plan", 3, TP_CUDA_NO_CONTEXT), TP_OK);
  ck_assert_int_eq(tp_cuda_device_for("run: the plan", 0, 0), TP_OK);
  ck_assert_int_eq(tp_cuda_device_for("run: the plan", 5, 5), TP_OK);
}
END_TEST

START_TEST(work_under_another_device_is_refused) {
  static const int pairs[][2] = {{0, 1}, {1, 0}, {3, 7}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    const int owner = pairs[i][0], current = pairs[i][1];
    ck_assert_int_eq(tp_cuda_device_for("run: the plan", owner, current),
                     TP_ERR_INVALID_ARGUMENT);
    char text[128];
    snprintf(text, sizeof text, "run: the plan belongs to CUDA device %d,", owner);
    ck_assert_message_has(text);
    snprintf(text, sizeof text, "current CUDA context is on device %d;", current);
    ck_assert_message_has(text);
    snprintf(text, sizeof text, "tp_device_select(%d)", owner);
    ck_assert_message_has(text);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("device_choice");
  TCase *tc = tcase_create("choice");
  tcase_add_test(tc, default_ordinal_from_the_environment);
  tcase_add_test(tc, bad_default_ordinals_are_refused);
  tcase_add_test(tc, work_runs_on_its_device_or_none);
  tcase_add_test(tc, work_under_another_device_is_refused);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
