/* tests/plugins/fixture_no_entry.c: a shared library that is not a tilepipe
 * plugin: it exports a function, but no tp_plugin_entry. (The other classic
 * mistake, an entry defined without TP_PLUGIN_EXPORT under
 * -fvisibility=hidden, cannot happen: abi.h declares the entry exported.) */
#include "tilepipe/plugin/abi.h"

TP_PLUGIN_EXPORT int fixture_no_entry_answer(void);

int fixture_no_entry_answer(void) { return 42; }
