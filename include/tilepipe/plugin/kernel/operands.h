/* tilepipe/plugin/kernel/operands.h: the geometry of K-major A and B tiles, for
 * the host planner and the device loads alike.
 *
 * A mainloop whose stage holds A's and B's k-block tiles
 * (tilepipe/plugin/device/kernel_operands.h) steps K by one 128-byte row of the
 * wider operand: 64 of K for bf16, 128 for e4m3 or s8, 256 for e2m1. Each
 * operand's tile row holds that K in its own dtype: 128 bytes for the
 * wider operand (for both of a same-width pair), fewer for a narrower one
 * (bf16 A x s8 B: A's rows 128 bytes, B's 64; bf16 x e2m1: B's 32; e4m3 x
 * e2m1: 128 and 64). Each tile lies in shared memory swizzled by its
 * row's bytes: a 128-byte row as wgmma reads it, a narrower operand's rows
 * back to back (row r at r x its row bytes, its 16-byte chunks permuted,
 * tp_kernel_operand_chunk) for the mainloop to convert. The host planner
 * sizes the stage tensors and the TMA boxes by these rules
 * (tilepipe/plugin/kernel/layout.h, tilepipe/plugin/kernel/args.h), the
 * kernel its loads, offsets and announced bytes (a k-block's loads bring
 * rows x row bytes of each operand).
 *
 * Functions of the dtypes' bits: plain C11 on the host, constexpr
 * __host__ __device__ under nvcc, so that device code can take them as
 * template arguments. */
#ifndef TILEPIPE_PLUGIN_KERNEL_OPERANDS_H
#define TILEPIPE_PLUGIN_KERNEL_OPERANDS_H

#include <stdint.h>

#include "tilepipe/plugin/kernel/params.h"

#ifdef __CUDACC__
#define TP_KERNEL_OPERAND_FN static constexpr __host__ __device__ __forceinline__
#else
#define TP_KERNEL_OPERAND_FN static inline
#endif

/* Elements of a `bits`-bit dtype in one 128-byte row. */
TP_KERNEL_OPERAND_FN uint32_t tp_kernel_row_elems(uint32_t bits) {
  return TP_KERNEL_ROW_BYTES * 8u / bits;
}

/* K of a k-block of an a_bits x b_bits pair: one 128-byte row of the wider. */
TP_KERNEL_OPERAND_FN uint32_t tp_kernel_operand_k_elems(uint32_t a_bits, uint32_t b_bits) {
  return tp_kernel_row_elems(a_bits > b_bits ? a_bits : b_bits);
}

/* Bytes of a tile row of the `bits`-bit operand of an a_bits x b_bits pair. */
TP_KERNEL_OPERAND_FN uint32_t tp_kernel_operand_row_bytes(uint32_t bits, uint32_t a_bits,
                                                          uint32_t b_bits) {
  return tp_kernel_operand_k_elems(a_bits, b_bits) * bits / 8u;
}

/* The TMA column of element k of a `bits`-bit operand: TMA moves a packed
 * sub-byte dtype as bytes (core/backend/cuda/tma_encode.c). */
TP_KERNEL_OPERAND_FN int32_t tp_kernel_operand_tma_col(uint32_t bits, int32_t k) {
  return bits < 8u ? k / (int32_t)(8u / bits) : k;
}

/* The TMA swizzle, in bytes, of an operand tile whose rows are row_bytes:
 * the row's own span (128, 64 or 32), so that the 16-byte chunks at one
 * column of any 8 consecutive rows lie in distinct banks, for wgmma's
 * reads of a 128-byte row and a converter's of a narrower one (8 rows of
 * 64 bytes unswizzled would be a 4-way bank conflict); none for rows of
 * 16 bytes. */
TP_KERNEL_OPERAND_FN uint32_t tp_kernel_operand_swizzle(uint32_t row_bytes) {
  return row_bytes == 32u || row_bytes == 64u || row_bytes == TP_KERNEL_ROW_BYTES ? row_bytes
                                                                                   : 0u;
}

/* Where chunk c (16 bytes) of row r of an operand tile of row_bytes rows
 * lies, in chunks from the tile's start (which is 1024-aligned): TMA's
 * swizzle of row_bytes XORs the chunk index with the address bits above
 * 128 bytes. */
TP_KERNEL_OPERAND_FN uint32_t tp_kernel_operand_chunk(uint32_t row_bytes, uint32_t r, uint32_t c) {
  return r * (row_bytes / 16u) + (c ^ r * row_bytes / TP_KERNEL_ROW_BYTES % (row_bytes / 16u));
}

#endif
