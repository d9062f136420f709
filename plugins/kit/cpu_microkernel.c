/* plugins/kit/cpu_microkernel.c: the CPU consumer's micro-kernels (see
 * cpu_microkernel.h), one per instruction set, chosen once per process.
 *
 * Each computes C[8][32] = sum_{k < kc} A[k][0..8] (x) B[k][0..32] over a
 * packed panel pair (tilepipe/plugin/kit/cpu_stage.h): BLIS's outer-product
 * form, every element of a k step broadcast once and multiplied into a
 * whole row of accumulators, which stay in registers over the k loop.
 *
 *   avx512bf16  bf16 panels in K-pairs (both operands bf16: the stage
 *            holds them unconverted, tilepipe/plugin/kit/cpu_stage.h):
 *            the avx512 kernel's registers, one vdpbf16ps per 16 outputs
 *            and two steps of K, twice an FMA's multiply-adds; f32 panels
 *            (every other dtype) take avx512's;
 *   avx512   16 zmm accumulators (8 rows x 2 x 16), 2 loads of B and 8
 *            broadcasts of A per 16 FMAs;
 *   avx2     the panel in four 4 x 16 blocks, 8 ymm accumulators each;
 *   portable plain C over 8 x 32 (the compiler's vectors, any CPU).
 *
 * The x86 ones carry their instruction sets as function attributes, so one
 * build runs on any x86-64; the choice reads the CPU once (and
 * TILEPIPE_CPU_KERNEL=portable|avx2|avx512|avx512bf16, for tests and
 * comparisons). Every f32 path sums each C element over k in order, in
 * f32, one FMA (or, in C, one multiply-add) per term. Each has its
 * promotion beside it, the block added (times its scales) into the
 * accumulators in vectors of its width: on a scaled payload's 16- or
 * 32-long groups that is a pass over the block for every 16 or 32 steps of
 * K, too often to leave to the baseline's SSE.
 *
 * vdpbf16ps rounds as the f32 paths do but for two details (Intel's SDM,
 * and measured on a Sapphire Rapids). Each K-pair is two f32 FMAs, each
 * rounded to nearest even, the pair's odd k first: a product of two bf16
 * is exact in f32, so every term is one rounded addition as in the f32
 * paths, only the order within a pair differs, and the tests' bound (K
 * roundings in any order: tools/reference/compare.c) holds as derived.
 * And it ignores MXCSR: denormal inputs (bf16 codes, the accumulator) are
 * read as zero and denormal results flushed to zero, where the f32 paths
 * keep them. A denormal a drops its term (|a b| < 2^-126 |b|), a flushed
 * partial sum loses less than 2^-126. The tests' values never come near:
 * their bf16 operands are at least 2^-21 in magnitude
 * (tools/seeded_values.h), so every product and partial sum is 0 or a
 * multiple of 2^-56. */
#include <stdlib.h>
#include <string.h>

#include "plugins/kit/cpu_microkernel.h"

static void ukernel_portable(const void *pa, const void *pb, int32_t kc, float *c) {
  const float *a = pa, *b = pb;
  float acc[TP_KIT_CPU_MR][TP_KIT_CPU_NR] = {{0}};
  for (int32_t k = 0; k < kc; k++) {
    const float *ak = a + (int64_t)k * TP_KIT_CPU_MR, *bk = b + (int64_t)k * TP_KIT_CPU_NR;
    for (int i = 0; i < TP_KIT_CPU_MR; i++)
      for (int j = 0; j < TP_KIT_CPU_NR; j++) acc[i][j] += ak[i] * bk[j];
  }
  memcpy(c, acc, sizeof acc);
}

static void promote_portable(const float *c, int32_t lo, int32_t hi, const float *sa,
                             int32_t sa_stride, const float *sb, float *out, int32_t ld_out) {
  for (int32_t i = lo; i < hi; i++) {
    float *o = out + (int64_t)(i - lo) * ld_out;
    const float *ci = c + i * TP_KIT_CPU_NR;
    if (sa == NULL) {
      for (int j = 0; j < TP_KIT_CPU_NR; j++) o[j] += ci[j];
      continue;
    }
    const float s = sa[(int64_t)(i - lo) * sa_stride];
    for (int j = 0; j < TP_KIT_CPU_NR; j++) {
      const float scale = s * sb[j];
      const float term = scale * ci[j];
      o[j] += term;
    }
  }
}

/* One word, its bits as they are (memcpy: the words are f32 or bf16
 * pairs). */
static void move_word(const void *rows, int64_t from, void *panel, int64_t to) {
  memcpy((char *)panel + 4 * to, (const char *)rows + 4 * from, 4);
}

static void transpose_portable(const void *rows, int32_t ld, int32_t width, int32_t cols,
                               void *panel) {
  for (int32_t k = 0; k < cols; k++)
    for (int32_t i = 0; i < width; i++)
      move_word(rows, (int64_t)i * ld + k, panel, (int64_t)k * width + i);
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define TP_KIT_CPU_X86 1

/* 8 x 8 blocks through registers: 8 row loads, 24 shuffles, 8 stores of 8
 * contiguous floats, where the scalar loop moves one float at a time.
 * Columns past the last whole 8 (a K-group shorter than 8) go one by
 * one. */
__attribute__((target("avx"))) static void transpose_avx(const void *prows, int32_t ld,
                                                         int32_t width, int32_t cols,
                                                         void *ppanel) {
  const float *rows = prows; /* as float vectors: loads and shuffles keep the bits */
  float *panel = ppanel;
  const int32_t whole = cols / 8 * 8;
  for (int32_t k = whole; k < cols; k++)
    for (int32_t i = 0; i < width; i++)
      move_word(prows, (int64_t)i * ld + k, ppanel, (int64_t)k * width + i);
  for (int32_t i0 = 0; i0 < width; i0 += 8)
    for (int32_t k0 = 0; k0 < whole; k0 += 8) {
      __m256 r[8], t[8];
      for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(rows + (int64_t)(i0 + i) * ld + k0);
      for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
      }
      for (int i = 0; i < 8; i += 4) {
        r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
      }
      /* r[0..3] hold columns 0, 1, 2, 3 (and 4..7 in the high lanes) of
       * rows 0..3, r[4..7] the same of rows 4..7. */
      for (int c = 0; c < 4; c++) {
        float *lo = panel + (int64_t)(k0 + c) * width + i0;
        float *hi = panel + (int64_t)(k0 + c + 4) * width + i0;
        _mm256_storeu_ps(lo, _mm256_permute2f128_ps(r[c], r[c + 4], 0x20));
        _mm256_storeu_ps(hi, _mm256_permute2f128_ps(r[c], r[c + 4], 0x31));
      }
    }
}

/* The promotion in vectors of W floats (16: AVX-512, 8: AVX), one body for
 * both instruction sets. */
#define PROMOTE_BODY(W, VEC, LOAD, STORE, SET1, MUL, ADD)                                         \
  for (int32_t i = lo; i < hi; i++) {                                                            \
    float *o = out + (int64_t)(i - lo) * ld_out;                                                 \
    const float *ci = c + i * TP_KIT_CPU_NR;                                                     \
    const VEC s = SET1(sa == NULL ? 1.0f : sa[(int64_t)(i - lo) * sa_stride]);                   \
    for (int j = 0; j < TP_KIT_CPU_NR; j += W) {                                                 \
      const VEC term = sa == NULL ? LOAD(ci + j) : MUL(MUL(s, LOAD(sb + j)), LOAD(ci + j));      \
      STORE(o + j, ADD(LOAD(o + j), term));                                                      \
    }                                                                                            \
  }

__attribute__((target("avx512f"))) static void promote_avx512(const float *c, int32_t lo,
                                                              int32_t hi, const float *sa,
                                                              int32_t sa_stride, const float *sb,
                                                              float *out, int32_t ld_out) {
  PROMOTE_BODY(16, __m512, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_mul_ps,
               _mm512_add_ps)
}

__attribute__((target("avx2,fma"))) static void promote_avx2(const float *c, int32_t lo,
                                                             int32_t hi, const float *sa,
                                                             int32_t sa_stride, const float *sb,
                                                             float *out, int32_t ld_out) {
  PROMOTE_BODY(8, __m256, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_mul_ps,
               _mm256_add_ps)
}

__attribute__((target("avx512f"))) static void ukernel_avx512(const void *pa, const void *pb,
                                                              int32_t kc, float *c) {
  const float *a = pa, *b = pb;
  __m512 acc[TP_KIT_CPU_MR][2];
  for (int i = 0; i < TP_KIT_CPU_MR; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int32_t k = 0; k < kc; k++) {
    const float *ak = a + (int64_t)k * TP_KIT_CPU_MR;
    const __m512 b0 = _mm512_loadu_ps(b + (int64_t)k * TP_KIT_CPU_NR);
    const __m512 b1 = _mm512_loadu_ps(b + (int64_t)k * TP_KIT_CPU_NR + 16);
#pragma GCC unroll 8
    for (int i = 0; i < TP_KIT_CPU_MR; i++) {
      const __m512 ai = _mm512_set1_ps(ak[i]);
      acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
      acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
    }
  }
  for (int i = 0; i < TP_KIT_CPU_MR; i++) {
    _mm512_storeu_ps(c + i * TP_KIT_CPU_NR, acc[i][0]);
    _mm512_storeu_ps(c + i * TP_KIT_CPU_NR + 16, acc[i][1]);
  }
}

__attribute__((target("avx2,fma"))) static void ukernel_avx2(const void *pa, const void *pb,
                                                             int32_t kc, float *c) {
  const float *a = pa, *b = pb;
  for (int j0 = 0; j0 < TP_KIT_CPU_NR; j0 += 16)
    for (int i0 = 0; i0 < TP_KIT_CPU_MR; i0 += 4) {
      __m256 acc[4][2];
      for (int i = 0; i < 4; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
      for (int32_t k = 0; k < kc; k++) {
        const float *ak = a + (int64_t)k * TP_KIT_CPU_MR + i0;
        const float *bk = b + (int64_t)k * TP_KIT_CPU_NR + j0;
        const __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8);
#pragma GCC unroll 4
        for (int i = 0; i < 4; i++) {
          const __m256 ai = _mm256_broadcast_ss(ak + i);
          acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
          acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
        }
      }
      for (int i = 0; i < 4; i++) {
        _mm256_storeu_ps(c + (i0 + i) * TP_KIT_CPU_NR + j0, acc[i][0]);
        _mm256_storeu_ps(c + (i0 + i) * TP_KIT_CPU_NR + j0 + 8, acc[i][1]);
      }
    }
}

/* avx512's kernel on K-pairs: B's 32 columns' pairs of a K-pair in 2 zmm,
 * each row's pair of A broadcast as one 32-bit word. */
__attribute__((target("avx512bf16,avx512f"))) static void ukernel_avx512bf16(const void *pa,
                                                                            const void *pb,
                                                                            int32_t kc,
                                                                            float *c) {
  const uint16_t *a = pa, *b = pb;
  __m512 acc[TP_KIT_CPU_MR][2];
  for (int i = 0; i < TP_KIT_CPU_MR; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  for (int32_t k = 0; k < kc; k += 2) {
    const uint16_t *ak = a + (int64_t)k * TP_KIT_CPU_MR, *bk = b + (int64_t)k * TP_KIT_CPU_NR;
    const __m512bh b0 = (__m512bh)_mm512_loadu_si512(bk);
    const __m512bh b1 = (__m512bh)_mm512_loadu_si512(bk + 32);
#pragma GCC unroll 8
    for (int i = 0; i < TP_KIT_CPU_MR; i++) {
      uint32_t pair;
      memcpy(&pair, ak + 2 * i, sizeof pair);
      const __m512bh ai = (__m512bh)_mm512_set1_epi32((int)pair);
      acc[i][0] = _mm512_dpbf16_ps(acc[i][0], ai, b0);
      acc[i][1] = _mm512_dpbf16_ps(acc[i][1], ai, b1);
    }
  }
  for (int i = 0; i < TP_KIT_CPU_MR; i++) {
    _mm512_storeu_ps(c + i * TP_KIT_CPU_NR, acc[i][0]);
    _mm512_storeu_ps(c + i * TP_KIT_CPU_NR + 16, acc[i][1]);
  }
}
#endif

/* The tallest tile whose bf16 operands stay bf16 unless avx512bf16 is
 * forced. On Sapphire Rapids vdpbf16ps issues once per 2 cycles, a zmm
 * FMA twice per cycle (measured: half the FMA kernel's multiply-adds per
 * second), so bf16 panels pay only where packing outweighs multiplying:
 * a tile of few rows, whose B panels (packed per tile) are most of the
 * work. At M x 4096 x 4096 they won at M 16 and 32, tied at 64 and lost
 * from 128 (bench/results/2026-11-28k-cpu-bf16-kernel.txt). */
#define BF16_TILE_M 32

/* The CPU's best, or the one TILEPIPE_CPU_KERNEL names (if the CPU has
 * it). */
static tp_kit_cpu_ukernel choose(void) {
  const char *want = getenv("TILEPIPE_CPU_KERNEL");
  tp_kit_cpu_ukernel k = {"portable", ukernel_portable, NULL, 0, promote_portable,
                          transpose_portable};
  if (want != NULL && strcmp(want, "portable") == 0) return k;
#ifdef TP_KIT_CPU_X86
  __builtin_cpu_init();
  const int avx512 = __builtin_cpu_supports("avx512f");
  const int bf16 = avx512 && __builtin_cpu_supports("avx512bf16");
  const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2 && (want == NULL || strcmp(want, "avx2") == 0 || !avx512))
    k = (tp_kit_cpu_ukernel){"avx2", ukernel_avx2, NULL, 0, promote_avx2, transpose_avx};
  if (avx512 && (want == NULL || strcmp(want, "avx512") == 0 || !bf16))
    k = (tp_kit_cpu_ukernel){"avx512", ukernel_avx512, NULL, 0, promote_avx512, transpose_avx};
  if (bf16 && (want == NULL || strcmp(want, "avx512bf16") == 0))
    k = (tp_kit_cpu_ukernel){"avx512bf16", ukernel_avx512, ukernel_avx512bf16,
                             want == NULL ? BF16_TILE_M : TP_KIT_CPU_TILE_M, promote_avx512,
                             transpose_avx};
#endif
  return k;
}

tp_kit_cpu_ukernel tp_kit_cpu_ukernel_get(void) {
  /* Chosen once: every thread computes the same answer, so a race only
   * repeats the work (the stores are whole, of one value). */
  static _Atomic(tp_kit_cpu_ukernel_fn) fn;
  static _Atomic(tp_kit_cpu_ukernel_fn) fn_bf16;
  static _Atomic int32_t bf16_tile_m;
  static _Atomic(tp_kit_cpu_promote_fn) promote;
  static _Atomic(tp_kit_cpu_transpose_fn) transpose;
  static const char *_Atomic name;
  tp_kit_cpu_ukernel_fn f = fn;
  if (f == NULL) {
    const tp_kit_cpu_ukernel k = choose();
    name = k.name;
    fn_bf16 = k.fn_bf16;
    bf16_tile_m = k.bf16_tile_m;
    promote = k.promote; /* before fn: a reader that sees fn sees the rest */
    transpose = k.transpose;
    fn = f = k.fn;
  }
  return (tp_kit_cpu_ukernel){name, f, fn_bf16, bf16_tile_m, promote, transpose};
}
