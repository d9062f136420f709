/* tools/registry_view.c: see registry_view.h. */
#include <stdio.h>

#include "tilepipe/status.h"
#include "tools/cli.h"
#include "tools/registry_view.h"

int tp_view_open_registry(const char *cmd, const char *path, tp_registry **out) {
  if (tp_registry_open(out, path) == TP_OK) return TP_EXIT_OK;
  return tp_cli_fail(cmd, TP_EXIT_ERROR,
                     "cannot open the registry: %s\n(name one with --registry PATH or "
                     "$TILEPIPE_REGISTRY; docs/registry.md describes the format)",
                     tp_error_message());
}

const char *tp_view_state(const tp_plugin_info *info) {
  if (info->status != TP_OK) return tp_status_string(info->status);
  return info->enabled ? "ok" : "disabled";
}

void tp_view_device_code(const tp_plugin_info *info, char *buf, size_t size) {
  if (!info->has_device_code)
    snprintf(buf, size, "no");
  else
    snprintf(buf, size, "yes (CUDA %d.%d)", info->cuda_version / 1000,
             info->cuda_version % 1000 / 10);
}

const char *tp_view_plugin_of(const tp_registry *registry, const char *section) {
  tp_plugin_info info;
  if (registry != NULL && section != NULL && tp_registry_find(registry, section, &info) == TP_OK &&
      info.plugin[0] != '\0')
    return info.plugin;
  return section;
}
