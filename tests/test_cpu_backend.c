/* tests/test_cpu_backend.c: the CPU backend reports a run it cannot do.
 *
 * A run allocates its stages and its tile of accumulators before any thread
 * starts. fixture_huge_tile plans a tile whose accumulators no host can
 * hold (4 PiB); tp_plan_run must return TP_ERR_OUT_OF_MEMORY naming them,
 * with no thread left waiting, and the plan must stay usable: the same run
 * answers the same way, and destroying it is clean. */
#include <stdint.h>
#include <stdlib.h>

#include <check.h>

#include "tests/registry_util.h"
#include "tilepipe/tilepipe.h"

/* AddressSanitizer and ThreadSanitizer stop the process at a malloc this
 * large unless told to return NULL, as the C library does. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
const char *__tsan_default_options(void);
const char *__tsan_default_options(void) { return "allocator_may_return_null=1"; }

START_TEST(test_accumulators_out_of_memory) {
  tp_registry *reg = NULL;
  ck_assert_msg(tu_open(&reg, "registry.ini",
                        "[huge]\nkind = payload\nlibrary = fixture_huge_tile\n"
                        "[store]\nkind = epilogue\nlibrary = fixture_skip_last\n") == TP_OK,
                "%s", tp_error_message());
  enum { M = 8, N = 8, K = 16 };
  static _Alignas(64) uint16_t a[M * K], b[N * K];
  static _Alignas(64) float d[M * N];
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, M, N, K);
  desc.a = tp_tensor_matrix(TP_DTYPE_BF16, M, K, K, a);
  desc.b = tp_tensor_matrix(TP_DTYPE_BF16, N, K, K, b);
  desc.d = tp_tensor_matrix(TP_DTYPE_F32, M, N, N, d);
  tp_plan *plan = NULL;
  ck_assert_msg(tp_plan_create(&plan, reg, "huge", "store", &desc, TP_BACKEND_CPU) == TP_OK, "%s",
                tp_error_message());
  for (int run = 0; run < 2; ++run) {
    ck_assert_int_eq(tp_plan_run(plan, &desc, NULL), TP_ERR_OUT_OF_MEMORY);
    TU_ASSERT_HAS(tp_error_message(), "accumulators of a 16777216x16777216 tile");
  }
  tp_plan_destroy(plan);
  tp_registry_close(reg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cpu_backend");
  TCase *tc = tcase_create("failures");
  tcase_add_checked_fixture(tc, tu_setup, tu_teardown);
  tcase_add_test(tc, test_accumulators_out_of_memory);
  suite_add_tcase(s, tc);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
