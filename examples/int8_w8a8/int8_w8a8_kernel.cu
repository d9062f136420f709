/* int8_w8a8_kernel.cu: the int8_w8a8 payload's mainloop on tilepipe's
 * structured kernel.
 *
 *   acc(m, n) = a_scale[m] * b_scale[n] * sum_k A(m, k) B(n, k)
 *
 * s8 A and B, s32 sums in wgmma (m64nNk32.s32.s8.s8, exact), then the
 * scales in f32 before the epilogue hook sees acc. The skeleton
 * (tilepipe/plugin/device/kernel.h) runs everything else: the tile schedule,
 * split-K, C, the epilogue and the store.
 *
 * The mainloop, as tilepipe/plugin/device/kernel_mainloop.h asks:
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

#include <tilepipe/plugin/device/fragment_scales.h>
#include <tilepipe/plugin/device/kernel.h>
#include <tilepipe/plugin/device/kernel_operands.h>
#include <tilepipe/plugin/device/wgmma.h>

#include "int8_w8a8_params.h"

/* prefetch and load are the skeleton's for A and B tiles (kernel_operands.h):
 * a k-block is 128 s8 of K. */
struct w8a8_mainloop : tp_kernel_operands_mainloop<8> {
  typedef w8a8_params params;
  static constexpr int max_tile_n = W8A8_MAX_TILE_N;
  static constexpr int step_bytes = 32; /* K of one wgmma: 32 s8 */
  static constexpr int steps = TP_KERNEL_ROW_BYTES / step_bytes;

  /* The tile's row and column scales, kept in registers across the
   * mainloop (tilepipe/plugin/device/fragment_scales.h: two row scales and this
   * lane's share of the column scales). */
  template <int BM, int BN>
  struct consumer_state {
    float row_scale[2];
    tp_fragment_columns<BN> col_scale;
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

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t wg) {
    tp_fragment_rows_load(s.row_scale, p.a_scale, t.m0, wg, p.kernel.m);
    tp_fragment_columns_load<BN>(s.col_scale, p.b_scale, t.n0, p.kernel.n);
  }

  /* acc[4j + 2h + e] holds the s32 sum of row h, column 8j + 2q + e. */
  template <int BM, int BN>
  static __device__ __forceinline__ void tile_end(consumer_state<BM, BN> &s, const params &,
                                                  float *acc, const tp_kernel_tile &,
                                                  uint32_t) {
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const float sb = tp_fragment_columns_get<BN>(s.col_scale, j, e);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int i = 4 * j + 2 * h + e;
          acc[i] = (float)__float_as_int(acc[i]) * (s.row_scale[h] * sb);
        }
      }
    }
  }
};

/* The kernels: every tile and D of tilepipe/plugin/kernel/tiles.h, named
 * tp_int8_w8a8_s8_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them by name). */
#define W8A8_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, OPERANDS) \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_int8_w8a8, OPERANDS, BM, BN, CM, D_NAME), w8a8_mainloop, BM, \
                  BN, DT, CM)
TP_KERNEL_FOR_EACH_INSTANCE(W8A8_KERNEL, s8)
