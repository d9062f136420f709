/* tilepipe/plugin/dtype_codec.h: the element codecs, inline, for host, plugin and
 * device code.
 *
 * Plugins do not link libtilepipe and device code cannot call it, so the
 * conversions live here as static inline functions (TP_CODEC_FN adds
 * __host__ __device__ under nvcc); core/dtype.c only wraps them.
 *
 * Every narrow format except ue8m0 and the integer s8 is a "minifloat": a
 * sign bit (unless unsigned), `ebits` exponent bits with bias 2^(ebits-1)-1,
 * `mbits` mantissa bits and IEEE-style subnormals. A tp_minifloat says
 * which magnitude codes are finite (0..max_code) and what sits above them,
 * so one encoder and one decoder serve all of them:
 *
 *   format  ebits mbits sign  max (code)         above max        NaN in / out
 *   bf16      8     7    yes  3.39e38 (0x7F7F)   inf 0x7F80       0x7FC0
 *   f16       5    10    yes  65504   (0x7BFF)   inf 0x7C00       0x7E00
 *   e4m3fn    4     3    yes  448     (0x7E)     NaN 0x7F         0x7F
 *   e5m2      5     2    yes  57344   (0x7B)     inf 0x7C         0x7E
 *   e2m1      2     1    yes  6       (0x7)      nothing          +0 (no NaN)
 *   ue4m3     4     3    no   448     (0x7E)     NaN 0x7F         0x7F
 *
 * Encoding rounds to nearest, ties to the even code. Overflow goes to inf
 * where the format has one (so max + half an ulp, a tie, already rounds to
 * inf) and saturates to max (same sign) where it has none, for infinite
 * inputs too. NaN encodes to the canonical NaN in the last column, always
 * positive. Unsigned formats clamp negative inputs (and -0) to code 0.
 * Signed formats keep the sign of zero: -0 and negatives that round to zero
 * encode to the negative-zero code.
 *
 * ue8m0 is a bare biased exponent: code e means 2^(e-127) for e in 0..254,
 * 0xFF is NaN. It has no zero, so 0, negatives and anything below 2^-127
 * encode to code 0 (= 2^-127); values round to the nearest power of two in
 * linear value, 1.5 * 2^e being the tie that goes to the even code.
 *
 * ue4m3 codes use bits 0..6; bit 7 (where e4m3 keeps its sign) is never set
 * by the encoder and ignored by the decoder, like any extra high bit.
 *
 * s8 is the one integer format: code c is the byte of a two's-complement
 * int8 and decodes to that integer (every value -128..127 is an f32
 * exactly). Encoding rounds to the nearest integer, ties to even, and
 * saturates to -128 and 127 (infinities too); NaN encodes to 0, as the
 * GPU's saturating cvt does.
 *
 * Codes travel in the low bits of a uint32_t; decoders ignore higher bits.
 * e2m1 codes are one nibble; tp_codec_load/tp_codec_store do the packing
 * (element 2i in the low nibble of byte i). */
#ifndef TILEPIPE_PLUGIN_DTYPE_CODEC_H
#define TILEPIPE_PLUGIN_DTYPE_CODEC_H

#include <stdint.h>
#include <string.h>
#include "tilepipe/dtype.h"

#if defined(__CUDACC__)
#define TP_CODEC_FN static __host__ __device__ __forceinline__
#else
#define TP_CODEC_FN static inline
#endif

/* ------------------------------------------------------------ bit casts */

TP_CODEC_FN uint32_t tp_f32_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
#endif
}

TP_CODEC_FN float tp_f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
#endif
}

#define TP_F32_ABS_MASK 0x7FFFFFFFu
#define TP_F32_INF_BITS 0x7F800000u
#define TP_F32_NAN_BITS 0x7FC00000u

/* ------------------------------------------------------------ minifloats */

typedef struct tp_minifloat {
  uint32_t ebits, mbits;
  uint32_t is_signed;     /* a sign bit above the exponent */
  uint32_t max_code;      /* magnitude code of the largest finite value */
  uint32_t overflow_code; /* max_code + 1 (inf) or max_code (saturate) */
  uint32_t nan_code;      /* what NaN encodes to */
} tp_minifloat;

/* Rounds a finite f32 magnitude (its bits, sign cleared) to the format's
 * magnitude code, RNE, with an unbounded exponent range above: the result
 * exceeds max_code on overflow and the caller decides what that means.
 *
 * The code is (biased exponent - 1) << mbits plus the significand shifted to
 * mbits fraction bits, implicit bit included: the implicit bit adds the
 * missing 1 to the exponent, and a rounding carry out of the mantissa moves
 * into the exponent by plain addition. Results below the normal range are
 * shifted further (subnormals, exponent field 0). The tie test looks at the
 * code's own last bit, which is what "ties to even" means for the format. */
TP_CODEC_FN uint32_t tp_minifloat_round(uint32_t mag, tp_minifloat f) {
  int bias = (1 << (f.ebits - 1)) - 1;
  int fexp = (int)(mag >> 23);
  uint32_t sig = mag & 0x7FFFFFu;
  if (fexp != 0)
    sig |= 0x800000u;
  else
    fexp = 1; /* f32 subnormals: exponent 1 without the implicit bit */
  int texp = fexp - 127 + bias;
  int shift = 23 - (int)f.mbits;
  if (texp < 1) {
    shift += 1 - texp;
    texp = 1;
  }
  /* sig < 2^24: with 25 bits shifted out it is below half an ulp already. */
  if (shift > 25)
    shift = 25;
  uint32_t code = ((uint32_t)(texp - 1) << f.mbits) + (sig >> shift);
  uint32_t rest = sig & ((1u << shift) - 1u);
  uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (code & 1u)))
    code++;
  return code;
}

TP_CODEC_FN uint32_t tp_minifloat_encode(float x, tp_minifloat f) {
  uint32_t u = tp_f32_bits(x);
  uint32_t mag = u & TP_F32_ABS_MASK;
  uint32_t negative = u >> 31;
  if (mag > TP_F32_INF_BITS)
    return f.nan_code;
  if (negative && !f.is_signed)
    return 0;
  uint32_t code = mag == TP_F32_INF_BITS ? f.overflow_code : tp_minifloat_round(mag, f);
  if (code > f.max_code)
    code = f.overflow_code;
  return code | (negative << (f.ebits + f.mbits));
}

/* Exact: 2^k for k in -126..127, built from its bits (no libm on device). */
TP_CODEC_FN float tp_f32_pow2(int k) { return tp_f32_from_bits((uint32_t)(k + 127) << 23); }

/* Valid for formats whose smallest subnormal is an f32 normal (all but
 * bf16, whose decode is a shift): the value is an integer of at most 12 bits
 * times such a power of two, so the product is exact. */
TP_CODEC_FN float tp_minifloat_decode(uint32_t code, tp_minifloat f) {
  uint32_t width = f.ebits + f.mbits;
  uint32_t mag = code & ((1u << width) - 1u);
  int has_inf = f.overflow_code > f.max_code;
  float v;
  if (mag > f.max_code && !(has_inf && mag == f.overflow_code))
    return tp_f32_from_bits(TP_F32_NAN_BITS);
  if (mag > f.max_code) {
    v = tp_f32_from_bits(TP_F32_INF_BITS);
  } else {
    uint32_t e = mag >> f.mbits;
    uint32_t m = mag & ((1u << f.mbits) - 1u);
    int bias = (1 << (f.ebits - 1)) - 1;
    v = (float)(e != 0 ? m | (1u << f.mbits) : m) * tp_f32_pow2((int)(e != 0 ? e : 1) - bias - (int)f.mbits);
  }
  return f.is_signed && ((code >> width) & 1u) ? -v : v;
}

TP_CODEC_FN tp_minifloat tp_bf16_format(void) {
  tp_minifloat f = {8, 7, 1, 0x7F7Fu, 0x7F80u, 0x7FC0u};
  return f;
}
TP_CODEC_FN tp_minifloat tp_f16_format(void) {
  tp_minifloat f = {5, 10, 1, 0x7BFFu, 0x7C00u, 0x7E00u};
  return f;
}
TP_CODEC_FN tp_minifloat tp_e4m3_format(void) {
  tp_minifloat f = {4, 3, 1, 0x7Eu, 0x7Eu, 0x7Fu};
  return f;
}
TP_CODEC_FN tp_minifloat tp_e5m2_format(void) {
  tp_minifloat f = {5, 2, 1, 0x7Bu, 0x7Cu, 0x7Eu};
  return f;
}
TP_CODEC_FN tp_minifloat tp_e2m1_format(void) {
  tp_minifloat f = {2, 1, 1, 0x7u, 0x7u, 0x0u};
  return f;
}
TP_CODEC_FN tp_minifloat tp_ue4m3_format(void) {
  tp_minifloat f = {4, 3, 0, 0x7Eu, 0x7Eu, 0x7Fu};
  return f;
}

/* ------------------------------------------------------------ per format */

TP_CODEC_FN uint32_t tp_f32_encode(float x) { return tp_f32_bits(x); }
TP_CODEC_FN float tp_f32_decode(uint32_t code) { return tp_f32_from_bits(code); }

TP_CODEC_FN uint32_t tp_bf16_encode(float x) { return tp_minifloat_encode(x, tp_bf16_format()); }
/* bf16 is the top half of an f32: its subnormals are f32 subnormals. */
TP_CODEC_FN float tp_bf16_decode(uint32_t code) { return tp_f32_from_bits((code & 0xFFFFu) << 16); }

TP_CODEC_FN uint32_t tp_f16_encode(float x) { return tp_minifloat_encode(x, tp_f16_format()); }
TP_CODEC_FN float tp_f16_decode(uint32_t code) { return tp_minifloat_decode(code, tp_f16_format()); }

TP_CODEC_FN uint32_t tp_e4m3_encode(float x) { return tp_minifloat_encode(x, tp_e4m3_format()); }
TP_CODEC_FN float tp_e4m3_decode(uint32_t code) { return tp_minifloat_decode(code, tp_e4m3_format()); }

TP_CODEC_FN uint32_t tp_e5m2_encode(float x) { return tp_minifloat_encode(x, tp_e5m2_format()); }
TP_CODEC_FN float tp_e5m2_decode(uint32_t code) { return tp_minifloat_decode(code, tp_e5m2_format()); }

TP_CODEC_FN uint32_t tp_e2m1_encode(float x) { return tp_minifloat_encode(x, tp_e2m1_format()); }
TP_CODEC_FN float tp_e2m1_decode(uint32_t code) { return tp_minifloat_decode(code, tp_e2m1_format()); }

TP_CODEC_FN uint32_t tp_ue4m3_encode(float x) { return tp_minifloat_encode(x, tp_ue4m3_format()); }
TP_CODEC_FN float tp_ue4m3_decode(uint32_t code) { return tp_minifloat_decode(code, tp_ue4m3_format()); }

/* ue8m0 rounds the f32 exponent alone: mantissa above half rounds up, exactly
 * half (1.5 * 2^e) rounds to the even code. f32 subnormals lie between code 0
 * (2^-127, mantissa 0x400000) and code 1 (2^-126); their tie is 0x600000. */
TP_CODEC_FN uint32_t tp_ue8m0_encode(float x) {
  uint32_t u = tp_f32_bits(x);
  if ((u & TP_F32_ABS_MASK) > TP_F32_INF_BITS)
    return 0xFFu;
  if ((u >> 31) != 0 || u == 0)
    return 0;
  if (u == TP_F32_INF_BITS)
    return 0xFEu;
  uint32_t e = u >> 23;
  uint32_t m = u & 0x7FFFFFu;
  if (e == 0)
    return m > 0x600000u ? 1u : 0u;
  uint32_t code = e + (m > 0x400000u || (m == 0x400000u && (e & 1u)) ? 1u : 0u);
  return code > 0xFEu ? 0xFEu : code;
}

TP_CODEC_FN float tp_ue8m0_decode(uint32_t code) {
  code &= 0xFFu;
  if (code == 0xFFu)
    return tp_f32_from_bits(TP_F32_NAN_BITS);
  return tp_f32_from_bits(code != 0 ? code << 23 : 0x400000u); /* 2^-127 is an f32 subnormal */
}

/* s8: saturate first (outside [-128, 127] the result is an end point; NaN
 * fails both tests and goes to 0), then round the f32 to the nearest
 * integer with ties to even by truncation and the exact fraction x - t
 * (|x| <= 128, so t converts back exactly and the difference is exact). */
TP_CODEC_FN uint32_t tp_s8_encode(float x) {
  int32_t v;
  if (x >= 127.0f) {
    v = 127;
  } else if (x <= -128.0f) {
    v = -128;
  } else if (!(x == x)) {
    v = 0;
  } else {
    int32_t t = (int32_t)x; /* toward zero */
    float frac = x - (float)t;
    float mag = frac < 0.0f ? -frac : frac;
    int32_t away = frac < 0.0f ? -1 : 1;
    if (mag > 0.5f || (mag == 0.5f && (t & 1) != 0))
      t += away;
    v = t;
  }
  return (uint32_t)v & 0xFFu;
}

TP_CODEC_FN float tp_s8_decode(uint32_t code) {
  int32_t v = (int32_t)(code & 0xFFu);
  return (float)(v >= 128 ? v - 256 : v);
}

/* ------------------------------------------------------------ by dtype */

TP_CODEC_FN unsigned tp_codec_bits(tp_dtype dtype) {
  switch (dtype) {
  case TP_DTYPE_F32: return 32;
  case TP_DTYPE_BF16:
  case TP_DTYPE_F16: return 16;
  case TP_DTYPE_E4M3:
  case TP_DTYPE_E5M2:
  case TP_DTYPE_UE8M0:
  case TP_DTYPE_UE4M3:
  case TP_DTYPE_S8: return 8;
  case TP_DTYPE_E2M1: return 4;
  default: return 0;
  }
}

/* Unknown dtypes encode to 0 and decode to NaN. */
TP_CODEC_FN uint32_t tp_codec_encode(tp_dtype dtype, float x) {
  switch (dtype) {
  case TP_DTYPE_F32: return tp_f32_encode(x);
  case TP_DTYPE_BF16: return tp_bf16_encode(x);
  case TP_DTYPE_F16: return tp_f16_encode(x);
  case TP_DTYPE_E4M3: return tp_e4m3_encode(x);
  case TP_DTYPE_E5M2: return tp_e5m2_encode(x);
  case TP_DTYPE_UE8M0: return tp_ue8m0_encode(x);
  case TP_DTYPE_E2M1: return tp_e2m1_encode(x);
  case TP_DTYPE_UE4M3: return tp_ue4m3_encode(x);
  case TP_DTYPE_S8: return tp_s8_encode(x);
  default: return 0;
  }
}

TP_CODEC_FN float tp_codec_decode(tp_dtype dtype, uint32_t code) {
  switch (dtype) {
  case TP_DTYPE_F32: return tp_f32_decode(code);
  case TP_DTYPE_BF16: return tp_bf16_decode(code);
  case TP_DTYPE_F16: return tp_f16_decode(code);
  case TP_DTYPE_E4M3: return tp_e4m3_decode(code);
  case TP_DTYPE_E5M2: return tp_e5m2_decode(code);
  case TP_DTYPE_UE8M0: return tp_ue8m0_decode(code);
  case TP_DTYPE_E2M1: return tp_e2m1_decode(code);
  case TP_DTYPE_UE4M3: return tp_ue4m3_decode(code);
  case TP_DTYPE_S8: return tp_s8_decode(code);
  default: return tp_f32_from_bits(TP_F32_NAN_BITS);
  }
}

/* Element i of a contiguous array. No checks: base must be valid and i in
 * range (tp_dtype_load/tp_dtype_store are the checked versions). Wider
 * elements go through memcpy, so base needs no alignment. */
TP_CODEC_FN float tp_codec_load(tp_dtype dtype, const void *base, int64_t i) {
  const unsigned char *p = (const unsigned char *)base;
  switch (tp_codec_bits(dtype)) {
  case 32: {
    uint32_t c;
    memcpy(&c, p + 4 * i, sizeof c);
    return tp_codec_decode(dtype, c);
  }
  case 16: {
    uint16_t c;
    memcpy(&c, p + 2 * i, sizeof c);
    return tp_codec_decode(dtype, c);
  }
  case 8: return tp_codec_decode(dtype, p[i]);
  case 4: return tp_codec_decode(dtype, (uint32_t)(p[i / 2] >> (4 * (i % 2))));
  default: return tp_f32_from_bits(TP_F32_NAN_BITS);
  }
}

TP_CODEC_FN void tp_codec_store(tp_dtype dtype, void *base, int64_t i, float x) {
  unsigned char *p = (unsigned char *)base;
  uint32_t c = tp_codec_encode(dtype, x);
  switch (tp_codec_bits(dtype)) {
  case 32: memcpy(p + 4 * i, &c, sizeof c); break;
  case 16: {
    uint16_t h = (uint16_t)c;
    memcpy(p + 2 * i, &h, sizeof h);
    break;
  }
  case 8: p[i] = (unsigned char)c; break;
  case 4: {
    /* Read-modify-write of the byte: the other nibble is the neighbour. */
    unsigned shift = 4u * (unsigned)(i % 2);
    p[i / 2] = (unsigned char)((p[i / 2] & ~(0xFu << shift)) | (c << shift));
    break;
  }
  default: break;
  }
}

/* ------------------------------------------------------------ names (host) */

static inline const char *tp_codec_name(tp_dtype dtype) {
  switch (dtype) {
  case TP_DTYPE_NONE: return "none";
  case TP_DTYPE_F32: return "f32";
  case TP_DTYPE_BF16: return "bf16";
  case TP_DTYPE_F16: return "f16";
  case TP_DTYPE_E4M3: return "e4m3";
  case TP_DTYPE_E5M2: return "e5m2";
  case TP_DTYPE_UE8M0: return "ue8m0";
  case TP_DTYPE_E2M1: return "e2m1";
  case TP_DTYPE_UE4M3: return "ue4m3";
  case TP_DTYPE_S8: return "s8";
  default: return "?";
  }
}

/* Exact (case-sensitive) match of a name or one of the aliases; NONE if
 * unknown or NULL. */
static inline tp_dtype tp_codec_from_name(const char *name) {
  static const struct {
    const char *alias;
    tp_dtype dtype;
  } aliases[] = {
      {"fp32", TP_DTYPE_F32},         {"float32", TP_DTYPE_F32},      {"bfloat16", TP_DTYPE_BF16},
      {"half", TP_DTYPE_F16},         {"fp8_e4m3", TP_DTYPE_E4M3},    {"fp8_e5m2", TP_DTYPE_E5M2},
      {"fp4", TP_DTYPE_E2M1},         {"int8", TP_DTYPE_S8},
  };
  if (name == NULL)
    return TP_DTYPE_NONE;
  for (int d = TP_DTYPE_NONE + 1; d < TP_DTYPE_COUNT; d++)
    if (strcmp(name, tp_codec_name((tp_dtype)d)) == 0)
      return (tp_dtype)d;
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(name, aliases[i].alias) == 0)
      return aliases[i].dtype;
  return TP_DTYPE_NONE;
}

#endif
