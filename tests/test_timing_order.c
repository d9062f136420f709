/* tests/test_timing_order.c: the order in which `tilepipe bench` times its
 * sides (tools/timing.h, tp_time_side_at), without a GPU.
 *
 * For every number of sides a bench run can have (1 to 7: ours, our store,
 * four --versus sides, cuBLASLt): each round runs every side exactly once;
 * over 2n rounds every side runs right after every other side, inside a
 * round, exactly twice and never after itself; the design repeats every 2n
 * rounds, warm-up rounds included; no side is first in every round. And
 * tp_median, which reads the times, on odd and even counts. */
#include <check.h>

#include "tools/timing.h"

enum { MAX_SIDES = 7 };

START_TEST(test_each_round_runs_every_side_once) {
  for (int n = 1; n <= MAX_SIDES; n++)
    for (int round = 0; round < 4 * n; round++) {
      int seen[MAX_SIDES] = {0};
      for (int j = 0; j < n; j++) {
        const int s = tp_time_side_at(n, round, j);
        ck_assert_msg(s >= 0 && s < n, "n %d round %d position %d: side %d", n, round, j, s);
        seen[s]++;
      }
      for (int s = 0; s < n; s++)
        ck_assert_msg(seen[s] == 1, "n %d round %d: side %d runs %d times", n, round, s, seen[s]);
    }
}
END_TEST

START_TEST(test_every_side_follows_every_other_twice) {
  for (int n = 2; n <= MAX_SIDES; n++) {
    int after[MAX_SIDES][MAX_SIDES] = {{0}};
    for (int round = 0; round < 2 * n; round++)
      for (int j = 1; j < n; j++)
        after[tp_time_side_at(n, round, j)][tp_time_side_at(n, round, j - 1)]++;
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++)
        ck_assert_msg(after[a][b] == (a == b ? 0 : 2), "n %d: side %d after side %d %d times", n,
                      a, b, after[a][b]);
  }
}
END_TEST

START_TEST(test_the_design_repeats_and_the_first_side_moves) {
  for (int n = 1; n <= MAX_SIDES; n++) {
    int first[MAX_SIDES] = {0};
    for (int round = 0; round < 2 * n; round++) {
      first[tp_time_side_at(n, round, 0)]++;
      for (int j = 0; j < n; j++)
        ck_assert_int_eq(tp_time_side_at(n, round, j), tp_time_side_at(n, round + 2 * n, j));
    }
    for (int s = 0; s < n; s++)
      ck_assert_msg(first[s] < 2 * n || n == 1, "n %d: side %d is first in every round", n, s);
  }
}
END_TEST

START_TEST(test_median) {
  double odd[] = {5.0, 1.0, 3.0};
  ck_assert(tp_median(odd, 3) == 3.0);
  double even[] = {4.0, 1.0, 3.0, 2.0};
  ck_assert(tp_median(even, 4) == 2.5);
  double one[] = {7.0};
  ck_assert(tp_median(one, 1) == 7.0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("timing_order");
  TCase *tc = tcase_create("order");
  tcase_add_test(tc, test_each_round_runs_every_side_once);
  tcase_add_test(tc, test_every_side_follows_every_other_twice);
  tcase_add_test(tc, test_the_design_repeats_and_the_first_side_moves);
  tcase_add_test(tc, test_median);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
