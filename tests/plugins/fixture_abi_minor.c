/* tests/plugins/fixture_abi_minor.c: needs a newer minor of the ABI than the
 * core has (it may rely on host features the core lacks): refused. */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_abi_minor", TP_PLUGIN_PAYLOAD);
  desc.abi_minor = TP_PLUGIN_ABI_MINOR + 1;
  return &desc;
}
