/* tests/test_codec_tables.c: the library's element load and store
 * (tp_dtype_load, tp_dtype_store) against the reference's own tables of
 * every code's value (tools/reference/codec.h), which the f64 reference
 * and the generator's checks read through.
 *
 * - Every code of every dtype (all 2^16 of bf16 and f16, a sweep of f32)
 *   loads as the table's value, NaN as NaN, zeros with their sign, packed
 *   e2m1 from either nibble.
 * - Every finite value of the narrow formats stores as its own code, and
 *   NaN as a NaN code (e2m1, which has none, as +0).
 * - Rounding: the midpoint of two adjacent values stores as the even code
 *   of the two (ties to even), the floats either side of it as the nearer;
 *   e2m1's and ue8m0's ties are also listed by hand.
 * - The tables themselves at the values the format definitions name. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "tilepipe/tilepipe.h"
#include "tools/reference/codec.h"

/* The narrow formats: their codes (ue4m3's bit 7 carries nothing). */
static const struct {
  tp_dtype dtype;
  uint32_t codes;
} narrow[] = {{TP_DTYPE_E2M1, 16},   {TP_DTYPE_E4M3, 256},  {TP_DTYPE_E5M2, 256},
              {TP_DTYPE_UE4M3, 128}, {TP_DTYPE_UE8M0, 256}, {TP_DTYPE_S8, 256}};
#define NARROW (sizeof narrow / sizeof narrow[0])

static int same(double want, double got) {
  if (isnan(want)) return isnan(got);
  return want == got && !signbit(want) == !signbit(got);
}

/* Code c written as element i of buf, in dtype's storage. */
static void put_code(tp_dtype dtype, unsigned char *buf, int64_t i, uint32_t c) {
  const int bits = tp_dtype_bits(dtype);
  if (bits == 4) {
    unsigned char *byte = &buf[i / 2];
    *byte = (unsigned char)(i % 2 ? (*byte & 0x0F) | (c << 4) : (*byte & 0xF0) | c);
  } else {
    memcpy(buf + i * bits / 8, &c, (size_t)bits / 8); /* little-endian */
  }
}

/* Element i of buf as a code. */
static uint32_t get_code(tp_dtype dtype, const unsigned char *buf, int64_t i) {
  const int bits = tp_dtype_bits(dtype);
  if (bits == 4) return i % 2 ? buf[i / 2] >> 4 : buf[i / 2] & 0xFu;
  uint32_t c = 0;
  memcpy(&c, buf + i * bits / 8, (size_t)bits / 8);
  return c;
}

/* Every code written at element 1 (e2m1: a high nibble) and element 2 (a
 * low one), the other elements holding 0xFF bytes around it. */
static void check_loads(tp_dtype dtype, uint32_t codes) {
  long bad = 0;
  char first[160] = "";
  for (uint32_t c = 0; c < codes; c++) {
    for (int64_t i = 1; i <= 2; i++) {
      unsigned char buf[16];
      memset(buf, 0xFF, sizeof buf);
      put_code(dtype, buf, i, c);
      const double want = tp_ref_code_value(dtype, c);
      const double got = tp_dtype_load(dtype, buf, i), ref = tp_ref_load(dtype, buf, i);
      if (!same(want, got) || !same(want, ref)) {
        if (bad++ == 0)
          snprintf(first, sizeof first, "%s code %#x at %lld: load %a, table %a, ref load %a",
                   tp_dtype_name(dtype), c, (long long)i, got, want, ref);
      }
    }
  }
  ck_assert_msg(bad == 0, "%ld mismatches; first: %s", bad, first);
}

START_TEST(test_load_every_code) {
  for (size_t f = 0; f < NARROW; f++) check_loads(narrow[f].dtype, narrow[f].codes);
  check_loads(TP_DTYPE_BF16, 1u << 16);
  check_loads(TP_DTYPE_F16, 1u << 16);
  long bad = 0;
  for (uint64_t c = 0; c < (1ull << 32); c += 0x10001) {
    unsigned char buf[8];
    put_code(TP_DTYPE_F32, buf, 1, (uint32_t)c);
    bad += !same(tp_ref_code_value(TP_DTYPE_F32, (uint32_t)c), tp_dtype_load(TP_DTYPE_F32, buf, 1));
  }
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* v stored as element 1, read back as a code. */
static uint32_t stored(tp_dtype dtype, float v) {
  unsigned char buf[16];
  memset(buf, 0, sizeof buf);
  tp_dtype_store(dtype, buf, 1, v);
  return get_code(dtype, buf, 1);
}

START_TEST(test_store_every_value) {
  for (size_t f = 0; f < NARROW; f++) {
    const tp_dtype dt = narrow[f].dtype;
    for (uint32_t c = 0; c < narrow[f].codes; c++) {
      const double v = tp_ref_code_value(dt, c);
      if (isnan(v)) {
        ck_assert_msg(isnan(tp_ref_code_value(dt, stored(dt, (float)v))),
                      "%s: NaN stores as non-NaN %#x", tp_dtype_name(dt), stored(dt, (float)v));
        continue;
      }
      ck_assert_msg(stored(dt, (float)v) == c, "%s: %a stores as %#x, not its code %#x",
                    tp_dtype_name(dt), v, stored(dt, (float)v), c);
    }
  }
  ck_assert_uint_eq(stored(TP_DTYPE_E2M1, NAN), 0); /* e2m1 has no NaN */
  for (uint32_t c = 0; c < (1u << 16); c++) {
    const double b = tp_ref_code_value(TP_DTYPE_BF16, c), h = tp_ref_code_value(TP_DTYPE_F16, c);
    ck_assert_msg(isnan(b) || stored(TP_DTYPE_BF16, (float)b) == c, "bf16 %#x", c);
    ck_assert_msg(isnan(h) || stored(TP_DTYPE_F16, (float)h) == c, "f16 %#x", c);
  }
}
END_TEST

/* Ties to even between every two adjacent non-negative finite values of a
 * float format, and the nearer value just off each midpoint. */
START_TEST(test_store_rounds_to_nearest_even) {
  for (size_t f = 0; f < NARROW; f++) {
    const tp_dtype dt = narrow[f].dtype;
    if (dt == TP_DTYPE_S8) continue; /* integers: tests/test_dtype.c */
    uint32_t prev = 0;
    for (uint32_t c = 1; c < narrow[f].codes; c++) {
      const double lo = tp_ref_code_value(dt, prev), hi = tp_ref_code_value(dt, c);
      if (!(hi > lo) || isinf(hi)) continue; /* NaN, negatives, infinity */
      const float mid = (float)((lo + hi) / 2);
      ck_assert_msg((double)mid == (lo + hi) / 2, "%s: midpoint of %a and %a", tp_dtype_name(dt),
                    lo, hi);
      const uint32_t even = prev % 2 == 0 ? prev : c;
      ck_assert_msg(stored(dt, mid) == even, "%s: %a (between codes %#x and %#x) stores as %#x",
                    tp_dtype_name(dt), (double)mid, prev, c, stored(dt, mid));
      ck_assert_uint_eq(stored(dt, nextafterf(mid, 0.0f)), prev);
      ck_assert_uint_eq(stored(dt, nextafterf(mid, INFINITY)), c);
      prev = c;
    }
  }
}
END_TEST

/* e2m1's and ue8m0's ties by hand: value, the code it stores as. */
START_TEST(test_ties_by_hand) {
  static const struct { float v; uint32_t e2m1; } e2m1[] = {
      {0.25f, 0x0}, {0.75f, 0x2}, {1.25f, 0x2}, {1.75f, 0x4}, {2.5f, 0x4}, {3.5f, 0x6},
      {5.0f, 0x6},  {-0.75f, 0xA}, {-5.0f, 0xE}};
  for (size_t i = 0; i < sizeof e2m1 / sizeof e2m1[0]; i++)
    ck_assert_msg(stored(TP_DTYPE_E2M1, e2m1[i].v) == e2m1[i].e2m1, "e2m1 %g stores as %#x",
                  (double)e2m1[i].v, stored(TP_DTYPE_E2M1, e2m1[i].v));
  /* ue8m0: 1.5 * 2^e lies between codes e + 127 and e + 128; the even wins. */
  static const struct { float v; uint32_t ue8m0; } e8[] = {
      {1.5f, 128}, {3.0f, 128}, {6.0f, 130}, {0.75f, 126}, {0x1.8p-127f, 0}, {0x1.8p126f, 254}};
  for (size_t i = 0; i < sizeof e8 / sizeof e8[0]; i++)
    ck_assert_msg(stored(TP_DTYPE_UE8M0, e8[i].v) == e8[i].ue8m0, "ue8m0 %a stores as %u",
                  (double)e8[i].v, stored(TP_DTYPE_UE8M0, e8[i].v));
}
END_TEST

/* The tables at the values the definitions name. */
START_TEST(test_tables_named_values) {
  ck_assert(tp_ref_code_value(TP_DTYPE_E2M1, 0x7) == 6.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_E2M1, 0x1) == 0.5);
  ck_assert(signbit(tp_ref_code_value(TP_DTYPE_E2M1, 0x8)));
  ck_assert(tp_ref_code_value(TP_DTYPE_E4M3, 0x7E) == 448.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_E4M3, 0x01) == 0x1p-9);
  ck_assert(tp_ref_code_value(TP_DTYPE_E4M3, 0x38) == 1.0);
  ck_assert(isnan(tp_ref_code_value(TP_DTYPE_E4M3, 0xFF)));
  ck_assert(tp_ref_code_value(TP_DTYPE_E5M2, 0x7B) == 57344.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_E5M2, 0x01) == 0x1p-16);
  ck_assert(isinf(tp_ref_code_value(TP_DTYPE_E5M2, 0xFC)));
  ck_assert(isnan(tp_ref_code_value(TP_DTYPE_E5M2, 0x7D)));
  ck_assert(tp_ref_code_value(TP_DTYPE_UE4M3, 0x7E) == 448.0);
  ck_assert(isnan(tp_ref_code_value(TP_DTYPE_UE4M3, 0x7F)));
  ck_assert(tp_ref_code_value(TP_DTYPE_UE4M3, 0xB8) == 1.0); /* bit 7 ignored */
  ck_assert(tp_ref_code_value(TP_DTYPE_UE8M0, 127) == 1.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_UE8M0, 0) == 0x1p-127);
  ck_assert(tp_ref_code_value(TP_DTYPE_UE8M0, 254) == 0x1p127);
  ck_assert(isnan(tp_ref_code_value(TP_DTYPE_UE8M0, 255)));
  ck_assert(tp_ref_code_value(TP_DTYPE_BF16, 0x3F80) == 1.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_BF16, 0x0001) == 0x1p-133);
  ck_assert(tp_ref_code_value(TP_DTYPE_F16, 0x3C00) == 1.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_F16, 0x7BFF) == 65504.0);
  ck_assert(tp_ref_code_value(TP_DTYPE_F16, 0x0001) == 0x1p-24);
  ck_assert(tp_ref_code_value(TP_DTYPE_F16, 0xFC00) == -INFINITY);
  ck_assert(tp_ref_code_value(TP_DTYPE_S8, 0x80) == -128.0);
  ck_assert(isnan(tp_ref_code_value(TP_DTYPE_COUNT, 0)));
}
END_TEST

int main(void) {
  Suite *s = suite_create("codec_tables");
  TCase *tc = tcase_create("codes");
  tcase_add_test(tc, test_load_every_code);
  tcase_add_test(tc, test_store_every_value);
  tcase_add_test(tc, test_store_rounds_to_nearest_even);
  tcase_add_test(tc, test_ties_by_hand);
  tcase_add_test(tc, test_tables_named_values);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
