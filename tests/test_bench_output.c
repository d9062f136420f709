/* tests/test_bench_output.c: what `tilepipe bench` shows besides its
 * table, without a GPU: the progress lines (tools/bench_progress.h),
 * written into memory.
 *
 * Progress: on a fake clock, the exact lines of one shape through every
 * phase (a phase entered twice adds up), in a log and on a terminal (in
 * place, "\r" and "\033[K", one newline at the end), the index padded to
 * the count's width, and a shape that fails at its inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tools/bench_progress.h"

/* ------------------------------------------------------------ progress */

static double fake_now;
static double fake_clock(void) { return fake_now; }

/* Runs one shape through its phases on the fake clock; the text written. */
static char *one_shape(int live) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_progress p;
  fake_now = 1000.0;
  tp_bench_progress_start(&p, f, live, fake_clock, 12);
  fake_now = 66000.0;
  tp_bench_progress_shape(&p, 2, (tp_shape){4096, 7168, 16384});
  tp_bench_progress_phase(&p, TP_BENCH_INPUTS, NULL);
  fake_now = 66040.0;
  tp_bench_progress_phase(&p, TP_BENCH_PLAN, "ours");
  fake_now = 68100.0;
  tp_bench_progress_phase(&p, TP_BENCH_PLAN, "cuBLASLt");
  fake_now = 68160.0;
  tp_bench_progress_phase(&p, TP_BENCH_TIMING, "ours, cuBLASLt");
  fake_now = 68770.0;
  tp_bench_progress_phase(&p, TP_BENCH_CHECK, "ours against cuBLASLt");
  fake_now = 69030.0;
  tp_bench_progress_done(&p, "ok");
  ck_assert_int_eq(fclose(f), 0);
  return text;
}

START_TEST(test_progress_in_a_log) {
  char *text = one_shape(0);
  ck_assert_str_eq(text,
                   "[ 3/12] 4096x7168x16384  inputs  0.0 s (run 1:05)\n"
                   "[ 3/12] 4096x7168x16384  plan/link ours  0.0 s (run 1:05)\n"
                   "[ 3/12] 4096x7168x16384  plan/link cuBLASLt  2.1 s (run 1:07)\n"
                   "[ 3/12] 4096x7168x16384  timing ours, cuBLASLt  2.2 s (run 1:07)\n"
                   "[ 3/12] 4096x7168x16384  check ours against cuBLASLt  2.8 s (run 1:07)\n"
                   "[ 3/12] 4096x7168x16384  ok in 3.0 s: inputs 0.04, plan/link 2.12, "
                   "timing 0.61, check 0.26 (run 1:08)\n");
  free(text);
}
END_TEST

START_TEST(test_progress_on_a_terminal) {
  char *text = one_shape(1);
  ck_assert_str_eq(text,
                   "\r[ 3/12] 4096x7168x16384  inputs  0.0 s (run 1:05)\033[K"
                   "\r[ 3/12] 4096x7168x16384  plan/link ours  0.0 s (run 1:05)\033[K"
                   "\r[ 3/12] 4096x7168x16384  plan/link cuBLASLt  2.1 s (run 1:07)\033[K"
                   "\r[ 3/12] 4096x7168x16384  timing ours, cuBLASLt  2.2 s (run 1:07)\033[K"
                   "\r[ 3/12] 4096x7168x16384  check ours against cuBLASLt  2.8 s (run 1:07)"
                   "\033[K"
                   "\r[ 3/12] 4096x7168x16384  ok in 3.0 s: inputs 0.04, plan/link 2.12, "
                   "timing 0.61, check 0.26 (run 1:08)\033[K\n");
  free(text);
}
END_TEST

START_TEST(test_progress_failed_inputs_and_widths) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_progress p;
  fake_now = 0.0;
  tp_bench_progress_start(&p, f, 0, fake_clock, 5);
  tp_bench_progress_shape(&p, 0, (tp_shape){1, 2, 3});
  tp_bench_progress_phase(&p, TP_BENCH_INPUTS, NULL);
  fake_now = 1500.0;
  tp_bench_progress_done(&p, "error");
  /* The next shape starts its phases from zero. */
  fake_now = 125000.0;
  tp_bench_progress_shape(&p, 1, (tp_shape){7, 8, 9});
  fake_now = 125300.0;
  tp_bench_progress_done(&p, "not compared");
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_str_eq(text,
                   "[1/5] 1x2x3  inputs  0.0 s (run 0:00)\n"
                   "[1/5] 1x2x3  error in 1.5 s: inputs 1.50, plan/link 0.00, timing 0.00, "
                   "check 0.00 (run 0:01)\n"
                   "[2/5] 7x8x9  not compared in 0.3 s: inputs 0.00, plan/link 0.00, timing "
                   "0.00, check 0.00 (run 2:05)\n");
  free(text);
  /* No progress asked for: nothing happens. */
  tp_bench_progress_phase(NULL, TP_BENCH_TIMING, "ours");
  tp_bench_progress_start(&p, NULL, 0, fake_clock, 1);
  tp_bench_progress_shape(&p, 0, (tp_shape){1, 1, 1});
  tp_bench_progress_phase(&p, TP_BENCH_TIMING, "ours");
  tp_bench_progress_done(&p, "ok");
}
END_TEST

int main(void) {
  Suite *s = suite_create("bench_output");
  TCase *tc = tcase_create("progress");
  tcase_add_test(tc, test_progress_in_a_log);
  tcase_add_test(tc, test_progress_on_a_terminal);
  tcase_add_test(tc, test_progress_failed_inputs_and_widths);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
