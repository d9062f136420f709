/* plugins/block_scaled/plan.c: what block_scaled accepts and how it tiles.
 *
 *   mode          A                    B              scales  one scale per
 *   MXFP8 W8A8    e4m3 or e5m2         e4m3 or e5m2   ue8m0   32 K-elements of A and B
 *   MXFP8 W8A16   bf16 (no a_scale)    e4m3 or e5m2   ue8m0   32 K-elements of B
 *   NVFP4         e2m1 (packed)        e2m1           ue4m3   16 K-elements of A and B
 *
 * K must be a multiple of the vector size (a scale never covers a partial
 * vector). a_scale is [M, K/vec] (absent under bf16 A), b_scale [N, K/vec],
 * each either in the SM100 128x4 tiled layout or strided row-major (unit
 * inner stride, row stride >= K/vec). NVFP4's fp32 global scales fold into
 * alpha.
 *
 * The GPU kernels (gpu.c) run MXFP8, W8A16 and W8A8. Asked for the CUDA
 * backend, plan validates as for the CPU, then refuses NVFP4 with
 * TP_ERR_UNSUPPORTED (under TP_BACKEND_AUTO the core then plans it on the
 * CPU) and leaves MXFP8's tiles to gpu_plan. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "plugins/block_scaled/block_scaled.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/error.h"

static const bs_format mxfp8 = {"MXFP8", 32, TP_DTYPE_UE8M0};
static const bs_format nvfp4 = {"NVFP4", 16, TP_DTYPE_UE4M3};

/* An operand's dtype; bf16 only where it is A (activations). */
static tp_status check_operand(const tp_tensor *t, const char *name, int activations, char *err,
                               size_t errlen) {
  if (tp_kit_dtype_is_fp8(t->dtype) || t->dtype == TP_DTYPE_E2M1 ||
      (activations && t->dtype == TP_DTYPE_BF16))
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "%s is %s; block_scaled takes e4m3 or e5m2 (MXFP8) or e2m1 (NVFP4)%s", name,
                     tp_codec_name(t->dtype), activations ? ", or bf16 activations" : "");
}

int block_scaled_a_scaled(const tp_gemm_desc *desc) { return desc->a.dtype != TP_DTYPE_BF16; }

tp_status block_scaled_format(const tp_gemm_desc *desc, const bs_format **fmt, char *err,
                              size_t errlen) {
  tp_dtype a = desc->a.dtype, b = desc->b.dtype;
  tp_status st = check_operand(&desc->a, "A", 1, err, errlen);
  if (st == TP_OK)
    st = check_operand(&desc->b, "B", 0, err, errlen);
  if (st != TP_OK)
    return st;
  if (a == TP_DTYPE_BF16 && b == TP_DTYPE_E2M1)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "A is bf16 and B is e2m1: bf16 activations take MXFP8 weights (e4m3 or "
                       "e5m2); NVFP4 needs e2m1 on both");
  if (a != TP_DTYPE_BF16 && (a == TP_DTYPE_E2M1) != (b == TP_DTYPE_E2M1))
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "A is %s and B is %s: NVFP4 needs e2m1 on both, MXFP8 e4m3/e5m2 on both",
                       tp_codec_name(a), tp_codec_name(b));
  *fmt = b == TP_DTYPE_E2M1 ? &nvfp4 : &mxfp8;
  return TP_OK;
}

/* The format, and a K it takes. */
static tp_status pick_format(const tp_gemm_desc *desc, const bs_format **fmt, char *err,
                             size_t errlen) {
  tp_status st = block_scaled_format(desc, fmt, err, errlen);
  if (st != TP_OK)
    return st;
  if (desc->k % (*fmt)->vec != 0)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "K = %lld is not a multiple of %d: %s has one %s scale per %d K-elements",
                       (long long)desc->k, (*fmt)->vec, (*fmt)->name, tp_codec_name((*fmt)->scale),
                       (*fmt)->vec);
  return TP_OK;
}

static tp_status check_scales(const tp_gemm_desc *desc, const bs_format *fmt, tp_backend backend,
                              char *err, size_t errlen) {
  char a_text[32], b_text[32];
  snprintf(a_text, sizeof a_text, "[M, K/%d]", fmt->vec);
  snprintf(b_text, sizeof b_text, "[N, K/%d]", fmt->vec);
  const tp_kit_scale_rule a_rule = {"a_scale", fmt->scale, desc->m, desc->k / fmt->vec, a_text,
                                    1, 0};
  const tp_kit_scale_rule b_rule = {"b_scale", fmt->scale, desc->n, desc->k / fmt->vec, b_text,
                                    1, 0};
  tp_status st =
      block_scaled_a_scaled(desc)
          ? tp_kit_scale_check(&desc->a_scale, &a_rule, backend, err, errlen)
          : tp_kit_tensor_check_absent(&desc->a_scale, "a_scale",
                                       "bf16 activations are not scaled (MXFP8 W8A16 scales B "
                                       "only)",
                                       err, errlen);
  if (st == TP_OK)
    st = tp_kit_scale_check(&desc->b_scale, &b_rule, backend, err, errlen);
  return st;
}

tp_status block_scaled_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                            tp_payload_plan *out, char *err, size_t errlen) {
  const bs_format *fmt = NULL;
  tp_status st = pick_format(desc, &fmt, err, errlen);
  if (st == TP_OK)
    st = check_scales(desc, fmt, backend, err, errlen);
  if (st != TP_OK)
    return st;
  if (backend == TP_BACKEND_CUDA) {
    if (fmt != &mxfp8)
      return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                         "A %s x B %s (%s) has no GPU kernel; the CPU backend runs it, the GPU "
                         "kernels take MXFP8 (e4m3 or e5m2 B, with bf16 or MXFP8 A)",
                         tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype), fmt->name);
    memset(out, 0, sizeof *out);
    return TP_OK;
  }
  tp_kit_cpu_plan(out, state, desc, fmt->vec);
  return TP_OK;
}
