/* plugins/kit/kernel_gpu_plan.c: the structured kernel's planner steps
 * composed as a payload's gpu_plan calls them (tilepipe/plugin/kernel/gpu_plan.h). */
#include "tilepipe/plugin/kernel/gpu_plan.h"
#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kernel/params.h"
#include "tilepipe/plugin/tile.h"

tp_status tp_kernel_plan_finish(tp_kernel_plan *kp, const tp_kernel_request *rq,
                                tp_payload_plan *plan, tp_gpu_launch *launch, char *err,
                                size_t errlen) {
  tp_status st = tp_kernel_plan_lay_out(kp, rq, plan, err, errlen);
  if (st == TP_OK) st = tp_kernel_plan_launch(kp, rq, plan, launch, err, errlen);
  if (st == TP_OK) tp_kernel_plan_store(kp, plan);
  return st;
}

tp_status tp_kernel_plan_operands(const tp_kernel_request *rq, tp_payload_plan *plan,
                                  tp_gpu_launch *launch, char *err, size_t errlen) {
  tp_kernel_plan kp;
  tp_status st = tp_kernel_plan_shape(&kp, rq, err, errlen);
  if (st == TP_OK) st = tp_kernel_plan_operand_tensors(&kp, rq, plan, err, errlen);
  if (st == TP_OK) st = tp_kernel_plan_finish(&kp, rq, plan, launch, err, errlen);
  return st;
}

tp_status tp_kernel_plan_converted_b(const tp_kernel_request *rq, tp_payload_plan *plan,
                                     tp_gpu_launch *launch, char *err, size_t errlen) {
  tp_kernel_plan kp;
  tp_status st = tp_kernel_plan_shape(&kp, rq, err, errlen);
  if (st == TP_OK) st = tp_kernel_plan_operand_tensors(&kp, rq, plan, err, errlen);
  if (st != TP_OK) return st;
  plan->tensors[TP_KERNEL_CONVERTED_B].bytes = (uint32_t)kp.tile_n * TP_KERNEL_ROW_BYTES;
  plan->tensors[TP_KERNEL_CONVERTED_B].align = TP_SWIZZLE_128B_ALIGN;
  plan->num_tensors = TP_KERNEL_CONVERTED_B + 1;
  return tp_kernel_plan_finish(&kp, rq, plan, launch, err, errlen);
}

/* The row factors' k-tiles start 16-byte aligned (TMA's boxes); 128 keeps
 * them off the tiles' swizzle rows' banks. */
#define ROW_FACTORS_ALIGN 128u

tp_status tp_kernel_plan_blockwise(const tp_kernel_request *request, tp_payload_plan *plan,
                                   tp_gpu_launch *launch, char *err, size_t errlen) {
  tp_kernel_request rq = *request;
  rq.k_elems = TP_BLOCKWISE_K;
  rq.k_group = 1;
  rq.step_stages = TP_BLOCKWISE_STEP_BLOCKS;
  rq.max_tile_n = TP_BLOCKWISE_MAX_TILE_N;
  rq.n_block = TP_BLOCKWISE_K;
  tp_kernel_plan kp;
  tp_status st = tp_kernel_plan_shape(&kp, &rq, err, errlen);
  if (st == TP_OK) st = tp_kernel_plan_operand_tensors(&kp, &rq, plan, err, errlen);
  if (st != TP_OK) return st;
  plan->tensors[TP_KERNEL_ROW_FACTORS].bytes = (uint32_t)kp.tile_m * (uint32_t)sizeof(float);
  plan->tensors[TP_KERNEL_ROW_FACTORS].align = ROW_FACTORS_ALIGN;
  plan->num_tensors = TP_KERNEL_ROW_FACTORS + 1u;
  return tp_kernel_plan_finish(&kp, &rq, plan, launch, err, errlen);
}
