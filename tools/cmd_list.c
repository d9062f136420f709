/* tools/cmd_list.c: `tilepipe list`: every section of the registry, in file
 * order, with its kind, version, enabled key, state and device code; a
 * broken plugin gets a second line with its "file:line: why". Broken
 * plugins are part of a successful listing (exit 0): finding them is what
 * the command is for. */
#include <stdio.h>
#include <string.h>

#include "tilepipe/tilepipe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/registry_view.h"

int tp_cmd_list(int argc, char **argv) {
  const char *registry_path = NULL;
  const tp_cli_option options[] = {
      {"registry", TP_CLI_STRING, &registry_path, "PATH",
       "the registry INI (default: $TILEPIPE_REGISTRY, ./tilepipe.ini, the installed one)", 0, 0},
  };
  const tp_cli_command cmd = {
      "list", "list [--registry PATH]",
      "Lists every plugin of the registry: name, kind, version, whether it is enabled, its\n"
      "state (ok, disabled, or why it was refused), whether it carries GPU device code,\n"
      "and for a refused plugin the registry file and line with the reason.",
      options, (int)(sizeof options / sizeof options[0]), 0};
  const char *positional[1];
  int npos;
  int rc = tp_cli_parse(&cmd, argc, argv, positional, &npos);
  if (rc != TP_EXIT_OK) return rc < 0 ? TP_EXIT_OK : rc;

  tp_registry *reg;
  if ((rc = tp_view_open_registry("list", registry_path, &reg)) != TP_EXIT_OK) return rc;
  printf("registry: %s\n", tp_registry_path(reg));
  /* The name and version columns are as wide as their longest entry (a
   * name may have 48 chars), at least as wide as a short one's. */
  const size_t count = tp_registry_count(reg);
  int name_width = 20, version_width = 9;
  tp_plugin_info info;
  for (size_t i = 0; i < count; i++)
    if (tp_registry_get(reg, i, &info) == TP_OK) {
      if ((int)strlen(info.name) > name_width) name_width = (int)strlen(info.name);
      if ((int)strlen(info.version) > version_width) version_width = (int)strlen(info.version);
    }
  printf("%-*s %-9s %-*s %-8s %-18s %s\n", name_width, "NAME", "KIND", version_width, "VERSION",
         "ENABLED", "STATE", "DEVICE CODE");
  for (size_t i = 0; i < count; i++) {
    if (tp_registry_get(reg, i, &info) != TP_OK) {
      rc = tp_cli_fail("list", TP_EXIT_ERROR, "%s", tp_error_message());
      break;
    }
    char device[32];
    tp_view_device_code(&info, device, sizeof device);
    printf("%-*s %-9s %-*s %-8s %-18s %s\n", name_width, info.name, tp_plugin_kind_name(info.kind),
           version_width, info.version[0] ? info.version : "-", info.enabled ? "yes" : "no",
           tp_view_state(&info), device);
    if (info.status != TP_OK) printf("    error: %s\n", info.error);
  }
  if (count == 0) printf("(no plugins)\n");
  tp_registry_close(reg);
  return rc;
}
