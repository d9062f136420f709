/* plugins/common/device_image.h: a plugin's LTO-IR in its descriptor.
 *
 * A plugin with device code includes its generated blob header (from
 * build-aux/device.mk) when TP_HAVE_CUDA, then lists in its tp_plugin_desc
 * initialiser either TPC_DEVICE_IMAGE_FIELDS, for one image
 * (`static const unsigned char tp_device_blob[]`), or
 * TPC_DEVICE_IMAGES_FIELDS(images), for a payload whose kernels come in
 * groups (`static const tp_device_image images[]`, one per group, over the
 * blobs of a grouped build). Built without CUDA, the plugin carries no device
 * code and its plans run on the CPU backend. */
#ifndef TP_PLUGINS_COMMON_DEVICE_IMAGE_H
#define TP_PLUGINS_COMMON_DEVICE_IMAGE_H

#include "config.h"

#if TP_HAVE_CUDA
#define TPC_DEVICE_IMAGE_FIELDS                                                    \
  .cuda_version = TP_BUILD_CUDA_VERSION, .device_image = tp_device_blob,           \
  .device_image_size = sizeof(tp_device_blob)
#define TPC_DEVICE_IMAGES_FIELDS(images)                                           \
  .cuda_version = TP_BUILD_CUDA_VERSION, .device_images = images,                  \
  .num_device_images = sizeof(images) / sizeof((images)[0])
#else
#define TPC_DEVICE_IMAGE_FIELDS .cuda_version = 0, .device_image = NULL, .device_image_size = 0
#define TPC_DEVICE_IMAGES_FIELDS(images) .cuda_version = 0
#endif

#endif
