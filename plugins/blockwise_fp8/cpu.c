/* plugins/blockwise_fp8/cpu.c: the blockwise FP8 producer on the CPU. The
 * CPU k-block is one 128-K scale block (TP_KIT_CPU_TILE_K == BLOCKWISE_BLOCK),
 * so k-block kb stages, besides A and B, one scale per A row (a_scale row
 * kb) and one per B row (b_scale[(n/128)][kb], repeated over its block's
 * rows); the common consumer multiplies them into each k-block's partial
 * sums. */
#include "tilepipe/plugin/dtype_codec.h"
#include "plugins/blockwise_fp8/blockwise_fp8.h"
#include "tilepipe/plugin/kit/cpu_stage.h"

_Static_assert(TP_KIT_CPU_TILE_K == BLOCKWISE_BLOCK, "a CPU k-block must be one scale block");

void blockwise_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                        int64_t n0, int64_t kb, void *const *stage) {
  const tp_tensor *as = &desc->a_scale, *bs = &desc->b_scale;
  float *sa = stage[TP_KIT_STAGE_SA], *sb = stage[TP_KIT_STAGE_SB];
  tp_kit_cpu_load_operands(plan, desc, m0, n0, kb, stage);
  for (int32_t i = 0; i < plan->tile.tile_m; i++)
    sa[i] = m0 + i < desc->m ? tp_codec_load(TP_DTYPE_F32, as->data, kb * as->stride[0] + m0 + i)
                             : 0.0f;
  for (int32_t i = 0; i < plan->tile.tile_n; i++)
    sb[i] = n0 + i < desc->n ? tp_codec_load(TP_DTYPE_F32, bs->data,
                                             (n0 + i) / BLOCKWISE_BLOCK * bs->stride[0] + kb)
                             : 0.0f;
}
