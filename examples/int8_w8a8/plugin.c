/* plugin.c: the int8_w8a8 payload's descriptor, its entry point and its
 * registry keys.
 *
 * An example of a payload written out of tree: it includes only the
 * installed headers and links only the installed plugin kit (pkg-config
 * --cflags --libs tilepipe-kit), never libtilepipe; the core reaches it
 * through the one exported symbol, tp_plugin_entry, and the slots of its
 * descriptor (int8_w8a8.h lists the files behind them). Its registry keys
 * are the kit's tuning keys (tilepipe/plugin/kit/tuning.h: tile, stages, cluster,
 * splits, tail_splits, stream_k) within its kernels' limits: tile K 128
 * (one 128-byte row of s8), no tile wider than W8A8_MAX_TILE_N. Any other
 * key is refused, and so is a bad value: the registry then lists the
 * section as broken, with the key's line. Without device code
 * (TP_KIT_DEVICE_CODE 0) the gpu_plan and gpu_args slots are NULL, and
 * the core plans the payload on the CPU backend. */
#include <tilepipe/plugin/kit/cpu_stage.h>
#include <tilepipe/plugin/kit/device_image.h>
#include <tilepipe/plugin/kit/tuning.h>

#include "int8_w8a8.h"
#include "int8_w8a8_params.h"

#if TP_KIT_DEVICE_CODE
#include "int8_w8a8_kernel.ltoir.h" /* tp_device_blob[], made by the Makefile */
#endif

static tp_status w8a8_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  static const tp_kit_tuning_limits limits = {.tile_k = {128}, .max_tile_n = W8A8_MAX_TILE_N};
  (void)host;
  return tp_kit_tuning_create(state, &limits, err, errlen);
}

static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = w8a8_plan,
    .cpu_load = w8a8_cpu_load,
    .cpu_mma = tp_kit_cpu_mma,
    .problem = w8a8_problem,
#if TP_KIT_DEVICE_CODE
    .gpu_plan = w8a8_gpu_plan,
    .gpu_args = w8a8_gpu_args,
#endif
};

static const tp_plugin_desc plugin = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "int8_w8a8",
    .kind = TP_PLUGIN_PAYLOAD,
    .version = "0.1.0",
    .init = w8a8_init,
    .fini = tp_kit_tuning_fini,
    .set_option = tp_kit_tuning_set_option,
    .payload = &ops,
#if TP_KIT_DEVICE_CODE
    TP_KIT_DEVICE_IMAGE_FIELDS,
#endif
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &plugin;
}
