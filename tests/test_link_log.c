/* tests/test_link_log.c: the ptxas report checker (core/backend/cuda/link_log.h)
 * on captured logs. Needs no CUDA, so it runs in every build.
 *
 * Every sample but one is real text captured with CUDA 13.0 on sm_90a:
 *   clean, c7508: nvJitLink -lto -Xptxas=-v info logs of tests/device/
 *                 (link_kernel + link_hook; link_ws_unbounded + link_hook);
 *   c7504_c7520:  nvcc -rdc=true -Xptxas -v (no LTO) of a setmaxnreg + wgmma
 *                 kernel calling an extern hook;
 *   c7509:        the same for a wgmma kernel without setmaxnreg;
 *   spills:       nvcc -Xptxas -v -maxrregcount=24 of a 64-float kernel.
 * c7506 could not be provoked with 13.0 (it needs an extern call ptxas
 * itself inserts); its line follows the others' format with the wording of
 * the public reports, so only the code matters to the checker. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/link_log.h"

static const char clean[] =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'tp_test_ws' for 'sm_90a'\n"
    "ptxas info    : Function properties for tp_test_ws\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 168 registers, used 1 barriers\n"
    "ptxas info    : Compile time = 72.210 ms\n"
    "ptxas info    : Compiling entry function 'tp_test_axpy' for 'sm_90a'\n"
    "ptxas info    : Function properties for tp_test_axpy\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 12 registers, used 0 barriers\n"
    "ptxas info    : Compile time = 2.162 ms\n";

static const char c7508[] =
    "ptxas info    : (C7508) Potential Performance Loss: 'setmaxnreg' ignored; unable to "
    "determine register count at entry.\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'tp_test_ws_unbounded' for 'sm_90a'\n"
    "ptxas info    : Function properties for tp_test_ws_unbounded\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers\n"
    "ptxas info    : Compile time = 20.902 ms\n";

static const char c7504_c7520[] =
    "ptxas info    : (C7504) Potential Performance Loss: 'setmaxnreg' ignored to maintain "
    "compatibility across compilation units.\n"
    "ptxas info    : (C7517) warpgroup.wait is injected in around line 70 by compiler to allow "
    "use of registers defined by GMMA in function 'ws_wgmma'\n"
    "ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are "
    "serialized due to program dependence on compiler-inserted WG.AR in divergent path in the "
    "function 'ws_wgmma'\n"
    "ptxas info    : 0 bytes gmem\n";

static const char c7509[] =
    "ptxas info    : (C7509) Potential Performance Loss: wgmma.mma_async instructions are "
    "serialized due to the presence of Extern calls in the function 'wg'\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'wg' for 'sm_90a'\n"
    "ptxas info    : Function properties for wg\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 30 registers, used 0 barriers\n";

static const char c7520_only[] =
    "ptxas info    : (C7520) Potential Performance Loss: wgmma.mma_async instructions are "
    "serialized due to program dependence on compiler-inserted WG.AR in divergent path in the "
    "function 'ws_wgmma'\n";

static const char c7506[] =
    "ptxas info    : (C7506) Potential Performance Loss: 'setmaxnreg' ignored to maintain "
    "compatibility into 'extern' calls.\n";

static const char spills[] =
    "ptxas info    : Overriding maximum register limit 256 for 'spilly' with  24 of "
    "maxrregcount option\n"
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'spilly' for 'sm_90a'\n"
    "ptxas info    : Function properties for spilly\n"
    "    368 bytes stack frame, 732 bytes spill stores, 812 bytes spill loads\n"
    "ptxas info    : Used 24 registers, used 0 barriers, 368 bytes cumulative stack size\n"
    "ptxas info    : Compile time = 28.440 ms\n";

/* Fails with TP_ERR_LINK, a message holding `problem` and quoting `quote`. */
static void assert_rejected(const char *log, const char *problem, const char *quote) {
  ck_assert_int_eq(tp_link_log_check(log), TP_ERR_LINK);
  const char *msg = tp_error_message();
  ck_assert_msg(strstr(msg, problem) != NULL, "message '%s' lacks '%s'", msg, problem);
  ck_assert_msg(strstr(msg, quote) != NULL, "message '%s' does not quote '%s'", msg, quote);
}

START_TEST(clean_log_passes) { ck_assert_int_eq(tp_link_log_check(clean), TP_OK); }
END_TEST

START_TEST(missing_report_fails) {
  /* What nvJitLink returns for a link it served from its own cache. */
  assert_rejected("", "no ptxas report", "");
  assert_rejected(NULL, "no ptxas report", "");
  assert_rejected("ptxas info    : 0 bytes gmem\n", "no ptxas report", "");
}
END_TEST

/* A one-function report whose third line is `properties`. */
static const char *report_with(const char *properties, char *buf, size_t size) {
  snprintf(buf, size,
           "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
           "ptxas info    : Function properties for k\n"
           "%s\n"
           "ptxas info    : Used 40 registers, used 0 barriers\n",
           properties);
  return buf;
}

START_TEST(forbidden_diagnostics_fail) {
  assert_rejected(c7508, "min-blocks", "(C7508) Potential Performance Loss: 'setmaxnreg' ignored");
  /* The first offending line is the one quoted. */
  assert_rejected(c7504_c7520, "compilation units", "(C7504)");
  assert_rejected(c7509, "extern call", "(C7509)");
  assert_rejected(c7506, "extern call", "(C7506)");
  /* Any other reason for serialized wgmma fails too, by its wording. */
  assert_rejected(c7520_only, "wgmma serialized", "(C7520)");
}
END_TEST

START_TEST(spills_fail) {
  assert_rejected(spills, "'spilly' spills registers",
                  "732 bytes spill stores, 812 bytes spill loads");
  /* A load-only spill counts, and a non-zero stack frame alone does not. */
  char buf[512];
  assert_rejected(report_with("ptxas . 0 bytes stack frame, 0 bytes spill stores, 4 bytes spill "
                              "loads",
                              buf, sizeof buf),
                  "'k' spills registers", "4 bytes spill loads");
  ck_assert_int_eq(tp_link_log_check(report_with("ptxas . 16 bytes stack frame, 0 bytes spill "
                                                 "stores, 0 bytes spill loads",
                                                 buf, sizeof buf)),
                   TP_OK);
}
END_TEST

START_TEST(informational_lines_pass) {
  /* C7517 alone (compiler-injected wait, no serialization) is not fatal. */
  char log[1024];
  snprintf(log, sizeof log, "%s%s",
           "ptxas info    : (C7517) warpgroup.wait is injected in around line 70 by compiler to "
           "allow use of registers defined by GMMA in function 'tp_test_ws'\n",
           clean);
  ck_assert_int_eq(tp_link_log_check(log), TP_OK);
}
END_TEST

START_TEST(long_lines_are_quoted_in_part) {
  size_t n = 5000;
  char *log = malloc(n + 64);
  ck_assert_ptr_nonnull(log);
  strcpy(log, "ptxas info    : (C7509) wgmma serialized in '");
  size_t used = strlen(log);
  memset(log + used, 'x', n);
  strcpy(log + used + n, "'\n");
  ck_assert_int_eq(tp_link_log_check(log), TP_ERR_LINK);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "(C7509)"));
  free(log);
}
END_TEST

START_TEST(stats_per_kernel) {
  tp_link_stats s;
  ck_assert_int_eq(tp_link_log_stats(clean, "tp_test_ws", &s), TP_OK);
  ck_assert_int_eq(s.registers, 168);
  ck_assert_int_eq(s.stack_bytes, 0);
  ck_assert_int_eq(tp_link_log_stats(clean, "tp_test_axpy", &s), TP_OK);
  ck_assert_int_eq(s.registers, 12);
  ck_assert_int_eq(tp_link_log_stats(spills, "spilly", &s), TP_OK);
  ck_assert_int_eq(s.registers, 24);
  ck_assert_int_eq(s.stack_bytes, 368);
  ck_assert_int_eq(s.spill_store_bytes, 732);
  ck_assert_int_eq(s.spill_load_bytes, 812);
  /* A prefix of a kernel's name is another kernel. */
  ck_assert_int_eq(tp_link_log_stats(clean, "tp_test", &s), TP_ERR_NOT_FOUND);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "'tp_test'"));
  ck_assert_int_eq(tp_link_log_stats("", "tp_test_ws", &s), TP_ERR_NOT_FOUND);
  ck_assert_int_eq(tp_link_log_stats(clean, NULL, &s), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_link_log_stats(clean, "tp_test_ws", NULL), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  Suite *s = suite_create("link_log");
  TCase *tc = tcase_create("link_log");
  tcase_add_test(tc, clean_log_passes);
  tcase_add_test(tc, missing_report_fails);
  tcase_add_test(tc, forbidden_diagnostics_fail);
  tcase_add_test(tc, spills_fail);
  tcase_add_test(tc, informational_lines_pass);
  tcase_add_test(tc, long_lines_are_quoted_in_part);
  tcase_add_test(tc, stats_per_kernel);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
