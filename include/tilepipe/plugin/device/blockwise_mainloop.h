/* tilepipe/plugin/device/blockwise_mainloop.h: the mainloop of 8-bit
 * operands scaled per block of 128 of K (DeepSeek-V3's blockwise scaling):
 *
 *   acc(m, n) = sum_kb a_scale[kb][m] * b_scale[n / 128][kb]
 *                      * sum_{k in block kb} A(m, k) B(n, k)
 *
 * A and B of 8-bit float dtypes A and B (e4m3 or e5m2), K-major. A stage
 * holds one scale block; a step of the skeleton's k-loop takes
 * TP_BLOCKWISE_STEP_BLOCKS stages (step_stages), accumulated in two levels
 * (tilepipe/plugin/device/promote.h):
 * each block's group into a temporary, promoted into the skeleton's f32
 * accumulator with the row's and the column block's scales (one FFMA per
 * element) while the next block's group runs. blockwise_fp8 runs it on its
 * caller's operands; block_scaled's MXFP8 W8A8 on operands its prologue
 * folded into this form.
 *
 * The payload's params P hold, beside `ab` (tilepipe/plugin/kernel/
 * operands.h) and `kernel`:
 *   tp_tma_desc a_scale   [ceil(K/128), M] f32, M contiguous, boxes of
 *                         tile_m x 1 (tp_kernel_blockwise_a_scale), loaded
 *                         into each stage beside A: the rows' factors;
 *   const float *b_scale  [ceil(N/128), ceil(K/128)] f32, block (nb, kb) at
 *   int64_t b_scale_ld    b_scale[nb * b_scale_ld + kb], read by the
 *                         consumers from global memory a step ahead.
 * The host plans it with tp_kernel_plan_blockwise (tilepipe/plugin/
 * kernel/gpu_plan.h) and encodes a_scale with tp_kernel_blockwise_a_scale
 * (tilepipe/plugin/kernel/args.h).
 *
 * The mainloop, as tilepipe/plugin/device/kernel_mainloop.h asks:
 *   load          a block into its stage: its A and B (the skeleton's
 *                 operand loads) and its row of a_scale for the tile's
 *                 rows (tile_m f32, stage tensor TP_KERNEL_ROW_FACTORS);
 *   mma           the step's groups, one a stage, with the rows' A scales
 *                 from the stages and the step's B scales
 *                 (tp_promote_mma);
 *   k_block_done  once the last group has retired (groups_in_flight 0: one
 *                 group in flight across the skeleton's k-loop makes ptxas
 *                 serialize the wgmma, docs/kernel.md), its promotion, then
 *                 the next step's B scales from global memory, a step ahead
 *                 of their use;
 *   tile_begin    the unit's first step's B scales.
 *
 * Invariants: 1024-byte aligned tiles (the storage planner's layout); the
 * blocks past K arrive zero-filled from TMA, and their scales are the last
 * block's; tile widths that divide 128 (n_block), so that a tile's columns
 * lie in one 128-column block of B; at least TP_BLOCKWISE_STEP_BLOCKS
 * stages (the host plan's step_stages). */
#ifndef TILEPIPE_PLUGIN_DEVICE_BLOCKWISE_MAINLOOP_H
#define TILEPIPE_PLUGIN_DEVICE_BLOCKWISE_MAINLOOP_H

#include <stdint.h>

#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/promote.h"

template <int A, int B, class P>
struct tp_blockwise_mainloop : tp_kernel_mainloop_defaults {
  typedef P params;
  static constexpr int max_tile_n = TP_BLOCKWISE_MAX_TILE_N;
  static constexpr int n_block = TP_BLOCKWISE_K; /* a tile's columns in one block of B's scales */
  static constexpr int step_stages = TP_BLOCKWISE_STEP_BLOCKS; /* a block a stage */

  /* The two-level accumulation's registers (its column factors b: the
   * step's B scales), and where B's scales are. */
  template <int BM, int BN>
  struct consumer_state {
    tp_promote_state<BN, step_stages> pr;
    const float *b_next; /* the next step's first B scale, in b_scale's row of the tile */
    int32_t b_left;      /* b_next + b_left is that row's last, which blocks past K take */
  };

  /* The last group is promoted as soon as it retires. */
  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return 0;
  }

  static __device__ __forceinline__ void prefetch(const P &p) {
    tp_tma_prefetch_desc(&p.ab.a);
    tp_tma_prefetch_desc(&p.ab.b);
    tp_tma_prefetch_desc(&p.a_scale);
  }

  /* Block kb: its A and B tiles and its row of a_scale for the tile's rows
   * (tile_m f32) as the stage's tensors 0, 1 and TP_KERNEL_ROW_FACTORS.
   * Blocks past K arrive zero-filled. */
  template <int BM, int BN, int CLUSTER_M>
  static __device__ __forceinline__ void load(const P &p, const tp_input_producer_stage *st,
                                              const tp_kernel_tile &t, int32_t kb) {
    tp_input_producer_stage_arrive_expect_bytes(
        st, tp_kernel_operand_bytes<BN>(p.kernel, t) + BM * (uint32_t)sizeof(float));
    tp_promote_load_operands<BM, BN, CLUSTER_M>(p.ab, st, t, kb);
    tp_mbar *full = tp_input_producer_stage_barrier(st);
    tp_tma_load_2d(tp_input_producer_stage_tile(st, TP_KERNEL_ROW_FACTORS, 0), &p.a_scale, full,
                   t.m0, kb);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const P &p,
                                                    const tp_kernel_tile &t, uint32_t) {
    s.b_next = p.b_scale + (int64_t)(t.n0 / TP_BLOCKWISE_K) * p.b_scale_ld + t.kb_begin;
    s.b_left = (p.kernel.k + TP_BLOCKWISE_K - 1) / TP_BLOCKWISE_K - 1 - t.kb_begin;
    load_b_scales(s);
  }

  /* The next step's B scales, clamped to the row's last (a block past K
   * takes it: its tiles are zero), and the step after's position: a
   * pointer walked along the row costs a few instructions a step, where an
   * index rebuilt from kb costs a dozen. */
  template <int BM, int BN>
  static __device__ __forceinline__ void load_b_scales(consumer_state<BM, BN> &s) {
#pragma unroll
    for (int j = 0; j < step_stages; ++j) s.pr.b[j] = __ldg(s.b_next + min(j, s.b_left));
    s.b_next += step_stages;
    s.b_left -= step_stages;
  }

  /* A whole step, or the N blocks a unit ends with (below step_stages). */
  template <int BM, int BN, int N>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &s, const P &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    tp_promote_mma<A, B, BM, BN, N, step_stages>(s.pr, acc, st, wg, accumulate);
  }

  /* The last group's promotion, then the next step's B scales, a whole
   * step ahead of their use (after the unit's last step they go unused). */
  template <int BM, int BN>
  static __device__ __forceinline__ void k_block_done(consumer_state<BM, BN> &s, const P &,
                                                      float *acc, int32_t, uint32_t) {
    tp_promote_last(s.pr, acc);
    load_b_scales(s);
  }
};

#endif
