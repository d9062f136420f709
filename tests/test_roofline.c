/* tests/test_roofline.c: a GEMM's floor (tools/roofline.h), worked out by
 * hand for benchmark shapes.
 *
 * Under ceilings of 3 TB/s and 800 TFLOP/s, 4096 x 32768 x 512 bf16 is
 * bound by arithmetic with a plain store and by bytes once a residual C is
 * read (C adds as many bytes as D); every operand counts at its dtype's width
 * (fp8 1 byte, f32 4, packed fp4 half), scales and bias count, C only when
 * beta is not 0, row padding never; without ceilings, or with one that is
 * not a positive number, the times that need it are NaN, while flops and
 * bytes are still given. */
#include <math.h>

#include <check.h>

#include "tools/roofline.h"

static const tp_ceilings h100ish = {3.0e12, 800.0e12}; /* B/s read + written; FLOP/s */

/* D[m, n] = A[m, k] x B[n, k]^T in `ab` operands and a `d` output, rows
 * padded by `pad` elements (which must not count). */
static tp_gemm_desc problem(int64_t m, int64_t n, int64_t k, tp_dtype ab, tp_dtype d,
                            int64_t pad) {
  tp_gemm_desc g;
  tp_gemm_desc_init(&g, m, n, k);
  g.a = tp_tensor_matrix(ab, m, k, k + pad, NULL);
  g.b = tp_tensor_matrix(ab, n, k, k + pad, NULL);
  g.d = tp_tensor_matrix(d, m, n, n + pad, NULL);
  return g;
}

START_TEST(test_short_k_store_bound_by_arithmetic) {
  const tp_gemm_desc g = problem(4096, 32768, 512, TP_DTYPE_BF16, TP_DTYPE_BF16, 0);
  const tp_roofline r = tp_roofline_of(&g, &h100ish);
  ck_assert_double_eq(r.flops, 137438953472.0); /* 2 x 4096 x 32768 x 512 */
  /* A 4 MiB + B 32 MiB + D 256 MiB */
  ck_assert_double_eq(r.bytes, 4194304.0 + 33554432.0 + 268435456.0);
  ck_assert_double_eq_tol(r.memory_ms, 306184192.0 / 3.0e12 * 1e3, 1e-12);
  ck_assert_double_eq_tol(r.compute_ms, 137438953472.0 / 800.0e12 * 1e3, 1e-12);
  ck_assert_double_eq(r.floor_ms, r.compute_ms);
  ck_assert_int_eq(tp_roofline_memory_bound(&r), 0);
}
END_TEST

START_TEST(test_short_k_residual_bound_by_bytes) {
  tp_gemm_desc g = problem(4096, 32768, 512, TP_DTYPE_BF16, TP_DTYPE_BF16, 0);
  g.c = tp_tensor_matrix(TP_DTYPE_BF16, 4096, 32768, 32768, NULL);
  g.beta = 1.0f;
  const tp_roofline r = tp_roofline_of(&g, &h100ish);
  ck_assert_double_eq(r.bytes, 306184192.0 + 268435456.0); /* C read once */
  ck_assert_double_eq_tol(r.floor_ms, 574619648.0 / 3.0e12 * 1e3, 1e-12);
  ck_assert_double_eq(r.floor_ms, r.memory_ms);
  ck_assert_int_eq(tp_roofline_memory_bound(&r), 1);

  /* beta = 0: C is not needed, so it is not counted. */
  g.beta = 0.0f;
  ck_assert_double_eq(tp_roofline_of(&g, &h100ish).bytes, 306184192.0);
}
END_TEST

START_TEST(test_dtype_widths_scales_bias_and_padding) {
  /* fp8 operands (1 byte), an f32 D (4), rows padded by 16: padding never counts. */
  tp_gemm_desc g = problem(128, 256, 1024, TP_DTYPE_E4M3, TP_DTYPE_F32, 16);
  ck_assert_double_eq(tp_roofline_of(&g, NULL).bytes,
                      128.0 * 1024 + 256.0 * 1024 + 4.0 * 128 * 256);
  /* Blockwise scales (f32 per 1 x 128 of A, per 128 x 128 of B) and an f32 bias. */
  g.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 128, 8, 8, NULL);
  g.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 2, 8, 8, NULL);
  g.bias = tp_tensor_vector(TP_DTYPE_F32, 256, NULL);
  ck_assert_double_eq(tp_roofline_of(&g, NULL).bytes, 128.0 * 1024 + 256.0 * 1024 +
                                                          4.0 * 128 * 256 + 4.0 * 128 * 8 +
                                                          4.0 * 2 * 8 + 4.0 * 256);
  /* Packed fp4: half a byte per element. */
  const tp_gemm_desc f4 = problem(64, 64, 128, TP_DTYPE_E2M1, TP_DTYPE_BF16, 0);
  ck_assert_double_eq(tp_roofline_of(&f4, NULL).bytes, 64.0 * 64 + 64.0 * 64 + 2.0 * 64 * 64);
}
END_TEST

START_TEST(test_without_ceilings) {
  const tp_gemm_desc g = problem(64, 64, 64, TP_DTYPE_BF16, TP_DTYPE_BF16, 0);
  const tp_roofline none = tp_roofline_of(&g, NULL);
  ck_assert_double_eq(none.flops, 2.0 * 64 * 64 * 64);
  ck_assert_double_eq(none.bytes, 3.0 * 2 * 64 * 64);
  ck_assert(isnan(none.memory_ms) && isnan(none.compute_ms) && isnan(none.floor_ms));
  ck_assert_int_eq(tp_roofline_memory_bound(&none), 0);

  /* One ceiling unknown (NaN, 0, negative or infinite): its time is NaN,
   * the other's is given, and there is no floor. */
  const double bad[] = {NAN, 0.0, -1.0, INFINITY};
  for (int i = 0; i < 4; i++) {
    const tp_ceilings memory_only = {1.0e12, bad[i]}, arithmetic_only = {bad[i], 1.0e15};
    const tp_roofline m = tp_roofline_of(&g, &memory_only);
    ck_assert(!isnan(m.memory_ms) && isnan(m.compute_ms) && isnan(m.floor_ms));
    const tp_roofline c = tp_roofline_of(&g, &arithmetic_only);
    ck_assert(isnan(c.memory_ms) && !isnan(c.compute_ms) && isnan(c.floor_ms));
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("roofline");
  TCase *tc = tcase_create("floor");
  tcase_add_test(tc, test_short_k_store_bound_by_arithmetic);
  tcase_add_test(tc, test_short_k_residual_bound_by_bytes);
  tcase_add_test(tc, test_dtype_widths_scales_bias_and_padding);
  tcase_add_test(tc, test_without_ceilings);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
