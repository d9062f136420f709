/* tilepipe/plugin/kit/device_image.h: a plugin's LTO-IR in its descriptor.
 *
 * The plugin's build turns its .cu into LTO-IR and the LTO-IR into a C
 * header with `tilepipe-embed --nvcc NVCC` (in-tree: build-aux/device.mk;
 * out of tree: the installed plugin.mk, `pkg-config --variable=plugin_mk
 * tilepipe-kit`, which also defines TP_KIT_DEVICE_CODE to 1 when it built
 * device code and to 0 when not). That header holds the bytes as
 * `tp_device_blob[]` (or, with --groups, `tp_device_blob_<G>[]` per group)
 * and defines TP_DEVICE_CUDA_VERSION, the version of the nvcc that made
 * them. The one C file that includes it, when the build made device code,
 * lists in its tp_plugin_desc initialiser either
 * TP_KIT_DEVICE_IMAGE_FIELDS, for the one image, or
 * TP_KIT_DEVICE_IMAGES_FIELDS(images), for a payload whose kernels come in
 * groups (`static const tp_device_image images[]`, one per group, over the
 * grouped blobs):
 *
 *     #if TP_KIT_DEVICE_CODE
 *     #include "my_hook.ltoir.h"
 *     #endif
 *     ...
 *     static const tp_plugin_desc desc = {
 *         ...
 *     #if TP_KIT_DEVICE_CODE
 *         TP_KIT_DEVICE_IMAGE_FIELDS,
 *     #endif
 *     };
 *
 * Built without device code the plugin leaves the fields zero: it carries
 * none, and its plans run on the CPU backend. Part of the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KIT_DEVICE_IMAGE_H
#define TILEPIPE_PLUGIN_KIT_DEVICE_IMAGE_H

#include "tilepipe/plugin/kernel/tiles.h"

/* The images of a payload whose kernels come in groups (its device code
 * built once per group NAME with -DTP_DEVICE_GROUP=NAME, one kernel per
 * instance of the tile table, tilepipe/plugin/kernel/tiles.h): from the
 * one X-macro list of its groups, LIST(X) expanding X(NAME, ...) per group,
 * and TP_KIT_IMAGE_PREFIX, its kernels' name prefix, each group's kernel
 * names as the device code spells them, then the images:
 *
 *     #define TP_KIT_IMAGE_PREFIX "tp_standard"
 *     TP_STANDARD_OPERANDS(TP_KIT_IMAGE_KERNELS)
 *     static const tp_device_image images[] = {TP_STANDARD_OPERANDS(TP_KIT_IMAGE)};
 */
#define TP_KIT_IMAGE_KERNEL_NAME_(BM, BN, CM, D_NAME, DT, SPEED, NAME) \
  TP_KIT_IMAGE_PREFIX "_" #NAME "_" TP_KERNEL_SUFFIX_STR(BM, BN, CM, D_NAME),
#define TP_KIT_IMAGE_KERNELS(NAME, ...)                  \
  static const char *const tp_kit_kernels_##NAME[] = { \
      TP_KERNEL_FOR_EACH_INSTANCE(TP_KIT_IMAGE_KERNEL_NAME_, NAME)};
/* The same for a group whose device code also has the transposed tiles'
 * kernels (TP_KERNEL_FOR_EACH_TRANSPOSED_INSTANCE, named with
 * TP_KERNEL_NAME_TRANSPOSED). */
#define TP_KIT_IMAGE_TRANSPOSED_KERNEL_NAME_(BM, BN, CM, D_NAME, DT, SPEED, NAME) \
  TP_KIT_IMAGE_PREFIX "_" #NAME "_" TP_KERNEL_SUFFIX_STR_TRANSPOSED(BM, BN, CM, D_NAME),
#define TP_KIT_IMAGE_KERNELS_AND_TRANSPOSED(NAME, ...)                            \
  static const char *const tp_kit_kernels_##NAME[] = {                          \
      TP_KERNEL_FOR_EACH_INSTANCE(TP_KIT_IMAGE_KERNEL_NAME_, NAME)                 \
          TP_KERNEL_FOR_EACH_TRANSPOSED_INSTANCE(TP_KIT_IMAGE_TRANSPOSED_KERNEL_NAME_, NAME)};
/* And for a group with the transposed tiles' kernels alone. */
#define TP_KIT_IMAGE_TRANSPOSED_KERNELS(NAME, ...)                                 \
  static const char *const tp_kit_kernels_##NAME[] = {                          \
      TP_KERNEL_FOR_EACH_TRANSPOSED_INSTANCE(TP_KIT_IMAGE_TRANSPOSED_KERNEL_NAME_, NAME)};
#define TP_KIT_IMAGE(NAME, ...)                                                       \
  {tp_kit_kernels_##NAME, sizeof tp_kit_kernels_##NAME / sizeof tp_kit_kernels_##NAME[0], \
   tp_device_blob_##NAME, sizeof tp_device_blob_##NAME},

#define TP_KIT_DEVICE_IMAGE_FIELDS                                                 \
  .cuda_version = TP_DEVICE_CUDA_VERSION, .device_image = tp_device_blob,          \
  .device_image_size = sizeof(tp_device_blob)
#define TP_KIT_DEVICE_IMAGES_FIELDS(images)                                        \
  .cuda_version = TP_DEVICE_CUDA_VERSION, .device_images = images,                 \
  .num_device_images = sizeof(images) / sizeof((images)[0])

#endif
