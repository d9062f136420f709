/* plugins/kit/kernel_launch.c: step 3 of the structured kernel's
 * planner, the launch and the split-K workspace
 * (tilepipe/plugin/kernel/launch.h). */
#include <stdio.h>
#include <string.h>

#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kernel/instances.h"
#include "tilepipe/plugin/kernel/launch.h"
#include "tilepipe/plugin/kernel/schedule.h"

/* The counters' bytes round up to this, so that the partial sums start
 * aligned. */
#define TP_KERNEL_COUNTER_ALIGN 256

/* Tiles whose K is split (or shared out by stream-K): those from
 * split_from on. */
static uint64_t split_tiles(const tp_kernel_plan *kp) {
  return (uint64_t)kp->tiles_m * (uint64_t)kp->tiles_n - (uint64_t)kp->split_from;
}

uint64_t tp_kernel_counter_bytes(const tp_kernel_plan *kp) {
  const uint64_t counters =
      split_tiles(kp) * (uint64_t)(kp->tile_m / TP_KERNEL_WARPGROUP_ROWS) * sizeof(uint32_t);
  return (counters + TP_KERNEL_COUNTER_ALIGN - 1) / TP_KERNEL_COUNTER_ALIGN *
         TP_KERNEL_COUNTER_ALIGN;
}

uint64_t tp_kernel_workspace_bytes(const tp_kernel_plan *kp) {
  if (kp->splits == 1) return 0;
  return tp_kernel_counter_bytes(kp) + split_tiles(kp) * (uint64_t)(kp->splits - 1) *
                                           (uint64_t)kp->tile_m * (uint64_t)kp->tile_n *
                                           sizeof(float);
}

tp_status tp_kernel_plan_launch(const tp_kernel_plan *kp, const tp_kernel_request *rq,
                                tp_payload_plan *plan, tp_gpu_launch *launch, char *err,
                                size_t errlen) {
  tp_status st = tp_kernel_request_check(rq, err, errlen);
  if (st != TP_OK) return st;
  if (kp == NULL || plan == NULL || launch == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "tp_kernel_plan_launch: no %s",
                       kp == NULL ? "kernel plan" : plan == NULL ? "plan" : "launch");
  }
  const tp_kernel_instance *k = tp_kernel_instance_find(kp, kp->tile_m, kp->tile_n);
  memset(launch, 0, sizeof *launch);
  if (k == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "no kernel of tile %dx%d, cluster %d",
                       kp->tile_m, kp->tile_n, kp->cluster_m);
  }
  const int w = snprintf(launch->kernel, sizeof launch->kernel, "%s_%s_%s", rq->prefix,
                         rq->operands, k->suffix);
  if (w < 0 || (size_t)w >= sizeof launch->kernel) {
    return tp_kit_fail(err, errlen, TP_ERR_INTERNAL, "kernel name %s_%s_%s is too long", rq->prefix,
                       rq->operands, k->suffix);
  }
  const int32_t sm_count = rq->gpu->sm_count;
  const int64_t units = TP_SCHEDULE_UNITS(
      (int64_t)tp_schedule_cluster_rows(kp->tiles_m, kp->cluster_m) * kp->tiles_n,
      (int64_t)kp->split_from, kp->splits);
  const int64_t slots = sm_count / kp->cluster_m / kp->splits * kp->splits;
  launch->grid[0] = kp->stream_k ? (uint32_t)sm_count
                                 : (uint32_t)((units < slots ? units : slots) * kp->cluster_m);
  launch->grid[1] = launch->grid[2] = 1;
  launch->block[0] = TP_KERNEL_THREADS;
  launch->block[1] = launch->block[2] = 1;
  launch->cluster[0] = (uint32_t)kp->cluster_m;
  launch->cluster[1] = launch->cluster[2] = 1;
  launch->smem_bytes = kp->smem.total_bytes;
  launch->params_size = rq->params_size;
  launch->epilogue_args_offset =
      rq->kernel_offset + (uint32_t)offsetof(tp_kernel_params, epilogue);
  launch->workspace_bytes = tp_kernel_workspace_bytes(kp);

  plan->tile.tile_m = kp->tile_m;
  plan->tile.tile_n = kp->tile_n;
  plan->tile.tile_k = kp->k_elems / kp->k_group;
  plan->tile.stages = (int32_t)kp->smem.stages;
  plan->tile.k_group_size = kp->k_group;
  plan->tile.cluster_m = kp->cluster_m;
  plan->tile.cluster_n = 1;
  plan->tile.consumers = kp->tile_m / TP_KERNEL_WARPGROUP_ROWS;
  plan->k_blocks = kp->k_blocks;
  return TP_OK;
}
