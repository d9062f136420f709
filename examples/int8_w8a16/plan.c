/* plan.c: what int8_w8a16 accepts, then its tiles.
 *
 *   A        bf16, [M, K], K-major (the core has checked shapes and row
 *            strides)
 *   B        s8, [N, K], K-major
 *   a_scale  absent: activations are not quantized
 *   b_scale  f32, one scale per row of B (column of D): [N], or [1, N] (a
 *            row, as PyTorch's scale_b); b_scale[n] is element n of the data
 *
 * D, C, alpha, beta and the bias are the epilogue's to judge. Every refusal
 * names the tensor, what it is and what it must be: a dtype the payload
 * does not take is TP_ERR_UNSUPPORTED; an a_scale, or a missing or
 * malformed b_scale, TP_ERR_INVALID_ARGUMENT (the kit's rules,
 * tilepipe/plugin/kit/checks.h). */
#include <string.h>

#include <tilepipe/plugin/dtype_codec.h>
#include <tilepipe/plugin/kit/checks.h>
#include <tilepipe/plugin/kit/cpu_stage.h>
#include <tilepipe/plugin/kit/error.h>

#include "int8_w8a16.h"

tp_status w8a16_check_operands(const tp_gemm_desc *desc, char *err, size_t errlen) {
  if (desc->a.dtype != TP_DTYPE_BF16 || desc->b.dtype != TP_DTYPE_S8)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "A is %s and B %s; int8_w8a16 takes bf16 A and s8 B (with an f32 "
                       "per-column b_scale)",
                       tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype));
  return TP_OK;
}

tp_status w8a16_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                     tp_payload_plan *out, char *err, size_t errlen) {
  const tp_kit_scale_vector_rule b_rule = {"b_scale", TP_DTYPE_F32, "row of B (column of D)",
                                           "N", desc->n, 0};
  tp_status st = w8a16_check_operands(desc, err, errlen);
  if (st == TP_OK)
    st = tp_kit_tensor_check_absent(&desc->a_scale, "a_scale",
                                    "int8_w8a16 scales only B; fold a per-tensor scale of A "
                                    "into alpha",
                                    err, errlen);
  if (st == TP_OK) st = tp_kit_scale_check_vector(&desc->b_scale, &b_rule, err, errlen);
  if (st != TP_OK) return st;
  if (backend == TP_BACKEND_CUDA) {
    memset(out, 0, sizeof *out); /* the tile is gpu_plan's (gpu.c) */
    return TP_OK;
  }
  tp_kit_cpu_plan(out, state, desc, TP_KIT_CPU_GROUP_BLOCK);
  return TP_OK;
}
