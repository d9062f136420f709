/* tests/plugins/fixture_tunable.c: a payload with one tuning key, `stages`,
 * an integer in 2..8 (default 4); any other key is unknown. Its plan reports
 * the state's stages in its refusal, so a test can see which section's
 * state it was handed. fixture_tunable_live counts states alive (init adds
 * one, fini takes it away); tests read it with dlsym to see fini called. */
#include <stdlib.h>
#include <string.h>
#include "fixture.h"

TP_PLUGIN_EXPORT int fixture_tunable_live;

typedef struct tunable_state {
  long stages;
} tunable_state;

static tp_status tunable_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  tunable_state *s = malloc(sizeof *s);
  if (!s) {
    snprintf(err, errlen, "out of memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  s->stages = 4;
  *state = s;
  fixture_tunable_live++;
  return TP_OK;
}

static void tunable_fini(void *state) {
  free(state);
  fixture_tunable_live--;
}

static tp_status tunable_set_option(void *state, const char *key, const char *value, char *err,
                                    size_t errlen) {
  tunable_state *s = state;
  if (strcmp(key, "stages") != 0) {
    snprintf(err, errlen, "fixture_tunable knows only 'stages'");
    return TP_ERR_NOT_FOUND;
  }
  char *end;
  long v = strtol(value, &end, 10);
  if (end == value || *end || v < 2 || v > 8) {
    snprintf(err, errlen, "stages must be an integer in 2..8, got '%s'", value);
    return TP_ERR_INVALID_ARGUMENT;
  }
  s->stages = v;
  return TP_OK;
}

static tp_status tunable_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                              tp_payload_plan *out, char *err, size_t errlen) {
  const tunable_state *s = state;
  snprintf(err, errlen, "fixture_tunable: stages = %ld; it plans nothing", s->stages);
  return TP_ERR_UNSUPPORTED;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_tunable", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.plan = tunable_plan;
  desc.payload = &ops;
  desc.init = tunable_init;
  desc.fini = tunable_fini;
  desc.set_option = tunable_set_option;
  return &desc;
}
