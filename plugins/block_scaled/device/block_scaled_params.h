/* plugins/block_scaled/device/block_scaled_params.h: the block-scaled
 * kernels' one parameter and the operand groups they exist for (MXFP8:
 * e4m3 or e5m2 elements with a ue8m0 scale per 32 K-elements of each row;
 * 4-bit weights: NVFP4 and MXFP4 under bf16 A).
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

/* MXFP8 W8A8: K of a fold block, four vectors, whose largest scale the
 * others are folded against (the blockwise-scaled mainloop's scale block,
 * TP_BLOCKWISE_K). */
#define BLOCK_SCALED_FOLD_BLOCK 128
/* Rows of an operand one CTA of the fold prologue folds (one unit of the
 * 128x4 tiled scale layout: 128 rows x 4 codes, 512 bytes). */
#define BLOCK_SCALED_FOLD_ROWS 128
#define BLOCK_SCALED_FOLD_THREADS 256

/* Weight-only modes (bf16 A) up to this M: the transposed kernels (tiles
 * of 128 rows of B by 8 to 64 of A, B converted in registers), the
 * widest transposed tile of tilepipe/plugin/kernel/tiles.h. */
#define BLOCK_SCALED_W8A16_TRANSPOSED_M 64
/* 64-K k-tiles (one 128-byte row of bf16) a stage of those kernels holds. */
#define BLOCK_SCALED_W8A16_TRANSPOSED_K_TILES 2

/* MXFP8 W8A16 from this M on: B dequantized to bf16 by a prologue, then
 * the bf16 GEMM (device/fold.h); below it, B converted in each stage
 * (bench/results/2026-11-28c-h100-block-scaled-anchors.txt). W4A16 past
 * the transposed kernels' M is always dequantized. */
#define BLOCK_SCALED_W8A16_DEQUANTIZE_M 512

/* B's format under a weight-only mode (bf16 A), the kernels' b_format:
 * MXFP8 (e4m3 or e5m2, ue8m0 per 32), NVFP4 (e2m1, ue4m3 per 16), MXFP4
 * (e2m1, ue8m0 per 32). */
#define BLOCK_SCALED_B_E4M3 0
#define BLOCK_SCALED_B_E5M2 1
#define BLOCK_SCALED_B_NVFP4 2
#define BLOCK_SCALED_B_MXFP4 3

/* X(NAME, A, B, T): the operand groups with kernels, NAME their part of
 * the kernel name (tp_block_scaled_<NAME>_...), one LTO-IR image each:
 * MXFP8 W8A16 converting B (bf16 A; B e4m3 or e5m2, told by b_format:
 * TP_DTYPE_NONE here), in each stage or, at decode-sized M, in registers
 * on the transposed tiles (T 1: the group also has the transposed
 * kernels), W4A16 (bf16 A, e2m1 B, NVFP4 or MXFP4) on the transposed
 * tiles alone (T 2), W8A16 and W4A16 on B dequantized (bf16 x bf16 after
 * the prologue), and MXFP8 W8A8 for each fp8 pair (folded by the
 * prologue). */
#define TP_BLOCK_SCALED_OPERANDS(X)             \
  X(bf16_mx8, TP_DTYPE_BF16, TP_DTYPE_NONE, 1)  \
  X(bf16_fp4, TP_DTYPE_BF16, TP_DTYPE_E2M1, 2)  \
  X(bf16_bf16, TP_DTYPE_BF16, TP_DTYPE_BF16, 0) \
  X(e4m3_e4m3, TP_DTYPE_E4M3, TP_DTYPE_E4M3, 0) \
  X(e4m3_e5m2, TP_DTYPE_E4M3, TP_DTYPE_E5M2, 0) \
  X(e5m2_e4m3, TP_DTYPE_E5M2, TP_DTYPE_E4M3, 0) \
  X(e5m2_e5m2, TP_DTYPE_E5M2, TP_DTYPE_E5M2, 0)

/* One operand's scale codes (ue8m0, or ue4m3 for NVFP4), [rows, K/vec]:
 * strided, code (r, g) at data[r * ld + g]; or in the 128x4 tiled layout
 * (tiled 1, docs/payloads.md). */
typedef struct tp_block_scaled_codes {
  const uint8_t *data;
  int64_t ld;
  int32_t tiled;
} tp_block_scaled_codes;

/* The prologue's (device/fold.h): the caller's operands, and where in the
 * plan's workspace it writes what the kernel reads. W8A8: A and B folded
 * (K bytes a row) and their scales as the blockwise-scaled mainloop reads
 * them (a_scale [ceil(K/128), M], rows a_scale_ld floats apart; b_scale
 * [ceil(N/128), ceil(K/128)]). W8A16 at large M: B dequantized, bf16 [N,
 * K] at b_out (a, a_out and the scales unused; ldb in bytes). W4A16 on
 * the transposed kernels: A with each 64 of K permuted, bf16 [M, K] at
 * a_out (B, b_out and the scales unused; lda in bytes). */
typedef struct tp_block_scaled_prologue {
  const uint8_t *a, *b;
  int64_t lda, ldb; /* bytes */
  uint8_t *a_out, *b_out;
  float *a_scale, *b_scale;
  int64_t a_scale_ld;
} tp_block_scaled_prologue;

typedef struct tp_block_scaled_params {
  /* W8A16: bf16 A (128-byte rows), fp8 B (64-byte rows), 64 of K a
   * k-block, the caller's, or at large M A and the dequantized B, bf16
   * both; W8A8: the folded fp8 A and B, 128 of K a k-tile. */
  tp_kernel_operands ab;
  /* W8A8: the folded operands' scales, as tilepipe/plugin/device/
   * blockwise_mainloop.h reads them. */
  tp_tma_desc a_scale;
  tp_kernel_params kernel;
  const float *b_scale;
  int64_t b_scale_ld;
  /* The caller's codes: B's read by W8A16's converting consumers, both
   * by the prologue. */
  tp_block_scaled_codes a_codes, b_codes;
  tp_block_scaled_prologue prologue;
  int32_t scale_cols; /* K/vec of B's format */
  int32_t b_format;   /* weight-only modes: B's format, BLOCK_SCALED_B_* (the caller's,
                         also where the prologue dequantizes it) */
} tp_block_scaled_params;

#endif
