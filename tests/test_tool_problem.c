/* tests/test_tool_problem.c: the tool's problems with 16-byte rows
 * (tools/align_rows.h), against the reference library's problem from the
 * same seed; and the problem of per-row scale vectors of s8 operands
 * (examples/int8_w8a8's, described here by the row-scale fixture,
 * tests/problem_registry.h).
 *
 * For every payload, dtype family, scale layout and C arrangement: each
 * strided tensor's row stride is a multiple of 16 bytes and at least its
 * row, the recorded buffer size is the tensor's span (for a strided scale
 * tensor its whole rows, the last row's padding too), every element holds
 * the same value as in the reference problem, every padding byte is still
 * 0xFF (NaN, so a kernel reading padding shows), D is 0xFF throughout,
 * tiled scale tensors are byte-for-byte the reference's, vectors (the s8
 * operands' scales) stay contiguous, and C aliasing D still aliases D;
 * every scale is one of its map's values (2^[exp_min, exp_min + count)).
 *
 * A payload the registry lacks is refused, naming it, and leaves an empty
 * problem. The per-row scales: its s8 operands cover the whole code range
 * and its scales are positive vectors in 2^[-12, -4]; tp_ref_gemm computes
 * a_scale[m] * b_scale[n] * (the integer dot product), takes the [M, 1]
 * and [1, N] forms of the scales alike (with the maps that read them so)
 * and refuses shapes their maps do not cover; and the problem is judged
 * with f32's unit roundoff on the GPU too, where an fp8 one takes
 * wgmma's 14 bits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/problem_registry.h"
#include "tools/align_rows.h"
#include "tools/reference/compare.h"
#include "tools/reference/naive_gemm.h"

static const tp_ref_problem_spec specs[] = {
    {.payload = "standard", .a = TP_DTYPE_BF16, .b = TP_DTYPE_BF16, .d = TP_DTYPE_BF16,
     .c = TP_DTYPE_F32, .m = 7, .n = 129, .k = 300, .alpha = 1.0f, .beta = 1.0f},
    {.payload = "standard", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E5M2, .d = TP_DTYPE_F32,
     .c_is_d = 1, .m = 127, .n = 7, .k = 65, .pad = 1, .alpha = 1.0f, .beta = 1.0f},
    {.payload = "standard", .a = TP_DTYPE_F16, .b = TP_DTYPE_F16, .d = TP_DTYPE_F16,
     .m = 1, .n = 1, .k = 1, .alpha = 1.0f},
    {.payload = "blockwise_fp8", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16,
     .c = TP_DTYPE_BF16, .m = 129, .n = 300, .k = 129, .pad = 2, .alpha = 1.0f, .beta = 1.0f},
    {.payload = "block_scaled", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E5M2, .d = TP_DTYPE_BF16,
     .sf_layout = TP_LAYOUT_STRIDED, .m = 7, .n = 65, .k = 96, .alpha = 1.0f},
    {.payload = "block_scaled", .a = TP_DTYPE_E2M1, .b = TP_DTYPE_E2M1, .d = TP_DTYPE_F16,
     .c = TP_DTYPE_F16, .sf_layout = TP_LAYOUT_SF_128X4, .m = 130, .n = 3, .k = 80, .pad = 1,
     .alpha = 1.0f, .beta = 1.0f},
    {.payload = "block_scaled", .a = TP_DTYPE_E2M1, .b = TP_DTYPE_E2M1, .d = TP_DTYPE_F32,
     .sf_layout = TP_LAYOUT_STRIDED, .m = 3, .n = 300, .k = 48, .alpha = 1.0f},
    {.payload = TP_TEST_ROW_SCALES, .a = TP_DTYPE_S8, .b = TP_DTYPE_S8, .d = TP_DTYPE_BF16,
     .c = TP_DTYPE_F16, .m = 7, .n = 129, .k = 300, .pad = 1, .alpha = 1.0f, .beta = 1.0f},
    {.payload = TP_TEST_ROW_SCALES, .a = TP_DTYPE_S8, .b = TP_DTYPE_S8, .d = TP_DTYPE_F32,
     .c_is_d = 1, .m = 129, .n = 1, .k = 17, .alpha = 1.0f, .beta = 1.0f},
};
#define NUM_SPECS (int)(sizeof specs / sizeof specs[0])

static const char *names[TP_REF_TENSORS] = {"A", "B", "a_scale", "b_scale", "C", "D"};

static const tp_tensor *tensor_of(const tp_gemm_desc *d, int i) {
  const tp_tensor *t[TP_REF_TENSORS] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d};
  return t[i];
}

static int same_value(float x, float y) { return x == y || (isnan(x) && isnan(y)); }

/* Tensor i of the aligned problem `al` against the reference problem `rp`. */
static void check_tensor(const tp_ref_problem *al, const tp_ref_problem *rp, int i, int spec) {
  const tp_tensor *t = tensor_of(&al->desc, i), *r = tensor_of(&rp->desc, i);
  ck_assert_int_eq(t->dtype, r->dtype);
  ck_assert_int_eq(al->buffer[i] == NULL, rp->buffer[i] == NULL);
  if (al->buffer[i] == NULL) return; /* absent, or C living in D (checked as D) */
  ck_assert_int_eq(t->layout, r->layout);
  if (t->layout == TP_LAYOUT_SF_128X4 || t->rank == 1) {
    ck_assert_int_eq(t->rank, r->rank);
    ck_assert_int_eq(t->stride[0], r->stride[0]); /* a vector keeps its unit stride */
    ck_assert_int_eq(al->bytes[i], rp->bytes[i]);
    ck_assert_msg(memcmp(al->buffer[i], rp->buffer[i], (size_t)al->bytes[i]) == 0,
                  "spec %d: %s %s changed", spec, t->rank == 1 ? "vector" : "tiled", names[i]);
    return;
  }
  const size_t pitch = tp_dtype_bytes(t->dtype, t->stride[0]);
  const size_t row_bytes = tp_dtype_bytes(t->dtype, t->shape[1]);
  ck_assert_msg(pitch % 16 == 0, "spec %d: %s row stride is %zu bytes", spec, names[i], pitch);
  ck_assert_int_ge(t->stride[0], r->stride[0]);
  ck_assert_int_eq(t->shape[0], r->shape[0]);
  ck_assert_int_eq(t->shape[1], r->shape[1]);
  const int scale = i == TP_REF_A_SCALE || i == TP_REF_B_SCALE;
  ck_assert_int_eq(al->bytes[i],
                   scale ? (int64_t)pitch * t->shape[0] : tp_tensor_span_bytes(t));
  ck_assert_int_eq(tp_tool_buffer_bytes(t, i), al->bytes[i]);
  const unsigned char *bytes = t->data;
  for (int64_t row = 0; row < t->shape[0]; row++) {
    for (int64_t c = 0; c < t->shape[1]; c++) {
      const float x = tp_dtype_load(t->dtype, t->data, row * t->stride[0] + c);
      const float y = tp_dtype_load(r->dtype, r->data, row * r->stride[0] + c);
      ck_assert_msg(same_value(x, y), "spec %d: %s(%lld, %lld) = %g, reference problem %g", spec,
                    names[i], (long long)row, (long long)c, (double)x, (double)y);
    }
    const size_t end = row + 1 < t->shape[0] ? pitch : (size_t)al->bytes[i] - row * pitch;
    for (size_t b = row_bytes; b < end; b++)
      ck_assert_msg(bytes[row * pitch + b] == 0xFF, "spec %d: %s padding byte %zu of row %lld",
                    spec, names[i], b, (long long)row);
  }
}

/* specs[i] with the registry that describes it. */
static tp_ref_problem_spec spec_of(int i) {
  tp_ref_problem_spec spec = specs[i];
  spec.registry = tp_test_problem_registry();
  ck_assert(spec.registry != NULL);
  return spec;
}

/* Every scale of rp is a value of its map: in [2^exp_min, 2^(exp_min +
 * exp_count)). */
static void check_scale_values(const tp_ref_problem *rp, int spec) {
  const tp_tensor *t[2] = {&rp->desc.a_scale, &rp->desc.b_scale};
  const tp_scale_map *m[2] = {&rp->problem.a_scale, &rp->problem.b_scale};
  for (int s = 0; s < 2; s++) {
    if (t[s]->dtype == TP_DTYPE_NONE) continue;
    const double lo = ldexp(1.0, m[s]->exp_min), hi = ldexp(1.0, m[s]->exp_min + m[s]->exp_count);
    const int64_t rows = t[s]->rank == 1 ? 1 : t[s]->shape[0];
    const int64_t cols = t[s]->rank == 1 ? t[s]->shape[0] : t[s]->shape[1];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++) {
        const int64_t at = t[s]->rank == 1 ? c * t[s]->stride[0] : tp_ref_index(t[s], r, c);
        const double v = tp_dtype_load(t[s]->dtype, t[s]->data, at);
        ck_assert_msg(v >= lo && v < hi, "spec %d: %s(%lld, %lld) = %g outside [%g, %g)", spec,
                      names[TP_REF_A_SCALE + s], (long long)r, (long long)c, v, lo, hi);
      }
  }
}

START_TEST(test_aligned_matches_reference) {
  const tp_ref_problem_spec described = spec_of(_i), *spec = &described;
  char err[1024];
  tp_ref_problem al, rp;
  ck_assert_msg(tp_tool_problem_create(&al, spec, 42 + (uint64_t)_i, err, sizeof err) == TP_OK,
                "%s", err);
  ck_assert_msg(tp_ref_problem_create(&rp, spec, 42 + (uint64_t)_i, err, sizeof err) == TP_OK,
                "%s", err);
  for (int i = 0; i < TP_REF_TENSORS; i++) check_tensor(&al, &rp, i, _i);
  check_scale_values(&rp, _i);
  for (int64_t b = 0; b < al.bytes[TP_REF_D] && !spec->c_is_d; b++)
    ck_assert(((const unsigned char *)al.buffer[TP_REF_D])[b] == 0xFF);
  ck_assert(tp_ref_problem_padding_written(&al) < 0);
  if (spec->c_is_d) {
    ck_assert_ptr_eq(al.desc.c.data, al.desc.d.data);
    ck_assert_int_eq(al.desc.c.stride[0], al.desc.d.stride[0]);
  }
  ck_assert(al.desc.alpha == spec->alpha && al.desc.beta == spec->beta);
  tp_ref_problem_destroy(&al);
  tp_ref_problem_destroy(&rp);
}
END_TEST

START_TEST(test_refusal_leaves_empty_problem) {
  tp_ref_problem_spec spec = spec_of(0);
  spec.payload = "no_such_payload";
  char err[1024] = "";
  tp_ref_problem p;
  ck_assert_int_eq(tp_tool_problem_create(&p, &spec, 1, err, sizeof err), TP_ERR_NOT_FOUND);
  ck_assert_msg(strstr(err, "no payload plugin 'no_such_payload'") != NULL, "%s", err);
  for (int i = 0; i < TP_REF_TENSORS; i++) ck_assert_ptr_null(p.buffer[i]);
  spec = spec_of(0);
  spec.m = 0;
  ck_assert_int_eq(tp_tool_problem_create(&p, &spec, 1, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "sizes must be >= 1") != NULL, "%s", err);
  for (int i = 0; i < TP_REF_TENSORS; i++) ck_assert_ptr_null(p.buffer[i]);
}
END_TEST

/* ------------------------------------------------------------ per-row scales */

static tp_ref_problem int8_problem(uint64_t seed) {
  const tp_ref_problem_spec spec = {
      .registry = tp_test_problem_registry(), .payload = TP_TEST_ROW_SCALES, .a = TP_DTYPE_S8,
      .b = TP_DTYPE_S8, .d = TP_DTYPE_F32, .c = TP_DTYPE_F32, .m = 33, .n = 40, .k = 257,
      .pad = 3, .alpha = -0.5f, .beta = 2.0f};
  ck_assert(spec.registry != NULL);
  char err[1024];
  tp_ref_problem p;
  ck_assert_msg(tp_ref_problem_create(&p, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  return p;
}

/* The scales: f32 vectors of M and N, positive, in 2^[-12, -4]. The
 * operands: integers, and over this many draws both ends of the range. */
START_TEST(test_int8_problem) {
  tp_ref_problem p = int8_problem(7);
  const tp_gemm_desc *d = &p.desc;
  const tp_tensor *scales[2] = {&d->a_scale, &d->b_scale};
  const int64_t lengths[2] = {d->m, d->n};
  for (int s = 0; s < 2; s++) {
    ck_assert_int_eq(scales[s]->dtype, TP_DTYPE_F32);
    ck_assert_int_eq(scales[s]->rank, 1);
    ck_assert_int_eq(scales[s]->shape[0], lengths[s]);
    ck_assert_int_eq(scales[s]->stride[0], 1);
    for (int64_t i = 0; i < lengths[s]; i++) {
      const float v = tp_dtype_load(TP_DTYPE_F32, scales[s]->data, i);
      ck_assert_msg(v >= 0x1p-12f && v <= 0x1p-4f, "scale %d[%lld] = %g", s, (long long)i,
                    (double)v);
    }
  }
  float lo = 0.0f, hi = 0.0f;
  for (int64_t r = 0; r < d->m; r++)
    for (int64_t c = 0; c < d->k; c++) {
      const float v = tp_dtype_load(TP_DTYPE_S8, d->a.data, r * d->a.stride[0] + c);
      ck_assert(v == floorf(v) && v >= -128.0f && v <= 127.0f);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  ck_assert(lo == -128.0f && hi == 127.0f); /* 33 x 257 uniform draws */
  tp_ref_problem_destroy(&p);
}
END_TEST

/* ref = alpha * sa[m] * sb[n] * dot + beta * C, the dot product in
 * integers: what int8_w8a8 means, computed here without the reference. */
static void expect_int8_reference(const tp_gemm_desc *d, const double *ref, const double *mag) {
  for (int64_t i = 0; i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      int64_t dot = 0, abs_dot = 0;
      for (int64_t k = 0; k < d->k; k++) {
        const int64_t x = (int64_t)tp_dtype_load(TP_DTYPE_S8, d->a.data, i * d->a.stride[0] + k);
        const int64_t y = (int64_t)tp_dtype_load(TP_DTYPE_S8, d->b.data, j * d->b.stride[0] + k);
        dot += x * y;
        abs_dot += x * y < 0 ? -x * y : x * y;
      }
      const double s = (double)tp_dtype_load(TP_DTYPE_F32, d->a_scale.data, i) *
                       (double)tp_dtype_load(TP_DTYPE_F32, d->b_scale.data, j);
      const double c =
          (double)d->beta * tp_dtype_load(d->c.dtype, d->c.data, i * d->c.stride[0] + j);
      const double want = (double)d->alpha * s * (double)dot + c;
      const double want_mag = fabs((double)d->alpha) * s * (double)abs_dot + fabs(c);
      const size_t e = (size_t)(i * d->n + j);
      ck_assert_msg(fabs(ref[e] - want) <= 1e-13 * want_mag, "ref(%lld, %lld) = %.17g, want %.17g",
                    (long long)i, (long long)j, ref[e], want);
      ck_assert_msg(fabs(mag[e] - want_mag) <= 1e-13 * want_mag, "mag(%lld, %lld)", (long long)i,
                    (long long)j);
    }
}

START_TEST(test_int8_reference) {
  char err[256];
  tp_ref_problem p = int8_problem(11);
  tp_gemm_desc d = p.desc;
  tp_problem maps = p.problem;
  const size_t count = (size_t)(d.m * d.n);
  double *ref = malloc(count * sizeof *ref), *mag = malloc(count * sizeof *mag);
  ck_assert(ref != NULL && mag != NULL);
  ck_assert_msg(tp_ref_gemm(&d, &maps, TP_REF_RESIDUAL, ref, mag, err, sizeof err) == TP_OK, "%s",
                err);
  expect_int8_reference(&d, ref, mag);
  /* [M, 1] and [1, N] (read K first), the same data: the same result. */
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, d.m, 1, 1, p.desc.a_scale.data);
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, d.n, d.n, p.desc.b_scale.data);
  maps.b_scale.k_first = 1;
  ck_assert_msg(tp_ref_gemm(&d, &maps, TP_REF_RESIDUAL, ref, mag, err, sizeof err) == TP_OK, "%s",
                err);
  expect_int8_reference(&d, ref, mag);
  /* Scales their maps do not cover are refused, naming the tensor. */
  d = p.desc;
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, d.m, d.m, p.desc.a_scale.data);
  ck_assert_int_eq(tp_ref_gemm(&d, &p.problem, TP_REF_STORE, ref, mag, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "a_scale") != NULL, "%s", err);
  d = p.desc;
  d.b_scale.shape[0] = d.n - 1;
  ck_assert_int_eq(tp_ref_gemm(&d, &p.problem, TP_REF_STORE, ref, mag, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "b_scale") != NULL, "%s", err);
  free(ref);
  free(mag);
  tp_ref_problem_destroy(&p);
}
END_TEST

START_TEST(test_int8_acc_bits) {
  tp_ref_problem p = int8_problem(3);
  ck_assert_int_eq(tp_ref_acc_bits(&p.problem, TP_BACKEND_CUDA), 24);
  ck_assert_int_eq(tp_ref_acc_bits(&p.problem, TP_BACKEND_CPU), 24);
  tp_ref_problem_destroy(&p);
  const tp_ref_problem_spec fp8 = spec_of(3); /* blockwise_fp8 */
  tp_gemm_desc d;
  tp_problem maps;
  char err[1024];
  ck_assert_msg(tp_ref_problem_describe(&fp8, &d, &maps, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_int_eq(tp_ref_acc_bits(&maps, TP_BACKEND_CUDA), 14);
  ck_assert_int_eq(tp_ref_acc_bits(&maps, TP_BACKEND_CPU), 24);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tool_problem");
  TCase *tc = tcase_create("align_rows");
  /* Under ThreadSanitizer the 129 x 300 blockwise problem alone takes 1 to
   * 2 s on an idle 2-core machine: Check's 4 s default is too close. */
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_aligned_matches_reference, 0, NUM_SPECS);
  tcase_add_test(tc, test_refusal_leaves_empty_problem);
  suite_add_tcase(s, tc);
  TCase *int8 = tcase_create("row_scales");
  tcase_add_test(int8, test_int8_problem);
  tcase_add_test(int8, test_int8_reference);
  tcase_add_test(int8, test_int8_acc_bits);
  suite_add_tcase(s, int8);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
