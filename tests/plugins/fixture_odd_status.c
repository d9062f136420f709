/* tests/plugins/fixture_odd_status.c: well-formed, but its plan and problem
 * slots fail with 999, a value that is no tp_status (a plugin's bug the
 * core must turn into TP_ERR_PLUGIN naming it, never pass on). */
#include "fixture.h"

#define ODD_STATUS ((tp_status)999)

static tp_status odd_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                          tp_payload_plan *out, char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_odd_status: plan fails oddly");
  return ODD_STATUS;
}

static tp_status odd_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                             tp_problem *out, char *err, size_t errlen) {
  return ODD_STATUS; /* and no reason */
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_odd_status", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.plan = odd_plan;
  ops.problem = odd_problem;
  desc.payload = &ops;
  return &desc;
}
