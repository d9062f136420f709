/* plugins/block_scaled/device/block_scaled_mainloop.cu: the block-scaled
 * payload's mainloops on the core's structured kernel, MXFP8 (e4m3 or e5m2
 * elements, a ue8m0 scale per 32 K-elements of each row), and 4-bit
 * weights (e2m1: NVFP4, a ue4m3 scale sb per 16; MXFP4, ue8m0 per 32):
 *
 *   W8A16 (bf16 A):  acc(m, n) = sum_k A(m, k) * (B(n, k) * 2^(sb(n, k/32) - 127))
 *   W8A8  (fp8 A):   acc(m, n) = sum_k (A(m, k) 2^(sa(m, k/32) - 127))
 *                                    * (B(n, k) 2^(sb(n, k/32) - 127))
 *   W4A16 (bf16 A):  acc(m, n) = sum_k A(m, k) * (B(n, k) * sb(n, k/vec))
 *
 * W4A16 runs on the transposed kernels below at decode-sized M, after a
 * prologue that permutes A's K (fold.h, bs_permute_tokens); past them
 * (and W4A4, both operands) the prologue dequantizes to bf16 (fold.h) for
 * the bf16 mainloop.
 *
 * W8A16. A stage holds a k-block of 64 of K: A as bf16 (tensor 0, 128-byte
 * rows, 128B-swizzled) and B as e4m3 or e5m2 (tensor 1, 64-byte rows,
 * packed, 64B-swizzled), the skeleton's mixed-width operand loads
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
 * W8A8. A prologue kernel (device/fold.h) folds each operand's four
 * scales per 128 of K into its elements once, into the plan's workspace,
 * with the references' scales as blockwise FP8's: a_scale per row and
 * block of 128 of K, b_scale per 128 x 128 block of B. The kernel is then
 * the skeleton's blockwise-scaled mainloop on the folded operands (tilepipe/
 * plugin/device/blockwise_mainloop.h). Exact unless an element falls below
 * its dtype's smallest normal after the shift (fold.h, docs/payloads.md).
 *
 * Invariants: K a multiple of 32 (the plan checks), so a W8A16 k-block
 * holds 2 whole groups or, at the end of K, one and a zero-filled half
 * whose scale is never read; W8A16 reads scale 1 (code 127) for rows of B
 * past N and groups past K/32: their elements are TMA's zeros, and a NaN
 * code in the tiled layout's padding must not reach them.
 *
 * Built by build-aux/device.mk into LTO-IR that plugins/block_scaled/
 * embeds, one image per operand group (block_scaled_params.h), W8A8's
 * with its fold prologue;
 * tests/test_gpu_block_scaled.c runs them, `tilepipe link` links them
 * without a GPU. */
#include <stdint.h>

#include "plugins/block_scaled/device/block_scaled_params.h"
#include "plugins/block_scaled/device/fold.h"
#include "tilepipe/plugin/device/blockwise_mainloop.h"
#include "tilepipe/plugin/device/kernel.h"
#include "tilepipe/plugin/device/kernel_operands.h"
#include "tilepipe/plugin/device/operands_mainloop.h"

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
                   ? __ldg(p.b_codes.data + bs_code_offset(p.b_codes, p.scale_cols, n, g))
                   : 127u;
  }
}

/* B's fp8 tile (BN rows of 64 bytes, tensor 1) into scaled bf16 (BN rows
 * of 128 bytes, tensor 2), each chunk with its code: each 16 bytes (row r,
 * chunk q of 4, where the 64-byte swizzle put it) become 16-byte chunks 2q
 * and 2q + 1 of row r, which the 128-byte swizzle places at chunk index
 * c ^ (r % 8). Each 8 consecutive threads read 8 distinct chunk columns
 * of two rows and write 8 distinct chunk columns: no bank conflict either
 * way. */
template <int BN, int B_ROW, bool E5M2>
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
    unsigned char *row = dst + r * TP_KERNEL_ROW_BYTES;
    bs_bf16x16<E5M2>(src[tp_kernel_operand_chunk(B_ROW, r, q)], s,
                     *(uint4 *)(row + ((2u * q) ^ (r % 8u)) * 16u),
                     *(uint4 *)(row + ((2u * q + 1u) ^ (r % 8u)) * 16u));
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
    if (p.b_format == BLOCK_SCALED_B_E5M2)
      bs_convert_tile<BN, b_row_bytes, true>(st, s.codes, c);
    else
      bs_convert_tile<BN, b_row_bytes, false>(st, s.codes, c);
    bs_load_codes<BN>(p, s.codes, c.thread, c.threads, c.n0, c.kb + 1);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &, const params &, float *acc,
                                             const tp_input_consumer_stage *st, uint32_t wg,
                                             bool accumulate) {
    tp_kernel_mma_converted_b<BN>(acc, st, wg, accumulate);
  }
};

/* The weight-only modes at decode-sized M, transposed (tilepipe/plugin/
 * device/kernel_mainloop.h): the tile's rows are B's (the weight, stage
 * tensor 0: MXFP8 e4m3 or e5m2 in 64-byte rows 64B-swizzled, or NVFP4 or
 * MXFP4 e2m1 in 32-byte rows 32B-swizzled: W_BITS 8 or 4), its columns
 * A's (the tokens, bf16, tensor 1, 128B-swizzled). A stage holds
 * BS_T_K_TILES k-tiles of 64 of K (k_group), a k-block of 128: four
 * groups of 32 (MXFP8, MXFP4) or eight of 16 (NVFP4). Each consumer thread
 * converts its own part of wgmma's A operand in registers from the stage
 * (rows 16w + l/4 and + 8 of its warpgroup's 64, K pairs 2(l%4) and + 8
 * of each 16: two bytes of an fp8 row, bs_bf16x2_bits; of an e2m1 row,
 * whose A the prologue permuted, two nibbles of a word, bs_e2m1_pair:
 * convert_fp4; each weight element once, times its group's factor),
 * and the k-block's k16 wgmma read it from there: no
 * shared-memory writes, fences or barriers between the conversion and the
 * MMA. The scale codes of a k-block are loaded BS_T_PHASES k-blocks ahead,
 * into registers of the k-block's phase (kb % BS_T_PHASES), so that no
 * conversion waits on them; four codes of a row a word where they lie
 * 4-byte aligned (the tiled layout always). Tiles up to BS_T_OVERLAP_N
 * wide keep the k-block's wgmma group in flight while the next k-block
 * converts into the other phase's operand registers (wider ones lack the
 * registers: ptxas would serialize their wgmma), and tiles up to
 * BS_T_CHAINS_N wide split the k-block's eight k16 wgmma into two
 * accumulator chains (even and odd steps, summed at the unit's end): a
 * wgmma of N <= 32 is a few cycles of math behind a far longer latency,
 * which one chain waits out step by step.
 *
 * Factors, each exact in bf16, so that every product is exact: MXFP8 and
 * MXFP4 multiply by 2^unbias times the scale where every code of the
 * warp's k-block allows it (the element's bits placed under bf16's read
 * as its value times 2^-unbias), else by 2^unbias and then the
 * scale; NVFP4 by its ue4m3 scale times 2^(126 - BS_T_NVFP4_SHIFT) (which
 * bf16 holds for every code, 448 included), so that its products and
 * sums come out 2^-BS_T_NVFP4_SHIFT times the true ones, which tile_end
 * multiplies back: exact, a power of two. A NaN scale code of NVFP4
 * (0x7f) reads as 480 (its bit pattern continued), like an fp8 NaN
 * element (bs_bf16x2_bits); MXFP4's code 255 stays NaN. */
#define BS_T_K_TILES BLOCK_SCALED_W8A16_TRANSPOSED_K_TILES
#define BS_T_PHASES 2
#define BS_T_OVERLAP_N 16
#define BS_T_CHAINS_N 32
#define BS_T_NVFP4_SHIFT 8

template <int W_BITS>
struct bs_transposed_mainloop : tp_kernel_operands_mainloop<W_BITS, 16, BS_T_K_TILES> {
  typedef tp_kernel_operands_mainloop<W_BITS, 16, BS_T_K_TILES> operands;
  typedef tp_block_scaled_params params;
  static constexpr bool transposed = true;
  static constexpr int row_bytes = operands::a_row_bytes; /* a weight row of a k-tile */
  /* K of a k-block, and the code words of a row in it (NVFP4: two). */
  static constexpr int kb_elems = BS_T_K_TILES * operands::k_elems;
  static constexpr int code_words = W_BITS == 4 ? 2 : 1;

  /* Scale groups of a k-block in format f. */
  static constexpr __device__ int kb_groups(int f) {
    return kb_elems / (f == BLOCK_SCALED_B_NVFP4 ? 16 : BLOCK_SCALED_MX_VEC);
  }

  /* The power of two that a format's element bits, placed under bf16's
   * exponent and mantissa, leave out (fp8: bs_bf16x2_bits; e2m1:
   * bs_e2m1_pair). */
  static constexpr __device__ int unbias(int f) {
    return f == BLOCK_SCALED_B_E4M3 ? 120 : f == BLOCK_SCALED_B_E5M2 ? 112 : 126;
  }

  /* The code of scale 1 in format f: ue4m3's 0x38 (NVFP4), ue8m0's 127. */
  static constexpr __device__ uint32_t one_code(int f) {
    return f == BLOCK_SCALED_B_NVFP4 ? 0x38u : 0x7fu;
  }

  template <int BM, int BN>
  static constexpr __host__ __device__ int groups_in_flight() {
    return BN <= BS_T_OVERLAP_N ? 1 : 0;
  }

  /* The thread's first row of B (r), the next k-block, where its two rows'
   * (r, r + 8) codes start, per phase the codes of the phase's k-block
   * (row r's in codes[phase][0], r + 8's in [1], a byte a group) and its
   * operand registers (one set when the groups do not overlap), and the
   * odd k16 steps' accumulator chain. */
  template <int BM, int BN>
  struct consumer_state {
    int32_t row, kb;
    const uint8_t *codes_at[2];
    uint32_t codes[BS_T_PHASES][2][code_words];
    uint32_t frag[BN <= BS_T_OVERLAP_N ? BS_T_PHASES : 1][BS_T_K_TILES * 4][4];
    float odd[BN / 2];
  };

  /* Codes of k-block kb (groups G kb .. G kb + G - 1, clamped to K's last
   * k-block) of the thread's two rows into c: a word of four each where
   * the codes lie aligned (strided with a 4-byte aligned row, or tiled:
   * four groups of a row a word, 512 bytes to its next four), else byte
   * by byte (then the conversion waits for them). A group past K reads as
   * the byte that lies there, which the conversion replaces. */
  template <int G, int BM, int BN>
  static __device__ __forceinline__ void load_codes(uint32_t (&c)[2][code_words],
                                                    const consumer_state<BM, BN> &s,
                                                    const params &p, int32_t kb) {
    const int32_t kbc = min(kb, (p.scale_cols - 1) / G);
    const tp_block_scaled_codes &b = p.b_codes;
    if (b.tiled || (((uintptr_t)b.data | (uintptr_t)b.ld) & 3u) == 0u) {
      const int64_t at = (int64_t)kbc * (b.tiled ? 512 * (G / 4) : G);
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int w = 0; w < G / 4; ++w)
          c[h][w] = __ldg((const uint32_t *)(s.codes_at[h] + at + w * (b.tiled ? 512 : 4)));
      return;
    }
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int w = 0; w < G / 4; ++w) {
        uint32_t v = 0x7f7f7f7fu;
        for (int32_t i = 0; i < 4 && kbc * G + 4 * w + i < p.scale_cols; ++i)
          v = v & ~(0xffu << 8 * i) | (uint32_t)__ldg(s.codes_at[h] + kbc * G + 4 * w + i) << 8 * i;
        c[h][w] = v;
      }
  }

  template <int G, int BM, int BN>
  static __device__ __forceinline__ void tile_begin_of(consumer_state<BM, BN> &s, const params &p,
                                                       const tp_kernel_tile &t) {
    /* Phase i starts with the first of the unit's k-blocks in it (indexed
     * by constants, the codes stay in registers). */
#pragma unroll
    for (int i = 0; i < BS_T_PHASES; ++i)
      load_codes<G>(s.codes[i], s, p,
                    t.kb_begin + (i - t.kb_begin % BS_T_PHASES + BS_T_PHASES) % BS_T_PHASES);
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void tile_begin(consumer_state<BM, BN> &s, const params &p,
                                                    const tp_kernel_tile &t, uint32_t wg) {
    s.row = t.m0 + (int32_t)(tp_kernel_warp_first_row(wg) + threadIdx.x % 32u / 4u);
    s.kb = t.kb_begin;
    /* Zeroed: a warpgroup whose rows lie past N adds it unmultiplied. */
    if constexpr (BN <= BS_T_CHAINS_N) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) s.odd[i] = 0.0f;
    }
    /* Rows past N read the last row's codes: their weights are TMA's
     * zeros and their results are never stored. */
#pragma unroll
    for (int h = 0; h < 2; ++h)
      s.codes_at[h] = p.b_codes.data + bs_code_offset(p.b_codes, p.scale_cols,
                                                      min(s.row + 8 * h, p.kernel.m - 1), 0);
    if (W_BITS == 4 && p.b_format == BLOCK_SCALED_B_NVFP4)
      tile_begin_of<kb_groups(BLOCK_SCALED_B_NVFP4)>(s, p, t);
    else
      tile_begin_of<kb_groups(BLOCK_SCALED_B_E4M3)>(s, p, t);
  }

  /* Where chunk k of the thread's row `row` (of its warp's 16) lies in a
   * k-tile, in bytes (the swizzle by row bytes: the warp's 8 rows read 8
   * distinct bank groups); row + 8's lies 8 rows on, its chunks permuted
   * alike. */
  static __device__ __forceinline__ uint32_t chunk_at(uint32_t row, uint32_t k) {
    return 16u * tp_kernel_operand_chunk(row_bytes, row, k);
  }

  /* The k-block's fp8 weight in stage st as wgmma's A operand (frag: k16
   * steps of both k-tiles), each element times its group's factor (row
   * r's, r + 8's: f[h][g]; bs_bf16x2_bits). */
  template <bool E5M2, bool UNBIASED>
  static __device__ __forceinline__ void convert_fp8(uint32_t (&frag)[BS_T_K_TILES * 4][4],
                                                     const tp_input_consumer_stage *st,
                                                     const uint32_t (&f)[2][4], uint32_t row,
                                                     uint32_t lane) {
    /* Bytes 2(l%4) and + 1 of a pair of words, each sign-extended to 16
     * bits (prmt's sign replication, which __byte_perm leaves out): K
     * pairs 2(l%4) and + 8 of a 16-byte run of K. */
    const uint32_t sel = 0x9180u + 0x2222u * (lane % 4u);
#pragma unroll
    for (int j = 0; j < BS_T_K_TILES; ++j) {
      const unsigned char *a =
          (const unsigned char *)tp_input_consumer_stage_tile(st, 0, (uint32_t)j);
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const uint4 lo = *(const uint4 *)(a + chunk_at(row, (uint32_t)k));
        const uint4 hi = *(const uint4 *)(a + chunk_at(row, (uint32_t)k) + 8 * row_bytes);
        const int g = 2 * j + k / 2;
        uint32_t *o = frag[4 * j + k];
        o[0] = bs_bf16x2_bits<E5M2, UNBIASED>(bs_prmt(lo.x, lo.y, sel), f[0][g]);
        o[1] = bs_bf16x2_bits<E5M2, UNBIASED>(bs_prmt(hi.x, hi.y, sel), f[1][g]);
        o[2] = bs_bf16x2_bits<E5M2, UNBIASED>(bs_prmt(lo.z, lo.w, sel), f[0][g]);
        o[3] = bs_bf16x2_bits<E5M2, UNBIASED>(bs_prmt(hi.z, hi.w, sel), f[1][g]);
      }
    }
  }

  /* The same for an e2m1 weight, whose tokens' K the prologue permuted
   * (bs_t_token_k): thread c = l%4 takes words c of each k-tile's two
   * 32-halves of K (4 bytes at 4c and 16 + 4c: K 8c .. 8c + 7 and 32 + 8c
   * ..), each word's nibbles i and i + 4 one bf16x2 (bs_e2m1_pair): k16
   * step 2w + i/2 of word w, its first 8 of K (i even) or its second. A
   * word's eight share one factor, f[h][2 j + w] (NVFP4: the word's 16 of
   * K a group; MXFP4: its 32-half). UNBIASED: f holds 2^unbias (MXFP4) or
   * 2^(126 - BS_T_NVFP4_SHIFT) (NVFP4) times the scale; else the scale
   * alone, after 2^126. */
  template <bool UNBIASED>
  static __device__ __forceinline__ void convert_fp4(uint32_t (&frag)[BS_T_K_TILES * 4][4],
                                                     const tp_input_consumer_stage *st,
                                                     const uint32_t (&f)[2][4], uint32_t row,
                                                     uint32_t lane) {
    const uint32_t c = lane % 4u;
#pragma unroll
    for (int j = 0; j < BS_T_K_TILES; ++j) {
      const unsigned char *a =
          (const unsigned char *)tp_input_consumer_stage_tile(st, 0, (uint32_t)j);
#pragma unroll
      for (int w = 0; w < 2; ++w) {
        const unsigned char *at = a + chunk_at(row, (uint32_t)w) + 4u * c;
        const uint32_t q[2] = {*(const uint32_t *)at, *(const uint32_t *)(at + 8 * row_bytes)};
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint32_t q8 = q[h] >> 8;
          const uint32_t v[4] = {bs_e2m1_pair(q[h] & 0x000f000fu, 0x1040u),
                                 bs_e2m1_pair(q[h] & 0x00f000f0u, 0x0104u),
                                 bs_e2m1_pair(q8 & 0x000f000fu, 0x1040u),
                                 bs_e2m1_pair(q8 & 0x00f000f0u, 0x0104u)};
#pragma unroll
          for (int i = 0; i < 4; ++i) {
            const uint32_t x = UNBIASED ? v[i] : bs_mul_bf16x2(v[i], BS_BF16X2_2P126);
            /* o[e]: row r (e even) or r + 8, the step's first 8 (e < 2) */
            frag[4 * j + 2 * w + i / 2][2 * (i % 2) + h] = bs_mul_bf16x2(x, f[h][2 * j + w]);
          }
        }
      }
    }
  }

  /* The factor of scale code c in format F (UNBIASED: as convert_fp4 and
   * convert_fp8 take them). */
  template <int F, bool UNBIASED>
  static __device__ __forceinline__ uint32_t factor(uint32_t c) {
    if (F == BLOCK_SCALED_B_NVFP4) {
      /* ue4m3 placed as e4m3 under bf16 is worth the scale times 2^-120
       * (subnormals too): times 2^127, then 2^(119 - shift). */
      constexpr uint32_t up = 127u + 119u - BS_T_NVFP4_SHIFT;
      return bs_mul_bf16x2(bs_mul_bf16x2((c & 0x7fu) * 0x00100010u, 254u << 7 | 254u << 23),
                           up << 7 | up << 23);
    }
    return UNBIASED ? (c + unbias(F)) * 0x00800080u : bs_ue8m0_bf16x2(c);
  }

  /* The factors of rows r and r + 8 from their code words, as the
   * conversion reads them: fp8, group g of the k-block in f[h][g]; e2m1,
   * word w of k-tile j's in f[h][2 j + w] (convert_fp4: NVFP4's group
   * 4 j + 2 w + c/2, MXFP4's 2 j + w). */
  template <int F, bool UNBIASED>
  static __device__ __forceinline__ void factors(uint32_t (&f)[2][4],
                                                 const uint32_t (&words)[2][code_words],
                                                 uint32_t lane) {
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        const uint32_t c = F == BLOCK_SCALED_B_NVFP4
                               ? __byte_perm(words[h][x / 2], 0u,
                                             0x4440u + 2u * (uint32_t)(x % 2) + lane % 4u / 2u)
                               : __byte_perm(words[h][0], 0u, 0x4440u + (uint32_t)x);
        f[h][x] = factor<F, UNBIASED>(c);
      }
  }

  /* k-block s.kb, of phase P, format F: its factors from the phase's codes
   * (past K's groups scale 1, over TMA's zeros: a NaN code of the tiled
   * layout's padding must not reach them), the phase's codes for
   * BS_T_PHASES k-blocks on, then each k-tile's conversion and wgmma. */
  template <int BM, int BN, int P, int F>
  static __device__ __forceinline__ void mma_phase(consumer_state<BM, BN> &s, const params &p,
                                                   float *acc, const tp_input_consumer_stage *st,
                                                   uint32_t wg, bool accumulate) {
    constexpr int G = kb_groups(F);
    const uint32_t lane = threadIdx.x % 32u;
    const uint32_t row = tp_kernel_warp_first_row(wg) + lane / 4u;
    uint32_t words[2][code_words];
    const int32_t inside = p.scale_cols - s.kb * G; /* groups inside K */
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int w = 0; w < G / 4; ++w) {
        const int32_t n = inside - 4 * w;
        const uint32_t keep = n >= 4 ? 0xffffffffu : n <= 0 ? 0u : 0xffffffffu >> 8 * (4 - n);
        words[h][w] = s.codes[P][h][w] & keep | 0x01010101u * one_code(F) & ~keep;
      }
    load_codes<G>(s.codes[P], s, p, s.kb + BS_T_PHASES);
    uint32_t(&frag)[BS_T_K_TILES * 4][4] = s.frag[BN <= BS_T_OVERLAP_N ? P : 0];
    /* One bf16 multiply an element where the warp's codes allow
     * 2^unbias folded into the factor (codes up to 254 - unbias),
     * else two; NVFP4's factors always hold it. */
    constexpr uint32_t folds = 0x01010101u * (254u - unbias(F));
    uint32_t f[2][4];
    if (F == BLOCK_SCALED_B_NVFP4 ||
        __all_sync(0xffffffffu, (__vcmpleu4(words[0][0], folds) &
                                 __vcmpleu4(words[1][0], folds)) == 0xffffffffu)) {
      factors<F, true>(f, words, lane);
      if constexpr (W_BITS == 4)
        convert_fp4<true>(frag, st, f, row, lane);
      else
        convert_fp8<F == BLOCK_SCALED_B_E5M2, true>(frag, st, f, row, lane);
    } else {
      factors<F, false>(f, words, lane);
      if constexpr (W_BITS == 4)
        convert_fp4<false>(frag, st, f, row, lane);
      else
        convert_fp8<F == BLOCK_SCALED_B_E5M2, false>(frag, st, f, row, lane);
    }
    tp_wgmma_fence();
#pragma unroll
    for (int j = 0; j < BS_T_K_TILES; ++j) {
      const uint64_t b = tp_wgmma_desc_sw128(
          tp_smem_addr(tp_input_consumer_stage_tile(st, 1, (uint32_t)j)));
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        constexpr int chains = BN <= BS_T_CHAINS_N ? 2 : 1;
        const int i = 4 * j + k;
        tp_wgmma_bf16_rs(BN, i % chains ? s.odd : acc, frag[i],
                         tp_wgmma_desc_advance(b, 32u * k), accumulate || i >= chains);
      }
    }
    tp_wgmma_commit_group();
  }

  /* The phase of k-block s.kb, from P on. */
  template <int BM, int BN, int F, int P = 0>
  static __device__ __forceinline__ void mma_of(consumer_state<BM, BN> &s, const params &p,
                                                float *acc, const tp_input_consumer_stage *st,
                                                uint32_t wg, bool accumulate) {
    if constexpr (P + 1 < BS_T_PHASES) {
      if (s.kb % BS_T_PHASES != P) {
        mma_of<BM, BN, F, P + 1>(s, p, acc, st, wg, accumulate);
        return;
      }
    }
    mma_phase<BM, BN, P, F>(s, p, acc, st, wg, accumulate);
    ++s.kb;
  }

  /* The odd steps' chain into acc (the skeleton's, the even steps'), and
   * NVFP4's shift undone. */
  template <int BM, int BN>
  static __device__ __forceinline__ void tile_end(consumer_state<BM, BN> &s, const params &p,
                                                  float *acc, const tp_kernel_tile &, uint32_t) {
    if constexpr (BN <= BS_T_CHAINS_N) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] += s.odd[i];
    }
    if (W_BITS == 4 && p.b_format == BLOCK_SCALED_B_NVFP4) {
#pragma unroll
      for (int i = 0; i < BN / 2; ++i) acc[i] *= (float)(1u << BS_T_NVFP4_SHIFT);
    }
  }

  template <int BM, int BN>
  static __device__ __forceinline__ void mma(consumer_state<BM, BN> &s, const params &p,
                                             float *acc, const tp_input_consumer_stage *st,
                                             uint32_t wg, bool accumulate) {
    if constexpr (W_BITS == 4) {
      if (p.b_format == BLOCK_SCALED_B_NVFP4)
        mma_of<BM, BN, BLOCK_SCALED_B_NVFP4>(s, p, acc, st, wg, accumulate);
      else
        mma_of<BM, BN, BLOCK_SCALED_B_MXFP4>(s, p, acc, st, wg, accumulate);
    } else {
      if (p.b_format == BLOCK_SCALED_B_E5M2)
        mma_of<BM, BN, BLOCK_SCALED_B_E5M2>(s, p, acc, st, wg, accumulate);
      else
        mma_of<BM, BN, BLOCK_SCALED_B_E4M3>(s, p, acc, st, wg, accumulate);
    }
  }
};

/* The dtype's mantissa bits. */
#define BS_MANT(T) ((T) == TP_DTYPE_E5M2 ? 2 : 3)

/* The mainloop of each operand group: W8A8's (fp8 A, folded), W8A16's
 * converting B (bf16 A, B NONE), or bf16's (B dequantized). */
template <int A, int B>
struct bs_mainloop_of {
  typedef tp_blockwise_mainloop<A, B, tp_block_scaled_params> type;
};
template <>
struct bs_mainloop_of<TP_DTYPE_BF16, TP_DTYPE_NONE> {
  typedef bs_w8a16_mainloop type;
};
template <>
struct bs_mainloop_of<TP_DTYPE_BF16, TP_DTYPE_BF16> {
  typedef tp_operands_mainloop<TP_DTYPE_BF16, TP_DTYPE_BF16, tp_block_scaled_params> type;
};

/* The prologue of each operand group but MXFP8 W8A16's converting one:
 * W8A8's fold, the weight-only modes' dequantization of B, or W4A16's
 * tokens permuted for the transposed kernels. */
template <int A, int B>
static __device__ __forceinline__ void bs_prologue(const tp_block_scaled_params &p) {
  if constexpr (B == TP_DTYPE_E2M1) {
    bs_permute_tokens(p);
  } else if constexpr (A == TP_DTYPE_BF16) {
    switch (p.b_format) {
    case BLOCK_SCALED_B_E5M2: bs_dequantize_b<true>(p); break;
    case BLOCK_SCALED_B_E4M3: bs_dequantize_b<false>(p); break;
    case BLOCK_SCALED_B_NVFP4: bs_dequantize_fp4<true>(p); break;
    default: bs_dequantize_fp4<false>(p); break;
    }
  } else {
    bs_fold_operands<BS_MANT(A), BS_MANT(B)>(p);
  }
}

/* The kernels of operand group TP_DEVICE_GROUP (a NAME of
 * TP_BLOCK_SCALED_OPERANDS, block_scaled_params.h; local.mk builds one
 * image per group): every tile and D of tilepipe/plugin/kernel/tiles.h,
 * named tp_block_scaled_<NAME>_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them
 * by name), but for a group of transposed kernels alone (T 2). W8A8's
 * tiles wider than 128 or not dividing it trap (never planned). */
#if !defined(TP_DEVICE_GROUP) || !defined(TP_DEVICE_GROUP_T)
#error "block_scaled_mainloop.cu: build it with -DTP_DEVICE_GROUP=<group> -DTP_DEVICE_GROUP_T=<T>"
#endif
#define BS_MAINLOOP(NAME, A, B, T)                          \
  typedef bs_mainloop_of<A, B>::type bs_mainloop_##NAME;   \
  typedef bs_transposed_mainloop<(B) == TP_DTYPE_E2M1 ? 4 : 8> bs_transposed_##NAME;
TP_BLOCK_SCALED_OPERANDS(BS_MAINLOOP)

#if TP_DEVICE_GROUP_T != 2
#define BS_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, NAME)                                   \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_block_scaled, NAME, BM, BN, CM, D_NAME),             \
                  bs_mainloop_##NAME, BM, BN, DT, CM)
/* NAME is expanded here, before BS_KERNEL pastes it. */
#define BS_KERNELS(NAME) TP_KERNEL_FOR_EACH_INSTANCE(BS_KERNEL, NAME)
BS_KERNELS(TP_DEVICE_GROUP)
#endif

/* A group with T 1 or 2 (the weight-only modes' converting ones) has the
 * transposed kernels at decode M, tp_block_scaled_<NAME>_<D>_t128x<BN>_c1;
 * every group but T 1's has its prologue, tp_block_scaled_<NAME>_prologue
 * (gpu.c launches it before the kernel; fold.h, bs_permute_tokens). */
#if TP_DEVICE_GROUP_T
#define BS_KERNEL_T(BM, BN, CM, D_NAME, DT, SPEED, NAME)                                 \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME_TRANSPOSED(tp_block_scaled, NAME, BM, BN, CM, D_NAME),   \
                  bs_transposed_##NAME, BM, BN, DT, CM)
#define BS_KERNELS_T(NAME) TP_KERNEL_FOR_EACH_TRANSPOSED_INSTANCE(BS_KERNEL_T, NAME)
BS_KERNELS_T(TP_DEVICE_GROUP)
#endif
#if TP_DEVICE_GROUP_T != 1
#define BS_OPERANDS(NAME, A, B, T) \
  struct bs_operands_##NAME {   \
    enum { a = A, b = B };      \
  };
TP_BLOCK_SCALED_OPERANDS(BS_OPERANDS)
#define BS_PROLOGUE_KERNEL(NAME)                                                               \
  extern "C" __global__ void __launch_bounds__(BLOCK_SCALED_FOLD_THREADS)                      \
      tp_block_scaled_##NAME##_prologue(const __grid_constant__ tp_block_scaled_params p) {    \
    bs_prologue<bs_operands_##NAME::a, bs_operands_##NAME::b>(p);                              \
  }
/* NAME is expanded here, before BS_PROLOGUE_KERNEL pastes it. */
#define BS_PROLOGUE(NAME) BS_PROLOGUE_KERNEL(NAME)
BS_PROLOGUE(TP_DEVICE_GROUP)
#endif
