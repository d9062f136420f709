/* tilepipe/plugin/device/kernel_operands.h: K-major A and B tiles into a stage.
 *
 * The loads, and the consumers' addresses of the loaded tiles, that every
 * mainloop over K-major operands shares (tp_kernel_operands in
 * tilepipe/plugin/kernel/params.h): a k-block of the stage holds A as one 64-row
 * box per consumer warpgroup (tensor 0) and B as the tile's BN rows
 * (tensor 1). A k-block is 128 bytes of K of the wider operand's dtype;
 * each operand's tile rows are that K in its own dtype (A_ROW and B_ROW
 * bytes): 128 for the wider operand, 128B-swizzled as wgmma reads it, and
 * fewer for a narrower one (bf16 A x s8 B: 128 and 64), its rows packed
 * and swizzled by their own bytes (tp_kernel_operand_chunk), for a
 * mainloop that converts it in a stage transform (tilepipe/plugin/device/kernel_mainloop.h, convert). A box whose rows
 * all lie past M is not loaded (its warpgroup only passes the stage on):
 * TMA's zero fill of a box wholly past M is not free. Where M < 64 the
 * box is only a_rows rows (M rounded up to 8, tp_kernel_params.a_rows),
 * and rows a_rows..63 of every A tile, zeroed once by the consumers
 * (tp_kernel_zero_a_rows), give the wgmma the zeros it needs there. In a
 * cluster each CTA loads its slice of B (BN / CLUSTER_M rows) and
 * multicasts it to every CTA of the cluster, whose stages then hold the
 * whole B tile. */
#ifndef TILEPIPE_PLUGIN_DEVICE_KERNEL_OPERANDS_H
#define TILEPIPE_PLUGIN_DEVICE_KERNEL_OPERANDS_H

#include <stdint.h>

#include "tilepipe/plugin/device/kernel_mainloop.h"
#include "tilepipe/internal/kernel/kernel_schedule.h"
#include "tilepipe/plugin/device/tma.h"
#include "tilepipe/plugin/device/warpgroup.h"
#include "tilepipe/plugin/device/wgmma.h"
#include "tilepipe/plugin/kernel/operands.h"
#include "tilepipe/internal/pipeline/input_tile_pipeline.h"
#include "tilepipe/internal/pipeline/storage.h"

/* The bytes one k-block of A and B brings into this CTA's stage: a box
 * of A per warpgroup whose rows start inside M, the last of them a_rows
 * rows (below 64 only where there is one), and B, at A_ROW and B_ROW bytes
 * a row. */
template <int BN, int A_ROW = TP_KERNEL_ROW_BYTES, int B_ROW = TP_KERNEL_ROW_BYTES>
TP_KERNEL_FN uint32_t tp_kernel_operand_bytes(const tp_kernel_params &k,
                                              const tp_kernel_tile &t) {
  const uint32_t a_rows =
      t.warpgroups_in_m == 0
          ? 0u
          : (t.warpgroups_in_m - 1u) * TP_KERNEL_WARPGROUP_ROWS + (uint32_t)k.a_rows;
  /* One product where the rows match: the form the same-width kernels
   * have always compiled to. */
  return A_ROW == B_ROW ? (a_rows + BN) * A_ROW : a_rows * A_ROW + BN * B_ROW;
}

/* Consumer warpgroup 0's 128 threads (t: 0..127), once before their first
 * wgmma: zero rows a_rows..63 of every A tile (A_ROW bytes a row) of every
 * stage, which no load writes (a_rows < 64 only where the tile holds one
 * warpgroup's rows of M), and make the zeros visible to wgmma's reads (the
 * async proxy) through named barrier `bar`. */
template <int A_ROW>
TP_KERNEL_FN void tp_kernel_zero_a_rows(const tp_kernel_params &k, uint32_t t, uint32_t bar) {
  if (k.a_rows >= TP_KERNEL_WARPGROUP_ROWS) return;
  const tp_tile_payload pl = tp_storage_input_payload(tp_kernel_smem(), &k.smem);
  const uint32_t first = (uint32_t)k.a_rows * A_ROW / sizeof(uint4);
  const uint32_t end = TP_KERNEL_WARPGROUP_ROWS * A_ROW / sizeof(uint4);
  for (uint32_t s = 0; s < k.smem.stages; ++s) {
    for (uint32_t j = 0; j < pl.k_group_size; ++j) {
      uint4 *a = (uint4 *)tp_tile_payload_tile(&pl, s, 0, j);
      for (uint32_t i = first + t; i < end; i += 128u) a[i] = make_uint4(0u, 0u, 0u, 0u);
    }
  }
  tp_fence_proxy_async_smem();
  tp_named_barrier_sync(bar, 128u);
}

/* The first row of A's box h (one per warpgroup whose rows start inside
 * M: h < t.warpgroups_in_m). */
TP_KERNEL_FN int32_t tp_kernel_a_box_row(const tp_kernel_tile &t, uint32_t h) {
  return t.m0 + (int32_t)(h * TP_KERNEL_WARPGROUP_ROWS);
}

/* The first row of B that this CTA loads: the tile's, or in a cluster
 * that of the slice of cluster rank `rank` (0 outside clusters). */
template <int BN, int CLUSTER_M>
TP_KERNEL_FN int32_t tp_kernel_b_slice_row(const tp_kernel_tile &t, uint32_t rank) {
  return t.n0 + (int32_t)rank * (BN / CLUSTER_M);
}

/* A k-block's A boxes (from column k0 of the tile's rows, A_ROW bytes a
 * row) into `a`. */
template <int A_ROW = TP_KERNEL_ROW_BYTES>
TP_KERNEL_FN void tp_kernel_load_a(const tp_kernel_operands &o, unsigned char *a, tp_mbar *full,
                                   int32_t k0, const tp_kernel_tile &t) {
  for (uint32_t h = 0; h < t.warpgroups_in_m; ++h) {
    tp_tma_load_2d_hint(a + h * TP_KERNEL_WARPGROUP_ROWS * A_ROW, &o.a, full, k0,
                        tp_kernel_a_box_row(t, h), o.a_policy);
  }
}

/* A k-block's B tile (BN rows from n0, column k0, B_ROW bytes a row) into
 * `b`: in a cluster, our slice of it, multicast. */
template <int BN, int CLUSTER_M, int B_ROW = TP_KERNEL_ROW_BYTES>
TP_KERNEL_FN void tp_kernel_load_b(const tp_kernel_operands &o, unsigned char *b, tp_mbar *full,
                                   int32_t k0, const tp_kernel_tile &t) {
  if (CLUSTER_M > 1) {
    const uint32_t rank = tp_cluster_ctarank();
    tp_tma_load_2d_multicast_hint(b + rank * (BN / CLUSTER_M) * B_ROW, &o.b, full,
                                  k0, tp_kernel_b_slice_row<BN, CLUSTER_M>(t, rank),
                                  (uint16_t)((1u << CLUSTER_M) - 1u), o.b_policy);
  } else {
    tp_tma_load_2d_hint(b, &o.b, full, k0, tp_kernel_b_slice_row<BN, CLUSTER_M>(t, 0),
                        o.b_policy);
  }
}

/* Both, into k-tile j of stage st for the k-tile at TMA columns a_k0 of A
 * and b_k0 of B (tp_kernel_operand_tma_col), in the order that runs
 * faster: B first in a 128-row tile (its box is the larger load), A first
 * in a 64-row one. The caller has announced the bytes (with
 * tp_kernel_operand_bytes, plus any tensors of its own). */
template <int BM, int BN, int CLUSTER_M, int A_ROW = TP_KERNEL_ROW_BYTES,
          int B_ROW = TP_KERNEL_ROW_BYTES>
TP_KERNEL_FN void tp_kernel_load_operands(const tp_kernel_operands &o,
                                          const tp_input_producer_stage *st, uint32_t j,
                                          int32_t a_k0, int32_t b_k0, const tp_kernel_tile &t) {
  tp_mbar *full = tp_input_producer_stage_barrier(st);
  unsigned char *b = (unsigned char *)tp_input_producer_stage_tile(st, 1, j);
  unsigned char *a = (unsigned char *)tp_input_producer_stage_tile(st, 0, j);
  if (BM == 128) tp_kernel_load_b<BN, CLUSTER_M, B_ROW>(o, b, full, b_k0, t);
  tp_kernel_load_a<A_ROW>(o, a, full, a_k0, t);
  if (BM != 128) tp_kernel_load_b<BN, CLUSTER_M, B_ROW>(o, b, full, b_k0, t);
}

/* The shared-memory addresses of consumer warpgroup wg's 64 rows of A and
 * of the B tile of k-tile j (0 .. the plan's k_group - 1) in stage st, for
 * its wgmma descriptors (128-byte rows, both). */
TP_KERNEL_FN void tp_kernel_operand_addrs(const tp_input_consumer_stage *st, uint32_t j,
                                          uint32_t wg, uint32_t *a, uint32_t *b) {
  *a = tp_smem_addr(tp_input_consumer_stage_tile(st, 0, j)) +
       wg * TP_KERNEL_WARPGROUP_ROWS * TP_KERNEL_ROW_BYTES;
  *b = tp_smem_addr(tp_input_consumer_stage_tile(st, 1, j));
}

/* Consumer warpgroup wg's wgmma group over stage st when B was converted
 * (tilepipe/plugin/device/kernel_mainloop.h, convert) into bf16 stage tensor
 * TP_KERNEL_CONVERTED_B (tp_kernel_plan_converted_b): its 64 rows of bf16 A
 * (tensor 0) by the tile's BN rows, four wgmma of 16 of K, issued and
 * committed; into acc, adding to it when `accumulate`. */
template <int BN>
TP_KERNEL_FN void tp_kernel_mma_converted_b(float *acc, const tp_input_consumer_stage *st,
                                            uint32_t wg, bool accumulate) {
  constexpr int step_bytes = 32; /* K of one wgmma: 16 bf16 */
  const uint32_t a = tp_smem_addr(tp_input_consumer_stage_tile(st, 0, 0)) +
                     wg * TP_KERNEL_WARPGROUP_ROWS * TP_KERNEL_ROW_BYTES;
  const uint32_t b = tp_smem_addr(tp_input_consumer_stage_tile(st, TP_KERNEL_CONVERTED_B, 0));
  tp_wgmma_fence();
#pragma unroll
  for (int k = 0; k < TP_KERNEL_ROW_BYTES / step_bytes; ++k) {
    tp_wgmma_bf16(BN, acc, tp_wgmma_desc_sw128(a + k * step_bytes),
                  tp_wgmma_desc_sw128(b + k * step_bytes), accumulate || k > 0);
  }
  tp_wgmma_commit_group();
}

/* K-blocks of a decode-sized GEMM's first unit that its warm prefetches
 * into L2 (tilepipe/plugin/device/kernel.h). */
enum { TP_KERNEL_WARM_K_BLOCKS = 4 };

/* The prefetch, warm and load of a mainloop whose stage holds A and B
 * alone, of A_BITS- and B_BITS-bit dtypes: k-tiles of k_elems elements of
 * K (one 128-byte row of the wider), a_row_bytes and b_row_bytes of them a
 * row (tilepipe/plugin/kernel/operands.h: the rules the host planner follows too),
 * K_TILES of them a k-block (a stage: the plan's k_group). Its params carry
 * the operands as `ab`. It derives from this and adds its mma (and any
 * optional member of tilepipe/plugin/device/kernel_mainloop.h). */
template <int A_BITS, int B_BITS = A_BITS, int K_TILES = 1>
struct tp_kernel_operands_mainloop : tp_kernel_mainloop_defaults {
  static constexpr int k_elems = (int)tp_kernel_operand_k_elems(A_BITS, B_BITS);
  static constexpr int a_row_bytes = (int)tp_kernel_operand_row_bytes(A_BITS, A_BITS, B_BITS);
  static constexpr int b_row_bytes = (int)tp_kernel_operand_row_bytes(B_BITS, A_BITS, B_BITS);

  template <class P>
  static __device__ __forceinline__ void prefetch(const P &p) {
    tp_tma_prefetch_desc(&p.ab.a);
    tp_tma_prefetch_desc(&p.ab.b);
  }

  /* The first TP_KERNEL_WARM_K_BLOCKS k-blocks of this CTA's first unit
   * (its slice of B in a cluster) into L2, before the loader asks for
   * them. */
  template <int BM, int BN, int CLUSTER_M, class P>
  static __device__ __forceinline__ void warm(const P &p) {
    tp_kernel_walk wk = tp_kernel_walk_make<CLUSTER_M>(p.kernel);
    tp_kernel_unit w;
    if (!tp_kernel_walk_next(p.kernel, &wk, &w)) return;
    const tp_kernel_tile t = tp_kernel_tile_of<CLUSTER_M, BM, BN>(p.kernel, w);
    const int32_t n = min(w.kb_end - w.kb_begin, (int32_t)TP_KERNEL_WARM_K_BLOCKS) * K_TILES;
    const int32_t b_row =
        tp_kernel_b_slice_row<BN, CLUSTER_M>(t, CLUSTER_M > 1 ? tp_cluster_ctarank() : 0u);
    for (int32_t i = 0; i < n; ++i) {
      const int32_t k0 = (w.kb_begin * K_TILES + i) * k_elems;
      tp_tma_prefetch_l2_2d(&p.ab.b, tp_kernel_operand_tma_col(B_BITS, k0), b_row);
      for (uint32_t h = 0; h < t.warpgroups_in_m; ++h)
        tp_tma_prefetch_l2_2d(&p.ab.a, tp_kernel_operand_tma_col(A_BITS, k0),
                              tp_kernel_a_box_row(t, h));
    }
  }

  template <int BM, int BN, int CLUSTER_M, class P>
  static __device__ __forceinline__ void load(const P &p, const tp_input_producer_stage *st,
                                              const tp_kernel_tile &t, int32_t kb) {
    tp_input_producer_stage_arrive_expect_bytes(
        st, K_TILES * tp_kernel_operand_bytes<BN, a_row_bytes, b_row_bytes>(p.kernel, t));
#pragma unroll
    for (int j = 0; j < K_TILES; ++j) {
      const int32_t k0 = (kb * K_TILES + j) * k_elems;
      tp_kernel_load_operands<BM, BN, CLUSTER_M, a_row_bytes, b_row_bytes>(
          p.ab, st, (uint32_t)j, tp_kernel_operand_tma_col(A_BITS, k0),
          tp_kernel_operand_tma_col(B_BITS, k0), t);
    }
  }
};

#endif
