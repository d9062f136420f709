/* tests/test_gemm_desc.c: tp_gemm_desc versioned by its struct_size
 * (tilepipe/gemm.h), through the entry points that take one.
 *
 * (tests/test_dtype.c checks that tp_gemm_desc_init sets it to sizeof.)
 * - tp_plan_create, tp_plan_run and tp_link_check refuse a NULL
 *   descriptor, a struct_size of 0 (a descriptor that skipped
 *   tp_gemm_desc_init) and one below the first version, each with a
 *   message that names the problem (tp_cache_warm's array of them:
 *   tests/test_warm.c).
 * - A descriptor of a newer caller (larger, with fields this library does
 *   not know after the ones it does) plans and runs as one of sizeof: an
 *   exact bf16 GEMM (small integers, f32 D) against its f64 sum.
 * - Plugins are handed the core's full-size copy (fixture_desc_size reports
 *   the struct_size it was given). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "core/gemm_desc.h"
#include "tests/registry_util.h"
#include "tilepipe/tilepipe.h"

enum { M = 19, N = 24, K = 64 };

static _Alignas(64) uint16_t a_buf[M * K], b_buf[N * K];
static _Alignas(64) float d_buf[M * N];

/* A descriptor of a caller built against a newer tilepipe: this library's
 * fields, then fields it does not know. */
typedef struct newer_desc {
  tp_gemm_desc known;
  unsigned char unknown[40];
} newer_desc;

/* bf16 A and B of small integers (exact in bf16, and their products and
 * sums of 64 exact in f32), D f32. */
static tp_gemm_desc problem(void) {
  for (int i = 0; i < M * K; i++) a_buf[i] = tp_dtype_encode(TP_DTYPE_BF16, (float)(i % 5 - 2));
  for (int i = 0; i < N * K; i++) b_buf[i] = tp_dtype_encode(TP_DTYPE_BF16, (float)(i % 7 - 3));
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, M, N, K);
  d.a = tp_tensor_matrix(TP_DTYPE_BF16, M, K, K, a_buf);
  d.b = tp_tensor_matrix(TP_DTYPE_BF16, N, K, K, b_buf);
  d.d = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, d_buf);
  return d;
}

/* D poisoned, the plan run, D against the f64 sums (exact). */
static void run_and_check(tp_plan *plan, const tp_gemm_desc *d) {
  for (int i = 0; i < M * N; i++) d_buf[i] = NAN;
  ck_assert_msg(tp_plan_run(plan, d, NULL) == TP_OK, "%s", tp_error_message());
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double want = 0.0;
      for (int k = 0; k < K; k++)
        want += (double)tp_dtype_decode(TP_DTYPE_BF16, a_buf[m * K + k]) *
                tp_dtype_decode(TP_DTYPE_BF16, b_buf[n * K + k]);
      ck_assert_msg(d_buf[m * N + n] == want, "D(%d, %d) = %g, want %g", m, n,
                    (double)d_buf[m * N + n], want);
    }
}

static tp_registry *open_shipped(void) {
  tp_registry *reg;
  ck_assert_msg(tp_registry_open(&reg, TP_TEST_REGISTRY) == TP_OK, "%s", tp_error_message());
  return reg;
}

static void expect_plan_refused(tp_registry *reg, const tp_gemm_desc *d, const char *needle) {
  tp_plan *plan = (tp_plan *)(uintptr_t)0x10; /* must come back NULL */
  ck_assert_int_eq(tp_plan_create(&plan, reg, "standard", "store", d, TP_BACKEND_CPU),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_ptr_null(plan);
  TU_ASSERT_HAS(tp_error_message(), needle);
}

START_TEST(test_plan_refuses_bad_sizes) {
  tp_registry *reg = open_shipped();
  tp_gemm_desc d = problem();
  expect_plan_refused(reg, NULL, "plan: the GEMM descriptor is NULL");
  d.struct_size = 0;
  expect_plan_refused(reg, &d, "plan: tp_gemm_desc.struct_size is 0: initialise the "
                               "descriptor with tp_gemm_desc_init");
  d.struct_size = 8;
  expect_plan_refused(reg, &d, "plan: tp_gemm_desc.struct_size 8 is smaller than its first "
                               "version");
  d.struct_size = (uint32_t)TP_GEMM_DESC_FIRST_SIZE - 1;
  expect_plan_refused(reg, &d, "smaller than its first version");
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_run_refuses_bad_sizes) {
  tp_registry *reg = open_shipped();
  tp_gemm_desc d = problem();
  tp_plan *plan;
  ck_assert_msg(tp_plan_create(&plan, reg, "standard", "store", &d, TP_BACKEND_CPU) == TP_OK,
                "%s", tp_error_message());
  ck_assert_int_eq(tp_plan_run(plan, NULL, NULL), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "run: the GEMM descriptor is NULL");
  tp_gemm_desc bad = d;
  bad.struct_size = 0;
  ck_assert_int_eq(tp_plan_run(plan, &bad, NULL), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "run: tp_gemm_desc.struct_size is 0");
  bad.struct_size = 16;
  ck_assert_int_eq(tp_plan_run(plan, &bad, NULL), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "run: tp_gemm_desc.struct_size 16 is smaller");
  run_and_check(plan, &d); /* the plan is unharmed */
  tp_plan_destroy(plan);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_newer_caller) {
  tp_registry *reg = open_shipped();
  newer_desc nd;
  memset(nd.unknown, 0xA5, sizeof nd.unknown);
  nd.known = problem();
  nd.known.struct_size = (uint32_t)sizeof nd;
  tp_plan *plan;
  ck_assert_msg(tp_plan_create(&plan, reg, "standard", "store", &nd.known, TP_BACKEND_CPU) ==
                    TP_OK,
                "%s", tp_error_message());
  run_and_check(plan, &nd.known);
  /* Planned from a newer descriptor, run with one of this version, and back. */
  const tp_gemm_desc d = problem();
  run_and_check(plan, &d);
  run_and_check(plan, &nd.known);
  tp_plan_destroy(plan);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_plugins_get_the_cores_copy) {
  char ini[1024]; /* tu_fixture's buffer is reused: one call at a time */
  snprintf(ini, sizeof ini, "[sized]\nkind = payload\nlibrary = %s\n\n",
           tu_fixture("fixture_desc_size"));
  snprintf(ini + strlen(ini), sizeof ini - strlen(ini), "[store]\nkind = epilogue\nlibrary = %s\n",
           tu_fixture("fixture_epilogue"));
  tp_registry *reg;
  ck_assert_msg(tu_open(&reg, "r.ini", ini) == TP_OK, "%s", tp_error_message());
  newer_desc nd;
  memset(nd.unknown, 0xA5, sizeof nd.unknown);
  nd.known = problem();
  nd.known.struct_size = (uint32_t)sizeof nd;
  char want[64];
  snprintf(want, sizeof want, "given struct_size %zu", sizeof(tp_gemm_desc));
  tp_plan *plan = NULL;
  ck_assert_msg(tp_plan_create(&plan, reg, "sized", "store", &nd.known, TP_BACKEND_CPU) ==
                    TP_ERR_UNSUPPORTED,
                "%s", tp_error_message());
  ck_assert_ptr_null(plan);
  TU_ASSERT_HAS(tp_error_message(), want);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_link_check_refuses_bad_sizes) {
  tp_registry *reg = open_shipped();
  tp_gemm_desc d = problem();
  d.struct_size = 0;
  tp_link_result r = {.struct_size = sizeof r};
  ck_assert_int_eq(tp_link_check(reg, "standard", "store", &d, &r), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(r.planned, 0);
  TU_ASSERT_HAS(tp_error_message(), "link check: tp_gemm_desc.struct_size is 0");
  ck_assert_int_eq(tp_link_check(reg, "standard", "store", NULL, &r), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "link check: the GEMM descriptor is NULL");
  tp_registry_close(reg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("gemm_desc");
  TCase *tc = tcase_create("struct_size");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  tcase_add_test(tc, test_plan_refuses_bad_sizes);
  tcase_add_test(tc, test_run_refuses_bad_sizes);
  tcase_add_test(tc, test_newer_caller);
  tcase_add_test(tc, test_plugins_get_the_cores_copy);
  tcase_add_test(tc, test_link_check_refuses_bad_sizes);
  suite_add_tcase(s, tc);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? 0 : 1;
}
