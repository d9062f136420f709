/* plugins/standard/device/standard_params.h: the kernel's one parameter.
 *
 * Built by the plugin's host code (gpu_args, C11) and read by the kernel
 * (CUDA) as a __grid_constant__, so it is plain data with TMA descriptors
 * first (64-byte aligned). The shared-memory layout comes from the core's
 * storage planner at plan time; the kernel only follows it. */
#ifndef TP_STANDARD_PARAMS_H
#define TP_STANDARD_PARAMS_H

#include <stdint.h>

#include "tilepipe/epilogue_args.h"
#include "tilepipe/fast_div.h"
#include "tilepipe/pipeline/storage.h"
#include "tilepipe/tma_desc.h"

/* Rows of an output tile: 128, the two consumer warpgroups taking 64
 * each (or 64 for 64 x 64 tiles, the first warpgroup alone). */
#define TP_STANDARD_TILE_M 128
/* Rows of A per TMA box: one consumer warpgroup's share of the tile (a box
 * wholly past M is not loaded). */
#define TP_STANDARD_A_BOX_ROWS 64
/* Every operand tile row is 128 bytes of K (the 128-byte swizzle span). */
#define TP_STANDARD_K_BYTES 128
/* Threads: one producer warpgroup and two consumer warpgroups. */
#define TP_STANDARD_THREADS 384

typedef struct tp_standard_params {
  tp_tma_desc a;      /* A [M, K]: boxes of 64 rows x 128 bytes, 128B swizzle */
  tp_tma_desc b;      /* B [N, K]: boxes of tile_n / cluster_m rows x 128 bytes */
  tp_tma_desc d;      /* D [M, N]: boxes of tile_m rows x 128 bytes */
  tp_tma_desc c;      /* C [M, N], when the epilogue reads a source: tile_m rows x 128 bytes */
  /* A 176-wide tile's last chunk (standard_kernel.cu's chunk_traits): D's
   * and C's boxes of 128 rows x 48 columns, unswizzled. */
  tp_tma_desc d_tail, c_tail;
  tp_storage_layout smem;
  int32_t m, n, k;
  int32_t tiles_m, tiles_n, k_blocks;
  int32_t raster_m;   /* cluster rows walked together, for L2 reuse */
  /* The tile schedule's divisors (tilepipe/fast_div.h): raster_m x tiles_n
   * cluster tiles per raster group; raster_m cluster rows in every group
   * but the last, last_rows in that one (group last_group); splits. */
  tp_fast_div group_div, rows_div, last_rows_div, splits_div;
  int32_t last_group;
  /* TMA stores clip D's columns only to 16-byte granules: they would write
   * a row's padding past N. Columns [0, n_tma) (N rounded down to 16 bytes)
   * go through TMA; the few columns [n_tma, N) are stored directly from
   * registers through d_data (rows ldd elements apart). */
  int32_t n_tma;
  void *d_data;
  int64_t ldd;
  /* Split-K: the K of each cluster tile from split_from on is split over
   * `splits` consecutive CTAs (split_from 0: every tile, for shapes with
   * fewer tiles than SMs; else the tiles of the last, partial wave). All
   * but the last split write their partial sums to `partials` and count
   * themselves in the tile's `counters` (one per consumer warpgroup; both
   * indexed from split_from); the last waits for them, adds them in split
   * order and runs the epilogue. Both live in the plan's workspace; the
   * counters return to 0 after each tile. */
  int32_t splits, split_from;
  /* K-blocks that each split but the last hands on to the last (taken from
   * its end): the last split, which waits for the others' partial sums,
   * then finds them written when its own longer mainloop ends. */
  int32_t split_lead;
  uint32_t *counters;
  float *partials;
  /* With C: the chunks [c_staged_first, c_staged_first + c_staged_count)
   * of a tile's C past the ring come through one more input stage (the
   * kernel's staged_c), the first c_staged_a_slots of them in its A tile,
   * the rest in its B tile, one output chunk's bytes apart. */
  int32_t c_staged_first, c_staged_count, c_staged_a_slots;
  /* L2 cache policies of the A and B loads (tilepipe/tma_desc.h's
   * TP_TMA_L2_*): gpu.c's operand_policies. */
  uint64_t a_policy, b_policy;
  tp_epilogue_args epilogue;
} tp_standard_params;

#endif
