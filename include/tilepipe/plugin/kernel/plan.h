/* tilepipe/plugin/kernel/plan.h: the structured kernel's plan, what a payload's
 * gpu_plan asks the planner for, and the plan kept between gpu_plan and
 * gpu_args.
 *
 * A payload's gpu_plan fills one tp_kernel_request (the slot's arguments
 * and its mainloop's figures) and hands it to the planner's steps
 * (tilepipe/plugin/kernel/gpu_plan.h), which decide a tp_kernel_plan: the tile,
 * the K split, the tile walk (tilepipe/plugin/kernel/shape.h), the shared memory
 * (tilepipe/plugin/kernel/layout.h), the launch (tilepipe/plugin/kernel/launch.h). The
 * plan is kept in the payload plan's private bytes (tp_kernel_plan_store),
 * and gpu_args reads it back (tp_kernel_plan_load) to fill the kernel's
 * parameters (tilepipe/plugin/kernel/args.h). The planner is compiled into each
 * plugin from the plugin kit: a plugin never links libtilepipe, and its
 * host code and its device code follow the same version of the skeleton.
 * C11. */
#ifndef TILEPIPE_PLUGIN_KERNEL_PLAN_H
#define TILEPIPE_PLUGIN_KERNEL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "tilepipe/dtype.h"
#include "tilepipe/plugin/kernel/params.h"
#include "tilepipe/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the INI may force; 0 leaves a choice to the heuristic. */
typedef struct tp_kernel_tuning {
  int32_t tile_m, tile_n, tile_k;
  int32_t stages;
  int32_t cluster_m, cluster_n;
  int32_t splits;      /* every tile's K split this many ways */
  int32_t tail_splits; /* the partial last wave's tiles split this many ways (1: none) */
  int32_t stream_k;    /* TP_KERNEL_STREAM_ON / _OFF; 0: the heuristic's choice */
} tp_kernel_tuning;

enum { TP_KERNEL_STREAM_OFF = 1, TP_KERNEL_STREAM_ON = 2 };

/* What a payload's gpu_plan asks for: the GEMM and where it runs (the
 * slot's arguments and the INI's tuning), and its mainloop's kernels
 * (tilepipe/plugin/device/kernel_mainloop.h: their names, their parameter struct
 * and the k-tiles and widths they take). Named fields, e.g.
 *
 *   const tp_kernel_request rq = {
 *       .desc = desc, .epilogue = epi, .gpu = gpu, .tuning = &tuning,
 *       .prefix = "tp_int8_w8a8", .operands = "s8",
 *       .params_size = sizeof(w8a8_params),
 *       .kernel_offset = offsetof(w8a8_params, kernel),
 *       .max_tile_n = W8A8_MAX_TILE_N};
 *
 * The mainloop's figures left 0 take the defaults below. */
typedef struct tp_kernel_request {
  const tp_gemm_desc *desc;
  const tp_epilogue_plan *epilogue; /* its source_dtype: C, staged through the kernel */
  const tp_gpu_info *gpu;
  const tp_kernel_tuning *tuning;
  /* Kernels named <prefix>_<operands>_<tile> (tilepipe/plugin/kernel/tiles.h),
   * whose one parameter is params_size bytes with its tp_kernel_params at
   * kernel_offset. */
  const char *prefix, *operands;
  uint32_t params_size, kernel_offset;
  /* K of a k-tile (the INI's tile K); 0: one 128-byte row of the wider
   * operand (tilepipe/plugin/kernel/operands.h), a stage of A and B's. */
  int32_t k_elems;
  int32_t k_group;    /* k-tiles a k-block (one stage) holds; 0: 1 */
  int32_t max_tile_n; /* the widest tile; 0: the table's (TP_KERNEL_MAX_TILE_N) */
  int32_t n_block;    /* tile widths divide it; 0: any */
  /* 1: the kernels are transposed (tilepipe/plugin/device/kernel_mainloop.h):
   * they compute D^T = B A^T, tiles of rows of B by rows of A from tiles.h's
   * transposed table; desc stays the GEMM as given. */
  int32_t transposed;
  /* Stages a step of the mainloop takes at once (its step_stages,
   * tilepipe/plugin/device/kernel_mainloop.h); 0: 1. The plan keeps at
   * least that many, or fails. */
  int32_t step_stages;
} tp_kernel_request;

/* What the planner decided for one GEMM. */
typedef struct tp_kernel_plan {
  tp_storage_layout smem;
  int32_t tile_m, tile_n, cluster_m, raster_m;
  int32_t tiles_m, tiles_n;
  int32_t k_elems, k_blocks; /* K of a k-block; k-blocks per tile */
  int32_t k_group;           /* k-tiles per k-block (one stage: the layout's k_group_size) */
  int32_t max_tile_n;        /* the mainloop's widest tile (its max_tile_n) */
  int32_t n_block;           /* widths divide it (the mainloop's n_block; 0: any) */
  int32_t splits;            /* K split over this many CTAs per tile, */
  int32_t split_from;        /* for the tiles from this one on */
  int32_t split_lead;        /* k-blocks each split hands on to the last */
  /* Stream-K: the tiles from split_from on are one stream of k-blocks that
   * every CTA takes an equal share of (splits: the most CTAs a tile's
   * k-blocks then fall to). */
  int32_t stream_k;
  int32_t transposed; /* the request's: tiles of B's rows (tile_m) by A's (tile_n) */
  /* The schedule's divisors (tilepipe/plugin/kernel/params.h), made once here:
   * gpu_args runs at every launch. */
  tp_fast_div group_div, rows_div, last_rows_div, splits_div;
  int32_t last_group;
  uint32_t stream_iters; /* stream-K: the stream's k-blocks; 0 without */
  tp_fast_div stream_div, k_blocks_div, grid_div;
  int32_t c_staged_first, c_staged_count, c_staged_a_slots;
  int32_t a_rows; /* rows of A's TMA box: 64, fewer only for tp_kernel_plan_operand_tensors */
  /* Bytes of a row of A's and B's k-tile (tilepipe/plugin/kernel/operands.h),
   * set by tp_kernel_plan_operand_tensors; 0 for a mainloop that stages
   * its operands otherwise. */
  int32_t a_row_bytes, b_row_bytes;
  tp_dtype d_dtype, source_dtype;
} tp_kernel_plan;

/* TP_OK where rq names its GEMM, GPU, tuning and kernels; else
 * TP_ERR_INVALID_ARGUMENT, naming the missing field. Every step checks it. */
tp_status tp_kernel_request_check(const tp_kernel_request *rq, char *err, size_t errlen);

/* The GEMM the kernels compute for rq (rq checked): rq->desc, or, with
 * transposed, its transpose: M and N, A and B and their scales swapped (C
 * and D as given: the transposed epilogue reaches them through their own
 * rows). Every planner step plans on it. */
void tp_kernel_request_view(const tp_kernel_request *rq, tp_gemm_desc *view);

/* The planner's decision kept in and read back from plan's private bytes
 * (gpu_plan stores it, gpu_args reads it). */
void tp_kernel_plan_store(const tp_kernel_plan *kp, tp_payload_plan *plan);
void tp_kernel_plan_load(const tp_payload_plan *plan, tp_kernel_plan *kp);

#ifdef __cplusplus
}
#endif

#endif
