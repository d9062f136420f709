/* tests/plugins/fixture_payload.c: a well-formed payload plugin with a state
 * of its own. init logs through the host API (tests read that line on
 * stderr); fini frees the state (a missing fini shows as a leak under ASan).
 * It reports version 1.2.3 and CUDA 13.0 so tests see them pass through. */
#include <stdlib.h>
#include "fixture.h"

typedef struct fixture_state {
  const tp_host_api *host;
} fixture_state;

static tp_status fixture_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  fixture_state *s = malloc(sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  s->host = host;
  host->log(TP_LOG_INFO, "fixture_payload", "state created");
  *state = s;
  return TP_OK;
}

static void fixture_fini(void *state) { free(state); }

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_payload", TP_PLUGIN_PAYLOAD);
  desc.version = "1.2.3";
  desc.cuda_version = 13000;
  desc.init = fixture_init;
  desc.fini = fixture_fini;
  return &desc;
}
