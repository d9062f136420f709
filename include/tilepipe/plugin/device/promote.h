/* tilepipe/plugin/device/promote.h: two-level accumulation, for mainloops
 * whose products carry a scale per block of 128 of K (the blockwise-scaled
 * mainloop, tilepipe/plugin/device/blockwise_mainloop.h):
 *
 *   acc(m, n) += f_j(m) * sum_{k in block j} A(m, k) B(n, k)
 *
 * with f_j(m) = row_j(m) * col_j: a factor per row of the tile, read from
 * block j's stage (stage tensor TP_KERNEL_ROW_FACTORS, tile_m f32, which
 * the plan adds: tp_kernel_plan_blockwise), times
 * one for all of the tile's columns (the tile lies in one block of B's,
 * the mainloop's n_block), which the mainloop keeps in tp_promote_state.b.
 *
 * A stage holds one block (A's and B's tiles); a step of the skeleton's
 * k-loop takes SUB stages (the mainloop's step_stages). Each block's four
 * k32 wgmma, over the tile's whole width, go into one of two temporary
 * accumulators in turn, and each temporary is promoted into the
 * skeleton's f32 accumulator (one FFMA per element) while the next
 * block's group runs; only the step's last promotion waits for the drain
 * (tp_promote_last, from the mainloop's k_block_done, groups_in_flight 0:
 * a group in flight across the skeleton's k-loop while the loop reads
 * accumulators makes ptxas serialize the wgmma, docs/kernel.md). The
 * step's last group always goes into temporary 1, whatever the step's
 * count of blocks, so that tp_promote_last needs no index.
 *
 * Registers: acc and the two temporaries take 3 x BN / 2, 192 of the
 * consumers' 232 at BN 128, the widest such a mainloop takes. */
#ifndef TILEPIPE_PLUGIN_DEVICE_PROMOTE_H
#define TILEPIPE_PLUGIN_DEVICE_PROMOTE_H

#include <stdint.h>

#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/wgmma.h"

/* The registers a consumer warpgroup keeps for it (STEP: blocks a step). */
template <int BN, int STEP>
struct tp_promote_state {
  float tmp[2][BN / 2]; /* wgmma's fragment layout */
  float f[2];           /* the step's last block's factors, per row of the thread */
  float b[STEP];        /* the step's column factors, set by the mainloop */
};

/* The loader's part for block kb: its A and B tiles (128 of K of 8-bit
 * operands) as stage tensors 0 and 1 (blocks past K arrive zero-filled),
 * completing on the stage's barrier, whose bytes the mainloop has
 * announced. */
template <int BM, int BN, int CLUSTER_M>
TP_KERNEL_FN void tp_promote_load_operands(const tp_kernel_operands &ab,
                                           const tp_input_producer_stage *st,
                                           const tp_kernel_tile &t, int32_t kb) {
  tp_mbar *full = tp_input_producer_stage_barrier(st);
  const int32_t k0 = kb * TP_KERNEL_ROW_BYTES;
  tp_kernel_load_b<BN, CLUSTER_M>(
      ab, (unsigned char *)tp_input_producer_stage_tile(st, 1, 0), full, k0, t);
  tp_kernel_load_a(ab, (unsigned char *)tp_input_producer_stage_tile(st, 0, 0), full, k0, t);
}

/* Issues and commits one block's group into tmp: the rows of A whose
 * descriptor is da x the BN rows of B at db, 128 bytes of K of 8-bit A x B
 * dtypes. */
template <int A, int B, int BN>
TP_KERNEL_FN void tp_promote_issue(float *tmp, uint64_t da, uint64_t db) {
  constexpr int step_bytes = 32; /* K of one wgmma */
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) asm volatile("" : "=f"(tmp[i]));
  tp_wgmma_fence();
#pragma unroll
  for (int k = 0; k < TP_KERNEL_ROW_BYTES / step_bytes; ++k) {
    tp_wgmma_typed<A, B>(BN, tmp, tp_wgmma_desc_advance(da, k * step_bytes),
                         tp_wgmma_desc_advance(db, k * step_bytes), k > 0);
  }
  tp_wgmma_commit_group();
}

/* acc (+)= f[row] x tmp over the thread's fragment of H columns (wgmma.h: tmp[4j + 2h
 * + e] is row h of the thread, column 8j + 2(l%4) + e). A loop of its own for each of
 * acc's cases, since a select per element would cost as much as the FFMA. */
template <int H>
TP_KERNEL_FN void tp_promote(float *tmp, const float (&f)[2], float *acc, bool first) {
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

/* The mainloop's mma over the step's SUB stages (SUB of 1..STEP): their
 * groups in order, group j into temporary (j + SUB) % 2 (the last into
 * 1) once group j - 2 has retired and been promoted; all but the last
 * group's promotion happen here, each while the next group runs. The
 * thread's rows' factors are read before the groups are issued, so that
 * their latency hides under them. */
template <int A, int B, int BM, int BN, int SUB, int STEP>
TP_KERNEL_FN void tp_promote_mma(tp_promote_state<BN, STEP> &s, float *acc,
                                 const tp_input_consumer_stage *st, uint32_t wg,
                                 bool accumulate) {
  static_assert(SUB >= 1 && SUB <= STEP, "a step takes 1 to STEP blocks");
  const uint32_t row =
      wg * TP_KERNEL_WARPGROUP_ROWS + threadIdx.x % 128u / 32u * 16u + threadIdx.x % 32u / 4u;
  float f[SUB][2];
#pragma unroll
  for (int j = 0; j < SUB; ++j) {
    const float *sa =
        (const float *)tp_input_consumer_stage_tile(&st[j], TP_KERNEL_ROW_FACTORS, 0) + row;
    f[j][0] = sa[0] * s.b[j];
    f[j][1] = sa[8] * s.b[j];
  }
  /* A block with its unit to itself: no promotion here overwrites acc, so
   * the last one adds to zeros. */
  if (SUB == 1 && !accumulate) {
#pragma unroll
    for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;
  }
#pragma unroll
  for (int j = 0; j < SUB; ++j) {
    constexpr int first_tmp = SUB % 2;
    if (j >= 2) {
      /* group j - 2 retired; j - 1 runs */
      tp_wgmma_wait_group<1>();
      tp_promote<BN>(s.tmp[(j + first_tmp) % 2], f[j - 2], acc, !accumulate && j == 2);
    }
    uint32_t a, b;
    tp_kernel_operand_addrs(&st[j], 0, wg, &a, &b);
    tp_promote_issue<A, B, BN>(s.tmp[(j + first_tmp) % 2], tp_wgmma_desc_sw128(a),
                               tp_wgmma_desc_sw128(b));
  }
  if constexpr (SUB >= 2) {
    /* group SUB - 2 retired; the last runs */
    constexpr int q = SUB - 2;
    tp_wgmma_wait_group<1>();
    tp_promote<BN>(s.tmp[(q + SUB % 2) % 2], f[q], acc, !accumulate && q == 0);
  }
  s.f[0] = f[SUB - 1][0];
  s.f[1] = f[SUB - 1][1];
}

/* The step's last group's promotion (temporary 1), once it has retired
 * (the mainloop's k_block_done). */
template <int BN, int STEP>
TP_KERNEL_FN void tp_promote_last(tp_promote_state<BN, STEP> &s, float *acc) {
  tp_promote<BN>(s.tmp[1], s.f, acc, false);
}

#endif
