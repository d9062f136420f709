/* plugins/block_scaled/device/fold.h: MXFP8's ue8m0 codes on the device,
 * and the prologues that rewrite the operands once, before the GEMM (a
 * plan's prologue kernel, tilepipe/plugin/abi.h): the weight-only modes'
 * past their converting kernels' M dequantize B to bf16, W4A4's A and B
 * (exact, bs_dequantize_b for MXFP8, bs_dequantize_fp4 for NVFP4 and
 * MXFP4, for the bf16 GEMM);
 * W8A8's folds both operands into the form the skeleton's
 * blockwise-scaled mainloop multiplies:
 *
 *   A'(m, k) = A(m, k) * 2^(sa(m, k/32) - ra(m, kb)),    a_scale[kb][m] = 2^(ra(m, kb) - 127)
 *   B'(n, k) = B(n, k) * 2^(sb(n, k/32) - rb(n/128, kb)),
 *                                                  b_scale[n/128][kb] = 2^(rb(n/128, kb) - 127)
 *
 * for each fold block kb of 128 of K: ra(m, kb) the largest of row m's
 * four codes in the block, rb(nb, kb) the largest over B's 128 rows of
 * block nb. An element whose code is d below its reference has d taken off
 * its exponent field, exactly while it stays normal; one that falls below
 * the dtype's smallest normal (2^-6 e4m3, 2^-14 e5m2) is rounded to
 * nearest (ties to even), an error of at most half the smallest subnormal
 * (2^-10 e4m3, 2^-17 e5m2) times the reference scale (docs/payloads.md). A
 * NaN or infinite element of a shifted vector is not kept.
 *
 * Each element is folded once, in one pass over the operands that moves
 * 2 (M + N) K bytes (a memory-bound kernel, at the copy ceiling of the
 * GPU), where a fold inside the mainloop would redo each tile of A for
 * every tile column and each of B for every tile row (N / 128 and M / 128
 * times) on the consumers' integer pipes, beside their wgmma.
 *
 * CTA (i, kb) of the grid (x: A's 128-row blocks then B's; y: fold blocks)
 * folds 128 rows x 128 bytes of K: thread t < 128 reads row t's four codes
 * (one unit of the 128x4 tiled layout holds them all), and the 256 threads
 * move the tile's 1024 chunks of 16 bytes, 8 a row, four each, all four
 * loads issued before the codes' (whose round trip runs under them). Rows
 * past M or N and K past the last group are neither read nor written;
 * codes past K's groups read as 0.
 *
 * Invariants: K a multiple of 32 (rows of the folded copies K bytes apart
 * stay 16-byte aligned for TMA), the caller's rows 16-byte aligned (the
 * core's TMA checks). The plain reference is plugins/block_scaled/cpu.c;
 * tests/test_gpu_block_scaled.c checks this fold's exact results
 * (fold_expect) and its worst case. */
#ifndef TP_BLOCK_SCALED_FOLD_H
#define TP_BLOCK_SCALED_FOLD_H

#include <stdint.h>

#include "plugins/block_scaled/device/block_scaled_params.h"
#include "tilepipe/internal/kernel/grid_dependency.h"

/* ue8m0 code s as the f32 2^(s - 127): 0 is the subnormal 2^-127, 255 NaN. */
static __device__ __forceinline__ float bs_ue8m0(uint32_t s) {
  return __uint_as_float(s == 0u ? 0x00400000u : s == 255u ? 0x7fc00000u : s << 23);
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

/* ue8m0 code s as bf16 2^(s - 127) in both halves of a bf16x2 (0 the
 * subnormal 2^-127, 255 NaN). */
static __device__ __forceinline__ uint32_t bs_ue8m0_bf16x2(uint32_t s) {
  const uint32_t h = s == 0u ? 0x0040u : s == 255u ? 0x7fc0u : s << 7;
  return h | h << 16;
}

/* prmt.b32 with its selector's sign replication (a nibble's bit 3: the
 * selected byte's sign in all 8 bits), which __byte_perm drops. */
static __device__ __forceinline__ uint32_t bs_prmt(uint32_t a, uint32_t b, uint32_t sel) {
  uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(sel));
  return r;
}

/* The fp8 bias's power of two that bs_bf16x2_bits's bit placement leaves
 * out: 2^120 (e4m3), 2^112 (e5m2). */
#define BS_UNBIAS(E5M2) ((E5M2) ? 112 : 120)

/* bf16x2 of the two fp8 of x, each sign-extended to 16 bits (prmt's sign
 * replication: a 16-bit half per fp8, the first in the low half), times
 * the bf16x2 factor f in one bf16 multiply, off the conversion pipe that
 * cvt takes (16 results a clock per SM): the fp8's sign, exponent and
 * mantissa bits placed under bf16's read as its value times 2^-BS_UNBIAS,
 * subnormals too, and f is 2^BS_UNBIAS times the scale (UNBIASED) or the
 * scale alone after a first, exact multiply by 2^BS_UNBIAS (a scale code
 * past 127 - BS_UNBIAS + 127 would overflow the combined factor); each
 * product is rounded once, as through f32. An fp8 NaN (e4m3 0x7f, 0xff)
 * or e5m2 infinity comes out finite (e4m3's as 480 times the scale):
 * MXFP8 weights hold neither. */
template <bool E5M2, bool UNBIASED>
static __device__ __forceinline__ uint32_t bs_bf16x2_bits(uint32_t x, uint32_t f) {
  uint32_t v = (x << (E5M2 ? 5 : 4)) & (E5M2 ? 0x8fe08fe0u : 0x87f087f0u);
  if (!UNBIASED) {
    const uint32_t unbias = (BS_UNBIAS(E5M2) + 127u) << 7;
    asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(v) : "r"(v), "r"(unbias | unbias << 16));
  }
  uint32_t out;
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(out) : "r"(v), "r"(f));
  return out;
}

/* 2^126 in both halves of a bf16x2: what bs_e2m1x2_bits's placement leaves out. */
#define BS_BF16X2_2P126 (253u << 7 | 253u << 23)

/* bf16x2 mul.rn (exact where its callers use it: every product fits bf16). */
static __device__ __forceinline__ uint32_t bs_mul_bf16x2(uint32_t a, uint32_t b) {
  uint32_t r;
  asm("mul.rn.bf16x2 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}

/* The two e2m1 of byte b (the low 8 bits, the rest zero; the low nibble
 * first) as bf16x2 bits worth their values times 2^-126: each magnitude
 * (exponent e1 e0, mantissa m) under bf16's lowest two exponent bits and
 * top mantissa bit, sign on sign, so that e2m1's subnormal 0.5 lands on
 * bf16's subnormal 2^-127. */
static __device__ __forceinline__ uint32_t bs_e2m1x2_bits(uint32_t b) {
  return (b * 0x00040040u & 0x01c001c0u) | (b * 0x01001000u & 0x80008000u);
}

/* The two e2m1 nibbles of src (its only bits: at 0 and 16 with mul
 * 0x1040, or at 4 and 20 with 0x0104) as bf16x2 bits placed as
 * bs_e2m1x2_bits places them (values times 2^-126): the product puts each
 * nibble's magnitude at bits 6..8 of its half and its sign at 15, two
 * copies 6 bits apart that never overlap, and the mask keeps those. */
static __device__ __forceinline__ uint32_t bs_e2m1_pair(uint32_t src, uint32_t mul) {
  return src * mul & 0x81c081c0u;
}

/* 16 fp8 (a 16-byte chunk w, in order) times s as 16 bf16 in lo (the
 * first 8) and hi. */
template <bool E5M2>
static __device__ __forceinline__ void bs_bf16x16(uint4 w, float s, uint4 &lo, uint4 &hi) {
  lo = make_uint4(bs_bf16x2<E5M2>(w.x, s), bs_bf16x2<E5M2>(w.x >> 16, s),
                  bs_bf16x2<E5M2>(w.y, s), bs_bf16x2<E5M2>(w.y >> 16, s));
  hi = make_uint4(bs_bf16x2<E5M2>(w.z, s), bs_bf16x2<E5M2>(w.z >> 16, s),
                  bs_bf16x2<E5M2>(w.w, s), bs_bf16x2<E5M2>(w.w >> 16, s));
}

/* Offset of code (r, g) in s (cols codes a row). */
static __device__ __forceinline__ int64_t bs_code_offset(const tp_block_scaled_codes &s,
                                                         int32_t cols, int32_t r, int32_t g) {
  return s.tiled ? ((int64_t)(r / 128) * ((cols + 3) / 4) + g / 4) * 512 + (r % 32) * 16 +
                       (r % 128) / 32 * 4 + g % 4
                 : (int64_t)r * s.ld + g;
}

/* The largest of a word's four bytes. */
static __device__ __forceinline__ uint32_t bs_max4(uint32_t w) {
  w = __vmaxu4(w, w >> 16);
  return max(w & 0xffu, (w >> 8) & 0xffu);
}

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
 * rounded to nearest. */
template <int MANT>
static __device__ __forceinline__ uint4 bs_fold16(uint4 v, uint32_t d) {
  if (d >= (0x7fu >> MANT)) /* no byte stays normal */
    return make_uint4(bs_fold_rounded<MANT>(v.x, d), bs_fold_rounded<MANT>(v.y, d),
                      bs_fold_rounded<MANT>(v.z, d), bs_fold_rounded<MANT>(v.w, d));
  const uint32_t keep = ((d + 1u) << MANT) * 0x01010101u, sub = (d << MANT) * 0x01010101u;
  return make_uint4(bs_fold4<MANT>(v.x, keep, sub, d), bs_fold4<MANT>(v.y, keep, sub, d),
                    bs_fold4<MANT>(v.z, keep, sub, d), bs_fold4<MANT>(v.w, keep, sub, d));
}

/* 16-byte chunks of a CTA's tile each thread moves. */
#define BS_FOLD_CHUNKS (BLOCK_SCALED_FOLD_ROWS * 8 / BLOCK_SCALED_FOLD_THREADS)

/* Row r's codes of fold block kb, one a byte (the first in the low byte):
 * 0 past `rows` and past K's groups (cols of them), which never raise a
 * reference. No byte past the row's codes is read in the strided layout
 * (it may lie past the tensor); the tiled layout's unit holds the four,
 * its padding past K's groups masked off (it holds no codes). */
static __device__ __forceinline__ uint32_t bs_row_codes(const tp_block_scaled_codes &s,
                                                        int32_t rows, int32_t cols, int32_t r,
                                                        int32_t kb) {
  const int32_t g0 = kb * (BLOCK_SCALED_FOLD_BLOCK / BLOCK_SCALED_MX_VEC);
  if (r >= rows) return 0u;
  const int32_t have = min(cols - g0, 4); /* the block's groups inside K: 1..4 */
  const uint8_t *at = s.data + bs_code_offset(s, cols, r, g0);
  if (s.tiled) {
    const uint32_t w = __ldg((const uint32_t *)at);
    return have == 4 ? w : w & ((1u << (8 * have)) - 1u);
  }
  if (have == 4 && (((uintptr_t)at | (uintptr_t)s.ld) & 3u) == 0u)
    return __ldg((const uint32_t *)at);
  uint32_t w = 0u;
  for (int32_t i = 0; i < have; ++i) w |= (uint32_t)__ldg(at + i) << (8 * i);
  return w;
}

/* This thread's chunks of a CTA's tile: rows [r0, r0 + 128) of an
 * operand (rows of them exist, ld bytes apart at in), K-bytes [k0, k0 +
 * bytes), each loaded where it exists. */
static __device__ __forceinline__ void bs_fold_load(uint4 (&v)[BS_FOLD_CHUNKS], const uint8_t *in,
                                                    int64_t ld, int32_t r0, int32_t rows,
                                                    int32_t k0, int32_t bytes) {
#pragma unroll
  for (int j = 0; j < BS_FOLD_CHUNKS; ++j) {
    const uint32_t c = threadIdx.x + (uint32_t)j * BLOCK_SCALED_FOLD_THREADS;
    const int32_t r = r0 + (int32_t)(c / 8u), q = (int32_t)(c % 8u);
    v[j] = r < rows && q * 16 < bytes
               ? __ldg((const uint4 *)(in + (int64_t)r * ld + k0 + q * 16))
               : make_uint4(0u, 0u, 0u, 0u);
  }
}

/* The chunks folded (an operand with MANT mantissa bits) and stored, K
 * bytes a row at out: each row's codes in codes[], its reference ref, or,
 * ref < 0, the row's largest code. */
template <int MANT>
static __device__ __forceinline__ void bs_fold_store(const uint4 (&v)[BS_FOLD_CHUNKS],
                                                     uint8_t *out, int32_t k, int32_t r0,
                                                     int32_t rows, int32_t k0, int32_t bytes,
                                                     const uint32_t *codes, int32_t ref) {
#pragma unroll
  for (int j = 0; j < BS_FOLD_CHUNKS; ++j) {
    const uint32_t c = threadIdx.x + (uint32_t)j * BLOCK_SCALED_FOLD_THREADS;
    const int32_t r = r0 + (int32_t)(c / 8u), q = (int32_t)(c % 8u);
    if (r >= rows || q * 16 >= bytes) continue;
    const uint32_t w = codes[c / 8u];
    const uint32_t top = ref >= 0 ? (uint32_t)ref : bs_max4(w);
    const uint32_t d = top - ((w >> (8 * (q / 2))) & 0xffu);
    *(uint4 *)(out + (int64_t)r * k + k0 + q * 16) = d == 0u ? v[j] : bs_fold16<MANT>(v[j], d);
  }
}

/* The fold prologue's body for operand dtypes with MANT_A and MANT_B
 * mantissa bits (the kernel: block_scaled_mainloop.cu). */
template <int MANT_A, int MANT_B>
static __device__ __forceinline__ void bs_fold_operands(const tp_block_scaled_params &p) {
  __shared__ uint32_t codes[BLOCK_SCALED_FOLD_ROWS];
  __shared__ uint32_t warp_top[BLOCK_SCALED_FOLD_ROWS / 32];
  /* The GEMM may set up while this grid's last CTAs run; it reads
   * nothing before this grid has completed. */
  tp_grid_launch_dependents();
  const tp_block_scaled_prologue &f = p.prologue;
  const int32_t m = p.kernel.m, n = p.kernel.n, k = p.kernel.k;
  const int32_t a_blocks = (m + BLOCK_SCALED_FOLD_ROWS - 1) / BLOCK_SCALED_FOLD_ROWS;
  const int32_t k_blocks = (k + BLOCK_SCALED_FOLD_BLOCK - 1) / BLOCK_SCALED_FOLD_BLOCK;
  const bool is_a = (int32_t)blockIdx.x < a_blocks;
  const int32_t rb = is_a ? (int32_t)blockIdx.x : (int32_t)blockIdx.x - a_blocks;
  const int32_t kb = (int32_t)blockIdx.y, r0 = rb * BLOCK_SCALED_FOLD_ROWS;
  const int32_t rows = is_a ? m : n, t = (int32_t)threadIdx.x;
  const int32_t k0 = kb * BLOCK_SCALED_FOLD_BLOCK, bytes = min(k - k0, BLOCK_SCALED_FOLD_BLOCK);
  /* The data's loads first: the codes' round trip and the barrier run
   * under them. */
  uint4 v[BS_FOLD_CHUNKS];
  bs_fold_load(v, is_a ? f.a : f.b, is_a ? f.lda : f.ldb, r0, rows, k0, bytes);
  if (t < BLOCK_SCALED_FOLD_ROWS) {
    const uint32_t w =
        bs_row_codes(is_a ? p.a_codes : p.b_codes, rows, p.scale_cols, r0 + t, kb);
    codes[t] = w;
    if (is_a && r0 + t < rows) f.a_scale[kb * f.a_scale_ld + r0 + t] = bs_ue8m0(bs_max4(w));
    if (!is_a) {
      const uint32_t top = __reduce_max_sync(0xffffffffu, bs_max4(w));
      if (t % 32 == 0) warp_top[t / 32] = top;
    }
  }
  __syncthreads();
  int32_t ref = -1; /* A: each row's own */
  if (!is_a) {
    ref = (int32_t)max(max(warp_top[0], warp_top[1]), max(warp_top[2], warp_top[3]));
    if (t == 0) f.b_scale[(int64_t)rb * k_blocks + kb] = bs_ue8m0((uint32_t)ref);
  }
  if (is_a)
    bs_fold_store<MANT_A>(v, f.a_out, k, r0, rows, k0, bytes, codes, ref);
  else
    bs_fold_store<MANT_B>(v, f.b_out, k, r0, rows, k0, bytes, codes, ref);
}

/* W8A16's prologue at large M: B (e4m3, or e5m2 with E5M2) times its
 * scales as bf16 [N, K] (K bf16 a row) at p.prologue.b_out, exactly (an
 * 8-bit float times a power of two has at most 4 significant bits:
 * bs_bf16x2). CTA (i, kb) converts rows [128 i, 128 i + 128) by K-bytes
 * [128 kb, 128 kb + 128), the data's loads first, as the fold does; codes
 * past K's groups are never used (their chunks lie past K). */
template <bool E5M2>
static __device__ __forceinline__ void bs_dequantize_b(const tp_block_scaled_params &p) {
  __shared__ uint32_t codes[BLOCK_SCALED_FOLD_ROWS];
  tp_grid_launch_dependents();
  const tp_block_scaled_prologue &f = p.prologue;
  const int32_t n = p.kernel.n, k = p.kernel.k, t = (int32_t)threadIdx.x;
  const int32_t r0 = (int32_t)blockIdx.x * BLOCK_SCALED_FOLD_ROWS, kb = (int32_t)blockIdx.y;
  const int32_t k0 = kb * BLOCK_SCALED_FOLD_BLOCK, bytes = min(k - k0, BLOCK_SCALED_FOLD_BLOCK);
  uint4 v[BS_FOLD_CHUNKS];
  bs_fold_load(v, f.b, f.ldb, r0, n, k0, bytes);
  if (t < BLOCK_SCALED_FOLD_ROWS) codes[t] = bs_row_codes(p.b_codes, n, p.scale_cols, r0 + t, kb);
  __syncthreads();
#pragma unroll
  for (int j = 0; j < BS_FOLD_CHUNKS; ++j) {
    const uint32_t c = threadIdx.x + (uint32_t)j * BLOCK_SCALED_FOLD_THREADS;
    const int32_t r = r0 + (int32_t)(c / 8u), q = (int32_t)(c % 8u);
    if (r >= n || q * 16 >= bytes) continue;
    const float s = bs_ue8m0((codes[c / 8u] >> (8 * (q / 2))) & 0xffu);
    uint4 *out = (uint4 *)(f.b_out + ((int64_t)r * k + k0 + q * 16) * 2);
    bs_bf16x16<E5M2>(v[j], s, out[0], out[1]);
  }
}

/* The 4-bit modes' prologue (W4A16 past the transposed kernels' M, and
 * W4A4): each e2m1 operand (NVFP4, or MXFP4) times its scales as bf16
 * [rows, K] at its out, exactly (an e2m1 value times a power of two or a
 * ue4m3 has at most 6 significant bits): CTA (i, kb) converts rows
 * [128 i', 128 i' + 128) of A (i < A's row blocks, where A is dequantized
 * too: a_codes given) or else of B (i' counted from B's first), by packed
 * bytes [128 kb, 128 kb + 128), 256 of K, each 16-byte chunk (32 of K)
 * with its group's codes read beside it (two under NVFP4). */
template <bool NVFP4>
static __device__ __forceinline__ void bs_dequantize_fp4(const tp_block_scaled_params &p) {
  tp_grid_launch_dependents();
  const tp_block_scaled_prologue &f = p.prologue;
  const int32_t a_blocks =
      p.a_codes.data != nullptr ? (p.kernel.m + BLOCK_SCALED_FOLD_ROWS - 1) / BLOCK_SCALED_FOLD_ROWS
                                : 0;
  const bool is_a = (int32_t)blockIdx.x < a_blocks;
  const int32_t rows = is_a ? p.kernel.m : p.kernel.n, k = p.kernel.k;
  const tp_block_scaled_codes &codes = is_a ? p.a_codes : p.b_codes;
  uint8_t *const out_at = is_a ? f.a_out : f.b_out;
  const int32_t r0 = ((int32_t)blockIdx.x - (is_a ? 0 : a_blocks)) * BLOCK_SCALED_FOLD_ROWS;
  const int32_t k0 = (int32_t)blockIdx.y * BLOCK_SCALED_FOLD_BLOCK; /* bytes */
  const int32_t bytes = min(k / 2 - k0, BLOCK_SCALED_FOLD_BLOCK);
  uint4 v[BS_FOLD_CHUNKS];
  bs_fold_load(v, is_a ? f.a : f.b, is_a ? f.lda : f.ldb, r0, rows, k0, bytes);
#pragma unroll
  for (int j = 0; j < BS_FOLD_CHUNKS; ++j) {
    const uint32_t c = threadIdx.x + (uint32_t)j * BLOCK_SCALED_FOLD_THREADS;
    const int32_t r = r0 + (int32_t)(c / 8u), q = (int32_t)(c % 8u);
    if (r >= rows || q * 16 >= bytes) continue;
    const int32_t e0 = 2 * (k0 + q * 16); /* the chunk's first K-element */
    uint32_t s[2];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int32_t g = NVFP4 ? e0 / 16 + h : e0 / BLOCK_SCALED_MX_VEC;
      const uint32_t code = __ldg(codes.data + bs_code_offset(codes, p.scale_cols, r, g));
      /* ue4m3 placed as e4m3 under bf16 is worth the scale times 2^-120 */
      s[h] = !NVFP4 ? bs_ue8m0_bf16x2(code)
             : (code & 0x7fu) == 0x7fu
                 ? 0x7fc07fc0u
                 : bs_mul_bf16x2((code & 0x7fu) * 0x00100010u, 247u << 7 | 247u << 23);
    }
    const uint32_t w[4] = {v[j].x, v[j].y, v[j].z, v[j].w};
    uint4 *out = (uint4 *)(out_at + ((int64_t)r * k + e0) * 2);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      uint32_t o[4];
#pragma unroll
      for (int b = 0; b < 4; ++b)
        o[b] = bs_mul_bf16x2(bs_mul_bf16x2(bs_e2m1x2_bits(w[i] >> 8 * b & 0xffu), BS_BF16X2_2P126),
                             s[i / 2]);
      out[i] = make_uint4(o[0], o[1], o[2], o[3]);
    }
  }
}

/* W4A16 on the transposed kernels: where position k of the tokens' K, as
 * the prologue lays them out for the transposed mainloop's convert_fp4
 * (block_scaled_mainloop.cu), takes its element from
 * (within the k's 64-wide k-tile): step s = k%64/16, half k/8%2, thread
 * c = k/2%4 and the pair's element k%2 of wgmma's operand layout read
 * word s/2 of thread c's (K 32(s/2) + 8c ..), nibble 2(s%2) + half,
 * or that + 4. Positions below 32 keep K below 32, so a k-tile that K
 * ends halfway keeps its zeros where TMA puts them. */
static __device__ __forceinline__ uint32_t bs_t_token_k(uint32_t k) {
  const uint32_t s = k % 64u / 16u, half = k / 8u % 2u, c = k / 2u % 4u;
  return k / 64u * 64u + 32u * (s / 2u) + 8u * c + 2u * (s % 2u) + half + 4u * (k % 2u);
}

/* W4A16's prologue for the transposed kernels: A (the tokens, bf16,
 * p.kernel.n rows of the transposed problem) into the workspace as
 * packed rows of K, permuted by bs_t_token_k; a thread a 16-byte run. */
static __device__ __forceinline__ void bs_permute_tokens(const tp_block_scaled_params &p) {
  tp_grid_launch_dependents();
  const tp_block_scaled_prologue &f = p.prologue;
  const int64_t k = p.kernel.k, runs = k / 8;
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= (int64_t)p.kernel.n * runs) return;
  const int64_t m = t / runs;
  const uint32_t k0 = (uint32_t)(t % runs) * 8u;
  const uint16_t *row = (const uint16_t *)(f.a + m * f.lda);
  uint32_t o[4];
#pragma unroll
  for (int e = 0; e < 4; ++e)
    o[e] = (uint32_t)row[bs_t_token_k(k0 + 2u * e)] |
           (uint32_t)row[bs_t_token_k(k0 + 2u * e + 1u)] << 16;
  *(uint4 *)(f.a_out + (m * k + k0) * 2) = make_uint4(o[0], o[1], o[2], o[3]);
}

#endif
