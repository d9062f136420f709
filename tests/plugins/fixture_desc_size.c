/* tests/plugins/fixture_desc_size.c: a payload whose plan slot refuses
 * every GEMM, saying which struct_size the descriptor it was handed has, so
 * that a test sees the core hand plugins its own full-size copy whatever
 * size the caller's descriptor had. */
#include "fixture.h"

static tp_status desc_size_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                tp_payload_plan *out, char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_desc_size: given struct_size %u", (unsigned)desc->struct_size);
  return TP_ERR_UNSUPPORTED;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_desc_size", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.plan = desc_size_plan;
  desc.payload = &ops;
  return &desc;
}
