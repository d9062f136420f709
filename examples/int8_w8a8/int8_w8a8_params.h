/* int8_w8a8_params.h: the int8_w8a8 kernels' one parameter, shared by the
 * host (gpu.c, C11) and the kernels (int8_w8a8_kernel.cu).
 *
 * Plain data, read as a __grid_constant__: the operands' TMA descriptors
 * (K-major s8 tiles, 128 bytes of K per k-block), the skeleton's part
 * (tilepipe/plugin/kernel/params.h), and the two scale vectors in device memory. */
#ifndef INT8_W8A8_PARAMS_H
#define INT8_W8A8_PARAMS_H

#include <tilepipe/plugin/kernel/params.h>

/* The widest tile: at 256 columns the s32 sums' conversion and scales no
 * longer fit a consumer warpgroup's 232 registers beside 128 accumulators
 * (the link's ptxas report shows a spill); 192 (the kernel's max_tile_n,
 * gpu_plan's limit). */
#define W8A8_MAX_TILE_N 192

typedef struct w8a8_params {
  tp_kernel_operands ab;
  tp_kernel_params kernel;
  const float *a_scale; /* M scales, a_scale[m] for row m of A */
  const float *b_scale; /* N scales, b_scale[n] for row n of B (column n of D) */
} w8a8_params;

#endif
