/* plugins/blockwise_fp8/device/blockwise_fp8_mainloop.cu: the blockwise FP8
 * payload's mainloop on the core's structured kernel (DeepSeek-V3 scaling).
 *
 *   acc(m, n) = sum_kb a_scale[kb][m] * b_scale[n / 128][kb]
 *                      * sum_{k in block kb} A(m, k) B(n, k)
 *
 * e4m3 A and B. A step of the skeleton's k-loop (one stage) holds
 * BLOCKWISE_STEP_BLOCKS scale blocks of 128 of K, accumulated in two levels
 * (tilepipe/plugin/device/promote.h): each block's group into a temporary,
 * promoted into the skeleton's f32 accumulator with the row's and the
 * column block's scales (one FFMA per element) while the next block's
 * group runs. The skeleton (tilepipe/plugin/device/kernel.h) runs the
 * rest: the tile schedule, split-K (the partial sums are scaled already),
 * C and the epilogue hook.
 *
 * The mainloop, as tilepipe/plugin/device/kernel_mainloop.h asks:
 *   load          each of the step's blocks as a k-tile of the stage (the
 *                 plan's k_group): its A and B (the skeleton's operand
 *                 loads) and its row of a_scale for the tile's rows (tile_m
 *                 f32, stage tensor 2);
 *   mma           the step's groups with the rows' A scales from the
 *                 stage and the step's B scales (tp_promote_mma);
 *   k_block_done  once the last group has retired (groups_in_flight 0: one
 *                 group in flight across the skeleton's k-loop makes ptxas
 *                 serialize the wgmma, docs/kernel.md), its promotion, then
 *                 the next step's B scales from global memory, a step ahead
 *                 of their use;
 *   tile_begin    the unit's first step's B scales.
 *
 * Invariants: K-major operands, 1024-byte aligned tiles (the storage
 * planner's layout); a scale block is 128 e4m3 of K (the blocks past K
 * arrive zero-filled from TMA, and their scales are the last block's);
 * tile widths that divide 128 (n_block), so that a tile's columns lie in
 * one 128-column block of B.
 *
 * Built by build-aux/device.mk into LTO-IR that plugins/blockwise_fp8/
 * embeds; tests/test_gpu_blockwise.c runs it, `tilepipe link` links it
 * without a GPU. The plain reference is tools/reference/naive_gemm.c. */
#include <stdint.h>

#include "plugins/blockwise_fp8/device/blockwise_fp8_params.h"
#include "tilepipe/plugin/device/kernel.h"
#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/promote.h"

/* One scale block: 128 of K, 128 rows of B. A step of the skeleton (its
 * k-block) is BLOCKWISE_STEP_BLOCKS of them: one stage, one drain. */
#define BLOCKWISE_BLOCK 128

struct blockwise_fp8_mainloop : tp_kernel_mainloop_defaults {
  typedef tp_blockwise_fp8_params params;
  static constexpr int max_tile_n = BLOCKWISE_MAX_TILE_N;
  static constexpr int n_block = BLOCKWISE_BLOCK; /* a tile's columns in one block of B's scales */
  static constexpr int sub = BLOCKWISE_STEP_BLOCKS; /* scale blocks a step */
  /* The two-level accumulation's registers (its column factors b: the
   * step's B scales), and where B's scales are. */
  template <int BM, int BN>
  struct consumer_state {
    tp_promote_state<BN, sub, 2> pr;
    const float *b_row;   /* b_scale's row of the tile's block */
    int32_t kb_begin;     /* the unit's first step */
    int32_t blocks;       /* scale blocks of K: ceil(K / 128) */
  };

  /* The last group is promoted as soon as it retires. */
  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return 0;
  }

  template <class P>
  static __device__ __forceinline__ void prefetch(const P &p) {
    tp_tma_prefetch_desc(&p.ab.a);
    tp_tma_prefetch_desc(&p.ab.b);
    tp_tma_prefetch_desc(&p.a_scale);
  }

  /* Step kb: scale block j's A and B tiles and its row of a_scale for the
   * tile's rows (tile_m f32) as k-tile j of the stage's tensors 0, 1 and 2
   * (the plan's k_group is sub). A stage's k-tiles of one tensor lie back
   * to back (each tile a whole number of its alignment, which gpu.c
   * checks), so tile j sits j tiles past tile 0, the address
   * tp_input_*_stage_tile(st, t, j) gives, reached with less arithmetic per
   * step, and one TMA box of sub rows fills the scales. Blocks past K
   * arrive zero-filled. */
  template <int BM, int BN, int CLUSTER_M>
  static __device__ __forceinline__ void load(const params &p, const tp_input_producer_stage *st,
                                              const tp_kernel_tile &t, int32_t kb) {
    tp_input_producer_stage_arrive_expect_bytes(
        st, sub * (tp_kernel_operand_bytes<BN>(p.kernel, t) + BM * (uint32_t)sizeof(float)));
    tp_promote_load_operands<BM, BN, CLUSTER_M, sub>(p.ab, st, t, kb);
    tp_mbar *full = tp_input_producer_stage_barrier(st);
    tp_tma_load_2d(tp_input_producer_stage_tile(st, 2, 0), &p.a_scale, full, t.m0, kb * sub);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t) {
    s.b_row = p.b_scale + (int64_t)(t.n0 / BLOCKWISE_BLOCK) * p.b_scale_ld;
    s.kb_begin = t.kb_begin;
    s.blocks = (p.kernel.k + BLOCKWISE_BLOCK - 1) / BLOCKWISE_BLOCK;
    load_b_scales(s, t.kb_begin);
  }

  /* Step kb's B scales (a block past K takes the last one: its tiles are
   * zero). */
  template <int BM, int BN>
  static __device__ __forceinline__ void load_b_scales(consumer_state<BM, BN> &s, int32_t kb) {
#pragma unroll
    for (int j = 0; j < sub; ++j) s.pr.b[j] = __ldg(s.b_row + min(kb * sub + j, s.blocks - 1));
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &s, const params &,
                                             float *acc, const tp_input_consumer_stage *st,
                                             uint32_t wg, bool accumulate) {
    tp_promote_mma<TP_DTYPE_E4M3, TP_DTYPE_E4M3, BM, BN, sub, 2>(s.pr, acc, st, wg, accumulate);
  }

  /* The last group's promotion, then the next step's B scales, a whole
   * step ahead of their use (the last step loads its own again). */
  template <int BM, int BN>
  static __device__ __forceinline__ void k_block_done(consumer_state<BM, BN> &s, const params &p,
                                                      float *acc, int32_t kb, uint32_t) {
    tp_promote_last(s.pr, acc);
    load_b_scales(s, min(kb + 1, p.kernel.k_blocks - 1));
  }
};

/* The kernels: every tile and D of tilepipe/plugin/kernel/tiles.h, named
 * tp_blockwise_fp8_e4m3_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them by name);
 * the tiles wider than BLOCKWISE_MAX_TILE_N or not dividing a block trap
 * (never planned). */
#define BLOCKWISE_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, OPERANDS)                              \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_blockwise_fp8, OPERANDS, BM, BN, CM, D_NAME),              \
                  blockwise_fp8_mainloop, BM, BN, DT, CM)
TP_KERNEL_FOR_EACH_INSTANCE(BLOCKWISE_KERNEL, e4m3)
