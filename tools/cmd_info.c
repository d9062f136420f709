/* tools/cmd_info.c: `tilepipe info NAME`: everything the registry knows
 * about one plugin. An unknown name is an error (exit 3); the library's
 * message lists the names the registry has. */
#include <stdio.h>

#include "tilepipe/tilepipe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/registry_view.h"

int tp_cmd_info(int argc, char **argv) {
  const char *registry_path = NULL;
  const tp_cli_option options[] = {
      {"registry", TP_CLI_STRING, &registry_path, "PATH",
       "the registry INI (default: $TILEPIPE_REGISTRY, ./tilepipe.ini, the installed one)", 0, 0},
  };
  const tp_cli_command cmd = {
      "info", "info NAME [--registry PATH]",
      "Shows one plugin of the registry: kind, version, library, enabled, state, device\n"
      "code, where its section is, and why it was refused if it was.",
      options, (int)(sizeof options / sizeof options[0]), 1};
  const char *positional[1];
  int npos;
  int rc = tp_cli_parse(&cmd, argc, argv, positional, &npos);
  if (rc != TP_EXIT_OK) return rc < 0 ? TP_EXIT_OK : rc;
  if (npos != 1)
    return tp_cli_fail("info", TP_EXIT_USAGE, "which plugin? (usage: tilepipe %s)", cmd.usage);

  tp_registry *reg;
  if ((rc = tp_view_open_registry("info", registry_path, &reg)) != TP_EXIT_OK) return rc;
  tp_plugin_info info;
  if (tp_registry_find(reg, positional[0], &info) != TP_OK) {
    rc = tp_cli_fail("info", TP_EXIT_ERROR, "%s", tp_error_message());
    tp_registry_close(reg);
    return rc;
  }
  char device[32];
  tp_view_device_code(&info, device, sizeof device);
  printf("name:        %s\n", info.name);
  printf("kind:        %s\n", tp_plugin_kind_name(info.kind));
  printf("plugin:      %s\n", info.plugin[0] ? info.plugin : "- (not loaded)");
  printf("version:     %s\n", info.version[0] ? info.version : "- (not loaded)");
  printf("library:     %s\n", info.library);
  printf("enabled:     %s\n", info.enabled ? "yes" : "no");
  printf("state:       %s\n", tp_view_state(&info));
  printf("device code: %s\n", device);
  printf("section:     %s:%d\n", info.ini_file, info.ini_line);
  if (info.status != TP_OK) printf("error:       %s\n", info.error);
  tp_registry_close(reg);
  return TP_EXIT_OK;
}
