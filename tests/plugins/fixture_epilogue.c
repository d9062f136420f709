/* tests/plugins/fixture_epilogue.c: a well-formed epilogue plugin with no
 * init, fini or set_option (all optional), to show the minimal plugin loads. */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_epilogue", TP_PLUGIN_EPILOGUE);
  return &desc;
}
