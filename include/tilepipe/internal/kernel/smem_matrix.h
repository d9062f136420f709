/* tilepipe/internal/kernel/smem_matrix.h: 16-bit accumulator fragments to and from
 * shared memory, four 8x8 matrices per instruction (ldmatrix / stmatrix).
 *
 * A warp's share of a wgmma accumulator is 16 rows; thread `lane` holds, for
 * every column group j of 8 columns, the values at row lane/4 (and lane/4 +
 * 8) and columns 8j + 2(lane%4), +1: the layout of one 8x8 matrix per (j,
 * row half). ldmatrix.x4 and stmatrix.x4 move four such matrices, 8 values
 * per thread, in one instruction; a thread's register i is the pair of
 * values of matrix i at its fragment position. With one 32-bit st.shared
 * per pair instead, the epilogue of a 128 x 256 tile ran 4 times as many
 * shared-memory instructions per thread (16 against 64).
 *
 * tp_smem_matrix_lane_addr places the four matrices of column groups j and
 * j + 1 of the warp's 16 rows in a tile of 128-byte rows, 128B-swizzled (TMA's
 * SWIZZLE_128B: 16-byte unit u of row r sits at unit u ^ (r % 8)): matrix 0
 * is (j, rows 0-7), 1 (j, rows 8-15), 2 (j + 1, rows 0-7), 3 (j + 1, rows
 * 8-15), so registers 0..3 hold the fragment's values of (j, half 0), (j,
 * half 1), (j + 1, half 0), (j + 1, half 1). Each lane passes the address
 * of one matrix row: lane l row l % 8 of matrix l / 8. tp_smem_swizzle128
 * is that layout's byte offset, for code that moves values one by one
 * (f32 tiles, ragged edges). tp_smem_matrix_lane_addr_dense does the same
 * in an unswizzled tile of narrower rows (a tile's last, partial chunk). */
#ifndef TILEPIPE_INTERNAL_KERNEL_SMEM_MATRIX_H
#define TILEPIPE_INTERNAL_KERNEL_SMEM_MATRIX_H

#include <stdint.h>

#define TP_SMEM_MATRIX_FN static __device__ __forceinline__

/* Byte offset of byte col_byte of row `row` in a tile of 128-byte rows,
 * 128B-swizzled: 16-byte units XOR row % 8 (what TMA's SWIZZLE_128B does). */
TP_SMEM_MATRIX_FN uint32_t tp_smem_swizzle128(uint32_t row, uint32_t col_byte) {
  return row * 128u + ((((col_byte >> 4) ^ (row & 7u)) << 4) | (col_byte & 15u));
}

/* The matrix row that this lane addresses for column groups (j, j + 1) of
 * the warp's rows first_row..first_row + 15 (a multiple of 8): its row and
 * its 16-byte unit within the row. */
TP_SMEM_MATRIX_FN void tp_smem_matrix_lane_pos(uint32_t first_row, int j, uint32_t *row,
                                               uint32_t *unit) {
  const uint32_t lane = threadIdx.x % 32u, matrix = lane / 8u;
  *row = first_row + (matrix & 1u) * 8u + lane % 8u;
  *unit = (uint32_t)j + (matrix >> 1);
}

/* This lane's row address for column groups (j, j + 1) of the warp's rows
 * first_row..first_row + 15 in the swizzled tile at shared address `tile`. */
TP_SMEM_MATRIX_FN uint32_t tp_smem_matrix_lane_addr(uint32_t tile, uint32_t first_row, int j) {
  uint32_t row, unit;
  tp_smem_matrix_lane_pos(first_row, j, &row, &unit);
  return tile + tp_smem_swizzle128(row, unit << 4);
}

/* The same in an unswizzled tile of dense rows `pitch` bytes apart (a
 * multiple of 16: TMA's plain box layout). */
TP_SMEM_MATRIX_FN uint32_t tp_smem_matrix_lane_addr_dense(uint32_t tile, uint32_t pitch,
                                                          uint32_t first_row, int j) {
  uint32_t row, unit;
  tp_smem_matrix_lane_pos(first_row, j, &row, &unit);
  return tile + row * pitch + (unit << 4);
}

TP_SMEM_MATRIX_FN void tp_smem_matrix_load_x4(uint32_t addr, uint32_t v[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
               : "r"(addr)
               : "memory");
}

TP_SMEM_MATRIX_FN void tp_smem_matrix_store_x4(uint32_t addr, const uint32_t v[4]) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
               "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
               : "memory");
}

#endif
