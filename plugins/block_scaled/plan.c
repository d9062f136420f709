/* plugins/block_scaled/plan.c: what block_scaled accepts and how it tiles.
 *
 *   format  A, B                      scales (both)  one scale per
 *   MXFP8   e4m3 or e5m2, any pairing ue8m0          32 K-elements
 *   NVFP4   e2m1 (packed), both       ue4m3          16 K-elements
 *
 * K must be a multiple of the vector size (a scale never covers a partial
 * vector). a_scale is [M, K/vec], b_scale [N, K/vec], each either in the SM100
 * 128x4 tiled layout or strided row-major (unit inner stride, row stride >=
 * K/vec). NVFP4's fp32 global scales fold into alpha. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/dtype_codec.h"
#include "plugins/block_scaled/block_scaled.h"
#include "plugins/common/checks.h"
#include "plugins/common/cpu_stage.h"
#include "plugins/common/errmsg.h"

/* A 128x4 scale atom holds 4 scale columns. */
#define SF_ATOM_COLS 4

static const bs_format mxfp8 = {"MXFP8", 32, TP_DTYPE_UE8M0};
static const bs_format nvfp4 = {"NVFP4", 16, TP_DTYPE_UE4M3};

static tp_status check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (tpc_is_fp8(t->dtype) || t->dtype == TP_DTYPE_E2M1)
    return TP_OK;
  return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
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
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
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
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
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
  const tpc_scale_rule a_rule = {"a_scale", fmt->scale, desc->m, desc->k / fmt->vec, a_text, 1, 1};
  const tpc_scale_rule b_rule = {"b_scale", fmt->scale, desc->n, desc->k / fmt->vec, b_text, 1, 1};
  tp_status st = tpc_check_scale(&desc->a_scale, &a_rule, backend, err, errlen);
  if (st == TP_OK)
    st = tpc_check_scale(&desc->b_scale, &b_rule, backend, err, errlen);
  return st;
}

/* On the CUDA backend the tile is the GPU planner's; a GPU k-block (the
 * INI's tile K, else one 128-byte row of A) must cover whole 4-column
 * scale atoms, as TMA copies them from the tiled layout. */
static tp_status plan_cuda(tp_payload_plan *out, const tpc_tuning *tuning,
                           const tp_gemm_desc *desc, const bs_format *fmt, char *err,
                           size_t errlen) {
  const int32_t tile_k =
      tuning->kernel.tile_k ? tuning->kernel.tile_k : 128 * 8 / (int32_t)tp_codec_bits(desc->a.dtype);
  memset(out, 0, sizeof *out);
  if (tile_k % (fmt->vec * SF_ATOM_COLS) != 0)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "tile K %d is not a multiple of %d: a k-block must cover whole 4-column %s "
                    "scale atoms",
                    tile_k, fmt->vec * SF_ATOM_COLS, fmt->name);
  return TP_OK;
}

tp_status block_scaled_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                            tp_payload_plan *out, char *err, size_t errlen) {
  const bs_format *fmt = NULL;
  tp_status st = pick_format(desc, &fmt, err, errlen);
  if (st == TP_OK)
    st = check_scales(desc, fmt, backend, err, errlen);
  if (st != TP_OK)
    return st;
  if (backend == TP_BACKEND_CUDA)
    return plan_cuda(out, state, desc, fmt, err, errlen);
  tpc_cpu_plan(out, state, desc, fmt->vec);
  return TP_OK;
}
