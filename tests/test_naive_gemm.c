/* tests/test_naive_gemm.c: the f64 reference (tp_ref_gemm,
 * tilepipe/reference.h) reading scales by their maps (tp_scale_map,
 * tilepipe/problem.h), against small cases worked out by hand here, not by
 * the reference's own index code.
 *
 * f32 operands and scales hold the values exactly, so every expected D is
 * exact: an unscaled product; a map K first ([k / k][r / rows], blockwise
 * FP8's A); a map of several rows per scale ([r / rows][k / k], its B);
 * one scale for the whole of K as a vector [M] and as [1, N] read K first;
 * and scales in the 128x4 tiled layout, their bytes placed by the layout's
 * formula as tensor.h states it, at rows past the first atom. The
 * magnitude (mag) sums |products|. Refused, naming the tensor: a scale
 * tensor without a map, a map without a tensor, a map whose indices leave
 * its tensor's shape, a vector read with a K block. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tilepipe/reference.h"

#define ASSERT_HAS(haystack, needle)                                                          \
  ck_assert_msg(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"",     \
                (haystack), (needle))

/* An f32 m x k matrix, contiguous, element (i, j) = f(i, j). */
static tp_tensor matrix(float *data, int64_t rows, int64_t cols, float (*f)(int64_t, int64_t)) {
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) data[i * cols + j] = f(i, j);
  return tp_tensor_matrix(TP_DTYPE_F32, rows, cols, cols, data);
}

static float ones(int64_t i, int64_t j) { return 1.0f; }
static float a_small(int64_t i, int64_t j) { return (float)(1 + i + 2 * j); } /* 1..8 */
static float b_signs(int64_t i, int64_t j) { return (j + i) % 2 ? -1.0f : 2.0f; }

/* D = store(A x B^T) into ref and mag for desc and problem. */
static void reference(const tp_gemm_desc *d, const tp_problem *p, double *ref, double *mag) {
  char err[256] = "";
  ck_assert_msg(tp_ref_gemm(d, p, TP_REF_STORE, ref, mag, err, sizeof err) == TP_OK, "%s", err);
}

/* A 2 x 4, B 3 x 4, the descriptor without scales. */
static tp_gemm_desc small_desc(float *a, float *b) {
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, 2, 3, 4);
  d.a = matrix(a, 2, 4, a_small);
  d.b = matrix(b, 3, 4, b_signs);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, 2, 3, 3, NULL);
  return d;
}

/* A(i, k) = 1 + i + 2k; B(j, k) = 2 where j + k is even, else -1. */
START_TEST(test_unscaled) {
  float a[8], b[12];
  tp_gemm_desc d = small_desc(a, b);
  const tp_problem plain = {.struct_size = sizeof plain, .acc_bits = 24};
  double ref[6], mag[6];
  reference(&d, &plain, ref, mag);
  /* Row 0 of A: 1 3 5 7; B row 0: 2 -1 2 -1 -> 2 - 3 + 10 - 7 = 2; row 1:
   * -1 2 -1 2 -> -1 + 6 - 5 + 14 = 14. Row 1 of A: 2 4 6 8 -> 4 - 4 + 12
   * - 8 = 4; -2 + 8 - 6 + 16 = 16. */
  const double want[6] = {2, 14, 2, 4, 16, 4};
  const double want_mag[6] = {22, 26, 22, 28, 32, 28};
  for (int i = 0; i < 6; i++) {
    ck_assert_double_eq(ref[i], want[i]);
    ck_assert_double_eq(mag[i], want_mag[i]);
  }
}
END_TEST

/* a_scale K first with two K-elements per scale: [k / 2][r], 2 x 2;
 * b_scale two rows per scale, one per K block of 4: [j / 2][k / 4], 2 x 1. */
START_TEST(test_k_first_and_row_blocks) {
  float a[8], b[12];
  tp_gemm_desc d = small_desc(a, b);
  float sa[4] = {2, 3,    /* K block 0: rows 0, 1 */
                 0.5f, 4}; /* K block 1 */
  float sb[2] = {10, -1}; /* rows 0-1, row 2 */
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 2, 2, 2, sa);
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 2, 1, 1, sb);
  const tp_problem p = {.struct_size = sizeof(tp_problem),
                        .a_scale = {.rows = 1, .k = 2, .k_first = 1, .exp_count = 1},
                        .b_scale = {.rows = 2, .k = 4, .exp_count = 1},
                        .acc_bits = 24};
  double ref[6], mag[6];
  reference(&d, &p, ref, mag);
  /* A' row 0: 1*2 3*2 5*.5 7*.5 = 2 6 2.5 3.5; row 1: 2*3 4*3 6*4 8*4 =
   * 6 12 24 32. B' rows 0, 1 times 10, row 2 times -1:
   *   D(0, 0) = 10 (2*2 - 6 + 2.5*2 - 3.5) = 10 * -0.5 = -5
   *   D(0, 1) = 10 (-2 + 12 - 2.5 + 7) = 145
   *   D(0, 2) = -(4 - 6 + 5 - 3.5) = 0.5
   *   D(1, 0) = 10 (12 - 12 + 48 - 32) = 160
   *   D(1, 1) = 10 (-6 + 24 - 24 + 64) = 580
   *   D(1, 2) = -(12 - 12 + 48 - 32) = -16 */
  const double want[6] = {-5, 145, 0.5, 160, 580, -16};
  /* mag: |A'| . |B'|: row 0 (2*2 + 6 + 2.5*2 + 3.5) = 18.5 and (2 + 12 +
   * 2.5 + 7) = 23.5 times 10, and 18.5; row 1 (12 + 12 + 48 + 32) = 104,
   * (6 + 24 + 24 + 64) = 118. */
  const double want_mag[6] = {185, 235, 18.5, 1040, 1180, 104};
  for (int i = 0; i < 6; i++) {
    ck_assert_double_eq(ref[i], want[i]);
    ck_assert_double_eq(mag[i], want_mag[i]);
  }
}
END_TEST

/* One scale per row for the whole of K: a_scale a vector [M], b_scale
 * [1, N] read K first. */
START_TEST(test_vectors) {
  float a[8], b[12];
  tp_gemm_desc d = small_desc(a, b);
  float sa[2] = {0.25f, 2}, sb[3] = {1, -3, 0.5f};
  d.a_scale = tp_tensor_vector(TP_DTYPE_F32, 2, sa);
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 3, 3, sb);
  const tp_problem p = {.struct_size = sizeof(tp_problem),
                        .a_scale = {.rows = 1, .k = 0, .exp_count = 1},
                        .b_scale = {.rows = 1, .k = 0, .k_first = 1, .exp_count = 1},
                        .acc_bits = 24};
  double ref[6];
  reference(&d, &p, ref, NULL);
  /* The unscaled D (2 14 2 / 4 16 4) times sa[i] * sb[j]. */
  const double want[6] = {0.5, -10.5, 0.25, 8, -96, 4};
  for (int i = 0; i < 6; i++) ck_assert_double_eq(ref[i], want[i]);
}
END_TEST

/* ue8m0 scales [130, 2] in the 128x4 tiled layout, one per 2 K-elements,
 * A and B all ones: D(i, j) = 2 (sa(i, 0) + sa(i, 1)). */
START_TEST(test_tiled_scales) {
  enum { M = 130, N = 2, K = 4, COLS = 2 };
  static float a[M * K], b[N * K];
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, M, N, K);
  d.a = matrix(a, M, K, ones);
  d.b = matrix(b, N, K, ones);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, NULL);
  /* Two row atoms of 128 x 4 (one column atom): 1024 bytes, 0 (2^-127)
   * where no scale is. */
  static unsigned char sa[1024];
  memset(sa, 0, sizeof sa);
  const int64_t rows[] = {0, 1, 33, 127, 128, 129}, exps[] = {0, 1, 2, 3, 4, 5};
  for (int t = 0; t < 6; t++)
    for (int64_t c = 0; c < COLS; c++) {
      const int64_t r = rows[t];
      /* tensor.h: atom (r/128, c/4) at ((r/128) * ceil(cols/4) + c/4) * 512,
       * byte (r%32)*16 + ((r%128)/32)*4 + c%4 inside it. */
      const int64_t at =
          ((r / 128) * 1 + c / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + c % 4;
      sa[at] = (unsigned char)(127 + exps[t] + c); /* 2^(e + c) */
    }
  d.a_scale = tp_tensor_sf_128x4(TP_DTYPE_UE8M0, M, COLS, sa);
  const tp_problem p = {.struct_size = sizeof(tp_problem),
                        .a_scale = {.rows = 1, .k = 2, .exp_count = 1},
                        .acc_bits = 24};
  static double ref[M * N];
  reference(&d, &p, ref, NULL);
  for (int t = 0; t < 6; t++) {
    const double e = (double)exps[t], want = 2.0 * (ldexp(1.0, (int)e) + ldexp(1.0, (int)e + 1));
    for (int64_t j = 0; j < N; j++)
      ck_assert_msg(ref[rows[t] * N + j] == want, "D(%lld, %lld) = %g, want %g",
                    (long long)rows[t], (long long)j, ref[rows[t] * N + j], want);
  }
  /* A row without a scale reads 2^-127 twice. */
  ck_assert_double_eq(ref[2 * N], 4.0 * ldexp(1.0, -127));
}
END_TEST

START_TEST(test_refusals_name_the_tensor) {
  float a[8], b[12], sa[4] = {1, 1, 1, 1};
  tp_gemm_desc d = small_desc(a, b);
  tp_problem p = {.struct_size = sizeof p, .acc_bits = 24};
  double ref[6];
  char err[256] = "";
  /* A tensor without a map. */
  d.a_scale = tp_tensor_vector(TP_DTYPE_F32, 2, sa);
  ck_assert_int_eq(tp_ref_gemm(&d, &p, TP_REF_STORE, ref, NULL, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "a_scale is present but its map has rows 0");
  /* A map without a tensor. */
  d.a_scale = (tp_tensor){.dtype = TP_DTYPE_NONE};
  p.b_scale = (tp_scale_map){.rows = 1, .k = 0, .exp_count = 1};
  ck_assert_int_eq(tp_ref_gemm(&d, &p, TP_REF_STORE, ref, NULL, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "b_scale is absent but its map has rows 1");
  /* A vector one short of N. */
  d.b_scale = tp_tensor_vector(TP_DTYPE_F32, 2, sa);
  ck_assert_int_eq(tp_ref_gemm(&d, &p, TP_REF_STORE, ref, NULL, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "b_scale of shape [2] does not hold its map's scales: a scale per 1 rows of 3");
  /* A vector read with K blocks. */
  d.b_scale = tp_tensor_vector(TP_DTYPE_F32, 3, sa);
  p.b_scale.k = 2;
  ck_assert_int_eq(tp_ref_gemm(&d, &p, TP_REF_STORE, ref, NULL, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "b_scale");
  /* K first: the K blocks must fit the first dimension. */
  p.b_scale = (tp_scale_map){0};
  d.b_scale = (tp_tensor){.dtype = TP_DTYPE_NONE};
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 2, 2, sa);
  p.a_scale = (tp_scale_map){.rows = 1, .k = 2, .k_first = 1, .exp_count = 1};
  ck_assert_int_eq(tp_ref_gemm(&d, &p, TP_REF_STORE, ref, NULL, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "a_scale of shape [1, 2] (rank 2) does not hold its map's scales: a scale per "
                  "1 rows of 2 and per 2 of K = 4, K first");
}
END_TEST

int main(void) {
  Suite *s = suite_create("naive_gemm");
  TCase *tc = tcase_create("maps");
  tcase_add_test(tc, test_unscaled);
  tcase_add_test(tc, test_k_first_and_row_blocks);
  tcase_add_test(tc, test_vectors);
  tcase_add_test(tc, test_tiled_scales);
  tcase_add_test(tc, test_refusals_name_the_tensor);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
