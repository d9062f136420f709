/* int8_w8a8_kernel.cu: the int8_w8a8 payload's mainloop on tilepipe's
 * structured kernel.
 *
 *   acc(m, n) = a_scale[m] * b_scale[n] * sum_k A(m, k) B(n, k)
 *
 * s8 A and B, s32 sums in wgmma (m64nNk32.s32.s8.s8, exact), then the
 * scales in f32 before the epilogue hook sees acc. The skeleton
 * (tilepipe/device/kernel.h) runs everything else: the tile schedule,
 * split-K, C, the epilogue and the store.
 *
 * The mainloop, as tilepipe/device/kernel_mainloop.h asks:
 *   load        a k-block of A and B (128 s8 of K per row) into the stage,
 *               by the skeleton's operand loads (kernel_operands.h);
 *   mma         four k32 wgmma steps over the stage into the accumulators,
 *               whose registers hold the s32 sums' bits until tile_end;
 *   tile_begin  the tile's row and column scales into registers;
 *   tile_end    each s32 sum to f32, times its row's and column's scales.
 * Split-K's partial sums are then scaled f32, added by the last split.
 *
 * Built into LTO-IR for sm_90a by the Makefile and embedded in the plugin;
 * the core links it with an epilogue's hook at plan time. */
#include <stdint.h>

#include <tilepipe/device/kernel.h>
#include <tilepipe/device/kernel_operands.h>
#include <tilepipe/device/wgmma.h>

#include "int8_w8a8_params.h"

/* prefetch and load are the skeleton's for A and B tiles (kernel_operands.h):
 * a k-block is 128 s8 of K. */
struct w8a8_mainloop : tp_kernel_operands_mainloop<TP_KERNEL_ROW_BYTES> {
  typedef w8a8_params params;
  static constexpr int max_tile_n = W8A8_MAX_TILE_N;
  static constexpr int step_bytes = 32; /* K of one wgmma: 32 s8 */
  static constexpr int steps = TP_KERNEL_ROW_BYTES / step_bytes;

  /* acc[4j + 2h + e] is row 16 w + l / 4 + 8 h, column 8 j + 2 (l % 4) + e
   * of the warpgroup's 64 x BN (tilepipe/device/wgmma.h): a thread needs
   * two row scales and BN / 4 column scales. It loads 1/8 of those (lane
   * 4g + q the column pairs 8 j + 2 q of the j with j % 8 == g, in
   * scale_rounds rounds) and takes the rest from the 7 other lanes of the
   * same q by shuffle: all BN / 4 loaded at once, with their addresses, do
   * not fit beside the accumulators. */
  static constexpr __host__ __device__ int scale_rounds(int bn) { return (bn / 8 + 7) / 8; }

  template <int BM, int BN>
  struct consumer_state {
    float row_scale[2];                   /* rows 16 w + l / 4 and 8 below */
    float col_scale[scale_rounds(BN)][2]; /* this lane's share of the column scales */
  };

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    uint32_t a, b;
    tp_kernel_operand_addrs(st, 0, wg, &a, &b);
    tp_wgmma_fence();
#pragma unroll
    for (int k = 0; k < steps; ++k) {
      tp_wgmma_s8_s8_bits(BN, acc, tp_wgmma_desc_sw128(a + k * step_bytes),
                          tp_wgmma_desc_sw128(b + k * step_bytes), accumulate || k > 0);
    }
    tp_wgmma_commit_group();
  }

  /* The tile's scales, loaded before its mainloop so that their latency
   * hides under it rather than after the last k-block. Rows and columns
   * past D read the last scale (their results are dropped). */
  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t wg) {
    const uint32_t lane = threadIdx.x % 32u, warp = threadIdx.x % 128u / 32u;
    const uint32_t q = lane % 4u, g = lane / 4u;
    const int32_t row0 = t.m0 + (int32_t)(wg * 64u + warp * 16u + g);
    const int32_t last_row = p.kernel.m - 1, last_col = p.kernel.n - 1;
    s.row_scale[0] = __ldg(p.a_scale + min(row0, last_row));
    s.row_scale[1] = __ldg(p.a_scale + min(row0 + 8, last_row));
#pragma unroll
    for (int r = 0; r < scale_rounds(BN); ++r) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int32_t col = t.n0 + (int32_t)((r * 8u + g) * 8u + 2u * q) + e;
        s.col_scale[r][e] = __ldg(p.b_scale + min(col, last_col));
      }
    }
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_end(consumer_state<BM, BN> &s, const params &,
                                                  float *acc, const tp_kernel_tile &,
                                                  uint32_t) {
    const uint32_t q = threadIdx.x % 4u;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float sb = __shfl_sync(0xffffffffu, s.col_scale[j / 8][e], (int)(4u * (j % 8) + q));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int i = 4 * j + 2 * h + e;
          acc[i] = (float)__float_as_int(acc[i]) * (s.row_scale[h] * sb);
        }
      }
    }
  }
};

/* The kernels: every tile and D of tilepipe/kernel/tiles.h, named
 * tp_int8_w8a8_s8_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them by name). */
#define W8A8_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, OPERANDS) \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_int8_w8a8, OPERANDS, BM, BN, CM, D_NAME), w8a8_mainloop, BM, \
                  BN, DT, CM)
TP_KERNEL_FOR_EACH_INSTANCE(W8A8_KERNEL, s8)
