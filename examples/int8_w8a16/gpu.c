/* gpu.c: the int8_w8a16 payload on the GPU, host side.
 *
 * gpu_plan picks one of int8_w8a16_kernel.cu's kernels through tilepipe's
 * planner for the structured kernel (<tilepipe/plugin/kernel/gpu_plan.h>). A
 * stage holds a k-block of 64 elements of K: the operand tiles the planner
 * sizes from the dtypes (bf16 A in 128-byte rows, s8 B in 64-byte ones,
 * tilepipe/plugin/kernel/operands.h), then the tensor that no load fills, B
 * converted to bf16 by the kernel's convert step
 * (tp_kernel_plan_converted_b).
 * gpu_args fills the kernel's parameters for each run
 * (<tilepipe/plugin/kernel/args.h>) and adds the scale vector. */
#include <stddef.h>

#include <tilepipe/plugin/kernel/args.h>
#include <tilepipe/plugin/kernel/gpu_plan.h>
#include <tilepipe/plugin/kit/tuning.h>

#include "int8_w8a16.h"
#include "int8_w8a16_params.h"

tp_status w8a16_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                         const tp_epilogue_plan *epilogue, tp_payload_plan *plan,
                         tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_kit_tuning *t = state;
  const tp_kernel_request rq = {.desc = desc,
                                .epilogue = epilogue,
                                .gpu = gpu,
                                .tuning = &t->kernel,
                                .prefix = "tp_int8_w8a16",
                                .operands = "bf16_s8",
                                .params_size = sizeof(w8a16_params),
                                .kernel_offset = offsetof(w8a16_params, kernel)};
  return tp_kernel_plan_converted_b(&rq, plan, launch, err, errlen);
}

tp_status w8a16_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epilogue,
                         const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                         char *err, size_t errlen) {
  (void)epilogue;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  w8a16_params *p = params;
  tp_status st = tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  if (st == TP_OK) st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  p->b_scale = desc->b_scale.data;
  return st;
}
