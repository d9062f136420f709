/* plugins/block_scaled/device/block_scaled_params.h: the block-scaled
 * kernels' one parameter and the operand groups they exist for (MXFP8:
 * e4m3 or e5m2 elements with a ue8m0 scale per 32 K-elements of each row).
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

/* MXFP8 W8A8: K of a fold block (four vectors: the block whose largest
 * scale the others are folded against), the blocks a stage holds (two:
 * one ran 25-30% slower on the H100), and the widest tile (a tile's
 * columns in one 128-row block of B). */
#define BLOCK_SCALED_FOLD_BLOCK 128
#define BLOCK_SCALED_STEP_BLOCKS 2
#define BLOCK_SCALED_W8A8_MAX_TILE_N 128
/* Bytes of one unit of the 128x4 tiled scale layout: 128 rows x 4 codes
 * (one fold block of K), which W8A8's loader copies into each stage. */
#define BLOCK_SCALED_CODE_UNIT 512

/* X(NAME, A, B): the operand groups with kernels, NAME their part of the
 * kernel name (tp_block_scaled_<NAME>_...), one LTO-IR image each:
 * MXFP8 W8A16 (bf16 A; B e4m3 or e5m2, told by b_e5m2: TP_DTYPE_NONE
 * here) and MXFP8 W8A8 for each fp8 pair. */
#define TP_BLOCK_SCALED_OPERANDS(X)          \
  X(bf16_mx8, TP_DTYPE_BF16, TP_DTYPE_NONE)  \
  X(e4m3_e4m3, TP_DTYPE_E4M3, TP_DTYPE_E4M3) \
  X(e4m3_e5m2, TP_DTYPE_E4M3, TP_DTYPE_E5M2) \
  X(e5m2_e4m3, TP_DTYPE_E5M2, TP_DTYPE_E4M3) \
  X(e5m2_e5m2, TP_DTYPE_E5M2, TP_DTYPE_E5M2)

/* One operand's ue8m0 codes, [rows, K/32]: strided, code (r, g) at
 * data[r * ld + g]; or in the 128x4 tiled layout (tiled 1,
 * docs/payloads.md). */
typedef struct tp_block_scaled_codes {
  const uint8_t *data;
  int64_t ld;
  int32_t tiled;
} tp_block_scaled_codes;

typedef struct tp_block_scaled_params {
  /* W8A16: bf16 A (128-byte rows), fp8 B (64-byte rows), 64 of K a
   * k-block; W8A8: fp8 A and B, 128-byte rows, a k-tile a fold block. */
  tp_kernel_operands ab;
  tp_kernel_params kernel;
  /* Read by the converting consumers from global memory; a_scale only
   * under W8A8. */
  tp_block_scaled_codes a_scale, b_scale;
  int32_t scale_cols; /* K/32 */
  int32_t b_e5m2;     /* W8A16's B dtype: 1 e5m2, 0 e4m3 */
} tp_block_scaled_params;

#endif
