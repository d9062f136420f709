/* plugins/standard/problem.c: standard's problem (tilepipe/problem.h): A
 * and B default to bf16 (B to A's dtype when only A is given, and the
 * other way round), no scale tensors; the GPU sums fp8 products with
 * wgmma's 14-bit running sum, 16-bit ones in its f32 accumulators, over the
 * whole of K. */
#include "tilepipe/plugin/kit/checks.h"
#include "plugins/standard/standard.h"

tp_status standard_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                           tp_problem *out, char *err, size_t errlen) {
  (void)state;
  (void)opt;
  if (desc->a.dtype == TP_DTYPE_NONE)
    desc->a.dtype = desc->b.dtype != TP_DTYPE_NONE ? desc->b.dtype : TP_DTYPE_BF16;
  if (desc->b.dtype == TP_DTYPE_NONE)
    desc->b.dtype = desc->a.dtype;
  tp_status st = standard_check_dtypes(desc, err, errlen);
  if (st == TP_OK)
    out->acc_bits = tp_kit_dtype_is_fp8(desc->a.dtype) ? TP_PROBLEM_ACC_BITS_WGMMA_FP8
                                                       : TP_PROBLEM_ACC_BITS_WGMMA_16;
  return st;
}
