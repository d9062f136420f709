/* tests/plugins/fixture_bad_link.c: a payload whose GPU kernel links but
 * fails the ptxas report check: its device code is
 * tests/device/link_ws_unbounded.cu (setmaxnreg ignored, C7508), whose
 * hook fixture_test_hook carries. It plans every GEMM (one k-block of one
 * 16-byte tile) and names that kernel, so `tilepipe link` of the two gets
 * as far as the link and must print FAIL. It never runs anything: the CPU
 * slots are the fixtures' empty ones. */
#include "link_fixture.h"
#include "tests/device/link_ws_unbounded.ltoir.h"

static const char *link_fixture_kernel(int64_t m) {
  (void)m;
  return "tp_test_ws_unbounded";
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  tp_plugin_desc *desc = link_fixture_desc("fixture_bad_link");
  desc->device_image = tp_device_blob;
  desc->device_image_size = sizeof tp_device_blob;
  return desc;
}
