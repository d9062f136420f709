/* tilepipe/plugin/kit/tile_load.h: the CPU "TMA": one tile of a K-major matrix
 * into a stage, decoded to f32 (or, bf16, kept as its codes), zero outside
 * the matrix.
 *
 * Decoding is exact (every tilepipe dtype is a subset of f32), so staging
 * f32 changes no result; it only moves the decode from the consumers, which
 * would repeat it per row, to the producer, which does it once per k-block.
 * A vector (a scale per row, say) is a matrix of one row: rows = 1, r0 = 0.
 * Part of the plugin kit (libtilepipe_kit). */
#ifndef TILEPIPE_PLUGIN_KIT_TILE_LOAD_H
#define TILEPIPE_PLUGIN_KIT_TILE_LOAD_H

#include <stdint.h>

#include "tilepipe/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i * tile_cols + j] = t(r0 + i, c0 + j) for 0 <= i < tile_rows,
 * 0 <= j < tile_cols, where t is a strided matrix with `rows` x `cols` valid
 * elements (row stride t->stride[0], unit inner stride); 0 where the index
 * falls outside. Nothing outside the valid elements is read. */
void tp_kit_tile_load_f32(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                          int32_t tile_rows, int32_t tile_cols, float *dst);

/* The same tile of a bf16 matrix as its codes, unconverted (0 outside t),
 * for a micro-kernel that multiplies bf16 itself; t must be bf16. */
void tp_kit_tile_load_bf16(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                           int32_t tile_rows, int32_t tile_cols, uint16_t *dst);

#ifdef __cplusplus
}
#endif

#endif
