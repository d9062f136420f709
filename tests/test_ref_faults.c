/* tests/test_ref_faults.c: the comparator has teeth (tilepipe/reference.h,
 * tools/reference/compare.c).
 *
 * - The GPU error model's terms are pinned: tp_ref_tolerance_for_gpu gives
 *   the documented formula's numbers, and errors measured on the H100
 *   (docs/testing.md, "The error model") lie inside the bound by no more
 *   than the documented margin, so the bound can be neither loosened nor
 *   tightened below what the hardware does without this test failing.
 * - Faults injected into a correct D fail it: for each payload and dtype,
 *   at the shapes the GPU tests use (decode rows to 4097 columns, K to
 *   16384), a wrong column (its neighbour's values, and zeros), a swapped
 *   pair of rows, a 1% scale error, one sign flip (at the element of median
 *   |ref|), a k-block missing from a tile's rows, an unwritten element (D's 0xFF poison), a NaN
 *   and an infinity. Judged by the GPU's tolerance, the looser of the two
 *   backends', a correct D must pass before any fault goes in.
 *
 * Built twice: test_ref_faults takes its correct D from the CPU backend;
 * test_gpu_faults (FAULTS_ON_GPU) from the GPU, with the GPU's own errors,
 * and skips (77) without one. The plugins come from the build tree's
 * registry (TP_TEST_REGISTRY). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/build_registry.h"

#include "tests/tuned_registry.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"


/* --------------------------------------------------------- the pinning */

static const double f32u = 0x1p-24;

static tp_problem sum_of(int acc_bits, int acc_k) {
  tp_problem p = {.struct_size = sizeof p, .acc_bits = acc_bits, .acc_k = acc_k};
  return p;
}

/* The documented formula, written out again: any change of a constant in
 * compare.c shows here. */
START_TEST(test_gpu_terms) {
  const tp_problem fp8 = sum_of(TP_PROBLEM_ACC_BITS_WGMMA_FP8, 0);
  const tp_problem blockwise = sum_of(TP_PROBLEM_ACC_BITS_WGMMA_FP8, 128);
  const tp_problem wide = sum_of(TP_PROBLEM_ACC_BITS_WGMMA_16, 0);
  const double u14 = 0x1p-14, u22 = 0x1p-22;

  tp_ref_tolerance t = tp_ref_tolerance_for_gpu(TP_DTYPE_BF16, 16384, &fp8);
  ck_assert_double_eq(t.u_out, 0x1p-8);
  ck_assert_double_eq(t.u_acc, u14);
  ck_assert_double_eq_tol(t.g, 16 * u14 + (256 + 16) * f32u, 1e-18);
  ck_assert_double_eq_tol(t.h, 0.5 * 16384 * u14, 1e-15);
  ck_assert_double_eq_tol(t.rel, hypot(0.866 * 0x1p-8, 4 * u14 * sqrt(16384 / 32.0)) +
                                     (sqrt(256.0) + 16) * f32u, 1e-15);

  t = tp_ref_tolerance_for_gpu(TP_DTYPE_F32, 7168, &blockwise);
  ck_assert_double_eq_tol(t.g, 16 * u14 + (112 + 16) * f32u, 1e-18);
  ck_assert_double_eq_tol(t.h, 0.5 * 128 * u14, 1e-15);
  ck_assert_double_eq_tol(t.rel, hypot(0.866 * f32u, 4 * u14 * 2.0) + (sqrt(112.0) + 16) * f32u,
                          1e-15);

  /* A running sum shorter than 32 counts as one wgmma's; acc_k past K as K. */
  t = tp_ref_tolerance_for_gpu(TP_DTYPE_F16, 16, &blockwise);
  ck_assert_double_eq_tol(t.h, 0.5 * 16 * u14, 1e-15);
  ck_assert_double_eq_tol(t.rel, hypot(0.866 * 0x1p-11, 4 * u14) + (sqrt(0.25) + 16) * f32u,
                          1e-15);

  t = tp_ref_tolerance_for_gpu(TP_DTYPE_BF16, 4096, &wide);
  ck_assert_double_eq_tol(t.g, 16 * u22 + (64 + 16) * f32u, 1e-18);
  ck_assert_double_eq_tol(t.h, 0.5 * 4096 * u22, 1e-15);

  /* The classic model is what it was: no coherent term. */
  t = tp_ref_tolerance_for(TP_DTYPE_BF16, 300, 24);
  ck_assert_double_eq(t.h, 0.0);
  ck_assert_double_eq_tol(t.g, 316 * f32u, 1e-18);
  ck_assert_double_eq_tol(t.rel, 0x1p-8 + (4 * sqrt(300.0) + 16) * f32u, 1e-15);
}
END_TEST

/* Errors measured on an H100 (NVIDIA H100 80GB HBM3, driver 580.159,
 * 2026-11-28; tools/reference's problems, D in f32 so that only the sum's
 * error shows): the largest |D - ref| / mag over the
 * elements (signs random), the largest |D - ref| / |ref| where every product
 * is positive, and the normwise error (signs random). docs/testing.md has
 * the whole table. */
typedef struct measured {
  const char *what;
  int tight; /* e4m3 and 16-bit rows, whose errors are the largest of their kind */
  int acc_bits, acc_k;
  int64_t k;
  double per_mag, per_ref_same_sign, normwise;
} measured;

static const measured h100[] = {
    {"standard e4m3 256x256", 1, 14, 0, 128, 1.88e-4, 1.73e-3, 1.21e-4},
    {"standard e4m3 256x256", 1, 14, 0, 512, 2.19e-4, 8.04e-3, 3.31e-4},
    {"standard e4m3 256x256", 1, 14, 0, 2048, 1.19e-4, 9.30e-3, 3.77e-4},
    {"standard e4m3 256x256", 1, 14, 0, 7168, 8.73e-5, 1.51e-2, 5.26e-4},
    {"standard e4m3 256x256", 1, 14, 0, 16384, 9.00e-5, 3.35e-2, 8.56e-4},
    {"standard e4m3 1x4096", 1, 14, 0, 16384, 1.32e-4, 1.38e-1, 2.03e-3},
    {"standard e5m2 256x256", 0, 14, 0, 16384, 7.14e-5, 2.60e-2, 5.41e-4},
    {"blockwise_fp8 256x256", 1, 14, 128, 512, 1.97e-4, 1.49e-3, 1.24e-4},
    {"blockwise_fp8 256x256", 1, 14, 128, 16384, 9.99e-5, 1.12e-3, 1.23e-4},
    {"blockwise_fp8 1x4096", 1, 14, 128, 16384, 5.99e-5, 1.14e-3, 1.24e-4},
    {"standard bf16 256x256", 1, 22, 0, 16384, 1.83e-7, 1.83e-7, 2.89e-6},
    {"standard bf16 1x4096", 1, 22, 0, 16384, 4.28e-7, 3.69e-5, 9.06e-6},
    {"standard f16 256x256", 1, 22, 0, 16384, 2.09e-7, 2.09e-7, 3.22e-6},
    {"block_scaled bf16 x e4m3 256x256", 0, 22, 0, 16384, 1.80e-7, 4.09e-6, 1.46e-6},
};

/* Inside the bound, by no more than 8x on the random-sign terms (g, rel)
 * and 16x on the coherent one (h: the measured sums ran over splits of K
 * shorter than K, which the bound cannot know). */
START_TEST(test_measured_inside) {
  for (size_t i = 0; i < sizeof h100 / sizeof h100[0]; i++) {
    const measured *m = &h100[i];
    const tp_problem p = sum_of(m->acc_bits, m->acc_k);
    const tp_ref_tolerance t = tp_ref_tolerance_for_gpu(TP_DTYPE_F32, m->k, &p);
    ck_assert_msg(m->per_mag <= t.g && t.g <= 16 * m->per_mag + 40 * f32u * m->k / 64,
                  "%s K %lld: g %.3g against %.3g measured", m->what, (long long)m->k, t.g,
                  m->per_mag);
    ck_assert_msg(m->per_ref_same_sign <= t.h + t.g,
                  "%s K %lld: h %.3g against %.3g measured", m->what, (long long)m->k, t.h,
                  m->per_ref_same_sign);
    ck_assert_msg(m->normwise <= t.rel, "%s K %lld: rel %.3g against %.3g measured", m->what,
                  (long long)m->k, t.rel, m->normwise);
    if (m->tight && m->acc_bits == TP_PROBLEM_ACC_BITS_WGMMA_FP8)
      ck_assert_msg(t.rel <= 8 * m->normwise && t.h <= 16 * m->per_ref_same_sign,
                    "%s K %lld: rel %.3g, h %.3g far above %.3g, %.3g measured", m->what,
                    (long long)m->k, t.rel, t.h, m->normwise, m->per_ref_same_sign);
  }
}
END_TEST

/* ----------------------------------------------------- fault injection */

typedef struct fault_case {
  const char *payload;
  tp_dtype a, b, d;
  int64_t m, n, k;
} fault_case;

/* The GPU tests' shapes and dtypes: decode rows, ragged tiles, long K. */
static const fault_case cases[] = {
    {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, 1, 4097, 16384},
    {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, 16, 1000, 16384},
    {"standard", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_DTYPE_F32, 65, 517, 7168},
    {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, 1, 4097, 16384},
    {"standard", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, 100, 300, 4096},
    {"blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, 17, 1024, 16384},
    {"blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_F32, 1, 4097, 7168},
    {"block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, 33, 640, 7168},
    {"block_scaled", TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_DTYPE_BF16, 1, 4097, 16384},
    {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, 1000, 257, 257},
};

/* D(i, j) of the problem's host D. */
static double d_at(tp_ref_problem *p, int64_t i, int64_t j) {
  const tp_tensor *d = &tp_ref_problem_desc(p)->d;
  return tp_dtype_load(d->dtype, d->data, tp_ref_index(d, i, j));
}

static void d_set(tp_ref_problem *p, int64_t i, int64_t j, double v) {
  const tp_tensor *d = &tp_ref_problem_desc(p)->d;
  tp_dtype_store(d->dtype, d->data, tp_ref_index(d, i, j), (float)v);
}

static int judged_pass(tp_ref_problem *p, const tp_ref_tolerance *tol, char *why, size_t len) {
  tp_ref_report rep = {.struct_size = sizeof rep};
  ck_assert_int_eq(tp_ref_problem_check(p, tol, &rep), TP_OK);
  tp_ref_report_format(&rep, why, len);
  return rep.pass;
}

static int by_value(const void *x, const void *y) {
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The element whose |ref| is the median's. */
static int64_t median_element(const double *ref, int64_t count) {
  double *v = malloc((size_t)count * sizeof *v);
  ck_assert_ptr_nonnull(v);
  for (int64_t i = 0; i < count; i++) v[i] = fabs(ref[i]);
  qsort(v, (size_t)count, sizeof *v, by_value);
  const double med = v[count / 2];
  free(v);
  for (int64_t i = 0; i < count; i++)
    if (fabs(ref[i]) == med) return i;
  return 0;
}

/* The scale of element (r, k) of an operand under its map (tilepipe/
 * problem.h), 1 for an unscaled one. */
static double scale_at(const tp_tensor *t, const tp_scale_map *map, int64_t r, int64_t k) {
  if (map->rows == 0) return 1.0;
  const int64_t row = r / map->rows, col = map->k == 0 ? 0 : k / map->k;
  int64_t i;
  if (t->rank == 1)
    i = tp_ref_index(t, 0, row);
  else
    i = map->k_first ? tp_ref_index(t, col, row) : tp_ref_index(t, row, col);
  return tp_dtype_load(t->dtype, t->data, i);
}

/* The k-block of 128 whose scales (row 0 of A and of B) are the largest:
 * a block whose products all lie under D's rounding is one no comparator
 * can miss, and no bug that loses it changes D. */
static int64_t loudest_k_block(tp_ref_problem *p) {
  const tp_gemm_desc *desc = tp_ref_problem_desc(p);
  const tp_problem *pr = tp_ref_problem_description(p);
  int64_t best = 0;
  double top = -1.0;
  for (int64_t kb = 0; kb * 128 < desc->k; kb++) {
    const double s = scale_at(&desc->a_scale, &pr->a_scale, 0, kb * 128) *
                     scale_at(&desc->b_scale, &pr->b_scale, 0, kb * 128);
    if (s > top) {
      top = s;
      best = kb;
    }
  }
  return best;
}

/* Rows 0 .. rows - 1 of D without k-block kb (128 of K), as a tile that
 * skipped it would leave them: the reference there with A's elements of
 * the block zeroed (tp_ref_gemm_at, so that only those rows are summed
 * again), into missing (rows x N). */
static void miss_k_block(tp_ref_problem *p, int64_t kb, int64_t rows, double *missing) {
  tp_gemm_desc *desc = tp_ref_problem_desc(p);
  const tp_tensor *a = &desc->a;
  const int64_t k0 = kb * 128, k1 = k0 + 128 < desc->k ? k0 + 128 : desc->k;
  int64_t bytes;
  tp_ref_problem_buffer(p, TP_REF_A, &bytes);
  void *saved = malloc((size_t)bytes);
  ck_assert_ptr_nonnull(saved);
  memcpy(saved, a->data, (size_t)bytes);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = k0; k < k1; k++) tp_dtype_store(a->dtype, a->data, tp_ref_index(a, i, k), 0.0f);
  char err[256];
  ck_assert_msg(tp_ref_gemm_at(desc, tp_ref_problem_description(p), TP_REF_STORE, NULL, rows,
                               NULL, desc->n, missing, NULL, err, sizeof err) == TP_OK,
                "%s", err);
  memcpy(a->data, saved, (size_t)bytes);
  free(saved);
}

static void expect_fails(tp_ref_problem *p, const tp_ref_tolerance *tol, const char *what,
                         const char *fault, const void *good, size_t dbytes) {
  char why[512];
  ck_assert_msg(!judged_pass(p, tol, why, sizeof why), "%s: %s passed the comparator (%s)", what,
                fault, why);
  memcpy(tp_ref_problem_buffer(p, TP_REF_D, NULL), good, dbytes);
}

static void inject_all(tp_ref_problem *p, const tp_ref_tolerance *tol, const char *what) {
  const tp_gemm_desc *desc = tp_ref_problem_desc(p);
  const int64_t m = desc->m, n = desc->n;
  int64_t dbytes;
  void *dbuf = tp_ref_problem_buffer(p, TP_REF_D, &dbytes);
  void *good = malloc((size_t)dbytes);
  ck_assert_ptr_nonnull(good);
  memcpy(good, dbuf, (size_t)dbytes);
  double *mag, *ref = tp_ref_problem_expected(p, &mag);

  /* With fewer than 16 rows a column is too few elements for any bound
   * that admits the GPU's own errors to catch for certain (two neighbours
   * may be close): there the last 16 columns each take their left
   * neighbour's values, as a fragment mapped one column off would. */
  const int64_t shifted = m >= 16 || n < 17 ? 1 : 16;
  for (int64_t j = n - 1; j >= n - shifted; j--)
    for (int64_t i = 0; i < m; i++) d_set(p, i, j, d_at(p, i, j - 1));
  expect_fails(p, tol, what, "the last column(s) holding their neighbours' values", good,
               (size_t)dbytes);
  for (int64_t i = 0; i < m; i++) d_set(p, i, n - 1, 0.0);
  expect_fails(p, tol, what, "the last column zero", good, (size_t)dbytes);
  if (m >= 2) {
    for (int64_t j = 0; j < n; j++) {
      const double first = d_at(p, 0, j);
      d_set(p, 0, j, d_at(p, m - 1, j));
      d_set(p, m - 1, j, first);
    }
    expect_fails(p, tol, what, "rows 0 and M-1 swapped", good, (size_t)dbytes);
  }
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) d_set(p, i, j, 1.01 * d_at(p, i, j));
  expect_fails(p, tol, what, "every element 1% too large", good, (size_t)dbytes);
  const int64_t med = median_element(ref, m * n);
  d_set(p, med / n, med % n, -d_at(p, med / n, med % n));
  expect_fails(p, tol, what, "the sign of the median element flipped", good, (size_t)dbytes);
  const int64_t tile_rows = m < 8 ? m : 8;
  double *missing = malloc((size_t)(tile_rows * n) * sizeof *missing);
  ck_assert_ptr_nonnull(missing);
  miss_k_block(p, loudest_k_block(p), tile_rows, missing);
  for (int64_t i = 0; i < tile_rows; i++)
    for (int64_t j = 0; j < n; j++) d_set(p, i, j, missing[i * n + j]);
  free(missing);
  expect_fails(p, tol, what, "one k-block of 128 missing from the first 8 rows", good,
               (size_t)dbytes);
  const tp_tensor *d = &desc->d;
  memset((unsigned char *)d->data + tp_ref_index(d, m / 2, n / 2) * tp_dtype_bits(d->dtype) / 8,
         0xFF, (size_t)tp_dtype_bits(d->dtype) / 8);
  expect_fails(p, tol, what, "one element unwritten (0xFF)", good, (size_t)dbytes);
  d_set(p, m - 1, 0, NAN);
  expect_fails(p, tol, what, "one element NaN", good, (size_t)dbytes);
  d_set(p, 0, n / 3, INFINITY);
  expect_fails(p, tol, what, "one element infinite", good, (size_t)dbytes);
  (void)mag;
  free(good);
}

static void run_case(const fault_case *c, tp_backend backend, uint64_t seed) {
  char err[512];
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry, .payload = c->payload,
                              .m = c->m, .n = c->n, .k = c->k, .a = c->a, .b = c->b, .d = c->d,
                              .align_rows = 1, .alpha = 1.0f};
  tp_ref_problem *p;
  ck_assert_msg(tp_ref_problem_create(&p, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_msg(tp_ref_problem_expect(p, TP_REF_STORE, err, sizeof err) == TP_OK, "%s", err);
  tp_plan *plan;
  if (backend == TP_BACKEND_CUDA)
    ck_assert_msg(tp_ref_problem_upload(p, err, sizeof err) == TP_OK, "%s", err);
  const tp_gemm_desc *desc =
      backend == TP_BACKEND_CUDA ? tp_ref_problem_device_desc(p) : tp_ref_problem_desc(p);
  ck_assert_msg(tp_plan_create(&plan, build_registry, c->payload, "store", desc, backend) == TP_OK, "%s",
                tp_error_message());
  ck_assert_msg(tp_ref_problem_run(p, plan, err, sizeof err) == TP_OK, "%s", err);
  tp_plan_destroy(plan);

  char what[160];
  snprintf(what, sizeof what, "%s %s x %s -> %s %lldx%lldx%lld on %s", c->payload,
           tp_dtype_name(c->a), tp_dtype_name(c->b), tp_dtype_name(c->d), (long long)c->m,
           (long long)c->n, (long long)c->k, backend == TP_BACKEND_CUDA ? "cuda" : "cpu");
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, TP_BACKEND_CUDA);
  ck_assert_msg(judged_pass(p, &tol, err, sizeof err), "%s: the correct D fails: %s", what, err);
  inject_all(p, &tol, what);
  tp_ref_problem_destroy(p);
}

#ifdef FAULTS_ON_GPU
#define FAULTS_BACKEND TP_BACKEND_CUDA
#else
#define FAULTS_BACKEND TP_BACKEND_CPU
#endif

START_TEST(test_faults) { run_case(&cases[_i], FAULTS_BACKEND, 0xFA17u + (uint64_t)_i); }
END_TEST

int main(void) {
#ifdef FAULTS_ON_GPU
  if (!tp_test_gpu_usable()) return 77;
#endif
  Suite *s = suite_create("ref_faults");
  TCase *model = tcase_create("model");
  tcase_add_test(model, test_gpu_terms);
  tcase_add_test(model, test_measured_inside);
  suite_add_tcase(s, model);
  TCase *faults = tcase_create("faults");
  tcase_add_unchecked_fixture(faults, build_registry_open, build_registry_close);
  tcase_set_timeout(faults, 600);
  const int count = (int)(sizeof cases / sizeof cases[0]);
  tcase_add_loop_test(faults, test_faults, 0, count);
  suite_add_tcase(s, faults);
  SRunner *r = srunner_create(s);
#ifdef FAULTS_ON_GPU
  srunner_set_fork_status(r, CK_NOFORK); /* a forked child cannot use the parent's CUDA */
#endif
  srunner_run_all(r, CK_NORMAL);
  const int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed == 0 ? 0 : 1;
}
