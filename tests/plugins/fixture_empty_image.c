/* tests/plugins/fixture_empty_image.c: well-formed, but its device_image is
 * set with a size of 0, which the loader must refuse rather than take as
 * "no device code". */
#include "fixture.h"

static const unsigned char image[16];

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_empty_image", TP_PLUGIN_PAYLOAD);
  desc.device_image = image;
  desc.device_image_size = 0;
  return &desc;
}
