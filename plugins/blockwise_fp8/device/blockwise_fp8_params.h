/* plugins/blockwise_fp8/device/blockwise_fp8_params.h: the blockwise FP8
 * kernels' one parameter.
 *
 * Built by the plugin's host code (gpu.c, C11) and read by the kernels
 * (blockwise_fp8_mainloop.cu) as a __grid_constant__: plain data, TMA
 * descriptors first (64-byte aligned). */
#ifndef TP_BLOCKWISE_FP8_PARAMS_H
#define TP_BLOCKWISE_FP8_PARAMS_H

#include "tilepipe/plugin/kernel/params.h"

/* The widest tile: a tile's columns then lie in one 128-column block of
 * B's scales (wider tiles, through one temporary accumulator beside the
 * skeleton's, either spill or run slower: docs/kernel.md). */
#define BLOCKWISE_MAX_TILE_N 128

/* Scale blocks (128 of K) in one step of the kernel's k-loop, one stage:
 * the consumers drain their wgmma once per step. */
#define BLOCKWISE_STEP_BLOCKS 2

typedef struct tp_blockwise_fp8_params {
  tp_kernel_operands ab; /* e4m3 A and B, K-major, 128 of K per k-block */
  /* a_scale [ceil(K/128), M] f32, M contiguous: boxes of tile_m scales of
   * one k-block, loaded into each stage beside A. */
  tp_tma_desc a_scale;
  tp_kernel_params kernel;
  /* b_scale [ceil(N/128), ceil(K/128)] f32: the scale of B's 128 x 128
   * block (nb, kb) at b_scale[nb * b_scale_ld + kb], read by the consumers
   * from global memory, a k-block ahead. */
  const float *b_scale;
  int64_t b_scale_ld;
} tp_blockwise_fp8_params;

#endif
