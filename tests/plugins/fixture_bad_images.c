/* tests/plugins/fixture_bad_images.c: a payload that gives its device code
 * both ways, one device_image and device_images, which the loader
 * refuses: the core could not tell which to link. The bytes are never read. */
#include "fixture.h"

static const unsigned char blob[16];
static const char *const names[] = {"tp_fixture_kernel"};
static const tp_device_image images[] = {{names, 1, blob, sizeof blob}};

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_bad_images", TP_PLUGIN_PAYLOAD);
  desc.device_image = blob;
  desc.device_image_size = sizeof blob;
  desc.device_images = images;
  desc.num_device_images = 1;
  return &desc;
}
