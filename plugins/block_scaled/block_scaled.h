/* plugins/block_scaled/block_scaled.h: the block-scaled payload's slots:
 * MXFP8, MXFP4 and NVFP4 weights with bf16, MXFP8 or (4-bit) same-format
 * activations (plan.c's modes), scale factors
 * in the SM100 128x4 tiled layout or plain row-major (docs/payloads.md).
 * Internal to tp_block_scaled.so. */
#ifndef TP_PLUGINS_BLOCK_SCALED_H
#define TP_PLUGINS_BLOCK_SCALED_H

#include "tilepipe/plugin/abi.h"

/* A block-scaled format: MXFP8, MXFP4 or NVFP4. */
typedef struct bs_format {
  const char *name;
  int32_t vec;    /* K-elements per scale */
  tp_dtype scale; /* dtype of its scale tensor */
} bs_format;

/* A problem's formats: B's, A's (NULL under bf16 activations), and the
 * mode's name (W8A16, W8A8, W4A16, W4A8, W4A4). */
typedef struct bs_formats {
  const bs_format *a, *b;
  const char *mode;
} bs_formats;

/* The formats of A's and B's dtypes (and, for e2m1 B, b_scale's dtype),
 * or the refusal of a pair that is none (plan.c). */
tp_status block_scaled_formats(const tp_gemm_desc *desc, bs_formats *f, char *err,
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
