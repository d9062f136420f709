/* plugins/blockwise_fp8/gpu.c: the blockwise FP8 payload on the GPU, host
 * side.
 *
 * gpu_plan picks one of device/blockwise_fp8_mainloop.cu's kernels through
 * the core's planner for the structured kernel (tilepipe/kernel/plan.h): a
 * k-block is a step of BLOCKWISE_STEP_BLOCKS 128-wide scale blocks, tiles
 * are at most BLOCKWISE_MAX_TILE_N wide, and a stage holds the step's A and
 * B tiles and its rows of a_scale for the tile's rows (tile_m f32 each,
 * one TMA box).
 * gpu_args fills the kernel's parameters for each run (tilepipe/kernel/
 * args.h), a_scale's TMA descriptor and where B's scales are. */
#include <stddef.h>

#include "plugins/blockwise_fp8/blockwise_fp8.h"
#include "plugins/blockwise_fp8/device/blockwise_fp8_params.h"
#include "plugins/common/errmsg.h"
#include "plugins/common/tuning.h"
#include "tilepipe/kernel/args.h"

/* a_scale's TMA boxes land 16-byte aligned; 128 keeps them off the tiles'
 * swizzle rows' banks. */
#define BLOCKWISE_SCALE_ALIGN 128u

tp_status blockwise_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             const tp_epilogue_plan *epi, tp_payload_plan *plan,
                             tp_gpu_launch *launch, char *err, size_t errlen) {
  const tpc_tuning *tu = state;
  tp_kernel_plan kp;
  /* The kernels' k-block is a step of BLOCKWISE_STEP_BLOCKS scale blocks;
   * the INI's tile K is one scale block (tuning.c checks it). */
  tp_kernel_tuning kt = tu->kernel;
  kt.tile_k = 0;
  tp_status st = tp_kernel_plan_shape(&kp, &kt, desc, epi->source_dtype, gpu,
                                      BLOCKWISE_BLOCK * BLOCKWISE_STEP_BLOCKS,
                                      BLOCKWISE_MAX_TILE_N, err, errlen);
  if (st != TP_OK) return st;
  tp_kernel_plan_operand_tensors(&kp, plan);
  plan->tensors[0].bytes *= BLOCKWISE_STEP_BLOCKS; /* a scale block's A tile each */
  plan->tensors[1].bytes *= BLOCKWISE_STEP_BLOCKS;
  plan->tensors[2].bytes = BLOCKWISE_STEP_BLOCKS * (uint32_t)kp.tile_m * (uint32_t)sizeof(float);
  plan->tensors[2].align = BLOCKWISE_SCALE_ALIGN;
  plan->num_tensors = 3;
  return tp_kernel_plan_finish(&kp, tu->kernel.stages, gpu, "tp_blockwise_fp8", "e4m3",
                               sizeof(tp_blockwise_fp8_params),
                               offsetof(tp_blockwise_fp8_params, kernel), plan, launch, err,
                               errlen);
}

tp_status blockwise_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                             const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                             char *err, size_t errlen) {
  (void)epi;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  tp_blockwise_fp8_params *p = params;
  /* The core has checked every pointer for TMA's 16-byte alignment. */
  const tp_tensor *as = &desc->a_scale, *bs = &desc->b_scale;
  tp_status st = tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  if (st == TP_OK) {
    tp_tma_2d r = {.dtype = TP_DTYPE_F32,
                   .global = as->data,
                   .rows = as->shape[0],
                   .cols = as->shape[1],
                   .row_stride = as->stride[0],
                   .box_rows = BLOCKWISE_STEP_BLOCKS,
                   .box_cols = (uint32_t)kp.tile_m,
                   .swizzle = 0};
    st = host->tma_encode_2d(&p->a_scale, &r, err, errlen);
  }
  if (st == TP_OK) st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  p->b_scale = bs->data;
  p->b_scale_ld = bs->stride[0];
  return st;
}
