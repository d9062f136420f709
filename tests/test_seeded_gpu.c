/* tests/test_seeded_gpu.c: the benchmark's device input generator
 * (tools/seeded_device.h) against the reference library's host fill
 * (tp_ref_tensor_fill, tilepipe/reference.h), bit for bit.
 *
 * One small tensor of every dtype and kind of values the benchmark's
 * problems hold (f32, bf16, f16, e4m3, e5m2, packed e2m1 with an odd row,
 * s8 operands; f32, wide f32, ue8m0 and ue4m3 scales, strided and 128x4
 * tiled; f32 row scales as a vector), rows padded: the device buffer and
 * the host buffer both start as 0xFF and must come out identical over the
 * whole span, padding included. Two more cover the launch's strides: more
 * rows than a grid's y (65535) and a row longer than a launch's threads
 * across. Then whole problems (tools/seeded_problem.h) of each shipped
 * payload and the row-scale fixture (tests/problem_registry.h) against the
 * reference library's tp_ref_problem_create of the same spec and seed,
 * buffer by buffer (the device's whole scale rows past the host's span
 * still 0xFF); the dequantization to bf16 (tp_seeded_device_dequantize)
 * of block_scaled's problems, judged by the reference library: its f64
 * GEMM of the dequantized operands, unscaled, equals its GEMM of the
 * scaled problem (every product exact both ways); and the refusals of
 * tensors the kernels cannot address. Exits 77 without a
 * usable GPU. Runs without fork (CUDA cannot be used in a child forked
 * after cuInit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/problem_registry.h"
#include "tilepipe/device.h"
#include "tilepipe/reference.h"
#include "tools/seeded_device.h"
#include "tools/seeded_problem.h"

static tp_seeded_device *gen;

/* Operand values, and the scale values of the payloads' maps (as
 * tests/test_seeded_fill.c checks them on the host). */
static const tp_seeded_values OPERANDS = {0, 0}, SCALE = {-2, 4}, UE8M0_SCALE = {-2, 5},
                              WIDE = {-8, 16}, ROWS = {-12, 8};

/* The first byte where two buffers differ, -1 when none. */
static int64_t first_difference(const unsigned char *a, const unsigned char *b, int64_t bytes) {
  for (int64_t i = 0; i < bytes; i++)
    if (a[i] != b[i]) return i;
  return -1;
}

/* t's shape and layout filled on the device and on the host. */
static void check_tensor(tp_tensor t, tp_seeded_values values, uint64_t key) {
  char err[256] = "";
  const int64_t bytes = tp_tensor_span_bytes(&t);
  ck_assert_int_gt(bytes, 0);
  unsigned char *host = malloc((size_t)bytes), *back = malloc((size_t)bytes);
  ck_assert(host && back);
  memset(host, 0xFF, (size_t)bytes);
  void *dev = NULL;
  ck_assert_msg(tp_device_alloc(&dev, (size_t)bytes) == TP_OK, "%s", tp_error_message());
  ck_assert_msg(tp_device_memset(dev, 0xFF, (size_t)bytes) == TP_OK, "%s", tp_error_message());
  tp_tensor on_device = t;
  on_device.data = dev;
  ck_assert_msg(tp_seeded_device_fill(gen, &on_device, values, key, err, sizeof err) == TP_OK,
                "%s", err);
  ck_assert_msg(tp_device_copy_from(back, dev, (size_t)bytes) == TP_OK, "%s", tp_error_message());
  t.data = host;
  const tp_scale_map map = {.rows = 1, .exp_min = values.exp_min, .exp_count = values.exp_count};
  tp_ref_tensor_fill(&t, values.exp_count > 0 ? &map : NULL, key);
  const int64_t at = first_difference(host, back, bytes);
  ck_assert_msg(at < 0,
                "%s values 2^[%d, +%d) [%lld x %lld]: byte %lld of %lld: device 0x%02x, "
                "host 0x%02x",
                tp_dtype_name(t.dtype), values.exp_min, values.exp_count, (long long)t.shape[0],
                (long long)(t.rank == 2 ? t.shape[1] : 1), (long long)at, (long long)bytes,
                at < 0 ? 0 : back[at], at < 0 ? 0 : host[at]);
  tp_device_free(dev);
  free(host);
  free(back);
}

START_TEST(test_every_dtype) {
  const tp_dtype operands[] = {TP_DTYPE_F32,  TP_DTYPE_BF16, TP_DTYPE_F16,
                               TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_S8};
  for (size_t i = 0; i < sizeof operands / sizeof operands[0]; i++)
    check_tensor(tp_tensor_matrix(operands[i], 37, 75, 80, NULL), OPERANDS, 11 + i);
  check_tensor(tp_tensor_matrix(TP_DTYPE_E2M1, 33, 75, 80, NULL), OPERANDS, 21);
  check_tensor(tp_tensor_matrix(TP_DTYPE_F32, 9, 33, 36, NULL), SCALE, 22);
  check_tensor(tp_tensor_matrix(TP_DTYPE_F32, 33, 9, 12, NULL), WIDE, 28);
  check_tensor(tp_tensor_matrix(TP_DTYPE_UE8M0, 40, 6, 16, NULL), UE8M0_SCALE, 23);
  check_tensor(tp_tensor_sf_128x4(TP_DTYPE_UE8M0, 131, 5, NULL), UE8M0_SCALE, 24);
  check_tensor(tp_tensor_sf_128x4(TP_DTYPE_UE4M3, 300, 7, NULL), SCALE, 25);
  check_tensor(tp_tensor_vector(TP_DTYPE_F32, 1000, NULL), ROWS, 26);
  check_tensor(tp_tensor_matrix(TP_DTYPE_F32, 1, 500, 500, NULL), ROWS, 27);
}
END_TEST

START_TEST(test_launch_strides) {
  check_tensor(tp_tensor_matrix(TP_DTYPE_E4M3, 70000, 3, 16, NULL), OPERANDS, 31);
  check_tensor(tp_tensor_vector(TP_DTYPE_S8, 300001, NULL), OPERANDS, 32);
}
END_TEST

/* A problem made on the device against the same problem made on the host. */
static void check_problem(tp_ref_problem_spec spec, uint64_t seed) {
  char err[1024] = "";
  spec.struct_size = sizeof spec;
  spec.registry = tp_test_problem_registry();
  spec.align_rows = 1;
  ck_assert(spec.registry != NULL);
  tp_seeded_problem dev;
  ck_assert_msg(tp_seeded_problem_create(&dev, gen, &spec, seed, err, sizeof err) == TP_OK, "%s",
                err);
  tp_ref_problem *host;
  ck_assert_msg(tp_ref_problem_create(&host, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    int64_t bytes;
    const unsigned char *want = tp_ref_problem_buffer(host, (tp_ref_tensor)i, &bytes);
    ck_assert_int_eq(dev.buffer[i] == NULL, want == NULL);
    if (want == NULL) continue;
    ck_assert_int_ge(dev.bytes[i], bytes);
    unsigned char *back = malloc((size_t)dev.bytes[i]);
    ck_assert_ptr_nonnull(back);
    ck_assert(tp_device_copy_from(back, dev.buffer[i], (size_t)dev.bytes[i]) == TP_OK);
    const int64_t at = first_difference(want, back, bytes);
    ck_assert_msg(at < 0, "%s: tensor %d differs at byte %lld", spec.payload, i, (long long)at);
    for (int64_t b = bytes; b < dev.bytes[i]; b++)
      ck_assert_msg(back[b] == 0xFF, "%s: tensor %d's byte %lld past the host's span", spec.payload,
                    i, (long long)b);
    free(back);
  }
  tp_ref_problem_destroy(host);
  tp_seeded_problem_destroy(&dev);
}

START_TEST(test_problems) {
  const tp_ref_problem_spec base = {.m = 70, .n = 40, .k = 96, .pad = 3, .alpha = 1};
  tp_ref_problem_spec s = base;
  s.payload = "standard";
  s.a = s.b = TP_DTYPE_BF16;
  s.d = s.c = TP_DTYPE_BF16;
  s.beta = 1;
  check_problem(s, 1);
  s = base;
  s.payload = "blockwise_fp8";
  s.a = s.b = TP_DTYPE_E4M3;
  s.d = TP_DTYPE_BF16;
  s.k = 300;
  check_problem(s, 2); /* wide scales */
  s.d = TP_DTYPE_F16;
  check_problem(s, 6); /* narrow ones */
  s = base;
  s.payload = "block_scaled";
  s.a = s.b = TP_DTYPE_E5M2;
  s.d = TP_DTYPE_F32;
  s.sf_layout = TP_LAYOUT_SF_128X4;
  check_problem(s, 3);
  s.a = s.b = TP_DTYPE_E2M1; /* NVFP4: ue4m3 scales */
  s.sf_layout = TP_LAYOUT_STRIDED;
  check_problem(s, 4);
  s = base;
  s.payload = TP_TEST_ROW_SCALES;
  s.a = s.b = TP_DTYPE_S8;
  s.d = TP_DTYPE_F16;
  check_problem(s, 5);
}
END_TEST

/* Operand `which` of the device problem dev dequantized, copied back into
 * a host bf16 [rows, k] tensor (data malloc'd). */
static tp_tensor dequantized(const tp_seeded_problem *dev, int which) {
  const int a = which == TP_REF_A;
  const tp_gemm_desc *d = &dev->desc;
  const int64_t rows = a ? d->m : d->n;
  const tp_scale_map map = a ? dev->problem.a_scale : dev->problem.b_scale;
  void *out = NULL;
  char err[256] = "";
  ck_assert(tp_device_alloc(&out, (size_t)(rows * d->k * 2)) == TP_OK);
  ck_assert_msg(tp_seeded_device_dequantize(gen, a ? &d->a : &d->b,
                                            map.rows > 0 ? (a ? &d->a_scale : &d->b_scale) : NULL,
                                            map, out, err, sizeof err) == TP_OK,
                "%s", err);
  tp_tensor t =
      tp_tensor_matrix(TP_DTYPE_BF16, rows, d->k, d->k, malloc((size_t)(rows * d->k * 2)));
  ck_assert_ptr_nonnull(t.data);
  ck_assert(tp_device_copy_from(t.data, out, (size_t)(rows * d->k * 2)) == TP_OK);
  tp_device_free(out);
  return t;
}

/* spec's problem made on the device and dequantized there: the reference
 * GEMM of the bf16 operands equals the scaled problem's, element by
 * element (f64 sums of exact products: within a few ulps of their
 * magnitude). */
static void check_dequantize(tp_ref_problem_spec spec, uint64_t seed) {
  char err[1024] = "";
  spec.struct_size = sizeof spec;
  spec.registry = tp_test_problem_registry();
  spec.align_rows = 1;
  spec.payload = "block_scaled";
  spec.d = TP_DTYPE_F32;
  spec.alpha = 1;
  tp_seeded_problem dev;
  ck_assert_msg(tp_seeded_problem_create(&dev, gen, &spec, seed, err, sizeof err) == TP_OK, "%s",
                err);
  tp_ref_problem *host;
  ck_assert_msg(tp_ref_problem_create(&host, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  const tp_gemm_desc *scaled = tp_ref_problem_desc(host);
  const int64_t cells = scaled->m * scaled->n;
  double *want = malloc((size_t)cells * sizeof *want), *mag = malloc((size_t)cells * sizeof *mag);
  double *got = malloc((size_t)cells * sizeof *got), *mag2 = malloc((size_t)cells * sizeof *mag2);
  ck_assert(want && mag && got && mag2);
  ck_assert_msg(tp_ref_gemm(scaled, tp_ref_problem_description(host), TP_REF_STORE, want, mag,
                            err, sizeof err) == TP_OK,
                "%s", err);
  tp_gemm_desc plain = *scaled;
  plain.a = dequantized(&dev, TP_REF_A);
  plain.b = dequantized(&dev, TP_REF_B);
  plain.a_scale = plain.b_scale = (tp_tensor){.dtype = TP_DTYPE_NONE};
  tp_problem unscaled = *tp_ref_problem_description(host);
  unscaled.a_scale = unscaled.b_scale = (tp_scale_map){0};
  ck_assert_msg(tp_ref_gemm(&plain, &unscaled, TP_REF_STORE, got, mag2, err, sizeof err) == TP_OK,
                "%s", err);
  for (int64_t i = 0; i < cells; i++)
    ck_assert_msg(fabs(got[i] - want[i]) <= 1e-12 * mag[i], "%s x %s: D[%lld] %.17g, want %.17g",
                  tp_dtype_name(spec.a), tp_dtype_name(spec.b), (long long)i, got[i], want[i]);
  free(plain.a.data);
  free(plain.b.data);
  free(want);
  free(mag);
  free(got);
  free(mag2);
  tp_ref_problem_destroy(host);
  tp_seeded_problem_destroy(&dev);
}

START_TEST(test_dequantize) {
  const tp_ref_problem_spec base = {.m = 70, .n = 130, .k = 96, .pad = 3};
  tp_ref_problem_spec s = base;
  s.a = TP_DTYPE_E4M3; /* MXFP8 W8A8, tiled */
  s.b = TP_DTYPE_E5M2;
  s.sf_layout = TP_LAYOUT_SF_128X4;
  check_dequantize(s, 11);
  s.sf_layout = TP_LAYOUT_STRIDED;
  check_dequantize(s, 12);
  s.a = TP_DTYPE_BF16; /* MXFP8 W8A16: A unscaled */
  s.b = TP_DTYPE_E4M3;
  check_dequantize(s, 13);
  s = base; /* NVFP4: packed e2m1, ue4m3 per 16 */
  s.a = s.b = TP_DTYPE_E2M1;
  s.k = 160;
  check_dequantize(s, 14);
}
END_TEST

START_TEST(test_refusals) {
  char err[256] = "";
  void *dev = NULL;
  ck_assert(tp_device_alloc(&dev, 4096) == TP_OK);
  tp_tensor odd = tp_tensor_matrix(TP_DTYPE_E2M1, 4, 5, 5, dev);
  ck_assert_int_eq(tp_seeded_device_fill(gen, &odd, OPERANDS, 1, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "even row stride") != NULL, "%s", err);
  tp_tensor tiled = tp_tensor_sf_128x4(TP_DTYPE_F32, 4, 4, dev);
  ck_assert_int_eq(tp_seeded_device_fill(gen, &tiled, SCALE, 1, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  tp_tensor no_data = tp_tensor_matrix(TP_DTYPE_F32, 4, 4, 4, NULL);
  ck_assert_int_eq(tp_seeded_device_fill(gen, &no_data, OPERANDS, 1, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "cannot fill a f32 tensor") != NULL, "%s", err);
  ck_assert_int_eq(tp_seeded_device_dequantize(gen, &tiled, NULL, (tp_scale_map){0}, dev, err,
                                               sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(err, "dequantize: cannot address") != NULL, "%s", err);
  tp_device_free(dev);
}
END_TEST

int main(void) {
  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    printf("SKIP: no usable GPU: %s\n", tp_error_message());
    return 77;
  }
  char err[256];
  if (tp_seeded_device_open(&gen, err, sizeof err) != TP_OK) {
    printf("FAIL: %s\n", err);
    return 1;
  }
  Suite *s = suite_create("seeded_gpu");
  TCase *tc = tcase_create("device");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_every_dtype);
  tcase_add_test(tc, test_launch_strides);
  tcase_add_test(tc, test_problems);
  tcase_add_test(tc, test_dequantize);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tp_seeded_device_close(gen);
  return failed == 0 ? 0 : 1;
}
