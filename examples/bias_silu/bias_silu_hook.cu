/* bias_silu_hook.cu: bias_silu on the GPU, D = silu(alpha*acc + bias[col]).
 *
 * The hook contract (tilepipe/plugin/device/epilogue.h): one extern "C"
 * __device__ function, not __forceinline__ (alone in its translation unit
 * it would never be emitted). The payload kernel calls it for every output
 * element with the f32 accumulator; nvJitLink inlines it into the kernel at
 * plan time. The bias's address and dtype come from the user bytes that
 * plugin.c's gpu_args wrote (bias_silu_args.h). The kernel converts the
 * returned f32 to D's dtype. silu matches plugin.c's: x / (1 + exp(-x)),
 * with the accurate expf. The Makefile compiles this to LTO-IR:
 *   nvcc -dc -fatbin -gencode arch=compute_90a,code=lto_90a */
#include <tilepipe/plugin/device/epilogue.h>
#include <tilepipe/plugin/dtype_codec.h>

#include "bias_silu_args.h"

extern "C" __device__ float tp_epilogue_apply(const tp_epilogue_args *args, float acc,
                                              float source, int32_t row, int32_t col) {
  (void)source; /* the plan asked for no C */
  (void)row;
  const bias_silu_args *u = (const bias_silu_args *)args->user;
  const float bias = tp_codec_load((tp_dtype)u->bias_dtype, (const void *)u->bias, col);
  const float x = args->alpha * acc + bias;
  return x / (1.0f + expf(-x));
}
