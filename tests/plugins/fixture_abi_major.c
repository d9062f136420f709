/* tests/plugins/fixture_abi_major.c: built for the next ABI major, whose
 * layout the core cannot know; the loader must refuse it by version alone. */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_abi_major", TP_PLUGIN_PAYLOAD);
  desc.abi_major = TP_PLUGIN_ABI_MAJOR + 1;
  return &desc;
}
