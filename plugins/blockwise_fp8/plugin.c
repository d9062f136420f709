/* plugins/blockwise_fp8/plugin.c: the blockwise FP8 payload's descriptor and
 * entry point. Its tuning keys are the kit's (tilepipe/plugin/kit/tuning.h) within
 * its kernels' limits: a tile's K must be 128 (one k-block, one scale), its
 * width divide 128 (one block of B's scales). Its device code is
 * device/blockwise_fp8_mainloop.cu (gpu.c picks and parameterises the
 * kernel). */
#include "config.h"
#include "tilepipe/plugin/kit/device_image.h"
#if TP_HAVE_CUDA
#include "plugins/blockwise_fp8/device/blockwise_fp8_mainloop.ltoir.h"
#endif
#include "plugins/blockwise_fp8/blockwise_fp8.h"
#include "plugins/blockwise_fp8/device/blockwise_fp8_params.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/tuning.h"

/* The limits gpu.c plans within: tile K one scale block, widths that keep
 * a tile in one block of B's scales, no wider than TP_BLOCKWISE_MAX_TILE_N. */
static tp_status init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  static const tp_kit_tuning_limits limits = {.tile_k = {BLOCKWISE_BLOCK},
                                              .max_tile_n = TP_BLOCKWISE_MAX_TILE_N,
                                              .n_block = BLOCKWISE_BLOCK};
  (void)host;
  return tp_kit_tuning_create(state, &limits, err, errlen);
}

static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = blockwise_plan,
    .cpu_load = blockwise_cpu_load,
    .cpu_mma = tp_kit_cpu_mma,
    .gpu_plan = blockwise_gpu_plan,
    .gpu_args = blockwise_gpu_args,
    .problem = blockwise_problem,
};

static const tp_plugin_desc desc = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "blockwise_fp8",
    .kind = TP_PLUGIN_PAYLOAD,
    .version = PACKAGE_VERSION,
    .init = init,
    .fini = tp_kit_tuning_fini,
    .set_option = tp_kit_tuning_set_option,
    .payload = &ops,
#if TP_HAVE_CUDA
    TP_KIT_DEVICE_IMAGE_FIELDS,
#endif
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &desc;
}
