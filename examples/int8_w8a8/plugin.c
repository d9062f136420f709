/* plugin.c: the int8_w8a8 payload's descriptor, its entry point and its
 * registry keys.
 *
 * An example of a payload written out of tree: it includes only the
 * installed headers (pkg-config --cflags tilepipe) and never links
 * libtilepipe; the core reaches it through the one exported symbol,
 * tp_plugin_entry, and the slots of its descriptor (int8_w8a8.h lists the
 * files behind them). One registry key:
 *
 *   stages = S   input pipeline stages, 1..16 (default: the backend's)
 *
 * any other key is refused, and so is a bad value: the registry then lists
 * the section as broken, with the key's line. Without device code
 * (INT8_W8A8_DEVICE_CODE 0) the gpu_plan and gpu_args slots are NULL, and
 * the core plans the payload on the CPU backend. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "int8_w8a8.h"

#if INT8_W8A8_DEVICE_CODE
#include "int8_w8a8_kernel.ltoir.h" /* int8_w8a8_lto[], made by the Makefile */
#endif

enum { MAX_STAGES = 16 };

static tp_status w8a8_init(const tp_host_api *host, void **state, char *err, size_t errlen) {
  (void)host;
  w8a8_tuning *t = calloc(1, sizeof *t);
  if (t == NULL)
    return w8a8_fail(err, errlen, TP_ERR_OUT_OF_MEMORY, "no memory for the section's state");
  *state = t;
  return TP_OK;
}

static void w8a8_fini(void *state) { free(state); }

/* A decimal integer in [lo, hi] filling all of text. */
static int parse_int(const char *text, long lo, long hi, int32_t *out) {
  char *end;
  errno = 0;
  const long v = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) return 0;
  *out = (int32_t)v;
  return 1;
}

static tp_status w8a8_set_option(void *state, const char *key, const char *value, char *err,
                                 size_t errlen) {
  w8a8_tuning *t = state;
  if (t == NULL || key == NULL || value == NULL)
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "set_option: NULL state, key or value");
  if (strcmp(key, "stages") != 0)
    return w8a8_fail(err, errlen, TP_ERR_NOT_FOUND, "unknown key '%s' (int8_w8a8 takes: stages)",
                     key);
  if (!parse_int(value, 1, MAX_STAGES, &t->stages))
    return w8a8_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                     "stages = '%s': it must be an integer in 1..%d", value, MAX_STAGES);
  return TP_OK;
}

static const tp_payload_ops ops = {
    .struct_size = sizeof(tp_payload_ops),
    .plan = w8a8_plan,
    .cpu_load = w8a8_cpu_load,
    .cpu_mma = w8a8_cpu_mma,
    .problem = w8a8_problem,
#if INT8_W8A8_DEVICE_CODE
    .gpu_plan = w8a8_gpu_plan,
    .gpu_args = w8a8_gpu_args,
#endif
};

static const tp_plugin_desc plugin = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "int8_w8a8",
    .kind = TP_PLUGIN_PAYLOAD,
    .version = "0.1.0",
    .init = w8a8_init,
    .fini = w8a8_fini,
    .set_option = w8a8_set_option,
    .payload = &ops,
#if INT8_W8A8_DEVICE_CODE
    .cuda_version = INT8_W8A8_CUDA_VERSION,
    .device_image = int8_w8a8_lto,
    .device_image_size = sizeof int8_w8a8_lto,
#endif
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &plugin;
}
