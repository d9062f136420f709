/* plugins/standard/gpu.c: the standard payload on the GPU, host side.
 *
 * gpu_plan picks one of the kernels of device/standard_mainloop.cu through
 * the planner for the structured kernel (tilepipe/plugin/kernel/gpu_plan.h: the
 * tile, split-K, the cluster, shared memory, the grid; a stage holds the
 * k-block's A and B tiles). gpu_args fills the kernel's parameters for
 * each run (tilepipe/plugin/kernel/args.h). */
#include <stddef.h>

#include "tilepipe/plugin/kit/error.h"
#include "tilepipe/plugin/kit/tuning.h"
#include "plugins/standard/device/standard_params.h"
#include "plugins/standard/standard.h"
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kernel/args.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"

/* The operands' part of the kernel name (standard_params.h). */
static const char *operands_name(tp_dtype a, tp_dtype b) {
#define STANDARD_OPERANDS_NAME(NAME, A, B) \
  if (a == A && b == B) return #NAME;
  TP_STANDARD_OPERANDS(STANDARD_OPERANDS_NAME)
#undef STANDARD_OPERANDS_NAME
  return NULL;
}

tp_status standard_gpu_plan_slot(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                 const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                 tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_kit_tuning *tu = state;
  const char *operands = operands_name(desc->a.dtype, desc->b.dtype);
  if (operands == NULL) {
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED, "no GPU kernel for %s x %s operands",
                       tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype));
  }
  const tp_kernel_request rq = {.desc = desc,
                                .epilogue = epi,
                                .gpu = gpu,
                                .tuning = &tu->kernel,
                                .prefix = "tp_standard",
                                .operands = operands,
                                .params_size = sizeof(tp_standard_params),
                                .kernel_offset = offsetof(tp_standard_params, kernel)};
  return tp_kernel_plan_operands(&rq, plan, launch, err, errlen);
}

tp_status standard_gpu_args_slot(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                                 const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                                 char *err, size_t errlen) {
  (void)epi;
  tp_kernel_plan kp;
  tp_kernel_plan_load(plan, &kp);
  tp_standard_params *p = params;
  tp_status st = tp_kernel_operands_fill(&kp, desc, host, &p->ab, err, errlen);
  if (st == TP_OK) st = tp_kernel_args_fill(&kp, plan, desc, host, &p->kernel, err, errlen);
  return st;
}
