/* tilepipe/internal/kernel/kernel_epilogue.h: a consumer warpgroup's epilogue.
 *
 * After the mainloop, each consumer warpgroup turns its f32 accumulators
 * (rows 64wg..64wg+63 of the tile, wgmma's fragment layout:
 * tilepipe/plugin/device/wgmma.h) into D, chunk by chunk (kernel_chunks.h): the
 * chunk (holding C when there is one), the epilogue hook
 * (tilepipe/plugin/device/epilogue.h) per element, D's dtype, the same chunk,
 * then the chunk to the store warp, which stores it by TMA and frees it
 * for the next chunk of C. A transposed tile (tiles.h) writes D, and reads
 * C, straight from registers instead (tp_kernel_epilogue_transposed).
 *
 * When K is short the epilogue is on the critical path, so the hook's loop
 * is straight-line code: per element the hook, a conversion and a shared
 * store, nothing else. Branches stay outside it: the source dtype
 * (tp_kernel_source_fetch) and D's right edge (tp_kernel_store_ragged,
 * chunks that reach n_tma only); the chunk and step bounds are constants
 * once the loops are unrolled. Outside D the hook runs at clamped indices
 * and the TMA store clips its results, which keeps one hook call site per
 * element rather than a bounds-checked copy (code size, and link time with
 * a heavy hook). */
#ifndef TILEPIPE_INTERNAL_KERNEL_KERNEL_EPILOGUE_H
#define TILEPIPE_INTERNAL_KERNEL_KERNEL_EPILOGUE_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

#include "tilepipe/plugin/device/epilogue.h"
#include "tilepipe/internal/kernel/kernel_source.h"

/* A thread's place in a chunk's epilogue: fragment column group j (8
 * columns), half (rows +0 / +8); it owns columns col, col + 1 of row `row`. */
typedef struct tp_kernel_chunk_pos {
  uint32_t row, col;
} tp_kernel_chunk_pos;

/* The first of the 16 chunk rows that this thread's warp of consumer
 * warpgroup wg holds. */
TP_KERNEL_FN uint32_t tp_kernel_warp_first_row(uint32_t wg) {
  return wg * 64u + threadIdx.x % 128u / 32u * 16u;
}

TP_KERNEL_FN tp_kernel_chunk_pos tp_kernel_chunk_pos_of(uint32_t wg, int j, int half) {
  const uint32_t lane = threadIdx.x % 32u;
  tp_kernel_chunk_pos q;
  q.row = tp_kernel_warp_first_row(wg) + lane / 4u + 8u * (uint32_t)half;
  q.col = (uint32_t)j * 8u + 2u * (lane % 4u);
  return q;
}

/* Column groups the epilogue handles per step: their C values (16 floats)
 * and results sit in registers while the hook runs. */
enum { TP_KERNEL_EPI_STEP_J = 4 };

/* What the chunk holds before the epilogue writes D over it: nothing, C in
 * D's (16-bit) dtype, or f32 C (in one 128-byte box per 32 columns). Tested
 * once per step, outside the loads: the branch is uniform and the loops
 * inside each case straight-line. */
enum tp_kernel_source_kind { TP_KERNEL_SOURCE_NONE, TP_KERNEL_SOURCE_AS_D, TP_KERNEL_SOURCE_F32 };

template <int DT>
TP_KERNEL_FN int tp_kernel_source_kind_of(int32_t source_dtype) {
  if (source_dtype == TP_DTYPE_NONE) return TP_KERNEL_SOURCE_NONE;
  return DT != TP_DTYPE_F32 && source_dtype == DT ? TP_KERNEL_SOURCE_AS_D : TP_KERNEL_SOURCE_F32;
}

/* Two 16-bit values of D's dtype (low half first) as floats, and back. */
template <int DT>
TP_KERNEL_FN float2 tp_kernel_unpack_pair(uint32_t v) {
  if (DT == TP_DTYPE_BF16)
    return make_float2(__uint_as_float(v << 16), __uint_as_float(v & 0xffff0000u));
  __half2 h;
  memcpy(&h, &v, sizeof v);
  return __half22float2(h);
}

template <int DT>
TP_KERNEL_FN uint32_t tp_kernel_pack_pair(float v0, float v1) {
  uint32_t v;
  if (DT == TP_DTYPE_BF16) {
    const __nv_bfloat162 b = __floats2bfloat162_rn(v0, v1);
    memcpy(&v, &b, sizeof v);
  } else {
    const __half2 h = __floats2half2_rn(v0, v1);
    memcpy(&v, &h, sizeof v);
  }
  return v;
}

/* The source values of column groups j0..j0+nj-1 (nj <= EPI_STEP_J, even)
 * of chunk c into s[4 j + 2 half + e] (the accumulator fragment's order),
 * or zeros without C. 16-bit C comes in with ldmatrix
 * (tilepipe/internal/kernel/smem_matrix.h), f32 C pair by pair. */
template <int BM, int BN, int DT>
TP_KERNEL_FN void tp_kernel_source_fetch(int c, const unsigned char *chunk, int kind, uint32_t wg,
                                         int j0, int nj, float *s) {
  if (kind == TP_KERNEL_SOURCE_NONE) {
#pragma unroll
    for (int i = 0; i < TP_KERNEL_EPI_STEP_J * 4; ++i) s[i] = 0.0f;
  } else if (DT != TP_DTYPE_F32 && kind == TP_KERNEL_SOURCE_AS_D) {
#pragma unroll
    for (int j = 0; j < TP_KERNEL_EPI_STEP_J; j += 2) {
      if (j >= nj) break;
      uint32_t v[4];
      tp_smem_matrix_load_x4(tp_kernel_chunk_lane_addr<BN, DT>(c, tp_smem_addr(chunk),
                                                               tp_kernel_warp_first_row(wg), j0 + j),
                             v);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const float2 f = tp_kernel_unpack_pair<DT>(v[i]);
        s[4 * j + 2 * i] = f.x;
        s[4 * j + 2 * i + 1] = f.y;
      }
    }
  } else {
    /* Never in a tail chunk: the host takes no f32 C under one. */
#pragma unroll
    for (int j = 0; j < TP_KERNEL_EPI_STEP_J; ++j) {
      if (j >= nj) break;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const tp_kernel_chunk_pos q = tp_kernel_chunk_pos_of(wg, j0 + j, half);
        const uint32_t box = q.col / 32u, cb = (q.col % 32u) * 4u;
        const float2 v =
            *(const float2 *)(chunk + box * BM * 128u + tp_smem_swizzle128(q.row, cb));
        s[4 * j + 2 * half] = v.x;
        s[4 * j + 2 * half + 1] = v.y;
      }
    }
  }
}

/* Writes the results d[4 j + 2 half + e] of column groups j0..j0+nj-1 of a
 * step into D chunk c: stmatrix for a 16-bit D, pair by pair for f32. */
template <int BN, int DT>
TP_KERNEL_FN void tp_kernel_chunk_write(int c, unsigned char *chunk, uint32_t wg, int j0, int nj,
                                        const float *d) {
  if (DT == TP_DTYPE_F32) {
#pragma unroll
    for (int j = 0; j < TP_KERNEL_EPI_STEP_J; ++j) {
      if (j >= nj) break;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const tp_kernel_chunk_pos q = tp_kernel_chunk_pos_of(wg, j0 + j, half);
        *(float2 *)(chunk + tp_kernel_chunk_offset<BN, DT>(c, q.row, q.col * 4u)) =
            make_float2(d[4 * j + 2 * half], d[4 * j + 2 * half + 1]);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < TP_KERNEL_EPI_STEP_J; j += 2) {
      if (j >= nj) break;
      uint32_t v[4];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        v[i] = tp_kernel_pack_pair<DT>(d[4 * j + 2 * i], d[4 * j + 2 * i + 1]);
      tp_smem_matrix_store_x4(tp_kernel_chunk_lane_addr<BN, DT>(c, tp_smem_addr(chunk),
                                                                tp_kernel_warp_first_row(wg), j0 + j),
                              v);
    }
  }
}

/* At D's edge: the warp copies the columns [n_tma, n) of its 16 rows < m
 * (col0: chunk c's first global column) out of the chunk it has just
 * written, already in D's dtype, straight to global memory. The TMA store
 * moves whole 16 bytes of a row only, so these are under 16 bytes of each
 * row: lane l copies row l % 16's columns l / 16, l / 16 + 2, ... of them.
 * It runs at D's right edge only, and its code sits in every chunk of the
 * unrolled epilogue, so it is kept small (the link's time: docs/kernel.md,
 * "Cold start"). */
template <int BN, int DT>
TP_KERNEL_FN void tp_kernel_store_ragged(const tp_kernel_params &k, int c,
                                         const unsigned char *chunk, int32_t m0, int32_t col0,
                                         uint32_t wg) {
  typedef tp_kernel_chunks<BN, DT> chunks;
  constexpr int per_lane = 16 / chunks::d_bytes / 2; /* a 16-byte granule's columns, 2 lanes a row */
  const uint32_t lane = threadIdx.x % 32u;
  const uint32_t row = tp_kernel_warp_first_row(wg) + lane % 16u;
  const int32_t grow = m0 + (int32_t)row;
  const int32_t from = max(k.n_tma - col0, 0);
  const int32_t end = min(k.n - col0, (int32_t)tp_kernel_chunk_cols<BN, DT>(c));
  if (grow >= k.m) return;
#pragma unroll
  for (int i = 0; i < per_lane; ++i) {
    const int32_t col = from + (int32_t)(lane / 16u) + 2 * i;
    if (col >= end) break;
    const unsigned char *src =
        chunk + tp_kernel_chunk_offset<BN, DT>(c, row, (uint32_t)col * chunks::d_bytes);
    unsigned char *dst =
        (unsigned char *)k.d_data + ((int64_t)grow * k.ldd + col0 + col) * chunks::d_bytes;
    if (chunks::d_bytes == 4) *(uint32_t *)dst = *(const uint32_t *)src;
    else *(uint16_t *)dst = *(const uint16_t *)src;
  }
}

/* Element i of a row of C or D of dtype dt at p, as f32, and back. */
TP_KERNEL_FN float tp_kernel_element_load(const void *p, int64_t i, int32_t dt) {
  if (dt == TP_DTYPE_F32) return ((const float *)p)[i];
  const uint16_t v = ((const uint16_t *)p)[i];
  return dt == TP_DTYPE_BF16 ? __uint_as_float((uint32_t)v << 16) : __half2float(__ushort_as_half(v));
}

template <int DT>
TP_KERNEL_FN void tp_kernel_element_store(void *p, int64_t i, float v) {
  if (DT == TP_DTYPE_F32) ((float *)p)[i] = v;
  else if (DT == TP_DTYPE_BF16) ((__nv_bfloat16 *)p)[i] = __float2bfloat16_rn(v);
  else ((__half *)p)[i] = __float2half_rn(v);
}

/* A transposed tile's epilogue (tilepipe/plugin/device/kernel_mainloop.h,
 * transposed) for consumer warpgroup wg: the accumulator of tile row r
 * (row m0 + r of B: D's column) and tile column c (row n0 + c of A: D's
 * row) is D[n0 + c, m0 + r], with C read and D written there straight from
 * registers, only inside D (k.m and k.n are N and M here). The tile is at
 * most 64 rows of A, decode-sized: D's bytes are few beside B's, and each
 * 8 lanes of a warp write 8 neighbouring elements of a row of D. */
template <int BN, int DT>
TP_KERNEL_FN void tp_kernel_epilogue_transposed(const tp_kernel_params &k, const float *acc,
                                                int32_t m0, int32_t n0, uint32_t wg) {
  const uint32_t lane = threadIdx.x % 32u;
  const int32_t source_dtype = k.epilogue.source_dtype;
  const int32_t col0 = m0 + (int32_t)(tp_kernel_warp_first_row(wg) + lane / 4u);
  const int32_t row0 = n0 + (int32_t)(2u * (lane % 4u));
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int32_t row = row0 + 8 * j + e, col = col0 + 8 * half;
        if (row >= k.n || col >= k.m) continue;
        const float source = source_dtype == TP_DTYPE_NONE
                                 ? 0.0f
                                 : tp_kernel_element_load(k.c_data, row * k.ldc + col,
                                                          source_dtype);
        tp_kernel_element_store<DT>(
            k.d_data, row * k.ldd + col,
            tp_epilogue_apply(&k.epilogue, acc[4 * j + 2 * half + e], source, row, col));
      }
    }
  }
}

/* The epilogue of one tile for consumer warpgroup wg: out is the output
 * ring (the consumers write), src the source ring (C in those chunks),
 * staged_a / staged_b the staged input stage's tensors 0 and 1 (NULL when
 * no chunk of C is staged). */
template <int BM, int BN, int DT>
TP_KERNEL_FN void tp_kernel_consumer_epilogue(const tp_kernel_params &k, const float *acc,
                                              int32_t m0, int32_t n0, uint32_t wg,
                                              tp_output_writer *out, tp_input_consumer *src,
                                              const unsigned char *staged_a,
                                              const unsigned char *staged_b) {
  typedef tp_kernel_chunks<BN, DT> chunks;
  static_assert(chunks::cols / 8 % TP_KERNEL_EPI_STEP_J == 0, "a chunk is whole epilogue steps");
  const int32_t source_dtype = k.epilogue.source_dtype;
  const bool has_source = source_dtype != TP_DTYPE_NONE;
  const int kind = tp_kernel_source_kind_of<DT>(source_dtype);
  const tp_kernel_staged_c sc = tp_kernel_staged_c_of<DT>(k);
  /* D is written over C in the same chunk. Where C's elements are wider
   * than D's, a thread's D lands on C that other lanes of its warp (the
   * row's owners) read in the same step: they must all have read first. */
  const bool c_wider = source_dtype == TP_DTYPE_F32 && DT != TP_DTYPE_F32;
  const int32_t last_row = k.m - 1, last_col = k.n - 1;
#pragma unroll
  for (int c = 0; c < chunks::count; ++c) {
    tp_input_consumer_stage in;
    if (has_source) in = tp_input_consumer_acquire_stage(src);
    tp_output_write_stage os = tp_output_writer_acquire_stage(out);
    unsigned char *chunk = (unsigned char *)tp_output_write_stage_tile(&os);
    const bool from_stage = tp_kernel_staged_c_has(sc, c);
    const unsigned char *c_chunk =
        from_stage ? tp_kernel_staged_c_slot(sc, staged_a, staged_b, c) : chunk;
    const int32_t col0 = n0 + c * chunks::cols;
    const int groups = tp_kernel_chunk_cols<BN, DT>(c) / 8;
#pragma unroll
    for (int j0 = 0; j0 < chunks::cols / 8; j0 += TP_KERNEL_EPI_STEP_J) {
      if (j0 >= groups) break;
      const int nj = min(TP_KERNEL_EPI_STEP_J, groups - j0);
      float s[TP_KERNEL_EPI_STEP_J * 4], d[TP_KERNEL_EPI_STEP_J * 4];
      tp_kernel_source_fetch<BM, BN, DT>(c, c_chunk, kind, wg, j0, nj, s);
      if (c_wider) __syncwarp();
#pragma unroll
      for (int j = 0; j < TP_KERNEL_EPI_STEP_J; ++j) {
        if (j >= nj) break;
        const int frag = (c * chunks::cols / 8 + j0 + j) * 4;
#pragma unroll
        for (int half = 0; half < 2; ++half) {
          const tp_kernel_chunk_pos q = tp_kernel_chunk_pos_of(wg, j0 + j, half);
          const int32_t hrow = min(m0 + (int32_t)q.row, last_row);
          const int32_t gcol = col0 + (int32_t)q.col;
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int i = 4 * j + 2 * half + e;
            d[i] = tp_epilogue_apply(&k.epilogue, acc[frag + 2 * half + e], s[i], hrow,
                                     min(gcol + e, last_col));
          }
        }
      }
      tp_kernel_chunk_write<BN, DT>(c, chunk, wg, j0, nj, d);
    }
    /* Columns from n_tma on, which the TMA store cannot reach (rows past M
     * it clips itself): only chunks that reach them take the copy. */
    if (col0 + groups * 8 > k.n_tma) {
      __syncwarp(); /* stmatrix wrote this thread's values from other lanes' addresses */
      tp_kernel_store_ragged<BN, DT>(k, c, chunk, m0, col0, wg);
    }
    tp_output_write_stage_release(&os); /* fence for the TMA, one arrival per warp */
    /* The store warp frees the chunk for the next C, once stored. */
    if (has_source) tp_input_consumer_stage_release_without_signal(&in);
  }
}

#endif
