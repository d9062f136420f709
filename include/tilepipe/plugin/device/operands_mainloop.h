/* tilepipe/plugin/device/operands_mainloop.h: the mainloop of operands
 * multiplied as they are:
 *
 *   acc[M,N] = A[M,K] x B[N,K]^T
 *
 * for bf16 x bf16, f16 x f16 or fp8 (e4m3/e5m2, any pair) A and B of
 * dtypes A and B, with f32 accumulation in wgmma. The standard payload
 * runs it on its caller's operands; block_scaled's MXFP8 W8A16 at large M
 * on B dequantized to bf16 by its prologue. The payload's params P hold
 * `ab` (tilepipe/plugin/kernel/operands.h) and `kernel`; the host plans it
 * with tp_kernel_plan_operands (tilepipe/plugin/kernel/gpu_plan.h).
 *
 * A stage holds one k-block: A as one 64-row box per consumer warpgroup
 * (tensor 0) and B as the tile's BN rows (tensor 1), 128 bytes of K per
 * row, 128B-swizzled (tilepipe/plugin/device/kernel_operands.h loads
 * them). A consumer warpgroup multiplies its 64 rows of A by all of B in
 * wgmma steps of 16 (bf16, f16) or 32 (fp8) K, one wgmma group per
 * k-block.
 *
 * Invariants: K-major operands, 1024-byte aligned tiles (the storage
 * planner's layout); a k-block is 128 bytes of K (64 or 128 elements; the
 * last one's columns past K read as zero from TMA). */
#ifndef TILEPIPE_PLUGIN_DEVICE_OPERANDS_MAINLOOP_H
#define TILEPIPE_PLUGIN_DEVICE_OPERANDS_MAINLOOP_H

#include <stdint.h>

#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/wgmma.h"

/* The size of A's dtype (B's: a pair is 16-bit or 8-bit). */
template <int A>
struct tp_operands_k {
  static constexpr bool half = A == TP_DTYPE_BF16 || A == TP_DTYPE_F16;
  static constexpr int elem_bytes = half ? 2 : 1;
};

/* prefetch and load are the skeleton's for A and B tiles (kernel_operands.h). */
template <int A, int B, class P>
struct tp_operands_mainloop : tp_kernel_operands_mainloop<tp_operands_k<A>::elem_bytes * 8> {
  typedef P params;
  static constexpr bool half = tp_operands_k<A>::half;
  static constexpr int elem_bytes = tp_operands_k<A>::elem_bytes;
  static constexpr int step_bytes = (half ? 16 : 32) * elem_bytes; /* K of one wgmma */
  static constexpr int steps = TP_KERNEL_ROW_BYTES / step_bytes;

  template <int BM, int BN>
  using consumer_state = tp_kernel_mainloop_defaults::consumer_state<BM, BN>;

  /* A 128 x 64 tile, bound by memory, has many small stages: it frees each
   * one as soon as its own wgmma group retires rather than holding it
   * while the next group is issued (docs/kernel.md). */
  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return BM == 128 && BN == 64 ? 0 : 1;
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    uint32_t a, b;
    tp_kernel_operand_addrs(st, 0, wg, &a, &b);
    tp_wgmma_fence();
#pragma unroll
    for (int k = 0; k < steps; ++k) {
      tp_wgmma_typed<A, B>(BN, acc, tp_wgmma_desc_sw128(a + k * step_bytes),
                           tp_wgmma_desc_sw128(b + k * step_bytes), accumulate || k > 0);
    }
    tp_wgmma_commit_group();
  }
};

#endif
