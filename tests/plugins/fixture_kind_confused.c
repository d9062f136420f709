/* tests/plugins/fixture_kind_confused.c: declares kind epilogue but fills
 * the payload ops slot instead of the epilogue one. */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_kind_confused", TP_PLUGIN_PAYLOAD);
  desc.kind = TP_PLUGIN_EPILOGUE;
  return &desc;
}
