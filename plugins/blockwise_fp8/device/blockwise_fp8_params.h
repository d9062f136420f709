/* plugins/blockwise_fp8/device/blockwise_fp8_params.h: the blockwise FP8
 * kernels' one parameter.
 *
 * Built by the plugin's host code (gpu.c, C11) and read by the kernels
 * (blockwise_fp8_mainloop.cu) as a __grid_constant__: plain data, TMA
 * descriptors first (64-byte aligned). */
#ifndef TP_BLOCKWISE_FP8_PARAMS_H
#define TP_BLOCKWISE_FP8_PARAMS_H

#include "tilepipe/plugin/kernel/params.h"

typedef struct tp_blockwise_fp8_params {
  tp_kernel_operands ab; /* e4m3 A and B, K-major, 128 of K per k-tile */
  /* a_scale [ceil(K/128), M] and b_scale [ceil(N/128), ceil(K/128)], f32,
   * as the skeleton's blockwise-scaled mainloop reads them (tilepipe/
   * plugin/device/blockwise_mainloop.h). */
  tp_tma_desc a_scale;
  tp_kernel_params kernel;
  const float *b_scale;
  int64_t b_scale_ld;
} tp_blockwise_fp8_params;

#endif
