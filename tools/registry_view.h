/* tools/registry_view.h: what the commands share about the registry:
 * opening it with a message a user can act on, the words used for a
 * plugin's state and device code, and the payload run when none is
 * named. */
#ifndef TP_TOOLS_REGISTRY_VIEW_H
#define TP_TOOLS_REGISTRY_VIEW_H

#include <stddef.h>
#include "tilepipe/registry.h"

/* Opens `path` (NULL: the library's search order). On failure prints
 * "tilepipe CMD: <why>" and a hint to stderr and returns TP_EXIT_ERROR;
 * else TP_EXIT_OK. */
int tp_view_open_registry(const char *cmd, const char *path, tp_registry **out);

/* "ok", "disabled", or the status's description ("plugin refused", ...). */
const char *tp_view_state(const tp_plugin_info *info);

/* "yes (CUDA 13.0)" or "no" into buf. */
void tp_view_device_code(const tp_plugin_info *info, char *buf, size_t size);

/* The payload a command runs when none is named: the registry's first
 * payload section that is usable and enabled (the installed registry lists
 * the standard payload first). NULL, after printing "tilepipe CMD: <why>"
 * to stderr, when there is none. */
const char *tp_view_default_payload(const char *cmd, const tp_registry *registry);

#endif
