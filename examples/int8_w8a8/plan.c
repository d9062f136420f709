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
 * TP_ERR_INVALID_ARGUMENT (the kit's scale-vector rule,
 * tilepipe/plugin/kit/checks.h). */
#include <string.h>

#include <tilepipe/plugin/dtype_codec.h>
#include <tilepipe/plugin/kit/checks.h>
#include <tilepipe/plugin/kit/cpu_stage.h>
#include <tilepipe/plugin/kit/error.h>

#include "int8_w8a8.h"

tp_status w8a8_check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (t->dtype == TP_DTYPE_S8) return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "%s is %s; int8_w8a8 takes s8 A and B (with f32 per-row a_scale and "
                     "per-column b_scale)",
                     name, tp_codec_name(t->dtype));
}

tp_status w8a8_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                    tp_payload_plan *out, char *err, size_t errlen) {
  const tp_kit_scale_vector_rule a_rule = {"a_scale", TP_DTYPE_F32, "row of A", "M", desc->m, 1};
  const tp_kit_scale_vector_rule b_rule = {"b_scale", TP_DTYPE_F32, "row of B (column of D)", "N",
                                           desc->n, 0};
  tp_status st = w8a8_check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK) st = w8a8_check_operand(&desc->b, "B", err, errlen);
  if (st == TP_OK) st = tp_kit_scale_check_vector(&desc->a_scale, &a_rule, err, errlen);
  if (st == TP_OK) st = tp_kit_scale_check_vector(&desc->b_scale, &b_rule, err, errlen);
  if (st != TP_OK) return st;
  if (backend == TP_BACKEND_CUDA) {
    /* The kernel's s32 sums of products of at most 2^14 stay exact below
     * 2^31: K < 2^17. The tile is gpu_plan's (gpu.c). */
    if (desc->k >= W8A8_GPU_MAX_K)
      return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                         "K = %lld: the GPU kernel's s32 sums are exact only for K < %d; plan "
                         "it on the CPU backend",
                         (long long)desc->k, W8A8_GPU_MAX_K);
    memset(out, 0, sizeof *out);
    return TP_OK;
  }
  /* One scale per row of A and of B along the whole of K: one group per
   * k-block of the kit's CPU stage (cpu.c). */
  tp_kit_cpu_plan(out, state, desc, TP_KIT_CPU_GROUP_BLOCK);
  return TP_OK;
}
