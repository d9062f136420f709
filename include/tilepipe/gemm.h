/* tilepipe/gemm.h: the GEMM descriptor.
 *
 *     D[M,N] = epilogue(alpha * (A[M,K] x B[N,K]^T), beta, C[M,N], bias[N])
 *
 * A and B are K-major (each row holds K consecutive elements: the layout of
 * LLM activations and weights). D and C are row-major. Accumulation is f32.
 * The payload decides which dtypes A and B may have and what the scale
 * tensors mean (docs/payloads.md); the epilogue decides how alpha, beta and C
 * combine (the plain store ignores beta and C; the residual epilogue computes
 * D = alpha*acc + beta*C), and whether it takes the per-column bias (neither
 * shipped epilogue does: both refuse one; examples/bias_silu does). An
 * epilogue refuses the operands it would ignore. Per-tensor scales of fp8 or
 * fp4 operands, and the NVFP4 global scale, fold into alpha.
 *
 * Versioned by its first field, as the plugin ABI's structs are:
 * tp_gemm_desc_init sets struct_size to sizeof the struct as the caller
 * compiled it, and later versions only append fields. The library reads a
 * descriptor only up to its struct_size: fields an older caller's lacks
 * read as absent, and fields of a newer caller's that the library does not
 * know are left unread. It refuses a struct_size of 0 (a descriptor that
 * skipped tp_gemm_desc_init) or one smaller than the first version's
 * fields. */
#ifndef TILEPIPE_GEMM_H
#define TILEPIPE_GEMM_H

#include <stdint.h>
#include "tilepipe/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest M, N or K, and the largest extent of any tensor, that a plan
 * takes: 2^31 - 1, so that every index into one dimension fits an int32_t
 * on the device. tp_plan_create refuses more with TP_ERR_UNSUPPORTED. */
#define TP_GEMM_MAX_DIM ((int64_t)INT32_MAX)

typedef struct tp_gemm_desc {
  uint32_t struct_size; /* sizeof(tp_gemm_desc), set by tp_gemm_desc_init */
  int64_t m, n, k;
  tp_tensor a;       /* [M, K], stride [lda, 1] */
  tp_tensor b;       /* [N, K], stride [ldb, 1] */
  tp_tensor a_scale; /* payload-specific; dtype NONE when the payload takes none */
  tp_tensor b_scale;
  tp_tensor c;       /* [M, N] source of the epilogue; dtype NONE when absent */
  tp_tensor d;       /* [M, N], stride [ldd, 1]; may be the same memory as C */
  float alpha;
  float beta;
  /* [N] vector, rank 1 (or [1, N]), for epilogues that take one; dtype NONE
   * when absent. Contiguous (unit stride along N; the row stride of [1, N]
   * is never used); bias[n] applies to column n of D. */
  tp_tensor bias;
} tp_gemm_desc;

/* Zeroes *desc, then sets struct_size = sizeof(tp_gemm_desc), m, n, k and
 * alpha = 1, beta = 0. */
void tp_gemm_desc_init(tp_gemm_desc *desc, int64_t m, int64_t n, int64_t k);

#ifdef __cplusplus
}
#endif
#endif
