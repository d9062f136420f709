/* tests/plugins/fixture_huge_tile.c: a payload whose tile is too large for
 * its accumulators: 2^24 x 2^24 f32 (4 PiB), more than any host can
 * allocate, with a one-k-block stage of 64 bytes that any host can. Its CPU
 * slots do nothing. test_cpu_backend expects tp_plan_run to return
 * TP_ERR_OUT_OF_MEMORY for it rather than stop the process. */
#include "fixture.h"

#define HUGE_TILE (1 << 24)

static tp_status huge_tile_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                tp_payload_plan *out, char *err, size_t errlen) {
  if (backend != TP_BACKEND_CPU) {
    snprintf(err, errlen, "fixture_huge_tile: CPU only");
    return TP_ERR_UNSUPPORTED;
  }
  *out = (tp_payload_plan){
      .tile = {.tile_m = HUGE_TILE, .tile_n = HUGE_TILE, .tile_k = (int32_t)desc->k,
               .stages = 2, .k_group_size = 1, .cluster_m = 1, .cluster_n = 1, .consumers = 1},
      .num_tensors = 1,
      .tensors = {{.bytes = 64, .align = 16}},
      .k_blocks = 1,
  };
  return TP_OK;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static const tp_payload_ops ops = {
      .struct_size = sizeof(tp_payload_ops),
      .plan = huge_tile_plan,
      .cpu_load = fixture_cpu_load,
      .cpu_mma = fixture_cpu_mma,
  };
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_huge_tile", TP_PLUGIN_PAYLOAD);
  desc.payload = &ops;
  return &desc;
}
