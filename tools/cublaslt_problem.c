/* tools/cublaslt_problem.c: see cublaslt_problem.h. */
#include <stdint.h>
#include <stdio.h>

#include "tools/cublaslt_problem.h"

static int fp8(tp_dtype t) { return t == TP_DTYPE_E4M3 || t == TP_DTYPE_E5M2; }

int tp_cublaslt_is_blockwise(const tp_gemm_desc *d) {
  return d->a_scale.dtype == TP_DTYPE_F32 && fp8(d->a.dtype) && fp8(d->b.dtype);
}

/* Whether t is an f32 strided matrix of rows x cols, element stride 1. */
static int f32_matrix(const tp_tensor *t, int64_t rows, int64_t cols) {
  return t->dtype == TP_DTYPE_F32 && t->layout == TP_LAYOUT_STRIDED && t->rank == 2 &&
         t->shape[0] == rows && t->shape[1] == cols && t->stride[1] == 1;
}

static tp_status refuse(char *err, size_t errlen, const char *why) {
  snprintf(err, errlen, "%s", why);
  return TP_ERR_UNSUPPORTED;
}

/* The rules of cuBLASLt's VEC128_32F x BLK128x128_32F block scaling. */
static tp_status check_blockwise(const tp_gemm_desc *d, size_t version, char *err,
                                 size_t errlen) {
  const int64_t l = (d->k + 127) / 128, l4 = (l + 3) / 4 * 4;
  if (version < TP_CUBLASLT_BLOCKWISE_VERSION) {
    snprintf(err, errlen,
             "cuBLASLt %zu has no blockwise FP8 scaling (VEC128_32F, BLK128x128_32F: %d and "
             "later)",
             version, TP_CUBLASLT_BLOCKWISE_VERSION);
    return TP_ERR_UNSUPPORTED;
  }
  if (!f32_matrix(&d->a_scale, l, d->m) || !f32_matrix(&d->b_scale, (d->n + 127) / 128, l))
    return refuse(err, errlen,
                  "cuBLASLt's block scaling takes 1x128 and 128x128 block scales only: f32 "
                  "a_scale [ceil(K/128), M] and b_scale [ceil(N/128), ceil(K/128)]");
  if (d->m % 4 != 0 || d->n % 4 != 0) {
    snprintf(err, errlen,
             "cuBLASLt's block scaling needs M and N multiples of 4 (M = %lld, N = %lld)",
             (long long)d->m, (long long)d->n);
    return TP_ERR_UNSUPPORTED;
  }
  if (d->a_scale.stride[0] != d->m) {
    snprintf(err, errlen,
             "cuBLASLt's VEC128 scales have no row stride: a_scale's must be M = %lld, not %lld",
             (long long)d->m, (long long)d->a_scale.stride[0]);
    return TP_ERR_UNSUPPORTED;
  }
  if (d->b_scale.stride[0] != l4) {
    snprintf(err, errlen,
             "cuBLASLt's BLK128x128 scales are rows of ceil(K/128) rounded up to 4: b_scale's "
             "stride must be %lld, not %lld",
             (long long)l4, (long long)d->b_scale.stride[0]);
    return TP_ERR_UNSUPPORTED;
  }
  if (tp_dtype_bits(d->d.dtype) < 16) {
    snprintf(err, errlen, "cuBLASLt's block scaling writes a bf16, f16 or f32 D, not %s",
             tp_dtype_name(d->d.dtype));
    return TP_ERR_UNSUPPORTED;
  }
  const void *scales[2] = {d->a_scale.data, d->b_scale.data};
  for (int i = 0; i < 2; i++)
    if ((uintptr_t)scales[i] % 16 != 0) {
      snprintf(err, errlen, "cuBLASLt needs 16-byte aligned scales; %s is not",
               i == 0 ? "a_scale" : "b_scale");
      return TP_ERR_UNSUPPORTED;
    }
  return TP_OK;
}

tp_status tp_cublaslt_check_problem(const tp_gemm_desc *d, size_t version, char *err,
                                    size_t errlen) {
  const int scaled = d->a_scale.dtype != TP_DTYPE_NONE || d->b_scale.dtype != TP_DTYPE_NONE;
  if (scaled && !tp_cublaslt_is_blockwise(d))
    return refuse(err, errlen,
                  "cuBLASLt comparison: unscaled problems and blockwise FP8 (f32 1x128 and "
                  "128x128 scales of fp8 operands) only");
  if (d->c.dtype != TP_DTYPE_NONE && d->c.dtype != d->d.dtype) {
    snprintf(err, errlen, "cuBLASLt comparison: C must have D's dtype (C %s, D %s)",
             tp_dtype_name(d->c.dtype), tp_dtype_name(d->d.dtype));
    return TP_ERR_UNSUPPORTED;
  }
  return scaled ? check_blockwise(d, version, err, errlen) : TP_OK;
}
