/* tilepipe/plugin/kernel/schedule.h: the rules of the structured kernel's tile
 * schedule that the host planner and the device schedule both follow,
 * written once.
 *
 * The planner (tilepipe/plugin/kernel/shape.h, launch.h) decides the walk's
 * figures in tp_kernel_params and the kernel
 * (tilepipe/internal/kernel/kernel_schedule.h) walks them; each quantity both
 * sides compute comes from one function here:
 *
 *   - cluster rows and work units: tiles are walked in clusters of
 *     cluster_m along M; the tiles before split_from are one unit each,
 *     each later one `splits` units. The kernel walks that many units; the
 *     planner launches no more CTAs than there are;
 *   - raster groups: cluster tiles are walked in groups of raster_m cluster
 *     rows by every tile column, column by column within a group, the last
 *     group (last_group) holding the rows left. The planner makes the
 *     divisors; the kernel finds a tile's cluster row and column with them;
 *   - stream-K shares: CTA c of a grid of G takes the stream's k-blocks
 *     [c x iters / G, (c + 1) x iters / G); the owner of k-block x is the
 *     CTA whose share holds it. The kernel walks its share and meets the
 *     owners of its tiles' other k-blocks; the planner counts the CTAs a
 *     tile's k-blocks fall to, for the workspace.
 *
 * 32-bit arithmetic, the kernel's: the planner refuses a shape whose work
 * units, or whose stream-K k-blocks times the grid, reach 2^31. Plain C11
 * on the host, __host__ __device__ under nvcc (TP_SCHEDULE_FN). */
#ifndef TILEPIPE_PLUGIN_KERNEL_SCHEDULE_H
#define TILEPIPE_PLUGIN_KERNEL_SCHEDULE_H

#include <stdint.h>

#include "tilepipe/plugin/fast_div.h"
#include "tilepipe/plugin/kernel/params.h"

#ifdef __CUDACC__
#define TP_SCHEDULE_FN static __host__ __device__ __forceinline__
#else
#define TP_SCHEDULE_FN static inline
#endif

/* Cluster rows of tiles_m tile rows in clusters of cluster_m. */
TP_SCHEDULE_FN int32_t tp_schedule_cluster_rows(int32_t tiles_m, int32_t cluster_m) {
  return (tiles_m + cluster_m - 1) / cluster_m;
}

/* Work units of cluster_tiles cluster tiles: those before split_from
 * whole, each later one split `splits` ways. A macro, in the arguments'
 * type (the planner's 64-bit, the kernel's 32-bit): as an inline function
 * it moves nvcc's schedule of the kernel's walk, whose code must not
 * change with where the rule is written. */
#define TP_SCHEDULE_UNITS(CLUSTER_TILES, SPLIT_FROM, SPLITS) \
  ((SPLIT_FROM) + ((CLUSTER_TILES) - (SPLIT_FROM)) * (SPLITS))

/* The last raster group of cluster_rows cluster rows in groups of raster_m. */
TP_SCHEDULE_FN int32_t tp_schedule_last_group(int32_t cluster_rows, int32_t raster_m) {
  return (cluster_rows - 1) / raster_m;
}

/* Cluster rows in the last raster group. */
TP_SCHEDULE_FN int32_t tp_schedule_last_rows(int32_t cluster_rows, int32_t raster_m) {
  return cluster_rows - tp_schedule_last_group(cluster_rows, raster_m) * raster_m;
}

/* Cluster tile t's cluster row and tile column under k's raster groups
 * (group_div: raster_m x tiles_n tiles a group; rows_div, last_rows_div:
 * the cluster rows of a group, of the last one). */
TP_SCHEDULE_FN void tp_schedule_tile_position(const tp_kernel_params *k, int32_t t,
                                              int32_t *cluster_row, int32_t *col) {
  const int32_t group = (int32_t)tp_fast_div_quot(k->group_div, (uint32_t)t);
  const int32_t in_group = t - group * (int32_t)k->group_div.divisor;
  const tp_fast_div rows = group == k->last_group ? k->last_rows_div : k->rows_div;
  *col = (int32_t)tp_fast_div_quot(rows, (uint32_t)in_group);
  *cluster_row = group * k->raster_m + in_group - *col * (int32_t)rows.divisor;
}

/* The first stream-K k-block of CTA `cta`'s share of `iters` (grid_div
 * divides by the grid). */
TP_SCHEDULE_FN int32_t tp_schedule_share_begin(tp_fast_div grid_div, int32_t cta, uint32_t iters) {
  return (int32_t)tp_fast_div_quot(grid_div, (uint32_t)cta * iters);
}

/* The CTA of a stream-K grid of `grid` CTAs whose share holds k-block x
 * (stream_div divides by the stream's k-blocks). */
TP_SCHEDULE_FN int32_t tp_schedule_stream_owner(tp_fast_div stream_div, int32_t x, int32_t grid) {
  return (int32_t)tp_fast_div_quot(stream_div, (uint32_t)((x + 1) * grid - 1));
}

#endif
