/* plugins/block_scaled/plan.c: what block_scaled accepts and how it tiles.
 *
 *   format  A, B                      scales (both)  one scale per
 *   MXFP8   e4m3 or e5m2, any pairing ue8m0          32 K-elements
 *   NVFP4   e2m1 (packed), both       ue4m3          16 K-elements
 *
 * K must be a multiple of the vector size (a scale never covers a partial
 * vector). a_scale is [M, K/vec], b_scale [N, K/vec], each either in the SM100
 * 128x4 tiled layout or strided row-major (unit inner stride, row stride >=
 * K/vec). NVFP4's fp32 global scales fold into alpha.
 *
 * block_scaled has no GPU kernel, so its rules are the CPU backend's for
 * either backend: asked for the CUDA backend, plan validates as for the CPU
 * and leaves the tiles to a gpu_plan it does not have; the core refuses the
 * CUDA backend itself (the payload carries no device code). */
#include <stdio.h>
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "plugins/block_scaled/block_scaled.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/error.h"

static const bs_format mxfp8 = {"MXFP8", 32, TP_DTYPE_UE8M0};
static const bs_format nvfp4 = {"NVFP4", 16, TP_DTYPE_UE4M3};

static tp_status check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (tp_kit_dtype_is_fp8(t->dtype) || t->dtype == TP_DTYPE_E2M1)
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "%s is %s; block_scaled takes e4m3 or e5m2 (MXFP8) or e2m1 (NVFP4)", name,
                     tp_codec_name(t->dtype));
}

tp_status block_scaled_format(const tp_gemm_desc *desc, const bs_format **fmt, char *err,
                              size_t errlen) {
  tp_dtype a = desc->a.dtype, b = desc->b.dtype;
  tp_status st = check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK)
    st = check_operand(&desc->b, "B", err, errlen);
  if (st != TP_OK)
    return st;
  if ((a == TP_DTYPE_E2M1) != (b == TP_DTYPE_E2M1))
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "A is %s and B is %s: NVFP4 needs e2m1 on both, MXFP8 e4m3/e5m2 on both",
                       tp_codec_name(a), tp_codec_name(b));
  *fmt = a == TP_DTYPE_E2M1 ? &nvfp4 : &mxfp8;
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
  tp_status st = tp_kit_scale_check(&desc->a_scale, &a_rule, backend, err, errlen);
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
    memset(out, 0, sizeof *out);
    return TP_OK;
  }
  tp_kit_cpu_plan(out, state, desc, fmt->vec);
  return TP_OK;
}
