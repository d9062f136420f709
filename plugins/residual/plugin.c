/* plugins/residual/plugin.c: the residual epilogue's descriptor and entry point.
 * It takes no tuning keys; its GPU hook is device/residual_hook.cu, linked into the
 * payload's kernel at plan time. */
#include "config.h"
#include "tilepipe/plugin/kit/device_image.h"
#if TP_HAVE_CUDA
#include "plugins/residual/device/residual_hook.ltoir.h"
#endif
#include "plugins/residual/residual.h"

static const tp_epilogue_ops ops = {
    .struct_size = sizeof(tp_epilogue_ops),
    .plan = residual_plan,
    .cpu_apply = residual_cpu_apply,
};

static const tp_plugin_desc desc = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "residual",
    .kind = TP_PLUGIN_EPILOGUE,
    .version = PACKAGE_VERSION,
    .epilogue = &ops,
#if TP_HAVE_CUDA
    TP_KIT_DEVICE_IMAGE_FIELDS,
#endif
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &desc;
}
