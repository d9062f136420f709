/* plugins/block_scaled/device/block_scaled_params.h: the block-scaled
 * kernels' one parameter (MXFP8 W8A16: bf16 A, e4m3 or e5m2 B with a
 * ue8m0 scale per 32 K-elements of each row).
 *
 * Built by the plugin's host code (gpu.c, C11) and read by the kernels
 * (block_scaled_mainloop.cu) as a __grid_constant__: plain data, TMA
 * descriptors first (64-byte aligned). */
#ifndef TP_BLOCK_SCALED_PARAMS_H
#define TP_BLOCK_SCALED_PARAMS_H

#include <stdint.h>

#include "tilepipe/plugin/kernel/params.h"

/* K-elements sharing one scale (MXFP8's vector). */
#define BLOCK_SCALED_MX_VEC 32

typedef struct tp_block_scaled_params {
  tp_kernel_operands ab; /* bf16 A (128-byte rows), fp8 B (64-byte rows), 64 of K a k-block */
  tp_kernel_params kernel;
  /* b_scale [N, K/32] ue8m0 codes, read by the converting consumers from
   * global memory: strided, scale (n, g) at b_scale[n * b_scale_ld + g];
   * or in the 128x4 tiled layout (b_scale_tiled 1, docs/payloads.md). */
  const uint8_t *b_scale;
  int64_t b_scale_ld;
  int32_t b_scale_cols; /* K/32 */
  int32_t b_scale_tiled;
  int32_t b_e5m2; /* B's fp8 dtype: 1 e5m2, 0 e4m3 */
} tp_block_scaled_params;

#endif
