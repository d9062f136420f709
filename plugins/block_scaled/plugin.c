/* plugins/block_scaled/plugin.c: the block-scaled payload's descriptor and
 * entry point. Its tuning keys are the kit's (tilepipe/plugin/kit/tuning.h),
 * tile K one 128-byte row of the wider operand: 64 (MXFP8 W8A16's bf16
 * A), 128 (MXFP8's 8-bit operands) or 256 (4-bit). Its device code is
 * device/block_scaled_mainloop.cu (W8A16, W8A8 and W4A16; gpu.c picks and
 * parameterises them), one image per operand group, each listing the
 * kernels it holds; W4A8 and W4A4 run on the CPU backend. */
#include "config.h"
#include "tilepipe/plugin/kit/device_image.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/tuning.h"
#include "plugins/block_scaled/block_scaled.h"
#include "plugins/block_scaled/device/block_scaled_params.h"

#if TP_HAVE_CUDA
#include "plugins/block_scaled/device/block_scaled_mainloop.ltoir.h"

/* One image per operand group (device_image.h), W8A16's converting one
 * with the transposed kernels too, W4A16's with those alone. */
#define TP_KIT_IMAGE_PREFIX "tp_block_scaled"
#define BS_IMAGE_KERNELS(NAME, A, B, T) BS_IMAGE_KERNELS_##T(NAME)
#define BS_IMAGE_KERNELS_0(NAME) TP_KIT_IMAGE_KERNELS(NAME)
#define BS_IMAGE_KERNELS_1(NAME) TP_KIT_IMAGE_KERNELS_AND_TRANSPOSED(NAME)
#define BS_IMAGE_KERNELS_2(NAME) TP_KIT_IMAGE_TRANSPOSED_KERNELS(NAME)
TP_BLOCK_SCALED_OPERANDS(BS_IMAGE_KERNELS)
static const tp_device_image images[] = {TP_BLOCK_SCALED_OPERANDS(TP_KIT_IMAGE)};
#endif

static tp_status init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  static const tp_kit_tuning_limits limits = {.tile_k = {64, 128, 256}};
  (void)host;
  return tp_kit_tuning_create(state, &limits, err, errlen);
}

static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = block_scaled_plan,
    .cpu_load = block_scaled_cpu_load,
    .cpu_mma = tp_kit_cpu_mma,
    .gpu_plan = block_scaled_gpu_plan,
    .gpu_args = block_scaled_gpu_args,
    .problem = block_scaled_problem,
};

static const tp_plugin_desc desc = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "block_scaled",
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
