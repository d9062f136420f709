/* tools/cublaslt.h: cuBLASLt as the benchmark's comparator, opened at run
 * time with dlopen (libcublasLt.so.<major>, then the toolkit's lib64 from
 * configure), so that the tool neither links nor needs it.
 *
 * It computes what the standard payload computes,
 *     D[M,N] = alpha * A[M,K] x B[N,K]^T (+ beta * C),
 * and what blockwise_fp8 computes (A and B dequantized by their 1 x 128 and
 * 128 x 128 block scales first), on the same device buffers, described by
 * the same tp_gemm_desc; tools/cublaslt_problem.h says which problems it
 * takes. cuBLAS is column-major: our row-major D is its D^T[N,M] =
 * B[N,K] . A^T, so cuBLAS's "A" is our B ([K x N] column-major, ld = B's
 * row stride, transa = T), its "B" is our A ([K x M], ld = A's row stride,
 * transb = N), and C/D are [N x M] with ld = their row strides. So for
 * blockwise_fp8 cuBLAS's A scales are our b_scale (A_SCALE_MODE
 * BLK128x128_32F) and its B scales our a_scale (B_SCALE_MODE VEC128_32F),
 * through A_SCALE_POINTER and B_SCALE_POINTER. Compute type 32F, scale type
 * 32F; fp8 inputs run without fast accumulation (FAST_ACCUM = 0). The
 * algorithm is the first of cublasLtMatmulAlgoGetHeuristic's answers for
 * the given workspace. Every cuBLASLt call's status is checked; a failure
 * names the call and cuBLASLt's status. */
#ifndef TP_TOOLS_CUBLASLT_H
#define TP_TOOLS_CUBLASLT_H

#include <stddef.h>
#include "tilepipe/gemm.h"
#include "tilepipe/status.h"

typedef struct tp_cublaslt tp_cublaslt;
typedef struct tp_cublaslt_gemm tp_cublaslt_gemm;

/* Opens the library and creates a handle (on the current context, which
 * tilepipe's device calls have made current). TP_ERR_NOT_FOUND when the
 * library is not there, TP_ERR_UNSUPPORTED when the tool was built without
 * the CUDA toolkit, TP_ERR_CUDA when cuBLASLt fails; reason in err. */
tp_status tp_cublaslt_open(tp_cublaslt **lt, char *err, size_t errlen);

/* cublasLtGetVersion(): 130000 for 13.0.0. */
size_t tp_cublaslt_version(const tp_cublaslt *lt);

void tp_cublaslt_close(tp_cublaslt *lt);

/* Describes desc's GEMM to cuBLASLt and picks its algorithm.
 * TP_ERR_UNSUPPORTED, with the reason, for a problem cuBLASLt does not take
 * (tp_cublaslt_check_problem, or a toolkit whose headers predate block
 * scaling) or has no algorithm for; TP_ERR_CUDA when a call fails. */
tp_status tp_cublaslt_gemm_create(tp_cublaslt_gemm **gemm, tp_cublaslt *lt,
                                  const tp_gemm_desc *desc, void *workspace,
                                  size_t workspace_bytes, char *err, size_t errlen);

/* Queues the GEMM on `stream` (NULL: the default stream) with desc's data
 * pointers, the scales' included (desc describes the same problem as at
 * creation). */
tp_status tp_cublaslt_gemm_run(const tp_cublaslt_gemm *gemm, const tp_gemm_desc *desc,
                               void *stream, char *err, size_t errlen);

void tp_cublaslt_gemm_destroy(tp_cublaslt_gemm *gemm);

#endif
