/* tilepipe/plugin/kernel/gpu_plan.h: what a payload's gpu_plan calls to plan a
 * GEMM on the structured kernel.
 *
 * A mainloop whose stage holds A's and B's k-tiles alone makes one call:
 *
 *   return tp_kernel_plan_operands(&rq, plan, launch, err, errlen);
 *
 * with its tp_kernel_request (tilepipe/plugin/kernel/plan.h): the tile, the
 * operand tiles sized from the operands' dtypes (tilepipe/plugin/kernel/
 * operands.h: same-width or mixed-width), the shared memory, the launch,
 * and the plan kept for gpu_args. One with more in its stage (a row of
 * scales per k-tile) makes the steps itself:
 *
 *   tp_kernel_plan_shape            the tile, the K split, the cluster,
 *                                   the tile walk (tilepipe/plugin/kernel/shape.h);
 *   tp_kernel_plan_operand_tensors  A's and B's k-tiles as stage tensors 0
 *                                   and 1 (tilepipe/plugin/kernel/layout.h);
 *   (its own tensors after them in plan->tensors, num_tensors counting
 *    them)
 *   tp_kernel_plan_finish           the shared memory (tp_kernel_plan_lay_out),
 *                                   the launch (tp_kernel_plan_launch,
 *                                   tilepipe/plugin/kernel/launch.h), and the plan
 *                                   kept in plan's private bytes.
 *
 * gpu_args then reads the plan back (tp_kernel_plan_load) and fills the
 * kernel's parameters (tilepipe/plugin/kernel/args.h). Every step checks the
 * request and fails with a message that names the problem. C11; compiled
 * into each plugin from the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KERNEL_GPU_PLAN_H
#define TILEPIPE_PLUGIN_KERNEL_GPU_PLAN_H

#include <stddef.h>

#include "tilepipe/plugin/kernel/instances.h"
#include "tilepipe/plugin/kernel/launch.h"
#include "tilepipe/plugin/kernel/layout.h"
#include "tilepipe/plugin/kernel/plan.h"
#include "tilepipe/plugin/kernel/shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Steps 2 and 3 once plan lists its stage tensors, then the plan kept in
 * plan's private bytes. */
tp_status tp_kernel_plan_finish(tp_kernel_plan *kp, const tp_kernel_request *rq,
                                tp_payload_plan *plan, tp_gpu_launch *launch, char *err,
                                size_t errlen);

/* The whole of a gpu_plan for a mainloop whose stage holds A's and B's
 * k-tiles alone: the shape, the operand tensors, and the rest
 * (tp_kernel_plan_finish). */
tp_status tp_kernel_plan_operands(const tp_kernel_request *rq, tp_payload_plan *plan,
                                  tp_gpu_launch *launch, char *err, size_t errlen);

/* The whole of a gpu_plan for a mainloop that converts B in a stage
 * transform (tilepipe/plugin/device/kernel_mainloop.h, convert): A's and
 * B's k-tiles as stage tensors 0 and 1, then tensor TP_KERNEL_CONVERTED_B,
 * which no load fills: the tile's rows of B as one k-block of a 16-bit
 * dtype, 128 bytes a row, 128B-swizzled as wgmma reads them
 * (tp_kernel_mma_converted_b, tilepipe/plugin/device/kernel_operands.h);
 * then the rest (tp_kernel_plan_finish). */
tp_status tp_kernel_plan_converted_b(const tp_kernel_request *rq, tp_payload_plan *plan,
                                     tp_gpu_launch *launch, char *err, size_t errlen);

/* The whole of a gpu_plan for the blockwise-scaled mainloop
 * (tilepipe/plugin/device/blockwise_mainloop.h), whose k-tile is a scale
 * block of TP_BLOCKWISE_K and a stage, TP_BLOCKWISE_STEP_BLOCKS stages a
 * step, its tiles at most TP_BLOCKWISE_MAX_TILE_N wide and dividing a
 * block (rq's k_elems, k_group, step_stages, max_tile_n and n_block are
 * these, whatever rq says):
 * A's and B's k-tiles as stage tensors 0 and 1, then tensor
 * TP_KERNEL_ROW_FACTORS, tile_m f32 per k-tile (the rows' scales, which
 * TMA loads); then the rest (tp_kernel_plan_finish). */
tp_status tp_kernel_plan_blockwise(const tp_kernel_request *rq, tp_payload_plan *plan,
                                   tp_gpu_launch *launch, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
