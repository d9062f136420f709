/* tests/test_link_check.c: the public link check (tilepipe/link.h) without
 * linking anything: its arguments, its versioned structs, the target's
 * figures, and how far it gets with a pair that refuses the problem and
 * with a payload that carries no device code. tp_link_check_with's tuning:
 * each refusal (an unknown key, a bad value, text that is no key=value, a
 * registry key) is TP_ERR_REGISTRY before anything is planned, naming the
 * key; a tile the payload's gpu_plan does not take leaves the kernel
 * empty; the keys reach a state of their own (fixture_tunable's plan
 * reports the stages it was handed), made after the section's own keys and
 * freed after the link, while the section's state keeps its stages. Links
 * that run nvJitLink are test_tool_link.sh's (`tilepipe link`). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "config.h"
#include "tests/registry_util.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"


static tp_registry *reg;

static void open_registry(void) {
  ck_assert_msg(tp_registry_open(&reg, TP_TEST_REGISTRY) == TP_OK, "%s", tp_error_message());
}

static void close_registry(void) { tp_registry_close(reg); }

/* payload's default problem at 256^3 (data pointers NULL). */
static tp_gemm_desc problem(const char *payload, tp_dtype a, tp_dtype b) {
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg, .payload = payload,
                              .a = a, .b = b,
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
  ck_assert_int_eq(tp_link_check_target(NULL), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

/* A caller built against an older, smaller struct is refused; one built
 * against a larger, newer one gets its unknown tail zeroed. */
START_TEST(test_struct_size) {
  tp_link_target small = {.struct_size = 8};
  ck_assert_int_eq(tp_link_check_target(&small), TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "tp_link_target struct_size 8 is smaller");
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
  TU_ASSERT_HAS(tp_error_message(), "tp_link_result struct_size 4 is smaller");
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
  TU_ASSERT_HAS(tp_error_message(), "link standard x store for H100 SXM");
  TU_ASSERT_HAS(tp_error_message(), "payload 'standard'");
}
END_TEST

/* block_scaled's W4A8 has no GPU kernel: its plan refuses the CUDA
 * backend, which is no link failure (planned stays 0). Its MXFP8 W8A16,
 * which the plan takes, meets no device code in a build without CUDA
 * (with it, test_tool_link.sh links it). */
START_TEST(test_payload_without_device_code) {
  tp_gemm_desc desc = problem("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E2M1);
  tp_link_result r = {.struct_size = sizeof r};
  tp_status st = tp_link_check(reg, "block_scaled", "store", &desc, &r);
  ck_assert_int_eq(st, TP_ERR_UNSUPPORTED);
  ck_assert_int_eq(r.planned, 0);
  TU_ASSERT_HAS(tp_error_message(), "A e4m3 x B e2m1 (NVFP4 W4A8) has no GPU kernel");
  ck_assert_str_eq(r.kernel, "");
#if !TP_HAVE_CUDA
  desc = problem("block_scaled", TP_DTYPE_BF16, TP_DTYPE_E4M3);
  st = tp_link_check(reg, "block_scaled", "store", &desc, &r);
  ck_assert_int_eq(r.planned, 1);
  ck_assert_int_eq(st, TP_ERR_NO_DEVICE);
  ck_assert_str_eq(r.kernel, "");
#endif
}
END_TEST

/* A tuned link of standard x store for the 256^3 problem with a D of
 * `d`; its status, *r filled. */
static tp_status tuned(const char *tuning, tp_dtype d, tp_link_result *r) {
  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  desc.d.dtype = d;
  const tp_link_options opt = {.struct_size = sizeof opt, .tuning = tuning};
  *r = (tp_link_result){.struct_size = sizeof *r};
  return tp_link_check_with(reg, "standard", "store", &desc, &opt, r);
}

START_TEST(test_tuning_refusals) {
  tp_link_result r;
  ck_assert_int_eq(tuned("tile=128x64x64, bogus = 1", TP_DTYPE_BF16, &r), TP_ERR_REGISTRY);
  ck_assert_int_eq(r.planned, 0);
  TU_ASSERT_HAS(tp_error_message(),
                "link standard x store (tile=128x64x64, bogus = 1) for H100 SXM");
  TU_ASSERT_HAS(tp_error_message(), "has no tuning key 'bogus'");
  ck_assert_int_eq(tuned("tile=100x64x64", TP_DTYPE_BF16, &r), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "refused tile = 100x64x64: tile '100x64x64': the GPU kernels take tiles (MxN)");
  ck_assert_int_eq(tuned("tile", TP_DTYPE_BF16, &r), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "tuning 'tile': 'tile' is not key=value");
  ck_assert_int_eq(tuned("library=x.so", TP_DTYPE_BF16, &r), TP_ERR_REGISTRY);
  TU_ASSERT_HAS(tp_error_message(), "'library' is no tuning key");
  ck_assert_int_eq(r.planned, 0);
  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  const tp_link_options small = {.struct_size = 4, .tuning = "stages=2"};
  r = (tp_link_result){.struct_size = sizeof r};
  ck_assert_int_eq(tp_link_check_with(reg, "standard", "store", &desc, &small, &r),
                   TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "tp_link_options struct_size 4 is smaller");
}
END_TEST

/* 208 columns end in a tail chunk of a 16-bit D: no kernel writes an f32
 * D in that width, so the payload's gpu_plan refuses it. */
START_TEST(test_tile_not_taken) {
  tp_link_result r;
  const tp_status st = tuned("tile=128x208x64", TP_DTYPE_F32, &r);
  ck_assert_int_eq(r.planned, 1);
  ck_assert_str_eq(r.kernel, "");
#if TP_HAVE_CUDA
  ck_assert_int_eq(st, TP_ERR_UNSUPPORTED);
  TU_ASSERT_HAS(tp_error_message(), "the registry asks for 128x208x64");
#else
  ck_assert_int_eq(st, TP_ERR_NO_DEVICE);
#endif
}
END_TEST

/* A payload with no device code whose plan takes the problem (the
 * fixture): the link check refuses it after the plan, naming it. */
START_TEST(test_plugin_without_device_code) {
  tu_setup();
  tp_plugin_info store;
  ck_assert_int_eq(tp_registry_find(reg, "store", &store), TP_OK);
  char ini[2048];
  ck_assert_int_lt(snprintf(ini, sizeof ini,
                            "[plain]\nkind = payload\nlibrary = fixture_no_device\n"
                            "[store]\nkind = epilogue\nlibrary = %s\n",
                            store.library),
                   (int)sizeof ini);
  tp_registry *own;
  ck_assert_msg(tu_open(&own, "nodevice.ini", ini) == TP_OK, "%s", tp_error_message());
  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  tp_link_result r = {.struct_size = sizeof r};
  const tp_status st = tp_link_check(own, "plain", "store", &desc, &r);
  ck_assert_int_eq(r.planned, 1);
  ck_assert_str_eq(r.kernel, "");
#if TP_HAVE_CUDA
  ck_assert_int_eq(st, TP_ERR_UNSUPPORTED);
  TU_ASSERT_HAS(tp_error_message(), "payload 'fixture_no_device' carries no GPU kernel");
#else
  ck_assert_int_eq(st, TP_ERR_NO_DEVICE);
#endif
  tp_registry_close(own);
  tu_teardown();
}
END_TEST

START_TEST(test_tuning_gets_a_state_of_its_own) {
  tu_setup();
  tp_registry *own;
  ck_assert_msg(tu_open(&own, "tunable.ini",
                        "[tunable]\nkind = payload\nlibrary = fixture_tunable\nstages = 3\n"
                        "[store]\nkind = epilogue\nlibrary = fixture_epilogue\n") == TP_OK,
                "%s", tp_error_message());
  void *handle;
  int *live = tu_tunable_live(&handle);
  const int before = *live;
  tp_gemm_desc desc = problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16);
  const tp_link_options opt = {.struct_size = sizeof opt, .tuning = "stages=5"};
  tp_link_result r = {.struct_size = sizeof r};
  ck_assert_int_eq(tp_link_check_with(own, "tunable", "store", &desc, &opt, &r),
                   TP_ERR_UNSUPPORTED);
  TU_ASSERT_HAS(tp_error_message(), "link tunable x store (stages=5) for H100 SXM");
  TU_ASSERT_HAS(tp_error_message(), "fixture_tunable: stages = 5");
  ck_assert_int_eq(*live, before);
  ck_assert_int_eq(tp_link_check(own, "tunable", "store", &desc, &r), TP_ERR_UNSUPPORTED);
  TU_ASSERT_HAS(tp_error_message(), "fixture_tunable: stages = 3");
  /* An empty tuning links with the section's own state. */
  const tp_link_options none = {.struct_size = sizeof none, .tuning = ""};
  ck_assert_int_eq(tp_link_check_with(own, "tunable", "store", &desc, &none, &r),
                   TP_ERR_UNSUPPORTED);
  TU_ASSERT_HAS(tp_error_message(), "fixture_tunable: stages = 3");
  tp_registry_close(own);
  ck_assert_int_eq(*live, before - 1);
  dlclose(handle);
  tu_teardown();
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
  tcase_add_test(tc, test_plugin_without_device_code);
  tcase_add_test(tc, test_tuning_refusals);
  tcase_add_test(tc, test_tile_not_taken);
  tcase_add_test(tc, test_tuning_gets_a_state_of_its_own);
  suite_add_tcase(s, tc);
  SRunner *runner = srunner_create(s);
  srunner_run_all(runner, CK_NORMAL);
  const int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
