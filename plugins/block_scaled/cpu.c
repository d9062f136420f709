/* plugins/block_scaled/cpu.c: the block-scaled producer on the CPU. Besides
 * A and B, k-block kb stages each operand row's scales for the K-groups the
 * block covers (groups of the finer format's vector: a 32-vector's scale
 * stands for two 16-groups beside NVFP4), decoded to f32 (A's all 1 under
 * bf16 activations): groups
 * whose K lies past the matrix are staged as 0 and never read (in the
 * tiled layout they are padding that may hold anything, NaN codes
 * included). */
#include "tilepipe/plugin/dtype_codec.h"
#include "plugins/block_scaled/block_scaled.h"
#include "tilepipe/plugin/kit/cpu_stage.h"

/* Byte offset of scale (row, col) of a [rows, cols] scale tensor: in the
 * SM100 tiled layout (see tensor.h), 512-byte atoms of 128 rows x 4
 * columns, atom (row/128, col/4) at index (row/128) * ceil(cols/4) + col/4,
 * and inside it byte (row%32)*16 + ((row%128)/32)*4 + col%4; strided:
 * row * stride[0] + col (unit inner stride, checked at plan time). */
static int64_t sf_offset(const tp_tensor *s, int64_t row, int64_t col) {
  if (s->layout == TP_LAYOUT_SF_128X4) {
    int64_t atom = (row / 128) * ((s->shape[1] + 3) / 4) + col / 4;
    return atom * 512 + (row % 32) * 16 + (row % 128) / 32 * 4 + col % 4;
  }
  return row * s->stride[0] + col;
}

/* dst[i * groups + g] = the scale of stage group g0 + g (group_k K-elements)
 * of row r0 + i in s, whose vectors span K / cols elements (a multiple of
 * group_k: the coarser operand's scale repeats over its stage groups); 0
 * outside [rows, cols]. */
static void load_scales(const tp_tensor *s, int64_t k, int32_t group_k, int64_t rows, int64_t r0,
                        int32_t tile_rows, int64_t g0, int32_t groups, float *dst) {
  const unsigned char *bytes = s->data;
  const int64_t cols = s->shape[1];
  const int64_t per = k / cols / group_k; /* stage groups a scale covers */
  for (int32_t i = 0; i < tile_rows; i++)
    for (int32_t g = 0; g < groups; g++) {
      const int64_t col = (g0 + g) / per;
      dst[i * groups + g] = r0 + i < rows && col < cols
                                ? tp_codec_decode(s->dtype, bytes[sf_offset(s, r0 + i, col)])
                                : 0.0f;
    }
}

void block_scaled_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                           int64_t n0, int64_t kb, void *const *stage) {
  const int32_t group_k = tp_kit_cpu_stage_get(plan).group_k;
  const int32_t groups = plan->tile.tile_k / group_k;
  const int64_t g0 = kb * groups;
  tp_kit_cpu_load_operands(plan, desc, m0, n0, kb, stage);
  if (block_scaled_a_scaled(desc)) {
    load_scales(&desc->a_scale, desc->k, group_k, desc->m, m0, plan->tile.tile_m, g0, groups,
                stage[TP_KIT_STAGE_SA]);
  } else { /* bf16 activations: scale 1 inside A */
    float *sa = stage[TP_KIT_STAGE_SA];
    for (int32_t i = 0; i < plan->tile.tile_m; i++)
      for (int32_t g = 0; g < groups; g++) sa[i * groups + g] = m0 + i < desc->m ? 1.0f : 0.0f;
  }
  load_scales(&desc->b_scale, desc->k, group_k, desc->n, n0, plan->tile.tile_n, g0, groups,
              stage[TP_KIT_STAGE_SB]);
}
