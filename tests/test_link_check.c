/* tests/test_link_check.c: the public link check (tilepipe/link.h) without
 * linking anything: its arguments, its versioned structs, the target's
 * figures, and how far it gets with a pair that refuses the problem and
 * with a payload that carries no device code. Links that run nvJitLink are
 * test_tool_link.sh's (`tilepipe link`). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "config.h"
#include "tilepipe/tilepipe.h"
#include "tools/reference/problem.h"

#define ASSERT_HAS(haystack, needle)                                                          \
  ck_assert_msg(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"",     \
                (haystack), (needle))

static tp_registry *reg;

static void open_registry(void) {
  ck_assert_msg(tp_registry_open(&reg, TP_TEST_REGISTRY) == TP_OK, "%s", tp_error_message());
}

static void close_registry(void) { tp_registry_close(reg); }

/* payload's default problem at 256^3 (data pointers NULL). */
static tp_gemm_desc problem(const char *payload, tp_dtype a, tp_dtype b) {
  tp_ref_problem_spec spec = {.registry = reg, .payload = payload, .a = a, .b = b,
                              .d = TP_DTYPE_BF16, .c = TP_DTYPE_NONE,
                              .sf_layout = TP_LAYOUT_SF_128X4, .m = 256, .n = 256, .k = 256,
                              .alpha = 1.0f};
  tp_gemm_desc desc;
  tp_problem described;
  char err[1024];
  ck_assert_msg(tp_ref_problem_describe(&spec, &desc, &described, err, sizeof err) == TP_OK, "%s",
                err);
  return desc;
}

START_TEST(test_target) {
  tp_link_target t = {.struct_size = sizeof t};
  ck_assert_int_eq(tp_link_check_target(&t), TP_OK);
  ck_assert_uint_eq(t.struct_size, sizeof t);
  ck_assert_str_eq(t.name, "H100 SXM (figures, no GPU)");
  ck_assert_int_eq(t.sm_count, 132);
  ck_assert_int_eq(t.cc_major, 9);
  ck_assert_int_eq(t.cc_minor, 0);
  ck_assert_uint_eq(t.smem_per_block, 232448u);
  ck_assert_uint_eq(t.l2_bytes, 50u << 20);
  ck_assert_int_eq(tp_link_check_target(NULL), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

/* A caller built against an older, smaller struct is refused; one built
 * against a larger, newer one gets its unknown tail zeroed. */
START_TEST(test_struct_size) {
  tp_link_target small = {.struct_size = 8};
  ck_assert_int_eq(tp_link_check_target(&small), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "tp_link_target struct_size 8 is smaller");
  struct {
    tp_link_target t;
    unsigned char newer[16];
  } big;
  memset(&big, 0xff, sizeof big);
  big.t.struct_size = (uint32_t)sizeof big;
  ck_assert_int_eq(tp_link_check_target(&big.t), TP_OK);
  ck_assert_uint_eq(big.t.struct_size, sizeof big);
  ck_assert_int_eq(big.t.sm_count, 132);
  for (size_t i = 0; i < sizeof big.newer; i++) ck_assert_uint_eq(big.newer[i], 0);

  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  tp_link_result r = {.struct_size = 4};
  ck_assert_int_eq(tp_link_check(reg, "standard", "store", &desc, &r), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(tp_error_message(), "tp_link_result struct_size 4 is smaller");
}
END_TEST

START_TEST(test_arguments) {
  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  tp_link_result r = {.struct_size = sizeof r};
  ck_assert_int_eq(tp_link_check(reg, "standard", "store", &desc, NULL), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_link_check(NULL, "standard", "store", &desc, &r), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_link_check(reg, NULL, "store", &desc, &r), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_link_check(reg, "standard", "store", NULL, &r), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(r.planned, 0);
  ck_assert_int_eq(tp_link_check(reg, "nope", "store", &desc, &r), TP_ERR_NOT_FOUND);
  ck_assert_int_eq(r.planned, 0);
}
END_TEST

/* A problem the plan slots refuse is no link failure: planned stays 0. */
START_TEST(test_refused_problem) {
  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  desc.b.dtype = TP_DTYPE_F16;
  tp_link_result r = {.struct_size = sizeof r};
  ck_assert_int_eq(tp_link_check(reg, "standard", "store", &desc, &r), TP_ERR_UNSUPPORTED);
  ck_assert_int_eq(r.planned, 0);
  ASSERT_HAS(tp_error_message(), "link standard x store for H100 SXM");
  ASSERT_HAS(tp_error_message(), "payload 'standard'");
}
END_TEST

/* block_scaled plans for the CUDA backend but has no GPU kernel. */
START_TEST(test_payload_without_device_code) {
  tp_gemm_desc desc = problem("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E4M3);
  tp_link_result r = {.struct_size = sizeof r};
  const tp_status st = tp_link_check(reg, "block_scaled", "store", &desc, &r);
  ck_assert_int_eq(r.planned, 1);
#if TP_HAVE_CUDA
  ck_assert_int_eq(st, TP_ERR_UNSUPPORTED);
  ASSERT_HAS(tp_error_message(), "payload 'block_scaled' carries no GPU kernel");
#else
  ck_assert_int_eq(st, TP_ERR_NO_DEVICE);
#endif
  ck_assert_str_eq(r.kernel, "");
}
END_TEST

int main(void) {
  Suite *s = suite_create("link_check");
  TCase *tc = tcase_create("api");
  tcase_add_unchecked_fixture(tc, open_registry, close_registry);
  tcase_add_test(tc, test_target);
  tcase_add_test(tc, test_struct_size);
  tcase_add_test(tc, test_arguments);
  tcase_add_test(tc, test_refused_problem);
  tcase_add_test(tc, test_payload_without_device_code);
  suite_add_tcase(s, tc);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
