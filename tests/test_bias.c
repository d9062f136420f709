/* tests/test_bias.c: the per-column bias operand of tp_gemm_desc.
 *
 * - The core's generic rules (core/gemm_check.c), called directly: at plan
 *   time the shape ([N] or [1, N]), contiguity and dtype; at run time the
 *   pointer (present, aligned as every operand on each backend), no overlap
 *   with D, and the same bias as planned.
 * - The shipped epilogues, store and residual, refuse a bias they would
 *   ignore (through tp_plan_create on the build tree's registry). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "core/gemm_check.h"
#include "tests/registry_util.h"
#include "tilepipe/tilepipe.h"

enum { M = 100, N = 300, K = 64 };

/* Host buffers a valid bf16 problem with an f32 bias points at; the check
 * reads only the pointers, never the data. */
static _Alignas(64) uint16_t a_buf[M * K], b_buf[N * K];
static _Alignas(64) float d_buf[M * N], bias_buf[N + 8];

static tp_gemm_desc problem(void) {
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, M, N, K);
  d.a = tp_tensor_matrix(TP_DTYPE_BF16, M, K, K, a_buf);
  d.b = tp_tensor_matrix(TP_DTYPE_BF16, N, K, K, b_buf);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, d_buf);
  d.bias = tp_tensor_vector(TP_DTYPE_F32, N, bias_buf);
  return d;
}

/* tp_gemm_check_desc's status on d for backend, and its message holds needle. */
static void expect_desc(const tp_gemm_desc *d, tp_backend backend, tp_status status,
                        const char *needle) {
  tp_status st = tp_gemm_check_desc(d, backend);
  ck_assert_msg(st == status, "status '%s', expected '%s' (%s)", tp_status_string(st),
                tp_status_string(status), tp_error_message());
  if (needle) TU_ASSERT_HAS(tp_error_message(), needle);
}

static void expect_run(const tp_gemm_desc *planned, const tp_gemm_desc *d, tp_backend backend,
                       tp_status status, const char *needle) {
  tp_status st = tp_gemm_check_run(planned, d, backend);
  ck_assert_msg(st == status, "status '%s', expected '%s' (%s)", tp_status_string(st),
                tp_status_string(status), tp_error_message());
  if (needle) TU_ASSERT_HAS(tp_error_message(), needle);
}

START_TEST(test_plan_time_shape) {
  tp_gemm_desc d = problem();
  ck_assert_int_eq(d.bias.rank, 1);
  ck_assert_int_eq(d.bias.stride[0], 1);
  expect_desc(&d, TP_BACKEND_CPU, TP_OK, NULL);
  expect_desc(&d, TP_BACKEND_CUDA, TP_OK, NULL);
  /* [1, N], its row stride unused (a broadcast view's 0 included). */
  d.bias = tp_tensor_matrix(TP_DTYPE_BF16, 1, N, N, bias_buf);
  expect_desc(&d, TP_BACKEND_CPU, TP_OK, NULL);
  d.bias.stride[0] = 0;
  expect_desc(&d, TP_BACKEND_CPU, TP_OK, NULL);
  d.bias.stride[0] = -1;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias: negative row stride -1");

  d = problem();
  d.bias.shape[0] = N + 1;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias has 301 elements but D has N = 300");
  d = problem();
  d.bias = tp_tensor_matrix(TP_DTYPE_F32, 1, M, M, bias_buf);
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias has 100 elements");
  d = problem();
  d.bias.stride[0] = 2;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "stride 2 along N");
  d = problem();
  d.bias = tp_tensor_matrix(TP_DTYPE_F32, 2, N, N, bias_buf);
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "more than one row");
  d = problem();
  d.bias.rank = 3;
  d.bias.shape[1] = d.bias.shape[2] = 1;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "rank 3");
  d = problem();
  d.bias.layout = TP_LAYOUT_SF_128X4;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "layout 1");
}
END_TEST

START_TEST(test_plan_time_dtype) {
  tp_gemm_desc d = problem();
  d.bias.dtype = (tp_dtype)TP_DTYPE_COUNT;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "is not a tilepipe dtype");
  d.bias.dtype = (tp_dtype)-3;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias: dtype -3");
  d.bias.dtype = TP_DTYPE_E2M1;
  expect_desc(&d, TP_BACKEND_CPU, TP_ERR_UNSUPPORTED, "packed e2m1");
  /* Which 8-bit or wider dtypes are fine is each epilogue's rule. */
  d.bias.dtype = TP_DTYPE_E4M3;
  expect_desc(&d, TP_BACKEND_CPU, TP_OK, NULL);
  /* Absent is absent, whatever the other fields hold. */
  d.bias.dtype = TP_DTYPE_NONE;
  d.bias.rank = 7;
  expect_desc(&d, TP_BACKEND_CPU, TP_OK, NULL);
}
END_TEST

START_TEST(test_run_time) {
  const tp_gemm_desc planned = problem();
  tp_gemm_desc d = planned;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_OK, NULL);
  d.bias.data = NULL;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias: data pointer is NULL");
  /* f32 needs 4-byte alignment on the CPU, 16 bytes on the GPU. */
  d.bias.data = (char *)bias_buf + 2;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "not 4-byte aligned");
  d.bias.data = bias_buf + 1;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_OK, NULL);
  expect_run(&planned, &d, TP_BACKEND_CUDA, TP_ERR_INVALID_ARGUMENT, "not 16-byte aligned");
  /* The bias lives in D's buffer: refused, D is being written. */
  d.bias.data = d_buf + 3 * N;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "D overlaps bias");
  /* Only the pointer may change between plan and run. */
  d = planned;
  d.bias.dtype = TP_DTYPE_BF16;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias differs from the plan's");
  d = planned;
  d.bias.dtype = TP_DTYPE_NONE;
  expect_run(&planned, &d, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT, "bias differs from the plan's");
  tp_gemm_desc without = planned;
  without.bias.dtype = TP_DTYPE_NONE;
  expect_run(&without, &planned, TP_BACKEND_CPU, TP_ERR_INVALID_ARGUMENT,
             "bias differs from the plan's");
}
END_TEST

/* ------------------------------------------------------------- epilogues */

/* tp_plan_create(payload x epilogue, d) on the CPU fails with status and a
 * message holding both needles. */
static void expect_refused(tp_registry *reg, const char *payload, const char *epilogue,
                           const tp_gemm_desc *d, tp_status status, const char *needle,
                           const char *needle2) {
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, payload, epilogue, d, TP_BACKEND_CPU);
  ck_assert_msg(st == status, "%s x %s: status '%s', expected '%s' (%s)", payload, epilogue,
                tp_status_string(st), tp_status_string(status), tp_error_message());
  ck_assert_ptr_null(plan);
  TU_ASSERT_HAS(tp_error_message(), needle);
  if (needle2) TU_ASSERT_HAS(tp_error_message(), needle2);
}

START_TEST(test_shipped_epilogues_refuse_bias) {
  tp_registry *reg;
  ck_assert_msg(tp_registry_open(&reg, TP_TEST_REGISTRY) == TP_OK, "%s", tp_error_message());
  tp_gemm_desc d = problem();
  expect_refused(reg, "standard", "store", &d, TP_ERR_INVALID_ARGUMENT, "epilogue 'store'",
                 "a bias is given");
  d.c = d.d;
  d.beta = 1.0f;
  expect_refused(reg, "standard", "residual", &d, TP_ERR_INVALID_ARGUMENT, "epilogue 'residual'",
                 "a bias is given");
  /* The same problems without the bias plan. */
  for (int i = 0; i < 2; i++) {
    d = problem();
    d.bias.dtype = TP_DTYPE_NONE;
    tp_plan *plan = NULL;
    ck_assert_msg(tp_plan_create(&plan, reg, "standard", i ? "residual" : "store", &d,
                                 TP_BACKEND_CPU) == TP_OK,
                  "%s", tp_error_message());
    tp_plan_destroy(plan);
  }
  tp_registry_close(reg);
}
END_TEST

static Suite *bias_suite(void) {
  Suite *s = suite_create("bias");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_plan_time_shape);
  tcase_add_test(tc, test_plan_time_dtype);
  tcase_add_test(tc, test_run_time);
  suite_add_tcase(s, tc);
  tc = tcase_create("epilogues");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  tcase_add_test(tc, test_shipped_epilogues_refuse_bias);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(bias_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}
