/* tests/plugins/fixture_null_entry.c: an entry that returns no descriptor
 * (a plugin declining to load must not crash the core). */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) { return NULL; }
