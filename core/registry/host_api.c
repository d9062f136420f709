/* core/registry/host_api.c: the tp_host_api table handed to plugins.
 *
 * log() writes one line, "tilepipe[plugin] level: message", to stderr when
 * level is at or above $TILEPIPE_LOG (error|warn|info|debug; unset or
 * unknown: warn). The variable is read on every call, not cached, so a
 * program (or a test) may change it while plugins are loaded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/tma_encode.h"
#include "core/registry/host_api.h"

static const char *const level_names[] = {"error", "warn", "info", "debug"};
#define NUM_LEVELS (sizeof level_names / sizeof level_names[0])

static tp_log_level log_threshold(void) {
  const char *env = getenv("TILEPIPE_LOG");
  for (size_t i = 0; env && i < NUM_LEVELS; i++)
    if (strcmp(env, level_names[i]) == 0) return (tp_log_level)i;
  return TP_LOG_WARN;
}

static void host_log(tp_log_level level, const char *plugin, const char *message) {
  /* A plugin's bad level is its bug, not a reason to drop or crash. */
  if ((unsigned)level >= NUM_LEVELS) level = TP_LOG_ERROR;
  if (level > log_threshold()) return;
  /* One fprintf: lines of concurrent plugins do not interleave mid-line. */
  fprintf(stderr, "tilepipe[%s] %s: %s\n", plugin ? plugin : "?", level_names[level],
          message ? message : "");
}

static const tp_host_api host_api = {
    .struct_size = sizeof(tp_host_api),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .log = host_log,
    .tma_encode_2d = tp_cuda_tma_encode_2d,
};

const tp_host_api *tp_host_api_get(void) { return &host_api; }
