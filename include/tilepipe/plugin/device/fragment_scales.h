/* tilepipe/plugin/device/fragment_scales.h: per-row and per-column f32 scales of
 * a consumer thread's accumulator fragment.
 *
 * A mainloop whose output is scaled per row of A and/or per column of B
 * (a per-token and a per-channel scale: the int8 examples) loads the
 * tile's scales into registers in its tile_begin, where the load hides
 * under the mainloop, and applies them in tile_end. wgmma's fragment
 * (tilepipe/plugin/device/wgmma.h) gives thread l of warp w in warpgroup wg the
 * accumulators acc[4j + 2h + e]: row 16w + g + 8h of the warpgroup's 64
 * (g = l / 4) and column 8j + 2q + e of the tile (q = l % 4), j < BN / 8.
 *
 * Rows: the thread's two rows' scales, two registers. Columns: the BN / 4
 * columns a thread touches would take BN / 4 registers; instead lane
 * 4i + q keeps the scales of columns 8(8r + i) + 2q + e (r < ceil(BN / 64),
 * e < 2), so that a warp holds each of the tile's columns once, and
 * tile_end fetches column 8j + 2q + e from lane 4(j % 8) + q, register
 * j / 8, with a shuffle: 2 ceil(BN / 64) registers a thread. Rows and
 * columns past M and N read the last one's scale (their results are
 * dropped), so no load leaves the vectors. */
#ifndef TILEPIPE_PLUGIN_DEVICE_FRAGMENT_SCALES_H
#define TILEPIPE_PLUGIN_DEVICE_FRAGMENT_SCALES_H

#include <stdint.h>

#include "tilepipe/internal/kernel/kernel_schedule.h"

/* The column scales of a BN-wide tile, spread over the warp. */
template <int BN>
struct tp_fragment_columns {
  static constexpr int rounds = (BN / 8 + 7) / 8;
  float v[rounds][2];
};

/* The thread's two rows' scales: scale[row] for the rows of warpgroup wg
 * of the tile whose first row is m0; M rows in all. */
TP_KERNEL_FN void tp_fragment_rows_load(float (&v)[2], const float *scale, int32_t m0,
                                        uint32_t wg, int32_t m) {
  const uint32_t lane = threadIdx.x % 32u, warp = threadIdx.x % 128u / 32u;
  const int32_t row = m0 + (int32_t)(wg * 64u + warp * 16u + lane / 4u);
  v[0] = __ldg(scale + min(row, m - 1));
  v[1] = __ldg(scale + min(row + 8, m - 1));
}

/* The lane's share of the column scales scale[col] of the tile whose first
 * column is n0; N columns in all. */
template <int BN>
TP_KERNEL_FN void tp_fragment_columns_load(tp_fragment_columns<BN> &s, const float *scale,
                                           int32_t n0, int32_t n) {
  const uint32_t lane = threadIdx.x % 32u;
#pragma unroll
  for (int r = 0; r < tp_fragment_columns<BN>::rounds; ++r) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int32_t col = n0 + (int32_t)((r * 8u + lane / 4u) * 8u + 2u * (lane % 4u)) + e;
      s.v[r][e] = __ldg(scale + min(col, n - 1));
    }
  }
}

/* The scale of the thread's column 8j + 2q + e. Every lane of the warp
 * calls it with the same j and e (a shuffle). */
template <int BN>
TP_KERNEL_FN float tp_fragment_columns_get(const tp_fragment_columns<BN> &s, int j, int e) {
  return __shfl_sync(0xffffffffu, s.v[j / 8][e], (int)(4u * (uint32_t)(j % 8) + threadIdx.x % 4u));
}

#endif
