/* tests/test_fast_div.c: tilepipe/plugin/fast_div.h against the / operator.
 *
 * Every divisor up to 4096 with dividends around each multiple of it (the
 * quotient's steps, where a multiplier too small or too large shows first)
 * and the largest dividends; divisors around every power of two up to 2^31
 * (where the shift changes and the multiplier is nearest 2^32); and random
 * pairs over the whole range. Loops count mismatches and assert once,
 * naming the first. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>

#include "tilepipe/plugin/fast_div.h"

#define N_MAX 0x7fffffffu /* the largest dividend the contract covers */

typedef struct mismatches {
  long count;
  char first[128];
} mismatches;

static void check_one(mismatches *log, uint32_t d, uint32_t n) {
  const tp_fast_div f = tp_fast_div_make(d);
  const uint32_t got = tp_fast_div_quot(f, n);
  if (got == n / d) return;
  if (log->count++ == 0)
    snprintf(log->first, sizeof log->first, "%u / %u: got %u, want %u", n, d, got, n / d);
}

static void assert_none(const mismatches *log) {
  ck_assert_msg(log->count == 0, "%ld mismatches, the first: %s", log->count, log->first);
}

START_TEST(small_divisors_at_every_step) {
  mismatches log = {0, ""};
  for (uint32_t d = 1; d <= 4096; d++) {
    for (uint32_t q = 0; q <= 300; q++) {
      const uint64_t at = (uint64_t)q * d;
      for (int delta = -1; delta <= 1; delta++) {
        const int64_t n = (int64_t)at + delta;
        if (n >= 0 && n <= N_MAX) check_one(&log, d, (uint32_t)n);
      }
    }
    for (uint32_t n = N_MAX - 300; n != N_MAX + 1u; n++) check_one(&log, d, n);
  }
  assert_none(&log);
}
END_TEST

START_TEST(divisors_around_powers_of_two) {
  mismatches log = {0, ""};
  for (int b = 0; b <= 31; b++) {
    for (int delta = -2; delta <= 2; delta++) {
      const int64_t d = ((int64_t)1 << b) + delta;
      if (d < 1 || d > N_MAX) continue;
      const uint32_t dd = (uint32_t)d;
      for (uint32_t q = 0; q < 64 && (uint64_t)q * dd <= N_MAX; q++) {
        const uint64_t at = (uint64_t)q * dd;
        if (at > 0) check_one(&log, dd, (uint32_t)(at - 1));
        check_one(&log, dd, (uint32_t)at);
      }
      check_one(&log, dd, N_MAX);
      check_one(&log, dd, N_MAX - 1);
    }
  }
  assert_none(&log);
}
END_TEST

START_TEST(random_pairs) {
  mismatches log = {0, ""};
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 2000000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const uint32_t n = (uint32_t)(x & N_MAX);
    /* divisors spread over every magnitude: a random width, then bits */
    const uint32_t width = (uint32_t)(x >> 40) % 31u + 1u;
    uint32_t d = (uint32_t)(x >> 33) & ((1u << width) - 1u);
    if (d == 0) d = 1;
    check_one(&log, d, n);
  }
  assert_none(&log);
}
END_TEST

int main(void) {
  Suite *s = suite_create("fast_div");
  TCase *tc = tcase_create("quotients");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, small_divisors_at_every_step);
  tcase_add_test(tc, divisors_around_powers_of_two);
  tcase_add_test(tc, random_pairs);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
