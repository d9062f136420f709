/* tools/registry_view.h: what the commands share about the registry:
 * opening it with a message a user can act on, the words used for a
 * plugin's state and device code, and which plugin a section is. */
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

/* The plugin's own name behind section `section` (tp_plugin_info.plugin),
 * or `section` itself when the registry has no such loaded section: the
 * problem a command makes (its scales, its default dtypes) follows the
 * plugin, so that a tuned section of blockwise_fp8 under another name gets
 * blockwise_fp8's problem. */
const char *tp_view_plugin_of(const tp_registry *registry, const char *section);

#endif
