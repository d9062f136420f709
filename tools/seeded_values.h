/* tools/seeded_values.h: the random inputs of the reference library's
 * problems (tilepipe/reference.h) and of the benchmark's, one element at a
 * time, with the same bits on the host and on the device.
 *
 * Counter-based, so that any element can be made on its own, by any thread,
 * in any order: element i of a tensor (its logical index row * cols + col;
 * a vector [n] counts as [1, n]) gets the 64 bits that splitmix64 (Steele,
 * Lea, Flood 2014) draws as its (i + 1)-th output from the tensor's key,
 * and the key is splitmix64's mix of the run's seed and the tensor's
 * stream number. A value is built from those bits with integer arithmetic
 * and exact float operations only (no libm, no rounding until the dtype's
 * own), then encoded by tilepipe/plugin/dtype_codec.h, which host and device code
 * share: tools/device/seeded_fill.cu and the reference library's host
 * fill (tp_ref_tensor_fill, tools/reference/tensors.c) agree bit for bit.
 *
 * What a value is (tp_seeded_values):
 *   operand values       A, B, C, the bias (exp_count 0). Float dtypes:
 *                        2 (u1 + u2 + u3) - 3 for three uniforms u of 21
 *                        bits each (odd multiples of 2^-22 in (0, 1)): the
 *                        Irwin-Hall sum, mean 0, variance 1, inside
 *                        (-3, 3), a bell close to N(0, 1), never 0; then
 *                        rounded to the dtype (fp8 gets subnormal codes
 *                        too: e4m3 about 1%). s8: uniform over all 256
 *                        codes, -128..127.
 *   scale values         the scale tensors, as their payload's map names
 *                        them (tp_scale_map, tilepipe/problem.h):
 *                        2^e (1 + m), e uniform over [exp_min, exp_min +
 *                        exp_count) and m over the dtype's mantissa codes
 *                        (f32 every one, ue4m3 its 8; ue8m0, which has
 *                        none, only powers of two): with exponents over
 *                        -2..1, f32 scales fill [1/4, 4), ue4m3 ones
 *                        0.25 .. 3.75.
 *
 * Plain C for the host compiler and nvcc alike (TP_SEEDED_FN). */
#ifndef TP_TOOLS_SEEDED_VALUES_H
#define TP_TOOLS_SEEDED_VALUES_H

#include <stdint.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/tensor.h"

#if defined(__CUDACC__)
#define TP_SEEDED_FN static __host__ __device__ __forceinline__
#else
#define TP_SEEDED_FN static inline
#endif

/* What a tensor's elements are: operand values (exp_count 0), or scale
 * values 2^e (1 + m) with e over [exp_min, exp_min + exp_count) (a map's,
 * tp_scale_map). */
typedef struct tp_seeded_values {
  int32_t exp_min, exp_count;
} tp_seeded_values;

/* One tensor's fill, as the device kernel takes it (by value; plain C, so
 * that host and device lay it out alike). Element (r, c) lies at element
 * r * row_stride + c * col_stride of data, or where the 128x4 tiled layout
 * puts it (tilepipe/tensor.h; the strides are unused then). 4-bit dtypes
 * need col_stride 1 and an even row_stride: a byte holds two elements of
 * one row. */
typedef struct tp_seeded_fill_args {
  void *data;
  int64_t rows, cols;
  int64_t row_stride, col_stride;
  uint64_t key;
  int32_t dtype;  /* tp_dtype */
  int32_t layout; /* tp_layout */
  tp_seeded_values values;
} tp_seeded_fill_args;

/* One operand's dequantization to bf16 (tools/seeded_device.h), as the
 * device kernel takes it: element (r, c) of x (dtype, rows x cols, rows ld
 * elements apart; 4-bit dtypes packed two a byte) times its scale, the
 * element of the scale tensor (scale_dtype, scale_layout: strided with
 * rows scale_ld apart, or 128x4 tiled with scale_cols logical columns) at
 * [r / map_rows][c / map_k] ([c / map_k][r / map_rows] with map_k_first;
 * tilepipe/problem.h's tp_scale_map), into out[r * cols + c]. scale NULL:
 * x unscaled. */
typedef struct tp_dequantize_args {
  const void *x, *scale;
  uint16_t *out;
  int64_t rows, cols, ld;
  int64_t scale_cols, scale_ld;
  int32_t dtype, scale_dtype, scale_layout;
  int32_t map_rows, map_k, map_k_first;
} tp_dequantize_args;

/* splitmix64's output function. */
TP_SEEDED_FN uint64_t tp_seeded_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* The key of stream `stream` (a problem's tensors: TP_REF_A ..., the
 * order of tilepipe/reference.h's tp_ref_tensor) of seed. */
TP_SEEDED_FN uint64_t tp_seeded_key(uint64_t seed, uint64_t stream) {
  return tp_seeded_mix(tp_seeded_mix(seed) ^ stream);
}

/* The bits of element `index`: splitmix64's output number index + 1 from
 * state key. */
TP_SEEDED_FN uint64_t tp_seeded_bits(uint64_t key, uint64_t index) {
  return tp_seeded_mix(key + (index + 1) * 0x9E3779B97F4A7C15ull);
}

/* The mantissa bits of a dtype's codes: how many of a scale value's are
 * drawn (tp_seeded_pow2_mantissa). */
TP_SEEDED_FN uint32_t tp_seeded_mantissa_bits(tp_dtype dtype) {
  switch (dtype) {
  case TP_DTYPE_F32: return 23;
  case TP_DTYPE_F16: return 10;
  case TP_DTYPE_BF16: return 7;
  case TP_DTYPE_E4M3:
  case TP_DTYPE_UE4M3: return 3;
  case TP_DTYPE_E5M2: return 2;
  case TP_DTYPE_E2M1: return 1;
  default: return 0; /* ue8m0: powers of two; s8 */
  }
}

/* 2^e (1 + m 2^-mbits): e = lowest + (bits above 32) % count, m the low
 * mbits bits; built from its f32 bits, so exact. */
TP_SEEDED_FN float tp_seeded_pow2_mantissa(uint64_t bits, int lowest, uint32_t count,
                                           uint32_t mbits) {
  const int e = lowest + (int)((uint32_t)(bits >> 32) % count);
  const uint32_t m = (uint32_t)bits & ((1u << mbits) - 1u);
  return tp_f32_from_bits(((uint32_t)(e + 127) << 23) | (m << (23 - mbits)));
}

/* The value (before the dtype's rounding) of an element with these bits. */
TP_SEEDED_FN float tp_seeded_value(tp_seeded_values values, tp_dtype dtype, uint64_t bits) {
  if (values.exp_count > 0)
    return tp_seeded_pow2_mantissa(bits, values.exp_min, (uint32_t)values.exp_count,
                                   tp_seeded_mantissa_bits(dtype));
  if (dtype == TP_DTYPE_S8) return (float)((int32_t)(bits >> 56) - 128);
  /* 2 (u1 + u2 + u3) - 3 with u = (2a + 1) 2^-22: an odd integer below
   * 3 * 2^21 in magnitude (an f32 exactly) times 2^-21. */
  const int32_t a = (int32_t)(bits & 0x1FFFFF), b = (int32_t)((bits >> 21) & 0x1FFFFF),
                c = (int32_t)((bits >> 42) & 0x1FFFFF);
  return (float)(2 * (a + b + c) + 3 - 3 * 0x200000) * tp_f32_pow2(-21);
}

#endif
