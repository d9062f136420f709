/* tests/plugins/fixture_grouped_link.c: a payload whose device code comes
 * in two images (tp_plugin_desc.device_images, ABI 1.3): the first holds
 * tp_test_axpy and tp_test_ws (tests/device/link_kernel.cu), the second
 * tp_test_ws_unbounded (tests/device/link_ws_unbounded.cu, whose setmaxnreg
 * ptxas ignores: C7508). Linked together, the second spoils the first's
 * report, so tp_test_ws links clean only from its own image alone. Its
 * gpu_plan names, by M: tp_test_ws_unbounded from 256, tp_test_ws from 128,
 * tp_test_axpy from 2, and for M = 1 tp_test_nowhere, which neither image
 * lists. The hook is fixture_test_hook's; it never runs anything. */
#include <string.h>

#include "fixture.h"
#include "tilepipe/epilogue_args.h"

#define tp_device_blob kernel_blob
#define tp_device_blob_size kernel_blob_size
#include "tests/device/link_kernel.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

#define tp_device_blob unbounded_blob
#define tp_device_blob_size unbounded_blob_size
#include "tests/device/link_ws_unbounded.ltoir.h"
#undef tp_device_blob
#undef tp_device_blob_size

static const char *const kernel_names[] = {"tp_test_axpy", "tp_test_ws"};
static const char *const unbounded_names[] = {"tp_test_ws_unbounded"};
static const tp_device_image images[] = {
    {kernel_names, 2, kernel_blob, sizeof kernel_blob},
    {unbounded_names, 1, unbounded_blob, sizeof unbounded_blob},
};

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
  strcpy(launch->kernel, desc->m >= 256   ? "tp_test_ws_unbounded"
                         : desc->m >= 128 ? "tp_test_ws"
                         : desc->m >= 2   ? "tp_test_axpy"
                                          : "tp_test_nowhere");
  for (int i = 0; i < 3; i++) launch->grid[i] = launch->block[i] = launch->cluster[i] = 1;
  launch->block[0] = 384;
  launch->params_size = sizeof(tp_epilogue_args);
  return TP_OK;
}

static tp_status gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epilogue,
                          const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                          char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_grouped_link: never runs");
  return TP_ERR_UNSUPPORTED;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_grouped_link", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.plan = plan;
  ops.gpu_plan = gpu_plan;
  ops.gpu_args = gpu_args;
  desc.payload = &ops;
  desc.cuda_version = 13000;
  desc.device_images = images;
  desc.num_device_images = 2;
  return &desc;
}
