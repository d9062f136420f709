/* tests/plugins/fixture_small_link.c: a payload whose GPU kernels are small
 * and link clean, for warming the kernel cache quickly: its device code is
 * tests/device/link_kernel.cu (tp_test_ws, tp_test_axpy; the hook is
 * fixture_test_hook's). It plans every GEMM (one k-block of one 16-byte
 * tile) and names tp_test_ws for M >= 128, tp_test_axpy below, so a shape
 * list maps to one or two kernels. It never runs anything: the CPU slots
 * are the fixtures' empty ones. Its descriptor's struct_size ends at
 * device_image_size, with poison past it in device_images, so it also shows
 * that the core reads a descriptor only up to its struct_size (the fields
 * past it absent) and that a payload with one device_image links. */
#include <stddef.h>

#include "link_fixture.h"
#include "tests/device/link_kernel.ltoir.h"

static const char *link_fixture_kernel(int64_t m) {
  return m >= 128 ? "tp_test_ws" : "tp_test_axpy";
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  tp_plugin_desc *desc = link_fixture_desc("fixture_small_link");
  desc->struct_size = offsetof(tp_plugin_desc, device_images);
  desc->device_image = tp_device_blob;
  desc->device_image_size = sizeof tp_device_blob;
  desc->device_images = (const tp_device_image *)desc;
  desc->num_device_images = 99;
  return desc;
}
