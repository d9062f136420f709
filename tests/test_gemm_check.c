/* tests/test_gemm_check.c: the core's generic descriptor rules
 * (core/gemm_check.c), called directly so that the CUDA backend's rules
 * run without a GPU. Every rule has a test that breaks it alone, starting
 * from a descriptor that passes, and asserts the status and that the
 * message names the tensor (or the sizes) at fault:
 *
 * - plan time (tp_gemm_check_desc): M, N, K; each matrix's dtype, layout
 *   and rank, shape, unit inner stride, a row stride shorter than a row,
 *   packed fp4 rows of whole bytes, and on CUDA rows a multiple of 16 bytes
 *   ("pad the rows"; the CPU takes them); the scale tensors' dtype, layout,
 *   rank, sizes and strides; the bias's dtype, shape and strides;
 * - run time (tp_gemm_check_run): the problem the plan was made for, data
 *   pointers present and aligned (16 bytes on CUDA), and D overlapping no
 *   input, where C may be D itself only with D's dtype and strides.
 *
 * At the edges of int64_t, where fuzz_plan's corpus
 * (tests/fuzz/corpus/plan/) reaches them too:
 *
 * - a row stride is bounded in elements before it is turned into bytes: a
 *   stride of INT64_MAX is refused as too large (its byte count overflowed,
 *   and the overflowed count passed the check); the bound itself, 2^40
 *   bytes, holds for every element size, packed fp4 included;
 * - every strided tensor's span must be measurable (tp_tensor_span_bytes): rows
 *   within the stride bound but so many of them that the bytes pass 2^63
 *   are refused, for the matrices and the scale tensors alike. */
#include <stddef.h>
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

/* The outcome of a check: status, and a message holding needle (NULL: any). */
static void expect_status(tp_status st, tp_status status, const char *needle) {
  ck_assert_msg(st == status, "status '%s', expected '%s' (%s)", tp_status_string(st),
                tp_status_string(status), tp_error_message());
  if (needle)
    ck_assert_msg(strstr(tp_error_message(), needle) != NULL, "\"%s\" lacks \"%s\"",
                  tp_error_message(), needle);
}

static void expect_on(const tp_gemm_desc *d, tp_backend backend, tp_status status,
                      const char *needle) {
  expect_status(tp_gemm_check_desc(d, backend), status, needle);
}

static void expect(const tp_gemm_desc *d, tp_status status, const char *needle) {
  expect_on(d, TP_BACKEND_CPU, status, needle);
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

/* The base problem with C: f32 [M, N], rows N apart, like D. */
static tp_gemm_desc problem_with_c(tp_dtype ab) {
  tp_gemm_desc d = problem(ab);
  d.c = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, NULL);
  d.beta = 1.0f;
  return d;
}

/* The matrix `name` ("A", "B", "C" or "D") of d, with its columns. */
static tp_tensor *matrix(tp_gemm_desc *d, const char *name, int64_t *cols) {
  *cols = name[0] == 'A' || name[0] == 'B' ? K : N;
  switch (name[0]) {
  case 'A': return &d->a;
  case 'B': return &d->b;
  case 'C': return &d->c;
  default: return &d->d;
  }
}

static const char *const matrices[] = {"A", "B", "C", "D"};

/* A message naming `name` at the start: "A: ..." or "A has ...". */
static const char *named(char *buf, size_t size, const char *name, const char *rest) {
  snprintf(buf, size, "%s%s", name, rest);
  return buf;
}

START_TEST(test_sizes_are_named) {
  tp_gemm_desc d = problem(TP_DTYPE_BF16);
  expect(&d, TP_OK, NULL);
  expect_on(&d, TP_BACKEND_CUDA, TP_OK, NULL);
  d.m = 0;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "M, N and K must be >= 1 (got 0, 8, 8)");
  d = problem(TP_DTYPE_BF16);
  d.k = -1;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "M, N and K must be >= 1 (got 8, 8, -1)");
  d = problem(TP_DTYPE_BF16);
  d.n = (int64_t)INT32_MAX + 1;
  expect(&d, TP_ERR_UNSUPPORTED, "M, N and K must be below 2^31 (got 8, 2147483648, 8)");
}
END_TEST

START_TEST(test_matrix_rules) {
  char want[160];
  for (size_t i = 0; i < sizeof matrices / sizeof matrices[0]; i++) {
    const char *name = matrices[i];
    int64_t cols;
    tp_gemm_desc d = problem_with_c(TP_DTYPE_BF16);
    expect(&d, TP_OK, NULL);
    matrix(&d, name, &cols)->dtype = TP_DTYPE_COUNT;
    snprintf(want, sizeof want, "%s: dtype %d is not a tilepipe dtype", name, (int)TP_DTYPE_COUNT);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    d = problem_with_c(TP_DTYPE_BF16);
    matrix(&d, name, &cols)->layout = TP_LAYOUT_SF_128X4;
    expect(&d, TP_ERR_INVALID_ARGUMENT,
           named(want, sizeof want, name, " must be a strided rank-2 matrix (got layout 1, rank 2)"));
    d = problem_with_c(TP_DTYPE_BF16);
    matrix(&d, name, &cols)->rank = 1;
    expect(&d, TP_ERR_INVALID_ARGUMENT,
           named(want, sizeof want, name, " must be a strided rank-2 matrix (got layout 0, rank 1)"));
    d = problem_with_c(TP_DTYPE_BF16);
    matrix(&d, name, &cols)->shape[0] = 9;
    snprintf(want, sizeof want, "%s has shape [9, %lld] but the GEMM needs [8, %lld]", name,
             (long long)cols, (long long)cols);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    d = problem_with_c(TP_DTYPE_BF16);
    matrix(&d, name, &cols)->shape[1] = cols + 1;
    expect(&d, TP_ERR_INVALID_ARGUMENT, named(want, sizeof want, name, " has shape [8, "));
    d = problem_with_c(TP_DTYPE_BF16);
    matrix(&d, name, &cols)->stride[1] = 2;
    expect(&d, TP_ERR_INVALID_ARGUMENT,
           named(want, sizeof want, name, ": inner stride is 2; rows must be contiguous"));
    /* A row stride one element short of a row would put rows over each other. */
    d = problem_with_c(TP_DTYPE_BF16);
    matrix(&d, name, &cols)->stride[0] = cols - 1;
    snprintf(want, sizeof want, "%s: row stride %lld is shorter than a row (%lld elements)", name,
             (long long)(cols - 1), (long long)cols);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    expect_on(&d, TP_BACKEND_CUDA, TP_ERR_INVALID_ARGUMENT, want);
    matrix(&d, name, &cols)->stride[0] = 0;
    expect(&d, TP_ERR_INVALID_ARGUMENT, named(want, sizeof want, name, ": row stride 0 is shorter"));
    matrix(&d, name, &cols)->stride[0] = cols; /* rows back to back */
    expect(&d, TP_OK, NULL);
  }
  /* A, B and D cannot be absent; C can. */
  for (size_t i = 0; i < sizeof matrices / sizeof matrices[0]; i++) {
    int64_t cols;
    tp_gemm_desc d = problem(TP_DTYPE_BF16);
    matrix(&d, matrices[i], &cols)->dtype = TP_DTYPE_NONE;
    if (matrices[i][0] == 'C') {
      expect(&d, TP_OK, NULL);
    } else {
      snprintf(want, sizeof want, "%s: dtype 0 is not a tilepipe dtype", matrices[i]);
      expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    }
  }
}
END_TEST


/* Packed fp4: two elements a byte, so a row starts on a byte only when the
 * row stride and the row length are even. */
START_TEST(test_packed_rows_whole_bytes) {
  tp_gemm_desc d = problem(TP_DTYPE_E2M1);
  expect(&d, TP_OK, NULL);
  d.a.stride[0] = K + 1;
  expect(&d, TP_ERR_INVALID_ARGUMENT,
         "A: packed e2m1 rows must hold whole bytes (row length 8 and stride 9 must be even)");
  d = problem(TP_DTYPE_E2M1);
  d.b.stride[0] = K + 3;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "B: packed e2m1 rows must hold whole bytes");
  d = problem(TP_DTYPE_E2M1);
  d.k = 7;
  d.a = tp_tensor_matrix(TP_DTYPE_E2M1, M, 7, 8, NULL);
  d.b = tp_tensor_matrix(TP_DTYPE_E2M1, N, 7, 8, NULL);
  expect(&d, TP_ERR_INVALID_ARGUMENT, "A: packed e2m1 rows must hold whole bytes (row length 7");
  /* One-byte dtypes take any row stride on the CPU. */
  d = problem(TP_DTYPE_E4M3);
  d.a.stride[0] = K + 1;
  expect(&d, TP_OK, NULL);
}
END_TEST

/* TMA loads and stores rows at 16-byte aligned addresses: on the CUDA
 * backend every matrix's row stride is a multiple of 16 bytes, unless it
 * has a single row (whose stride is never used); the CPU takes any. */
START_TEST(test_cuda_rows_of_16_bytes) {
  static const char pad[] = "(TMA needs 16-byte aligned rows); pad the rows";
  char want[200];
  for (size_t i = 0; i < sizeof matrices / sizeof matrices[0]; i++) {
    const char *name = matrices[i];
    int64_t cols;
    tp_gemm_desc d = problem_with_c(TP_DTYPE_BF16);
    expect_on(&d, TP_BACKEND_CUDA, TP_OK, NULL);
    tp_tensor *t = matrix(&d, name, &cols);
    t->stride[0] = cols + 2; /* bf16 A, B: 20 bytes; f32 C, D: 40 */
    const int64_t bytes = (cols + 2) * (t->dtype == TP_DTYPE_BF16 ? 2 : 4);
    snprintf(want, sizeof want,
             "%s: row stride %lld elements = %lld bytes is not a multiple of 16 bytes %s", name,
             (long long)(cols + 2), (long long)bytes, pad);
    expect_on(&d, TP_BACKEND_CUDA, TP_ERR_UNSUPPORTED, want);
    expect(&d, TP_OK, NULL);
    t->stride[0] = t->dtype == TP_DTYPE_BF16 ? cols + 8 : cols + 4; /* 16 bytes more */
    expect_on(&d, TP_BACKEND_CUDA, TP_OK, NULL);
  }
  /* Packed fp4 counts half bytes: 36 elements are 18 bytes, 64 are 32. */
  tp_gemm_desc d = problem(TP_DTYPE_E2M1);
  d.a.stride[0] = 36;
  d.b.stride[0] = 64;
  expect_on(&d, TP_BACKEND_CUDA, TP_ERR_UNSUPPORTED,
            "A: row stride 36 elements = 18 bytes is not a multiple of 16 bytes");
  d.a.stride[0] = 32;
  expect_on(&d, TP_BACKEND_CUDA, TP_OK, NULL);
  /* A single row's stride is never stepped over. */
  d = problem(TP_DTYPE_BF16);
  d.m = 1;
  d.a = tp_tensor_matrix(TP_DTYPE_BF16, 1, K, K + 2, NULL);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, 1, N, N + 1, NULL);
  expect_on(&d, TP_BACKEND_CUDA, TP_OK, NULL);
}
END_TEST

START_TEST(test_scale_tensor_rules) {
  static const char *const names[] = {"a_scale", "b_scale"};
  char want[160];
  for (int i = 0; i < 2; i++) {
    tp_gemm_desc d = problem(TP_DTYPE_E4M3);
    tp_tensor *s = i == 0 ? &d.a_scale : &d.b_scale;
    const tp_tensor valid = tp_tensor_matrix(TP_DTYPE_F32, 1, 8, 8, NULL);
    *s = valid;
    expect(&d, TP_OK, NULL);
    s->dtype = TP_DTYPE_COUNT;
    snprintf(want, sizeof want, "%s: dtype %d is not a tilepipe dtype", names[i],
             (int)TP_DTYPE_COUNT);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    s->dtype = (tp_dtype)-1;
    snprintf(want, sizeof want, "%s: dtype -1 is not a tilepipe dtype", names[i]);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    *s = valid;
    s->layout = (tp_layout)7;
    snprintf(want, sizeof want, "%s: layout 7 is not a tilepipe layout", names[i]);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    *s = valid;
    s->rank = 0;
    snprintf(want, sizeof want, "%s: rank 0 outside 1..%d", names[i], TP_MAX_RANK);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    s->rank = TP_MAX_RANK + 1;
    snprintf(want, sizeof want, "%s: rank %d outside 1..%d", names[i], TP_MAX_RANK + 1,
             TP_MAX_RANK);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    *s = valid;
    s->shape[1] = 0;
    snprintf(want, sizeof want, "%s: dimension 1 has size 0", names[i]);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    s->shape[1] = (int64_t)INT32_MAX + 1;
    snprintf(want, sizeof want, "%s: dimension 1 has size 2147483648", names[i]);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    *s = valid;
    s->stride[0] = -8;
    snprintf(want, sizeof want, "%s: dimension 0 has negative stride -8", names[i]);
    expect(&d, TP_ERR_INVALID_ARGUMENT, want);
    /* The tiled layout places every element itself: its strides are not read. */
    s->layout = TP_LAYOUT_SF_128X4;
    s->dtype = TP_DTYPE_UE8M0;
    expect(&d, TP_OK, NULL);
  }
}
END_TEST

START_TEST(test_bias_rules) {
  tp_gemm_desc d = problem(TP_DTYPE_BF16);
  d.bias = tp_tensor_vector(TP_DTYPE_BF16, N, NULL);
  expect(&d, TP_OK, NULL);
  d.bias = tp_tensor_matrix(TP_DTYPE_F32, 1, N, N, NULL); /* [1, N] */
  expect(&d, TP_OK, NULL);
  d.bias.stride[0] = -1;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "bias: negative row stride -1");
  d.bias = tp_tensor_vector(TP_DTYPE_BF16, N, NULL);
  d.bias.dtype = TP_DTYPE_COUNT;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "bias: dtype 10 is not a tilepipe dtype");
  d.bias = tp_tensor_vector(TP_DTYPE_E2M1, N, NULL);
  expect(&d, TP_ERR_UNSUPPORTED, "bias: packed e2m1 elements are not addressable one by one");
  d.bias = tp_tensor_matrix(TP_DTYPE_F32, 2, N, N, NULL);
  expect(&d, TP_ERR_INVALID_ARGUMENT,
         "bias must be a strided [N] vector or [1, N] matrix (got layout 0, rank 2, more than "
         "one row)");
  d.bias = tp_tensor_vector(TP_DTYPE_F32, N, NULL);
  d.bias.layout = TP_LAYOUT_SF_128X4;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "bias must be a strided [N] vector or [1, N] matrix (got "
                                      "layout 1, rank 1)");
  d.bias = tp_tensor_vector(TP_DTYPE_F32, N + 1, NULL);
  expect(&d, TP_ERR_INVALID_ARGUMENT, "bias has 9 elements but D has N = 8 columns");
  d.bias = tp_tensor_vector(TP_DTYPE_F32, N, NULL);
  d.bias.stride[0] = 2;
  expect(&d, TP_ERR_INVALID_ARGUMENT, "bias: stride 2 along N; it must be contiguous");
}
END_TEST

/* ------------------------------------------------------------ run time */

/* Buffers for a run: every tensor's own, 64-byte aligned, with room for
 * rows up to 16 elements apart. */
static _Alignas(64) unsigned char buf_a[M * 16 * 4], buf_b[N * 16 * 4], buf_c[M * 16 * 4],
    buf_d[M * 16 * 4], buf_bias[N * 4], buf_scale[64];

/* The planned problem with C and a bias, its pointers set. */
static tp_gemm_desc run_problem(void) {
  tp_gemm_desc d = problem_with_c(TP_DTYPE_BF16);
  d.a.data = buf_a;
  d.b.data = buf_b;
  d.c.data = buf_c;
  d.d.data = buf_d;
  d.bias = tp_tensor_vector(TP_DTYPE_F32, N, buf_bias);
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 8, 8, buf_scale);
  return d;
}

static void expect_run(const tp_gemm_desc *planned, const tp_gemm_desc *desc, tp_backend backend,
                       tp_status status, const char *needle) {
  expect_status(tp_gemm_check_run(planned, desc, backend), status, needle);
}

START_TEST(test_run_same_problem) {
  const tp_gemm_desc planned = run_problem();
  expect(&planned, TP_OK, NULL);
  tp_gemm_desc d = planned;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_OK, NULL);
  expect_run(&planned, &d, TP_BACKEND_CUDA, TP_OK, NULL);
  static const char changed[] = "run: M, N, K, alpha or beta differ from the plan's";
  d.k = K - 1;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, changed);
  d = planned;
  d.alpha = 2.0f;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, changed);
  d = planned;
  d.beta = 0.0f;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, changed);
  /* Each tensor: only its pointer may change. */
  struct { const char *name; tp_tensor *t; } tensors[] = {
      {"A", &d.a}, {"B", &d.b}, {"a_scale", &d.a_scale}, {"C", &d.c}, {"bias", &d.bias},
      {"D", &d.d}};
  char want[160];
  for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; i++) {
    d = planned;
    tensors[i].t->stride[0] += 8;
    snprintf(want, sizeof want, "run: %s differs from the plan's (only data pointers may change)",
             tensors[i].name);
    expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, want);
    d = planned;
    tensors[i].t->dtype = tensors[i].t->dtype == TP_DTYPE_F32 ? TP_DTYPE_F16 : TP_DTYPE_F32;
    expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, want);
  }
}
END_TEST

/* The planned problem run with tensor `member` (its offset in
 * tp_gemm_desc) pointing at data instead. */
static void expect_pointer(const tp_gemm_desc *planned, size_t member, void *data,
                           tp_backend backend, tp_status status, const char *needle) {
  tp_gemm_desc d = *planned;
  ((tp_tensor *)((char *)&d + member))->data = data;
  expect_run(planned, &d, backend, status, needle);
}

#define AT(field) offsetof(tp_gemm_desc, field)

START_TEST(test_run_pointers) {
  const tp_gemm_desc planned = run_problem();
  const tp_backend cpu = TP_BACKEND_CPU, cuda = TP_BACKEND_CUDA;
  const tp_status bad = TP_ERR_INVALID_ARGUMENT;
  expect_pointer(&planned, AT(b), NULL, cpu, bad, "run: B: data pointer is NULL");
  expect_pointer(&planned, AT(bias), NULL, cuda, bad, "run: bias: data pointer is NULL");
  /* The CPU needs each element's own alignment, CUDA 16 bytes. */
  expect_pointer(&planned, AT(d), buf_d + 2, cpu, bad, "is not 4-byte aligned");
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "run: D: data pointer"));
  expect_pointer(&planned, AT(a), buf_a + 2, cpu, TP_OK, NULL); /* bf16 */
  expect_pointer(&planned, AT(a), buf_a + 2, cuda, bad,
                 "is not 16-byte aligned (TMA needs 16-byte aligned addresses)");
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "run: A: data pointer"));
  expect_pointer(&planned, AT(a), buf_a + 16, cuda, TP_OK, NULL);
}
END_TEST

/* D is written while the inputs are read: no input may overlap it, except C
 * when it is D itself, with D's dtype and row stride (in-place accumulate). */
START_TEST(test_run_overlaps) {
  const tp_gemm_desc planned = run_problem();
  const tp_backend cpu = TP_BACKEND_CPU, cuda = TP_BACKEND_CUDA;
  const tp_status bad = TP_ERR_INVALID_ARGUMENT;
  expect_pointer(&planned, AT(a), buf_d, cpu, bad,
                 "run: D overlaps A in memory (only C may be D itself, same dtype and strides)");
  expect_pointer(&planned, AT(bias), buf_d + 4 * (N * M - 1), cpu, bad, /* D's last element */
                 "run: D overlaps bias");
  expect_pointer(&planned, AT(a_scale), buf_d + 16, cuda, bad, "run: D overlaps a_scale");
  /* Just past D's last element: no overlap. */
  expect_pointer(&planned, AT(bias), buf_d + 4 * N * M, cpu, TP_OK, NULL);

  /* C is D: in place. */
  tp_gemm_desc alias = planned;
  alias.c.data = alias.d.data;
  expect(&alias, TP_OK, NULL);
  expect_run(&alias, &alias, cpu, TP_OK, NULL);
  expect_run(&alias, &alias, cuda, TP_OK, NULL);
  /* C at D's address but rows of another stride: element (1, 0) of C is
   * not element (1, 0) of D, which the kernel may have written already. */
  alias = planned;
  alias.c.stride[0] = N + 4;
  alias.c.data = alias.d.data;
  expect(&alias, TP_OK, NULL);
  expect_run(&alias, &alias, cpu, bad, "run: D overlaps C");
  expect_run(&alias, &alias, cuda, bad, "run: D overlaps C");
  /* ... or another dtype at the same address. */
  alias = planned;
  alias.c.dtype = TP_DTYPE_BF16;
  alias.c.data = alias.d.data;
  expect_run(&alias, &alias, cpu, bad, "run: D overlaps C");
  /* ... or the same rows one element on. */
  alias = planned;
  alias.c.data = buf_d + 4;
  expect_run(&alias, &alias, cpu, bad, "run: D overlaps C");
}
END_TEST

int main(void) {
  Suite *s = suite_create("gemm_check");
  TCase *tc = tcase_create("limits");
  tcase_add_test(tc, test_huge_row_stride_is_too_large);
  tcase_add_test(tc, test_row_stride_bound);
  tcase_add_test(tc, test_span_past_int64_is_refused);
  suite_add_tcase(s, tc);
  tc = tcase_create("rules");
  tcase_add_test(tc, test_sizes_are_named);
  tcase_add_test(tc, test_matrix_rules);
  tcase_add_test(tc, test_packed_rows_whole_bytes);
  tcase_add_test(tc, test_cuda_rows_of_16_bytes);
  tcase_add_test(tc, test_scale_tensor_rules);
  tcase_add_test(tc, test_bias_rules);
  tcase_add_test(tc, test_run_same_problem);
  tcase_add_test(tc, test_run_pointers);
  tcase_add_test(tc, test_run_overlaps);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
