/* tilepipe/problem.h: a payload's own description of a problem, so that
 * tools and tests can make inputs for any payload, in tree or out, and
 * check its results against an f64 reference (docs/writing-a-payload.md,
 * "The problem slot").
 *
 * Which dtypes A and B default to, which scale tensors a payload takes,
 * how they are shaped and laid out, and what their elements mean is the
 * payload's to know (docs/payloads.md). tp_problem_describe asks it: for a
 * shape and (optionally) the operand dtypes it fills in the scale tensors'
 * descriptors and a tp_problem that says how element (r, k) of A or B is
 * scaled, which values to draw for the scales, and how many significand
 * bits the GPU's running sum keeps. A payload built without the slot
 * describes the plain problem: no scale tensors.
 *
 *     tp_gemm_desc d;
 *     tp_gemm_desc_init(&d, M, N, K);           // A and B NONE: the payload's defaults
 *     d.d.dtype = TP_DTYPE_BF16;                // the payload may read D's (and C's) dtype
 *     tp_problem p = {.struct_size = sizeof p};
 *     tp_problem_describe(reg, "blockwise_fp8", NULL, &d, &p);
 *     // d.a.dtype, d.b.dtype: e4m3; d.a_scale, d.b_scale: f32 [ceil(K/128), M]
 *     // and [ceil(N/128), ceil(K/128)], data NULL; p.a_scale.k == 128 ...
 *
 * Both structs are versioned by their first field, as tilepipe/link.h's:
 * set struct_size to sizeof the struct as you compiled it; later versions
 * only append fields. */
#ifndef TILEPIPE_PROBLEM_H
#define TILEPIPE_PROBLEM_H

#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/registry.h"
#include "tilepipe/status.h"
#include "tilepipe/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How element (r, k) of an operand (r < M for A, r < N for B) is scaled:
 * operand value(r, k) * scale(r, k), scale(r, k) the element of the scale
 * tensor at [r / rows][k / k] (k_first: [k / k][r / rows]); k == 0: one
 * scale for the whole of K (index 0 in that dimension; a rank-1 tensor has
 * only the row dimension). rows == 0: the operand has no scale tensor (the
 * other fields are 0 too).
 *
 *   blockwise_fp8 A  {rows 1,   k 128, k_first 1}  a_scale [ceil(K/128), M]
 *   blockwise_fp8 B  {rows 128, k 128, k_first 0}  b_scale [ceil(N/128), ceil(K/128)]
 *   MXFP8 A and B    {rows 1,   k 32,  k_first 0}  [M or N, ceil(K/32)], strided or 128x4
 *   per-row vectors  {rows 1,   k 0}               a_scale [M], b_scale [N]
 *
 * Indices are logical: a tensor in the 128x4 tiled layout (tensor.h) is
 * indexed [row][col] as any rank-2 tensor. */
typedef struct tp_scale_map {
  int32_t rows, k, k_first;
  /* The values the tool draws for it: 2^e (1 + m), e uniform over
   * [exp_min, exp_min + exp_count), m over the scale dtype's mantissa
   * codes (f32: 2^23 of them; ue4m3 8; ue8m0, which has no mantissa, 1).
   * exp_count >= 1, and the range inside f32's normal exponents
   * [-126, 127]. A payload picks a range its products cannot overflow in
   * and wide enough that a scale applied to the wrong element shows. */
  int32_t exp_min, exp_count;
} tp_scale_map;

/* How a GPU route rounds an operand's elements before it multiplies them
 * (a fold of the scales into the elements, say): element (r, k), its
 * scale applied, is rounded to the nearest multiple of 2^exp times the
 * largest |scale| of its block (so it moves by at most half of that, and
 * not at all where it lies on that grid already). The blocks tile the
 * operand from (0, 0): rows [r - r % rows, + rows) by K [k - k % k, + k),
 * cut at M or N and at K; an operand without a scale tensor has scale 1.
 * rows == 0: the elements are taken exactly (every field 0). The CPU
 * backend takes them exactly whatever this says; the reference widens the
 * GPU's bound by it (tp_ref_rounding_at, tilepipe/reference.h).
 *
 *   MXFP8 W8A8's fold, A  {rows 1,   k 128, exp -9 (e4m3) or -16 (e5m2)}
 *                      B  {rows 128, k 128, the same by B's dtype}
 *
 * (the dtype's smallest subnormal in units of the block's reference scale:
 * an element shifted below the smallest normal is rounded to a subnormal,
 * one that stays normal is a multiple of it already; docs/payloads.md). */
typedef struct tp_operand_rounding {
  int32_t rows, k; /* the block: >= 1 each where rows != 0 */
  int32_t exp;     /* log2 of the grid's step in units of the block's largest scale */
} tp_operand_rounding;

/* What the caller would like of the description. */
typedef struct tp_problem_options {
  uint32_t struct_size; /* sizeof(tp_problem_options), set by the caller */
  /* The scale tensors' layout, for a payload whose scales take several
   * (block_scaled: TP_LAYOUT_SF_128X4 or TP_LAYOUT_STRIDED); one whose
   * scales take one layout ignores it. */
  tp_layout scale_layout;
  /* Spare elements per row of strided rank-2 scale tensors (>= 0), so
   * that a plugin reading past a row's end reads padding, not the next
   * row; a payload may round it up for its own alignment. */
  int64_t pad;
  /* B's scale dtype, for a payload whose weight format it tells apart
   * (block_scaled's e2m1 B: ue4m3 NVFP4, ue8m0 MXFP4); TP_DTYPE_NONE: the
   * payload's default. A payload that describes another refuses the
   * problem. */
  tp_dtype b_scale_dtype;
} tp_problem_options;

/* tp_problem.acc_bits of the usual sums: how many significand bits the
 * running sum behaves as having, fitted to errors measured on the H100
 * (docs/testing.md, "The error model"). */
#define TP_PROBLEM_ACC_BITS_F32 24        /* a sum rounded to f32: integer products, the CPU */
#define TP_PROBLEM_ACC_BITS_WGMMA_16 22   /* Hopper's wgmma on bf16 or f16 (f32 accumulators) */
#define TP_PROBLEM_ACC_BITS_WGMMA_FP8 14  /* Hopper's wgmma on 8- or 4-bit floats */

/* What the scale tensors of a described problem mean. */
typedef struct tp_problem {
  uint32_t struct_size; /* sizeof(tp_problem), set by the caller */
  tp_scale_map a_scale, b_scale;
  /* Significand bits of the GPU's running sum, for the error bound a
   * result is judged by (tilepipe/reference.h): TP_PROBLEM_ACC_BITS_*;
   * 1..53. */
  int32_t acc_bits;
  /* Elements of K the GPU sums in that running sum before it promotes
   * the partial into an f32 accumulator: 128 where a mainloop promotes
   * every scale block (blockwise FP8, MXFP8 W8A8); 0 where the whole of K
   * runs in it. The error bound grows with this length, not with K.
   * Appended in plugin ABI 2.3: a caller whose struct ends before it is
   * served without it. */
  int32_t acc_k;
  /* How the GPU rounds A's and B's elements (tp_operand_rounding; zeroed:
   * exactly). Appended in plugin ABI 2.4, as acc_k was. */
  tp_operand_rounding a_rounding, b_rounding;
} tp_problem;

/* Asks payload section `payload` of reg to describe a problem. desc holds
 * m, n, k (each >= 1), the dtypes of A and B (either may be TP_DTYPE_NONE:
 * the payload's default, written back) and of D and C, which a payload may
 * read (blockwise_fp8 narrows its scale values under an f16 D). On return
 * desc->a.dtype and desc->b.dtype are set (a dtype the caller gave is kept)
 * and desc->a_scale, desc->b_scale are the scale tensors (dtype, layout,
 * shape, strides; data NULL) or absent (zeroed); nothing else of desc
 * changes. *problem says what the scales mean (tp_scale_map) and holds
 * acc_bits, acc_k and the operands' rounding. opt may be NULL: strided
 * scales, no padding.
 *
 * A payload without the problem slot (plugin ABI 2.0, or the slot
 * NULL) gets the plain problem: A defaults to bf16, B to A, no scale
 * tensors, acc_bits TP_PROBLEM_ACC_BITS_WGMMA_FP8 when A or B is an 8- or
 * 4-bit float, TP_PROBLEM_ACC_BITS_F32 when one is s8, else
 * TP_PROBLEM_ACC_BITS_WGMMA_16; acc_k 0; no rounding.
 *
 * Fails, the message naming the payload and the problem: TP_ERR_NOT_FOUND
 * or TP_ERR_INVALID_ARGUMENT as a plan does for a payload that is unknown,
 * disabled or an epilogue, and its own status for a broken one;
 * TP_ERR_INVALID_ARGUMENT for bad arguments (sizes, a struct_size too
 * small, an unknown layout or dtype); the slot's status when it refuses
 * (a dtype the payload does not take: TP_ERR_UNSUPPORTED); TP_ERR_PLUGIN
 * when what the slot wrote does not hold together (a dtype left NONE or
 * changed, a scale tensor without a map or a map without one, a map whose
 * indices fall outside its tensor, an exponent range out of bounds, a
 * rounding with a block below 1 or an exp outside -149..0). On
 * failure desc and *problem (but for struct_size) are left as they were. */
tp_status tp_problem_describe(const tp_registry *reg, const char *payload,
                              const tp_problem_options *opt, tp_gemm_desc *desc,
                              tp_problem *problem);

#ifdef __cplusplus
}
#endif
#endif
