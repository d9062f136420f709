/* tilepipe/internal/kernel/kernel_schedule.h: the structured kernel's tile scheduler.
 *
 * The grid is persistent: each CTA (each cluster of CLUSTER_M CTAs) walks
 * the work units u = first, first + stride, ... and every role of every
 * CTA walks the same sequence, so the pipelines between roles stay in step
 * without a scheduler warp.
 *
 * Tiles are walked in clusters of CLUSTER_M tiles along M (sharing one B
 * tile), cluster tiles in groups of raster_m cluster rows so that CTAs
 * running at the same time share A rows and B columns in L2. A work unit
 * is a whole cluster tile (tiles before split_from: unit u is tile u) or
 * one split of a tile's k-blocks (unit split_from + v is split v % splits
 * of tile split_from + v / splits), so that a tile's splits run on
 * consecutive CTAs: the host makes split_from and the grid multiples of
 * splits, so none straddles the grid's end, and the last split, which
 * waits for the others' partial sums, only ever waits for CTAs of lower
 * index (already resident). Under stream-K the units before split_from
 * are whole tiles, and after them each CTA takes its share of the
 * stream-K tiles' k-blocks (tilepipe/plugin/kernel/params.h) in pieces of one
 * tile each, walked from the end of its share down: a CTA first does the
 * first k-blocks of the tile its share ends in, which the CTA above it,
 * holding that tile's last k-blocks, adds up last, so the partial sums are
 * ready by then and a CTA again only waits for CTAs of lower index. The
 * rules the host planner follows too (the units, the raster groups, the
 * stream-K shares and their owners) are tilepipe/plugin/kernel/schedule.h's. The
 * divisions are tilepipe/plugin/fast_div.h's: every role maps a unit at every
 * tile, the consumers between one tile's epilogue and the next tile's
 * mainloop. */
#ifndef TILEPIPE_INTERNAL_KERNEL_KERNEL_SCHEDULE_H
#define TILEPIPE_INTERNAL_KERNEL_KERNEL_SCHEDULE_H

#include <stdint.h>

#include "tilepipe/plugin/device/warpgroup.h"
#include "tilepipe/plugin/kernel/params.h"
#include "tilepipe/plugin/kernel/schedule.h"

#define TP_KERNEL_FN static __device__ __forceinline__

/* A CTA's walk: the units u = first, first + stride, ... below units, then
 * its share [lo, hi) of the stream-K k-blocks, hi moving down. */
typedef struct tp_kernel_walk {
  int32_t u, units, stride;
  int32_t lo, hi;
} tp_kernel_walk;

typedef struct tp_kernel_unit {
  int32_t tile;             /* cluster tile */
  int32_t kb_begin, kb_end; /* its k-blocks */
  int32_t split;            /* split_k, not last: its slot among the tile's partial sums */
  int32_t partials;         /* split_k and last: how many partial sums it adds */
  bool split_k;             /* one of several splits of its tile */
  bool last;                /* the split that adds up and runs the epilogue */
} tp_kernel_unit;

/* What a mainloop is told about the unit at hand (tilepipe/plugin/device/kernel.h). */
typedef struct tp_kernel_tile {
  int32_t m0, n0;              /* this CTA's output tile origin */
  int32_t kb_begin, kb_end;    /* the k-blocks of the unit */
  uint32_t warpgroups_in_m;    /* consumer warpgroups whose 64 rows start inside M */
} tp_kernel_tile;

template <int CLUSTER_M>
TP_KERNEL_FN tp_kernel_walk tp_kernel_walk_make(const tp_kernel_params &k) {
  tp_kernel_walk wk;
  const int32_t cluster_rows = tp_schedule_cluster_rows(k.tiles_m, CLUSTER_M);
  wk.units = k.stream_iters ? k.split_from
                            : TP_SCHEDULE_UNITS(cluster_rows * k.tiles_n, k.split_from, k.splits);
  wk.u = (int32_t)blockIdx.x / CLUSTER_M;
  wk.stride = (int32_t)gridDim.x / CLUSTER_M;
  wk.lo = wk.hi = 0;
  if (k.stream_iters) { /* single CTAs; the plan keeps stream_iters x grid < 2^31 */
    wk.lo = tp_schedule_share_begin(k.grid_div, wk.u, k.stream_iters);
    wk.hi = tp_schedule_share_begin(k.grid_div, wk.u + 1, k.stream_iters);
  }
  return wk;
}

/* Unit u. Splits get k_blocks / splits k-blocks each, give or take one,
 * but for split_lead: each split but the last gives that many of its
 * k-blocks to the last (tilepipe/plugin/kernel/params.h). */
TP_KERNEL_FN tp_kernel_unit tp_kernel_unit_of(const tp_kernel_params &k, int32_t u) {
  tp_kernel_unit w;
  if (u < k.split_from) {
    w.tile = u;
    w.split = 0;
    w.partials = 0;
    w.kb_begin = 0;
    w.kb_end = k.k_blocks;
    w.split_k = false;
    w.last = true;
    return w;
  }
  const int32_t v = u - k.split_from;
  const int32_t t = (int32_t)tp_fast_div_quot(k.splits_div, (uint32_t)v);
  w.tile = k.split_from + t;
  w.split = v - t * k.splits;
  w.partials = k.splits - 1;
  w.split_k = k.splits > 1;
  w.last = w.split == k.splits - 1;
  w.kb_begin = (int32_t)tp_fast_div_quot(k.splits_div, (uint32_t)(w.split * k.k_blocks)) -
               w.split * k.split_lead;
  w.kb_end = w.last ? k.k_blocks
                    : (int32_t)tp_fast_div_quot(k.splits_div,
                                                (uint32_t)((w.split + 1) * k.k_blocks)) -
                          (w.split + 1) * k.split_lead;
  return w;
}

/* The walk's next unit into *w; false once it is done. A stream-K piece
 * is the part of its share that lies in one tile, taken from the share's
 * end: split_k where the tile falls to several CTAs, last for the one with
 * the tile's last k-blocks, slots in CTA order. */
TP_KERNEL_FN bool tp_kernel_walk_next(const tp_kernel_params &k, tp_kernel_walk *wk,
                                      tp_kernel_unit *w) {
  if (wk->u < wk->units) {
    *w = tp_kernel_unit_of(k, wk->u);
    wk->u += wk->stride;
    return true;
  }
  if (wk->hi <= wk->lo) return false;
  const int32_t rel = (int32_t)tp_fast_div_quot(k.k_blocks_div, (uint32_t)(wk->hi - 1));
  const int32_t start = rel * k.k_blocks;
  const int32_t first = tp_schedule_stream_owner(k.stream_div, start, wk->stride);
  const int32_t final_cta =
      tp_schedule_stream_owner(k.stream_div, start + k.k_blocks - 1, wk->stride);
  w->tile = k.split_from + rel;
  w->kb_begin = max(start, wk->lo) - start;
  w->kb_end = wk->hi - start;
  w->split_k = first != final_cta;
  w->last = w->kb_end == k.k_blocks;
  w->split = (int32_t)blockIdx.x - first;
  w->partials = final_cta - first;
  wk->hi = start + w->kb_begin;
  return true;
}

/* Output tile origin (m0, n0) of cluster tile t for this CTA. */
template <int CLUSTER_M, int BM, int BN>
TP_KERNEL_FN void tp_kernel_tile_origin(const tp_kernel_params &k, int32_t t, int32_t *m0,
                                        int32_t *n0) {
  int32_t cluster_row, col;
  tp_schedule_tile_position(&k, t, &cluster_row, &col);
  const int32_t rank = CLUSTER_M > 1 ? (int32_t)tp_cluster_ctarank() : 0;
  *m0 = (cluster_row * CLUSTER_M + rank) * BM;
  *n0 = col * BN;
}

/* Consumer warpgroups of a BM-row tile, 64 rows each; in a 64-row tile the
 * second warpgroup has no work. */
template <int BM>
struct tp_kernel_rows {
  static constexpr uint32_t warpgroups = BM / TP_KERNEL_WARPGROUP_ROWS;
  static_assert(BM == 64 || BM == 128, "tiles are 64 or 128 rows");
};

/* How many of a tile's consumer warpgroups own rows inside M: a mainloop
 * loads operand rows for those only, and a warpgroup past them only passes
 * its stages on. */
template <int BM>
TP_KERNEL_FN uint32_t tp_kernel_warpgroups_in_m(const tp_kernel_params &k, int32_t m0) {
  return m0 >= k.m ? 0u
         : tp_kernel_rows<BM>::warpgroups == 1 || m0 + TP_KERNEL_WARPGROUP_ROWS >= k.m ? 1u
                                                                                      : 2u;
}

/* Unit w's tile as its mainloop sees it. */
template <int CLUSTER_M, int BM, int BN>
TP_KERNEL_FN tp_kernel_tile tp_kernel_tile_of(const tp_kernel_params &k, const tp_kernel_unit &w) {
  tp_kernel_tile t;
  tp_kernel_tile_origin<CLUSTER_M, BM, BN>(k, w.tile, &t.m0, &t.n0);
  t.kb_begin = w.kb_begin;
  t.kb_end = w.kb_end;
  t.warpgroups_in_m = tp_kernel_warpgroups_in_m<BM>(k, t.m0);
  return t;
}

#endif
