/* tests/test_gemm_check.c: the core's generic descriptor rules
 * (core/gemm_check.c), called directly, at the edges of int64_t, where
 * fuzz_plan's corpus (tests/fuzz/corpus/plan/) reaches them too:
 *
 * - a row stride is bounded in elements before it is turned into bytes: a
 *   stride of INT64_MAX is refused as too large (its byte count overflowed,
 *   and the overflowed count passed the check); the bound itself, 2^40
 *   bytes, holds for every element size, packed fp4 included;
 * - every strided tensor's span must be measurable (tp_tensor_span_bytes): rows
 *   within the stride bound but so many of them that the bytes pass 2^63
 *   are refused, for the matrices and the scale tensors alike. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "core/gemm_check.h"
#include "tilepipe/tilepipe.h"

enum { M = 8, N = 8, K = 8 };

static tp_gemm_desc problem(tp_dtype ab) {
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, M, N, K);
  d.a = tp_tensor_matrix(ab, M, K, K, NULL);
  d.b = tp_tensor_matrix(ab, N, K, K, NULL);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, NULL);
  return d;
}

static void expect(const tp_gemm_desc *d, tp_status status, const char *needle) {
  tp_status st = tp_gemm_check_desc(d, TP_BACKEND_CPU);
  ck_assert_msg(st == status, "status '%s', expected '%s' (%s)", tp_status_string(st),
                tp_status_string(status), tp_error_message());
  if (needle)
    ck_assert_msg(strstr(tp_error_message(), needle) != NULL, "\"%s\" lacks \"%s\"",
                  tp_error_message(), needle);
}

START_TEST(test_huge_row_stride_is_too_large) {
  static const tp_dtype dtypes[] = {TP_DTYPE_F32, TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_DTYPE_E2M1};
  for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++) {
    tp_gemm_desc d = problem(dtypes[i]);
    d.a.stride[0] = INT64_MAX - 1; /* even, as packed fp4 rows must be */
    expect(&d, TP_ERR_INVALID_ARGUMENT, "A: row stride 9223372036854775806 is too large");
    d = problem(dtypes[i]);
    d.d.stride[0] = INT64_MAX;
    expect(&d, TP_ERR_INVALID_ARGUMENT, "D: row stride 9223372036854775807 is too large");
  }
}
END_TEST

/* 2^40 bytes is too large, one element less is not. */
START_TEST(test_row_stride_bound) {
  static const struct { tp_dtype dtype; int64_t limit; } cases[] = {
      {TP_DTYPE_F32, (int64_t)1 << 38}, {TP_DTYPE_BF16, (int64_t)1 << 39},
      {TP_DTYPE_E4M3, (int64_t)1 << 40}, {TP_DTYPE_E2M1, (int64_t)1 << 41}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tp_gemm_desc d = problem(cases[i].dtype);
    d.a.stride[0] = cases[i].limit;
    expect(&d, TP_ERR_INVALID_ARGUMENT, "is too large");
    d.a.stride[0] = cases[i].limit - 2; /* even for fp4 */
    expect(&d, TP_OK, NULL);
  }
}
END_TEST

START_TEST(test_span_past_int64_is_refused) {
  /* 2^31 - 1 rows 2^37 f32 elements apart: 2^70 bytes. */
  tp_gemm_desc d = problem(TP_DTYPE_F32);
  d.m = INT32_MAX;
  d.a = tp_tensor_matrix(TP_DTYPE_F32, d.m, K, (int64_t)1 << 37, NULL);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, d.m, N, N, NULL);
  expect(&d, TP_ERR_INVALID_ARGUMENT, "A: its shape and strides span more than 2^63 bytes");
  /* The same rows, 2^31 elements apart: 2^64 bytes, still too many. */
  d.a.stride[0] = (int64_t)1 << 31;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "A: its shape and strides span");
  /* A scale tensor of rank 4 whose strides multiply past 2^63. */
  d = problem(TP_DTYPE_F32);
  d.a_scale = (tp_tensor){.dtype = TP_DTYPE_F32, .layout = TP_LAYOUT_STRIDED, .rank = 4,
                          .shape = {INT32_MAX, INT32_MAX, 2, 2},
                          .stride = {(int64_t)1 << 40, 1, 1, 1}};
  expect(&d, TP_ERR_INVALID_ARGUMENT, "a_scale: its shape and strides span");
  /* Within reach: the same A with rows K apart plans. */
  d = problem(TP_DTYPE_F32);
  d.m = INT32_MAX;
  d.a = tp_tensor_matrix(TP_DTYPE_F32, d.m, K, K, NULL);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, d.m, N, N, NULL);
  expect(&d, TP_OK, NULL);
}
END_TEST

int main(void) {
  Suite *s = suite_create("gemm_check");
  TCase *tc = tcase_create("limits");
  tcase_add_test(tc, test_huge_row_stride_is_too_large);
  tcase_add_test(tc, test_row_stride_bound);
  tcase_add_test(tc, test_span_past_int64_is_refused);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
