/* plugins/block_scaled/gpu.c: the block-scaled payload on the GPU, host
 * side (MXFP8 W8A16; plan.c refuses the CUDA backend for the other modes
 * before gpu_plan is asked).
 *
 * gpu_plan picks one of device/block_scaled_mainloop.cu's kernels through
 * the planner for the structured kernel (tilepipe/plugin/kernel/gpu_plan.h).
 * A stage holds a k-block of 64 of K: the operand tiles the planner sizes
 * from the dtypes (bf16 A in 128-byte rows, fp8 B in 64-byte ones,
 * tilepipe/plugin/kernel/operands.h), then the tensor that no load fills,
 * B scaled and converted to bf16 by the kernel's convert step
 * (tp_kernel_plan_converted_b). gpu_args fills the kernel's parameters for each run
 * (tilepipe/plugin/kernel/args.h) and says where B's scales are and how
 * they are laid out. */
#include <stddef.h>

#include "plugins/block_scaled/block_scaled.h"
#include "plugins/block_scaled/device/block_scaled_params.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"
#include "tilepipe/plugin/kit/tuning.h"

tp_status block_scaled_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_kit_tuning *tu = state;
  const tp_kernel_request rq = {.desc = desc,
                                .epilogue = epi,
                                .gpu = gpu,
                                .tuning = &tu->kernel,
                                .prefix = "tp_block_scaled",
                                .operands = "bf16_mx8",
                                .params_size = sizeof(tp_block_scaled_params),
                                .kernel_offset = offsetof(tp_block_scaled_params, kernel)};
  return tp_kernel_plan_converted_b(&rq, plan, launch, err, errlen);
}

tp_status block_scaled_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                                const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                                char *err, size_t errlen) {
  (void)epi;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  tp_block_scaled_params *p = params;
  const tp_tensor *bs = &desc->b_scale;
  tp_status st = tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  if (st == TP_OK) st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  p->b_scale = bs->data;
  p->b_scale_tiled = bs->layout == TP_LAYOUT_SF_128X4;
  p->b_scale_ld = p->b_scale_tiled ? 0 : bs->stride[0];
  p->b_scale_cols = (int32_t)(desc->k / BLOCK_SCALED_MX_VEC);
  p->b_e5m2 = desc->b.dtype == TP_DTYPE_E5M2;
  return st;
}
