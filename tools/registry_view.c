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

const char *tp_view_default_payload(const char *cmd, const tp_registry *registry) {
  tp_plugin_info info;
  for (size_t i = 0; i < tp_registry_count(registry); i++)
    if (tp_registry_get(registry, i, &info) == TP_OK && info.kind == TP_PLUGIN_PAYLOAD &&
        info.status == TP_OK && info.enabled)
      return info.name;
  tp_cli_fail(cmd, TP_EXIT_ERROR, "%s has no usable, enabled payload section; name one with "
              "--payload", tp_registry_path(registry));
  return NULL;
}
