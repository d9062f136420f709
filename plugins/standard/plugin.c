/* plugins/standard/plugin.c: the standard payload's descriptor and entry
 * point. Its tuning keys (tile, stages, cluster, splits, tail_splits,
 * stream_k) are the kit's (tilepipe/plugin/kit/tuning.h), tile K 64 (bf16, f16)
 * or 128 (fp8), a k-block one 128-byte row of A; its device code is device/standard_mainloop.cu (gpu.c picks and
 * parameterises the kernel), one image per operand pair, each listing the
 * kernels it holds. */
#include "config.h"
#include "tilepipe/plugin/kit/device_image.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/tuning.h"
#include "plugins/standard/device/standard_params.h"
#include "plugins/standard/standard.h"

#if TP_HAVE_CUDA
#include "plugins/standard/device/standard_mainloop.ltoir.h"

/* One image per operand pair (device_image.h). */
#define TP_KIT_IMAGE_PREFIX "tp_standard"
TP_STANDARD_OPERANDS(TP_KIT_IMAGE_KERNELS)
static const tp_device_image images[] = {TP_STANDARD_OPERANDS(TP_KIT_IMAGE)};
#endif

/* Tile K: 64 for its 16-bit operands, 128 for fp8; every tile of the
 * table. */
static tp_status init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  static const tp_kit_tuning_limits limits = {.tile_k = {64, 128}};
  (void)host;
  return tp_kit_tuning_create(state, &limits, err, errlen);
}

/* Unscaled operands need no gathers beyond A and B: the kit's loader is
 * the whole producer. */
static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = standard_plan,
    .cpu_load = tp_kit_cpu_load_operands,
    .cpu_mma = tp_kit_cpu_mma,
    .gpu_plan = standard_gpu_plan_slot,
    .gpu_args = standard_gpu_args_slot,
    .problem = standard_problem,
};

static const tp_plugin_desc desc = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "standard",
    .kind = TP_PLUGIN_PAYLOAD,
    .version = PACKAGE_VERSION,
    .init = init,
    .fini = tp_kit_tuning_fini,
    .set_option = tp_kit_tuning_set_option,
    .payload = &ops,
#if TP_HAVE_CUDA
    TP_KIT_DEVICE_IMAGES_FIELDS(images),
#endif
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &desc;
}
