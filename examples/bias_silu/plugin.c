/* plugin.c: the bias_silu epilogue plugin, D = silu(alpha*acc + bias[n]),
 * silu(x) = x / (1 + exp(-x)).
 *
 * An example of an epilogue written out of tree: it includes only the
 * installed headers and links only the installed plugin kit (pkg-config
 * --cflags --libs tilepipe-kit), never libtilepipe; the core reaches it
 * through the one exported symbol, tp_plugin_entry. Its slots:
 *   plan       D is bf16, f16 or f32; the bias is required, f32 or D's
 *              dtype (the core has checked its shape: [N] or [1, N],
 *              contiguous); C is read by nothing here, so a C with a
 *              nonzero beta is refused rather than ignored;
 *   cpu_apply  the CPU backend's epilogue for a block of accumulators;
 *   gpu_args   the bias's device address and dtype into the user bytes of
 *              tp_epilogue_args, which bias_silu_hook.cu reads.
 * Its device code, when the Makefile found nvcc, is that hook as LTO-IR
 * (bias_silu_hook.ltoir.h, from the kit's plugin.mk); without it the
 * plugin is CPU-only.
 * docs/writing-an-epilogue.md walks through this file. */
#include <math.h>
#include <string.h>

#include <tilepipe/plugin/dtype_codec.h>
#include <tilepipe/plugin/epilogue_args.h>
#include <tilepipe/plugin/kit/checks.h>
#include <tilepipe/plugin/kit/device_image.h>
#include <tilepipe/plugin/kit/error.h>
#include <tilepipe/plugin/abi.h>

#include "bias_silu_args.h"

#if TP_KIT_DEVICE_CODE
#include "bias_silu_hook.ltoir.h" /* tp_device_blob[], made by the Makefile */
#endif

_Static_assert(sizeof(bias_silu_args) <= TP_EPILOGUE_USER_BYTES,
               "the hook's arguments must fit tp_epilogue_args.user");

static tp_status bias_silu_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                tp_epilogue_plan *out, char *err, size_t errlen) {
  (void)state;
  (void)backend;
  const tp_dtype d = desc->d.dtype, bias = desc->bias.dtype;
  tp_status st = tp_kit_tensor_check_output(&desc->d, "D", err, errlen);
  if (st != TP_OK) return st;
  if (bias == TP_DTYPE_NONE)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "the bias is missing: bias_silu computes D = silu(alpha*acc + bias[n]); "
                       "give an [N] bias (tp_tensor_vector)");
  if (bias != TP_DTYPE_F32 && bias != d)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "the bias is %s; it must be f32 or D's dtype (%s)", tp_codec_name(bias),
                       tp_codec_name(d));
  if (desc->c.dtype != TP_DTYPE_NONE && desc->beta != 0.0f)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "C is given with beta = %g, but bias_silu reads no C: use the residual "
                       "epilogue, or set beta = 0",
                       (double)desc->beta);
  memset(out, 0, sizeof *out);
  out->source_dtype = TP_DTYPE_NONE; /* the kernel stages no C for us */
  return TP_OK;
}

/* silu in f32, as the hook computes it: x * sigmoid(x). For x below about
 * -88, exp(-x) is inf and the result the correct -0. */
static float silu(float x) { return x / (1.0f + expf(-x)); }

static void bias_silu_cpu_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc,
                                int64_t m0, int64_t n0, int32_t rows, int32_t cols,
                                const float *acc, int32_t ld_acc) {
  (void)plan;
  const tp_tensor *d = &desc->d, *bias = &desc->bias;
  for (int32_t i = 0; i < rows; i++) {
    const int64_t drow = (m0 + i) * d->stride[0] + n0;
    for (int32_t j = 0; j < cols; j++) {
      /* bias[n] is at element n whether the bias is [N] or [1, N]. */
      const float x = desc->alpha * acc[(int64_t)i * ld_acc + j] +
                      tp_codec_load(bias->dtype, bias->data, n0 + j);
      tp_codec_store(d->dtype, d->data, drow + j, silu(x));
    }
  }
}

static tp_status bias_silu_gpu_args(const tp_epilogue_plan *plan, const tp_gemm_desc *desc,
                                    void *user, size_t user_size, char *err, size_t errlen) {
  (void)plan;
  if (user_size < sizeof(bias_silu_args))
    return tp_kit_fail(err, errlen, TP_ERR_PLUGIN,
                       "the kernel's epilogue block has %zu user bytes; bias_silu needs %zu",
                       user_size, sizeof(bias_silu_args));
  const bias_silu_args args = {.bias = (uint64_t)(uintptr_t)desc->bias.data,
                               .bias_dtype = (int32_t)desc->bias.dtype};
  memcpy(user, &args, sizeof args);
  return TP_OK;
}

static const tp_epilogue_ops ops = {
    .struct_size = sizeof(tp_epilogue_ops),
    .plan = bias_silu_plan,
    .cpu_apply = bias_silu_cpu_apply,
    .gpu_args = bias_silu_gpu_args,
};

static const tp_plugin_desc plugin = {
    .struct_size = sizeof(tp_plugin_desc),
    .abi_major = TP_PLUGIN_ABI_MAJOR,
    .abi_minor = TP_PLUGIN_ABI_MINOR,
    .name = "bias_silu",
    .kind = TP_PLUGIN_EPILOGUE,
    .version = "1.0.0",
    .epilogue = &ops,
#if TP_KIT_DEVICE_CODE
    TP_KIT_DEVICE_IMAGE_FIELDS,
#endif
};

const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  (void)host;
  return &plugin;
}
