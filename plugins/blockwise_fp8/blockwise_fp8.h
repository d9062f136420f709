/* plugins/blockwise_fp8/blockwise_fp8.h: the blockwise FP8 payload's slots
 * (DeepSeek-V3 scaling; the layouts are in docs/payloads.md). Internal to
 * tp_blockwise_fp8.so. */
#ifndef TP_PLUGINS_BLOCKWISE_FP8_H
#define TP_PLUGINS_BLOCKWISE_FP8_H

#include "tilepipe/plugin/abi.h"

/* One scale covers 128 K-elements of an A row, and 128x128 elements of B. */
#define BLOCKWISE_BLOCK 128

/* Blocks of 128 that cover n elements. */
static inline int64_t blockwise_blocks(int64_t n) {
  return (n + BLOCKWISE_BLOCK - 1) / BLOCKWISE_BLOCK;
}

/* An operand blockwise_fp8 takes: e4m3 (plan.c). */
tp_status blockwise_check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen);

tp_status blockwise_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                         tp_payload_plan *out, char *err, size_t errlen);
void blockwise_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                        int64_t n0, int64_t kb, void *const *stage);

/* The GPU slots (gpu.c): pick, lay out and parameterise the kernel of
 * device/blockwise_fp8_mainloop.cu on the core's structured kernel. */
tp_status blockwise_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                             const tp_epilogue_plan *epi, tp_payload_plan *plan,
                             tp_gpu_launch *launch, char *err, size_t errlen);
tp_status blockwise_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epi,
                             const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                             char *err, size_t errlen);

/* The problem slot (problem.c). */
tp_status blockwise_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                            tp_problem *out, char *err, size_t errlen);

#endif
