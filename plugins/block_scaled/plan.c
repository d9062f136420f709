/* plugins/block_scaled/plan.c: what block_scaled accepts and how it tiles.
 *
 * Each operand is in a block-scaled format, A possibly plain bf16 (the
 * activations of a weight-only mode):
 *
 *   format   elements                 scales  one scale per
 *   MXFP8    e4m3 or e5m2             ue8m0   32 K-elements of a row
 *   MXFP4    e2m1 (packed, two a byte) ue8m0  32
 *   NVFP4    e2m1 (packed)            ue4m3   16 (its f32 global scale folds into alpha)
 *
 * B's format follows its dtype and, for e2m1, b_scale's dtype; A is bf16
 * (no a_scale), MXFP8, or e2m1 in B's own 4-bit format:
 *
 *   mode    A                  B
 *   W8A16   bf16               MXFP8
 *   W8A8    MXFP8              MXFP8
 *   W4A16   bf16               NVFP4 or MXFP4
 *   W4A8    MXFP8              NVFP4 or MXFP4
 *   W4A4    NVFP4 (MXFP4)      NVFP4 (MXFP4)
 *
 * K must be a multiple of each format's vector (a scale never covers a
 * partial vector). a_scale is [M, K/vec_a], b_scale [N, K/vec_b], each
 * either in the SM100 128x4 tiled layout or strided row-major (unit inner
 * stride, row stride >= K/vec).
 *
 * The GPU kernels (gpu.c) run W8A16, W8A8, W4A16 and W4A4. Asked for the
 * CUDA backend, plan validates as for the CPU, then refuses W4A8 with
 * TP_ERR_UNSUPPORTED (under TP_BACKEND_AUTO the core then plans it on the
 * CPU) and leaves the others' tiles to gpu_plan. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "plugins/block_scaled/block_scaled.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/error.h"

static const bs_format mxfp8 = {"MXFP8", 32, TP_DTYPE_UE8M0};
static const bs_format mxfp4 = {"MXFP4", 32, TP_DTYPE_UE8M0};
static const bs_format nvfp4 = {"NVFP4", 16, TP_DTYPE_UE4M3};

int block_scaled_a_scaled(const tp_gemm_desc *desc) { return desc->a.dtype != TP_DTYPE_BF16; }

/* An operand's dtype; bf16 only where it is A (activations). */
static tp_status check_operand(const tp_tensor *t, const char *name, int activations, char *err,
                               size_t errlen) {
  if (tp_kit_dtype_is_fp8(t->dtype) || t->dtype == TP_DTYPE_E2M1 ||
      (activations && t->dtype == TP_DTYPE_BF16))
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "%s is %s; block_scaled takes e4m3 or e5m2 (MXFP8) or e2m1 (NVFP4, MXFP4)%s",
                     name, tp_codec_name(t->dtype), activations ? ", or bf16 activations" : "");
}

/* e2m1 B's format, told by b_scale's dtype. */
static tp_status fp4_format(const tp_gemm_desc *desc, const bs_format **fmt, char *err,
                            size_t errlen) {
  if (desc->b_scale.dtype == TP_DTYPE_UE4M3) {
    *fmt = &nvfp4;
  } else if (desc->b_scale.dtype == TP_DTYPE_UE8M0) {
    *fmt = &mxfp4;
  } else {
    const int missing = desc->b_scale.dtype == TP_DTYPE_NONE;
    return tp_kit_fail(err, errlen, missing ? TP_ERR_INVALID_ARGUMENT : TP_ERR_UNSUPPORTED,
                       "b_scale is %s: e2m1 B takes ue4m3 scales per 16 K-elements (NVFP4) or "
                       "ue8m0 per 32 (MXFP4)",
                       missing ? "missing" : tp_codec_name(desc->b_scale.dtype));
  }
  return TP_OK;
}

tp_status block_scaled_formats(const tp_gemm_desc *desc, bs_formats *f, char *err,
                               size_t errlen) {
  const tp_dtype a = desc->a.dtype, b = desc->b.dtype;
  tp_status st = check_operand(&desc->a, "A", 1, err, errlen);
  if (st == TP_OK) st = check_operand(&desc->b, "B", 0, err, errlen);
  if (st != TP_OK) return st;
  if (b != TP_DTYPE_E2M1) {
    if (a == TP_DTYPE_E2M1)
      return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                         "A is e2m1 and B is %s: 4-bit A takes 4-bit B in its format (W4A4); "
                         "MXFP8 B takes bf16 or MXFP8 A",
                         tp_codec_name(b));
    f->b = &mxfp8;
    f->a = a == TP_DTYPE_BF16 ? NULL : &mxfp8;
    f->mode = a == TP_DTYPE_BF16 ? "W8A16" : "W8A8";
    return TP_OK;
  }
  st = fp4_format(desc, &f->b, err, errlen);
  if (st != TP_OK) return st;
  f->a = a == TP_DTYPE_BF16 ? NULL : a == TP_DTYPE_E2M1 ? f->b : &mxfp8;
  f->mode = a == TP_DTYPE_BF16 ? "W4A16" : a == TP_DTYPE_E2M1 ? "W4A4" : "W4A8";
  return TP_OK;
}

/* The formats, and a K they take. */
static tp_status pick_formats(const tp_gemm_desc *desc, bs_formats *f, char *err,
                              size_t errlen) {
  tp_status st = block_scaled_formats(desc, f, err, errlen);
  if (st != TP_OK)
    return st;
  const bs_format *fmts[2] = {f->a, f->b};
  for (int i = 0; i < 2; i++)
    if (fmts[i] != NULL && desc->k % fmts[i]->vec != 0)
      return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                         "K = %lld is not a multiple of %d: %s's %s has one %s scale per %d "
                         "K-elements",
                         (long long)desc->k, fmts[i]->vec, i ? "B" : "A", fmts[i]->name,
                         tp_codec_name(fmts[i]->scale), fmts[i]->vec);
  return TP_OK;
}

static tp_status check_scale(const tp_tensor *t, const char *name, const bs_format *fmt,
                             int64_t rows, const char *dim, int64_t k, tp_backend backend,
                             char *err, size_t errlen) {
  char text[32];
  snprintf(text, sizeof text, "[%s, K/%d]", dim, fmt->vec);
  const tp_kit_scale_rule rule = {name, fmt->scale, rows, k / fmt->vec, text, 1, 0};
  return tp_kit_scale_check(t, &rule, backend, err, errlen);
}

static tp_status check_scales(const tp_gemm_desc *desc, const bs_formats *f, tp_backend backend,
                              char *err, size_t errlen) {
  char why[64];
  snprintf(why, sizeof why, "bf16 activations are not scaled (%s scales B only)", f->mode);
  tp_status st =
      f->a != NULL
          ? check_scale(&desc->a_scale, "a_scale", f->a, desc->m, "M", desc->k, backend, err,
                        errlen)
          : tp_kit_tensor_check_absent(&desc->a_scale, "a_scale", why, err, errlen);
  if (st == TP_OK)
    st = check_scale(&desc->b_scale, "b_scale", f->b, desc->n, "N", desc->k, backend, err,
                     errlen);
  return st;
}

tp_status block_scaled_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                            tp_payload_plan *out, char *err, size_t errlen) {
  bs_formats f;
  tp_status st = pick_formats(desc, &f, err, errlen);
  if (st == TP_OK)
    st = check_scales(desc, &f, backend, err, errlen);
  if (st != TP_OK)
    return st;
  if (backend == TP_BACKEND_CUDA) {
    if (f.b != &mxfp8 && f.a == &mxfp8)
      return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                         "A %s x B %s (%s %s) has no GPU kernel; the CPU backend runs it, the "
                         "GPU kernels take MXFP8 B (with bf16 or MXFP8 A) and NVFP4 or MXFP4 B "
                         "with bf16 A or A in B's format (W4A16, W4A4)",
                         tp_codec_name(desc->a.dtype), tp_codec_name(desc->b.dtype), f.b->name,
                         f.mode);
    memset(out, 0, sizeof *out);
    return TP_OK;
  }
  /* A stage group is the finer of the two vectors; the coarser operand's
   * scale repeats over its groups (cpu.c). */
  const int32_t group = f.a != NULL && f.a->vec < f.b->vec ? f.a->vec : f.b->vec;
  tp_kit_cpu_plan(out, state, desc, group);
  return TP_OK;
}
