/* tools/cublaslt_problem.h: which problems the benchmark's cuBLASLt
 * comparator (tools/cublaslt.h) takes, decided on the descriptor alone,
 * with no library and no GPU: a problem refused here is a row "not
 * compared" with this reason, and a CPU test holds the rules.
 *
 * Two problems, told apart by their scale tensors, whichever payload
 * describes them:
 *   - the plain GEMM, no scales: C absent or of D's dtype;
 *   - blockwise FP8 (docs/payloads.md), f32 a_scale [L, M] and b_scale
 *     [ceil(N/128), L] with L = ceil(K/128), which cuBLASLt computes from
 *     cuBLAS 12.9 on (cublasLtGetVersion() >= 120900; on SM90 only, which
 *     its heuristic knows) with cuBLAS's B (our A) scaled per 1 x 128
 *     (CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F) and its A (our B) per
 *     128 x 128 (CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F). cuBLAS's
 *     documented rules for these modes: fp8 A and B; M and N multiples of
 *     4; VEC128 scales outer-dimension-major with no row stride of their
 *     own, so a_scale's must be M; BLK128x128 scales K-major with rows
 *     L4 = L rounded up to 4, so b_scale's stride must be L4; scale
 *     pointers 16-byte aligned; D of bf16, f16 or f32, and C (the
 *     residual's source, beta * C) of D's dtype. */
#ifndef TP_TOOLS_CUBLASLT_PROBLEM_H
#define TP_TOOLS_CUBLASLT_PROBLEM_H

#include <stddef.h>
#include "tilepipe/gemm.h"
#include "tilepipe/status.h"

/* The first cuBLASLt with blockwise FP8 scaling: 12.9.0. */
#define TP_CUBLASLT_BLOCKWISE_VERSION 120900

/* Whether desc is the blockwise FP8 problem: f32 scales of 8-bit float
 * operands (the shapes are check_problem's to judge). */
int tp_cublaslt_is_blockwise(const tp_gemm_desc *desc);

/* TP_OK when a cuBLASLt of `version` (cublasLtGetVersion()) can be asked
 * for desc's problem; else TP_ERR_UNSUPPORTED and the rule it breaks in
 * err. Scale pointers are checked when set (not NULL). */
tp_status tp_cublaslt_check_problem(const tp_gemm_desc *desc, size_t version, char *err,
                                    size_t errlen);

#endif
