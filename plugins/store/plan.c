/* plugins/store/plan.c: what store accepts. D is bf16, f16 or f32. Store
 * reads neither beta nor C; a C given together with a nonzero beta asks for
 * D = alpha*acc + beta*C, which store would silently not compute, so it is
 * refused (C with beta = 0, or beta without C, change nothing and pass). A
 * bias would be ignored just as silently: refused too. */
#include <string.h>

#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/error.h"
#include "plugins/store/store.h"

tp_status store_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                     tp_epilogue_plan *out, char *err, size_t errlen) {
  (void)state;
  (void)backend;
  tp_status st = tp_kit_tensor_check_output(&desc->d, "D", err, errlen);
  if (st != TP_OK)
    return st;
  if (desc->c.dtype != TP_DTYPE_NONE && desc->beta != 0.0f)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "C is given with beta = %g, but store computes D = alpha*acc and reads "
                       "neither: use the residual epilogue, or set beta = 0",
                       (double)desc->beta);
  if (desc->bias.dtype != TP_DTYPE_NONE)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "a bias is given, but store computes D = alpha*acc and does not add one: "
                       "use an epilogue that takes a bias, or leave it absent (dtype none)");
  memset(out, 0, sizeof *out);
  out->source_dtype = TP_DTYPE_NONE;
  return TP_OK;
}
