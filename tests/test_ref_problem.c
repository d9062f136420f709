/* tests/test_ref_problem.c: the reference library's problems
 * (tilepipe/reference.h) and their life cycle, without a GPU; and the
 * problem of per-row scale vectors of s8 operands (examples/int8_w8a8's,
 * described here by the row-scale fixture, tests/problem_registry.h).
 *
 * Rows aligned to 16 bytes (align_rows) against the same problem without:
 * for every payload, dtype family, scale layout and C arrangement, each
 * strided tensor's row stride is a multiple of 16 bytes and at least its
 * row, its buffer exactly its span, every element holds the same value,
 * every padding byte is still 0xFF (NaN, so a kernel reading padding
 * shows), D is 0xFF throughout, tiled scale tensors are byte-for-byte the
 * same, vectors (the s8 operands' scales, the bias) stay contiguous, and C
 * aliasing D still aliases D; every scale is one of its map's values
 * (2^[exp_min, exp_min + count)).
 *
 * Refused, naming the problem, leaving no problem: a payload the registry
 * lacks, sizes below 1, a spec whose struct_size predates this version, no
 * D dtype. The per-row scales: its s8 operands cover the whole code range
 * and its scales are positive vectors in 2^[-12, -4]; tp_ref_gemm computes
 * a_scale[m] * b_scale[n] * (the integer dot product), takes the [M, 1] and
 * [1, N] forms of the scales alike (with the maps that read them so) and
 * refuses shapes their maps do not cover; and the problem is judged with
 * f32's unit roundoff on the GPU too, where an fp8 one takes wgmma's 14
 * bits.
 *
 * A whole case on the CPU backend (standard x store, and x residual with C
 * in D): tp_ref_problem_verify plans, runs on a poisoned D and checks, and
 * it passes; the check fails, saying where in its report and its line, on
 * an element changed, on D's row padding written, and on expected values
 * changed in place; a report too small is refused. A case that cannot be
 * judged names its step: no expected values, a plan refused (or, without
 * a GPU, a CUDA plan), a report too small. The device copy: without a GPU
 * the upload fails with the device API's reason and leaves no device
 * descriptor; a tensor pointed outside the problem's buffers is refused
 * before any device memory is asked for; with a GPU the copy has the host
 * descriptor's shapes and strides, other pointers, and C still in D.
 *
 * A registry from INI text (tp_ref_registry_open): opened, with a working
 * section and a broken one whose error names the written file's line, the
 * file and its folder gone afterwards; a text the registry refuses is
 * refused with its message and line, a $TMPDIR that cannot be written to
 * with TP_ERR_IO naming it, NULL arguments with TP_ERR_INVALID_ARGUMENT;
 * each refusal leaves *reg NULL and nothing behind. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/problem_registry.h"
#include "tests/tmpdir.h"
#include "tilepipe/device.h"
#include "tilepipe/reference.h"

#define SPEC .struct_size = sizeof(tp_ref_problem_spec)

static const tp_ref_problem_spec specs[] = {
    {SPEC, .payload = "standard", .a = TP_DTYPE_BF16, .b = TP_DTYPE_BF16, .d = TP_DTYPE_BF16,
     .c = TP_DTYPE_F32, .bias = TP_DTYPE_F32, .m = 7, .n = 129, .k = 300, .alpha = 1.0f,
     .beta = 1.0f},
    {SPEC, .payload = "standard", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E5M2, .d = TP_DTYPE_F32,
     .c_is_d = 1, .m = 127, .n = 7, .k = 65, .pad = 1, .alpha = 1.0f, .beta = 1.0f},
    {SPEC, .payload = "standard", .a = TP_DTYPE_F16, .b = TP_DTYPE_F16, .d = TP_DTYPE_F16,
     .m = 1, .n = 1, .k = 1, .alpha = 1.0f},
    {SPEC, .payload = "blockwise_fp8", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E4M3,
     .d = TP_DTYPE_BF16, .c = TP_DTYPE_BF16, .m = 129, .n = 300, .k = 129, .pad = 2,
     .alpha = 1.0f, .beta = 1.0f},
    {SPEC, .payload = "block_scaled", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E5M2, .d = TP_DTYPE_BF16,
     .sf_layout = TP_LAYOUT_STRIDED, .m = 7, .n = 65, .k = 96, .alpha = 1.0f},
    {SPEC, .payload = "block_scaled", .a = TP_DTYPE_E2M1, .b = TP_DTYPE_E2M1, .d = TP_DTYPE_F16,
     .c = TP_DTYPE_F16, .sf_layout = TP_LAYOUT_SF_128X4, .m = 130, .n = 3, .k = 80, .pad = 1,
     .alpha = 1.0f, .beta = 1.0f},
    {SPEC, .payload = "block_scaled", .a = TP_DTYPE_E2M1, .b = TP_DTYPE_E2M1, .d = TP_DTYPE_F32,
     .sf_layout = TP_LAYOUT_STRIDED, .m = 3, .n = 300, .k = 48, .alpha = 1.0f},
    {SPEC, .payload = TP_TEST_ROW_SCALES, .a = TP_DTYPE_S8, .b = TP_DTYPE_S8, .d = TP_DTYPE_BF16,
     .c = TP_DTYPE_F16, .bias = TP_DTYPE_BF16, .m = 7, .n = 129, .k = 300, .pad = 1,
     .alpha = 1.0f, .beta = 1.0f},
    {SPEC, .payload = TP_TEST_ROW_SCALES, .a = TP_DTYPE_S8, .b = TP_DTYPE_S8, .d = TP_DTYPE_F32,
     .c_is_d = 1, .m = 129, .n = 1, .k = 17, .alpha = 1.0f, .beta = 1.0f},
};
#define NUM_SPECS (int)(sizeof specs / sizeof specs[0])

static const char *names[TP_REF_TENSORS] = {"A", "B", "a_scale", "b_scale", "C", "D", "bias"};

static int same_value(float x, float y) { return x == y || (isnan(x) && isnan(y)); }

static const tp_tensor *tensor_of(tp_ref_problem *p, int i) {
  return tp_ref_desc_tensor(tp_ref_problem_desc(p), (tp_ref_tensor)i);
}

/* Tensor i of the aligned problem `al` against the unaligned `rp`. */
static void check_tensor(tp_ref_problem *al, tp_ref_problem *rp, int i, int spec) {
  const tp_tensor *t = tensor_of(al, i), *r = tensor_of(rp, i);
  int64_t al_bytes, rp_bytes;
  const void *al_buf = tp_ref_problem_buffer(al, (tp_ref_tensor)i, &al_bytes);
  const void *rp_buf = tp_ref_problem_buffer(rp, (tp_ref_tensor)i, &rp_bytes);
  ck_assert_int_eq(t->dtype, r->dtype);
  ck_assert_int_eq(al_buf == NULL, rp_buf == NULL);
  if (al_buf == NULL) return; /* absent, or C living in D (checked as D) */
  ck_assert_ptr_eq(t->data, al_buf);
  ck_assert_int_eq(al_bytes, tp_tensor_span_bytes(t));
  ck_assert_int_eq(t->layout, r->layout);
  if (t->layout == TP_LAYOUT_SF_128X4 || t->rank == 1) {
    ck_assert_int_eq(t->rank, r->rank);
    ck_assert_int_eq(t->stride[0], r->stride[0]); /* a vector keeps its unit stride */
    ck_assert_int_eq(al_bytes, rp_bytes);
    ck_assert_msg(memcmp(al_buf, rp_buf, (size_t)al_bytes) == 0, "spec %d: %s %s changed", spec,
                  t->rank == 1 ? "vector" : "tiled", names[i]);
    return;
  }
  const size_t pitch = tp_dtype_bytes(t->dtype, t->stride[0]);
  const size_t row_bytes = tp_dtype_bytes(t->dtype, t->shape[1]);
  ck_assert_msg(pitch % 16 == 0, "spec %d: %s row stride is %zu bytes", spec, names[i], pitch);
  ck_assert_int_ge(t->stride[0], r->stride[0]);
  ck_assert_int_eq(t->shape[0], r->shape[0]);
  ck_assert_int_eq(t->shape[1], r->shape[1]);
  const unsigned char *bytes = t->data;
  for (int64_t row = 0; row < t->shape[0]; row++) {
    for (int64_t c = 0; c < t->shape[1]; c++) {
      const float x = tp_dtype_load(t->dtype, t->data, row * t->stride[0] + c);
      const float y = tp_dtype_load(r->dtype, r->data, row * r->stride[0] + c);
      ck_assert_msg(same_value(x, y), "spec %d: %s(%lld, %lld) = %g, unaligned problem %g", spec,
                    names[i], (long long)row, (long long)c, (double)x, (double)y);
    }
    const size_t end = row + 1 < t->shape[0] ? pitch : (size_t)al_bytes - row * pitch;
    for (size_t b = row_bytes; b < end; b++)
      ck_assert_msg(bytes[row * pitch + b] == 0xFF, "spec %d: %s padding byte %zu of row %lld",
                    spec, names[i], b, (long long)row);
  }
}

/* specs[i] with the registry that describes it, rows aligned or not. */
static tp_ref_problem_spec spec_of(int i, int align) {
  tp_ref_problem_spec spec = specs[i];
  spec.registry = tp_test_problem_registry();
  spec.align_rows = align;
  ck_assert(spec.registry != NULL);
  return spec;
}

static tp_ref_problem *make(const tp_ref_problem_spec *spec, uint64_t seed) {
  char err[1024];
  tp_ref_problem *p = NULL;
  ck_assert_msg(tp_ref_problem_create(&p, spec, seed, err, sizeof err) == TP_OK, "%s", err);
  return p;
}

/* Every scale of p is a value of its map: in [2^exp_min, 2^(exp_min +
 * exp_count)). */
static void check_scale_values(tp_ref_problem *p, int spec) {
  const tp_problem *described = tp_ref_problem_description(p);
  const tp_scale_map *m[2] = {&described->a_scale, &described->b_scale};
  for (int s = 0; s < 2; s++) {
    const tp_tensor *t = tensor_of(p, TP_REF_A_SCALE + s);
    if (t->dtype == TP_DTYPE_NONE) continue;
    const double lo = ldexp(1.0, m[s]->exp_min), hi = ldexp(1.0, m[s]->exp_min + m[s]->exp_count);
    const int64_t rows = t->rank == 1 ? 1 : t->shape[0];
    const int64_t cols = t->rank == 1 ? t->shape[0] : t->shape[1];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++) {
        const double v = tp_dtype_load(t->dtype, t->data, tp_ref_index(t, r, c));
        ck_assert_msg(v >= lo && v < hi, "spec %d: %s(%lld, %lld) = %g outside [%g, %g)", spec,
                      names[TP_REF_A_SCALE + s], (long long)r, (long long)c, v, lo, hi);
      }
  }
}

START_TEST(test_aligned_matches_unaligned) {
  const tp_ref_problem_spec aligned = spec_of(_i, 1), unaligned = spec_of(_i, 0);
  tp_ref_problem *al = make(&aligned, 42 + (uint64_t)_i);
  tp_ref_problem *rp = make(&unaligned, 42 + (uint64_t)_i);
  for (int i = 0; i < TP_REF_TENSORS; i++) check_tensor(al, rp, i, _i);
  check_scale_values(rp, _i);
  int64_t d_bytes;
  const unsigned char *d = tp_ref_problem_buffer(al, TP_REF_D, &d_bytes);
  for (int64_t b = 0; b < d_bytes && !aligned.c_is_d; b++) ck_assert(d[b] == 0xFF);
  const tp_gemm_desc *desc = tp_ref_problem_desc(al);
  if (aligned.c_is_d) {
    ck_assert_ptr_eq(desc->c.data, desc->d.data);
    ck_assert_int_eq(desc->c.stride[0], desc->d.stride[0]);
  }
  if (aligned.bias != TP_DTYPE_NONE) {
    ck_assert_int_eq(desc->bias.rank, 1);
    ck_assert_int_eq(desc->bias.shape[0], aligned.n);
  }
  ck_assert(desc->alpha == aligned.alpha && desc->beta == aligned.beta);
  /* The descriptor alone is the problem's, data pointers aside. */
  tp_gemm_desc alone;
  tp_problem maps;
  char err[1024];
  ck_assert_msg(tp_ref_problem_describe(&aligned, &alone, &maps, err, sizeof err) == TP_OK, "%s",
                err);
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    const tp_tensor *t = tp_ref_desc_tensor(&alone, (tp_ref_tensor)i), *u = tensor_of(al, i);
    ck_assert(t->dtype == u->dtype && t->layout == u->layout && t->rank == u->rank);
    for (int dim = 0; dim < TP_MAX_RANK; dim++)
      ck_assert(t->shape[dim] == u->shape[dim] && t->stride[dim] == u->stride[dim]);
    ck_assert_ptr_null(t->data);
  }
  ck_assert_mem_eq(&maps, tp_ref_problem_description(al), sizeof maps);
  tp_ref_problem_destroy(al);
  tp_ref_problem_destroy(rp);
}
END_TEST

/* The spec refused with `status`, err naming `needle`, no problem made. */
static void expect_refused(const tp_ref_problem_spec *spec, tp_status status, const char *needle) {
  char err[1024] = "";
  tp_ref_problem *p = (tp_ref_problem *)&err; /* anything but NULL */
  ck_assert_int_eq(tp_ref_problem_create(&p, spec, 1, err, sizeof err), status);
  ck_assert_msg(strstr(err, needle) != NULL, "'%s' lacks '%s'", err, needle);
  ck_assert_ptr_null(p);
}

START_TEST(test_refusals) {
  tp_ref_problem_spec spec = spec_of(0, 1);
  spec.payload = "no_such_payload";
  expect_refused(&spec, TP_ERR_NOT_FOUND, "no payload plugin 'no_such_payload'");
  spec = spec_of(0, 1);
  spec.m = 0;
  expect_refused(&spec, TP_ERR_INVALID_ARGUMENT, "sizes must be >= 1");
  spec = spec_of(0, 1);
  spec.struct_size = 8;
  expect_refused(&spec, TP_ERR_INVALID_ARGUMENT, "tp_ref_problem_spec.struct_size is 8");
  spec = spec_of(0, 1);
  spec.d = TP_DTYPE_NONE;
  expect_refused(&spec, TP_ERR_INVALID_ARGUMENT, "D's dtype is missing");
  ck_assert_int_eq(tp_ref_problem_create(NULL, &spec, 1, NULL, 0), TP_ERR_INVALID_ARGUMENT);
  tp_ref_problem_destroy(NULL);
}
END_TEST

/* ------------------------------------------------------------ per-row scales */

static tp_ref_problem *int8_problem(uint64_t seed) {
  const tp_ref_problem_spec spec = {
      SPEC, .registry = tp_test_problem_registry(), .payload = TP_TEST_ROW_SCALES,
      .a = TP_DTYPE_S8, .b = TP_DTYPE_S8, .d = TP_DTYPE_F32, .c = TP_DTYPE_F32, .m = 33,
      .n = 40, .k = 257, .pad = 3, .alpha = -0.5f, .beta = 2.0f};
  ck_assert(spec.registry != NULL);
  return make(&spec, seed);
}

/* The scales: f32 vectors of M and N, positive, in 2^[-12, -4]. The
 * operands: integers, and over this many draws both ends of the range. */
START_TEST(test_int8_problem) {
  tp_ref_problem *p = int8_problem(7);
  const tp_gemm_desc *d = tp_ref_problem_desc(p);
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
  tp_ref_problem_destroy(p);
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
  tp_ref_problem *p = int8_problem(11);
  const tp_gemm_desc *made = tp_ref_problem_desc(p);
  const tp_problem *described = tp_ref_problem_description(p);
  tp_gemm_desc d = *made;
  tp_problem maps = *described;
  const size_t count = (size_t)(d.m * d.n);
  double *ref = malloc(count * sizeof *ref), *mag = malloc(count * sizeof *mag);
  ck_assert(ref != NULL && mag != NULL);
  ck_assert_msg(tp_ref_gemm(&d, &maps, TP_REF_RESIDUAL, ref, mag, err, sizeof err) == TP_OK, "%s",
                err);
  expect_int8_reference(&d, ref, mag);
  /* The problem's own expected values are the same. */
  ck_assert_msg(tp_ref_problem_expect(p, TP_REF_RESIDUAL, err, sizeof err) == TP_OK, "%s", err);
  double *kept_mag;
  const double *kept = tp_ref_problem_expected(p, &kept_mag);
  ck_assert_mem_eq(kept, ref, count * sizeof *ref);
  ck_assert_mem_eq(kept_mag, mag, count * sizeof *mag);
  /* [M, 1] and [1, N] (read K first), the same data: the same result. */
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, d.m, 1, 1, made->a_scale.data);
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, d.n, d.n, made->b_scale.data);
  maps.b_scale.k_first = 1;
  ck_assert_msg(tp_ref_gemm(&d, &maps, TP_REF_RESIDUAL, ref, mag, err, sizeof err) == TP_OK, "%s",
                err);
  expect_int8_reference(&d, ref, mag);
  /* Scales their maps do not cover are refused, naming the tensor. */
  d = *made;
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, d.m, d.m, made->a_scale.data);
  ck_assert_int_eq(tp_ref_gemm(&d, described, TP_REF_STORE, ref, mag, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "a_scale") != NULL, "%s", err);
  d = *made;
  d.b_scale.shape[0] = d.n - 1;
  ck_assert_int_eq(tp_ref_gemm(&d, described, TP_REF_STORE, ref, mag, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "b_scale") != NULL, "%s", err);
  free(ref);
  free(mag);
  tp_ref_problem_destroy(p);
}
END_TEST

START_TEST(test_int8_acc_bits) {
  tp_ref_problem *p = int8_problem(3);
  ck_assert_int_eq(tp_ref_acc_bits(tp_ref_problem_description(p), TP_BACKEND_CUDA), 24);
  ck_assert_int_eq(tp_ref_acc_bits(tp_ref_problem_description(p), TP_BACKEND_CPU), 24);
  tp_ref_problem_destroy(p);
  const tp_ref_problem_spec fp8 = spec_of(3, 1); /* blockwise_fp8 */
  tp_gemm_desc d;
  tp_problem maps;
  char err[1024];
  ck_assert_msg(tp_ref_problem_describe(&fp8, &d, &maps, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_int_eq(tp_ref_acc_bits(&maps, TP_BACKEND_CUDA), 14);
  ck_assert_int_eq(tp_ref_acc_bits(&maps, TP_BACKEND_CPU), 24);
}
END_TEST

/* ------------------------------------------------------------ a whole case */

/* standard x epilogue on the CPU backend, run: the problem and its report
 * (which must pass). */
static tp_ref_problem *run_on_cpu(const char *epilogue, tp_ref_report *rep) {
  tp_ref_problem_spec spec = spec_of(0, 1);
  const int residual = strcmp(epilogue, "residual") == 0;
  spec.c = TP_DTYPE_NONE;
  spec.bias = TP_DTYPE_NONE;
  spec.c_is_d = residual;
  spec.beta = residual ? -0.5f : 0.0f;
  spec.alpha = 0.75f;
  tp_ref_problem *p = make(&spec, 99);
  char err[1024];
  ck_assert_msg(tp_ref_problem_expect(p, residual ? TP_REF_RESIDUAL : TP_REF_STORE, err,
                                      sizeof err) == TP_OK,
                "%s", err);
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, TP_BACKEND_CPU);
  *rep = (tp_ref_report){.struct_size = sizeof *rep};
  ck_assert_msg(tp_ref_problem_verify(p, tp_test_problem_registry(), "standard", epilogue,
                                      TP_BACKEND_CPU, &tol, rep, err, sizeof err) == TP_OK,
                "%s", err);
  char line[512];
  tp_ref_report_format(rep, line, sizeof line);
  ck_assert_msg(rep->pass, "%s x %s: %s", "standard", epilogue, line);
  ck_assert_int_eq(rep->elements, spec.m * spec.n);
  ck_assert_int_eq(rep->padding_at, -1);
  ck_assert(rep->rel_bound == tol.rel);
  return p;
}

START_TEST(test_run_and_check) {
  tp_ref_report rep;
  char line[512];
  tp_ref_problem_destroy(run_on_cpu("residual", &rep));
  tp_ref_problem *p = run_on_cpu("store", &rep);
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, TP_BACKEND_CPU);
  const tp_tensor *d = &tp_ref_problem_desc(p)->d;
  /* One element off by 1%: out of its bound, named. */
  const int64_t at = tp_ref_index(d, 5, 77);
  const float kept = tp_dtype_load(d->dtype, d->data, at);
  tp_dtype_store(d->dtype, d->data, at, kept * 1.01f + 0.01f);
  ck_assert_int_eq(tp_ref_problem_check(p, &tol, &rep), TP_OK);
  tp_ref_report_format(&rep, line, sizeof line);
  ck_assert(!rep.pass && rep.bad == 1 && rep.bad_row == 5 && rep.bad_col == 77);
  ck_assert_msg(strstr(line, "1 of 903 elements outside their bound, first D[5][77]") != NULL,
                "%s", line);
  tp_dtype_store(d->dtype, d->data, at, kept);
  /* A byte of D's row padding written. */
  unsigned char *bytes = d->data;
  const int64_t pad_at = d->stride[0] * 2 - 1; /* the last byte of row 0's padding */
  bytes[pad_at] = 0;
  ck_assert_int_eq(tp_ref_problem_check(p, &tol, &rep), TP_OK);
  tp_ref_report_format(&rep, line, sizeof line);
  ck_assert(!rep.pass && rep.bad == 0 && rep.padding_at == pad_at);
  ck_assert_msg(strstr(line, "D's row padding written at byte") != NULL, "%s", line);
  bytes[pad_at] = 0xFF;
  /* Expected values changed in place are what D is judged against. */
  double *mag;
  double *ref = tp_ref_problem_expected(p, &mag);
  ref[0] = -ref[0] + 1.0;
  ck_assert_int_eq(tp_ref_problem_check(p, &tol, &rep), TP_OK);
  ck_assert(!rep.pass && rep.bad_row == 0 && rep.bad_col == 0);
  /* A report from before this version is refused, untouched. */
  tp_ref_report small = {.struct_size = 4, .pass = 7};
  ck_assert_int_eq(tp_ref_problem_check(p, &tol, &small), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(small.pass, 7);
  tp_ref_problem_destroy(p);
}
END_TEST

/* C in D: D is not poisoned before a run, so an element the run leaves
 * alone holds C's value. tp_ref_problem_unwritten finds it: fp8 operands
 * with K = 4096, judged as on the GPU (wgmma's accumulator), where the
 * per-element bound is far above the product term of any one element. A
 * correct run leaves none; C not in D has none to find. */
START_TEST(test_unwritten_element_found) {
  tp_ref_problem_spec spec = spec_of(0, 1);
  spec.a = spec.b = TP_DTYPE_E4M3;
  spec.d = TP_DTYPE_BF16;
  spec.c = spec.bias = TP_DTYPE_NONE;
  spec.c_is_d = 1;
  spec.m = 16;
  spec.n = 24;
  spec.k = 4096;
  spec.alpha = spec.beta = 1.0f;
  tp_ref_problem *p = make(&spec, 123);
  char err[1024];
  ck_assert_msg(tp_ref_problem_expect(p, TP_REF_RESIDUAL, err, sizeof err) == TP_OK, "%s", err);
  int64_t bytes;
  unsigned char *d_buf = tp_ref_problem_buffer(p, TP_REF_D, &bytes);
  unsigned char *c0 = malloc((size_t)bytes);
  ck_assert_ptr_nonnull(c0);
  memcpy(c0, d_buf, (size_t)bytes);
  const tp_ref_tolerance cpu = tp_ref_problem_tolerance(p, TP_BACKEND_CPU);
  const tp_ref_tolerance gpu = tp_ref_problem_tolerance(p, TP_BACKEND_CUDA);
  tp_ref_report rep = {.struct_size = sizeof rep};
  ck_assert_msg(tp_ref_problem_verify(p, tp_test_problem_registry(), "standard", "residual",
                                      TP_BACKEND_CPU, &cpu, &rep, err, sizeof err) == TP_OK,
                "%s", err);
  ck_assert(rep.pass);
  int64_t row, col;
  ck_assert_int_eq(tp_ref_problem_unwritten(p, &cpu, &row, &col), 0);
  ck_assert_int_eq(tp_ref_problem_unwritten(p, &gpu, &row, &col), 0);
  ck_assert(row == -1 && col == -1);
  /* The element whose product term is largest, left as C was. */
  const tp_tensor *d = &tp_ref_problem_desc(p)->d;
  const double *ref = tp_ref_problem_expected(p, NULL);
  int64_t at_row = 0, at_col = 0;
  double most = -1.0;
  for (int64_t i = 0; i < spec.m; i++)
    for (int64_t j = 0; j < spec.n; j++) {
      const double term = fabs(ref[i * spec.n + j] - tp_dtype_load(d->dtype, c0, tp_ref_index(d, i, j)));
      if (term > most) {
        most = term;
        at_row = i;
        at_col = j;
      }
    }
  const int64_t at = tp_ref_index(d, at_row, at_col) * 2; /* bf16 bytes */
  memcpy(d_buf + at, c0 + at, 2);
  ck_assert_int_eq(tp_ref_problem_unwritten(p, &gpu, &row, &col), 1);
  ck_assert(row == at_row && col == at_col);
  ck_assert_int_eq(tp_ref_problem_unwritten(p, &cpu, NULL, NULL), 1);
  /* Every element left alone: all of them found whose term is large. */
  memcpy(d_buf, c0, (size_t)bytes);
  ck_assert_int_gt(tp_ref_problem_unwritten(p, &gpu, NULL, NULL), spec.m * spec.n * 3 / 4);
  free(c0);
  tp_ref_problem_destroy(p);
  /* C elsewhere: nothing to find. */
  p = run_on_cpu("store", &rep);
  ck_assert_int_eq(tp_ref_problem_unwritten(p, &cpu, &row, &col), 0);
  tp_ref_problem_destroy(p);
}
END_TEST

/* A case that cannot be judged says which step failed. */
START_TEST(test_verify_failures) {
  const tp_ref_problem_spec spec = spec_of(2, 1); /* standard, f16, 1x1x1 */
  tp_ref_problem *p = make(&spec, 4);
  char err[1024] = "";
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, TP_BACKEND_CPU);
  tp_ref_report rep = {.struct_size = sizeof rep};
  tp_registry *reg = tp_test_problem_registry();
  ck_assert_int_eq(tp_ref_problem_verify(p, reg, "standard", "store", TP_BACKEND_CPU, &tol, &rep,
                                         err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "no expected values") != NULL, "%s", err);
  ck_assert_int_eq(tp_ref_problem_expect(p, TP_REF_STORE, err, sizeof err), TP_OK);
  ck_assert_int_eq(tp_ref_problem_verify(p, reg, "block_scaled", "store", TP_BACKEND_CPU, &tol,
                                         &rep, err, sizeof err),
                   TP_ERR_UNSUPPORTED);
  ck_assert_msg(strncmp(err, "plan: ", 6) == 0 && strstr(err, "block_scaled") != NULL, "%s",
                err);
  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    ck_assert_int_ne(tp_ref_problem_verify(p, reg, "standard", "store", TP_BACKEND_CUDA, &tol,
                                           &rep, err, sizeof err),
                     TP_OK);
    ck_assert_msg(strncmp(err, "plan: ", 6) == 0, "%s", err);
  }
  tp_ref_report small = {.struct_size = 4};
  ck_assert_int_eq(tp_ref_problem_verify(p, reg, "standard", "store", TP_BACKEND_CPU, &tol, &small,
                                         err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "struct_size") != NULL, "%s", err);
  tp_ref_problem_destroy(p);
}
END_TEST

START_TEST(test_device_copy) {
  const tp_ref_problem_spec spec = spec_of(1, 1); /* C is D */
  tp_ref_problem *p = make(&spec, 5);
  char err[1024] = "";
  ck_assert_int_eq(tp_ref_problem_download_d(p, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "no device copy") != NULL, "%s", err);
  /* A tensor pointed outside the buffers: refused before any allocation. */
  tp_gemm_desc *d = tp_ref_problem_desc(p);
  void *a = d->a.data;
  float elsewhere[4];
  d->b.data = elsewhere;
  ck_assert_int_eq(tp_ref_problem_upload(p, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "B points outside the problem's buffers") != NULL, "%s", err);
  ck_assert_ptr_null(tp_ref_problem_device_desc(p));
  d->b.data = tp_ref_problem_buffer(p, TP_REF_B, NULL);
  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    ck_assert_int_ne(tp_ref_problem_upload(p, err, sizeof err), TP_OK);
    ck_assert_msg(strstr(err, "upload: device memory: ") != NULL, "%s", err);
    ck_assert_ptr_null(tp_ref_problem_device_desc(p));
  } else {
    ck_assert_msg(tp_ref_problem_upload(p, err, sizeof err) == TP_OK, "%s", err);
    const tp_gemm_desc *dev = tp_ref_problem_device_desc(p);
    ck_assert_ptr_nonnull(dev);
    ck_assert_ptr_ne(dev->a.data, a);
    ck_assert_ptr_eq(dev->c.data, dev->d.data);
    ck_assert_int_eq(dev->a.stride[0], d->a.stride[0]);
    ck_assert_int_eq(dev->d.shape[1], d->d.shape[1]);
    ck_assert_msg(tp_ref_problem_download_d(p, err, sizeof err) == TP_OK, "%s", err);
  }
  tp_ref_problem_destroy(p);
}
END_TEST

/* ------------------------------------------------------------ registries */

static char scratch[PATH_MAX];     /* $TMPDIR of the registry tests */
static char saved_tmpdir[PATH_MAX]; /* the one before them; "" when unset */

static void scratch_setup(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(saved_tmpdir, sizeof saved_tmpdir, "%s", tmp ? tmp : "");
  ck_assert_msg(tp_test_tmpdir_make(scratch, sizeof scratch, "tp-ref-registry") == 0,
                "cannot make a scratch folder: %s", strerror(errno));
  ck_assert_int_eq(setenv("TMPDIR", scratch, 1), 0);
}

static void scratch_teardown(void) {
  if (saved_tmpdir[0])
    setenv("TMPDIR", saved_tmpdir, 1);
  else
    unsetenv("TMPDIR");
  ck_assert_msg(tp_test_tmpdir_remove(scratch) == 0, "cannot remove %s", scratch);
}

/* Entries of the scratch folder, "." and ".." aside. */
static int scratch_entries(void) {
  DIR *d = opendir(scratch);
  ck_assert_msg(d != NULL, "cannot read %s: %s", scratch, strerror(errno));
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n;
}

START_TEST(test_registry_from_text) {
  char ini[1024], err[1024] = "", where[PATH_MAX + 64];
  snprintf(ini, sizeof ini,
           "; a payload, then a library that is not there\n"
           "[row_scales]\nkind = payload\nlibrary = %s/fixture_problem.so\n\n"
           "[gone]\nkind = epilogue\nlibrary = /nonexistent/tp_gone.so\n",
           TP_TEST_PLUGIN_DIR);
  tp_registry *reg = NULL;
  ck_assert_msg(tp_ref_registry_open(&reg, ini, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_ptr_nonnull(reg);
  ck_assert_int_eq(scratch_entries(), 0); /* the file and its folder are gone */
  ck_assert_uint_eq(tp_registry_count(reg), 2);
  /* The path it was opened from: registry.ini in a folder of $TMPDIR. */
  const char *path = tp_registry_path(reg);
  ck_assert_msg(strncmp(path, scratch, strlen(scratch)) == 0 && path[strlen(scratch)] == '/' &&
                    strcmp(path + strlen(path) - strlen("/registry.ini"), "/registry.ini") == 0,
                "opened from %s, not a registry.ini under %s", path, scratch);
  tp_plugin_info info;
  ck_assert(tp_registry_find(reg, "row_scales", &info) == TP_OK);
  ck_assert_msg(info.status == TP_OK, "%s", info.error);
  ck_assert(tp_registry_find(reg, "gone", &info) == TP_OK);
  ck_assert_int_eq(info.status, TP_ERR_NOT_FOUND);
  snprintf(where, sizeof where, "%s:8: library '/nonexistent/tp_gone.so' not found", path);
  ck_assert_msg(strncmp(info.error, where, strlen(where)) == 0, "'%s' does not start with '%s'",
                info.error, where);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_registry_from_text_refused) {
  char err[1024] = "";
  tp_registry *reg = (tp_registry *)&err; /* anything but NULL */
  /* The registry's own refusal, its message and the text's line. */
  ck_assert_int_eq(tp_ref_registry_open(&reg, "[fine]\nkind = payload\n[has space]\n", err,
                                        sizeof err),
                   TP_ERR_REGISTRY);
  ck_assert_ptr_null(reg);
  ck_assert_msg(strstr(err, "/registry.ini:3: bad section name 'has space'") != NULL, "'%s'",
                err);
  ck_assert_int_eq(scratch_entries(), 0);
  /* Nowhere to write. */
  char missing[PATH_MAX + 16];
  snprintf(missing, sizeof missing, "%s/none", scratch);
  ck_assert_int_eq(setenv("TMPDIR", missing, 1), 0);
  reg = (tp_registry *)&err;
  ck_assert_int_eq(tp_ref_registry_open(&reg, "[a]\n", err, sizeof err), TP_ERR_IO);
  ck_assert_ptr_null(reg);
  ck_assert_msg(strstr(err, "cannot make the folder") != NULL && strstr(err, missing) != NULL,
                "'%s' does not name %s", err, missing);
  ck_assert_int_eq(scratch_entries(), 0);
  /* NULL arguments; no err to write into is fine. */
  ck_assert_int_eq(tp_ref_registry_open(NULL, "[a]\n", err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "reg is NULL") != NULL, "'%s'", err);
  reg = (tp_registry *)&err;
  ck_assert_int_eq(tp_ref_registry_open(&reg, NULL, NULL, 0), TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(reg);
}
END_TEST

/* tp_ref_operand_f32: A and B of specs[_i] dequantized to f32, their
 * products summed in f64, match tp_ref_gemm_at's D within the f32 rounding
 * of each operand (2^-24 each, relative: 2^-22 of the magnitude covers
 * both and the sum); tensors other than A and B are refused. */
START_TEST(test_operand_f32) {
  const tp_ref_problem_spec spec = spec_of(_i, 0);
  tp_ref_problem_spec store = spec;
  store.c = TP_DTYPE_NONE;
  store.c_is_d = 0;
  store.bias = TP_DTYPE_NONE;
  store.beta = 0.0f;
  tp_ref_problem *p = make(&store, 5);
  const tp_gemm_desc *d = tp_ref_problem_desc(p);
  const tp_problem *described = tp_ref_problem_description(p);
  const int64_t m = d->m, n = d->n, k = d->k;
  float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(n * k));
  double *ref = malloc(sizeof(double) * (size_t)(m * n)), *mag = malloc(sizeof(double) * (size_t)(m * n));
  ck_assert(a != NULL && b != NULL && ref != NULL && mag != NULL);
  char err[512];
  ck_assert_msg(tp_ref_operand_f32(d, described, TP_REF_A, a, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_msg(tp_ref_operand_f32(d, described, TP_REF_B, b, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_msg(tp_ref_gemm(d, described, TP_REF_STORE, ref, mag, err, sizeof err) == TP_OK, "%s",
                err);
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double dot = 0.0;
      for (int64_t q = 0; q < k; q++) dot += (double)a[i * k + q] * (double)b[j * k + q];
      dot *= d->alpha;
      ck_assert_msg(fabs(dot - ref[i * n + j]) <= ldexp(mag[i * n + j], -22),
                    "spec %d: D(%lld, %lld) from the f32 operands %g, reference %g", _i,
                    (long long)i, (long long)j, dot, ref[i * n + j]);
    }
  ck_assert_int_eq(tp_ref_operand_f32(d, described, TP_REF_C, a, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "not A or B") != NULL, "%s", err);
  free(a);
  free(b);
  free(ref);
  free(mag);
  tp_ref_problem_destroy(p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("ref_problem");
  TCase *tc = tcase_create("problems");
  /* Under ThreadSanitizer the 129 x 300 blockwise problem alone takes 1 to
   * 2 s on an idle 2-core machine: Check's 4 s default is too close. */
  tcase_set_timeout(tc, 30);
  tcase_add_loop_test(tc, test_aligned_matches_unaligned, 0, NUM_SPECS);
  tcase_add_test(tc, test_refusals);
  tcase_add_loop_test(tc, test_operand_f32, 0, NUM_SPECS);
  suite_add_tcase(s, tc);
  TCase *int8 = tcase_create("row_scales");
  tcase_add_test(int8, test_int8_problem);
  tcase_add_test(int8, test_int8_reference);
  tcase_add_test(int8, test_int8_acc_bits);
  suite_add_tcase(s, int8);
  TCase *cases = tcase_create("cases");
  tcase_set_timeout(cases, 30);
  tcase_add_test(cases, test_run_and_check);
  tcase_add_test(cases, test_unwritten_element_found);
  tcase_add_test(cases, test_verify_failures);
  tcase_add_test(cases, test_device_copy);
  suite_add_tcase(s, cases);
  TCase *registries = tcase_create("registries");
  tcase_add_checked_fixture(registries, scratch_setup, scratch_teardown);
  tcase_add_test(registries, test_registry_from_text);
  tcase_add_test(registries, test_registry_from_text_refused);
  suite_add_tcase(s, registries);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
