/* plugins/block_scaled/device/block_scaled_mainloop.cu: the block-scaled
 * payload's mainloops on the core's structured kernel, MXFP8 (e4m3 or e5m2
 * elements, a ue8m0 scale per 32 K-elements of each row):
 *
 *   W8A16 (bf16 A):  acc(m, n) = sum_k A(m, k) * (B(n, k) * 2^(sb(n, k/32) - 127))
 *   W8A8  (fp8 A):   acc(m, n) = sum_k (A(m, k) 2^(sa(m, k/32) - 127))
 *                                    * (B(n, k) 2^(sb(n, k/32) - 127))
 *
 * W8A16. A stage holds a k-block of 64 of K: A as bf16 (tensor 0, 128-byte
 * rows, 128B-swizzled) and B as e4m3 or e5m2 (tensor 1, 64-byte rows,
 * unswizzled and packed), the skeleton's mixed-width operand loads
 * (tilepipe/plugin/device/kernel_operands.h), and tensor 2, which no load
 * fills: B scaled and converted to bf16 (128-byte rows, 128B-swizzled, as
 * wgmma reads them: TP_KERNEL_CONVERTED_B). Per k-block the consumer
 * warpgroups convert B into it together (the skeleton's convert step),
 * each thread 16 elements of a row at a time with the scale of their
 * 32-wide group, whose codes it loaded from global memory a k-block
 * earlier (tile_begin for a unit's first); then each warpgroup multiplies
 * its 64 rows of A by it in four bf16 wgmma of 16 of K
 * (tp_kernel_mma_converted_b). Exact: an fp8 value times a power of two
 * has at most 4 significant bits and lies inside bf16's exponent range, so
 * its bf16 is exact (up to products below 2^-126 that f32's subnormals
 * round); bf16 x bf16 products are exact in wgmma's f32 accumulation. The
 * roundings are the f32 sums: W8A16 is judged as a bf16 GEMM.
 *
 * W8A8. A prologue kernel (device/fold.h) folds each operand's four
 * scales per 128 of K into its elements once, into the plan's workspace,
 * with the references' scales as blockwise FP8's: a_scale per row and
 * block of 128 of K, b_scale per 128 x 128 block of B. The kernel is then
 * the skeleton's blockwise-scaled mainloop on the folded operands (tilepipe/
 * plugin/device/blockwise_mainloop.h). Exact unless an element falls below
 * its dtype's smallest normal after the shift (fold.h, docs/payloads.md).
 *
 * Invariants: K a multiple of 32 (the plan checks), so a W8A16 k-block
 * holds 2 whole groups or, at the end of K, one and a zero-filled half
 * whose scale is never read; W8A16 reads scale 1 (code 127) for rows of B
 * past N and groups past K/32: their elements are TMA's zeros, and a NaN
 * code in the tiled layout's padding must not reach them.
 *
 * Built by build-aux/device.mk into LTO-IR that plugins/block_scaled/
 * embeds, one image per operand group (block_scaled_params.h), W8A8's
 * with its fold prologue;
 * tests/test_gpu_block_scaled.c runs them, `tilepipe link` links them
 * without a GPU. */
#include <stdint.h>

#include "plugins/block_scaled/device/block_scaled_params.h"
#include "plugins/block_scaled/device/fold.h"
#include "tilepipe/plugin/device/blockwise_mainloop.h"
#include "tilepipe/plugin/device/kernel.h"
#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/operands_mainloop.h"

/* Converter `thread` of `threads` handles 16-byte chunks i = thread +
 * j * threads (j < BS_CHUNKS(BN)) of B's tile: row i / 4, chunk i % 4. */
#define BS_CHUNKS(BN) (((BN) * 4 + 127) / 128)

/* The scale codes of this thread's chunks in k-block kb, into codes[j]:
 * B's code (n, g), or 127 (scale 1) past the tile's chunks, past N or
 * past K's groups. Loads issued a k-block ahead of their use, so that
 * their latency hides under the mma and the next stage's wait. */
template <int BN>
static __device__ __forceinline__ void bs_load_codes(const tp_block_scaled_params &p,
                                                     uint32_t *codes, uint32_t thread,
                                                     uint32_t threads, int32_t n0, int32_t kb) {
  const int32_t g0 = kb * (TP_KERNEL_ROW_BYTES / 2 / BLOCK_SCALED_MX_VEC);
#pragma unroll
  for (int j = 0; j < BS_CHUNKS(BN); ++j) {
    const uint32_t i = thread + (uint32_t)j * threads;
    const int32_t n = n0 + (int32_t)(i / 4u), g = g0 + (int32_t)(i % 4u / 2u);
    codes[j] = i < BN * 4u && n < p.kernel.n && g < p.scale_cols
                   ? __ldg(p.b_codes.data + bs_code_offset(p.b_codes, p.scale_cols, n, g))
                   : 127u;
  }
}

/* B's fp8 tile (BN rows of 64 bytes, tensor 1) into scaled bf16 (BN rows
 * of 128 bytes, tensor 2), each chunk with its code: each 16 bytes (row r,
 * chunk q of 4) become 16-byte chunks 2q and 2q + 1 of row r, which the
 * 128-byte swizzle places at chunk index c ^ (r % 8). Consecutive threads
 * read consecutive 16 bytes, and each 8 of them write 8 distinct chunk
 * columns: no bank conflict either way. */
template <int BN, bool E5M2>
static __device__ __forceinline__ void bs_convert_tile(const tp_input_consumer_stage *st,
                                                       const uint32_t *codes,
                                                       const tp_kernel_converter &c) {
  const uint4 *src = (const uint4 *)tp_input_consumer_stage_tile(st, 1, 0);
  unsigned char *dst =
      (unsigned char *)tp_input_consumer_stage_tile(st, TP_KERNEL_CONVERTED_B, 0);
#pragma unroll
  for (int j = 0; j < BS_CHUNKS(BN); ++j) {
    const uint32_t i = c.thread + (uint32_t)j * c.threads;
    if (i >= BN * 4u) break;
    const uint32_t r = i / 4u, q = i % 4u;
    const float s = bs_ue8m0(codes[j]);
    unsigned char *row = dst + r * TP_KERNEL_ROW_BYTES;
    bs_bf16x16<E5M2>(src[i], s, *(uint4 *)(row + ((2u * q) ^ (r % 8u)) * 16u),
                     *(uint4 *)(row + ((2u * q + 1u) ^ (r % 8u)) * 16u));
  }
}

struct bs_w8a16_mainloop : tp_kernel_operands_mainloop<16, 8> {
  typedef tp_block_scaled_params params;
  static constexpr bool converts = true;

  /* The scale codes of this thread's chunks in the next k-block. */
  template <int BM, int BN>
  struct consumer_state {
    uint32_t codes[BS_CHUNKS(BN)];
  };

  /* The unit's first k-block's codes, as its converters will split it. */
  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t wg) {
    bs_load_codes<BN>(p, s.codes, wg * 128u + threadIdx.x % 128u, t.warpgroups_in_m * 128u,
                      t.n0, t.kb_begin);
  }

  /* This k-block's conversion with the codes loaded a k-block ago, then
   * the next k-block's codes. */
  template <int BM, int BN>
  static __device__ __forceinline__ void convert(consumer_state<BM, BN> &s, const params &p,
                                                 const tp_input_consumer_stage *st,
                                                 const tp_kernel_converter &c) {
    if (p.b_e5m2)
      bs_convert_tile<BN, true>(st, s.codes, c);
    else
      bs_convert_tile<BN, false>(st, s.codes, c);
    bs_load_codes<BN>(p, s.codes, c.thread, c.threads, c.n0, c.kb + 1);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    tp_kernel_mma_converted_b<BN>(acc, st, wg, accumulate);
  }
};

/* The dtype's mantissa bits. */
#define BS_MANT(T) ((T) == TP_DTYPE_E5M2 ? 2 : 3)

/* The mainloop of each operand group: W8A8's (fp8 A, folded), W8A16's
 * converting B (bf16 A, B NONE), or bf16's (B dequantized). */
template <int A, int B>
struct bs_mainloop_of {
  typedef tp_blockwise_mainloop<A, B, tp_block_scaled_params> type;
};
template <>
struct bs_mainloop_of<TP_DTYPE_BF16, TP_DTYPE_NONE> {
  typedef bs_w8a16_mainloop type;
};
template <>
struct bs_mainloop_of<TP_DTYPE_BF16, TP_DTYPE_BF16> {
  typedef tp_operands_mainloop<TP_DTYPE_BF16, TP_DTYPE_BF16, tp_block_scaled_params> type;
};

/* The prologue of each operand group but W8A16's converting one: W8A8's
 * fold, or W8A16's dequantization of B. */
template <int A, int B>
static __device__ __forceinline__ void bs_prologue(const tp_block_scaled_params &p) {
  if constexpr (A == TP_DTYPE_BF16) {
    if (p.b_e5m2)
      bs_dequantize_b<true>(p);
    else
      bs_dequantize_b<false>(p);
  } else {
    bs_fold_operands<BS_MANT(A), BS_MANT(B)>(p);
  }
}

/* The kernels of operand group TP_DEVICE_GROUP (a NAME of
 * TP_BLOCK_SCALED_OPERANDS, block_scaled_params.h; local.mk builds one
 * image per group): every tile and D of tilepipe/plugin/kernel/tiles.h,
 * named tp_block_scaled_<NAME>_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them
 * by name). W8A8's tiles wider than 128 or not dividing it trap (never
 * planned). */
#ifndef TP_DEVICE_GROUP
#error "block_scaled_mainloop.cu: build it with -DTP_DEVICE_GROUP=<operand group> (local.mk)"
#endif
#define BS_MAINLOOP(NAME, A, B) typedef bs_mainloop_of<A, B>::type bs_mainloop_##NAME;
TP_BLOCK_SCALED_OPERANDS(BS_MAINLOOP)

#define BS_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, NAME)                                   \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_block_scaled, NAME, BM, BN, CM, D_NAME),             \
                  bs_mainloop_##NAME, BM, BN, DT, CM)
/* NAME is expanded here, before BS_KERNEL pastes it. */
#define BS_KERNELS(NAME) TP_KERNEL_FOR_EACH_INSTANCE(BS_KERNEL, NAME)
BS_KERNELS(TP_DEVICE_GROUP)

/* The prologue, tp_block_scaled_<NAME>_prologue (gpu.c launches it
 * before the kernel; fold.h), in each group's image but W8A16's
 * converting one: an identifier #if does not know reads 0, so only
 * bf16_mx8 is named. */
#define BS_CONVERTS_bf16_mx8 1
#define BS_CONVERTS_OF(NAME) BS_CONVERTS_##NAME
#define BS_CONVERTS(NAME) BS_CONVERTS_OF(NAME)
#if !BS_CONVERTS(TP_DEVICE_GROUP)
#define BS_OPERANDS(NAME, A, B) \
  struct bs_operands_##NAME {   \
    enum { a = A, b = B };      \
  };
TP_BLOCK_SCALED_OPERANDS(BS_OPERANDS)
#define BS_PROLOGUE_KERNEL(NAME)                                                               \
  extern "C" __global__ void __launch_bounds__(BLOCK_SCALED_FOLD_THREADS)                      \
      tp_block_scaled_##NAME##_prologue(const __grid_constant__ tp_block_scaled_params p) {    \
    bs_prologue<bs_operands_##NAME::a, bs_operands_##NAME::b>(p);                              \
  }
/* NAME is expanded here, before BS_PROLOGUE_KERNEL pastes it. */
#define BS_PROLOGUE(NAME) BS_PROLOGUE_KERNEL(NAME)
BS_PROLOGUE(TP_DEVICE_GROUP)
#endif
