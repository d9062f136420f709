/* core/registry/device_code.h: a plugin's device code as its descriptor
 * gives it, one device_image or, for a payload, groups of kernels each in
 * an image of its own (tp_device_image).
 *
 * The loader checks the fields once (tp_device_code_check), so the other
 * two read them without checking again. Plain host code: the CPU-only
 * build reports device code too (`tilepipe info`). Internal to
 * libtilepipe. */
#ifndef TP_CORE_REGISTRY_DEVICE_CODE_H
#define TP_CORE_REGISTRY_DEVICE_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include "tilepipe/plugin/abi.h"

/* TP_OK when d's device code fields are well formed: device_image set
 * exactly when device_image_size is not 0 (an image of size 0 is a plugin
 * bug, not "no device code"), device_image and device_images not both, device_images only for a payload, every image
 * with data, a size and at least one kernel name, none of them empty.
 * Otherwise TP_ERR_PLUGIN, naming library, the plugin and the problem. */
tp_status tp_device_code_check(const tp_plugin_desc *d, const char *library);

/* Whether d carries device code (a checked descriptor). */
bool tp_device_code_present(const tp_plugin_desc *d);

/* The LTO-IR to link for kernel: the first of d's device_images that lists
 * it, else its one device_image. TP_ERR_PLUGIN when d lists images and none
 * names kernel; TP_ERR_UNSUPPORTED when d carries no device code. */
tp_status tp_device_code_for_kernel(const tp_plugin_desc *d, const char *kernel,
                                    const void **data, size_t *size);

#endif
