/* plugins/blockwise_fp8/plugin.c: the blockwise FP8 payload's descriptor and
 * entry point. Its tuning keys are the common ones, except that a tile's K
 * must be 128: one k-block, one scale. No device code yet (no GPU path:
 * its plans run on the CPU backend). */
#include "config.h"
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
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &desc;
}
