/* int8_w8a16_params.h: the int8_w8a16 kernels' one parameter, shared by
 * the host (gpu.c, C11) and the kernels (int8_w8a16_kernel.cu).
 *
 * Plain data, read as a __grid_constant__: the operands' TMA descriptors
 * (K-major tiles of 64 elements of K a k-block: bf16 A in 128-byte rows,
 * s8 B in 64-byte rows), the skeleton's part (tilepipe/plugin/kernel/params.h),
 * and the per-channel scales in device memory. */
#ifndef INT8_W8A16_PARAMS_H
#define INT8_W8A16_PARAMS_H

#include <tilepipe/plugin/kernel/params.h>

typedef struct w8a16_params {
  tp_kernel_operands ab;
  tp_kernel_params kernel;
  const float *b_scale; /* N scales, b_scale[n] for row n of B (column n of D) */
} w8a16_params;

#endif
