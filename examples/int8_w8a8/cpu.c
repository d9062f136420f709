/* cpu.c: int8_w8a8's producer on the CPU (cpu_load). The stage format and
 * the consumer are the plugin kit's (tilepipe/plugin/kit/cpu_stage.h): a k-block
 * of A and B decoded to f32, the tile's scales beside them, one per row for
 * the whole k-block (TP_KIT_CPU_GROUP_BLOCK, which plan.c asks for):
 *
 *   stage[0]  A   f32 [tile_m][tile_k]  A(m0 + i, kb*tile_k + j), 0 outside A
 *   stage[1]  B   f32 [tile_n][tile_k]  B(n0 + i, kb*tile_k + j), 0 outside B
 *   stage[2]  SA  f32 [tile_m]          a_scale[m0 + i], 0 outside A
 *   stage[3]  SB  f32 [tile_n]          b_scale[n0 + i], 0 outside B
 *
 * and the kit's consumer adds, for each of its rows r and each column n,
 *
 *   acc[r][n] += (SA[r] * SB[n]) * dot(A[r], B[n])
 *
 * It is exact up to three roundings: s8 codes decode to f32 exactly and
 * |A|, |B| <= 128, so with tile_k <= 128 the dot product and each of its
 * partial sums is an integer of at most 2^21, which f32 holds exactly. The
 * only roundings are f32 ones, three per k-block (the scale product, its
 * product with dot, the sum into acc), so the error is that of summing
 * ceil(K/tile_k) exact partial sums, however large K is. The scales are
 * staged with every k-block because cpu_mma sees only the stage, never the
 * descriptor. */
#include <tilepipe/plugin/kit/cpu_stage.h>
#include <tilepipe/plugin/kit/tile_load.h>

#include "int8_w8a8.h"

_Static_assert(TP_KIT_CPU_TILE_K * 128 * 128 <= (1 << 24),
               "a k-block's dot product must be exact in f32");

void w8a8_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0, int64_t n0,
                   int64_t kb, void *const *stage) {
  const tp_tile_config *t = &plan->tile;
  tp_kit_cpu_load_operands(plan, desc, m0, n0, kb, stage);
  /* Element i of either scale form is data[i] (plan.c checked the unit
   * stride): a vector, loaded as the one row of a matrix. */
  tp_kit_tile_load_f32(&desc->a_scale, 1, desc->m, 0, m0, 1, t->tile_m, stage[TP_KIT_STAGE_SA]);
  tp_kit_tile_load_f32(&desc->b_scale, 1, desc->n, 0, n0, 1, t->tile_n, stage[TP_KIT_STAGE_SB]);
}
