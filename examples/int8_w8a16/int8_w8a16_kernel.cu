/* int8_w8a16_kernel.cu: the int8_w8a16 payload's mainloop on tilepipe's
 * structured kernel (weight-only int8: bf16 activations, s8 weights).
 *
 *   acc(m, n) = b_scale[n] * sum_k A(m, k) * B(n, k)
 *
 * A stage holds a k-block of 64 elements of K: A as bf16 (tensor 0,
 * 128-byte rows, 128B-swizzled, the skeleton's loads) and B as s8 (tensor
 * 1, 64-byte rows, packed, 64B-swizzled), loaded by the skeleton's
 * mixed-width operand loads (tilepipe/plugin/device/kernel_operands.h), plus a
 * tensor the loader never fills: B converted to bf16 (tensor 2, 128-byte
 * rows, 128B-swizzled, as wgmma reads it). Per k-block the consumer
 * warpgroups convert B into it together (the skeleton's convert step,
 * tilepipe/plugin/device/kernel_mainloop.h), then each multiplies its 64
 * rows of A by it in four bf16 wgmma of 16 of K (tp_kernel_mma_converted_b).
 * tile_end scales each column by its channel's scale.
 *
 * Exactness: an s8 value is an integer of at most 8 significant bits, so
 * its bf16 is exact, and so is every bf16 x bf16 product in wgmma's f32
 * accumulation; the roundings are f32 ones (the sums, the scale).
 *
 * Built into LTO-IR for sm_90a (the Makefile), embedded in the plugin as
 * data; `tilepipe link --payload int8_w8a16` links it without a GPU. */
#include <stdint.h>

#include <tilepipe/plugin/device/fragment_scales.h>
#include <tilepipe/plugin/device/kernel.h>
#include <tilepipe/plugin/device/kernel_operands.h>

#include "int8_w8a16_params.h"

/* bf16 of two s8 (bytes j and j + 1 of w), low half first. Each byte,
 * biased to u = x + 128, becomes the f32 2^23 + u by placing it under the
 * exponent of 2^23; less 2^23 + 128 that is x exactly, and x's bf16 is its
 * f32's upper half. Integer permutes and a full-rate add, no conversion
 * instruction. */
static __device__ __forceinline__ uint32_t w8a16_bf16x2(uint32_t w, uint32_t j) {
  const uint32_t u = w ^ 0x80808080u;
  const float lo = __uint_as_float(__byte_perm(u, 0x4B000000u, 0x7540u | j)) - 8388736.0f;
  const float hi = __uint_as_float(__byte_perm(u, 0x4B000000u, 0x7540u | (j + 1u))) - 8388736.0f;
  return __byte_perm(__float_as_uint(lo), __float_as_uint(hi), 0x7632u);
}

struct w8a16_mainloop : tp_kernel_operands_mainloop<16, 8> {
  typedef w8a16_params params;
  static constexpr bool converts = true;

  template <int BM, int BN>
  struct consumer_state {
    tp_fragment_columns<BN> scale;
  };

  /* B's s8 tile (BN rows of 64 bytes, tensor 1) into bf16 (BN rows of 128
   * bytes, tensor 2): each 16 bytes of s8 (row r, chunk q of 4, where the
   * 64-byte swizzle put it) become 16-byte chunks 2q and 2q + 1 of row r,
   * which the 128-byte swizzle places at chunk index c ^ (r % 8). Each 8
   * consecutive threads read 8 distinct chunk columns of two rows and
   * write 8 distinct chunk columns: no bank conflict either way. */
  template <int BM, int BN>
  static __device__ __forceinline__ void convert(consumer_state<BM, BN> &, const params &,
                                                 const tp_input_consumer_stage *st,
                                                 const tp_kernel_converter &c) {
    const uint4 *src = (const uint4 *)tp_input_consumer_stage_tile(st, 1, 0);
    unsigned char *dst =
        (unsigned char *)tp_input_consumer_stage_tile(st, TP_KERNEL_CONVERTED_B, 0);
    for (uint32_t i = c.thread; i < BN * 4u; i += c.threads) {
      const uint32_t r = i / 4u, q = i % 4u;
      const uint4 w = src[tp_kernel_operand_chunk(b_row_bytes, r, q)];
      unsigned char *row = dst + r * TP_KERNEL_ROW_BYTES;
      *(uint4 *)(row + ((2u * q) ^ (r % 8u)) * 16u) =
          make_uint4(w8a16_bf16x2(w.x, 0), w8a16_bf16x2(w.x, 2), w8a16_bf16x2(w.y, 0),
                     w8a16_bf16x2(w.y, 2));
      *(uint4 *)(row + ((2u * q + 1u) ^ (r % 8u)) * 16u) =
          make_uint4(w8a16_bf16x2(w.z, 0), w8a16_bf16x2(w.z, 2), w8a16_bf16x2(w.w, 0),
                     w8a16_bf16x2(w.w, 2));
    }
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    tp_kernel_mma_converted_b<BN>(acc, st, wg, accumulate);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t) {
    tp_fragment_columns_load<BN>(s.scale, p.b_scale, t.n0, p.kernel.n);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_end(consumer_state<BM, BN> &s, const params &,
                                                  float *acc, const tp_kernel_tile &, uint32_t) {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float sb = tp_fragment_columns_get<BN>(s.scale, j, e);
        acc[4 * j + e] *= sb;
        acc[4 * j + 2 + e] *= sb;
      }
    }
  }
};

/* Every tile and D of tilepipe/plugin/kernel/tiles.h, named
 * tp_int8_w8a16_bf16_s8_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them by name). */
#define W8A16_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, OPERANDS) \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_int8_w8a16, OPERANDS, BM, BN, CM, D_NAME), w8a16_mainloop, BM, \
                  BN, DT, CM)
TP_KERNEL_FOR_EACH_INSTANCE(W8A16_KERNEL, bf16_s8)
