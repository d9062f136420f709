/* problem.c: int8_w8a8's problem slot (tilepipe/problem.h): what `tilepipe
 * run --verify`, `link`, `warm` and `bench` make for this payload and how
 * they check it, with no knowledge of it in the tool.
 *
 * A and B default to s8, the only dtype it takes. a_scale is an f32
 * vector [M], one scale per row of A, and b_scale [N], one per row of B:
 * the map {rows 1, k 0}, one scale for the whole of K. Their values are
 * 2^e (1 + m) with e over -12..-5, so in [2^-12, 2^-4): positive like the
 * absmax/127 scales of real int8 quantization, spread over 8 octaves so
 * that a misapplied scale shows, and small enough that a sum of K products
 * (each up to 2^14) stays inside f16 for K up to 2^16. The integer sums
 * are exact, so results are judged with f32's 24-bit roundoff on the GPU
 * too. */
#include "int8_w8a8.h"

enum { SCALE_EXP_MIN = -12, SCALE_EXP_COUNT = 8 };

/* A contiguous f32 vector [n] (a plugin builds descriptors itself:
 * tp_tensor_vector is libtilepipe's, which plugins never link). */
static tp_tensor f32_vector(int64_t n) {
  return (tp_tensor){.dtype = TP_DTYPE_F32, .layout = TP_LAYOUT_STRIDED, .rank = 1,
                     .shape = {n}, .stride = {1}};
}

tp_status w8a8_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                       tp_problem *out, char *err, size_t errlen) {
  (void)state;
  (void)opt; /* vectors have no rows to pad and one layout */
  if (desc->a.dtype == TP_DTYPE_NONE) desc->a.dtype = TP_DTYPE_S8;
  if (desc->b.dtype == TP_DTYPE_NONE) desc->b.dtype = TP_DTYPE_S8;
  tp_status st = w8a8_check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK) st = w8a8_check_operand(&desc->b, "B", err, errlen);
  if (st != TP_OK) return st;
  desc->a_scale = f32_vector(desc->m);
  desc->b_scale = f32_vector(desc->n);
  out->a_scale = (tp_scale_map){.rows = 1, .k = 0, .exp_min = SCALE_EXP_MIN,
                                .exp_count = SCALE_EXP_COUNT};
  out->b_scale = out->a_scale;
  out->acc_bits = TP_PROBLEM_ACC_BITS_F32;
  return TP_OK;
}
