/* tilepipe/plugin/kernel/launch.h: step 3 of planning a GEMM on the structured
 * kernel: the launch, and the split-K workspace.
 *
 * The launch names the kernel <prefix>_<operands>_<tile>
 * (tilepipe/plugin/kernel/tiles.h), sizes the persistent grid, the block, the
 * cluster and the shared memory, says where the epilogue's arguments sit
 * in the kernel's parameter, and asks the core for the device workspace
 * that split-K and stream-K meet in: one counter per split tile and
 * consumer warpgroup (tp_kernel_counter_bytes, 256-byte aligned), then the
 * partial sums of every split but a tile's last (tile_m x tile_n f32
 * each), laid out as tilepipe/internal/kernel/kernel_consumer.h reads them. C11;
 * compiled into each plugin from the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KERNEL_LAUNCH_H
#define TILEPIPE_PLUGIN_KERNEL_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "tilepipe/plugin/kernel/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Step 3: the launch of rq's kernel for plan kp, and the tile
 * configuration of `plan`. One CTA per work unit up to a CTA per SM: the
 * grid is a whole number of tiles' splits, so that a tail's split tiles
 * start a wave of it and the last split of a tile only ever waits for
 * CTAs of lower index. */
tp_status tp_kernel_plan_launch(const tp_kernel_plan *kp, const tp_kernel_request *rq,
                                tp_payload_plan *plan, tp_gpu_launch *launch, char *err,
                                size_t errlen);

/* The workspace's counters, in bytes (its partial sums follow them). */
uint64_t tp_kernel_counter_bytes(const tp_kernel_plan *kp);

/* The whole workspace, in bytes; 0 where no tile is split. */
uint64_t tp_kernel_workspace_bytes(const tp_kernel_plan *kp);

#ifdef __cplusplus
}
#endif

#endif
