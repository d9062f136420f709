/* tests/plugins/fixture_test_hook.c: the epilogue side of fixture_bad_link
 * and fixture_small_link: its device code is tests/device/link_hook.cu, the
 * tp_test_hook that link_ws_unbounded.cu and link_kernel.cu call. It plans
 * every GEMM and never runs (the CPU slot is the fixtures' empty one). */
#include <string.h>

#include "fixture.h"
#include "tests/device/link_hook.ltoir.h"

static tp_status plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                      tp_epilogue_plan *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  out->source_dtype = TP_DTYPE_NONE;
  return TP_OK;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_epilogue_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_test_hook", TP_PLUGIN_EPILOGUE);
  ops = *desc.epilogue;
  ops.plan = plan;
  desc.epilogue = &ops;
  desc.cuda_version = 13000;
  desc.device_image = tp_device_blob;
  desc.device_image_size = sizeof tp_device_blob;
  return &desc;
}
