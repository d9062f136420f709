/* plugins/block_scaled/plugin.c: the block-scaled payload's descriptor and
 * entry point. Its tuning keys are the common ones (plugins/common/tuning.h);
 * on the GPU a tile's K must also cover whole 4-column scale atoms, which
 * each plan checks (the format decides). No device code yet (no GPU path:
 * its plans run on the CPU backend). */
#include "config.h"
#include "plugins/common/cpu_stage.h"
#include "plugins/common/tuning.h"
#include "plugins/block_scaled/block_scaled.h"

static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = block_scaled_plan,
    .cpu_load = block_scaled_cpu_load,
    .cpu_mma = tpc_cpu_mma,
    .problem = block_scaled_problem,
};

static const tp_plugin_desc desc = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "block_scaled",
    .kind = TP_PLUGIN_PAYLOAD,
    .version = PACKAGE_VERSION,
    .init = tpc_tuning_init,
    .fini = tpc_tuning_fini,
    .set_option = tpc_tuning_set_option,
    .payload = &ops,
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &desc;
}
