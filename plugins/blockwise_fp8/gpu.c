/* plugins/blockwise_fp8/gpu.c: the blockwise FP8 payload on the GPU, host
 * side.
 *
 * gpu_plan picks one of device/blockwise_fp8_mainloop.cu's kernels through
 * the planner for the skeleton's blockwise-scaled mainloop
 * (tp_kernel_plan_blockwise, tilepipe/plugin/kernel/gpu_plan.h: a k-tile
 * and a stage one 128-wide scale block, with the rows' a_scale beside A;
 * TP_BLOCKWISE_STEP_BLOCKS stages a step of the mainloop). gpu_args fills the kernel's parameters for
 * each run (tilepipe/plugin/kernel/args.h), a_scale's TMA descriptor and
 * where B's scales are. */
#include <stddef.h>

#include "plugins/blockwise_fp8/blockwise_fp8.h"
#include "plugins/blockwise_fp8/device/blockwise_fp8_params.h"
#include "tilepipe/plugin/kit/tuning.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"

tp_status blockwise_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             const tp_epilogue_plan *epi, tp_payload_plan *plan,
                             tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_kit_tuning *tu = state;
  const tp_kernel_request rq = {.desc = desc,
                                .epilogue = epi,
                                .gpu = gpu,
                                .tuning = &tu->kernel,
                                .prefix = "tp_blockwise_fp8",
                                .operands = "e4m3",
                                .params_size = sizeof(tp_blockwise_fp8_params),
                                .kernel_offset = offsetof(tp_blockwise_fp8_params, kernel)};
  return tp_kernel_plan_blockwise(&rq, plan, launch, err, errlen);
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
  if (st == TP_OK)
    st = tp_kernel_blockwise_a_scale(&kp, host, as->data, as->shape[0], as->shape[1],
                                     as->stride[0], &p->a_scale, err, errlen);
  if (st == TP_OK) st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  p->b_scale = bs->data;
  p->b_scale_ld = bs->stride[0];
  return st;
}
