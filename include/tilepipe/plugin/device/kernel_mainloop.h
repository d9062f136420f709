/* tilepipe/plugin/device/kernel_mainloop.h: what a payload's mainloop supplies to
 * the structured kernel.
 *
 * The skeleton (tilepipe/plugin/device/kernel.h) owns the tile scheduler, the warp
 * roles and their register budgets, the input pipeline's barriers, split-K,
 * and the whole epilogue pipeline. A payload supplies one struct, its
 * mainloop, whose static members say what a stage holds and how it is
 * filled and consumed:
 *
 *   typedef ... params;
 *       The kernel's parameter struct (host C and device, plain data): the
 *       payload's own fields and a tp_kernel_params named `kernel`.
 *   template <int BM, int BN, int CLUSTER_M>
 *   static void load(const params &p, const tp_input_producer_stage *st,
 *                    const tp_kernel_tile &t, int32_t kb);
 *       The producer (one elected thread): announce the bytes of k-block kb
 *       (tp_input_producer_stage_arrive_expect_bytes) and issue the TMA
 *       loads that fill stage st with them: its tiles, and any per-stage
 *       extras such as a row of scales, completing on the stage's barrier.
 *   template <int BM, int BN>
 *   static void mma(consumer_state<BM, BN> &s, const params &p, float *acc,
 *                   const tp_input_consumer_stage *st, uint32_t wg,
 *                   bool accumulate);
 *       A consumer warpgroup (wg: rows 64wg..64wg+63 of the tile): issue
 *       and commit one wgmma group over stage st into its accumulators
 *       (acc, the BN / 2 floats of wgmma's fragment layout, or registers of
 *       its own in s), adding to them when `accumulate`, overwriting them
 *       at a unit's first k-block. Called only when wg's rows start inside
 *       M; otherwise the skeleton passes the stage on untouched.
 *
 * Optional (tp_kernel_mainloop_defaults has empty ones; a mainloop that
 * derives from it overrides what it needs):
 *
 *   static constexpr int max_tile_n;
 *       The widest tile whose accumulators and the mainloop's own registers
 *       fit a consumer's 232 (default TP_KERNEL_MAX_TILE_N, the table's
 *       widest); wider kernels trap, and the host planner, told the same
 *       figure (tp_kernel_plan_shape), never picks them.
 *   static constexpr int n_block;
 *       Where per-column data comes in blocks of n_block columns of B
 *       (blockwise FP8's scales: 128), only widths that divide it, so that
 *       a tile lies in one block; others trap, and the planner, told the
 *       same, never picks them. Default 0: any width.
 *   template <int BM, int BN> struct consumer_state;
 *       Registers a consumer warpgroup keeps beside acc across the
 *       mainloop (a temporary accumulator, a tile's scales). Default: none.
 *   static constexpr int step_stages;
 *       Stages a step of the k-loop takes (default 1). Above 1 the
 *       consumers acquire that many stages (fewer at a unit's end) before
 *       any mma, and call
 *         mma<BM, BN, N>(s, p, acc, st, wg, accumulate)
 *       with st[0..N-1] the step's stages (N of 1..step_stages) instead of
 *       the one-stage mma, then release them together once the step's
 *       groups have retired (groups_in_flight 0, no convert) and call
 *       k_block_done with the step's last k-block. Stages stay one k-block
 *       each, so more of them fit and the producer runs further ahead,
 *       while a step still spans several k-blocks' wgmma groups (the
 *       blockwise mainloop's two scale blocks, each a stage). The host
 *       plans at least that many stages (tp_kernel_request.step_stages).
 *   template <int BM, int BN> static constexpr int groups_in_flight();
 *       wgmma groups left in flight behind the issue: 1 (default) keeps the
 *       tensor cores busy while a stage waits for its group to retire; 0
 *       waits for each group at once, as a mainloop must whose k_block_done
 *       reads the accumulators.
 *   static void prefetch(const params &p);
 *       Thread 0 at kernel start: prefetch the mainloop's TMA descriptors.
 *       It and warm run before the kernel waits for the stream's previous
 *       kernel (tilepipe/internal/kernel/grid_dependency.h): prefetches only, no
 *       load into shared memory and no global access of its own.
 *   template <int BM, int BN, int CLUSTER_M>
 *   static void warm(const params &p);
 *       One thread of warp 1 at kernel start, while thread 0 sets up the
 *       barriers, where M is at most 64 rows: prefetch into L2 the first
 *       k-blocks of the CTA's first unit, which the loader's first loads
 *       then find there (the operands mainloop prefetches
 *       TP_KERNEL_WARM_K_BLOCKS of A and B).
 *   static constexpr int a_row_bytes;
 *       Bytes of K a row of A's tile holds in a stage (default 128,
 *       TP_KERNEL_ROW_BYTES): fewer where A is the narrower operand of a
 *       mixed-width pair (kernel_operands.h), for the rows the skeleton
 *       zeroes under short A boxes.
 *   static constexpr bool converts;
 *   template <int BM, int BN>
 *   static void convert(consumer_state<BM, BN> &s, const params &p,
 *                       const tp_input_consumer_stage *st,
 *                       const tp_kernel_converter &c);
 *       A stage transform (converts = true; default false): every thread
 *       of the consumer warpgroups whose rows start inside M (c.threads of
 *       them; c.thread is this one's index among them), once per k-block
 *       after the stage has arrived and before any mma reads it, rewrites
 *       its share of the stage in shared memory into what wgmma reads (an
 *       s8 B tile into a bf16 tile that the plan added as a stage tensor,
 *       say). The skeleton then makes those writes visible to wgmma
 *       (fence.proxy.async) and waits for every converter (named barrier
 *       TP_KERNEL_BAR_CONVERT for both warpgroups, warpgroup 0's own
 *       where it converts alone) before the warpgroups' mma. A stage is
 *       refilled only once every consumer warp released it, so a tensor
 *       of the stage that convert writes is never read by an earlier
 *       k-block's wgmma still in flight. A transform in registers (A from
 *       registers) needs none of this: it belongs in mma.
 *   static constexpr bool transposed;
 *       true: the kernel computes D^T = B A^T (default false). Its tiles
 *       are tiles.h's transposed ones, rows of B (the weight, on wgmma's
 *       64-row side, where A may come from registers) by rows of A (the
 *       tokens, on its N side): tp_kernel_params' m and n are N and M,
 *       the mainloop's operands `ab.a` and `ab.b` are B and A, and the
 *       epilogue writes each result to D (and reads C) at its transposed
 *       place straight from registers (kernel_epilogue.h), without the
 *       store and source warps. The host plans it with a request's
 *       transposed (tilepipe/plugin/kernel/plan.h).
 *   template <int BM, int BN>
 *   static void tile_begin(consumer_state<BM, BN> &s, const params &p,
 *                          const tp_kernel_tile &t, uint32_t wg);
 *       Per-tile prologue of each consumer warpgroup (e.g. a tile's B
 *       scales into registers or shared memory).
 *   template <int BM, int BN>
 *   static void k_block_done(consumer_state<BM, BN> &s, const params &p,
 *                            float *acc, int32_t kb, uint32_t wg);
 *       Once k-block kb's wgmma group has retired, after its stage went
 *       back to the producer, so that the refill runs under this step
 *       (e.g. promote a temporary accumulator into acc, groups_in_flight
 *       0, with scales that mma read from the stage). Only where wg's rows
 *       start inside M.
 *   template <int BM, int BN>
 *   static void tile_end(consumer_state<BM, BN> &s, const params &p,
 *                        float *acc, const tp_kernel_tile &t, uint32_t wg);
 *       After the unit's last k-block, before split-K's partial sums and
 *       the epilogue: the accumulator transform (e.g. per-row x per-column
 *       scales). The epilogue hook then receives acc.
 *
 * A mainloop whose stage holds K-major A and B tiles alone derives from
 * tp_kernel_operands_mainloop (kernel_operands.h), which supplies prefetch,
 * warm and load, and adds its mma.
 *
 * Named barriers (bar.sync ids; 0 is __syncthreads): 1 and 2 are the
 * consumer warpgroups' own (TP_KERNEL_BAR_CONSUMER_0 + wg, 128 threads:
 * split-K, the short A boxes' zeroing, a convert step warpgroup 0 takes
 * alone), 3 the convert step's of both warpgroups (TP_KERNEL_BAR_CONVERT,
 * 256 threads); TP_KERNEL_BAR_MAINLOOP (4) to 15 are free for a
 * mainloop's own use. An id must always be used with one thread count: a
 * warpgroup with no rows in a tile's M runs ahead into the next tile, and
 * meeting a barrier still counting another number of threads traps.
 *
 * All of them are `static __device__ __forceinline__`: the skeleton is one
 * inlined body per kernel, and a register array passed by pointer stays in
 * registers. docs/writing-a-payload.md walks through one. */
#ifndef TILEPIPE_PLUGIN_DEVICE_KERNEL_MAINLOOP_H
#define TILEPIPE_PLUGIN_DEVICE_KERNEL_MAINLOOP_H

#include <stdint.h>

#include "tilepipe/internal/kernel/kernel_schedule.h"
#include "tilepipe/plugin/kernel/tiles.h"
#include "tilepipe/internal/pipeline/input_tile_pipeline.h"

/* Named barrier ids (see above). */
enum { TP_KERNEL_BAR_CONSUMER_0 = 1, TP_KERNEL_BAR_CONVERT = 3, TP_KERNEL_BAR_MAINLOOP = 4 };

/* What a mainloop's convert step is told: this thread's index among the
 * converters and their number (128 x the consumer warpgroups whose rows
 * start inside M), and where the stage lies: the tile's origin and the
 * k-block (per-block data such as the scales of a row's K-group). */
typedef struct tp_kernel_converter {
  uint32_t thread, threads;
  int32_t m0, n0, kb;
} tp_kernel_converter;

/* The CTA's dynamic shared memory, 1024-aligned (128B-swizzled tiles need
 * it): the storage planner's layout (tp_kernel_params.smem) is relative to
 * this base. */
TP_KERNEL_FN unsigned char *tp_kernel_smem(void) {
  extern __shared__ __align__(1024) unsigned char tp_kernel_smem_base[];
  return tp_kernel_smem_base;
}

struct tp_kernel_mainloop_defaults {
  static constexpr int max_tile_n = TP_KERNEL_MAX_TILE_N;
  static constexpr int n_block = 0;
  static constexpr int a_row_bytes = TP_KERNEL_ROW_BYTES;
  static constexpr bool converts = false;
  static constexpr bool transposed = false;
  static constexpr int step_stages = 1;

  template <int BM, int BN>
  struct consumer_state {};

  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return 1;
  }

  template <class P>
  static __device__ __forceinline__ void prefetch(const P &) {}

  template <int BM, int BN, int CLUSTER_M, class P>
  static __device__ __forceinline__ void warm(const P &) {}

  template <int BM, int BN, class S, class P>
  static __device__ __forceinline__ void convert(S &, const P &, const tp_input_consumer_stage *,
                                                 const tp_kernel_converter &) {}

  template <int BM, int BN, class S, class P>
  static __device__ __forceinline__ void tile_begin(S &, const P &, const tp_kernel_tile &,
                                                    uint32_t) {}

  template <int BM, int BN, class S, class P>
  static __device__ __forceinline__ void k_block_done(S &, const P &, float *, int32_t,
                                                      uint32_t) {}

  template <int BM, int BN, class S, class P>
  static __device__ __forceinline__ void tile_end(S &, const P &, float *, const tp_kernel_tile &,
                                                  uint32_t) {}
};

#endif
