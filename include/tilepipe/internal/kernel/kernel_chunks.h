/* tilepipe/internal/kernel/kernel_chunks.h: the output tile in chunks.
 *
 * The epilogue writes a tile's D, and reads its C, chunk by chunk through a
 * ring of shared-memory chunks (the output tile pipeline): a chunk is the
 * tile's rows x 128 bytes of D, 128B-swizzled, which one TMA box stores.
 * A width that is not whole chunks (176 columns of a 16-bit D: two chunks
 * and 48 columns) ends in a tail chunk of tail_cols columns in dense,
 * unswizzled rows of tail_cols x d_bytes bytes: TMA stores and loads it
 * through boxes of its own width (tp_kernel_params.d_tail, c_tail), since
 * a whole chunk's box would write into the next tile. */
#ifndef TILEPIPE_INTERNAL_KERNEL_KERNEL_CHUNKS_H
#define TILEPIPE_INTERNAL_KERNEL_KERNEL_CHUNKS_H

#include <stdint.h>

#include "tilepipe/internal/kernel/smem_matrix.h"
#include "tilepipe/dtype.h"
#include "tilepipe/plugin/kernel/params.h"

#define TP_KERNEL_FN static __device__ __forceinline__

template <int BN, int DT>
struct tp_kernel_chunks {
  static constexpr int d_bytes = DT == TP_DTYPE_F32 ? 4 : 2;
  static constexpr int cols = TP_KERNEL_ROW_BYTES / d_bytes;
  static constexpr int count = (BN + cols - 1) / cols;
  static constexpr int tail_cols = BN % cols; /* 0: every chunk whole */
  static constexpr int tail_pitch = tail_cols * d_bytes;
  static_assert(tail_cols % 16 == 0, "a tail chunk is whole pairs of column groups");
};

/* Whether chunk c is a tail chunk, and its columns. */
template <int BN, int DT>
TP_KERNEL_FN bool tp_kernel_chunk_is_tail(int c) {
  return tp_kernel_chunks<BN, DT>::tail_cols != 0 && c == tp_kernel_chunks<BN, DT>::count - 1;
}

template <int BN, int DT>
TP_KERNEL_FN int tp_kernel_chunk_cols(int c) {
  return tp_kernel_chunk_is_tail<BN, DT>(c) ? tp_kernel_chunks<BN, DT>::tail_cols
                                            : tp_kernel_chunks<BN, DT>::cols;
}

/* Byte offset of byte `col_byte` of row `row` in chunk c. */
template <int BN, int DT>
TP_KERNEL_FN uint32_t tp_kernel_chunk_offset(int c, uint32_t row, uint32_t col_byte) {
  return tp_kernel_chunk_is_tail<BN, DT>(c) ? row * tp_kernel_chunks<BN, DT>::tail_pitch + col_byte
                                            : tp_smem_swizzle128(row, col_byte);
}

/* This lane's ldmatrix / stmatrix row address for column groups (j, j + 1)
 * of the warp's rows in chunk c at shared address `chunk`. */
template <int BN, int DT>
TP_KERNEL_FN uint32_t tp_kernel_chunk_lane_addr(int c, uint32_t chunk, uint32_t first_row, int j) {
  return tp_kernel_chunk_is_tail<BN, DT>(c)
             ? tp_smem_matrix_lane_addr_dense(chunk, tp_kernel_chunks<BN, DT>::tail_pitch,
                                              first_row, j)
             : tp_smem_matrix_lane_addr(chunk, first_row, j);
}

#endif
