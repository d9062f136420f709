/* problem.c: int8_w8a16's problem slot (tilepipe/problem.h): what
 * `tilepipe run --verify`, `link`, `warm` and `bench` make for this payload
 * and how they check it, with no knowledge of it in the tool.
 *
 * A defaults to bf16 and B to s8, the only dtypes it takes. b_scale is an
 * f32 vector [N], one scale per row of B: the map {rows 1, k 0}, one scale
 * for the whole of K. Its values are 2^e (1 + m) with e over -8..-1, so in
 * [2^-8, 1): positive like the absmax/127 scales of real int8 weights,
 * spread over 8 octaves so that a misapplied scale shows. The GPU's
 * products are bf16 x bf16 summed in f32, judged with f32's 24-bit
 * roundoff. */
#include "int8_w8a16.h"

enum { SCALE_EXP_MIN = -8, SCALE_EXP_COUNT = 8 };

tp_status w8a16_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                        tp_problem *out, char *err, size_t errlen) {
  (void)state;
  (void)opt; /* a vector has no rows to pad and one layout */
  if (desc->a.dtype == TP_DTYPE_NONE) desc->a.dtype = TP_DTYPE_BF16;
  if (desc->b.dtype == TP_DTYPE_NONE) desc->b.dtype = TP_DTYPE_S8;
  tp_status st = w8a16_check_operands(desc, err, errlen);
  if (st != TP_OK) return st;
  /* A descriptor built here: tp_tensor_vector is libtilepipe's, which
   * plugins never link. */
  desc->b_scale = (tp_tensor){.dtype = TP_DTYPE_F32, .layout = TP_LAYOUT_STRIDED, .rank = 1,
                              .shape = {desc->n}, .stride = {1}};
  out->b_scale = (tp_scale_map){.rows = 1, .k = 0, .exp_min = SCALE_EXP_MIN,
                                .exp_count = SCALE_EXP_COUNT};
  out->acc_bits = TP_PROBLEM_ACC_BITS_F32;
  return TP_OK;
}
