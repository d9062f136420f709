/* plugins/blockwise_fp8/problem.c: blockwise_fp8's problem
 * (tilepipe/problem.h; the layouts are plan.c's). A and B default to e4m3,
 * the only dtype it takes. With L = ceil(K/128):
 *
 *   a_scale  f32 [L, M]                  map {rows 1, k 128, k_first}
 *   b_scale  f32 [ceil(N/128), L]        map {rows 128, k 128}
 *
 * each row with opt->pad spare elements. The scale values span 2^-8 ..
 * 2^8 (e over -8..7): each k-block's weight in a sum differs from the
 * next by up to 2^16, as quantized activations and weights do, which a
 * misapplied scale cannot hide in. Under an f16 D, whose 65504 their
 * products would overflow, they span 2^-2 .. 2^2. The GPU sums with
 * wgmma's 14-bit running sum. */
#include "plugins/blockwise_fp8/blockwise_fp8.h"

/* The scale values' exponents: wide, and under an f16 D. */
enum { WIDE_EXP_MIN = -8, WIDE_EXP_COUNT = 16, F16_EXP_MIN = -2, F16_EXP_COUNT = 4 };

/* A strided f32 [rows, cols] with `pad` spare elements per row (plugins
 * build descriptors themselves: tp_tensor_matrix is libtilepipe's). */
static tp_tensor f32_matrix(int64_t rows, int64_t cols, int64_t pad) {
  return (tp_tensor){.dtype = TP_DTYPE_F32, .layout = TP_LAYOUT_STRIDED, .rank = 2,
                     .shape = {rows, cols}, .stride = {cols + pad, 1}};
}

tp_status blockwise_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                            tp_problem *out, char *err, size_t errlen) {
  (void)state;
  if (desc->a.dtype == TP_DTYPE_NONE)
    desc->a.dtype = TP_DTYPE_E4M3;
  if (desc->b.dtype == TP_DTYPE_NONE)
    desc->b.dtype = TP_DTYPE_E4M3;
  tp_status st = blockwise_check_operand(&desc->a, "A", err, errlen);
  if (st == TP_OK)
    st = blockwise_check_operand(&desc->b, "B", err, errlen);
  if (st != TP_OK)
    return st;
  const int64_t l = blockwise_blocks(desc->k), row_blocks = blockwise_blocks(desc->n);
  desc->a_scale = f32_matrix(l, desc->m, opt->pad);
  desc->b_scale = f32_matrix(row_blocks, l, opt->pad);
  const int f16 = desc->d.dtype == TP_DTYPE_F16;
  const int32_t exp_min = f16 ? F16_EXP_MIN : WIDE_EXP_MIN;
  const int32_t exp_count = f16 ? F16_EXP_COUNT : WIDE_EXP_COUNT;
  out->a_scale = (tp_scale_map){1, BLOCKWISE_BLOCK, 1, exp_min, exp_count};
  out->b_scale = (tp_scale_map){BLOCKWISE_BLOCK, BLOCKWISE_BLOCK, 0, exp_min, exp_count};
  out->acc_bits = TP_PROBLEM_ACC_BITS_WGMMA_FP8;
  out->acc_k = BLOCKWISE_BLOCK; /* each block's sum promoted into f32 */
  return TP_OK;
}
