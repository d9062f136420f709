/* tests/plugins/fixture_missing_slot.c: a payload whose ops table leaves a
 * required slot (cpu_mma) NULL; the core must refuse it at load time rather
 * than crash when a plan first runs. */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_missing_slot", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.cpu_mma = NULL;
  desc.payload = &ops;
  return &desc;
}
