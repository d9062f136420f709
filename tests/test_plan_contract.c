/* tests/test_plan_contract.c: what tilepipe/plan.h promises at its edges.
 *
 * - tp_plan_describe returns what snprintf would, the whole line's length,
 *   whatever the buffer's size (NULL, 0 included), and writes the longest
 *   prefix that fits;
 * - a plugin slot that returns a value that is no tp_status
 *   (fixture_odd_status: plan and problem return 999) comes back as
 *   TP_ERR_PLUGIN naming the plugin, the slot and the value;
 * - a plan outlives its registry's close without a use after free: its
 *   runs are refused, it describes and destroys cleanly (ASan would see a
 *   double free or a leak), and a second close is a no-op while it lives.
 * Plans of the build tree's registry (standard x store) on the CPU; the
 * fixtures through TILEPIPE_PLUGIN_PATH (tu_setup). Public API only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/registry_util.h"
#include "tilepipe/tilepipe.h"

enum { M = 8, N = 8, K = 16 };
#define BF16_ONE 0x3f80u
#define BF16_SIXTEEN 0x4180u /* K ones summed */

typedef struct ones_gemm {
  _Alignas(64) uint16_t a[M * K], b[N * K], d[M * N];
  tp_gemm_desc desc;
} ones_gemm;

/* A and B all ones, D poisoned: every element of D must come out K. */
static void ones_init(ones_gemm *g) {
  for (int i = 0; i < M * K; i++) g->a[i] = BF16_ONE;
  for (int i = 0; i < N * K; i++) g->b[i] = BF16_ONE;
  for (int i = 0; i < M * N; i++) g->d[i] = 0x7fc1; /* a NaN */
  tp_gemm_desc_init(&g->desc, M, N, K);
  g->desc.a = tp_tensor_matrix(TP_DTYPE_BF16, M, K, K, g->a);
  g->desc.b = tp_tensor_matrix(TP_DTYPE_BF16, N, K, K, g->b);
  g->desc.d = tp_tensor_matrix(TP_DTYPE_BF16, M, N, N, g->d);
}

static void ones_check(const ones_gemm *g) {
  for (int i = 0; i < M * N; i++)
    ck_assert_msg(g->d[i] == BF16_SIXTEEN, "D[%d] = 0x%04x, expected 16 (0x%04x)", i, g->d[i],
                  BF16_SIXTEEN);
}

/* The build tree's registry into *reg and a plan of standard x store for
 * g (made ready) on backend. */
static tp_plan *plan_ones(tp_registry **reg, ones_gemm *g, tp_backend backend) {
  ck_assert_msg(tp_registry_open(reg, TP_TEST_REGISTRY) == TP_OK, "%s", tp_error_message());
  ones_init(g);
  tp_plan *plan = NULL;
  ck_assert_msg(tp_plan_create(&plan, *reg, "standard", "store", &g->desc, backend) == TP_OK,
                "%s", tp_error_message());
  return plan;
}

START_TEST(test_describe_returns_the_whole_length) {
  tp_registry *reg = NULL;
  ones_gemm g;
  /* AUTO without a GPU: three parts (the plan, the CPU backend's, why not
   * CUDA), so every cut lands in each of them for some size. */
  tp_plan *plan = plan_ones(&reg, &g, TP_BACKEND_AUTO);
  const int full = tp_plan_describe(plan, NULL, 0);
  ck_assert_int_gt(full, 0);
  char *whole = malloc((size_t)full + 1);
  ck_assert_int_eq(tp_plan_describe(plan, whole, (size_t)full + 1), full);
  ck_assert_uint_eq(strlen(whole), (size_t)full);
  TU_ASSERT_HAS(whole, "standard x store on ");
  char *cut = malloc((size_t)full + 1);
  for (size_t size = 1; size <= (size_t)full; size++) {
    memset(cut, '#', (size_t)full + 1);
    ck_assert_int_eq(tp_plan_describe(plan, cut, size), full);
    ck_assert_uint_eq(strlen(cut), size - 1);
    ck_assert_int_eq(strncmp(cut, whole, size - 1), 0);
  }
  free(cut);
  free(whole);
  tp_plan_destroy(plan);
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_odd_slot_status_becomes_plugin_error) {
  tp_registry *reg = NULL;
  ck_assert_msg(tu_open(&reg, "registry.ini", "[odd]\nkind = payload\n"
                                              "library = fixture_odd_status\n"
                                              "[epi]\nkind = epilogue\n"
                                              "library = fixture_epilogue\n") == TP_OK,
                "%s", tp_error_message());
  ones_gemm g;
  ones_init(&g);
  tp_plan *plan = NULL;
  ck_assert_int_eq(tp_plan_create(&plan, reg, "odd", "epi", &g.desc, TP_BACKEND_CPU),
                   TP_ERR_PLUGIN);
  ck_assert_ptr_null(plan);
  TU_ASSERT_HAS(tp_error_message(), "payload 'odd': its plan slot returned 999, which is no "
                "tilepipe status (fixture_odd_status: plan fails oddly)");
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, M, N, K);
  desc.a.dtype = TP_DTYPE_BF16;
  desc.b.dtype = TP_DTYPE_BF16;
  desc.d.dtype = TP_DTYPE_BF16;
  tp_problem problem = {.struct_size = sizeof problem};
  ck_assert_int_eq(tp_problem_describe(reg, "odd", NULL, &desc, &problem), TP_ERR_PLUGIN);
  TU_ASSERT_HAS(tp_error_message(), "payload 'odd', problem 8x8x16 ");
  TU_ASSERT_HAS(tp_error_message(), ": its problem slot returned 999, which is no tilepipe status "
                "(no reason given)");
  tp_registry_close(reg);
}
END_TEST

START_TEST(test_plan_outlives_its_registry_close) {
  tp_registry *reg = NULL;
  ones_gemm g;
  tp_plan *plan = plan_ones(&reg, &g, TP_BACKEND_CPU);
  ck_assert_msg(tp_plan_run(plan, &g.desc, NULL) == TP_OK, "%s", tp_error_message());
  ones_check(&g);
  tp_registry_close(reg);
  tp_registry_close(reg); /* the plan still holds it: the second close is a no-op */
  ck_assert_int_eq(tp_plan_run(plan, &g.desc, NULL), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "run: the plan's registry is closed");
  char line[256];
  ck_assert_int_gt(tp_plan_describe(plan, line, sizeof line), 0);
  TU_ASSERT_HAS(line, "standard x store on cpu");
  tp_plan_destroy(plan); /* the last hold: the registry goes with it */
}
END_TEST

static Suite *contract_suite(void) {
  Suite *s = suite_create("plan contract");
  TCase *tc = tcase_create("contract");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  tcase_set_timeout(tc, 60); /* a describe per buffer size, under sanitizers too */
  tcase_add_test(tc, test_describe_returns_the_whole_length);
  tcase_add_test(tc, test_odd_slot_status_becomes_plugin_error);
  tcase_add_test(tc, test_plan_outlives_its_registry_close);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(contract_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
