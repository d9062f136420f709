/* tests/test_seeded_fill.c: the seeded values (tools/seeded_values.h)
 * through the reference library's host fill (tp_ref_tensor_fill,
 * tilepipe/reference.h), which the benchmark's device generator matches,
 * without a GPU.
 *
 * The bits of element i are splitmix64's (i + 1)-th output from the key
 * (checked against splitmix64 as its authors wrote it); the
 * value formulas at their end points; each kind of value and dtype over many
 * elements: operands with mean 0 and variance 1 inside (-3, 3), exact odd
 * multiples of 2^-21, fp8 with subnormal and normal codes of both signs,
 * packed fp4 leaving the odd row's last high nibble alone, s8 over all 256
 * codes evenly; scales in their maps' ranges with every octave (and for
 * ue8m0 and ue4m3 every code) drawn, wide f32 scales over all 16 octaves
 * of 2^-8 .. 2^8. An element's value depends on its key and logical index
 * only: not on the row stride, the layout (strided or 128x4 tiled) or the
 * rank; bytes outside the elements stay as they were; keys differ by seed
 * and by stream. The device generator's roles (tools/seeded_role.h):
 * operands for A, B, C and the bias, each scale tensor its payload's
 * values (tests/problem_registry.h: blockwise_fp8's wide, but under an f16
 * D, block_scaled's by format, the per-row vectors of s8 operands), D and a
 * NaN C none; and a problem of the reference library holds, tensor by
 * tensor, the fill of its role's values under its stream's key. Values
 * are read back through the reference's own decoding tables
 * (tools/reference/codec.h), not the library's codec that wrote them. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/problem_registry.h"
#include "tilepipe/reference.h"
#include "tools/reference/codec.h"
#include "tools/seeded_role.h"

static const uint64_t KEY = 0x1234ABCDull;

/* The values the shipped payloads (and the row-scale fixture) describe:
 * operands; scales 2^[-2, 2) (f32, ue4m3) and 2^[-2, 2] (ue8m0); the wide
 * f32 scales 2^[-8, 8); the per-row vectors 2^[-12, -4). */
static const tp_seeded_values OPERANDS = {0, 0}, SCALE = {-2, 4}, UE8M0_SCALE = {-2, 5},
                              WIDE = {-8, 16}, ROWS = {-12, 8};

/* A host buffer of t's span, 0xFF throughout, as t's data. */
static void *buffer_for(tp_tensor *t) {
  const int64_t bytes = tp_tensor_span_bytes(t);
  ck_assert_int_gt(bytes, 0);
  void *p = malloc((size_t)bytes);
  ck_assert_ptr_nonnull(p);
  memset(p, 0xFF, (size_t)bytes);
  t->data = p;
  return p;
}

static float at(const tp_tensor *t, int64_t r, int64_t c) {
  return tp_ref_load(t->dtype, t->data, tp_ref_index(t, r, c));
}

/* t filled with `values` from key: operand values, or a scale map's. */
static void fill(const tp_tensor *t, tp_seeded_values values, uint64_t key) {
  const tp_scale_map map = {.rows = 1, .exp_min = values.exp_min, .exp_count = values.exp_count};
  tp_ref_tensor_fill(t, values.exp_count > 0 ? &map : NULL, key);
}

/* splitmix64 (Steele, Lea, Flood 2014) as its authors state it: a state
 * advanced by the golden gamma, then mixed. */
static uint64_t splitmix64_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

START_TEST(test_bits_are_splitmix64) {
  const uint64_t keys[] = {0, 1, KEY, tp_seeded_key(7, 3)};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    uint64_t state = keys[k];
    for (uint64_t i = 0; i < 1000; i++)
      ck_assert_uint_eq(tp_seeded_bits(keys[k], i), splitmix64_next(&state));
  }
  /* Keys: every seed and stream its own. */
  ck_assert_uint_ne(tp_seeded_key(1, 0), tp_seeded_key(1, 1));
  ck_assert_uint_ne(tp_seeded_key(1, 1), tp_seeded_key(2, 0));
  ck_assert_uint_ne(tp_seeded_key(1, 0), tp_seeded_key(2, 0));
  ck_assert_uint_eq(tp_seeded_key(5, 4), tp_seeded_key(5, 4));
}
END_TEST

START_TEST(test_value_end_points) {
  const float step = 0x1p-21f;
  /* The three 21-bit fields all 0, all ones; one field at its middle. */
  ck_assert_float_eq(tp_seeded_value(OPERANDS, TP_DTYPE_F32, 0), -3.0f + 3 * step);
  ck_assert_float_eq(tp_seeded_value(OPERANDS, TP_DTYPE_F32, (1ull << 63) - 1),
                     3.0f - 3 * step);
  ck_assert_float_eq(tp_seeded_value(OPERANDS, TP_DTYPE_F32, 0x100000ull << 21),
                     -2.0f + 3 * step);
  ck_assert_float_eq(tp_seeded_value(OPERANDS, TP_DTYPE_S8, 0), -128.0f);
  ck_assert_float_eq(tp_seeded_value(OPERANDS, TP_DTYPE_S8, ~0ull), 127.0f);
  /* Scales: the exponent from bits 32.., the mantissa from the low bits. */
  ck_assert_float_eq(tp_seeded_value(SCALE, TP_DTYPE_F32, 0), 0.25f);
  ck_assert_float_eq(tp_seeded_value(SCALE, TP_DTYPE_F32, (3ull << 32) | 0x7FFFFF),
                     2.0f * (2.0f - 0x1p-23f));
  ck_assert_float_eq(tp_seeded_value(SCALE, TP_DTYPE_UE4M3, (3ull << 32) | 7), 3.75f);
  ck_assert_float_eq(tp_seeded_value(UE8M0_SCALE, TP_DTYPE_UE8M0, (4ull << 32) | 7), 4.0f);
  ck_assert_float_eq(tp_seeded_value(ROWS, TP_DTYPE_F32, 0), 0x1p-12f);
  ck_assert_float_eq(tp_seeded_value(ROWS, TP_DTYPE_F32, 7ull << 32), 0x1p-5f);
  ck_assert_float_eq(tp_seeded_value(WIDE, TP_DTYPE_F32, 0), 0x1p-8f);
  ck_assert_float_eq(tp_seeded_value(WIDE, TP_DTYPE_F32, (15ull << 32) | 0x7FFFFF),
                     0x1p7f * (2.0f - 0x1p-23f));
  ck_assert_float_eq(tp_seeded_value(WIDE, TP_DTYPE_F32, 24ull << 32), 1.0f);
}
END_TEST

START_TEST(test_operands_f32) {
  enum { R = 1024, C = 1024 };
  tp_tensor t = tp_tensor_matrix(TP_DTYPE_F32, R, C, C, NULL);
  void *buf = buffer_for(&t);
  fill(&t, OPERANDS, KEY);
  double sum = 0, sum2 = 0, lo = 0, hi = 0;
  for (int64_t r = 0; r < R; r++)
    for (int64_t c = 0; c < C; c++) {
      const double x = at(&t, r, c), scaled = x * 0x1p21;
      ck_assert_msg(fabs(x) < 3.0 && scaled == floor(scaled) && fmod(fabs(scaled), 2.0) == 1.0,
                    "(%lld, %lld) = %.9g", (long long)r, (long long)c, x);
      sum += x;
      sum2 += x * x;
      lo = fmin(lo, x);
      hi = fmax(hi, x);
    }
  const double n = (double)R * C, mean = sum / n;
  ck_assert_double_le(fabs(mean), 0.005); /* 5 standard errors */
  ck_assert_double_eq_tol(sum2 / n - mean * mean, 1.0, 0.01);
  ck_assert_double_lt(lo, -2.5);
  ck_assert_double_gt(hi, 2.5);
  free(buf);
}
END_TEST

/* Codes of an 8-bit float operand: subnormal and normal, both signs, no NaN. */
static void check_fp8(tp_dtype dtype, unsigned mbits) {
  enum { R = 1000, C = 1000 };
  tp_tensor t = tp_tensor_matrix(dtype, R, C, C, NULL);
  unsigned char *buf = buffer_for(&t);
  fill(&t, OPERANDS, KEY);
  int subnormal = 0, normal = 0, negative = 0;
  for (int i = 0; i < R * C; i++) {
    const unsigned exp = (buf[i] & 0x7F) >> mbits, man = buf[i] & ((1u << mbits) - 1);
    ck_assert(!isnan(tp_ref_code_value(dtype, buf[i])));
    subnormal += exp == 0 && man != 0;
    normal += exp != 0;
    negative += buf[i] >> 7;
  }
  ck_assert_int_gt(subnormal, 0);
  ck_assert_int_gt(normal, R * C / 2);
  ck_assert_int_gt(negative, R * C / 2 - 5000); /* 10 standard deviations */
  ck_assert_int_lt(negative, R * C / 2 + 5000);
  free(buf);
}

START_TEST(test_operands_fp8) {
  check_fp8(TP_DTYPE_E4M3, 3); /* about 1% below 2^-6 */
  check_fp8(TP_DTYPE_E5M2, 2); /* about 5e-5 below 2^-14: some 50 of a million */
}
END_TEST

START_TEST(test_operands_s8_every_code) {
  enum { N = 256 * 1000 };
  tp_tensor t = tp_tensor_vector(TP_DTYPE_S8, N, NULL);
  unsigned char *buf = buffer_for(&t);
  fill(&t, OPERANDS, KEY);
  int count[256] = {0};
  for (int i = 0; i < N; i++) count[buf[i]]++;
  for (int c = 0; c < 256; c++)
    ck_assert_msg(count[c] > 700 && count[c] < 1300, "code %d: %d", c, count[c]);
  free(buf);
}
END_TEST

START_TEST(test_packed_fp4) {
  /* 75 elements a row: the last byte's high nibble is row padding. */
  tp_tensor t = tp_tensor_matrix(TP_DTYPE_E2M1, 33, 75, 80, NULL);
  unsigned char *buf = buffer_for(&t);
  fill(&t, OPERANDS, KEY);
  int zero = 0, three = 0;
  for (int64_t r = 0; r < 33; r++) {
    for (int64_t c = 0; c < 75; c++) {
      const float x = at(&t, r, c);
      const double want = tp_ref_code_value(
          TP_DTYPE_E2M1,
          tp_dtype_encode(TP_DTYPE_E2M1,
                          tp_seeded_value(OPERANDS, TP_DTYPE_E2M1,
                                          tp_seeded_bits(KEY, (uint64_t)(r * 75 + c)))));
      ck_assert_float_eq(x, (float)want);
      zero += x == 0.0f;
      three += fabsf(x) == 3.0f; /* the largest below the bell's end */
    }
    ck_assert_uint_eq(buf[r * 40 + 37] >> 4, 0xF);
    /* Whole padding bytes, but for the last row's (past the span). */
    for (int64_t byte = 38; byte < 40 && r < 32; byte++)
      ck_assert_uint_eq(buf[r * 40 + byte], 0xFF);
  }
  ck_assert_int_gt(zero, 0);
  ck_assert_int_gt(three, 0);
  free(buf);
}
END_TEST

/* Every element of t: all of [lo, hi], with each of `octaves` octaves from
 * lo drawn. */
static void check_range(const tp_tensor *t, double lo, double hi, int octaves) {
  int seen[64] = {0};
  const int64_t rows = t->rank == 1 ? 1 : t->shape[0],
                cols = t->rank == 1 ? t->shape[0] : t->shape[1];
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      const double x = t->rank == 1 ? tp_ref_load(t->dtype, t->data, c) : at(t, r, c);
      ck_assert_msg(x >= lo && x <= hi, "%s (%lld, %lld) = %g outside [%g, %g]",
                    tp_dtype_name(t->dtype), (long long)r, (long long)c, x, lo, hi);
      seen[(int)floor(log2(x / lo))]++;
    }
  for (int o = 0; o < octaves; o++)
    ck_assert_msg(seen[o] > 0, "octave %d of %s never drawn", o, tp_dtype_name(t->dtype));
}

START_TEST(test_scales) {
  tp_tensor f32 = tp_tensor_matrix(TP_DTYPE_F32, 64, 100, 104, NULL);
  void *b1 = buffer_for(&f32);
  fill(&f32, SCALE, KEY);
  check_range(&f32, 0.25, 4.0 - 0x1p-21, 4);
  fill(&f32, WIDE, KEY);
  check_range(&f32, 0x1p-8, 0x1p8 - 0x1p-16, 16);

  tp_tensor rows = tp_tensor_vector(TP_DTYPE_F32, 4096, NULL);
  void *b2 = buffer_for(&rows);
  fill(&rows, ROWS, KEY);
  check_range(&rows, 0x1p-12, 0x1p-4 - 0x1p-27, 8);

  /* ue8m0: exactly the codes of 2^-2 .. 2^2; ue4m3: all 32 of [0.25, 3.75]. */
  tp_tensor e8 = tp_tensor_sf_128x4(TP_DTYPE_UE8M0, 300, 9, NULL);
  void *b3 = buffer_for(&e8);
  fill(&e8, UE8M0_SCALE, KEY);
  check_range(&e8, 0.25, 4.0, 5);
  tp_tensor e4 = tp_tensor_sf_128x4(TP_DTYPE_UE4M3, 300, 9, NULL);
  unsigned char *b4 = buffer_for(&e4);
  fill(&e4, SCALE, KEY);
  check_range(&e4, 0.25, 3.75, 4);
  int codes[128] = {0};
  for (int64_t r = 0; r < 300; r++)
    for (int64_t c = 0; c < 9; c++) codes[b4[tp_ref_index(&e4, r, c)]]++;
  for (int code = 0; code < 128; code++) {
    const double x = tp_ref_code_value(TP_DTYPE_UE4M3, (uint32_t)code);
    ck_assert_msg((codes[code] > 0) == (x >= 0.25 && x <= 3.75), "ue4m3 code %d (%g): %d", code, x,
                  codes[code]);
  }
  free(b1);
  free(b2);
  free(b3);
  free(b4);
}
END_TEST

START_TEST(test_values_follow_the_logical_index) {
  /* The same [37, 75] of bf16 packed and with padded rows; [1, n] as a
   * vector; ue8m0 scales strided and tiled. */
  tp_tensor packed = tp_tensor_matrix(TP_DTYPE_BF16, 37, 75, 75, NULL);
  tp_tensor padded = tp_tensor_matrix(TP_DTYPE_BF16, 37, 75, 80, NULL);
  void *b1 = buffer_for(&packed), *b2 = buffer_for(&padded);
  fill(&packed, OPERANDS, KEY);
  fill(&padded, OPERANDS, KEY);
  for (int64_t r = 0; r < 37; r++) {
    for (int64_t c = 0; c < 75; c++) ck_assert_float_eq(at(&packed, r, c), at(&padded, r, c));
    for (int64_t c = 75; c < 80 && r < 36; c++)
      ck_assert_uint_eq(((uint16_t *)b2)[r * 80 + c], 0xFFFF);
  }
  tp_tensor row = tp_tensor_matrix(TP_DTYPE_F32, 1, 300, 300, NULL);
  tp_tensor vec = tp_tensor_vector(TP_DTYPE_F32, 300, NULL);
  void *b3 = buffer_for(&row), *b4 = buffer_for(&vec);
  fill(&row, ROWS, KEY);
  fill(&vec, ROWS, KEY);
  ck_assert_mem_eq(b3, b4, 300 * sizeof(float));
  tp_tensor strided = tp_tensor_matrix(TP_DTYPE_UE8M0, 131, 5, 5, NULL);
  tp_tensor tiled = tp_tensor_sf_128x4(TP_DTYPE_UE8M0, 131, 5, NULL);
  unsigned char *b5 = buffer_for(&strided), *b6 = buffer_for(&tiled);
  fill(&strided, UE8M0_SCALE, KEY);
  fill(&tiled, UE8M0_SCALE, KEY);
  int64_t written = 0;
  for (int64_t r = 0; r < 131; r++)
    for (int64_t c = 0; c < 5; c++) ck_assert_float_eq(at(&strided, r, c), at(&tiled, r, c));
  /* The tiled span: 2 x 2 atoms of 512 bytes; only the 131 x 5 elements
   * are written (no scale is 0xFF, a NaN). */
  for (int64_t i = 0; i < tp_tensor_span_bytes(&tiled); i++) written += b6[i] != 0xFF;
  ck_assert_int_eq(written, 131 * 5);
  /* Another key, other values. */
  fill(&packed, OPERANDS, KEY + 1);
  int same = 0;
  for (int64_t c = 0; c < 75; c++) same += at(&packed, 0, c) == at(&padded, 0, c);
  ck_assert_int_lt(same, 10);
  free(b1);
  free(b2);
  free(b3);
  free(b4);
  free(b5);
  free(b6);
}
END_TEST

/* tp_problem at M x N x K of payload section `payload`, A and B `ab`,
 * D `d`. */
static tp_problem described(const char *payload, tp_dtype ab, tp_dtype d) {
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, 70, 40, 96);
  desc.a.dtype = desc.b.dtype = ab;
  desc.d.dtype = d;
  tp_problem p = {.struct_size = sizeof p};
  ck_assert(tp_test_problem_registry() != NULL);
  ck_assert_msg(tp_problem_describe(tp_test_problem_registry(), payload, NULL, &desc, &p) ==
                    TP_OK,
                "%s", tp_error_message());
  return p;
}

static void expect_values(const tp_problem *p, tp_ref_tensor which, tp_seeded_values want) {
  tp_seeded_values got = {99, 99};
  ck_assert_int_eq(tp_seeded_role(p, 0, which, &got), 1);
  ck_assert_int_eq(got.exp_min, want.exp_min);
  ck_assert_int_eq(got.exp_count, want.exp_count);
}

START_TEST(test_problem_roles) {
  /* The payloads' values are the ones the fills above are checked with. */
  const tp_problem rows = described(TP_TEST_ROW_SCALES, TP_DTYPE_S8, TP_DTYPE_BF16);
  const tp_ref_tensor inputs[] = {TP_REF_A, TP_REF_B, TP_REF_C, TP_REF_BIAS};
  for (size_t i = 0; i < 4; i++) expect_values(&rows, inputs[i], OPERANDS);
  expect_values(&rows, TP_REF_A_SCALE, ROWS);
  expect_values(&rows, TP_REF_B_SCALE, ROWS);
  tp_seeded_values v;
  ck_assert_int_eq(tp_seeded_role(&rows, 0, TP_REF_D, &v), 0);
  const tp_problem wide = described("blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_BF16);
  expect_values(&wide, TP_REF_A_SCALE, WIDE);
  expect_values(&wide, TP_REF_B_SCALE, WIDE);
  /* The wide scales' products would overflow f16. */
  const tp_problem f16 = described("blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_F16);
  expect_values(&f16, TP_REF_B_SCALE, SCALE);
  const tp_problem mxfp8 = described("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_BF16);
  expect_values(&mxfp8, TP_REF_A_SCALE, UE8M0_SCALE);
  const tp_problem nvfp4 = described("block_scaled", TP_DTYPE_E2M1, TP_DTYPE_BF16);
  expect_values(&nvfp4, TP_REF_B_SCALE, SCALE);
  ck_assert_int_eq(tp_seeded_role(&rows, 1, TP_REF_C, &v), 0);

  /* A block-scaled problem with a bias: each input is its role's fill
   * under its stream's key, D stays 0xFF. */
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec,
                                    .registry = tp_test_problem_registry(),
                                    .payload = "block_scaled", .a = TP_DTYPE_E4M3,
                                    .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16, .c = TP_DTYPE_BF16,
                                    .bias = TP_DTYPE_F32, .sf_layout = TP_LAYOUT_SF_128X4,
                                    .m = 70, .n = 40, .k = 96, .pad = 3, .alpha = 1, .beta = 1};
  tp_ref_problem *p;
  char err[1024];
  ck_assert_msg(tp_ref_problem_create(&p, &spec, 9, err, sizeof err) == TP_OK, "%s", err);
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    tp_tensor copy = *tp_ref_desc_tensor(tp_ref_problem_desc(p), (tp_ref_tensor)i);
    int64_t bytes;
    const void *got = tp_ref_problem_buffer(p, (tp_ref_tensor)i, &bytes);
    ck_assert_ptr_nonnull(got);
    void *want = buffer_for(&copy);
    if (tp_seeded_role(tp_ref_problem_description(p), 0, (tp_ref_tensor)i, &v))
      fill(&copy, v, tp_seeded_key(9, (uint64_t)i));
    else
      ck_assert_int_eq(i, TP_REF_D);
    ck_assert_mem_eq(got, want, (size_t)bytes);
    free(want);
  }
  tp_ref_problem_destroy(p);
}
END_TEST

int main(void) {
  Suite *s = suite_create("seeded_fill");
  TCase *tc = tcase_create("host");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_bits_are_splitmix64);
  tcase_add_test(tc, test_value_end_points);
  tcase_add_test(tc, test_operands_f32);
  tcase_add_test(tc, test_operands_fp8);
  tcase_add_test(tc, test_operands_s8_every_code);
  tcase_add_test(tc, test_packed_fp4);
  tcase_add_test(tc, test_scales);
  tcase_add_test(tc, test_values_follow_the_logical_index);
  tcase_add_test(tc, test_problem_roles);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
