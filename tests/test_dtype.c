/* tests/test_dtype.c: element types, their codecs, tensors, statuses.
 *
 * The codecs are checked against a reference written here independently of
 * tilepipe/plugin/dtype_codec.h: each format is described by its bit fields and
 * decoded with ldexp in double; encoding is checked against the nearest
 * entry of the sorted table of every representable value (ties to the even
 * code), so the reference shares no arithmetic with the codec. Every code of
 * every narrow format is decoded and round-tripped, every pair of adjacent
 * values has its midpoint and the f32 values either side tested, and a
 * strided sweep of f32 bit patterns is encoded in every format. The integer
 * s8 has a reference of its own: the byte read as int8_t, and encoding as
 * rint in double (ties to even) clamped to -128..127.
 *
 * Loops count mismatches and assert once (Check records a location per
 * assertion, too slow for millions), reporting the first mismatch. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/tilepipe.h"

/* ------------------------------------------------------------ mismatch log */

typedef struct mismatches {
  long count;
  char first[256];
} mismatches;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void note(mismatches *log, const char *fmt, ...) {
  if (log->count++ == 0) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(log->first, sizeof log->first, fmt, ap);
    va_end(ap);
  }
}

#define assert_none(log) \
  ck_assert_msg((log).count == 0, "%ld mismatches; first: %s", (log).count, (log).first)

static uint32_t bits_of(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static float float_of(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

/* ------------------------------------------------------------ reference formats */

typedef enum special {
  SPECIAL_IEEE, /* top exponent: mantissa 0 is inf, else NaN */
  SPECIAL_FN,   /* only top exponent with all-ones mantissa is NaN */
  SPECIAL_NONE, /* every code is finite */
  SPECIAL_E8M0  /* 2^(e-127), 0xFF NaN, no zero */
} special;

typedef struct ref_format {
  tp_dtype dtype;
  const char *name;
  int ebits, mbits, is_signed;
  special special;
  unsigned storage_bits; /* bits a code occupies in memory */
  uint32_t nan_code;     /* canonical NaN, or what NaN encodes to */
  double max;            /* largest finite value, from the format's spec */
} ref_format;

static const ref_format formats[] = {
    {TP_DTYPE_BF16, "bf16", 8, 7, 1, SPECIAL_IEEE, 16, 0x7FC0, 0x1.FEp127},
    {TP_DTYPE_F16, "f16", 5, 10, 1, SPECIAL_IEEE, 16, 0x7E00, 65504.0},
    {TP_DTYPE_E4M3, "e4m3", 4, 3, 1, SPECIAL_FN, 8, 0x7F, 448.0},
    {TP_DTYPE_E5M2, "e5m2", 5, 2, 1, SPECIAL_IEEE, 8, 0x7E, 57344.0},
    {TP_DTYPE_UE8M0, "ue8m0", 8, 0, 0, SPECIAL_E8M0, 8, 0xFF, 0x1p127},
    {TP_DTYPE_E2M1, "e2m1", 2, 1, 1, SPECIAL_NONE, 4, 0x0, 6.0},
    {TP_DTYPE_UE4M3, "ue4m3", 4, 3, 0, SPECIAL_FN, 8, 0x7F, 448.0},
};
#define NUM_FORMATS ((int)(sizeof formats / sizeof formats[0]))

static uint32_t sign_bit(const ref_format *f) {
  return f->is_signed ? 1u << (f->ebits + f->mbits) : 0u;
}

/* Bits of a code that carry meaning (ue4m3 leaves bit 7 unused). */
static uint32_t code_mask(const ref_format *f) {
  return (1u << (f->ebits + f->mbits + f->is_signed)) - 1u;
}

static double ref_decode(const ref_format *f, uint32_t code) {
  code &= code_mask(f);
  int negative = f->is_signed && (code >> (f->ebits + f->mbits)) & 1u;
  int e = (int)((code >> f->mbits) & ((1u << f->ebits) - 1u));
  int m = (int)(code & ((1u << f->mbits) - 1u));
  int top = (1 << f->ebits) - 1;
  int bias = (1 << (f->ebits - 1)) - 1;
  double v;
  if (f->special == SPECIAL_E8M0)
    return e == 255 ? NAN : ldexp(1.0, e - 127);
  if (f->special == SPECIAL_IEEE && e == top)
    v = m == 0 ? INFINITY : NAN;
  else if (f->special == SPECIAL_FN && e == top && m == (1 << f->mbits) - 1)
    v = NAN;
  else if (e == 0)
    v = ldexp(m, 1 - bias - f->mbits);
  else
    v = ldexp((1 << f->mbits) + m, e - bias - f->mbits);
  return negative ? -v : v;
}

/* ------------------------------------------------------------ reference encoder */

typedef struct entry {
  double value;
  uint32_t code;
} entry;

/* Non-negative magnitudes in increasing order; for formats with an infinity
 * the last entry is the value one ulp above max, carrying the inf code: IEEE
 * rounding treats it as the next value, so max + half an ulp is a tie. */
typedef struct table {
  const ref_format *f;
  int n;
  entry e[1 << 15];
} table;

static table *table_build(const ref_format *f) {
  table *t = calloc(1, sizeof *t);
  ck_assert_ptr_nonnull(t);
  t->f = f;
  uint32_t magnitudes = 1u << (f->ebits + f->mbits);
  for (uint32_t c = 0; c < magnitudes; c++) {
    double v = ref_decode(f, c);
    if (isnan(v))
      continue;
    if (isinf(v)) {
      double max = t->e[t->n - 1].value, below = t->e[t->n - 2].value;
      v = max + (max - below);
    }
    ck_assert_msg(t->n == 0 || v > t->e[t->n - 1].value, "%s: code %#x not increasing", f->name, c);
    t->e[t->n].value = v;
    t->e[t->n].code = c;
    t->n++;
  }
  return t;
}

static int has_inf(const table *t) { return t->f->special == SPECIAL_IEEE; }

static uint32_t even_of(uint32_t a, uint32_t b) { return (a & 1u) == 0 ? a : b; }

/* Magnitude code nearest to v >= 0. */
static uint32_t table_nearest(const table *t, double v) {
  if (v <= t->e[0].value)
    return t->e[0].code;
  if (v >= t->e[t->n - 1].value)
    return t->e[t->n - 1].code;
  int lo = 0, hi = t->n - 1; /* invariant: e[lo] <= v < e[hi] */
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (t->e[mid].value <= v)
      lo = mid;
    else
      hi = mid;
  }
  double mid = (t->e[lo].value + t->e[hi].value) / 2;
  if (v < mid)
    return t->e[lo].code;
  if (v > mid)
    return t->e[hi].code;
  return even_of(t->e[lo].code, t->e[hi].code);
}

static uint32_t ref_encode(const table *t, float x) {
  const ref_format *f = t->f;
  if (isnan(x))
    return f->nan_code;
  if (signbit(x) && !f->is_signed)
    return 0;
  /* Overflow needs no case: the last entry is max (saturating formats) or
   * the inf code one ulp above it, which rounding reaches at max + ulp/2. */
  uint32_t code = table_nearest(t, fabs((double)x));
  return code | (signbit(x) ? sign_bit(f) : 0u);
}

/* ------------------------------------------------------------ every code */

static int same_value(double want, float got) {
  if (isnan(want))
    return isnan(got);
  return (double)got == want && !signbit(want) == !signbit(got);
}

START_TEST(test_decode_every_code) {
  const ref_format *f = &formats[_i];
  mismatches log = {0};
  for (uint32_t c = 0; c < (1u << f->storage_bits); c++) {
    double want = ref_decode(f, c);
    float got = tp_dtype_decode(f->dtype, c);
    if (!same_value(want, got))
      note(&log, "%s code %#x: got %a, want %a", f->name, c, got, want);
    /* Bits above the stored code are ignored. */
    float high = tp_dtype_decode(f->dtype, c | (0xA5A5A5A5u << f->storage_bits));
    if (!same_value(want, high))
      note(&log, "%s code %#x with high bits: got %a, want %a", f->name, c, high, want);
  }
  assert_none(log);
}
END_TEST

START_TEST(test_roundtrip_every_code) {
  const ref_format *f = &formats[_i];
  mismatches log = {0};
  for (uint32_t c = 0; c < (1u << f->storage_bits); c++) {
    uint32_t want = isnan(ref_decode(f, c)) ? f->nan_code : c & code_mask(f);
    uint32_t got = tp_dtype_encode(f->dtype, tp_dtype_decode(f->dtype, c));
    if (got != want)
      note(&log, "%s code %#x: encode(decode) = %#x, want %#x", f->name, c, got, want);
  }
  assert_none(log);
}
END_TEST

START_TEST(test_signed_zero) {
  const ref_format *f = &formats[_i];
  ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0.0f), 0u);
  ck_assert_uint_eq(tp_dtype_encode(f->dtype, -0.0f), sign_bit(f));
  if (f->is_signed) {
    float z = tp_dtype_decode(f->dtype, sign_bit(f));
    ck_assert(z == 0.0f && signbit(z));
    /* Negatives too small for the smallest subnormal round to -0. */
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, -FLT_TRUE_MIN), sign_bit(f));
  }
}
END_TEST

START_TEST(test_e2m1_values) {
  static const float values[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  for (uint32_t c = 0; c < 8; c++) {
    ck_assert_float_eq(tp_dtype_decode(TP_DTYPE_E2M1, c), values[c]);
    ck_assert_float_eq(tp_dtype_decode(TP_DTYPE_E2M1, c | 8u), -values[c]);
    ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, -values[c]), c | 8u);
  }
  ck_assert(signbit(tp_dtype_decode(TP_DTYPE_E2M1, 0x8)));
  /* No NaN in e2m1: NaN of either sign is +0. */
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, NAN), 0u);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, -NAN), 0u);
}
END_TEST

/* ------------------------------------------------------------ rounding */

/* Expects code `want` for x and, for signed formats, want|sign for -x. */
static void check_both_signs(mismatches *log, const ref_format *f, float x, uint32_t want) {
  uint32_t got = tp_dtype_encode(f->dtype, x);
  if (got != want)
    note(log, "%s encode(%a) = %#x, want %#x", f->name, x, got, want);
  if (f->is_signed) {
    got = tp_dtype_encode(f->dtype, -x);
    if (got != (want | sign_bit(f)))
      note(log, "%s encode(%a) = %#x, want %#x", f->name, -x, got, want | sign_bit(f));
  }
}

START_TEST(test_midpoints) {
  const ref_format *f = &formats[_i];
  table *t = table_build(f);
  mismatches log = {0};
  for (int i = 0; i + 1 < t->n; i++) {
    entry a = t->e[i], b = t->e[i + 1];
    double mid = (a.value + b.value) / 2;
    float x = (float)mid;
    ck_assert_msg((double)x == mid, "%s: midpoint %a is not an f32", f->name, mid);
    check_both_signs(&log, f, x, even_of(a.code, b.code));
    check_both_signs(&log, f, nextafterf(x, 0.0f), a.code);
    check_both_signs(&log, f, nextafterf(x, INFINITY), b.code);
    /* The representable values themselves. */
    if (!isinf(ref_decode(f, b.code)))
      check_both_signs(&log, f, (float)b.value, b.code);
  }
  assert_none(log);
  free(t);
}
END_TEST

START_TEST(test_overflow) {
  const ref_format *f = &formats[_i];
  table *t = table_build(f);
  mismatches log = {0};
  uint32_t max_code = t->e[t->n - (has_inf(t) ? 2 : 1)].code;
  ck_assert_msg(ref_decode(f, max_code) == f->max, "%s: max is %a", f->name, ref_decode(f, max_code));
  if (has_inf(t)) {
    uint32_t inf_code = t->e[t->n - 1].code;
    ck_assert(isinf(ref_decode(f, inf_code)));
    double ulp = t->e[t->n - 1].value - f->max;
    float threshold = (float)(f->max + ulp / 2);
    ck_assert((double)threshold == f->max + ulp / 2);
    check_both_signs(&log, f, threshold, inf_code);
    check_both_signs(&log, f, nextafterf(threshold, 0.0f), max_code);
    check_both_signs(&log, f, FLT_MAX, inf_code);
    check_both_signs(&log, f, INFINITY, inf_code);
  } else {
    check_both_signs(&log, f, (float)f->max, max_code);
    check_both_signs(&log, f, nextafterf((float)f->max, INFINITY), max_code);
    check_both_signs(&log, f, (float)(f->max * 1.5), max_code);
    check_both_signs(&log, f, (float)(f->max * 1024), max_code);
    check_both_signs(&log, f, FLT_MAX, max_code);
    check_both_signs(&log, f, INFINITY, max_code);
  }
  assert_none(log);
  free(t);
}
END_TEST

/* The documented constants, spelled out. */
START_TEST(test_overflow_constants) {
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E4M3, 448.0f), 0x7E);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E4M3, 464.0f), 0x7E); /* tie, 0x7E even */
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E4M3, 1e6f), 0x7E);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E4M3, -1e6f), 0xFE);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E4M3, -INFINITY), 0xFE);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_UE4M3, 1e6f), 0x7E);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E5M2, 57344.0f), 0x7B);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E5M2, 61440.0f), 0x7C);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E5M2, nextafterf(61440.0f, 0.0f)), 0x7B);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E5M2, -61440.0f), 0xFC);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_F16, 65504.0f), 0x7BFF);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_F16, 65520.0f), 0x7C00);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_F16, nextafterf(65520.0f, 0.0f)), 0x7BFF);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_BF16, 0x1.FF0p127f), 0x7F80);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_BF16, nextafterf(0x1.FF0p127f, 0.0f)), 0x7F7F);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, 5.0f), 0x6); /* tie 4|6: code 6 even */
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, 7.0f), 0x7);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, -100.0f), 0xF);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_E2M1, INFINITY), 0x7);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_UE8M0, 0x1p127f), 0xFE);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_UE8M0, FLT_MAX), 0xFE);
  ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_UE8M0, INFINITY), 0xFE);
}
END_TEST

START_TEST(test_nan_inputs) {
  const ref_format *f = &formats[_i];
  static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu, 0x7FBFFFFFu};
  for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, float_of(nans[i])), f->nan_code);
  if (f->special != SPECIAL_NONE)
    ck_assert(isnan(tp_dtype_decode(f->dtype, f->nan_code)));
}
END_TEST

START_TEST(test_underflow) {
  const ref_format *f = &formats[_i];
  table *t = table_build(f);
  if (f->special == SPECIAL_E8M0) {
    /* No zero: everything up to the first tie is code 0 (2^-127). */
    ck_assert(ldexp(1.0, -127) == (double)tp_dtype_decode(f->dtype, 0));
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0.0f), 0);
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, FLT_TRUE_MIN), 0);
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0x1p-127f), 0);
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0x1.8p-127f), 0);
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, nextafterf(0x1.8p-127f, 1.0f)), 1);
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0x1p-126f), 1);
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0x1.8p-126f), 2); /* tie 1|2: even */
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0x1.8p0f), 128);  /* tie 127|128 */
    ck_assert_uint_eq(tp_dtype_encode(f->dtype, 0x1.8p1f), 128);  /* tie 128|129 */
  } else {
    double smallest = t->e[1].value; /* e[0] is zero */
    ck_assert_uint_eq(t->e[0].code, 0);
    ck_assert_uint_eq(t->e[1].code, 1);
    mismatches log = {0};
    check_both_signs(&log, f, (float)smallest, 1);
    check_both_signs(&log, f, (float)(smallest / 2), 0); /* tie 0|1: even */
    check_both_signs(&log, f, nextafterf((float)(smallest / 2), 1.0f), 1);
    check_both_signs(&log, f, (float)(smallest / 4), 0);
    check_both_signs(&log, f, FLT_TRUE_MIN, 0);
    /* bf16 shares f32's exponent range; the others end far above FLT_MIN. */
    check_both_signs(&log, f, FLT_MIN, f->dtype == TP_DTYPE_BF16 ? 0x0080 : 0);
    assert_none(log);
  }
  free(t);
}
END_TEST

START_TEST(test_unsigned_negatives) {
  static const float negatives[] = {-0.0f, -FLT_TRUE_MIN, -1e-30f, -0.5f, -1.0f, -448.0f, -1e30f, -INFINITY};
  for (size_t i = 0; i < sizeof negatives / sizeof negatives[0]; i++) {
    ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_UE4M3, negatives[i]), 0);
    ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_UE8M0, negatives[i]), 0);
  }
  ck_assert_float_eq(tp_dtype_decode(TP_DTYPE_UE4M3, 0), 0.0f);
  ck_assert(!signbit(tp_dtype_decode(TP_DTYPE_UE4M3, 0x80))); /* bit 7 is no sign */
}
END_TEST

/* ------------------------------------------------------------ sweeps */

/* Every 2^10-th f32 bit pattern, once as is and once with scrambled low
 * bits, so that both exact short mantissas (ties) and arbitrary ones occur,
 * across all exponents and both signs. */
START_TEST(test_sweep) {
  const ref_format *f = &formats[_i];
  table *t = table_build(f);
  mismatches log = {0};
  for (uint32_t i = 0; i < (1u << 22); i++) {
    uint32_t patterns[2] = {i << 10, (i << 10) | ((i * 2654435761u) >> 22)};
    for (int p = 0; p < 2; p++) {
      float x = float_of(patterns[p]);
      uint32_t want = ref_encode(t, x), got = tp_dtype_encode(f->dtype, x);
      if (got != want)
        note(&log, "%s encode(%a = %#010x) = %#x, want %#x", f->name, x, patterns[p], got, want);
    }
  }
  assert_none(log);
  free(t);
}
END_TEST

/* Every f32 within 8 ulps of each rounding boundary (midpoints of adjacent
 * values, and the values themselves), both signs: where RNE mistakes live. */
START_TEST(test_near_boundaries) {
  const ref_format *f = &formats[_i];
  table *t = table_build(f);
  mismatches log = {0};
  for (int i = 0; i + 1 < t->n; i++) {
    double points[2] = {t->e[i].value, (t->e[i].value + t->e[i + 1].value) / 2};
    for (int p = 0; p < 2; p++) {
      uint32_t centre = bits_of((float)points[p]);
      for (uint32_t d = 0; d < 17; d++) {
        uint32_t u = centre + d - 8;
        if (centre + d < 8)
          continue; /* below +0 */
        for (uint32_t s = 0; s < 2; s++) {
          float x = float_of(u | (s << 31));
          uint32_t want = ref_encode(t, x), got = tp_dtype_encode(f->dtype, x);
          if (got != want)
            note(&log, "%s encode(%a) = %#x, want %#x", f->name, x, got, want);
        }
      }
    }
  }
  assert_none(log);
  free(t);
}
END_TEST

START_TEST(test_f32_identity) {
  mismatches log = {0};
  for (uint64_t u = 0; u <= UINT32_MAX; u += 4099) {
    float x = float_of((uint32_t)u);
    if (isnan(x)) {
      if (!isnan(tp_dtype_decode(TP_DTYPE_F32, (uint32_t)u)))
        note(&log, "f32 NaN %#x decodes to a number", (unsigned)u);
      continue;
    }
    if (tp_dtype_encode(TP_DTYPE_F32, x) != (uint32_t)u)
      note(&log, "f32 encode(%#x) = %#x", (unsigned)u, tp_dtype_encode(TP_DTYPE_F32, x));
    if (bits_of(tp_dtype_decode(TP_DTYPE_F32, (uint32_t)u)) != (uint32_t)u)
      note(&log, "f32 decode(%#x) = %#x", (unsigned)u, bits_of(tp_dtype_decode(TP_DTYPE_F32, (uint32_t)u)));
  }
  assert_none(log);
}
END_TEST

START_TEST(test_unknown_dtype) {
  static const tp_dtype unknown[] = {TP_DTYPE_NONE, TP_DTYPE_COUNT, (tp_dtype)99, (tp_dtype)-1};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
    ck_assert_uint_eq(tp_dtype_encode(unknown[i], 1.0f), 0);
    ck_assert(isnan(tp_dtype_decode(unknown[i], 0x3F80)));
    ck_assert_uint_eq(tp_dtype_bits(unknown[i]), 0);
    ck_assert_uint_eq(tp_dtype_bytes(unknown[i], 10), 0);
    unsigned char buf[4] = {1, 2, 3, 4};
    ck_assert(isnan(tp_dtype_load(unknown[i], buf, 0)));
    tp_dtype_store(unknown[i], buf, 0, 1.0f);
    ck_assert_int_eq(memcmp(buf, "\1\2\3\4", 4), 0);
  }
}
END_TEST

/* ------------------------------------------------------------ s8 */

/* The s8 reference: a two's-complement byte, and for encoding the f32
 * rounded in double by rint (round to nearest, ties to even, the default
 * mode), clamped to [-128, 127]; NaN is 0. */
static int32_t s8_of_code(uint32_t code) { return (int32_t)(int8_t)(uint8_t)code; }

static uint32_t s8_ref_encode(float x) {
  if (isnan(x))
    return 0;
  double v = rint((double)x);
  v = v < -128.0 ? -128.0 : v > 127.0 ? 127.0 : v;
  return (uint32_t)(uint8_t)(int8_t)v;
}

START_TEST(test_s8_every_code) {
  mismatches log = {0};
  for (uint32_t code = 0; code < 256; code++) {
    float v = tp_dtype_decode(TP_DTYPE_S8, code);
    if (v != (float)s8_of_code(code))
      note(&log, "s8 decode(%#x) = %g, want %d", code, (double)v, s8_of_code(code));
    if (tp_dtype_decode(TP_DTYPE_S8, code | 0xABCD00u) != v) /* high bits ignored */
      note(&log, "s8 decode(%#x) depends on bits above the byte", code | 0xABCD00u);
    if (tp_dtype_encode(TP_DTYPE_S8, v) != code)
      note(&log, "s8 encode(%g) = %#x, want %#x", (double)v, tp_dtype_encode(TP_DTYPE_S8, v), code);
  }
  assert_none(log);
  ck_assert_float_eq(tp_dtype_decode(TP_DTYPE_S8, 0x80), -128.0f);
  ck_assert_float_eq(tp_dtype_decode(TP_DTYPE_S8, 0x7F), 127.0f);
  ck_assert_float_eq(tp_dtype_decode(TP_DTYPE_S8, 0xFF), -1.0f);
}
END_TEST

/* Ties go to the even integer, both signs; the f32 neighbours of every
 * half-integer round to the nearer side. */
START_TEST(test_s8_rounding) {
  static const struct {
    float x;
    int32_t want;
  } cases[] = {{0.5f, 0},     {1.5f, 2},    {2.5f, 2},     {-0.5f, 0},   {-1.5f, -2},
               {-2.5f, -2},   {126.5f, 126}, {-127.5f, -128}, {0.49999997f, 0}, {0.50000006f, 1},
               {-0.4f, 0},    {-0.0f, 0},   {3.75f, 4},    {-3.25f, -3}, {FLT_TRUE_MIN, 0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    ck_assert_msg(tp_dtype_encode(TP_DTYPE_S8, cases[i].x) == ((uint32_t)cases[i].want & 0xFFu),
                  "s8 encode(%a) = %#x, want %d", (double)cases[i].x,
                  tp_dtype_encode(TP_DTYPE_S8, cases[i].x), cases[i].want);
  mismatches log = {0};
  for (int32_t n = -129; n <= 128; n++) {
    uint32_t centre = bits_of((float)n + 0.5f);
    for (uint32_t d = 0; d < 17; d++) {
      float x = float_of(centre + d - 8);
      if (tp_dtype_encode(TP_DTYPE_S8, x) != s8_ref_encode(x))
        note(&log, "s8 encode(%a) = %#x, want %#x", (double)x, tp_dtype_encode(TP_DTYPE_S8, x),
             s8_ref_encode(x));
    }
  }
  assert_none(log);
}
END_TEST

/* Beyond the range every value saturates, infinities included; NaN is 0. */
START_TEST(test_s8_saturation) {
  static const float high[] = {127.49f, 127.5f, 128.0f, 200.7f, 1e6f, FLT_MAX, INFINITY};
  static const float low[] = {-128.49f, -128.5f, -129.0f, -1e6f, -FLT_MAX, -INFINITY};
  for (size_t i = 0; i < sizeof high / sizeof high[0]; i++)
    ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_S8, high[i]), 0x7F);
  for (size_t i = 0; i < sizeof low / sizeof low[0]; i++)
    ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_S8, low[i]), 0x80);
  static const uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu};
  for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
    ck_assert_uint_eq(tp_dtype_encode(TP_DTYPE_S8, float_of(nans[i])), 0);
}
END_TEST

/* Every 2^10-th f32 bit pattern, plain and with scrambled low bits. */
START_TEST(test_s8_sweep) {
  mismatches log = {0};
  for (uint32_t i = 0; i < (1u << 22); i++) {
    uint32_t patterns[2] = {i << 10, (i << 10) | ((i * 2654435761u) >> 22)};
    for (int p = 0; p < 2; p++) {
      float x = float_of(patterns[p]);
      if (tp_dtype_encode(TP_DTYPE_S8, x) != s8_ref_encode(x))
        note(&log, "s8 encode(%a = %#010x) = %#x, want %#x", (double)x, patterns[p],
             tp_dtype_encode(TP_DTYPE_S8, x), s8_ref_encode(x));
    }
  }
  assert_none(log);
}
END_TEST

/* ------------------------------------------------------------ load/store */

START_TEST(test_fp4_packing) {
  unsigned char buf[6];
  for (int64_t i = 0; i < 8; i++) {
    for (uint32_t code = 0; code < 16; code++) {
      memset(buf, 0xA5, sizeof buf);
      float v = tp_dtype_decode(TP_DTYPE_E2M1, code);
      tp_dtype_store(TP_DTYPE_E2M1, buf + 1, i, v);
      for (int64_t b = 0; b < (int64_t)sizeof buf; b++) {
        unsigned char want = 0xA5;
        if (b == 1 + i / 2)
          want = i % 2 == 0 ? (unsigned char)((0xA5 & 0xF0) | code) : (unsigned char)((code << 4) | (0xA5 & 0x0F));
        ck_assert_msg(buf[b] == want, "store e2m1 #%lld code %#x: byte %lld is %#x, want %#x", (long long)i, code,
                      (long long)b, buf[b], want);
      }
      float back = tp_dtype_load(TP_DTYPE_E2M1, buf + 1, i);
      ck_assert(back == v && !signbit(back) == !signbit(v));
      /* The neighbours in the same byte still read as 0xA5's nibbles. */
      int64_t other = i ^ 1;
      ck_assert_float_eq(tp_dtype_load(TP_DTYPE_E2M1, buf + 1, other),
                         tp_dtype_decode(TP_DTYPE_E2M1, other % 2 == 0 ? 0x5 : 0xA));
    }
  }
  /* Element 2i is the low nibble: 0x21 holds 0.5 (code 1) then 1.0 (code 2). */
  unsigned char packed[1] = {0x21};
  ck_assert_float_eq(tp_dtype_load(TP_DTYPE_E2M1, packed, 0), 0.5f);
  ck_assert_float_eq(tp_dtype_load(TP_DTYPE_E2M1, packed, 1), 1.0f);
}
END_TEST

/* Wider elements at an unaligned base: bytes written are exactly the
 * element's, little-endian, and nothing around it changes. */
START_TEST(test_load_store_wide) {
  static const tp_dtype dtypes[] = {TP_DTYPE_F32,  TP_DTYPE_BF16,  TP_DTYPE_F16,
                                    TP_DTYPE_E4M3, TP_DTYPE_E5M2,  TP_DTYPE_UE8M0,
                                    TP_DTYPE_UE4M3, TP_DTYPE_S8};
  for (size_t d = 0; d < sizeof dtypes / sizeof dtypes[0]; d++) {
    unsigned bytes = tp_dtype_bits(dtypes[d]) / 8;
    for (int64_t i = 0; i < 3; i++) {
      unsigned char buf[16];
      memset(buf, 0x5A, sizeof buf);
      float v = 3.0f;
      tp_dtype_store(dtypes[d], buf + 1, i, v);
      uint32_t code = tp_dtype_encode(dtypes[d], v);
      for (unsigned b = 0; b < sizeof buf; b++) {
        unsigned lo = 1 + (unsigned)i * bytes;
        unsigned char want = b >= lo && b < lo + bytes ? (unsigned char)(code >> (8 * (b - lo))) : 0x5A;
        ck_assert_msg(buf[b] == want, "%s #%lld: byte %u is %#x, want %#x", tp_dtype_name(dtypes[d]),
                      (long long)i, b, buf[b], want);
      }
      ck_assert_float_eq(tp_dtype_load(dtypes[d], buf + 1, i), tp_dtype_decode(dtypes[d], code));
    }
  }
}
END_TEST

START_TEST(test_load_store_bad_args) {
  unsigned char buf[4] = {0x11, 0x22, 0x33, 0x44};
  ck_assert(isnan(tp_dtype_load(TP_DTYPE_F32, NULL, 0)));
  ck_assert(isnan(tp_dtype_load(TP_DTYPE_E4M3, buf + 2, -1)));
  tp_dtype_store(TP_DTYPE_F32, NULL, 0, 1.0f);
  tp_dtype_store(TP_DTYPE_E4M3, buf + 2, -1, 1.0f);
  tp_dtype_store(TP_DTYPE_E2M1, buf + 2, -1, 1.0f);
  ck_assert_int_eq(memcmp(buf, "\x11\x22\x33\x44", 4), 0);
}
END_TEST

/* ------------------------------------------------------------ names and sizes */

START_TEST(test_names) {
  static const struct {
    tp_dtype dtype;
    const char *name;
  } names[] = {{TP_DTYPE_F32, "f32"},   {TP_DTYPE_BF16, "bf16"},   {TP_DTYPE_F16, "f16"},
               {TP_DTYPE_E4M3, "e4m3"}, {TP_DTYPE_E5M2, "e5m2"},   {TP_DTYPE_UE8M0, "ue8m0"},
               {TP_DTYPE_E2M1, "e2m1"}, {TP_DTYPE_UE4M3, "ue4m3"}, {TP_DTYPE_S8, "s8"}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    ck_assert_str_eq(tp_dtype_name(names[i].dtype), names[i].name);
    ck_assert_int_eq(tp_dtype_from_name(names[i].name), names[i].dtype);
  }
  ck_assert_str_eq(tp_dtype_name(TP_DTYPE_NONE), "none");
  ck_assert_str_eq(tp_dtype_name(TP_DTYPE_COUNT), "?");
  ck_assert_str_eq(tp_dtype_name((tp_dtype)-3), "?");
  ck_assert_int_eq(tp_dtype_from_name("fp32"), TP_DTYPE_F32);
  ck_assert_int_eq(tp_dtype_from_name("float32"), TP_DTYPE_F32);
  ck_assert_int_eq(tp_dtype_from_name("bfloat16"), TP_DTYPE_BF16);
  ck_assert_int_eq(tp_dtype_from_name("half"), TP_DTYPE_F16);
  ck_assert_int_eq(tp_dtype_from_name("fp8_e4m3"), TP_DTYPE_E4M3);
  ck_assert_int_eq(tp_dtype_from_name("fp8_e5m2"), TP_DTYPE_E5M2);
  ck_assert_int_eq(tp_dtype_from_name("fp4"), TP_DTYPE_E2M1);
  ck_assert_int_eq(tp_dtype_from_name("int8"), TP_DTYPE_S8);
  static const char *unknown[] = {"none", "", "bf", "bf16 ", "BF16", "e4m3fn", "f64", "?",
                                  "u8", "INT8", "int"};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    ck_assert_msg(tp_dtype_from_name(unknown[i]) == TP_DTYPE_NONE, "\"%s\" parsed", unknown[i]);
  ck_assert_int_eq(tp_dtype_from_name(NULL), TP_DTYPE_NONE);
}
END_TEST

START_TEST(test_bits_bytes) {
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_F32), 32);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_BF16), 16);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_F16), 16);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_E4M3), 8);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_E5M2), 8);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_UE8M0), 8);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_UE4M3), 8);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_E2M1), 4);
  ck_assert_uint_eq(tp_dtype_bits(TP_DTYPE_S8), 8);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_S8, 5), 5);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_F32, 3), 12);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_BF16, 3), 6);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_UE8M0, 3), 3);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_E2M1, 1), 1);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_E2M1, 3), 2);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_E2M1, 4), 2);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_E2M1, INT64_MAX), (size_t)1 << 62);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_F32, 0), 0);
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_F32, -5), 0);
  /* Too large for size_t: saturates rather than wrapping to a small size. */
  ck_assert_uint_eq(tp_dtype_bytes(TP_DTYPE_F32, INT64_MAX), SIZE_MAX);
}
END_TEST

/* ------------------------------------------------------------ tensors */

START_TEST(test_tensor_constructors) {
  int data;
  tp_tensor m = tp_tensor_matrix(TP_DTYPE_BF16, 3, 5, 8, &data);
  ck_assert_int_eq(m.dtype, TP_DTYPE_BF16);
  ck_assert_int_eq(m.layout, TP_LAYOUT_STRIDED);
  ck_assert_int_eq(m.rank, 2);
  ck_assert_int_eq(m.shape[0], 3);
  ck_assert_int_eq(m.shape[1], 5);
  ck_assert_int_eq(m.stride[0], 8);
  ck_assert_int_eq(m.stride[1], 1);
  ck_assert_int_eq(m.shape[2] | m.shape[3] | m.stride[2] | m.stride[3], 0);
  ck_assert_ptr_eq(m.data, &data);
  tp_tensor s = tp_tensor_sf_128x4(TP_DTYPE_UE4M3, 256, 12, NULL);
  ck_assert_int_eq(s.dtype, TP_DTYPE_UE4M3);
  ck_assert_int_eq(s.layout, TP_LAYOUT_SF_128X4);
  ck_assert_int_eq(s.rank, 2);
  ck_assert_int_eq(s.shape[0], 256);
  ck_assert_int_eq(s.shape[1], 12);
  ck_assert_ptr_null(s.data);
}
END_TEST

START_TEST(test_span_strided) {
  tp_tensor t = tp_tensor_matrix(TP_DTYPE_F32, 4, 5, 8, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), (3 * 8 + 4 + 1) * 4);
  t = tp_tensor_matrix(TP_DTYPE_BF16, 3, 3, 3, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 18);
  t = tp_tensor_matrix(TP_DTYPE_E4M3, 1, 7, 1000, NULL); /* one row: ld does not matter */
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 7);
  /* fp4: the last element is number 6 + 4 = 10, in byte 5. */
  t = tp_tensor_matrix(TP_DTYPE_E2M1, 2, 5, 6, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 6);
  t = tp_tensor_matrix(TP_DTYPE_E2M1, 2, 4, 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 4);
  /* Rank 3, strides in any order, a broadcast (stride 0) dimension. */
  tp_tensor r3 = {TP_DTYPE_F16, TP_LAYOUT_STRIDED, 3, {2, 3, 4}, {1, 0, 2}, NULL};
  ck_assert_int_eq(tp_tensor_span_bytes(&r3), (1 + 1 * 1 + 2 * 0 + 3 * 2) * 2);
  /* Absent, empty and NULL are 0. */
  t = tp_tensor_matrix(TP_DTYPE_NONE, 4, 4, 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 0);
  t = tp_tensor_matrix(TP_DTYPE_F32, 0, 4, 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 0);
  t = tp_tensor_matrix(TP_DTYPE_F32, 4, 0, 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 0);
  ck_assert_int_eq(tp_tensor_span_bytes(NULL), 0);
}
END_TEST

START_TEST(test_span_invalid) {
  tp_tensor t = tp_tensor_matrix(TP_DTYPE_F32, -1, 4, 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t = tp_tensor_matrix(TP_DTYPE_F32, 4, 4, -4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t = tp_tensor_matrix(TP_DTYPE_F32, INT64_MAX / 2, 4, INT64_MAX / 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1); /* elements overflow */
  t = tp_tensor_matrix(TP_DTYPE_F32, 2, 1, INT64_MAX / 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1); /* bytes overflow */
  t = tp_tensor_matrix(TP_DTYPE_F32, 4, 4, 4, NULL);
  t.rank = 0;
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t.rank = TP_MAX_RANK + 1;
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t.rank = 2;
  t.layout = (tp_layout)7;
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t = tp_tensor_matrix((tp_dtype)42, 4, 4, 4, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t = tp_tensor_sf_128x4(TP_DTYPE_F32, 128, 4, NULL); /* the atoms hold bytes */
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
  t = tp_tensor_sf_128x4(TP_DTYPE_UE8M0, INT64_MAX, INT64_MAX, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), -1);
}
END_TEST

/* The span must cover every byte the tensor.h formula addresses, and be the
 * padded size: whole 128-row x 4-column atoms. */
START_TEST(test_span_sf_128x4) {
  static const int64_t shapes[][2] = {{1, 1}, {128, 4}, {129, 5}, {256, 8}, {300, 3}, {127, 9}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int64_t rows = shapes[s][0], cols = shapes[s][1];
    tp_tensor t = tp_tensor_sf_128x4(TP_DTYPE_UE8M0, rows, cols, NULL);
    int64_t col_atoms = (cols + 3) / 4, end = 0;
    for (int64_t r = 0; r < rows; r++)
      for (int64_t c = 0; c < cols; c++) {
        int64_t at = ((r / 128) * col_atoms + c / 4) * 512 + (r % 32) * 16 + ((r % 128) / 32) * 4 + c % 4;
        if (at + 1 > end)
          end = at + 1;
      }
    int64_t padded = ((rows + 127) / 128) * col_atoms * 512;
    ck_assert_int_eq(tp_tensor_span_bytes(&t), padded);
    ck_assert_int_le(end, padded);
  }
  tp_tensor t = tp_tensor_sf_128x4(TP_DTYPE_UE4M3, 129, 5, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 2 * 2 * 512);
  t = tp_tensor_sf_128x4(TP_DTYPE_UE4M3, 0, 5, NULL);
  ck_assert_int_eq(tp_tensor_span_bytes(&t), 0);
}
END_TEST

START_TEST(test_gemm_desc_init) {
  tp_gemm_desc d;
  memset(&d, 0xFF, sizeof d);
  tp_gemm_desc_init(&d, 7, 9, 11);
  ck_assert_uint_eq(d.struct_size, sizeof d);
  ck_assert_int_eq(d.m, 7);
  ck_assert_int_eq(d.n, 9);
  ck_assert_int_eq(d.k, 11);
  ck_assert_float_eq(d.alpha, 1.0f);
  ck_assert_float_eq(d.beta, 0.0f);
  const tp_tensor *tensors[] = {&d.a, &d.b, &d.a_scale, &d.b_scale, &d.c, &d.d, &d.bias};
  for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; i++) {
    ck_assert_int_eq(tensors[i]->dtype, TP_DTYPE_NONE);
    ck_assert_int_eq(tensors[i]->rank, 0);
    ck_assert_int_eq(tensors[i]->shape[0] | tensors[i]->stride[0], 0);
    ck_assert_ptr_null(tensors[i]->data);
  }
  tp_gemm_desc_init(NULL, 1, 1, 1); /* no crash */
}
END_TEST

/* ------------------------------------------------------------ status */

START_TEST(test_status_strings) {
  for (int s = TP_OK; s < TP_STATUS_COUNT; s++) {
    const char *str = tp_status_string((tp_status)s);
    ck_assert_ptr_nonnull(str);
    ck_assert_msg(str[0] != '\0' && strcmp(str, "unknown status") != 0, "status %d: \"%s\"", s, str);
    for (int o = TP_OK; o < s; o++)
      ck_assert_msg(strcmp(str, tp_status_string((tp_status)o)) != 0, "statuses %d and %d share \"%s\"", o, s, str);
  }
  ck_assert_str_eq(tp_status_string(TP_OK), "ok");
  ck_assert_str_eq(tp_status_string(TP_ERR_INVALID_ARGUMENT), "invalid argument");
  ck_assert_str_eq(tp_status_string(TP_STATUS_COUNT), "unknown status");
  ck_assert_str_eq(tp_status_string((tp_status)-1), "unknown status");
}
END_TEST

static void *message_of_new_thread(void *out) {
  *(const char **)out = tp_error_message();
  return NULL;
}

START_TEST(test_error_message_starts_empty) {
  const char *msg = NULL;
  pthread_t th;
  ck_assert_int_eq(pthread_create(&th, NULL, message_of_new_thread, &msg), 0);
  ck_assert_int_eq(pthread_join(th, NULL), 0);
  ck_assert_ptr_nonnull(msg);
  ck_assert_str_eq(msg, "");
  ck_assert_str_eq(tp_error_message(), "");
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *dtype_suite(void) {
  Suite *s = suite_create("dtype");
  TCase *codes = tcase_create("codes");
  tcase_add_loop_test(codes, test_decode_every_code, 0, NUM_FORMATS);
  tcase_add_loop_test(codes, test_roundtrip_every_code, 0, NUM_FORMATS);
  tcase_add_loop_test(codes, test_signed_zero, 0, NUM_FORMATS);
  tcase_add_test(codes, test_e2m1_values);
  tcase_add_test(codes, test_f32_identity);
  tcase_add_test(codes, test_unknown_dtype);
  suite_add_tcase(s, codes);

  TCase *rounding = tcase_create("rounding");
  tcase_set_timeout(rounding, 120);
  tcase_add_loop_test(rounding, test_midpoints, 0, NUM_FORMATS);
  tcase_add_loop_test(rounding, test_overflow, 0, NUM_FORMATS);
  tcase_add_test(rounding, test_overflow_constants);
  tcase_add_loop_test(rounding, test_nan_inputs, 0, NUM_FORMATS);
  tcase_add_loop_test(rounding, test_underflow, 0, NUM_FORMATS);
  tcase_add_test(rounding, test_unsigned_negatives);
  tcase_add_test(rounding, test_s8_every_code);
  tcase_add_test(rounding, test_s8_rounding);
  tcase_add_test(rounding, test_s8_saturation);
  tcase_add_test(rounding, test_s8_sweep);
  tcase_add_loop_test(rounding, test_sweep, 0, NUM_FORMATS);
  tcase_add_loop_test(rounding, test_near_boundaries, 0, NUM_FORMATS);
  suite_add_tcase(s, rounding);

  TCase *memory = tcase_create("load_store");
  tcase_add_test(memory, test_fp4_packing);
  tcase_add_test(memory, test_load_store_wide);
  tcase_add_test(memory, test_load_store_bad_args);
  suite_add_tcase(s, memory);

  TCase *tables = tcase_create("names_tensors_status");
  tcase_add_test(tables, test_names);
  tcase_add_test(tables, test_bits_bytes);
  tcase_add_test(tables, test_tensor_constructors);
  tcase_add_test(tables, test_span_strided);
  tcase_add_test(tables, test_span_invalid);
  tcase_add_test(tables, test_span_sf_128x4);
  tcase_add_test(tables, test_gemm_desc_init);
  tcase_add_test(tables, test_status_strings);
  tcase_add_test(tables, test_error_message_starts_empty);
  suite_add_tcase(s, tables);
  return s;
}

int main(void) {
  SRunner *runner = srunner_create(dtype_suite());
  srunner_run_all(runner, CK_NORMAL);
  int failed = srunner_ntests_failed(runner);
  srunner_free(runner);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
