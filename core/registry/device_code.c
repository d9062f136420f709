/* core/registry/device_code.c: a plugin's device code, whole or in groups
 * of kernels. See device_code.h.
 *
 * A lookup walks the lists name by name: a payload lists a few hundred
 * kernels at most, and a plan looks one up once, before its link or its
 * disk cache read. */
#include <string.h>

#include "core/error.h"
#include "core/registry/device_code.h"

static tp_status check_image(const tp_device_image *im, size_t i, const char *library,
                             const char *name) {
  if (!im->data || im->size == 0 || !im->kernels || im->num_kernels == 0)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s'): device image %zu has no data, a zero "
                        "size or no kernels", library, name, i);
  for (size_t k = 0; k < im->num_kernels; k++)
    if (!im->kernels[k] || !*im->kernels[k])
      return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s'): device image %zu: kernel name %zu "
                          "is NULL or empty", library, name, i, k);
  return TP_OK;
}

tp_status tp_device_code_check(const tp_plugin_desc *d, const char *library) {
  if (!d->device_image != (d->device_image_size == 0))
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s'): device_image is %s but "
                        "device_image_size is %zu (set both, or neither for no device code)",
                        library, d->name, d->device_image ? "set" : "NULL", d->device_image_size);
  if (!d->device_images && d->num_device_images == 0) return TP_OK;
  if (!d->device_images || d->num_device_images == 0)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s'): device_images is %s but "
                        "num_device_images is %zu", library, d->name,
                        d->device_images ? "set" : "NULL", d->num_device_images);
  if (d->kind != TP_PLUGIN_PAYLOAD)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s'): an epilogue's device code is one "
                        "device_image (its hook is linked whole), not device_images", library,
                        d->name);
  if (d->device_image)
    return tp_error_set(TP_ERR_PLUGIN, "'%s' (plugin '%s') sets both device_image and "
                        "device_images; set one", library, d->name);
  for (size_t i = 0; i < d->num_device_images; i++) {
    tp_status st = check_image(&d->device_images[i], i, library, d->name);
    if (st != TP_OK) return st;
  }
  return TP_OK;
}

bool tp_device_code_present(const tp_plugin_desc *d) {
  return (d->device_image && d->device_image_size > 0) || d->num_device_images > 0;
}

tp_status tp_device_code_for_kernel(const tp_plugin_desc *d, const char *kernel,
                                    const void **data, size_t *size) {
  *data = NULL;
  *size = 0;
  for (size_t i = 0; i < d->num_device_images; i++) {
    const tp_device_image *im = &d->device_images[i];
    for (size_t k = 0; k < im->num_kernels; k++) {
      if (strcmp(im->kernels[k], kernel) == 0) {
        *data = im->data;
        *size = im->size;
        return TP_OK;
      }
    }
  }
  if (d->num_device_images > 0)
    return tp_error_set(TP_ERR_PLUGIN, "payload '%s' chose kernel '%s', which none of its %zu "
                        "device images lists", d->name, kernel, d->num_device_images);
  if (!tp_device_code_present(d))
    return tp_error_set(TP_ERR_UNSUPPORTED, "plugin '%s' carries no device code", d->name);
  *data = d->device_image;
  *size = d->device_image_size;
  return TP_OK;
}
