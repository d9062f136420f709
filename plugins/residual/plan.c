/* plugins/residual/plan.c: what residual accepts. D is bf16, f16 or f32; C
 * is D's dtype or f32 (the core has checked its shape and strides, which may
 * differ from D's). beta != 0 needs C. beta == 0 reads no C, whatever it
 * holds (NaN included, as BLAS): source_dtype is then NONE, which is also
 * what tells the CPU slot and the GPU kernel not to load C. Residual adds
 * no bias: one given is refused rather than silently ignored. */
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/error.h"
#include "plugins/residual/residual.h"

tp_status residual_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                        tp_epilogue_plan *out, char *err, size_t errlen) {
  (void)state;
  (void)backend;
  const tp_dtype c = desc->c.dtype, d = desc->d.dtype;
  tp_status st = tp_kit_tensor_check_output(&desc->d, "D", err, errlen);
  if (st != TP_OK)
    return st;
  if (c == TP_DTYPE_NONE && desc->beta != 0.0f)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "C is missing: residual computes D = alpha*acc + beta*C and beta = %g; "
                       "give C (it may be D itself), or set beta = 0",
                       (double)desc->beta);
  if (c != TP_DTYPE_NONE && c != d && c != TP_DTYPE_F32)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "C is %s; it must be D's dtype (%s) or f32", tp_codec_name(c),
                       tp_codec_name(d));
  if (desc->bias.dtype != TP_DTYPE_NONE)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "a bias is given, but residual computes D = alpha*acc + beta*C and does not "
                       "add one: use an epilogue that takes a bias, or leave it absent (dtype "
                       "none)");
  memset(out, 0, sizeof *out);
  out->source_dtype = desc->beta != 0.0f ? c : TP_DTYPE_NONE;
  return TP_OK;
}
