/* plugins/kit/tile_load.c: see tilepipe/plugin/kit/tile_load.h. */
#include <stdatomic.h>
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/tile_load.h"

/* The values of an 8-bit dtype's 256 codes, made on first use: a table
 * lookup decodes a code where the codec's bit arithmetic takes a dozen
 * operations. One thread fills it (state 0 -> 1 -> 2, the last store
 * publishing the values); others decode with the codec meanwhile. */
typedef struct code_table {
  float value[256];
  _Atomic int state;
} code_table;

static const float *table_of(code_table *t, tp_dtype dtype) {
  if (t->state == 2) return t->value;
  int empty = 0;
  if (!atomic_compare_exchange_strong(&t->state, &empty, 1)) return NULL;
  for (uint32_t c = 0; c < 256; c++) t->value[c] = tp_codec_decode(dtype, c);
  t->state = 2;
  return t->value;
}

/* count codes of an 8-bit dtype from base[first] through its table. */
static void decode_table(code_table *t, tp_dtype dtype, const void *base, int64_t first,
                         int32_t count, float *dst) {
  const float *v = table_of(t, dtype);
  const unsigned char *p = (const unsigned char *)base + first;
  if (v == NULL)
    for (int32_t j = 0; j < count; j++) dst[j] = tp_codec_decode(dtype, p[j]);
  else
    for (int32_t j = 0; j < count; j++) dst[j] = v[p[j]];
}

static code_table e4m3_table, e5m2_table, e2m1_table;

/* count packed 4-bit codes from element first of base (the low nibble of
 * a byte first) through the table of their 16 values (its first 16
 * entries; while another thread fills it, 16 decoded here), a byte's two
 * a step. */
static void decode_nibbles(code_table *t, tp_dtype dtype, const void *base, int64_t first,
                           int32_t count, float *dst) {
  float own[16];
  const float *v = table_of(t, dtype);
  if (v == NULL) {
    for (uint32_t c = 0; c < 16; c++) own[c] = tp_codec_decode(dtype, c);
    v = own;
  }
  const unsigned char *p = (const unsigned char *)base + first / 2;
  int32_t j = 0;
  if (first % 2 != 0 && count > 0) dst[j++] = v[*p++ >> 4];
  for (; j + 2 <= count; j += 2, p++) {
    dst[j] = v[*p & 0xfu];
    dst[j + 1] = v[*p >> 4];
  }
  if (j < count) dst[j] = v[*p & 0xfu];
}

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* f16 by the CPU's conversion (F16C), 8 at a time. */
__attribute__((target("avx,f16c"))) static void decode_f16c(const uint16_t *p, int32_t count,
                                                            float *dst) {
  int32_t j = 0;
  for (; j + 8 <= count; j += 8)
    _mm256_storeu_ps(dst + j, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + j))));
  for (; j < count; j++) dst[j] = tp_f16_decode(p[j]);
}

/* bf16 by widening 8 codes at a time into the high halves of f32 lanes:
 * fewer instructions than the scalar shift, so more rows' loads are in
 * flight at once (packing a B tile reads hundreds of rows, each a few
 * cache lines, and waits on memory). */
__attribute__((target("avx2"))) static void decode_bf16_avx2(const uint16_t *p, int32_t count,
                                                             float *dst) {
  int32_t j = 0;
  for (; j + 8 <= count; j += 8) {
    const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p + j)));
    _mm256_storeu_si256((__m256i *)(dst + j), _mm256_slli_epi32(w, 16));
  }
  for (; j < count; j++) dst[j] = tp_bf16_decode(p[j]);
}

/* AVX2 (for F16C too: every CPU with the one has the other, and not every
 * compiler's __builtin_cpu_supports knows "f16c": clang 14 refuses it). */
static int has_avx2(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#else
static void decode_f16c(const uint16_t *p, int32_t count, float *dst) {
  for (int32_t j = 0; j < count; j++) dst[j] = tp_f16_decode(p[j]);
}
static void decode_bf16_avx2(const uint16_t *p, int32_t count, float *dst) {
  for (int32_t j = 0; j < count; j++) dst[j] = tp_bf16_decode(p[j]);
}
static int has_avx2(void) { return 0; }
#endif

/* One switch per row, not per element: each case is a loop whose dtype is a
 * constant, so the inline codec specializes to that format. */
#define DECODE_CASE(DT)                                                                           \
  case DT:                                                                                        \
    for (int32_t j = 0; j < count; j++)                                                           \
      dst[j] = tp_codec_load(DT, base, first + j);                                                \
    break

/* Whether the CPU has AVX2 (and so F16C): -1 until asked; a race only
 * asks the CPU twice. */
static _Atomic int avx2 = -1;

static void decode_run(tp_dtype dtype, const void *base, int64_t first, int32_t count, float *dst) {
  switch (dtype) {
    DECODE_CASE(TP_DTYPE_F32);
  case TP_DTYPE_BF16: { /* the high half of an f32 */
    const uint16_t *p = (const uint16_t *)base + first;
    if (avx2 < 0) avx2 = has_avx2();
    if (avx2) {
      decode_bf16_avx2(p, count, dst);
      break;
    }
    for (int32_t j = 0; j < count; j++) {
      const uint32_t bits = (uint32_t)p[j] << 16;
      memcpy(&dst[j], &bits, sizeof bits);
    }
    break;
  }
  case TP_DTYPE_F16: {
    if (avx2 < 0) avx2 = has_avx2();
    const uint16_t *p = (const uint16_t *)base + first;
    if (avx2) {
      decode_f16c(p, count, dst);
    } else {
      for (int32_t j = 0; j < count; j++) dst[j] = tp_f16_decode(p[j]);
    }
    break;
  }
  case TP_DTYPE_E4M3: decode_table(&e4m3_table, dtype, base, first, count, dst); break;
  case TP_DTYPE_E5M2: decode_table(&e5m2_table, dtype, base, first, count, dst); break;
  case TP_DTYPE_E2M1: decode_nibbles(&e2m1_table, dtype, base, first, count, dst); break;
    DECODE_CASE(TP_DTYPE_S8);
  default: /* the plan slots admit no other operand dtype */
    for (int32_t j = 0; j < count; j++)
      dst[j] = tp_codec_load(dtype, base, first + j);
    break;
  }
}

/* Rows ahead whose lines load_tile prefetches. */
#define PREFETCH_AHEAD 4

/* Both loaders: each row decoded to f32 (codes 0), or its codes copied as
 * they are (codes 1: 2-byte codes, as bf16's). */
static void load_tile(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                      int32_t tile_rows, int32_t tile_cols, int codes, void *dst) {
  int64_t valid_cols = cols - c0;
  if (valid_cols < 0)
    valid_cols = 0;
  if (valid_cols > tile_cols)
    valid_cols = tile_cols;
  /* A tile's rows are far apart in memory (a row of the matrix each): ask
   * for the row PREFETCH_AHEAD below while this one is decoded, so that
   * its cache lines are on their way when its turn comes. */
  const int64_t bits = tp_codec_bits(t->dtype);
  const int64_t seg_bytes = (valid_cols * bits + 7) / 8;
  const size_t size = codes ? sizeof(uint16_t) : sizeof(float); /* of an element of dst */
  for (int32_t i = 0; i < tile_rows; i++) {
    char *row = (char *)dst + (int64_t)i * tile_cols * size;
    int32_t n = r0 + i < rows ? (int32_t)valid_cols : 0;
    if (i + PREFETCH_AHEAD < tile_rows && r0 + i + PREFETCH_AHEAD < rows) {
      const char *ahead = (const char *)t->data +
                          ((r0 + i + PREFETCH_AHEAD) * t->stride[0] + c0) * bits / 8;
      for (int64_t b = 0; b < seg_bytes; b += 64) __builtin_prefetch(ahead + b);
    }
    const int64_t first = (r0 + i) * t->stride[0] + c0;
    if (n > 0 && codes)
      memcpy(row, (const uint16_t *)t->data + first, size * (size_t)n);
    else if (n > 0)
      decode_run(t->dtype, t->data, first, n, (float *)row);
    memset(row + size * (size_t)n, 0, size * (size_t)(tile_cols - n));
  }
}

void tp_kit_tile_load_f32(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                          int32_t tile_rows, int32_t tile_cols, float *dst) {
  load_tile(t, rows, cols, r0, c0, tile_rows, tile_cols, 0, dst);
}

void tp_kit_tile_load_bf16(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                           int32_t tile_rows, int32_t tile_cols, uint16_t *dst) {
  load_tile(t, rows, cols, r0, c0, tile_rows, tile_cols, 1, dst);
}
