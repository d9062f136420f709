/* tests/test_sampled_ref.c: the f64 reference on a sample of D
 * (tools/sample.h, tp_ref_gemm_at), without a GPU.
 *
 * The grid: all rows and columns of a small D; of a larger one, one per
 * stratum, ascending, the first and last rows always, the same for one
 * seed and another for another; sizes below 1 refused. The reference on
 * the grid equals the full reference (tp_ref_gemm) at every sampled
 * element, bit for bit, for every shape of scale map (standard with an
 * f32 C, blockwise_fp8 with padded scale rows, block_scaled in the tiled
 * layout, per-row vectors of s8 operands: tests/problem_registry.h), though
 * every row of A, B and C outside the sample holds
 * 0xFF bytes (NaN for float dtypes): it reads only the sampled rows; so
 * does the bound on the operands' rounding (tp_ref_rounding_at: nonzero
 * somewhere for block_scaled's W8A8), equal on the grid to the full one. The
 * sampled error of D (the reference rounded to bf16) is rounding-sized
 * and estimates the full normwise error; a wrong element planted in the
 * sample (a sign flipped, a NaN) fails the judgement against an untouched
 * comparator, one planted outside it is not seen. The judgement itself:
 * the 1.25x ratio, the floor below which two sides are not told apart,
 * the bound, a missing comparator, NaN; the normwise size of a spread
 * (tp_sample_norm_ratio). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/problem_registry.h"
#include "tilepipe/reference.h"
#include "tools/sample.h"

/* ------------------------------------------------------------ the grid */

START_TEST(test_pick_all_of_a_small_output) {
  tp_sample s;
  ck_assert_int_eq(tp_sample_pick(&s, 5, 7, 5, 8, 1), TP_OK);
  ck_assert_int_eq(s.nrows, 5);
  ck_assert_int_eq(s.ncols, 7);
  for (int64_t i = 0; i < 5; i++) ck_assert_int_eq(s.rows[i], i);
  for (int64_t j = 0; j < 7; j++) ck_assert_int_eq(s.cols[j], j);
  tp_sample_free(&s);
  ck_assert_ptr_null(s.rows);
}
END_TEST

START_TEST(test_pick_strata) {
  enum { M = 1000, N = 4099, R = 16, C = 40 };
  tp_sample s, same, other;
  ck_assert_int_eq(tp_sample_pick(&s, M, N, R, C, 7), TP_OK);
  ck_assert_int_eq(tp_sample_pick(&same, M, N, R, C, 7), TP_OK);
  ck_assert_int_eq(tp_sample_pick(&other, M, N, R, C, 8), TP_OK);
  ck_assert_int_eq(s.nrows, R);
  ck_assert_int_eq(s.ncols, C);
  const int64_t *picks[2] = {s.rows, s.cols}, sizes[2] = {M, N}, counts[2] = {R, C};
  for (int d = 0; d < 2; d++) {
    const int64_t *v = picks[d], size = sizes[d], count = counts[d];
    ck_assert_int_eq(v[0], 0);
    ck_assert_int_eq(v[count - 1], size - 1);
    for (int64_t i = 0; i < count; i++) {
      ck_assert_int_ge(v[i], i * size / count);
      ck_assert_int_lt(v[i], (i + 1) * size / count);
      if (i > 0) ck_assert_int_gt(v[i], v[i - 1]);
    }
  }
  ck_assert_mem_eq(s.rows, same.rows, sizeof *s.rows * R);
  ck_assert_mem_eq(s.cols, same.cols, sizeof *s.cols * C);
  ck_assert(memcmp(s.cols, other.cols, sizeof *s.cols * C) != 0);
  tp_sample_free(&s);
  tp_sample_free(&same);
  tp_sample_free(&other);
}
END_TEST

START_TEST(test_pick_refuses_empty_sizes) {
  tp_sample s;
  ck_assert_int_eq(tp_sample_pick(&s, 0, 5, 4, 4, 1), TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(s.rows);
  ck_assert_int_eq(tp_sample_pick(&s, 5, 5, 4, 0, 1), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(s.ncols, 0);
}
END_TEST

/* ------------------------------------------------------------ the reference */

#define SPEC .struct_size = sizeof(tp_ref_problem_spec)
static const tp_ref_problem_spec kinds[] = {
    {SPEC, .payload = "standard", .a = TP_DTYPE_BF16, .b = TP_DTYPE_BF16, .d = TP_DTYPE_BF16,
     .c = TP_DTYPE_F32, .m = 37, .n = 61, .k = 100, .pad = 3, .alpha = 0.5f, .beta = -1.5f},
    {SPEC, .payload = "blockwise_fp8", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E4M3,
     .d = TP_DTYPE_BF16, .m = 45, .n = 300, .k = 300, .pad = 2, .alpha = 1.0f},
    {SPEC, .payload = "block_scaled", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E5M2, .d = TP_DTYPE_F32,
     .sf_layout = TP_LAYOUT_SF_128X4, .m = 150, .n = 33, .k = 96, .alpha = 1.0f},
    {SPEC, .payload = TP_TEST_ROW_SCALES, .a = TP_DTYPE_S8, .b = TP_DTYPE_S8, .d = TP_DTYPE_F16,
     .c = TP_DTYPE_F16, .m = 20, .n = 29, .k = 64, .alpha = 1.0f, .beta = 1.0f},
};

/* 0xFF over every row of the strided matrix t not in keep[0..count). */
static void poison_rows_but(const tp_tensor *t, const int64_t *keep, int64_t count) {
  const size_t pitch = tp_dtype_bytes(t->dtype, t->stride[0]);
  int64_t next = 0;
  for (int64_t r = 0; r < t->shape[0]; r++) {
    if (next < count && keep[next] == r) {
      next++;
      continue;
    }
    memset((unsigned char *)t->data + (size_t)r * pitch, 0xFF,
           tp_dtype_bytes(t->dtype, t->shape[1]));
  }
}

START_TEST(test_grid_equals_full_reference) {
  tp_ref_problem_spec spec = kinds[_i];
  spec.registry = tp_test_problem_registry();
  ck_assert(spec.registry != NULL);
  const tp_ref_epilogue epi = spec.c != TP_DTYPE_NONE ? TP_REF_RESIDUAL : TP_REF_STORE;
  char err[1024] = "";
  tp_ref_problem *p;
  ck_assert_msg(tp_ref_problem_create(&p, &spec, 100 + (uint64_t)_i, err, sizeof err) == TP_OK,
                "%s", err);
  const tp_gemm_desc *d = tp_ref_problem_desc(p);
  const tp_problem *described = tp_ref_problem_description(p);
  const int64_t m = spec.m, n = spec.n;
  double *ref = malloc(sizeof(double) * (size_t)(m * n));
  double *mag = malloc(sizeof(double) * (size_t)(m * n));
  ck_assert(ref && mag);
  ck_assert_msg(tp_ref_gemm(d, described, epi, ref, mag, err, sizeof err) == TP_OK, "%s", err);
  double *bnd = malloc(sizeof(double) * (size_t)(m * n));
  double *spr = malloc(sizeof(double) * (size_t)(m * n));
  ck_assert(bnd && spr);
  ck_assert_msg(tp_ref_rounding_at(d, described, NULL, m, NULL, n, bnd, spr, err, sizeof err) ==
                    TP_OK,
                "%s", err);

  tp_sample s;
  ck_assert_int_eq(tp_sample_pick(&s, m, n, 9, 11, 3), TP_OK);
  poison_rows_but(&d->a, s.rows, s.nrows);
  poison_rows_but(&d->b, s.cols, s.ncols);
  if (d->c.dtype != TP_DTYPE_NONE) poison_rows_but(&d->c, s.rows, s.nrows);
  double *at = malloc(sizeof(double) * (size_t)(s.nrows * s.ncols));
  double *at_mag = malloc(sizeof(double) * (size_t)(s.nrows * s.ncols));
  ck_assert(at && at_mag);
  ck_assert_msg(tp_ref_gemm_at(d, described, epi, s.rows, s.nrows, s.cols, s.ncols, at, at_mag,
                               err, sizeof err) == TP_OK,
                "%s", err);
  double *at_bnd = malloc(sizeof(double) * (size_t)(s.nrows * s.ncols));
  double *at_spr = malloc(sizeof(double) * (size_t)(s.nrows * s.ncols));
  ck_assert(at_bnd && at_spr);
  ck_assert_msg(tp_ref_rounding_at(d, described, s.rows, s.nrows, s.cols, s.ncols, at_bnd,
                                   at_spr, err, sizeof err) == TP_OK,
                "%s", err);
  int64_t rounded = 0;
  for (int64_t i = 0; i < s.nrows; i++)
    for (int64_t j = 0; j < s.ncols; j++) {
      const int64_t full = s.rows[i] * n + s.cols[j], grid = i * s.ncols + j;
      ck_assert_msg(at[grid] == ref[full] && at_mag[grid] == mag[full],
                    "%s: D(%lld, %lld): grid %.17g (mag %.17g), full %.17g (mag %.17g)",
                    spec.payload, (long long)s.rows[i], (long long)s.cols[j], at[grid],
                    at_mag[grid], ref[full], mag[full]);
      ck_assert_msg(at_bnd[grid] == bnd[full] && at_spr[grid] == spr[full],
                    "%s: D(%lld, %lld): rounding on the grid %.17g (%.17g), full %.17g (%.17g)",
                    spec.payload, (long long)s.rows[i], (long long)s.cols[j], at_bnd[grid],
                    at_spr[grid], bnd[full], spr[full]);
      rounded += bnd[full] > 0.0;
    }
  /* block_scaled's W8A8 rounds both operands, some of whose elements move */
  ck_assert(strcmp(spec.payload, "block_scaled") != 0 || rounded > 0);
  tp_sample_free(&s);
  free(at);
  free(at_mag);
  free(at_bnd);
  free(at_spr);
  free(ref);
  free(mag);
  free(bnd);
  free(spr);
  tp_ref_problem_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ errors */

/* A blockwise problem's D filled with its reference rounded to bf16; the
 * full reference into *ref (m x n). */
static tp_ref_problem *rounded_problem(double **ref) {
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec,
                                    .registry = tp_test_problem_registry(),
                                    .payload = "blockwise_fp8", .a = TP_DTYPE_E4M3,
                                    .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16, .m = 64, .n = 200,
                                    .k = 300, .alpha = 1.0f};
  char err[1024] = "";
  tp_ref_problem *p;
  ck_assert(spec.registry != NULL);
  ck_assert_msg(tp_ref_problem_create(&p, &spec, 5, err, sizeof err) == TP_OK, "%s", err);
  const tp_gemm_desc *d = tp_ref_problem_desc(p);
  *ref = malloc(sizeof(double) * 64 * 200);
  ck_assert_ptr_nonnull(*ref);
  ck_assert(tp_ref_gemm(d, tp_ref_problem_description(p), TP_REF_STORE, *ref, NULL, err,
                        sizeof err) == TP_OK);
  for (int64_t i = 0; i < 64; i++)
    for (int64_t j = 0; j < 200; j++)
      tp_dtype_store(TP_DTYPE_BF16, d->d.data, tp_ref_index(&d->d, i, j),
                     (float)(*ref)[i * 200 + j]);
  return p;
}

/* The sampled reference of the rounded problem. */
static double *sampled_ref(tp_ref_problem *p, const tp_sample *s) {
  char err[256] = "";
  double *at = malloc(sizeof(double) * (size_t)(s->nrows * s->ncols));
  ck_assert_ptr_nonnull(at);
  ck_assert_msg(tp_ref_gemm_at(tp_ref_problem_desc(p), tp_ref_problem_description(p),
                               TP_REF_STORE, s->rows, s->nrows, s->cols, s->ncols, at, NULL, err,
                               sizeof err) == TP_OK,
                "%s", err);
  return at;
}

START_TEST(test_sampled_error_and_planted_elements) {
  double *ref;
  tp_ref_problem *p = rounded_problem(&ref);
  const tp_tensor *d = &tp_ref_problem_desc(p)->d;
  tp_sample s;
  ck_assert_int_eq(tp_sample_pick(&s, 64, 200, 32, 32, 9), TP_OK);
  double *at = sampled_ref(p, &s);
  const tp_ref_tolerance tol = tp_ref_tolerance_for(TP_DTYPE_BF16, 300, 14);

  /* bf16 rounding alone: a fraction of its unit roundoff, and close to the
   * error over every element. */
  const double clean = tp_sample_error(d, &s, at);
  ck_assert_double_gt(clean, 0.1 * tol.u_out);
  ck_assert_double_lt(clean, tol.u_out);
  double err2 = 0.0, ref2 = 0.0;
  for (int64_t i = 0; i < 64; i++)
    for (int64_t j = 0; j < 200; j++) {
      const double r = ref[i * 200 + j];
      const double v = tp_dtype_load(TP_DTYPE_BF16, d->data, tp_ref_index(d, i, j));
      err2 += (v - r) * (v - r);
      ref2 += r * r;
    }
  ck_assert_double_lt(fabs(clean / sqrt(err2 / ref2) - 1.0), 0.25);
  ck_assert(tp_sample_error_within(clean, clean, &tol));

  /* Outside the sample: row 1 lies in the first of 32 strata of 2 rows,
   * whose pick is row 0. Not seen. */
  ck_assert(s.rows[0] == 0 && s.rows[1] >= 2);
  const int64_t outside = tp_ref_index(d, 1, s.cols[4]);
  const float kept = tp_dtype_load(TP_DTYPE_BF16, d->data, outside);
  tp_dtype_store(TP_DTYPE_BF16, d->data, outside, 2.0f * kept + 1.0f);
  ck_assert_double_eq(tp_sample_error(d, &s, at), clean);
  tp_dtype_store(TP_DTYPE_BF16, d->data, outside, kept);

  /* Inside it: the largest of the 1024 sampled elements with its sign
   * flipped fails the judgement against the untouched output; a NaN is
   * an infinite error. */
  int64_t largest = 0;
  for (int64_t g = 1; g < s.nrows * s.ncols; g++)
    if (fabs(at[g]) > fabs(at[largest])) largest = g;
  const int64_t inside = tp_ref_index(d, s.rows[largest / s.ncols], s.cols[largest % s.ncols]);
  const float value = tp_dtype_load(TP_DTYPE_BF16, d->data, inside);
  tp_dtype_store(TP_DTYPE_BF16, d->data, inside, -value);
  const double planted = tp_sample_error(d, &s, at);
  ck_assert_double_gt(planted, TP_SAMPLE_ERROR_RATIO * clean);
  ck_assert(!tp_sample_error_within(planted, clean, &tol));
  tp_dtype_store(TP_DTYPE_BF16, d->data, inside, NAN);
  ck_assert(isinf(tp_sample_error(d, &s, at)));
  ck_assert(!tp_sample_error_within(tp_sample_error(d, &s, at), clean, &tol));

  free(at);
  free(ref);
  tp_sample_free(&s);
  tp_ref_problem_destroy(p);
}
END_TEST

START_TEST(test_judgement) {
  const tp_ref_tolerance bf16 = tp_ref_tolerance_for(TP_DTYPE_BF16, 1000, 14);
  const tp_ref_tolerance f32 = tp_ref_tolerance_for(TP_DTYPE_F32, 16, 14);
  ck_assert_double_eq(tp_sample_error_floor(&bf16), 0x1p-10);
  ck_assert_double_eq(tp_sample_error_floor(&f32), 0x1p-20);
  /* The ratio, above the floor. */
  ck_assert(tp_sample_error_within(2.0e-3, 1.9e-3, &bf16));
  ck_assert(tp_sample_error_within(2.4e-3, 2.0e-3, &bf16));
  ck_assert(!tp_sample_error_within(2.6e-3, 2.0e-3, &bf16));
  /* Below the floor the two sides are not told apart. */
  ck_assert(tp_sample_error_within(9.0e-4, 1.0e-4, &bf16));
  ck_assert(tp_sample_error_within(9.0e-7, 1.0e-8, &f32));
  ck_assert(!tp_sample_error_within(2.0e-6, 1.0e-8, &f32));
  /* The bound holds whatever the comparator did. */
  ck_assert(!tp_sample_error_within(bf16.rel * 1.01, 1.0, &bf16));
  /* No comparator: the bound alone. */
  ck_assert(tp_sample_error_within(bf16.rel * 0.99, NAN, &bf16));
  ck_assert(!tp_sample_error_within(bf16.rel * 1.01, NAN, &bf16));
  /* A broken output never passes. */
  ck_assert(!tp_sample_error_within(NAN, 1.0e-3, &bf16));
  ck_assert(!tp_sample_error_within(INFINITY, INFINITY, &bf16));
  /* The normwise size of a per-element spread: ||x|| / ||ref||, ||x|| where
   * ref is 0. */
  const int64_t rows[2] = {0, 1}, cols[2] = {0, 1};
  const tp_sample s = {(int64_t *)rows, (int64_t *)cols, 2, 2};
  const double ref[4] = {3, 0, 0, 4}, x[4] = {0.3, 0, 0.4, 0}, zero[4] = {0, 0, 0, 0};
  ck_assert_double_eq_tol(tp_sample_norm_ratio(&s, x, ref), 0.1, 1e-15);
  ck_assert_double_eq_tol(tp_sample_norm_ratio(&s, x, zero), 0.5, 1e-15);
}
END_TEST

int main(void) {
  Suite *s = suite_create("sampled_ref");
  TCase *tc = tcase_create("sample");
  tcase_add_test(tc, test_pick_all_of_a_small_output);
  tcase_add_test(tc, test_pick_strata);
  tcase_add_test(tc, test_pick_refuses_empty_sizes);
  tcase_add_loop_test(tc, test_grid_equals_full_reference, 0,
                      (int)(sizeof kinds / sizeof kinds[0]));
  tcase_add_test(tc, test_sampled_error_and_planted_elements);
  tcase_add_test(tc, test_judgement);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
