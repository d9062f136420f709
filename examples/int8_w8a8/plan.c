/* plan.c: what int8_w8a8 accepts, then its tiles.
 *
 *   A, B     s8, [M, K] and [N, K], K-major (the core has checked shapes
 *            and row strides)
 *   a_scale  f32, one scale per row of A: a vector [M], or [M, 1] (a
 *            column, as PyTorch's torch._scaled_mm takes scale_a); the M
 *            scales contiguous: a_scale[m] is element m of the data
 *   b_scale  f32, one scale per row of B (column of D): [N], or [1, N] (a
 *            row, like scale_b); b_scale[n] is element n of the data
 *
 * D, C, alpha, beta and the bias are the epilogue's to judge. Every refusal
 * names the tensor, what it is and what it must be: a dtype the payload
 * does not take is TP_ERR_UNSUPPORTED; a missing or malformed scale tensor
 * TP_ERR_INVALID_ARGUMENT. */
#include <tilepipe/dtype_codec.h>

#include <string.h>

#include "int8_w8a8.h"

tp_status w8a8_check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (t->dtype == TP_DTYPE_S8) return TP_OK;
  return w8a8_fail(err, errlen, TP_ERR_UNSUPPORTED,
                   "%s is %s; int8_w8a8 takes s8 A and B (with f32 per-row a_scale and "
                   "per-column b_scale)",
                   name, tp_codec_name(t->dtype));
}

/* "[3, 1]": the shape of t as text. */
static void shape_text(const tp_tensor *t, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int32_t i = 0; i < t->rank && i < TP_MAX_RANK && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "",
                             (long long)t->shape[i]);
  if (used < size) snprintf(buf + used, size - used, "]");
}

/* What one scale vector must be. */
typedef struct scale_rule {
  const char *name;    /* "a_scale" */
  const char *of;      /* "row of A" */
  const char *dim;     /* "M" */
  int64_t length;      /* M */
  int column;          /* the rank-2 form is [M, 1] (else [1, N]) */
} scale_rule;

static tp_status check_scale(const tp_tensor *t, const scale_rule *r, char *err, size_t errlen) {
  const long long len = (long long)r->length;
  char rank2[64], shape[96]; /* "[M, 1] = [300, 1]", and t's shape */
  if (r->column)
    snprintf(rank2, sizeof rank2, "[%s, 1] = [%lld, 1]", r->dim, len);
  else
    snprintf(rank2, sizeof rank2, "[1, %s] = [1, %lld]", r->dim, len);
  if (t->dtype == TP_DTYPE_NONE)
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                     "%s is missing: int8_w8a8 needs one f32 scale per %s, a vector [%s] = "
                     "[%lld] (tp_tensor_vector) or %s",
                     r->name, r->of, r->dim, len, rank2);
  if (t->dtype != TP_DTYPE_F32)
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s is %s; it must be f32", r->name,
                     tp_codec_name(t->dtype));
  if (t->layout != TP_LAYOUT_STRIDED)
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                     "%s has layout %d; it must be strided (a plain vector)", r->name,
                     (int)t->layout);
  /* The dimension that spans the scales: 0 of [L] and [L, 1], 1 of [1, L]. */
  int dim = -1;
  if (t->rank == 1 && t->shape[0] == r->length)
    dim = 0;
  else if (t->rank == 2 && r->column && t->shape[0] == r->length && t->shape[1] == 1)
    dim = 0;
  else if (t->rank == 2 && !r->column && t->shape[0] == 1 && t->shape[1] == r->length)
    dim = 1;
  shape_text(t, shape, sizeof shape);
  if (dim < 0)
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                     "%s has shape %s; it must be [%s] = [%lld] or %s (one scale per %s)",
                     r->name, shape, r->dim, len, rank2, r->of);
  if (t->stride[dim] != 1)
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                     "%s has stride %lld along %s; its scales must be contiguous (stride 1)",
                     r->name, (long long)t->stride[dim], r->dim);
  return TP_OK;
}

tp_status w8a8_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                    tp_payload_plan *out, char *err, size_t errlen) {
  const scale_rule a_rule = {"a_scale", "row of A", "M", desc->m, 1};
  const scale_rule b_rule = {"b_scale", "row of B (column of D)", "N", desc->n, 0};
  tp_status st = w8a8_check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK) st = w8a8_check_operand(&desc->b, "B", err, errlen);
  if (st == TP_OK) st = check_scale(&desc->a_scale, &a_rule, err, errlen);
  if (st == TP_OK) st = check_scale(&desc->b_scale, &b_rule, err, errlen);
  if (st != TP_OK) return st;
  if (backend == TP_BACKEND_CUDA) {
    /* The kernel's s32 sums of products of at most 2^14 stay exact below
     * 2^31: K < 2^17. The tile is gpu_plan's (gpu.c). */
    if (desc->k >= W8A8_GPU_MAX_K)
      return w8a8_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "K = %lld: the GPU kernel's s32 sums are exact only for K < %d; plan it "
                       "on the CPU backend",
                       (long long)desc->k, W8A8_GPU_MAX_K);
    memset(out, 0, sizeof *out);
    return TP_OK;
  }
  w8a8_cpu_plan(out, state, desc);
  return TP_OK;
}
