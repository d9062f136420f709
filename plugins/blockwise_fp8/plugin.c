/* plugins/blockwise_fp8/plugin.c: the blockwise FP8 payload's descriptor and
 * entry point. Its tuning keys are the common ones, except that a tile's K
 * must be 128: one k-block, one scale. Its device code is
 * device/blockwise_fp8_mainloop.cu (gpu.c picks and parameterises the
 * kernel). */
#include "config.h"
#include "plugins/common/device_image.h"
#if TP_HAVE_CUDA
#include "plugins/blockwise_fp8/device/blockwise_fp8_mainloop.ltoir.h"
#endif
#include "plugins/blockwise_fp8/blockwise_fp8.h"
#include "plugins/common/cpu_stage.h"
#include "plugins/common/tuning.h"

static tp_status init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  (void)host;
  return tpc_tuning_create(state, BLOCKWISE_BLOCK, err, errlen);
}

static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = blockwise_plan,
    .cpu_load = blockwise_cpu_load,
    .cpu_mma = tpc_cpu_mma,
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
    .fini = tpc_tuning_fini,
    .set_option = tpc_tuning_set_option,
    .payload = &ops,
    TPC_DEVICE_IMAGE_FIELDS,
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &desc;
}
