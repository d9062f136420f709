/* tests/plugins/fixture_init_fails.c: well-formed, but its init refuses to
 * start with a reason that must reach the user. */
#include "fixture.h"

static tp_status fixture_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_init_fails: no accelerator here (by design)");
  return TP_ERR_UNSUPPORTED;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_init_fails", TP_PLUGIN_PAYLOAD);
  desc.init = fixture_init;
  return &desc;
}
