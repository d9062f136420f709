/* tests/plugins/fixture_abi10_epilogue.c: an epilogue built for plugin ABI
 * 1.0, before tp_gemm_desc had a bias: it loads (older minors are fine), but
 * cannot see a bias, so the core must refuse it one rather than let it be
 * ignored. Its plan slot refuses all work like every fixture's. */
#include "fixture.h"

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_abi10_epilogue", TP_PLUGIN_EPILOGUE);
  desc.abi_minor = 0;
  return &desc;
}
