/* tests/plugins/fixture_small_desc.c: right ABI version, but a struct_size
 * that stops before the name: the core must not read past it. */
#include <stddef.h>
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_small_desc", TP_PLUGIN_PAYLOAD);
  desc.struct_size = offsetof(tp_plugin_desc, name);
  return &desc;
}
