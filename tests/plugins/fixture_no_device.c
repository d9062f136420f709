/* tests/plugins/fixture_no_device.c: a payload whose plan takes every GEMM
 * for the CUDA backend (it plans no tiles, as a real payload's plan leaves
 * them to gpu_plan) but which carries no device code: the core refuses it
 * after the plan, "payload '...' carries no GPU kernel". Its CPU plan
 * refuses, as fixture.h's. */
#include <string.h>
#include "fixture.h"

static tp_status no_device_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                tp_payload_plan *out, char *err, size_t errlen) {
  if (backend != TP_BACKEND_CUDA)
    return fixture_payload_plan(state, desc, backend, out, err, errlen);
  memset(out, 0, sizeof *out);
  return TP_OK;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_no_device", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.plan = no_device_plan;
  desc.payload = &ops;
  return &desc;
}
