/* tests/plugins/fixture_old_problem.c: a payload whose ops struct stops
 * short of the problem slot, as one built for a minor version before a
 * slot was appended does: its struct_size ends there, and the slot's place
 * holds a function that refuses, which the core must never call (it reads
 * a plugin's struct only up to its struct_size). So tp_problem_describe
 * gives it the plain problem. It plans nothing. */
#include <stddef.h>
#include "fixture.h"

static tp_status never_called(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                              tp_problem *out, char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_old_problem: the core read past struct_size");
  return TP_ERR_PLUGIN;
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_old_problem", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.struct_size = offsetof(tp_payload_ops, problem);
  ops.problem = never_called;
  desc.payload = &ops;
  return &desc;
}
