/* cpu.c: int8_w8a16's producer on the CPU (cpu_load). The stage format and
 * the consumer are the plugin kit's (tilepipe/plugin/kit/cpu_stage.h): a k-block
 * of A and B decoded to f32, the tile's scales beside them, one per row for
 * the whole k-block (TP_KIT_CPU_GROUP_BLOCK, which plan.c asks for):
 *
 *   stage[0]  A   f32 [tile_m][tile_k]  A(m0 + i, kb*tile_k + j), 0 outside A
 *   stage[1]  B   f32 [tile_n][tile_k]  B(n0 + i, kb*tile_k + j), 0 outside B
 *   stage[2]  SA  f32 [tile_m]          1 (A is not scaled), 0 outside A
 *   stage[3]  SB  f32 [tile_n]          b_scale[n0 + i], 0 outside B
 *
 * and the kit's consumer adds, for each of its rows r and each column n,
 * (SA[r] * SB[n]) * dot(A[r], B[n]). bf16 and s8 decode to f32 exactly and
 * their products are exact; the roundings are the f32 sums. The scales
 * are staged with every k-block because cpu_mma sees only the stage. */
#include <tilepipe/plugin/kit/cpu_stage.h>
#include <tilepipe/plugin/kit/tile_load.h>

#include "int8_w8a16.h"

void w8a16_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                    int64_t n0, int64_t kb, void *const *stage) {
  const tp_tile_config *t = &plan->tile;
  tp_kit_cpu_load_operands(plan, desc, m0, n0, kb, stage);
  float *sa = stage[TP_KIT_STAGE_SA];
  for (int32_t i = 0; i < t->tile_m; i++) sa[i] = m0 + i < desc->m ? 1.0f : 0.0f;
  /* Element n of either form of b_scale is data[n] (plan.c checked the
   * unit stride): a vector, loaded as the one row of a matrix. */
  tp_kit_tile_load_f32(&desc->b_scale, 1, desc->n, 0, n0, 1, t->tile_n, stage[TP_KIT_STAGE_SB]);
}
