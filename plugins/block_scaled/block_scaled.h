/* plugins/block_scaled/block_scaled.h: the block-scaled payload's slots:
 * MXFP8 (W8A8, and W8A16 under bf16 activations) and NVFP4, scale factors
 * in the SM100 128x4 tiled layout or plain row-major (docs/payloads.md).
 * Internal to tp_block_scaled.so. */
#ifndef TP_PLUGINS_BLOCK_SCALED_H
#define TP_PLUGINS_BLOCK_SCALED_H

#include "tilepipe/plugin/abi.h"

/* A block-scaled format: MXFP8 or NVFP4. */
typedef struct bs_format {
  const char *name;
  int32_t vec;    /* K-elements per scale */
  tp_dtype scale; /* dtype of both scale tensors */
} bs_format;

/* The format of A's and B's dtypes (B's, under bf16 activations: MXFP8
 * W8A16), or the refusal of a pair that is none (plan.c). */
tp_status block_scaled_format(const tp_gemm_desc *desc, const bs_format **fmt, char *err,
                              size_t errlen);

/* Whether A carries scales: not under bf16 activations (W8A16). */
int block_scaled_a_scaled(const tp_gemm_desc *desc);

tp_status block_scaled_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                            tp_payload_plan *out, char *err, size_t errlen);
void block_scaled_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                           int64_t n0, int64_t kb, void *const *stage);

/* The GPU slots (gpu.c): MXFP8 W8A16 only. */
tp_status block_scaled_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                                const tp_epilogue_plan *epi, tp_payload_plan *plan,
                                tp_gpu_launch *launch, char *err, size_t errlen);
tp_status block_scaled_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                                const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                                char *err, size_t errlen);

/* The problem slot (problem.c). */
tp_status block_scaled_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                               tp_problem *out, char *err, size_t errlen);

#endif
