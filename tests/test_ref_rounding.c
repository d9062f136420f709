/* tests/test_ref_rounding.c: the reference's account of the GPU's
 * rounding of the operands (tp_ref_rounding_at, tilepipe/reference.h; the
 * rounding a payload describes, tp_operand_rounding in
 * tilepipe/problem.h), and the judge that widens each element's bound by
 * it on the GPU only, without a GPU.
 *
 * A small problem worked by hand (f32 operands and scales, exact): A
 * rounded per row over the whole of K, B per two rows by two of K, three
 * elements' bounds and spreads written out in the comments (a tie among
 * them), every element against a brute-force loop over k written here
 * from the definition (each k's block found by its own scan of the
 * scales, the distance from the two grid points around the element); B
 * exact alone, a grid the elements lie on, neither operand rounded, a
 * struct_size that ends before the fields: what each leaves.
 * tp_ref_compare: a D off by 99% of the widened bound passes the GPU's
 * tolerance (r = 1) and fails with r = 0 (the CPU's, which takes the
 * operands exactly) or without the rounding, one off by 101% fails; the
 * normwise bound grows by r_rel ||spread|| / ||ref||.
 *
 * block_scaled's MXFP8 W8A8 (described by the build tree's registry, run
 * nowhere): every block of 128 of K mixes codes 40 apart, in both scale
 * layouts and each fp8 pairing, and the problem's bound and spread
 * (tp_ref_problem_expect) match the fold's own definition computed here
 * (docs/payloads.md: an element shifted below its dtype's smallest normal
 * goes to the nearest subnormal of its block's reference, A's rows alone,
 * B's 128 rows); a D off by 99.9% of each element's bound passes
 * tp_ref_problem_check under the CUDA tolerance and fails it without the
 * rounding share, one off by 100.1% fails; the CPU's tolerance has no
 * rounding share. The folded problem's exact D (the fold done on the
 * host, tests/mx_fold.c) passes against the problem as drawn, where
 * without the rounding it fails (codes 40 apart; on the drawn scales of
 * the shapes that failed on the H200 it does so in some cases, counts
 * printed), and at the fault test's shape the same D 1% too large still
 * fails. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/mx_fold.h"
#include "tests/problem_registry.h"
#include "tilepipe/reference.h"

/* --------------------------------------------------- worked by hand */

/* A(i, k) = 1 + i + 2k (1 3 5 7 / 2 4 6 8); B(j, k) = 2 where j + k is
 * even, else -1. */
static void fill(float *a, float *b) {
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 4; k++) a[i * 4 + k] = (float)(1 + i + 2 * k);
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 4; k++) b[j * 4 + k] = (j + k) % 2 ? -1.0f : 2.0f;
}

/* Scales one per two of K: a_scale [2, 2] = 1 0.5 / 2 0.25; b_scale
 * [3, 2] = 1 2 / 0.5 8 / 4 1. A rounded per row over all of K to
 * multiples of its largest scale (exp 0), B per two rows by two of K
 * likewise; alpha -2. */
static float a_data[8], b_data[12];
static float sa[4] = {1, 0.5f, 2, 0.25f}, sb[6] = {1, 2, 0.5f, 8, 4, 1};

static tp_gemm_desc hand_desc(void) {
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, 2, 3, 4);
  fill(a_data, b_data);
  d.a = tp_tensor_matrix(TP_DTYPE_F32, 2, 4, 4, a_data);
  d.b = tp_tensor_matrix(TP_DTYPE_F32, 3, 4, 4, b_data);
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 2, 2, 2, sa);
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 3, 2, 2, sb);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, 2, 3, 3, NULL);
  d.alpha = -2.0f;
  return d;
}

static tp_problem hand_problem(void) {
  return (tp_problem){.struct_size = sizeof(tp_problem),
                      .a_scale = {.rows = 1, .k = 2, .exp_count = 1},
                      .b_scale = {.rows = 1, .k = 2, .exp_count = 1},
                      .acc_bits = 14,
                      .acc_k = 128,
                      .a_rounding = {.rows = 1, .k = 4, .exp = 0},
                      .b_rounding = {.rows = 2, .k = 2, .exp = 0}};
}

/* By the definition: for each k, the grid step is 2^exp times the largest
 * scale over the elements of the operand's block holding (i, k), found by
 * scanning every element for the block's members; d the distance of the
 * scaled element to the nearest multiple of it, by looking at the two
 * multiples around it; t = da |B'| + db |A'| + da db. */
static double element_scale(const float *s, int64_t r, int64_t k) { return s[r * 2 + k / 2]; }

static double distance(const tp_operand_rounding *rd, const float *s, const float *x,
                       int64_t rows, int64_t row, int64_t k) {
  if (rd->rows == 0) return 0.0;
  double top = 0.0;
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < 4; c++)
      if (r / rd->rows == row / rd->rows && c / rd->k == k / rd->k)
        top = fmax(top, element_scale(s, r, c));
  const double step = ldexp(top, rd->exp), v = x[row * 4 + k] * element_scale(s, row, k);
  const double below = floor(v / step) * step;
  return fmin(v - below, below + step - v);
}

static void brute(const tp_problem *p, int64_t i, int64_t j, double *bound, double *spread) {
  double sum = 0.0, sum2 = 0.0;
  for (int64_t k = 0; k < 4; k++) {
    const double da = distance(&p->a_rounding, sa, a_data, 2, i, k);
    const double db = distance(&p->b_rounding, sb, b_data, 3, j, k);
    const double av = a_data[i * 4 + k] * element_scale(sa, i, k);
    const double bv = b_data[j * 4 + k] * element_scale(sb, j, k);
    const double t = da * fabs(bv) + db * fabs(av) + da * db;
    sum += t;
    sum2 += t * t;
  }
  *bound = 2.0 * sum;
  *spread = 2.0 * sqrt(sum2);
}

static void rounding(const tp_gemm_desc *d, const tp_problem *p, double *bound, double *spread) {
  char err[256] = "";
  ck_assert_msg(tp_ref_rounding_at(d, p, NULL, d->m, NULL, d->n, bound, spread, err,
                                   sizeof err) == TP_OK,
                "%s", err);
}

/* Every element's bound and spread against the brute force. */
static void expect_brute(const tp_problem *p, const double *bound, const double *spread) {
  for (int64_t i = 0; i < 2; i++)
    for (int64_t j = 0; j < 3; j++) {
      double b, s;
      brute(p, i, j, &b, &s);
      ck_assert_double_eq(bound[i * 3 + j], b);
      ck_assert_double_eq_tol(spread[i * 3 + j], s, 1e-12 * s);
    }
}

START_TEST(test_by_hand) {
  const tp_gemm_desc d = hand_desc();
  tp_problem p = hand_problem();
  double bound[6], spread[6];
  rounding(&d, &p, bound, spread);
  /* A' = 1 3 2.5 3.5 / 4 8 1.5 2, its rows' largest scales 1 and 2: da =
   * 0 0 .5 .5 / 0 0 .5 0. B' = 2 -1 4 -2 / -.5 1 -8 16 / 8 -4 2 -1; the
   * largest scales: rows 0-1 1 at k 0-1, 8 at k 2-3; row 2 4, then 1: db =
   * 0 0 4 2 / .5 0 0 0 / 0 0 0 0 (4 is a tie between 0 and 8).
   *   D(0, 0): t = 0, 0, .5*4 + 4*2.5 + .5*4 = 14, .5*2 + 2*3.5 + .5*2 = 9:
   *            bound 2 (14 + 9) = 46, spread 2 sqrt(196 + 81)
   *   D(1, 1): t = .5*4 = 2, 0, .5*8 = 4, 0: bound 12, spread 2 sqrt(20)
   *   D(1, 2): t = 0, 0, .5*2 = 1, 0: bound 2, spread 2 */
  ck_assert_double_eq(bound[0], 46.0);
  ck_assert_double_eq_tol(spread[0], 2.0 * sqrt(277.0), 1e-12);
  ck_assert_double_eq(bound[4], 12.0);
  ck_assert_double_eq_tol(spread[4], 2.0 * sqrt(20.0), 1e-12);
  ck_assert_double_eq(bound[5], 2.0);
  ck_assert_double_eq(spread[5], 2.0);
  expect_brute(&p, bound, spread);
  /* B exact: A's terms alone; D(0, 0) = 2 (.5*4 + .5*2). */
  p.b_rounding = (tp_operand_rounding){0, 0, 0};
  rounding(&d, &p, bound, spread);
  ck_assert_double_eq(bound[0], 6.0);
  expect_brute(&p, bound, spread);
  /* A finer grid (a quarter of the largest scale): A' lies on it,
   * nothing moves. */
  p.a_rounding.exp = -2;
  rounding(&d, &p, bound, NULL);
  for (int i = 0; i < 6; i++) ck_assert_double_eq(bound[i], 0.0);
  /* Neither rounded, or a caller's struct that ends before the fields. */
  p.a_rounding = (tp_operand_rounding){0, 0, 0};
  bound[3] = spread[3] = 1.0;
  rounding(&d, &p, bound, spread);
  for (int i = 0; i < 6; i++) ck_assert(bound[i] == 0.0 && spread[i] == 0.0);
  tp_problem old = hand_problem();
  old.struct_size = (uint32_t)offsetof(tp_problem, a_rounding);
  bound[3] = 1.0;
  rounding(&d, &old, bound, NULL);
  for (int i = 0; i < 6; i++) ck_assert_double_eq(bound[i], 0.0);
}
END_TEST

/* The whole per-element bound of tp_ref_compare under tol, the rounding
 * term bnd included. */
static double full_bound(const tp_ref_tolerance *tol, double ref, double mag, double bnd) {
  const double rho = mag > 0.0 ? fmin(fabs(ref) / mag, 1.0) : 0.0;
  return tol->u_out * fabs(ref) +
         (1.0 + tol->u_out) * (tol->g * mag + tol->h * rho * rho * fabs(ref) + tol->rounding * bnd) +
         tol->eta_out;
}

/* D = ref + 99% (101%) of each element's whole bound on the GPU, judged
 * under the GPU's tolerance and under the CPU's; the normwise bound grows
 * by r_rel ||spread|| / ||ref||. */
START_TEST(test_compare_widens_on_the_gpu) {
  const tp_gemm_desc d = hand_desc();
  const tp_problem p = hand_problem();
  double ref[6], mag[6], bnd[6], spr[6];
  char err[256] = "";
  ck_assert_msg(tp_ref_gemm(&d, &p, TP_REF_STORE, ref, mag, err, sizeof err) == TP_OK, "%s", err);
  rounding(&d, &p, bnd, spr);
  const tp_ref_rounding rnd = {bnd, spr};
  const tp_ref_tolerance gpu = tp_ref_tolerance_for_gpu(TP_DTYPE_F32, 4, &p);
  ck_assert_double_eq(gpu.rounding, 1.0);
  ck_assert_double_eq(gpu.rounding_rel, 4.0);
  const tp_ref_tolerance cpu = tp_ref_tolerance_for(TP_DTYPE_F32, 4, 24);
  ck_assert(cpu.rounding == 0.0 && cpu.rounding_rel == 0.0);
  const double shares[2] = {0.99, 1.01};
  for (int t = 0; t < 2; t++) {
    float out[6];
    for (int i = 0; i < 6; i++)
      out[i] = (float)(ref[i] + shares[t] * full_bound(&gpu, ref[i], mag[i], bnd[i]));
    tp_tensor dt = d.d;
    dt.data = out;
    tp_ref_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(tp_ref_compare(&dt, 2, 3, ref, mag, &rnd, &gpu, &rep), TP_OK);
    ck_assert_int_eq(rep.pass, t == 0);
    ck_assert_int_eq(rep.bad, t == 0 ? 0 : 6);
    /* Without the rounding: the D that passes is far outside. */
    ck_assert_int_eq(tp_ref_compare(&dt, 2, 3, ref, mag, &rnd, &cpu, &rep), TP_OK);
    ck_assert_int_eq(rep.bad, 6);
    ck_assert_int_eq(tp_ref_compare(&dt, 2, 3, ref, mag, NULL, &gpu, &rep), TP_OK);
    ck_assert_int_eq(rep.bad, 6);
  }
  /* The normwise bound, over 64 elements (the hand problem's six, eleven
   * times over, and D(0, 0) once more): D = ref exactly, so only the bound
   * is looked at. */
  enum { N = 67 };
  double ref64[N], mag64[N], bnd64[N], spr64[N];
  float out64[N];
  double ref2 = 0.0, spr2 = 0.0;
  for (int i = 0; i < N; i++) {
    ref64[i] = ref[i % 6];
    mag64[i] = mag[i % 6];
    bnd64[i] = bnd[i % 6];
    spr64[i] = spr[i % 6];
    out64[i] = (float)ref64[i];
    ref2 += ref64[i] * ref64[i];
    spr2 += spr64[i] * spr64[i];
  }
  const tp_ref_rounding rnd64 = {bnd64, spr64};
  tp_tensor dt = tp_tensor_matrix(TP_DTYPE_F32, 1, N, N, out64);
  tp_ref_report with = {.struct_size = sizeof with}, without = {.struct_size = sizeof without};
  ck_assert_int_eq(tp_ref_compare(&dt, 1, N, ref64, mag64, &rnd64, &gpu, &with), TP_OK);
  ck_assert_int_eq(tp_ref_compare(&dt, 1, N, ref64, mag64, NULL, &gpu, &without), TP_OK);
  ck_assert_double_eq_tol(with.rel_bound - without.rel_bound, 4.0 * sqrt(spr2 / ref2),
                          1e-12 * with.rel_bound);
}
END_TEST

/* --------------------------------------------- block_scaled's W8A8 */

/* How far the fold moves element (r, k) of x (scale codes sc; a run of
 * `run` rows shares a reference per fold block of four groups), scaled:
 * the element shifted by its code's distance below the reference, v = x
 * 2^(code - ref), stays as it is from the dtype's smallest normal up
 * (2^-6 e4m3, 2^-14 e5m2); below it, it goes to the nearest multiple of
 * the smallest subnormal (2^-9, 2^-16), a distance times the reference's
 * scale. */
static double fold_distance(const tp_tensor *x, const tp_tensor *sc, int64_t rows, int64_t k,
                            int64_t run, int64_t r, int64_t c) {
  const int64_t g0 = c / 128 * 4, g1 = g0 + 4 < k / 32 ? g0 + 4 : k / 32;
  int ref = 0;
  for (int64_t i = r / run * run; i < rows && i < r / run * run + run; i++)
    for (int64_t g = g0; g < g1; g++)
      if (*tp_test_code_at(sc, i, g) > ref) ref = *tp_test_code_at(sc, i, g);
  const double v = ldexp(tp_dtype_load(x->dtype, x->data, tp_ref_index(x, r, c)),
                         *tp_test_code_at(sc, r, c / 32) - ref);
  const int e5m2 = x->dtype == TP_DTYPE_E5M2;
  if (fabs(v) >= ldexp(1.0, e5m2 ? -14 : -6)) return 0.0;
  const double sub = ldexp(1.0, e5m2 ? -16 : -9);
  return fabs(v - sub * nearbyint(v / sub)) * ldexp(1.0, ref - 127);
}

/* The fold's bound and spread of D(m, n) as docs/payloads.md defines
 * them: |alpha| sum_k t, |alpha| sqrt(sum_k t^2), t = dA |B| + dB |A| + dA
 * dB with A and B scaled. */
static void doc_bound(const tp_gemm_desc *d, int64_t m, int64_t n, double *bound,
                      double *spread) {
  double sum = 0.0, sum2 = 0.0;
  for (int64_t c = 0; c < d->k; c++) {
    const double da = fold_distance(&d->a, &d->a_scale, d->m, d->k, 1, m, c);
    const double db = fold_distance(&d->b, &d->b_scale, d->n, d->k, 128, n, c);
    const double av = tp_dtype_load(d->a.dtype, d->a.data, tp_ref_index(&d->a, m, c)) *
                      ldexp(1.0, *tp_test_code_at(&d->a_scale, m, c / 32) - 127);
    const double bv = tp_dtype_load(d->b.dtype, d->b.data, tp_ref_index(&d->b, n, c)) *
                      ldexp(1.0, *tp_test_code_at(&d->b_scale, n, c / 32) - 127);
    const double t = da * fabs(bv) + db * fabs(av) + da * db;
    sum += t;
    sum2 += t * t;
  }
  *bound = fabs((double)d->alpha) * sum;
  *spread = fabs((double)d->alpha) * sqrt(sum2);
}

START_TEST(test_block_scaled_fold) {
  static const tp_dtype pairs[4][2] = {{TP_DTYPE_E4M3, TP_DTYPE_E4M3},
                                       {TP_DTYPE_E4M3, TP_DTYPE_E5M2},
                                       {TP_DTYPE_E5M2, TP_DTYPE_E4M3},
                                       {TP_DTYPE_E5M2, TP_DTYPE_E5M2}};
  for (int i = 0; i < 8; i++) {
    char err[256] = "";
    const tp_ref_problem_spec spec = {
        .struct_size = sizeof spec, .registry = tp_test_problem_registry(),
        .payload = "block_scaled", .a = pairs[i % 4][0], .b = pairs[i % 4][1],
        .d = TP_DTYPE_F32, .sf_layout = i < 4 ? TP_LAYOUT_SF_128X4 : TP_LAYOUT_STRIDED,
        .m = 9, .n = 140, .k = 352, .pad = 8, .align_rows = 1, .alpha = -0.5f};
    ck_assert(spec.registry != NULL);
    tp_ref_problem *p;
    ck_assert_msg(tp_ref_problem_create(&p, &spec, 700u + (uint64_t)i, err, sizeof err) == TP_OK,
                  "%s", err);
    const tp_gemm_desc *d = tp_ref_problem_desc(p);
    /* Groups 40 codes apart in turn, rows a code or two apart: whole
     * groups flush, B's two blocks of rows take different references,
     * the last fold block has three groups. */
    for (int64_t r = 0; r < d->m; r++)
      for (int64_t g = 0; g < d->k / 32; g++)
        *tp_test_code_at(&d->a_scale, r, g) = (uint8_t)(127 - (g % 2 ? 40 : 0) + (int)(r % 3) - 1);
    for (int64_t r = 0; r < d->n; r++)
      for (int64_t g = 0; g < d->k / 32; g++)
        *tp_test_code_at(&d->b_scale, r, g) =
            (uint8_t)(127 - ((g + 1) % 2 ? 40 : 0) + (int)(r % 5) - 2 + (r >= 128 ? 3 : 0));
    ck_assert_msg(tp_ref_problem_expect(p, TP_REF_STORE, err, sizeof err) == TP_OK, "%s", err);
    double *spr, *rnd = tp_ref_problem_rounding(p, &spr);
    ck_assert_ptr_nonnull(rnd);
    double *mag, *ref = tp_ref_problem_expected(p, &mag);
    int64_t moved = 0;
    for (int64_t m = 0; m < d->m; m++)
      for (int64_t n = 0; n < d->n; n++) {
        double want, want_spread;
        doc_bound(d, m, n, &want, &want_spread);
        const int64_t e = m * d->n + n;
        ck_assert_msg(fabs(rnd[e] - want) <= 1e-12 * want &&
                          fabs(spr[e] - want_spread) <= 1e-12 * want_spread,
                      "D[%lld][%lld]: rounding bound %.17g and spread %.17g, the fold's %.17g "
                      "and %.17g", (long long)m, (long long)n, rnd[e], spr[e], want, want_spread);
        moved += want > 0.0;
      }
    ck_assert_int_eq(moved, d->m * d->n); /* flushed groups reach every element */
    tp_ref_tolerance gpu = tp_ref_problem_tolerance(p, TP_BACKEND_CUDA);
    gpu.rel = INFINITY; /* the offsets are all of one sign: per element */
    tp_ref_tolerance bare = gpu;
    bare.rounding = 0.0;
    ck_assert_double_eq(tp_ref_problem_tolerance(p, TP_BACKEND_CPU).rounding, 0.0);
    float *out = tp_ref_problem_buffer(p, TP_REF_D, NULL);
    const double shares[2] = {0.999, 1.001};
    for (int t = 0; t < 2; t++) {
      for (int64_t m = 0; m < d->m; m++)
        for (int64_t n = 0; n < d->n; n++) {
          const int64_t e = m * d->n + n;
          out[tp_ref_index(&d->d, m, n)] =
              (float)(ref[e] + shares[t] * full_bound(&gpu, ref[e], mag[e], rnd[e]));
        }
      tp_ref_report rep = {.struct_size = sizeof rep};
      ck_assert_int_eq(tp_ref_problem_check(p, &gpu, &rep), TP_OK);
      ck_assert_int_eq(rep.bad, t == 0 ? 0 : d->m * d->n);
      ck_assert_int_eq(tp_ref_problem_check(p, &bare, &rep), TP_OK);
      ck_assert_int_eq(rep.bad, d->m * d->n);
    }
    tp_ref_problem_destroy(p);
  }
}
END_TEST

/* The folded problem's exact D (tests/mx_fold.c, f64 through the
 * reference, stored in D's dtype) is what a correct GPU run approaches:
 * against the problem as drawn it passes the CUDA tolerance, per element
 * and normwise, on the shapes `tilepipe run` and the Python tests failed
 * on (7 x 129 x 128, 7 x 136 x 192, the payload's own scale values) and on
 * codes 40 apart; without the rounding it fails there (by how many
 * elements is printed for the drawn scales). At the fault test's shape
 * (tests/test_ref_faults.c: 33 x 640 x 7168, bf16 D) the widened bound
 * still fails that D with every element 1% too large. */
static void folded_case(tp_dtype a, tp_dtype b, tp_dtype dt, tp_layout sf, int64_t m, int64_t n,
                        int64_t k, int wide, uint64_t seed) {
  char err[256] = "";
  const tp_ref_problem_spec spec = {
      .struct_size = sizeof spec, .registry = tp_test_problem_registry(), .payload = "block_scaled",
      .a = a, .b = b, .d = dt, .sf_layout = sf, .m = m, .n = n, .k = k, .pad = 4,
      .align_rows = 1, .alpha = 1.0f};
  tp_ref_problem *p;
  ck_assert_msg(tp_ref_problem_create(&p, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  tp_gemm_desc *d = tp_ref_problem_desc(p);
  for (int64_t r = 0; r < m && wide; r++)
    for (int64_t g = 0; g < k / 32; g++)
      *tp_test_code_at(&d->a_scale, r, g) = (uint8_t)(127 - (g % 2 ? 40 : 0) + (int)(r % 3) - 1);
  for (int64_t r = 0; r < n && wide; r++)
    for (int64_t g = 0; g < k / 32; g++)
      *tp_test_code_at(&d->b_scale, r, g) =
          (uint8_t)(127 - ((g + 1) % 2 ? 40 : 0) + (int)(r % 5) - 2);
  ck_assert_msg(tp_ref_problem_expect(p, TP_REF_STORE, err, sizeof err) == TP_OK, "%s", err);
  tp_test_mx_fold(&d->a, &d->a_scale, m, k, 1);
  tp_test_mx_fold(&d->b, &d->b_scale, n, k, 128);
  double *folded = malloc(sizeof *folded * (size_t)(m * n));
  ck_assert_ptr_nonnull(folded);
  ck_assert_msg(tp_ref_gemm(d, tp_ref_problem_description(p), TP_REF_STORE, folded, NULL, err,
                            sizeof err) == TP_OK,
                "%s", err);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++)
      tp_dtype_store(dt, d->d.data, tp_ref_index(&d->d, i, j), (float)folded[i * n + j]);
  tp_ref_report rep = {.struct_size = sizeof rep};
  const tp_ref_tolerance gpu = tp_ref_problem_tolerance(p, TP_BACKEND_CUDA);
  ck_assert_int_eq(tp_ref_problem_check(p, &gpu, &rep), TP_OK);
  tp_ref_report_format(&rep, err, sizeof err);
  ck_assert_msg(rep.pass, "%s x %s %lldx%lldx%lld: %s", tp_dtype_name(a), tp_dtype_name(b),
                (long long)m, (long long)n, (long long)k, err);
  tp_ref_tolerance bare = gpu;
  bare.rounding = bare.rounding_rel = 0.0;
  ck_assert_int_eq(tp_ref_problem_check(p, &bare, &rep), TP_OK);
  printf("%s x %s %lldx%lldx%lld %s: without the rounding %lld of %lld elements fail\n",
         tp_dtype_name(a), tp_dtype_name(b), (long long)m, (long long)n, (long long)k,
         wide ? "codes 40 apart" : "drawn scales", (long long)rep.bad, (long long)(m * n));
  if (wide) ck_assert(!rep.pass);
  if (k == 7168) {
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < n; j++)
        tp_dtype_store(dt, d->d.data, tp_ref_index(&d->d, i, j),
                       (float)(1.01 * folded[i * n + j]));
    ck_assert_int_eq(tp_ref_problem_check(p, &gpu, &rep), TP_OK);
    tp_ref_report_format(&rep, err, sizeof err);
    ck_assert_msg(!rep.pass, "every element 1%% too large passed: %s", err);
  }
  free(folded);
  tp_ref_problem_destroy(p);
}

START_TEST(test_folded_result_passes) {
  static const tp_dtype fp8[2] = {TP_DTYPE_E4M3, TP_DTYPE_E5M2};
  for (int i = 0; i < 8; i++) {
    const tp_dtype a = fp8[i % 2], b = fp8[i / 2 % 2];
    const tp_layout sf = i < 4 ? TP_LAYOUT_SF_128X4 : TP_LAYOUT_STRIDED;
    folded_case(a, b, TP_DTYPE_F32, sf, 7, 129, 128, 0, 100u + (uint64_t)i);
    folded_case(a, b, TP_DTYPE_F32, sf, 7, 136, 192, 0, 200u + (uint64_t)i);
    folded_case(a, b, TP_DTYPE_F32, sf, 33, 200, 1120, 1, 300u + (uint64_t)i);
  }
  folded_case(TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_LAYOUT_SF_128X4, 33, 640, 7168, 0,
              400u);
  folded_case(TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_LAYOUT_STRIDED, 33, 640, 7168, 0,
              401u);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ref_rounding");
  TCase *tc = tcase_create("rounding");
  tcase_set_timeout(tc, 300); /* a check took over 120 s under TSan on a busy 2-core machine */
  tcase_add_test(tc, test_by_hand);
  tcase_add_test(tc, test_compare_widens_on_the_gpu);
  tcase_add_test(tc, test_block_scaled_fold);
  tcase_add_test(tc, test_folded_result_passes);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
