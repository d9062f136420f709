/* tests/plugins/fixture_small_link.c: a payload whose GPU kernels are small
 * and link clean, for warming the kernel cache quickly: its device code is
 * tests/device/link_kernel.cu (tp_test_ws, tp_test_axpy; the hook is
 * fixture_test_hook's). It plans every GEMM (one k-block of one 16-byte
 * tile) and names tp_test_ws for M >= 128, tp_test_axpy below, so a shape
 * list maps to one or two kernels. It never runs anything: the CPU slots
 * are the fixtures' empty ones. Its descriptor is one built for plugin ABI
 * 1.2 (abi_minor 2, its struct_size ending at device_image_size, poison
 * past it where 1.3 has device_images), so it also shows that such a
 * payload, with its one device_image, links as it did. */
#include <stddef.h>
#include <string.h>

#include "fixture.h"
#include "tests/device/link_kernel.ltoir.h"
#include "tilepipe/epilogue_args.h"

static tp_status plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                      tp_payload_plan *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->tile = (tp_tile_config){.tile_m = 128, .tile_n = 128, .tile_k = 64, .k_group_size = 1};
  out->num_tensors = 1;
  out->tensors[0] = (tp_stage_tensor){.bytes = 16, .align = 16};
  out->k_blocks = 1;
  return TP_OK;
}

static tp_status gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                          const tp_epilogue_plan *epilogue, tp_payload_plan *plan,
                          tp_gpu_launch *launch, char *err, size_t errlen) {
  memset(launch, 0, sizeof *launch);
  strcpy(launch->kernel, desc->m >= 128 ? "tp_test_ws" : "tp_test_axpy");
  for (int i = 0; i < 3; i++) launch->grid[i] = launch->block[i] = launch->cluster[i] = 1;
  launch->block[0] = 384;
  launch->params_size = sizeof(tp_epilogue_args);
  return TP_OK;
}

static tp_status gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epilogue,
                          const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                          char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_small_link: never runs");
  return TP_ERR_UNSUPPORTED;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_small_link", TP_PLUGIN_PAYLOAD);
  desc.abi_minor = 2;
  desc.struct_size = offsetof(tp_plugin_desc, device_images);
  ops = *desc.payload;
  ops.plan = plan;
  ops.gpu_plan = gpu_plan;
  ops.gpu_args = gpu_args;
  desc.payload = &ops;
  desc.cuda_version = 13000;
  desc.device_image = tp_device_blob;
  desc.device_image_size = sizeof tp_device_blob;
  desc.device_images = (const tp_device_image *)&desc;
  desc.num_device_images = 99;
  return &desc;
}
