/* plugins/blockwise_fp8/device/blockwise_fp8_mainloop.cu: the blockwise FP8
 * payload's mainloop on the core's structured kernel (DeepSeek-V3 scaling).
 *
 *   acc(m, n) = sum_kb a_scale[kb][m] * b_scale[n / 128][kb]
 *                      * sum_{k in block kb} A(m, k) B(n, k)
 *
 * e4m3 A and B. A step of the skeleton's k-loop (one stage) holds
 * BLOCKWISE_STEP_BLOCKS scale blocks of 128 of K. Each block's four k32
 * wgmma, over the tile's whole width, go into one of two temporary
 * accumulators in turn, and each temporary is promoted into the skeleton's
 * f32 accumulator with the row's and the column block's scales (one FFMA
 * per element) while the next block's group runs; only the step's last
 * promotion waits for the drain. The skeleton (tilepipe/plugin/device/kernel.h)
 * runs the rest: the tile schedule, split-K (the partial sums are scaled
 * already), C and the epilogue hook.
 *
 * The mainloop, as tilepipe/plugin/device/kernel_mainloop.h asks:
 *   load          each of the step's blocks as a k-tile of the stage (the
 *                 plan's k_group): its A and B (the skeleton's operand
 *                 loads) and its row of a_scale for the tile's rows (tile_m
 *                 f32, stage tensor 2);
 *   mma           the thread's rows' A scales from the stage (read before
 *                 the groups are issued, so that their latency hides under
 *                 them), then the blocks' groups, each but the last
 *                 promoted while the one after it runs;
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
#include "tilepipe/plugin/device/wgmma.h"

/* One scale block: 128 of K, 128 rows of B. A step of the skeleton (its
 * k-block) is BLOCKWISE_STEP_BLOCKS of them: one stage, one drain. */
#define BLOCKWISE_BLOCK 128

struct blockwise_fp8_mainloop : tp_kernel_mainloop_defaults {
  typedef tp_blockwise_fp8_params params;
  static constexpr int max_tile_n = BLOCKWISE_MAX_TILE_N;
  static constexpr int n_block = BLOCKWISE_BLOCK; /* a tile's columns in one block of B's scales */
  static constexpr int sub = BLOCKWISE_STEP_BLOCKS; /* scale blocks a step */
  static constexpr int step_bytes = 32;             /* K of one wgmma: 32 e4m3 */
  static constexpr int steps = TP_KERNEL_ROW_BYTES / step_bytes;

  static_assert(sub >= 2, "a step's last group is promoted while the one before it runs");

  /* A step's groups (one per scale block) go into two temporaries in turn. */
  template <int BM, int BN>
  struct consumer_state {
    float tmp[2][BN / 2]; /* wgmma's fragment layout */
    float f[2];           /* the last scale block's a_scale x b_scale, per row of the thread */
    float b[sub];         /* the step's B scales */
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
    tp_mbar *full = tp_input_producer_stage_barrier(st);
    unsigned char *a = (unsigned char *)tp_input_producer_stage_tile(st, 0, 0);
    unsigned char *b = (unsigned char *)tp_input_producer_stage_tile(st, 1, 0);
#pragma unroll
    for (int j = 0; j < sub; ++j) {
      const int32_t k0 = (kb * sub + j) * BLOCKWISE_BLOCK;
      tp_kernel_load_b<BN, CLUSTER_M>(p.ab, b + j * BN * TP_KERNEL_ROW_BYTES, full, k0, t);
      tp_kernel_load_a(p.ab, a + j * BM * TP_KERNEL_ROW_BYTES, full, k0, t);
    }
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
    for (int j = 0; j < sub; ++j) s.b[j] = __ldg(s.b_row + min(kb * sub + j, s.blocks - 1));
  }

  /* Issues and commits one scale block's group into tmp: the rows of A at
   * a x the BN rows of B at b. */
  template <int BN>
  static __device__ __forceinline__ void issue_block(float *tmp, uint32_t a, uint32_t b) {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) asm volatile("" : "=f"(tmp[i]));
    tp_wgmma_fence();
#pragma unroll
    for (int k = 0; k < steps; ++k) {
      tp_wgmma_e4m3_e4m3(BN, tmp, tp_wgmma_desc_sw128(a + k * step_bytes),
                         tp_wgmma_desc_sw128(b + k * step_bytes), k > 0);
    }
    tp_wgmma_commit_group();
  }

  /* The step's groups in order, each issued once the group two before it
   * has retired and been promoted; all but the last group's promotion
   * happen here. */
  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &s, const params &,
                                             float *acc, const tp_input_consumer_stage *st,
                                             uint32_t wg, bool accumulate) {
    const uint32_t row = wg * TP_KERNEL_WARPGROUP_ROWS + threadIdx.x % 128u / 32u * 16u +
                         threadIdx.x % 32u / 4u;
    const float *sa = (const float *)tp_input_consumer_stage_tile(st, 2, 0) + row;
    float f[sub][2];
#pragma unroll
    for (int j = 0; j < sub; ++j) {
      f[j][0] = sa[j * BM] * s.b[j];
      f[j][1] = sa[j * BM + 8] * s.b[j];
    }
    uint32_t a, b;
    tp_kernel_operand_addrs(st, 0, wg, &a, &b);
#pragma unroll
    for (int j = 0; j < sub; ++j) {
      if (j >= 2) {
        /* group j - 2 retired; j - 1 runs */
        tp_wgmma_wait_group<1>();
        promote<BN>(s.tmp[j % 2], f[j - 2], acc, !accumulate && j == 2);
      }
      /* k-tile j, j tiles past tile 0 (load's comment) */
      issue_block<BN>(s.tmp[j % 2], a + j * BM * TP_KERNEL_ROW_BYTES,
                      b + j * BN * TP_KERNEL_ROW_BYTES);
    }
    /* group sub - 2 retired; the last runs */
    constexpr int q = sub - 2;
    tp_wgmma_wait_group<1>();
    promote<BN>(s.tmp[q % 2], f[q], acc, !accumulate && q == 0);
    s.f[0] = f[sub - 1][0];
    s.f[1] = f[sub - 1][1];
  }

  /* The last group's promotion, then the next step's B scales, a whole
   * step ahead of their use (the last step loads its own again). */
  template <int BM, int BN>
  static __device__ __forceinline__ void k_block_done(consumer_state<BM, BN> &s, const params &p,
                                                      float *acc, int32_t kb, uint32_t) {
    promote<BN>(s.tmp[(sub - 1) % 2], s.f, acc, false);
    load_b_scales(s, min(kb + 1, p.kernel.k_blocks - 1));
  }

  /* acc (+)= f[row] x tmp over the thread's fragment of H columns (wgmma.h: tmp[4j + 2h
   * + e] is row h of the thread, column 8j + 2(l%4) + e). A loop of its own for each of
   * acc's cases, since a select per element would cost as much as the FFMA. */
  template <int H>
  static __device__ __forceinline__ void promote(float *tmp, const float (&f)[2], float *acc,
                                                 bool first) {
#pragma unroll
    for (int i = 0; i < H / 2; ++i) tp_wgmma_fence_operand(tmp[i]);
    if (first) {
#pragma unroll
      for (int i = 0; i < H / 2; ++i) acc[i] = f[i / 2 % 2] * tmp[i];
    } else {
#pragma unroll
      for (int i = 0; i < H / 2; ++i) acc[i] = fmaf(f[i / 2 % 2], tmp[i], acc[i]);
    }
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
