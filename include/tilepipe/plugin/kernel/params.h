/* tilepipe/plugin/kernel/params.h: what the structured kernel reads at run time.
 *
 * A kernel built on the skeleton (tilepipe/plugin/device/kernel.h) takes one
 * __grid_constant__ parameter: its payload's struct, which holds a
 * tp_kernel_params named `kernel` (the skeleton's part: D, C, the schedule,
 * split-K, the epilogue's arguments) beside the mainloop's own fields. The
 * payload's host code fills both at run time, the skeleton's part with
 * tp_kernel_args_fill (tilepipe/plugin/kernel/args.h). Plain data for host C and
 * device code, TMA descriptors first (64-byte aligned). */
#ifndef TILEPIPE_PLUGIN_KERNEL_PARAMS_H
#define TILEPIPE_PLUGIN_KERNEL_PARAMS_H

#include <stdint.h>

#include "tilepipe/plugin/epilogue_args.h"
#include "tilepipe/plugin/fast_div.h"
#include "tilepipe/internal/pipeline/storage.h"
#include "tilepipe/plugin/tma_desc.h"

/* Threads of a CTA: one producer warpgroup, two consumer warpgroups. */
#define TP_KERNEL_THREADS 384
/* Rows of the output tile that one consumer warpgroup owns (one wgmma M),
 * and the rows of an A box loaded for it. */
#define TP_KERNEL_WARPGROUP_ROWS 64
/* Bytes of a swizzled shared-memory row: an operand tile's k-block row, a
 * chunk row of D or C (the 128-byte swizzle span). */
#define TP_KERNEL_ROW_BYTES 128
/* The stage tensor a mainloop that converts B writes the 16-bit tile
 * wgmma reads into (tp_kernel_plan_converted_b, tp_kernel_mma_converted_b). */
#define TP_KERNEL_CONVERTED_B 2
/* The stage tensor of a two-level accumulation's row factors: tile_m f32
 * per k-tile (tp_kernel_plan_blockwise; tilepipe/plugin/device/promote.h
 * reads them). */
#define TP_KERNEL_ROW_FACTORS 2
/* The blockwise-scaled mainloop (tilepipe/plugin/device/blockwise_mainloop.h):
 * a scale block's K (a k-tile and a stage), the blocks of a step (stages
 * the consumers take at once, draining their wgmma once per step: the
 * mainloop's step_stages), and the widest tile (its
 * columns lie in one 128-row block of B's scales; wider ones, through a
 * temporary accumulator beside the skeleton's, spill or run slower:
 * docs/kernel.md). */
#define TP_BLOCKWISE_K 128
#define TP_BLOCKWISE_STEP_BLOCKS 2
#define TP_BLOCKWISE_MAX_TILE_N 128

typedef struct tp_kernel_params {
  tp_tma_desc d; /* D [M, N]: boxes of tile_m rows x 128 bytes */
  tp_tma_desc c; /* C [M, N], when the epilogue reads a source: the same boxes */
  /* The last chunk of a width that is not whole chunks (176 wide: 48
   * columns): D's and C's boxes of tile_m rows x its columns, unswizzled
   * (tilepipe/internal/kernel/kernel_chunks.h). */
  tp_tma_desc d_tail, c_tail;
  tp_storage_layout smem;
  int32_t m, n, k;
  int32_t tiles_m, tiles_n, k_blocks;
  int32_t raster_m; /* cluster rows walked together, for L2 reuse */
  /* The tile schedule's divisors (tilepipe/plugin/fast_div.h): raster_m x tiles_n
   * cluster tiles per raster group; raster_m cluster rows in every group
   * but the last, last_rows in that one (group last_group); splits. */
  tp_fast_div group_div, rows_div, last_rows_div, splits_div;
  int32_t last_group;
  /* TMA stores clip D's columns only to 16-byte granules: they would write
   * a row's padding past N. Columns [0, n_tma) (N rounded down to 16 bytes)
   * go through TMA; the few columns [n_tma, N) are stored directly from
   * the chunk through d_data (rows ldd elements apart). */
  int32_t n_tma;
  void *d_data;
  int64_t ldd;
  /* A transposed kernel's C (tilepipe/plugin/device/kernel_mainloop.h), read
   * from registers' positions: C [M, N], rows ldc elements apart (D's
   * through d_data and ldd; m and n above are then N and M). */
  const void *c_data;
  int64_t ldc;
  /* Split-K: the K of each cluster tile from split_from on is split over
   * `splits` consecutive CTAs (split_from 0: every tile; else the tiles of
   * the last, partial wave). All but the last split write their partial
   * sums to `partials` and count themselves in the tile's `counters` (one
   * per consumer warpgroup; both indexed from split_from); the last waits
   * for them, adds them in split order and runs the epilogue. Each split
   * but the last hands its last split_lead k-blocks on to the last one, so
   * that their sums are written by the time it needs them. Both live in
   * the plan's workspace; the counters return to 0 after each tile. */
  int32_t splits, split_from, split_lead;
  uint32_t *counters;
  float *partials;
  /* Stream-K (stream_iters > 0): the tiles from split_from on are one
   * stream of stream_iters k-blocks (tile by tile, k_blocks each); CTA c of
   * a grid of G takes [c * stream_iters / G, (c + 1) * stream_iters / G)
   * of it, in pieces of one tile each. A tile whose k-blocks fall to
   * several CTAs meets as in split-K, the CTA with its last k-blocks adding
   * up (splits: the most CTAs a tile falls to). The divisors divide by
   * stream_iters, k_blocks and G (tilepipe/internal/kernel/kernel_schedule.h). */
  uint32_t stream_iters;
  tp_fast_div stream_div, k_blocks_div, grid_div;
  /* With C: the chunks [c_staged_first, c_staged_first + c_staged_count)
   * of a tile's C past the ring come through one more input stage, the
   * first c_staged_a_slots of them in its tensor 0, the rest in its tensor
   * 1, one output chunk's bytes apart (tilepipe/internal/kernel/kernel_source.h). */
  int32_t c_staged_first, c_staged_count, c_staged_a_slots;
  /* Rows of A's box (tilepipe/plugin/kernel/layout.h, tp_kernel_a_rows): below 64,
   * rows a_rows..63 of every A tile are zeroed once and never loaded. */
  int32_t a_rows;
  tp_epilogue_args epilogue;
} tp_kernel_params;

/* The operands of a mainloop that loads K-major A and B tiles
 * (tilepipe/plugin/device/kernel_operands.h): their descriptors (A in boxes of
 * a_rows rows, B in boxes of tile_n / cluster_m rows, one k-tile of K
 * each, swizzled by the operand's row bytes, tilepipe/plugin/kernel/
 * operands.h) and the L2 cache policies of
 * their loads (TP_TMA_L2_*). */
typedef struct tp_kernel_operands {
  tp_tma_desc a, b;
  uint64_t a_policy, b_policy;
} tp_kernel_operands;

#endif
