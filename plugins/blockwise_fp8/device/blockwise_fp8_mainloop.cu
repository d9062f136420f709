/* plugins/blockwise_fp8/device/blockwise_fp8_mainloop.cu: the blockwise FP8
 * payload's mainloop on the core's structured kernel (DeepSeek-V3 scaling).
 *
 *   acc(m, n) = sum_kb a_scale[kb][m] * b_scale[n / 128][kb]
 *                      * sum_{k in block kb} A(m, k) B(n, k)
 *
 * e4m3 A and B; per 128-wide k-block, four k32 wgmma into a temporary
 * accumulator, then its promotion into the skeleton's f32 accumulator with
 * the row's and the column block's scales (one FFMA per element). The
 * skeleton (tilepipe/device/kernel.h) runs the rest: the tile schedule,
 * split-K (the partial sums are scaled already), C and the epilogue hook.
 *
 * Each consumer warpgroup waits for its own group before it promotes
 * (groups_in_flight 0); the other consumer warpgroup's group keeps the
 * tensor cores busy meanwhile. (A second temporary, to promote one
 * k-block while the next one's group runs, makes ptxas serialize the
 * wgmma: docs/kernel.md.)
 *
 * The mainloop, as tilepipe/device/kernel_mainloop.h asks:
 *   load          a k-block of A and B (the skeleton's operand loads) and
 *                 the k-block's row of a_scale for the tile's rows (one TMA
 *                 box of tile_m f32, stage tensor 2);
 *   mma           the thread's two rows' A scales from the stage (read
 *                 before the group is issued, so that their latency hides
 *                 under it), then four k32 steps into the temporary;
 *   k_block_done  once that group has retired, acc (+)= (a_scale x
 *                 b_scale) x tmp, then the next k-block's B scale from
 *                 global memory, a k-block ahead of its use;
 *   tile_begin    the unit's first k-block and its B scale.
 *
 * Invariants: K-major operands, 1024-byte aligned tiles (the storage
 * planner's layout); a k-block is 128 e4m3 of K, one scale block (the last
 * one's columns past K read as zero from TMA, and its scales cover what
 * exists); tiles at most 128 wide (BLOCKWISE_MAX_TILE_N), so that a tile's
 * columns lie in one 128-column block of B.
 *
 * Built by build-aux/device.mk into LTO-IR that plugins/blockwise_fp8/
 * embeds; tests/test_gpu_blockwise.c runs it, `tilepipe link` links it
 * without a GPU. The plain reference is tools/reference/naive_gemm.c. */
#include <stdint.h>

#include "plugins/blockwise_fp8/device/blockwise_fp8_params.h"
#include "tilepipe/device/kernel.h"
#include "tilepipe/device/kernel_operands.h"
#include "tilepipe/device/wgmma.h"

/* One scale block: 128 of K, 128 rows of B. */
#define BLOCKWISE_BLOCK 128

static_assert(BLOCKWISE_BLOCK % BLOCKWISE_MAX_TILE_N == 0,
              "a tile's columns must lie in one block of B's scales");

struct blockwise_fp8_mainloop : tp_kernel_operands_mainloop<BLOCKWISE_BLOCK> {
  typedef tp_blockwise_fp8_params params;
  static constexpr int max_tile_n = BLOCKWISE_MAX_TILE_N;
  static constexpr int step_bytes = 32; /* K of one wgmma: 32 e4m3 */
  static constexpr int steps = TP_KERNEL_ROW_BYTES / step_bytes;

  template <int BM, int BN>
  struct consumer_state {
    float tmp[BN / 2];  /* the k-block's sums, wgmma's fragment layout */
    float sa[2];        /* the k-block's A scales of this thread's two rows */
    float b;            /* the k-block's B scale */
    const float *b_row; /* b_scale's row of the tile's block */
    int32_t kb_begin;   /* the unit's first k-block */
  };

  /* The temporary is read as soon as its group retires. */
  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return 0;
  }

  template <int BM, int BN, int CLUSTER_M>
  static __device__ __forceinline__ void load(const params &p, const tp_input_producer_stage *st,
                                              const tp_kernel_tile &t, int32_t kb) {
    tp_input_producer_stage_arrive_expect_bytes(
        st, tp_kernel_operand_bytes<BN>(t) + BM * (uint32_t)sizeof(float));
    tp_kernel_load_operands<BM, BN, CLUSTER_M>(p.ab, st, kb * BLOCKWISE_BLOCK, t);
    tp_tma_load_2d(tp_input_producer_stage_tile(st, 2, 0), &p.a_scale,
                   tp_input_producer_stage_barrier(st), t.m0, kb);
  }

  template <class P>
  static __device__ __forceinline__ void prefetch(const P &p) {
    tp_kernel_operands_mainloop<BLOCKWISE_BLOCK>::prefetch(p);
    tp_tma_prefetch_desc(&p.a_scale);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t) {
    s.b_row = p.b_scale + (int64_t)(t.n0 / BLOCKWISE_BLOCK) * p.b_scale_ld;
    s.kb_begin = t.kb_begin;
    s.b = __ldg(s.b_row + t.kb_begin);
  }

  /* Issues and commits k-block kb's group into tmp: the stage's rows of A
   * for wg x the tile's B. The first step overwrites tmp, whose old values
   * are then dead (not kept alive in registers elsewhere). */
  template <int BN>
  static __device__ __forceinline__ void issue(float *tmp, const tp_input_consumer_stage *st,
                                               uint32_t wg) {
    uint32_t a, b;
    tp_kernel_operand_addrs(st, wg, &a, &b);
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

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &s, const params &, float *,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool) {
    const uint32_t row = wg * TP_KERNEL_WARPGROUP_ROWS + threadIdx.x % 128u / 32u * 16u +
                         threadIdx.x % 32u / 4u;
    const float *sa = (const float *)tp_input_consumer_stage_tile(st, 2, 0) + row;
    s.sa[0] = sa[0];
    s.sa[1] = sa[8];
    issue<BN>(s.tmp, st, wg);
  }

  /* acc (+)= (a_scale of the row x b_scale of the tile's block) x tmp;
   * acc starts over at the unit's first k-block. */
  template <int BM, int BN>
  static __device__ __forceinline__ void k_block_done(consumer_state<BM, BN> &s, const params &p,
                                                      float *acc, const tp_input_consumer_stage *,
                                                      int32_t kb, uint32_t) {
    const float f[2] = {s.sa[0] * s.b, s.sa[1] * s.b};
    promote<BN>(s.tmp, f, acc, kb == s.kb_begin);
    /* The next k-block's, a whole k-block ahead of its use (the last
     * k-block loads its own again). */
    s.b = __ldg(s.b_row + min(kb + 1, p.kernel.k_blocks - 1));
  }

  /* acc (+)= f[h] x tmp. Thread l of warp w holds rows 16 w + l / 4 (h =
   * 0) and 8 below (h = 1): tmp[4 j + 2 h + e] (wgmma.h). A loop of its
   * own for each of acc's cases, since a select per element would cost as
   * much as the FFMA. */
  template <int BN>
  static __device__ __forceinline__ void promote(float *tmp, const float (&f)[2], float *acc,
                                                 bool first) {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) tp_wgmma_fence_operand(tmp[i]);
    if (first) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] = f[i / 2 % 2] * tmp[i];
    } else {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] = fmaf(f[i / 2 % 2], tmp[i], acc[i]);
    }
  }
};

/* The kernels: every tile and D of tilepipe/kernel/tiles.h, named
 * tp_blockwise_fp8_e4m3_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them by name);
 * the tiles wider than BLOCKWISE_MAX_TILE_N trap (never planned). */
#define BLOCKWISE_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, OPERANDS)                              \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_blockwise_fp8, OPERANDS, BM, BN, CM, D_NAME),              \
                  blockwise_fp8_mainloop, BM, BN, DT, CM)
TP_KERNEL_FOR_EACH_INSTANCE(BLOCKWISE_KERNEL, e4m3)
