/* tests/test_tool_problem.c: the tool's problems with 16-byte rows
 * (tools/align_rows.h), against the reference library's problem from the
 * same seed.
 *
 * For every payload, dtype family, scale layout and C arrangement: each
 * strided tensor's row stride is a multiple of 16 bytes and at least its
 * row, the recorded buffer size is the tensor's span, every element holds
 * the same value as in the reference problem, every padding byte is still
 * 0xFF (NaN, so a kernel reading padding shows), D is 0xFF throughout,
 * tiled scale tensors are byte-for-byte the reference's, and C aliasing D
 * still aliases D. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tools/align_rows.h"

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
  if (t->layout == TP_LAYOUT_SF_128X4) {
    ck_assert_int_eq(al->bytes[i], rp->bytes[i]);
    ck_assert_msg(memcmp(al->buffer[i], rp->buffer[i], (size_t)al->bytes[i]) == 0,
                  "spec %d: tiled %s changed", spec, names[i]);
    return;
  }
  const size_t pitch = tp_dtype_bytes(t->dtype, t->stride[0]);
  const size_t row_bytes = tp_dtype_bytes(t->dtype, t->shape[1]);
  ck_assert_msg(pitch % 16 == 0, "spec %d: %s row stride is %zu bytes", spec, names[i], pitch);
  ck_assert_int_ge(t->stride[0], r->stride[0]);
  ck_assert_int_eq(t->shape[0], r->shape[0]);
  ck_assert_int_eq(t->shape[1], r->shape[1]);
  ck_assert_int_eq(tp_tensor_span_bytes(t), al->bytes[i]);
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

START_TEST(test_aligned_matches_reference) {
  const tp_ref_problem_spec *spec = &specs[_i];
  char err[256];
  tp_ref_problem al, rp;
  ck_assert_msg(tp_tool_problem_create(&al, spec, 42 + (uint64_t)_i, err, sizeof err) == TP_OK,
                "%s", err);
  ck_assert_msg(tp_ref_problem_create(&rp, spec, 42 + (uint64_t)_i, err, sizeof err) == TP_OK,
                "%s", err);
  for (int i = 0; i < TP_REF_TENSORS; i++) check_tensor(&al, &rp, i, _i);
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
  tp_ref_problem_spec spec = specs[0];
  spec.payload = "no_such_payload";
  char err[256] = "";
  tp_ref_problem p;
  ck_assert_int_eq(tp_tool_problem_create(&p, &spec, 1, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert(strstr(err, "no_such_payload") != NULL);
  for (int i = 0; i < TP_REF_TENSORS; i++) ck_assert_ptr_null(p.buffer[i]);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tool_problem");
  TCase *tc = tcase_create("align_rows");
  tcase_add_loop_test(tc, test_aligned_matches_reference, 0, NUM_SPECS);
  tcase_add_test(tc, test_refusal_leaves_empty_problem);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
