/* plugins/common/cuda_stage.c: see cuda_stage.h. */
#include <string.h>

#include "tilepipe/dtype_codec.h"
#include "plugins/common/cuda_stage.h"
#include "plugins/common/stage_tensor.h"

#define TPC_DEFAULT_TILE_MN 128
#define TPC_SWIZZLE_ROW_BITS (128 * 8)

static uint32_t tile_bytes(tp_dtype dtype, int32_t rows, int32_t cols) {
  return (uint32_t)((int64_t)rows * cols * tp_codec_bits(dtype) / 8);
}

void tpc_cuda_plan(tp_payload_plan *out, const tpc_tuning *tuning, const tp_gemm_desc *desc) {
  tp_tile_config *t = &out->tile;
  memset(out, 0, sizeof *out);
  t->tile_m = tuning->tile_m ? tuning->tile_m : TPC_DEFAULT_TILE_MN;
  t->tile_n = tuning->tile_n ? tuning->tile_n : TPC_DEFAULT_TILE_MN;
  t->tile_k = tuning->tile_k ? tuning->tile_k
                             : (int32_t)(TPC_SWIZZLE_ROW_BITS / tp_codec_bits(desc->a.dtype));
  t->stages = tuning->stages;
  t->k_group_size = 1;
  t->cluster_m = tuning->cluster_m ? tuning->cluster_m : 1;
  t->cluster_n = tuning->cluster_n ? tuning->cluster_n : 1;
  t->consumers = tpc_tuning_consumers(tuning, t->tile_m);
  tpc_plan_add_tensor(out, tile_bytes(desc->a.dtype, t->tile_m, t->tile_k), TP_SWIZZLE_128B_ALIGN);
  tpc_plan_add_tensor(out, tile_bytes(desc->b.dtype, t->tile_n, t->tile_k), TP_SWIZZLE_128B_ALIGN);
  out->k_blocks = (desc->k + t->tile_k - 1) / t->tile_k;
}
