/* plugins/block_scaled/problem.c: block_scaled's problem
 * (tilepipe/problem.h; the formats and modes are plan.c's). With neither
 * dtype given, MXFP8 W8A16 (bf16 A, e4m3 B: the mode with a GPU kernel); A
 * given, B follows it (e4m3 under bf16 A, A's own dtype else); B given, A
 * follows it. e2m1 B is NVFP4 unless the options ask for ue8m0 scales
 * (opt->b_scale_dtype: MXFP4); 4-bit A is in B's format, fp8 A MXFP8,
 * bf16 A has no a_scale. The scale tensors are [rows, ceil(K/vec)] of
 * each operand's own vector, map {rows 1, k vec}, in opt->scale_layout
 * (the 128x4 tiled layout, or strided with opt->pad spare elements per
 * row). A K that is not a multiple of a vector still gets a scale per
 * started vector, so that its plan says why it refuses, not a shape of 0.
 * Scale values 2^e (1 + m) with e over -2..2 for ue8m0 (whose codes are
 * powers of two) and -2..1 for ue4m3, so in [1/4, 4]: their products keep
 * an f16 D far from overflow. The GPU sums fp8 products with wgmma's
 * 14-bit running sum, bf16 ones (W8A16, W4A16) in f32. MXFP8 W8A8's fold
 * (device/fold.h) rounds an element that falls below its dtype's smallest
 * normal to a subnormal: the problem says so (tp_operand_rounding), per
 * fold block (A's rows alone, B's 128 rows, each 128 of K). */
#include <string.h>

#include "plugins/block_scaled/block_scaled.h"
#include "plugins/block_scaled/device/block_scaled_params.h"
#include "tilepipe/plugin/kernel/params.h"

/* The scale values' exponents: from 2^-2, five octaves of ue8m0 (2^-2 ..
 * 2^2), four of ue4m3 (its 8 mantissas each, to 3.75). */
enum { SCALE_EXP_MIN = -2, UE8M0_EXP_COUNT = 5, UE4M3_EXP_COUNT = 4 };

/* One operand's scales: `rows` rows (M or N) of `cols` K-vectors (plugins
 * build descriptors themselves: tp_tensor_matrix is libtilepipe's; the
 * tiled layout has no strides). */
static tp_tensor scales(const bs_format *fmt, int64_t rows, int64_t cols,
                        const tp_problem_options *opt) {
  const int tiled = opt->scale_layout == TP_LAYOUT_SF_128X4;
  return (tp_tensor){.dtype = fmt->scale,
                     .layout = tiled ? TP_LAYOUT_SF_128X4 : TP_LAYOUT_STRIDED,
                     .rank = 2,
                     .shape = {rows, cols},
                     .stride = {tiled ? 0 : cols + opt->pad, tiled ? 0 : 1}};
}

/* An operand's scales of format fmt over `rows` rows, and their map. */
static void describe_scales(const bs_format *fmt, int64_t rows, int64_t k,
                            const tp_problem_options *opt, tp_tensor *t, tp_scale_map *map) {
  *t = scales(fmt, rows, (k + fmt->vec - 1) / fmt->vec, opt);
  const int32_t count = fmt->scale == TP_DTYPE_UE8M0 ? UE8M0_EXP_COUNT : UE4M3_EXP_COUNT;
  *map = (tp_scale_map){1, fmt->vec, 0, SCALE_EXP_MIN, count};
}

/* The fold's rounding of an fp8 operand whose fold blocks span `rows`
 * rows: to the dtype's smallest subnormal (e4m3 2^-9, e5m2 2^-16) in
 * units of the block's largest scale, the reference's. */
static tp_operand_rounding fold_rounding(tp_dtype dtype, int32_t rows) {
  return (tp_operand_rounding){rows, BLOCK_SCALED_FOLD_BLOCK, dtype == TP_DTYPE_E5M2 ? -16 : -9};
}

tp_status block_scaled_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                               tp_problem *out, char *err, size_t errlen) {
  (void)state;
  if (desc->a.dtype == TP_DTYPE_NONE)
    desc->a.dtype = desc->b.dtype != TP_DTYPE_NONE ? desc->b.dtype : TP_DTYPE_BF16;
  if (desc->b.dtype == TP_DTYPE_NONE)
    desc->b.dtype = desc->a.dtype == TP_DTYPE_BF16 ? TP_DTYPE_E4M3 : desc->a.dtype;
  /* e2m1 B's format comes from its scales' dtype: NVFP4 unless asked. */
  if (desc->b.dtype == TP_DTYPE_E2M1)
    desc->b_scale.dtype =
        opt->b_scale_dtype != TP_DTYPE_NONE ? opt->b_scale_dtype : TP_DTYPE_UE4M3;
  bs_formats f;
  tp_status st = block_scaled_formats(desc, &f, err, errlen);
  if (st != TP_OK)
    return st;
  describe_scales(f.b, desc->n, desc->k, opt, &desc->b_scale, &out->b_scale);
  if (f.a != NULL)
    describe_scales(f.a, desc->m, desc->k, opt, &desc->a_scale, &out->a_scale);
  if (f.a != NULL && desc->a.dtype != TP_DTYPE_E2M1) { /* W8A8, W4A8 */
    out->acc_bits = TP_PROBLEM_ACC_BITS_WGMMA_FP8;
    out->acc_k = TP_BLOCKWISE_K; /* folded into blockwise FP8's form: a promotion per block */
    if (strcmp(f.mode, "W8A8") == 0) {
      out->a_rounding = fold_rounding(desc->a.dtype, 1);
      out->b_rounding = fold_rounding(desc->b.dtype, BLOCK_SCALED_FOLD_ROWS);
    }
  } else { /* W8A16, W4A16, W4A4: operands converted to bf16 exactly, bf16 products
              summed by wgmma */
    out->acc_bits = TP_PROBLEM_ACC_BITS_WGMMA_16;
  }
  return TP_OK;
}
