/* plugins/standard/device/standard_kernel.cu: the standard payload's GEMM.
 *
 * Computes D[M,N] = epilogue(A[M,K] x B[N,K]^T) for bf16 x bf16, f16 x f16 or
 * fp8 (e4m3/e5m2, any pair) operands with f32 accumulation, D in bf16, f16 or
 * f32, on Hopper (sm_90a). The epilogue is the extern "C" hook of
 * tilepipe/device/epilogue.h, linked in at plan time (nvJitLink, LTO).
 *
 * One CTA = 384 threads, persistent over output tiles of 128 x BN (BN 64,
 * 128, 192 or 256, whole D chunks; or 176 for a 16-bit D, whose last chunk
 * is 48 columns wide), or of 64 x 64 for memory-bound shapes of few tiles
 * (the second consumer warpgroup then has no work: it goes to the end):
 *   warpgroup 0, producer (40 registers):
 *     warp 0  TMA loads of A (a 64-row box per consumer warpgroup, none
 *             for rows wholly past M) and B k-blocks into the input pipeline
 *             (B multicast to the CLUSTER_M CTAs that share it), under
 *             the L2 policies gpu.c chose for each (with one tile row B
 *             evicts first, A last); with C,
 *             after a tile's last k-block, one more input stage holding
 *             the chunks of C past the ring (staged_c below);
 *     warp 1  TMA stores of D chunks out of the output pipeline;
 *     warp 2  TMA loads of the epilogue's source C into the output chunks
 *             (the source ring lives in them), ordered after the mainloop
 *             loads of all but each tile's last c_ring_lead k-blocks.
 *   warpgroups 1, 2, consumers (232 registers): wgmma on rows 64w..64w+63 of
 *     the tile with one wgmma group in flight, releasing each stage when the
 *     group that read it retires; then the epilogue, chunk by chunk
 *     (the tile's rows x 128 bytes of D): C out of the chunk, hook, convert, D
 *     into the same chunk (swizzled), hand it to the store warp, go on with
 *     the next tile's mainloop while the store drains.
 * A chunk of the ring thus goes round C load -> consumers -> TMA store ->
 * C load: the store warp, once the store has read a chunk, frees it for the
 * next C. The consumers never release C themselves, so every chunk of the
 * ring prefetches C (a whole tile's C for a ring as deep as the tile). The
 * chunks past the ring's depth come in the staged input stage, which the
 * consumers hold over the tile's epilogue; their ring slots only pass on
 * (no bytes) so that every chunk keeps its place in the ring.
 * Split-K (p.splits > 1, single CTAs only): a work unit of a tile from
 * p.split_from on is one split of its k-blocks (every tile for shapes with
 * fewer tiles than SMs; those of the last, partial wave otherwise, so that
 * it takes a fraction of a tile's time); the splits of a tile go to
 * consecutive CTAs. All but the last write their partial sums to the
 * workspace (tilepipe/device/split_k.h) and move on; the last, which takes
 * p.split_lead k-blocks more of each so that their sums are written by the
 * time it needs them, adds them and alone runs the epilogue, so the store
 * warp and the source loader only see last splits.
 *
 * Invariants:
 *   - operand tiles are K-major, 128 bytes of K per row, 128B-swizzled, each
 *     1024-byte aligned (the storage planner guarantees it);
 *   - every role walks the same work-unit sequence (tile_schedule below);
 *   - every role steps the input pipeline alike: k-blocks, then for a
 *     tile's last split with staged C one stage more;
 *   - barrier counts: input full 1 (expect_tx), input empty = the consumer
 *     warps (8 in a 128-row tile, 4 in a 64-row one) x CLUSTER_M (every
 *     consumer warp of every CTA that received our multicast half of B frees
 *     it); output full the consumer warps, empty 1; source full 1, empty 1
 *     (the store warp); load-order 1.
 *
 * Built by build-aux/device.mk into LTO-IR (nvcc -dc -fatbin
 * -gencode arch=compute_90a,code=lto_90a) that plugins/standard/ embeds;
 * never compiled to a cubin on its own. tests/test_gpu_gemm.c runs it. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "plugins/standard/device/standard_params.h"
#include "tilepipe/device/epilogue.h"
#include "tilepipe/device/smem_matrix.h"
#include "tilepipe/device/split_k.h"
#include "tilepipe/device/tma.h"
#include "tilepipe/device/warpgroup.h"
#include "tilepipe/device/wgmma.h"
#include "tilepipe/dtype.h"
#include "tilepipe/pipeline/storage.h"

#define TP_DEV static __device__ __forceinline__

/* Named barrier ids (0 is __syncthreads): consumer warpgroup w uses
 * BAR_CONSUMER_0 + w for its split-K handshakes. */
enum { BAR_CONSUMER_0 = 1 };

/* setmaxnreg budgets. A CTA starts with LAUNCH_REGS per thread (what
 * __launch_bounds__(384, 1) leaves: 64K / 384 rounded down to 8), and
 * setmaxnreg.inc waits for registers that a dec has given back, so the
 * consumers can gain no more than the producers give up: 128 x (168 - 40)
 * = 256 x (232 - 168). (48 for the producers hung every kernel on the H100.)
 * The loader must fit in 40 (no spill: `tilepipe link` checks); the
 * consumers need 232 for 128 accumulators at BN 256. */
enum {
  LAUNCH_REGS = 65536 / TP_STANDARD_THREADS / 8 * 8,
  PRODUCER_REGS = 40,
  CONSUMER_REGS = 232
};
static_assert(128 * (LAUNCH_REGS - PRODUCER_REGS) >= 256 * (CONSUMER_REGS - LAUNCH_REGS),
              "the consumers' setmaxnreg.inc would wait forever for registers");

/* ------------------------------------------------------------ operand types */

/* A/B type pairs the kernel is instantiated for. */
enum tp_ab { AB_BF16, AB_F16, AB_E4M3_E4M3, AB_E4M3_E5M2, AB_E5M2_E4M3, AB_E5M2_E5M2 };

template <int AB>
struct ab_traits {
  static constexpr int k_step = AB <= AB_F16 ? 16 : 32;      /* K per wgmma */
  static constexpr int elem_bytes = AB <= AB_F16 ? 2 : 1;
};

template <int AB, int BN>
TP_DEV void mma_k_step(float *acc, uint64_t da, uint64_t db, int accumulate) {
  switch (AB) {
  case AB_BF16: tp_wgmma_bf16(BN, acc, da, db, accumulate); break;
  case AB_F16: tp_wgmma_f16(BN, acc, da, db, accumulate); break;
  case AB_E4M3_E4M3: tp_wgmma_e4m3_e4m3(BN, acc, da, db, accumulate); break;
  case AB_E4M3_E5M2: tp_wgmma_e4m3_e5m2(BN, acc, da, db, accumulate); break;
  case AB_E5M2_E4M3: tp_wgmma_e5m2_e4m3(BN, acc, da, db, accumulate); break;
  case AB_E5M2_E5M2: tp_wgmma_e5m2_e5m2(BN, acc, da, db, accumulate); break;
  }
}

/* ------------------------------------------------------------ tile schedule */

/* Tiles are walked in clusters of CLUSTER_M tiles along M (sharing one B
 * tile), cluster tiles in groups of raster_m cluster-rows so that CTAs running
 * at the same time share A rows and B columns in L2. A work unit is a whole
 * cluster tile (tiles before split_from: unit u is tile u) or one split of
 * a tile's k-blocks (unit split_from + v is split v % splits of tile
 * split_from + v / splits), so that a tile's splits run on consecutive
 * CTAs (split_from and the grid are multiples of splits, so none straddles
 * the grid's end). Every role of every CTA walks the units with the same
 * iteration numbers. */
struct tile_schedule {
  int32_t cluster_rows, units, first, stride;
};

struct work_unit {
  int32_t tile;               /* cluster tile */
  int32_t kb_begin, kb_end;   /* its k-blocks */
  int32_t split;
  bool split_k;               /* one of several splits of its tile */
  bool last;                  /* the split that adds up and runs the epilogue */
};

template <int CLUSTER_M>
TP_DEV tile_schedule tile_schedule_make(const tp_standard_params &p) {
  tile_schedule s;
  s.cluster_rows = (p.tiles_m + CLUSTER_M - 1) / CLUSTER_M;
  s.units = p.split_from + (s.cluster_rows * p.tiles_n - p.split_from) * p.splits;
  s.first = (int32_t)blockIdx.x / CLUSTER_M;
  s.stride = (int32_t)gridDim.x / CLUSTER_M;
  return s;
}

/* Splits get k_blocks / splits k-blocks each, give or take one, but for
 * p.split_lead: each split but the last gives that many of its k-blocks to
 * the last, so that the others' partial sums are in L2 when the last one's
 * mainloop ends (standard_params.h). The divisions are tilepipe/fast_div.h's:
 * every role maps a unit at every tile, and the consumers do it between one
 * tile's epilogue and the next tile's mainloop. */
TP_DEV work_unit work_unit_of(const tp_standard_params &p, int32_t u) {
  work_unit w;
  if (u < p.split_from) {
    w.tile = u;
    w.split = 0;
    w.kb_begin = 0;
    w.kb_end = p.k_blocks;
    w.split_k = false;
    w.last = true;
    return w;
  }
  const int32_t v = u - p.split_from;
  const int32_t t = (int32_t)tp_fast_div_quot(p.splits_div, (uint32_t)v);
  w.tile = p.split_from + t;
  w.split = v - t * p.splits;
  w.split_k = p.splits > 1;
  w.last = w.split == p.splits - 1;
  w.kb_begin = (int32_t)tp_fast_div_quot(p.splits_div, (uint32_t)(w.split * p.k_blocks)) -
               w.split * p.split_lead;
  w.kb_end = w.last ? p.k_blocks
                    : (int32_t)tp_fast_div_quot(p.splits_div,
                                                (uint32_t)((w.split + 1) * p.k_blocks)) -
                          (w.split + 1) * p.split_lead;
  return w;
}

/* Output tile origin (m0, n0) of cluster tile t for this CTA. */
template <int CLUSTER_M, int BM, int BN>
TP_DEV void tile_origin(const tp_standard_params &p, int32_t t, int32_t *m0, int32_t *n0) {
  const int32_t group = (int32_t)tp_fast_div_quot(p.group_div, (uint32_t)t);
  const int32_t in_group = t - group * (int32_t)p.group_div.divisor;
  const tp_fast_div rows = group == p.last_group ? p.last_rows_div : p.rows_div;
  const int32_t col = (int32_t)tp_fast_div_quot(rows, (uint32_t)in_group);
  const int32_t cluster_row = group * p.raster_m + in_group - col * (int32_t)rows.divisor;
  const int32_t rank = CLUSTER_M > 1 ? (int32_t)tp_cluster_ctarank() : 0;
  *m0 = (cluster_row * CLUSTER_M + rank) * BM;
  *n0 = col * BN;
}

/* Consumer warpgroups of a BM-row tile, one A box of 64 rows each; in a
 * 64-row tile the second warpgroup has no work. */
template <int BM>
struct tile_rows {
  static constexpr uint32_t warpgroups = BM / TP_STANDARD_A_BOX_ROWS;
  static_assert(BM == 64 || BM == 128, "tiles are 64 or 128 rows");
};

/* How many of a tile's A boxes (one per consumer warpgroup) hold rows
 * inside M: the loader loads those only, and a warpgroup past them only
 * passes its stages on. TMA's zero fill of a box wholly past M is not free:
 * it cost M = 64 shapes up to a third more time. */
template <int BM>
TP_DEV uint32_t a_boxes_in_m(const tp_standard_params &p, int32_t m0) {
  return m0 >= p.m ? 0u
                   : tile_rows<BM>::warpgroups == 1 || m0 + TP_STANDARD_A_BOX_ROWS >= p.m ? 1u : 2u;
}

/* --------------------------------------------------------- shared memory */

TP_DEV unsigned char *smem_base(void) {
  extern __shared__ __align__(1024) unsigned char tp_smem[];
  return tp_smem;
}

/* Chunks of a tile: 128 bytes of D per row each, 128B-swizzled, but for a
 * width that is not whole chunks (176: 2 chunks and 48 columns of a 16-bit
 * D), whose last chunk holds tail_cols columns in dense, unswizzled rows
 * of tail_cols x d_bytes bytes: TMA stores and loads it through boxes of
 * its own width (p.d_tail, p.c_tail), since a whole chunk's box would
 * write into the next tile. */
template <int BN, int DT>
struct chunk_traits {
  static constexpr int d_bytes = DT == TP_DTYPE_F32 ? 4 : 2;
  static constexpr int cols = TP_STANDARD_K_BYTES / d_bytes;
  static constexpr int count = (BN + cols - 1) / cols;
  static constexpr int tail_cols = BN % cols; /* 0: every chunk whole */
  static constexpr int tail_pitch = tail_cols * d_bytes;
  static_assert(tail_cols % 16 == 0, "a tail chunk is whole pairs of column groups");
};

/* Chunk c's columns, and whether it is a tail chunk. */
template <int BN, int DT>
TP_DEV bool chunk_is_tail(int c) {
  return chunk_traits<BN, DT>::tail_cols != 0 && c == chunk_traits<BN, DT>::count - 1;
}

template <int BN, int DT>
TP_DEV int chunk_cols(int c) {
  return chunk_is_tail<BN, DT>(c) ? chunk_traits<BN, DT>::tail_cols : chunk_traits<BN, DT>::cols;
}

/* Byte offset of byte `col_byte` of row `row` in chunk c. */
template <int BN, int DT>
TP_DEV uint32_t chunk_offset(int c, uint32_t row, uint32_t col_byte) {
  return chunk_is_tail<BN, DT>(c) ? row * chunk_traits<BN, DT>::tail_pitch + col_byte
                                  : tp_smem_swizzle128(row, col_byte);
}

/* This lane's ldmatrix / stmatrix row address for column groups (j, j + 1)
 * of the warp's rows in chunk c at shared address `chunk`. */
template <int BN, int DT>
TP_DEV uint32_t chunk_lane_addr(int c, uint32_t chunk, uint32_t first_row, int j) {
  return chunk_is_tail<BN, DT>(c)
             ? tp_smem_matrix_lane_addr_dense(chunk, chunk_traits<BN, DT>::tail_pitch, first_row, j)
             : tp_smem_matrix_lane_addr(chunk, first_row, j);
}

/* ----------------------------------------------------------------- roles */

/* C's TMA boxes: a chunk of C covers the D chunk's columns in 128-byte
 * boxes, two for an f32 C under a 16-bit D. */
struct c_boxes {
  int32_t cols, count; /* columns per box, boxes per chunk */
};

template <int BN, int DT>
TP_DEV c_boxes c_boxes_of(const tp_standard_params &p) {
  c_boxes b;
  b.cols = TP_STANDARD_K_BYTES / (p.epilogue.source_dtype == TP_DTYPE_F32 ? 4 : 2);
  b.count = chunk_traits<BN, DT>::cols / b.cols;
  return b;
}

/* A tile's C is loaded into shared memory from c_ring_lead (below) k-blocks
 * before the tile's end (the ring's chunks) and after its last k-block (the
 * staged ones). The main loader first asks for each chunk into L2, chunk c
 * at k-block kb_end - C_PREFETCH_LEAD - (count - c) x C_PREFETCH_SPREAD
 * (not at all where that falls before the tile's first, below), so that
 * those loads come from L2 and the DRAM reads of 132 CTAs' C, all at the
 * same point of their tiles, do not fall in one k-block and stall the
 * operand loads there. With every
 * chunk asked for at once, 8 k-blocks before the end, the residual ran on
 * the H100 1.6% slower at 4096^3 and 0.9-2.1% slower at 4096 x 4096 x 7168,
 * 4096 x 2112 x 7168, 4096 x 7168 x 2048 and 4096 x 32768 x 512 (one
 * `bench/ab.sh` round, the eleventh session). */
enum { C_PREFETCH_LEAD = 8, C_PREFETCH_SPREAD = 8 };

/* The ring's chunks of C may load once the main loader has issued all but
 * the unit's last c_ring_lead k-blocks: C_PREFETCH_LEAD, or a quarter of a
 * unit of fewer than 32 (at least one). With a lead of 8, a tile of 8
 * k-blocks let its ring load C at its first k-block, so C loaded as soon as
 * the last tile's stores freed the ring, in the burst of D stores and first
 * operand loads at the tile boundary. With a quarter of the k-blocks the
 * residual ran on the H100 4.8% faster at 4096 x 32768 x 512 (8 k-blocks),
 * 4.1% at 8192 x 16384 x 512 and 3.2% at 4096 x 16384 x 768 (12), and the
 * same at 4096 x 24576 x 1536 (24, a lead of 6); half of the k-blocks was
 * 2-3% slower than a quarter, three quarters 1% slower than 8 (`bench/ab.sh`,
 * two rounds, the fourteenth session). */
TP_DEV int32_t c_ring_lead(const work_unit &w) {
  return max(1, min((int32_t)C_PREFETCH_LEAD, (w.kb_end - w.kb_begin) / 4));
}

template <int BN, int DT>
TP_DEV void c_prefetch_spread(const tp_standard_params &p, int32_t kb, int32_t kb_end, int32_t m0,
                              int32_t n0) {
  /* Chunk count - ahead / C_PREFETCH_SPREAD has its turn at k-block kb. A
   * chunk whose turn falls before the tile's first k-block never meets it
   * and is left to its own load: asked for at the tile's start (as it was
   * until the thirteenth session), its DRAM reads met the tile's first
   * stages and the last tile's D stores. On the H100 (bench/ab.sh, two
   * rounds) the residual then ran 4096x7168x2048 1.7% and 4096x32768x512
   * 2.3% faster, the shapes of 64 k-blocks or more unchanged. */
  constexpr int count = chunk_traits<BN, DT>::count;
  const int32_t ahead = kb_end - C_PREFETCH_LEAD - kb;
  if (ahead <= 0 || ahead % C_PREFETCH_SPREAD != 0 || ahead > count * C_PREFETCH_SPREAD) return;
  const int32_t col0 = n0 + (count - ahead / C_PREFETCH_SPREAD) * chunk_traits<BN, DT>::cols;
  const c_boxes b = c_boxes_of<BN, DT>(p);
  for (int32_t x = 0; x < b.count; ++x) tp_tma_prefetch_l2_2d(&p.c, col0 + x * b.cols, m0);
}

/* The chunks of C past the ring that come in through one more input stage,
 * which the main loader fills with them right after a tile's last k-block
 * (its A tile, then its B tile, one chunk slot of the output chunk's bytes
 * each): they then land about when the mainloop ends, from L2 (prefetched
 * above), instead of once the epilogue has stored the chunks before them.
 * Chunks past those the stage holds still go through the ring. */
struct staged_c {
  int32_t first, count; /* chunks [first, first + count) */
  int32_t a_slots;      /* of those, the first a_slots in the stage's A tile */
  uint32_t slot_bytes;
};

/* gpu.c worked them out (standard_params.h): read from the parameter block
 * where they are used, not held in registers across the mainloop. None
 * under an f32 D: gpu.c stages none there, and the kernel leaves the code
 * out, which would cost its epilogue (8 chunks unrolled) a spill. */
template <int DT>
TP_DEV staged_c staged_c_of(const tp_standard_params &p) {
  staged_c s;
  s.first = p.c_staged_first;
  s.count = DT == TP_DTYPE_F32 ? 0 : p.c_staged_count;
  s.a_slots = p.c_staged_a_slots;
  s.slot_bytes = p.smem.output.bytes;
  return s;
}

TP_DEV bool staged_c_has(const staged_c &s, int c) { return c >= s.first && c < s.first + s.count; }

/* Chunk c's slot in the staged stage whose tiles are a and b. */
template <typename T>
TP_DEV T *staged_c_slot(const staged_c &s, T *a, T *b, int c) {
  const int32_t i = c - s.first;
  return i < s.a_slots ? a + i * s.slot_bytes : b + (i - s.a_slots) * s.slot_bytes;
}

/* The bytes of chunk c of C, and its loads into `to` (completing on full):
 * 128-byte boxes (two per chunk for an f32 C under a 16-bit D), or for a
 * tail chunk one box of its columns (C then in D's dtype: gpu.c takes no
 * other under a tail chunk). */
template <int BM, int BN, int DT>
TP_DEV uint32_t c_chunk_bytes(const tp_standard_params &p, int c) {
  if (chunk_is_tail<BN, DT>(c)) return BM * chunk_traits<BN, DT>::tail_pitch;
  return (uint32_t)c_boxes_of<BN, DT>(p).count * BM * TP_STANDARD_K_BYTES;
}

template <int BM, int BN, int DT>
TP_DEV void load_c_chunk(const tp_standard_params &p, unsigned char *to, tp_mbar *full, int c,
                         int32_t m0, int32_t n0) {
  const int32_t col0 = n0 + c * chunk_traits<BN, DT>::cols;
  if (chunk_is_tail<BN, DT>(c)) {
    tp_tma_load_2d(to, &p.c_tail, full, col0, m0);
    return;
  }
  const c_boxes b = c_boxes_of<BN, DT>(p);
  for (int32_t x = 0; x < b.count; ++x)
    tp_tma_load_2d(to + x * BM * TP_STANDARD_K_BYTES, &p.c, full, col0 + x * b.cols, m0);
}

/* A k-block's A boxes (a_boxes of 64 rows from m0) into a stage, under
 * the L2 policy gpu.c chose for A (standard_params.h). */
TP_DEV void load_a_boxes(const tp_standard_params &p, unsigned char *a, tp_mbar *full, int32_t k0,
                         int32_t m0, uint32_t a_boxes) {
  for (uint32_t h = 0; h < a_boxes; ++h) {
    tp_tma_load_2d_hint(a + h * TP_STANDARD_A_BOX_ROWS * TP_STANDARD_K_BYTES, &p.a, full, k0,
                        m0 + (int32_t)(h * TP_STANDARD_A_BOX_ROWS), p.a_policy);
  }
}

/* A k-block's B tile (BN rows from n0) into a stage, under B's L2 policy:
 * in a cluster, our b_rows slice of it, multicast to every CTA of the
 * cluster. */
template <int CLUSTER_M>
TP_DEV void load_b_slice(const tp_standard_params &p, unsigned char *b, tp_mbar *full, int32_t k0,
                         int32_t n0, int32_t b_rows) {
  if (CLUSTER_M > 1) {
    const uint32_t rank = tp_cluster_ctarank();
    tp_tma_load_2d_multicast_hint(b + rank * b_rows * TP_STANDARD_K_BYTES, &p.b, full, k0,
                                  n0 + (int32_t)rank * b_rows,
                                  (uint16_t)((1u << CLUSTER_M) - 1u), p.b_policy);
  } else {
    tp_tma_load_2d_hint(b, &p.b, full, k0, n0, p.b_policy);
  }
}

template <int AB, int BM, int BN, int DT, int CLUSTER_M>
TP_DEV void run_loader(const tp_standard_params &p) {
  tp_input_pipeline ip = tp_storage_input_pipeline(smem_base(), &p.smem, 1);
  tp_input_producer prod = tp_input_pipeline_producer(&ip);
  const tp_load_order order = tp_storage_load_order(smem_base(), &p.smem);
  const bool has_source = p.epilogue.source_dtype != TP_DTYPE_NONE;
  const tile_schedule s = tile_schedule_make<CLUSTER_M>(p);
  const int32_t b_rows = BN / CLUSTER_M; /* our slice of the shared B tile */
  const int32_t k_elems = TP_STANDARD_K_BYTES / ab_traits<AB>::elem_bytes;
  /* Which operand a stage asks for first. In a 128-row tile B's box (BN
   * rows) is the larger load: asked for first, 4096x32768x512 residual ran
   * 1.1% and 128x7168x16384 0.5% faster on the H100. In a 64 x 64 tile A
   * first is faster (B first: 128x4096x7168 2% slower). */
  constexpr bool b_first = BM == 128;
  for (int32_t u = s.first; u < s.units; u += s.stride) {
    const work_unit w = work_unit_of(p, u);
    int32_t m0, n0;
    tile_origin<CLUSTER_M, BM, BN>(p, w.tile, &m0, &n0);
    const uint32_t a_boxes = a_boxes_in_m<BM>(p, m0);
    const int32_t c_ring_kb = w.kb_end - c_ring_lead(w); /* releases the ring's C */
    for (int32_t kb = w.kb_begin; kb < w.kb_end; ++kb) {
      TP_INPUT_PRODUCE(&prod, st) {
        tp_mbar *full = tp_input_producer_stage_barrier(&st);
        unsigned char *b = (unsigned char *)tp_input_producer_stage_tile(&st, 1, 0);
        unsigned char *a = (unsigned char *)tp_input_producer_stage_tile(&st, 0, 0);
        tp_input_producer_stage_arrive_expect_bytes(
            &st, (a_boxes * TP_STANDARD_A_BOX_ROWS + BN) * TP_STANDARD_K_BYTES);
        if (b_first) load_b_slice<CLUSTER_M>(p, b, full, kb * k_elems, n0, b_rows);
        load_a_boxes(p, a, full, kb * k_elems, m0, a_boxes);
        if (!b_first) load_b_slice<CLUSTER_M>(p, b, full, kb * k_elems, n0, b_rows);
      }
      /* Each chunk of C into L2 at its k-block (above); c_ring_lead
       * k-blocks before the tile's end the source loader may load the
       * ring's chunks. Loaded from the tile's first k-block, C met every
       * CTA's D stores and first loads at the tile boundary: the lead ran
       * 4096^3 0.9%, 4096x4096x7168 0.8% and 4096x2112x7168 0.7% faster on
       * the H100 (4096x7168x2048 0.7% slower; bench/results, ninth
       * session). */
      if (w.last && has_source) {
        c_prefetch_spread<BN, DT>(p, kb, w.kb_end, m0, n0);
        if (kb == c_ring_kb) tp_load_order_signal(&order);
      }
    }
    const staged_c sc = staged_c_of<DT>(p);
    if (w.last && sc.count > 0) {
      TP_INPUT_PRODUCE(&prod, st) {
        unsigned char *a = (unsigned char *)tp_input_producer_stage_tile(&st, 0, 0);
        unsigned char *b = (unsigned char *)tp_input_producer_stage_tile(&st, 1, 0);
        uint32_t bytes = 0;
        for (int c = sc.first; c < sc.first + sc.count; ++c)
          bytes += c_chunk_bytes<BM, BN, DT>(p, c);
        tp_input_producer_stage_arrive_expect_bytes(&st, bytes);
        for (int c = sc.first; c < sc.first + sc.count; ++c) {
          load_c_chunk<BM, BN, DT>(p, staged_c_slot(sc, a, b, c),
                                   tp_input_producer_stage_barrier(&st), c, m0, n0);
        }
      }
    }
  }
  tp_input_producer_drain(&prod);
}

template <int BM, int BN, int DT, int CLUSTER_M>
TP_DEV void run_storer(const tp_standard_params &p) {
  tp_output_pipeline op = tp_storage_output_pipeline(smem_base(), &p.smem);
  tp_output_store store = tp_output_pipeline_store(&op);
  /* With C, the store hands each chunk back to the source loader. */
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(smem_base(), &p.smem);
  tp_input_consumer freer = tp_input_pipeline_consumer(&ep, tp_arrival_thread());
  const bool has_source = p.epilogue.source_dtype != TP_DTYPE_NONE;
  const tile_schedule s = tile_schedule_make<CLUSTER_M>(p);
  for (int32_t u = s.first; u < s.units; u += s.stride) {
    const work_unit w = work_unit_of(p, u);
    if (!w.last) continue;
    int32_t m0, n0;
    tile_origin<CLUSTER_M, BM, BN>(p, w.tile, &m0, &n0);
    for (int32_t c = 0; c < chunk_traits<BN, DT>::count; ++c) {
      TP_OUTPUT_STORE(&store, st) {
        const int32_t col0 = n0 + c * chunk_traits<BN, DT>::cols;
        if (col0 < p.n_tma) {
          tp_tma_store_2d(chunk_is_tail<BN, DT>(c) ? &p.d_tail : &p.d,
                          tp_output_store_stage_tile(&st), col0, m0);
          tp_tma_store_commit_group();
          /* The chunk is free once the store has read it out of smem. (Two
           * stores in flight, each chunk released only once the next one's
           * store was issued, held the residual's C loads back a chunk.) */
          tp_tma_store_wait_read<0>();
        }
      }
      if (has_source) {
        tp_input_consumer_stage freed = tp_input_consumer_acquire_stage(&freer);
        tp_input_consumer_stage_release(&freed);
      }
    }
  }
  tp_output_store_drain(&store);
  tp_tma_store_wait<0>();
}

template <int BM, int BN, int DT, int CLUSTER_M>
TP_DEV void run_source_loader(const tp_standard_params &p) {
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(smem_base(), &p.smem);
  tp_input_producer prod = tp_input_pipeline_producer(&ep);
  const tp_load_order order = tp_storage_load_order(smem_base(), &p.smem);
  const tile_schedule s = tile_schedule_make<CLUSTER_M>(p);
  const staged_c sc = staged_c_of<DT>(p);
  for (int32_t u = s.first; u < s.units; u += s.stride) {
    const work_unit w = work_unit_of(p, u);
    if (!w.last) continue;
    int32_t m0, n0;
    tile_origin<CLUSTER_M, BM, BN>(p, w.tile, &m0, &n0);
    tp_load_order_wait(&order);
    for (int32_t c = 0; c < chunk_traits<BN, DT>::count; ++c) {
      TP_INPUT_PRODUCE(&prod, st) {
        /* A staged chunk's C is in the input stage already: its slot in the
         * ring only passes on, once stored, to the epilogue's D (no bytes),
         * so that every chunk keeps its place in the ring. */
        const bool staged = staged_c_has(sc, c);
        tp_input_producer_stage_arrive_expect_bytes(
            &st, staged ? 0u : c_chunk_bytes<BM, BN, DT>(p, c));
        if (!staged) {
          load_c_chunk<BM, BN, DT>(p, (unsigned char *)tp_input_producer_stage_tile(&st, 0, 0),
                                   tp_input_producer_stage_barrier(&st), c, m0, n0);
        }
      }
    }
  }
  tp_input_producer_drain(&prod);
}

/* A thread's place in a chunk's epilogue: fragment column group j (8
 * columns), half (rows +0 / +8); it owns columns col, col + 1 of row `row`. */
struct chunk_pos {
  uint32_t row, col;
};

/* The first of the 16 chunk rows that this thread's warp of consumer
 * warpgroup wg holds. */
TP_DEV uint32_t warp_first_row(uint32_t wg) { return wg * 64u + threadIdx.x % 128u / 32u * 16u; }

TP_DEV chunk_pos chunk_pos_of(uint32_t wg, int j, int half) {
  const uint32_t lane = threadIdx.x % 32u;
  chunk_pos q;
  q.row = warp_first_row(wg) + lane / 4u + 8u * (uint32_t)half;
  q.col = (uint32_t)j * 8u + 2u * (lane % 4u);
  return q;
}

/* Column groups the epilogue handles per step: their C values (16 floats)
 * and results sit in registers while the hook runs. */
enum { EPI_STEP_J = 4 };

/* What the chunk holds before the epilogue writes D over it: nothing, C in
 * D's (16-bit) dtype, or f32 C (in one 128-byte box per 32 columns). Tested
 * once per step, outside the loads: the branch is uniform and the loops
 * inside each case straight-line. */
enum source_kind { SOURCE_NONE, SOURCE_AS_D, SOURCE_F32 };

template <int DT>
TP_DEV int source_kind_of(int32_t source_dtype) {
  if (source_dtype == TP_DTYPE_NONE) return SOURCE_NONE;
  return DT != TP_DTYPE_F32 && source_dtype == DT ? SOURCE_AS_D : SOURCE_F32;
}

/* Two 16-bit values of D's dtype (low half first) as floats. */
template <int DT>
TP_DEV float2 unpack_pair(uint32_t v) {
  if (DT == TP_DTYPE_BF16)
    return make_float2(__uint_as_float(v << 16), __uint_as_float(v & 0xffff0000u));
  __half2 h;
  memcpy(&h, &v, sizeof v);
  return __half22float2(h);
}

template <int DT>
TP_DEV uint32_t pack_pair(float v0, float v1) {
  uint32_t v;
  if (DT == TP_DTYPE_BF16) {
    const __nv_bfloat162 b = __floats2bfloat162_rn(v0, v1);
    memcpy(&v, &b, sizeof v);
  } else {
    const __half2 h = __floats2half2_rn(v0, v1);
    memcpy(&v, &h, sizeof v);
  }
  return v;
}

/* The source values of column groups j0..j0+nj-1 (nj <= EPI_STEP_J, even)
 * of staged chunk c into s[4 j + 2 half + e] (the accumulator fragment's
 * order), or zeros without C. 16-bit C comes in with ldmatrix
 * (tilepipe/device/smem_matrix.h), f32 C pair by pair. */
template <int BM, int BN, int DT>
TP_DEV void source_fetch(int c, const unsigned char *chunk, int kind, uint32_t wg, int j0, int nj,
                         float *s) {
  if (kind == SOURCE_NONE) {
#pragma unroll
    for (int i = 0; i < EPI_STEP_J * 4; ++i) s[i] = 0.0f;
  } else if (DT != TP_DTYPE_F32 && kind == SOURCE_AS_D) {
#pragma unroll
    for (int j = 0; j < EPI_STEP_J; j += 2) {
      if (j >= nj) break;
      uint32_t v[4];
      tp_smem_matrix_load_x4(
          chunk_lane_addr<BN, DT>(c, tp_smem_addr(chunk), warp_first_row(wg), j0 + j), v);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 f = unpack_pair<DT>(v[i]);
        s[4 * j + 2 * i] = f.x;
        s[4 * j + 2 * i + 1] = f.y;
      }
    }
  } else {
    /* Never in a tail chunk: gpu.c takes no f32 C under one. */
#pragma unroll
    for (int j = 0; j < EPI_STEP_J; ++j) {
      if (j >= nj) break;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const chunk_pos q = chunk_pos_of(wg, j0 + j, half);
        const uint32_t box = q.col / 32u, cb = (q.col % 32u) * 4u;
        const float2 v = *(const float2 *)(chunk + box * BM * 128u +
                                           tp_smem_swizzle128(q.row, cb));
        s[4 * j + 2 * half] = v.x;
        s[4 * j + 2 * half + 1] = v.y;
      }
    }
  }
}

/* Writes the results d[4 j + 2 half + e] of column groups j0..j0+nj-1 of a
 * step into D chunk c: stmatrix for a 16-bit D, pair by pair for f32. */
template <int BN, int DT>
TP_DEV void chunk_write(int c, unsigned char *chunk, uint32_t wg, int j0, int nj, const float *d) {
  if (DT == TP_DTYPE_F32) {
#pragma unroll
    for (int j = 0; j < EPI_STEP_J; ++j) {
      if (j >= nj) break;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const chunk_pos q = chunk_pos_of(wg, j0 + j, half);
        *(float2 *)(chunk + chunk_offset<BN, DT>(c, q.row, q.col * 4u)) =
            make_float2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < EPI_STEP_J; j += 2) {
      if (j >= nj) break;
      uint32_t v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) v[i] = pack_pair<DT>(d[4 * j + 2 * i], d[4 * j + 2 * i + 1]);
      tp_smem_matrix_store_x4(
          chunk_lane_addr<BN, DT>(c, tp_smem_addr(chunk), warp_first_row(wg), j0 + j), v);
    }
  }
}

/* At D's edge: copies this thread's outputs in columns [n_tma, n) of rows
 * < m (col0: chunk c's first global column) out of the chunk it has just
 * written, already in D's dtype, straight to global memory; the TMA store
 * moves whole 16 bytes of a row only. */
template <int BN, int DT>
TP_DEV void store_ragged(const tp_standard_params &p, int c, const unsigned char *chunk,
                         int32_t m0, int32_t col0, uint32_t wg) {
  typedef chunk_traits<BN, DT> chunks;
#pragma unroll
  for (int j = 0; j < chunks::cols / 8; ++j) {
    if (j >= chunk_cols<BN, DT>(c) / 8) break;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const chunk_pos q = chunk_pos_of(wg, j, half);
      const int32_t grow = m0 + (int32_t)q.row;
#pragma unroll
      for (uint32_t e = 0; e < 2; ++e) {
        const int32_t gcol = col0 + (int32_t)(q.col + e);
        if (grow >= p.m || gcol < p.n_tma || gcol >= p.n) continue;
        const unsigned char *from =
            chunk + chunk_offset<BN, DT>(c, q.row, (q.col + e) * chunks::d_bytes);
        unsigned char *to =
            (unsigned char *)p.d_data + ((int64_t)grow * p.ldd + gcol) * chunks::d_bytes;
        if (chunks::d_bytes == 4) *(uint32_t *)to = *(const uint32_t *)from;
        else *(uint16_t *)to = *(const uint16_t *)from;
      }
    }
  }
}

/* The epilogue of one tile for consumer warpgroup `wg` (rows 64wg..+63),
 * chunk by chunk (128 rows x 128 bytes of D, or a tail chunk's columns):
 * the chunk (holding C when there is one), hook -> D dtype -> the same
 * chunk, then the chunk to the store warp.
 *
 * When K is short the epilogue is on the critical path, so the hook's loop
 * is straight-line code: per element the hook, a conversion and a shared
 * store, nothing else. Branches stay outside it: the source dtype
 * (source_fetch) and D's edge (store_ragged, `edge` tiles only); the chunk
 * and step bounds are constants once the loops are unrolled. Outside D
 * the hook runs at clamped indices and the TMA store clips its results,
 * which keeps one hook call site per element rather than a bounds-checked
 * copy (code size, and link time with a heavy hook). */
template <int BM, int BN, int DT>
TP_DEV void consumer_epilogue(const tp_standard_params &p, const float *acc, int32_t m0,
                              int32_t n0, uint32_t wg, tp_output_writer *out,
                              tp_input_consumer *src, const unsigned char *staged_a,
                              const unsigned char *staged_b) {
  typedef chunk_traits<BN, DT> chunks;
  static_assert(chunks::cols / 8 % EPI_STEP_J == 0, "a chunk is whole epilogue steps");
  const int32_t source_dtype = p.epilogue.source_dtype;
  const bool has_source = source_dtype != TP_DTYPE_NONE;
  const int kind = source_kind_of<DT>(source_dtype);
  const staged_c sc = staged_c_of<DT>(p);
  /* D is written over C in the same chunk. Where C's elements are wider
   * than D's, a thread's D lands on C that other lanes of its warp (the
   * row's owners) read in the same step: they must all have read first. */
  const bool c_wider = source_dtype == TP_DTYPE_F32 && DT != TP_DTYPE_F32;
  const bool edge = m0 + BM > p.m || n0 + BN > p.n_tma;
  const int32_t last_row = p.m - 1, last_col = p.n - 1;
#pragma unroll
  for (int c = 0; c < chunks::count; ++c) {
    tp_input_consumer_stage in;
    if (has_source) in = tp_input_consumer_acquire_stage(src);
    tp_output_write_stage os = tp_output_writer_acquire_stage(out);
    unsigned char *chunk = (unsigned char *)tp_output_write_stage_tile(&os);
    const bool from_stage = staged_c_has(sc, c);
    const unsigned char *c_chunk = from_stage ? staged_c_slot(sc, staged_a, staged_b, c) : chunk;
    const int32_t col0 = n0 + c * chunks::cols;
    const int groups = chunk_cols<BN, DT>(c) / 8;
#pragma unroll
    for (int j0 = 0; j0 < chunks::cols / 8; j0 += EPI_STEP_J) {
      if (j0 >= groups) break;
      const int nj = min(EPI_STEP_J, groups - j0);
      float s[EPI_STEP_J * 4], d[EPI_STEP_J * 4];
      source_fetch<BM, BN, DT>(c, c_chunk, kind, wg, j0, nj, s);
      if (c_wider) __syncwarp();
#pragma unroll
      for (int j = 0; j < EPI_STEP_J; ++j) {
        if (j >= nj) break;
        const int frag = (c * chunks::cols / 8 + j0 + j) * 4;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const chunk_pos q = chunk_pos_of(wg, j0 + j, half);
          const int32_t hrow = min(m0 + (int32_t)q.row, last_row);
          const int32_t gcol = col0 + (int32_t)q.col;
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int i = 4 * j + 2 * half + e;
            d[i] = tp_epilogue_apply(&p.epilogue, acc[frag + 2 * half + e], s[i], hrow,
                                     min(gcol + e, last_col));
          }
        }
      }
      chunk_write<BN, DT>(c, chunk, wg, j0, nj, d);
    }
    if (edge) {
      __syncwarp(); /* stmatrix wrote this thread's values from other lanes' addresses */
      store_ragged<BN, DT>(p, c, chunk, m0, col0, wg);
    }
    tp_output_write_stage_release(&os); /* fence for the TMA, one arrival per warp */
    /* The store warp frees the chunk for the next C, once stored. */
    if (has_source) tp_input_consumer_stage_release_without_signal(&in);
  }
}

/* Split-K for consumer warpgroup wg: a split other than the last leaves its
 * partial sums in its workspace slot and returns false; the last adds every
 * other split's (in split order) into acc and returns true. */
template <int BM, int BN>
TP_DEV bool split_k_reduce(const tp_standard_params &p, float *acc, const work_unit &w,
                           uint32_t wg) {
  constexpr uint32_t wgs = tile_rows<BM>::warpgroups;
  constexpr int floats = BN / 2;                         /* accumulators per thread */
  constexpr uint32_t slot_float4s = 128u * floats / 4u;  /* a warpgroup's 64 x BN */
  const uint32_t t = threadIdx.x % 128u;
  const int32_t tile = w.tile - p.split_from; /* among the split tiles */
  uint32_t *counter = p.counters + wgs * tile + wg;
  float4 *slots =
      (float4 *)p.partials + ((size_t)tile * (p.splits - 1) * wgs + wg) * slot_float4s;
  /* Slot of split s: (tile, s, wg), the warpgroups' slots side by side. */
  if (!w.last) {
    tp_split_k_store<floats>(acc, slots + (size_t)w.split * wgs * slot_float4s, t, 128u);
    tp_split_k_arrive(counter, BAR_CONSUMER_0 + wg, t, 128u);
    return false;
  }
  tp_split_k_wait(counter, (uint32_t)p.splits - 1u, BAR_CONSUMER_0 + wg, t, 128u);
  for (int32_t s = 0; s < p.splits - 1; ++s)
    tp_split_k_add<floats>(acc, slots + (size_t)s * wgs * slot_float4s, t, 128u);
  return true;
}

template <int AB, int BM, int BN, int DT, int CLUSTER_M>
TP_DEV void run_consumer(const tp_standard_params &p, uint32_t wg) {
  /* Each consumer warp frees a stage in every CTA whose multicast filled it
   * (lane r arrives on CTA r): empty[] counts the consumer warps x
   * CLUSTER_M. */
  const tp_arrival arrival = tp_arrival_make(1, CLUSTER_M > 1 ? (1u << CLUSTER_M) - 1u : 0u);
  tp_input_pipeline ip = tp_storage_input_pipeline(smem_base(), &p.smem, 1);
  tp_input_consumer cons = tp_input_pipeline_consumer(&ip, arrival);
  tp_output_pipeline op = tp_storage_output_pipeline(smem_base(), &p.smem);
  tp_output_writer out = tp_output_pipeline_writer(&op, tp_arrival_warp());
  tp_input_pipeline ep = tp_storage_epi_load_pipeline(smem_base(), &p.smem);
  tp_input_consumer src = tp_input_pipeline_consumer(&ep, tp_arrival_warp());
  const tile_schedule s = tile_schedule_make<CLUSTER_M>(p);
  constexpr int k_bytes = ab_traits<AB>::k_step * ab_traits<AB>::elem_bytes;
  constexpr int k_steps = TP_STANDARD_K_BYTES / k_bytes;
  /* A 128 x 64 tile, bound by memory, has 8 stages of 24 KB; holding each
   * one until the next one's data has landed keeps an eighth of them out of
   * flight. It frees each stage as soon as its own wgmma group retires
   * instead: 128x7168x16384 ran 0.8% faster on the H100. (A 64 x 64 tile,
   * 13 stages of 16 KB, ran 3% slower so.) */
  constexpr bool release_at_once = BM == 128 && BN == 64;
  /* Zeroed once: a warpgroup whose rows all lie past M never writes them
   * (below), and its dropped results should still come from defined values. */
  float acc[BN / 2];
#pragma unroll
  for (int i = 0; i < BN / 2; ++i) acc[i] = 0.0f;

  for (int32_t u = s.first; u < s.units; u += s.stride) {
    const work_unit w = work_unit_of(p, u);
    int32_t m0, n0;
    tile_origin<CLUSTER_M, BM, BN>(p, w.tile, &m0, &n0);
    /* One stage stays held while the next is read: it is released once the
     * wgmma group that read it has retired (wait_group<1> after the next
     * commit), so one group is always in flight behind the issue; but
     * release_at_once tiles (above). */
    tp_input_consumer_stage held;
    /* Rows wholly past M: the loader left our half of A unloaded, so we
     * only pass the stages on. The accumulators keep whatever they held:
     * every result of these rows is dropped (the TMA store clips rows past
     * M, store_ragged skips them), and zeroing them cost 128 selects per
     * tile on every tile, since the compiler does not branch around them. */
    const bool rows_in_m = wg < a_boxes_in_m<BM>(p, m0);
    for (int32_t kb = w.kb_begin; kb < w.kb_end; ++kb) {
      tp_input_consumer_stage st = tp_input_consumer_acquire_stage(&cons);
      if (rows_in_m) {
        const uint32_t a = tp_smem_addr(tp_input_consumer_stage_tile(&st, 0, 0)) +
                           wg * TP_STANDARD_A_BOX_ROWS * TP_STANDARD_K_BYTES;
        const uint32_t b = tp_smem_addr(tp_input_consumer_stage_tile(&st, 1, 0));
        tp_wgmma_fence();
#pragma unroll
        for (int k = 0; k < k_steps; ++k) {
          mma_k_step<AB, BN>(acc, tp_wgmma_desc_sw128(a + k * k_bytes),
                             tp_wgmma_desc_sw128(b + k * k_bytes), kb > w.kb_begin || k > 0);
        }
        tp_wgmma_commit_group();
      }
      if (release_at_once) {
        tp_wgmma_wait_group<0>();
        tp_input_consumer_stage_release(&st);
        continue;
      }
      tp_wgmma_wait_group<1>();
      if (kb > w.kb_begin) tp_input_consumer_stage_release(&held);
      held = st;
    }
    tp_wgmma_wait_group<0>();
    if (!release_at_once) tp_input_consumer_stage_release(&held);
    if (w.split_k && !split_k_reduce<BM, BN>(p, acc, w, wg)) continue;
    /* The input stage with the tile's staged chunks of C (staged_c_of), held
     * over the whole epilogue: a wait or an arrival between its chunks would
     * cut the store epilogue's unrolled chunks apart too (its store ran 2%
     * slower at 4096x32768x512 so). */
    tp_input_consumer_stage staged;
    const unsigned char *staged_a = NULL, *staged_b = NULL;
    const bool c_staged = staged_c_of<DT>(p).count > 0;
    if (c_staged) {
      staged = tp_input_consumer_acquire_stage(&cons);
      staged_a = (const unsigned char *)tp_input_consumer_stage_tile(&staged, 0, 0);
      staged_b = (const unsigned char *)tp_input_consumer_stage_tile(&staged, 1, 0);
    }
    consumer_epilogue<BM, BN, DT>(p, acc, m0, n0, wg, &out, &src, staged_a, staged_b);
    if (c_staged) tp_input_consumer_stage_release(&staged);
  }
  tp_input_consumer_drain(&cons);
  tp_output_writer_drain(&out);
}

template <int AB, int BM, int BN, int DT, int CLUSTER_M>
TP_DEV void standard_gemm(const tp_standard_params &p) {
  const uint32_t warp = threadIdx.x / 32u;
  constexpr uint32_t consumer_warps = 4u * tile_rows<BM>::warpgroups;
  if (threadIdx.x == 0) {
    tp_storage_counts counts;
    counts.input_consumers = consumer_warps * CLUSTER_M;
    counts.output_writers = consumer_warps;
    counts.source_readers = 1u; /* the store warp */
    /* No ping-pong ordering here; still a valid count: ptxas (13.0) crashes
     * on a constant mbarrier.init count of 0, even in a branch never taken. */
    counts.order_arrivals = 1u;
    tp_storage_init_barriers(smem_base(), &p.smem, &counts);
    tp_mbar_fence_init();
    tp_tma_prefetch_desc(&p.a);
    tp_tma_prefetch_desc(&p.b);
    if (p.n_tma > 0) tp_tma_prefetch_desc(&p.d);
  }
  /* Peers' barriers must be initialised before any multicast lands in them. */
  if (CLUSTER_M > 1) {
    tp_cluster_sync();
  } else {
    __syncthreads();
  }

  if (warp < 4) {
    tp_setmaxnreg_dec<PRODUCER_REGS>();
    if (warp == 0 && tp_elect_one()) {
      run_loader<AB, BM, BN, DT, CLUSTER_M>(p);
    } else if (warp == 1 && tp_elect_one()) {
      run_storer<BM, BN, DT, CLUSTER_M>(p);
    } else if (warp == 2 && p.epilogue.source_dtype != TP_DTYPE_NONE && tp_elect_one()) {
      run_source_loader<BM, BN, DT, CLUSTER_M>(p);
    }
  } else if (warp < 4u + consumer_warps) {
    tp_setmaxnreg_inc<CONSUMER_REGS>();
    run_consumer<AB, BM, BN, DT, CLUSTER_M>(p, warp / 4u - 1u);
  }
  /* No CTA of the cluster may leave while a peer may still arrive on its
   * barriers (remote empty arrivals, multicast bytes). */
  if (CLUSTER_M > 1) tp_cluster_sync();
}

/* ------------------------------------------------------------ entry points */

/* tp_standard_<ab>_<d>_<BM>x<BN>_c<CLUSTER_M>: the names gpu_plan picks from. */
#define TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, BM, BN, CM)                                 \
  extern "C" __global__ void __launch_bounds__(TP_STANDARD_THREADS, 1)                          \
      tp_standard_##ab_name##_##d_name##_##BM##x##BN##_c##CM(const __grid_constant__ tp_standard_params p) { \
    standard_gemm<AB, BM, BN, DT, CM>(p);                                                       \
  }

/* 64 x 64 tiles serve shapes of few tiles (M <= 128), bound by memory: at
 * M = 128 they make twice the CTAs of 128-row tiles without splitting K,
 * and their stages, half the bytes of A, are twice as many. */
#define TP_STANDARD_KERNELS_FOR_D(ab_name, AB, d_name, DT)  \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 256, 1) \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 256, 2) \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 192, 1) \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 192, 2) \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 128, 1) \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 128, 2) \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 64, 1)  \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 128, 64, 2)  \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 64, 64, 1)   \
  TP_STANDARD_KERNEL(ab_name, AB, d_name, DT, 64, 64, 2)

/* 176 wide (2112 = 12 x 176: 2.9 waves of 132 where 192 makes 2.7) for a
 * 16-bit D, single CTAs: its tail chunk is 48 columns of a 16-bit D. */
#define TP_STANDARD_KERNELS_FOR_AB(ab_name, AB)                     \
  TP_STANDARD_KERNELS_FOR_D(ab_name, AB, bf16, TP_DTYPE_BF16)       \
  TP_STANDARD_KERNELS_FOR_D(ab_name, AB, f16, TP_DTYPE_F16)         \
  TP_STANDARD_KERNELS_FOR_D(ab_name, AB, f32, TP_DTYPE_F32)         \
  TP_STANDARD_KERNEL(ab_name, AB, bf16, TP_DTYPE_BF16, 128, 176, 1) \
  TP_STANDARD_KERNEL(ab_name, AB, f16, TP_DTYPE_F16, 128, 176, 1)

TP_STANDARD_KERNELS_FOR_AB(bf16, AB_BF16)
TP_STANDARD_KERNELS_FOR_AB(f16, AB_F16)
TP_STANDARD_KERNELS_FOR_AB(e4m3_e4m3, AB_E4M3_E4M3)
TP_STANDARD_KERNELS_FOR_AB(e4m3_e5m2, AB_E4M3_E5M2)
TP_STANDARD_KERNELS_FOR_AB(e5m2_e4m3, AB_E5M2_E4M3)
TP_STANDARD_KERNELS_FOR_AB(e5m2_e5m2, AB_E5M2_E5M2)
