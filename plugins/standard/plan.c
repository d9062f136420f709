/* plugins/standard/plan.c: what standard accepts and how it tiles.
 *
 * A and B: both bf16, both f16, or each of e4m3 / e5m2 (fp8 pairs with fp8
 * only: Hopper's wgmma takes no mixed 8/16-bit operands). No scale tensors:
 * per-tensor scales of fp8 operands fold into alpha. */
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/error.h"
#include "plugins/standard/standard.h"

static tp_status check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (tp_kit_dtype_is_half(t->dtype) || tp_kit_dtype_is_fp8(t->dtype))
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "%s is %s; standard takes bf16, f16, e4m3 or e5m2", name,
                     tp_codec_name(t->dtype));
}

tp_status standard_check_dtypes(const tp_gemm_desc *desc, char *err, size_t errlen) {
  tp_dtype a = desc->a.dtype, b = desc->b.dtype;
  tp_status st = check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK)
    st = check_operand(&desc->b, "B", err, errlen);
  if (st == TP_OK && (tp_kit_dtype_is_half(a) || tp_kit_dtype_is_half(b)) && a != b)
    st = tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                     "A is %s and B is %s: bf16 and f16 operands need the same dtype on both "
                     "(fp8 takes e4m3 and e5m2 in any pairing)",
                     tp_codec_name(a), tp_codec_name(b));
  return st;
}

tp_status standard_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                        tp_payload_plan *out, char *err, size_t errlen) {
  static const char why[] = "standard has no scale tensors; fold per-tensor scales into alpha";
  tp_status st = standard_check_dtypes(desc, err, errlen);
  if (st == TP_OK)
    st = tp_kit_tensor_check_absent(&desc->a_scale, "a_scale", why, err, errlen);
  if (st == TP_OK)
    st = tp_kit_tensor_check_absent(&desc->b_scale, "b_scale", why, err, errlen);
  if (st != TP_OK)
    return st;
  /* On the CUDA backend the tile is the GPU planner's (gpu.c). */
  if (backend == TP_BACKEND_CUDA)
    memset(out, 0, sizeof *out);
  else
    tp_kit_cpu_plan(out, state, desc, 0);
  return TP_OK;
}
