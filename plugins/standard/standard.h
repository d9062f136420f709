/* plugins/standard/standard.h: the standard payload's slots: bf16/f16 or
 * fp8 operands, no scale tensors (docs/payloads.md). Internal to
 * tp_standard.so. */
#ifndef TP_PLUGINS_STANDARD_H
#define TP_PLUGINS_STANDARD_H

#include "tilepipe/plugin/abi.h"

/* A's and B's dtypes: a pair standard takes (plan.c). */
tp_status standard_check_dtypes(const tp_gemm_desc *desc, char *err, size_t errlen);

tp_status standard_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                        tp_payload_plan *out, char *err, size_t errlen);

/* The GPU slots (gpu.c): pick, lay out and parameterise the kernel of
 * device/standard_mainloop.cu on the core's structured kernel. */
tp_status standard_gpu_plan_slot(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                 const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                 tp_gpu_launch *launch, char *err, size_t errlen);
tp_status standard_gpu_args_slot(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                                 const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                                 char *err, size_t errlen);

/* The problem slot (problem.c): no scale tensors. */
tp_status standard_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                           tp_problem *out, char *err, size_t errlen);

#endif
