/* plugins/block_scaled/device/block_scaled_mainloop.cu: the block-scaled
 * payload's mainloops on the core's structured kernel, MXFP8 (e4m3 or e5m2
 * elements, a ue8m0 scale per 32 K-elements of each row):
 *
 *   W8A16 (bf16 A):  acc(m, n) = sum_k A(m, k) * (B(n, k) * 2^(sb(n, k/32) - 127))
 *   W8A8  (fp8 A):   acc(m, n) = sum_k (A(m, k) 2^(sa(m, k/32) - 127))
 *                                    * (B(n, k) 2^(sb(n, k/32) - 127))
 *
 * W8A16. A stage holds a k-block of 64 of K: A as bf16 (tensor 0, 128-byte
 * rows, 128B-swizzled) and B as e4m3 or e5m2 (tensor 1, 64-byte rows,
 * unswizzled and packed), the skeleton's mixed-width operand loads
 * (tilepipe/plugin/device/kernel_operands.h), and tensor 2, which no load
 * fills: B scaled and converted to bf16 (128-byte rows, 128B-swizzled, as
 * wgmma reads them: TP_KERNEL_CONVERTED_B). Per k-block the consumer
 * warpgroups convert B into it together (the skeleton's convert step),
 * each thread 16 elements of a row at a time with the scale of their
 * 32-wide group, whose codes it loaded from global memory a k-block
 * earlier (tile_begin for a unit's first); then each warpgroup multiplies
 * its 64 rows of A by it in four bf16 wgmma of 16 of K
 * (tp_kernel_mma_converted_b). Exact: an fp8 value times a power of two
 * has at most 4 significant bits and lies inside bf16's exponent range, so
 * its bf16 is exact (up to products below 2^-126 that f32's subnormals
 * round); bf16 x bf16 products are exact in wgmma's f32 accumulation. The
 * roundings are the f32 sums: W8A16 is judged as a bf16 GEMM.
 *
 * W8A8. A stage holds BLOCK_SCALED_STEP_BLOCKS fold blocks of 128 of K,
 * each a k-tile of A's and B's fp8 tiles (128-byte rows, 128B-swizzled)
 * and, for a scale tensor in the tiled layout, the 512-byte unit of its
 * codes that holds the tile's rows (tensor BS_CODES, bulk-copied with the
 * tiles; a strided layout's codes are read from global memory).
 * The convert step folds each block's four scales into its elements in
 * place: a row of A against the largest of its four codes (its
 * reference), B against the largest over the block's 128 rows of its
 * 128-row block of N (one reference for the tile's columns); an element of
 * a vector whose code is d below the reference has d taken off its
 * exponent field (bs_fold16). The block's k-tiles are then plain fp8, and
 * the blockwise FP8 two-level accumulation (tilepipe/plugin/device/
 * promote.h) multiplies them, each block's products scaled by
 * 2^(ref_a(m) - 127) (the row factors the convert step writes into the
 * stage, tensor TP_KERNEL_ROW_FACTORS) x 2^(ref_b - 127). Exact unless an
 * element falls below its dtype's smallest normal (2^-6 e4m3, 2^-14 e5m2)
 * after the shift: then it is flushed to zero, an error below 2^-6
 * (2^-14) x its reference scale (docs/payloads.md). A NaN or infinite
 * element of a shifted vector is not kept.
 *
 * Invariants: K a multiple of 32 (the plan checks), so a W8A16 k-block
 * holds 2 whole groups or, at the end of K, one and a zero-filled half
 * whose scale is never read, and a W8A8 block 1 to 4 whole groups, the
 * rest zero-filled; W8A16 reads scale 1 (code 127) for rows of B past N
 * and groups past K/32, W8A8 code 0 (they never raise a reference): their
 * elements are TMA's zeros, and a NaN code in the tiled layout's padding
 * must not reach them.
 *
 * Built by build-aux/device.mk into LTO-IR that plugins/block_scaled/
 * embeds, one image per operand group (block_scaled_params.h);
 * tests/test_gpu_block_scaled.c runs them, `tilepipe link` links them
 * without a GPU. */
#include <stdint.h>

#include "plugins/block_scaled/device/block_scaled_params.h"
#include "tilepipe/plugin/device/kernel.h"
#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/promote.h"

/* ue8m0 code s as the f32 2^(s - 127): 0 is the subnormal 2^-127, 255 NaN. */
static __device__ __forceinline__ float bs_ue8m0(uint32_t s) {
  return __uint_as_float(s == 0u ? 0x00400000u : s == 255u ? 0x7fc00000u : s << 23);
}

/* Offset of code (r, g) in s (cols codes a row). */
static __device__ __forceinline__ int64_t bs_code_offset(const tp_block_scaled_codes &s,
                                                         int32_t cols, int32_t r, int32_t g) {
  return s.tiled ? ((int64_t)(r / 128) * ((cols + 3) / 4) + g / 4) * 512 + (r % 32) * 16 +
                       (r % 128) / 32 * 4 + g % 4
                 : (int64_t)r * s.ld + g;
}

/* bf16x2 of two fp8 (the low 16 bits of v, the lower byte first) times s:
 * fp8 to f16 exactly (cvt), to f32, the scale, then to bf16 (exact: at
 * most 4 significant bits). Placing the fp8 bits under bf16's exponent
 * and one bf16 multiply takes as many instructions, all on the integer
 * and FMA pipes, and ran 13-16% slower on the H100 (bench/results/
 * 2026-11-27-h100-block-scaled-w8a16.txt). */
template <bool E5M2>
static __device__ __forceinline__ uint32_t bs_bf16x2(uint32_t v, float s) {
  uint32_t h;
  const unsigned short two = (unsigned short)v;
  if (E5M2)
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(h) : "h"(two));
  else
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h) : "h"(two));
  float lo, hi;
  asm("{.reg .b16 l, u;\n\tmov.b32 {l, u}, %2;\n\tcvt.f32.f16 %0, l;\n\tcvt.f32.f16 %1, u;}"
      : "=f"(lo), "=f"(hi)
      : "r"(h));
  uint32_t out;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(out) : "f"(hi * s), "f"(lo * s));
  return out;
}

/* Converter `thread` of `threads` handles 16-byte chunks i = thread +
 * j * threads (j < BS_CHUNKS(BN)) of B's tile: row i / 4, chunk i % 4. */
#define BS_CHUNKS(BN) (((BN) * 4 + 127) / 128)

/* The scale codes of this thread's chunks in k-block kb, into codes[j]:
 * B's code (n, g), or 127 (scale 1) past the tile's chunks, past N or
 * past K's groups. Loads issued a k-block ahead of their use, so that
 * their latency hides under the mma and the next stage's wait. */
template <int BN>
static __device__ __forceinline__ void bs_load_codes(const tp_block_scaled_params &p,
                                                     uint32_t *codes, uint32_t thread,
                                                     uint32_t threads, int32_t n0, int32_t kb) {
  const int32_t g0 = kb * (TP_KERNEL_ROW_BYTES / 2 / BLOCK_SCALED_MX_VEC);
#pragma unroll
  for (int j = 0; j < BS_CHUNKS(BN); ++j) {
    const uint32_t i = thread + (uint32_t)j * threads;
    const int32_t n = n0 + (int32_t)(i / 4u), g = g0 + (int32_t)(i % 4u / 2u);
    codes[j] = i < BN * 4u && n < p.kernel.n && g < p.scale_cols
                   ? __ldg(p.b_scale.data + bs_code_offset(p.b_scale, p.scale_cols, n, g))
                   : 127u;
  }
}

/* B's fp8 tile (BN rows of 64 bytes, tensor 1) into scaled bf16 (BN rows
 * of 128 bytes, tensor 2), each chunk with its code: each 16 bytes (row r,
 * chunk q of 4) become 16-byte chunks 2q and 2q + 1 of row r, which the
 * 128-byte swizzle places at chunk index c ^ (r % 8). Consecutive threads
 * read consecutive 16 bytes, and each 8 of them write 8 distinct chunk
 * columns: no bank conflict either way. */
template <int BN, bool E5M2>
static __device__ __forceinline__ void bs_convert_tile(const tp_input_consumer_stage *st,
                                                       const uint32_t *codes,
                                                       const tp_kernel_converter &c) {
  const uint4 *src = (const uint4 *)tp_input_consumer_stage_tile(st, 1, 0);
  unsigned char *dst =
      (unsigned char *)tp_input_consumer_stage_tile(st, TP_KERNEL_CONVERTED_B, 0);
#pragma unroll
  for (int j = 0; j < BS_CHUNKS(BN); ++j) {
    const uint32_t i = c.thread + (uint32_t)j * c.threads;
    if (i >= BN * 4u) break;
    const uint32_t r = i / 4u, q = i % 4u;
    const float s = bs_ue8m0(codes[j]);
    const uint4 w = src[i];
    unsigned char *row = dst + r * TP_KERNEL_ROW_BYTES;
    *(uint4 *)(row + ((2u * q) ^ (r % 8u)) * 16u) =
        make_uint4(bs_bf16x2<E5M2>(w.x, s), bs_bf16x2<E5M2>(w.x >> 16, s),
                   bs_bf16x2<E5M2>(w.y, s), bs_bf16x2<E5M2>(w.y >> 16, s));
    *(uint4 *)(row + ((2u * q + 1u) ^ (r % 8u)) * 16u) =
        make_uint4(bs_bf16x2<E5M2>(w.z, s), bs_bf16x2<E5M2>(w.z >> 16, s),
                   bs_bf16x2<E5M2>(w.w, s), bs_bf16x2<E5M2>(w.w >> 16, s));
  }
}

struct bs_w8a16_mainloop : tp_kernel_operands_mainloop<16, 8> {
  typedef tp_block_scaled_params params;
  static constexpr bool converts = true;

  /* The scale codes of this thread's chunks in the next k-block. */
  template <int BM, int BN>
  struct consumer_state {
    uint32_t codes[BS_CHUNKS(BN)];
  };

  /* The unit's first k-block's codes, as its converters will split it. */
  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t wg) {
    bs_load_codes<BN>(p, s.codes, wg * 128u + threadIdx.x % 128u, t.warpgroups_in_m * 128u,
                      t.n0, t.kb_begin);
  }

  /* This k-block's conversion with the codes loaded a k-block ago, then
   * the next k-block's codes. */
  template <int BM, int BN>
  static __device__ __forceinline__ void convert(consumer_state<BM, BN> &s, const params &p,
                                                 const tp_input_consumer_stage *st,
                                                 const tp_kernel_converter &c) {
    if (p.b_e5m2)
      bs_convert_tile<BN, true>(st, s.codes, c);
    else
      bs_convert_tile<BN, false>(st, s.codes, c);
    bs_load_codes<BN>(p, s.codes, c.thread, c.threads, c.n0, c.kb + 1);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    tp_kernel_mma_converted_b<BN>(acc, st, wg, accumulate);
  }
};

/* The four 8-bit floats of w (MANT 3: e4m3, 2: e5m2) times 2^-d, rounded
 * to nearest (ties to even) like any conversion: to f16 (exact), times
 * 2^-d in f16, back by cvt. f16 holds every product that can round to a
 * nonzero 8-bit value exactly (4 significant bits at 2^-14 and above);
 * past 2^-24, e5m2's largest factors, two steps; past d 19 (e4m3) and 33
 * (e5m2) every product rounds to 0. */
template <int MANT>
static __device__ __forceinline__ uint32_t bs_fold_rounded(uint32_t w, uint32_t d) {
  if (d >= (MANT == 3 ? 20u : 34u)) return 0u;
  uint32_t lo, hi;
  const unsigned short w0 = (unsigned short)w, w1 = (unsigned short)(w >> 16);
  if (MANT == 3) {
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(lo) : "h"(w0));
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(hi) : "h"(w1));
  } else {
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(lo) : "h"(w0));
    asm("cvt.rn.f16x2.e5m2x2 %0, %1;" : "=r"(hi) : "h"(w1));
  }
  if (d > 24u) { /* e5m2 alone: 2^-12 first (f16 0x0C00) */
    asm("mul.rn.f16x2 %0, %0, %1;" : "+r"(lo) : "r"(0x0C000C00u));
    asm("mul.rn.f16x2 %0, %0, %1;" : "+r"(hi) : "r"(0x0C000C00u));
    d -= 12u;
  }
  /* 2^-d as an f16 in both halves: normal to 2^-14, subnormal below */
  const uint32_t s = (d <= 14u ? (15u - d) << 10 : 1u << (24u - d)) * 0x00010001u;
  asm("mul.rn.f16x2 %0, %0, %1;" : "+r"(lo) : "r"(s));
  asm("mul.rn.f16x2 %0, %0, %1;" : "+r"(hi) : "r"(s));
  unsigned short o0, o1;
  if (MANT == 3) {
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(o0) : "r"(lo));
    asm("cvt.rn.satfinite.e4m3x2.f16x2 %0, %1;" : "=h"(o1) : "r"(hi));
  } else {
    asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(o0) : "r"(lo));
    asm("cvt.rn.satfinite.e5m2x2.f16x2 %0, %1;" : "=h"(o1) : "r"(hi));
  }
  return (uint32_t)o0 | (uint32_t)o1 << 16;
}

/* Each byte of w (8-bit floats with MANT mantissa bits) times 2^-d, for
 * 1 <= d < the exponent field's largest value, rounded to nearest: the
 * exponent field E goes to E - d where that stays >= 1 (exact). A word
 * with a byte that falls below the smallest normal (rare where a group's
 * scale was chosen for its largest element) takes bs_fold_rounded. With
 * each byte's top bit forced on, one subtraction finds, per byte and
 * without borrows between them, whether E > d; prmt's sign mode spreads
 * that bit over its byte. */
template <int MANT>
static __device__ __forceinline__ uint32_t bs_fold4(uint32_t w, uint32_t keep, uint32_t sub,
                                                    uint32_t d) {
  const uint32_t t = (w | 0x80808080u) - keep;
  uint32_t m;
  asm("prmt.b32 %0, %1, 0, 0xba98;" : "=r"(m) : "r"(t));
  if ((w & ~m & 0x7f7f7f7fu) != 0u) return bs_fold_rounded<MANT>(w, d);
  return (w - (sub & m)) & m; /* the bytes not kept are zeros */
}

/* 16 bytes of 8-bit floats with MANT mantissa bits times 2^-d (d >= 1),
 * rounded to nearest, in place, 8 bytes at a time (a 16-byte chunk in
 * registers beside the in-flight group's would spill). */
template <int MANT>
static __device__ __forceinline__ void bs_fold16(uint4 *chunk, uint32_t d) {
  uint2 *half = (uint2 *)chunk;
  const bool normal = d < (0x7fu >> MANT); /* else no byte stays normal */
  const uint32_t keep = ((d + 1u) << MANT) * 0x01010101u, sub = (d << MANT) * 0x01010101u;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const uint2 v = half[i];
    half[i] = normal ? make_uint2(bs_fold4<MANT>(v.x, keep, sub, d),
                                  bs_fold4<MANT>(v.y, keep, sub, d))
                     : make_uint2(bs_fold_rounded<MANT>(v.x, d), bs_fold_rounded<MANT>(v.y, d));
  }
}

/* The stage tensor of the tiled layout's code units (gpu.c). */
#define BS_CODES (TP_KERNEL_ROW_FACTORS + 1)

/* The dtype's mantissa bits. */
#define BS_MANT(T) ((T) == TP_DTYPE_E5M2 ? 2 : 3)

template <int A, int B>
struct bs_w8a8_mainloop : tp_kernel_mainloop_defaults {
  typedef tp_block_scaled_params params;
  static constexpr int max_tile_n = BLOCK_SCALED_W8A8_MAX_TILE_N;
  static constexpr int n_block = BLOCK_SCALED_FOLD_BLOCK; /* a tile's columns in one block of B */
  static constexpr int sub = BLOCK_SCALED_STEP_BLOCKS;    /* fold blocks a step */
  static constexpr bool converts = true;
  static constexpr int64_t unit_bytes = BLOCK_SCALED_CODE_UNIT; /* a tiled layout's unit */

  /* The two-level accumulation's registers (its column factors b: the
   * step's B references, set by convert). */
  template <int BM, int BN>
  struct consumer_state {
    tp_promote_state<BN, sub, 1> pr;
  };

  /* The last group is promoted as soon as it retires. */
  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return 0;
  }

  template <class P>
  static __device__ __forceinline__ void prefetch(const P &p) {
    tp_tma_prefetch_desc(&p.ab.a);
    tp_tma_prefetch_desc(&p.ab.b);
  }

  /* Step kb: fold block j's A and B tiles as k-tile j of the stage's
   * tensors 0 and 1 (the plan's k_group is sub; a stage's k-tiles lie back
   * to back, promote.h). Blocks past K arrive zero-filled. */
  template <int BM, int BN, int CLUSTER_M>
  static __device__ __forceinline__ void load(const params &p, const tp_input_producer_stage *st,
                                              const tp_kernel_tile &t, int32_t kb) {
    const int32_t units = (p.scale_cols + 3) / 4; /* fold blocks inside K: a tiled row of units */
    const uint32_t copies = (uint32_t)(p.a_scale.tiled + p.b_scale.tiled);
    uint32_t bytes = sub * tp_kernel_operand_bytes<BN>(p.kernel, t);
#pragma unroll
    for (int j = 0; j < sub; ++j)
      if (kb * sub + j < units) bytes += copies * BLOCK_SCALED_CODE_UNIT;
    tp_input_producer_stage_arrive_expect_bytes(st, bytes);
    tp_promote_load_operands<BM, BN, CLUSTER_M, sub>(p.ab, st, t, kb);
    tp_mbar *full = tp_input_producer_stage_barrier(st);
    /* The tiled layout's units of the tile's rows, a fold block each: A's
     * at a k-tile's start, B's 512 bytes on (none past K). */
    unsigned char *u = (unsigned char *)tp_input_producer_stage_tile(st, BS_CODES, 0);
#pragma unroll
    for (int j = 0; j < sub; ++j) {
      const int32_t g = kb * sub + j;
      if (g >= units) break;
      unsigned char *dst = u + j * 2 * BLOCK_SCALED_CODE_UNIT;
      if (p.a_scale.tiled)
        tp_bulk_load(dst, p.a_scale.data + ((int64_t)(t.m0 / 128) * units + g) * unit_bytes,
                     unit_bytes, full);
      if (p.b_scale.tiled)
        tp_bulk_load(dst + unit_bytes,
                     p.b_scale.data + ((int64_t)(t.n0 / 128) * units + g) * unit_bytes,
                     unit_bytes, full);
    }
  }

  /* Row r's four codes of fold block kb, one a byte (the first in the low
   * byte); 0 past `rows` and past K's groups. In the tiled layout, from
   * the unit of r's 128 rows that the loader copied into the stage (unit:
   * its shared-memory address), one aligned word; in a strided one, from
   * global memory, a word where the rows are 4-byte aligned and the block
   * holds four groups. */
  static __device__ __forceinline__ uint32_t row_codes(const tp_block_scaled_codes &s,
                                                       uint32_t unit, int32_t rows, int32_t cols,
                                                       int32_t r, int32_t kb) {
    const int32_t g0 = kb * (BLOCK_SCALED_FOLD_BLOCK / BLOCK_SCALED_MX_VEC);
    if (r >= rows || g0 >= cols) return 0u;
    const int32_t have = min(cols - g0, 4); /* the block's groups inside K: 1..4 */
    if (s.tiled) { /* the unit's padding (past K's groups) holds no codes */
      uint32_t w;
      asm volatile("ld.shared.u32 %0, [%1];"
                   : "=r"(w)
                   : "r"(unit + (uint32_t)((r % 32) * 16 + (r % 128) / 32 * 4)));
      return have == 4 ? w : w & ((1u << (8 * have)) - 1u);
    }
    const uint8_t *at = s.data + bs_code_offset(s, cols, r, g0);
    if (have == 4 && (((uintptr_t)at | (uintptr_t)s.ld) & 3u) == 0u)
      return __ldg((const uint32_t *)at);
    uint32_t w = 0u; /* no byte past the row's codes is read: it may lie past the tensor */
    for (int32_t i = 0; i < have; ++i) w |= (uint32_t)__ldg(at + i) << (8 * i);
    return w;
  }

  /* The largest of a word's four bytes. */
  static __device__ __forceinline__ uint32_t max4(uint32_t w) {
    w = __vmaxu4(w, w >> 16);
    return max(w & 0xffu, (w >> 8) & 0xffu);
  }

  /* Folds fold block kb of a ROWS-row, 128B-swizzled tile (tile rows from
   * r0, `rows` of the operand's rows exist) in place: each 16-byte chunk
   * (row r, chunk q of 8, vector q / 2, at chunk q ^ (r % 8)) is shifted by
   * its row's reference code, ref (the block's, B) or the row's largest
   * (ref < 0, A), less its vector's code. Where factors is set, the row's
   * reference as an f32 scale goes to factors[r] (A's row factors). */
  template <int ROWS, int MANT>
  static __device__ __forceinline__ void fold_tile(unsigned char *tile,
                                                   const tp_block_scaled_codes &s, uint32_t unit,
                                                   int32_t rows, int32_t cols, int32_t r0,
                                                   int32_t kb, int32_t ref, float *factors,
                                                   const tp_kernel_converter &c) {
    for (uint32_t i = c.thread; i < ROWS * 8u; i += c.threads) {
      const uint32_t r = i / 8u, q = i % 8u;
      const uint32_t codes = row_codes(s, unit, rows, cols, r0 + (int32_t)r, kb);
      const uint32_t top = ref >= 0 ? (uint32_t)ref : max4(codes);
      if (factors != NULL && q == 0u) factors[r] = bs_ue8m0(top);
      const uint32_t d = top - ((codes >> (8u * (q / 2u))) & 0xffu);
      if (d == 0u) continue;
      bs_fold16<MANT>((uint4 *)(tile + r * TP_KERNEL_ROW_BYTES + ((q ^ (r % 8u)) * 16u)), d);
    }
  }

  /* The largest code of fold block kb over the 128 rows of B's block that
   * holds row n0 (0 past N and past K's groups): every warp of the
   * converters finds it alone, lane l from rows l + 32i, a row at a time
   * (unrolled, a strided layout's global loads raise the consumers'
   * registers past their 232: spills). */
  static __device__ __forceinline__ uint32_t block_ref(const params &p, uint32_t unit, int32_t n0,
                                                       int32_t kb) {
    const int32_t base = n0 / 128 * 128 + (int32_t)(threadIdx.x % 32u);
    uint32_t top = 0u;
#pragma unroll 1
    for (int32_t i = 0; i < 128; i += 32)
      top = max(top, max4(row_codes(p.b_scale, unit, p.kernel.n, p.scale_cols, base + i,
                                            kb)));
    return __reduce_max_sync(0xffffffffu, top);
  }

  /* Fold block kb of B (against its block's reference, whose scale is the
   * block's column factor) and of A (against each row's, whose scale
   * becomes the row's factor), each operand's codes as its layout keeps
   * them (units: the block's copied units, A's then B's). */
  template <int BM, int BN>
  static __device__ __forceinline__ void fold_block(float &col_factor, const params &p,
                                                    unsigned char *a, unsigned char *b,
                                                    float *factors, uint32_t units, int32_t kb,
                                                    const tp_kernel_converter &c) {
    const uint32_t ref_b = block_ref(p, units + BLOCK_SCALED_CODE_UNIT, c.n0, kb);
    col_factor = bs_ue8m0(ref_b);
    fold_tile<BN, BS_MANT(B)>(b, p.b_scale, units + BLOCK_SCALED_CODE_UNIT, p.kernel.n,
                                       p.scale_cols, c.n0, kb, (int32_t)ref_b, NULL, c);
    fold_tile<BM, BS_MANT(A)>(a, p.a_scale, units, p.kernel.m, p.scale_cols, c.m0, kb,
                                       -1, factors, c);
  }

  /* Folds the step's blocks in place. */
  template <int BM, int BN>
  static __device__ __forceinline__ void convert(consumer_state<BM, BN> &s, const params &p,
                                                 const tp_input_consumer_stage *st,
                                                 const tp_kernel_converter &c) {
    unsigned char *a = (unsigned char *)tp_input_consumer_stage_tile(st, 0, 0);
    unsigned char *b = (unsigned char *)tp_input_consumer_stage_tile(st, 1, 0);
    float *factors = (float *)tp_input_consumer_stage_tile(st, TP_KERNEL_ROW_FACTORS, 0);
    /* the code units' shared-memory address (unused where neither is tiled) */
    const uint32_t units = p.a_scale.tiled || p.b_scale.tiled
                               ? tp_smem_addr(tp_input_consumer_stage_tile(st, BS_CODES, 0))
                               : 0u;
#pragma unroll
    for (int j = 0; j < sub; ++j) {
      unsigned char *aj = a + j * BM * TP_KERNEL_ROW_BYTES, *bj = b + j * BN * TP_KERNEL_ROW_BYTES;
      const uint32_t uj = units + (uint32_t)j * 2u * BLOCK_SCALED_CODE_UNIT;
      const int32_t kb = c.kb * sub + j;
      fold_block<BM, BN>(s.pr.b[j], p, aj, bj, factors + j * BM, uj, kb, c);
    }
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &s, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    tp_promote_mma<A, B, BM, BN, sub, 1>(s.pr, acc, st, wg, accumulate);
  }

  /* The step's last group's promotion. */
  template <int BM, int BN>
  static __device__ __forceinline__ void k_block_done(consumer_state<BM, BN> &s, const params &,
                                                      float *acc, int32_t, uint32_t) {
    tp_promote_last(s.pr, acc);
  }
};

/* The mainloop of each operand group: W8A16's for bf16 A, W8A8's for fp8. */
template <int A, int B>
struct bs_mainloop_of {
  typedef bs_w8a8_mainloop<A, B> type;
};
template <int B>
struct bs_mainloop_of<TP_DTYPE_BF16, B> {
  typedef bs_w8a16_mainloop type;
};

/* The kernels of operand group TP_DEVICE_GROUP (a NAME of
 * TP_BLOCK_SCALED_OPERANDS, block_scaled_params.h; local.mk builds one
 * image per group): every tile and D of tilepipe/plugin/kernel/tiles.h,
 * named tp_block_scaled_<NAME>_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them
 * by name). W8A8's tiles wider than 128 or not dividing it trap (never
 * planned). */
#ifndef TP_DEVICE_GROUP
#error "block_scaled_mainloop.cu: build it with -DTP_DEVICE_GROUP=<operand group> (local.mk)"
#endif
#define BS_MAINLOOP(NAME, A, B) typedef bs_mainloop_of<A, B>::type bs_mainloop_##NAME;
TP_BLOCK_SCALED_OPERANDS(BS_MAINLOOP)

#define BS_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, NAME)                                   \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_block_scaled, NAME, BM, BN, CM, D_NAME),             \
                  bs_mainloop_##NAME, BM, BN, DT, CM)
/* NAME is expanded here, before BS_KERNEL pastes it. */
#define BS_KERNELS(NAME) TP_KERNEL_FOR_EACH_INSTANCE(BS_KERNEL, NAME)
BS_KERNELS(TP_DEVICE_GROUP)
