/* tests/plugins/fixture_abi_first_minor.c: built for the first minor of the
 * core's ABI major (2.0): abi_minor 0, and its descriptor and payload ops as
 * long as they are in that minor (ending at num_device_images and gpu_args).
 * A plugin of an older minor loads: the core reads its structs only up to
 * their struct_size, and what later minors append reads as absent: the
 * problem slot (2.1) past its ops holds a function that refuses, which the
 * core must never call, so tp_problem_describe gives it the plain problem. */
#include <stddef.h>
#include "fixture.h"

static tp_status never_called(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                              tp_problem *out, char *err, size_t errlen) {
  snprintf(err, errlen, "fixture_abi_first_minor: the core read past struct_size");
  return TP_ERR_PLUGIN;
}

#define END_OF(type, field) (offsetof(type, field) + sizeof(((type *)0)->field))

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_payload_ops ops;
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_abi_first_minor", TP_PLUGIN_PAYLOAD);
  ops = *desc.payload;
  ops.struct_size = END_OF(tp_payload_ops, gpu_args);
  ops.problem = never_called;
  desc.payload = &ops;
  desc.abi_minor = 0;
  desc.struct_size = END_OF(tp_plugin_desc, num_device_images);
  return &desc;
}
