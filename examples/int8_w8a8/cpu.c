/* cpu.c: the CPU stage format of int8_w8a8, its producer (cpu_load) and
 * its consumer (cpu_mma).
 *
 * One k-block kb of output tile (m0, n0), as the producer leaves it:
 *
 *   stage[0]  A   s8  [tile_m][tile_k]  A(m0 + i, kb*tile_k + j), 0 outside A
 *   stage[1]  B   s8  [tile_n][tile_k]  B(n0 + i, kb*tile_k + j), 0 outside B
 *   stage[2]  SA  f32 [tile_m]          a_scale[m0 + i], 0 outside A
 *   stage[3]  SB  f32 [tile_n]          b_scale[n0 + i], 0 outside B
 *
 * The operands stay s8 (a byte copy of each row), and the consumer adds,
 * for each of its rows r and each column n,
 *
 *   acc[r][n] += (SA[r] * SB[n]) * dot(A[r], B[n])
 *
 * where dot is the k-block's integer dot product in int32. It is exact:
 * |A|, |B| <= 128, so with tile_k <= 128 |dot| <= 2^21, which int32 holds
 * and f32 represents exactly. The only roundings are f32 ones, three per
 * k-block (the scale product, its product with dot, the sum into acc), so
 * the error is that of summing ceil(K/tile_k) exact partial sums, however
 * large K is. The scales are staged with every k-block because cpu_mma
 * sees only the stage, never the descriptor. */
#include <string.h>

#include <tilepipe/dtype_codec.h>

#include "int8_w8a8.h"

/* The largest CPU tile (a tile's operands, 16 KB of s8, stay in L1); a
 * smaller problem gets a tile shrunk to it, M and N rounded up to 8 and K
 * to 16. tile_k <= 128 is what keeps dot() exact in f32 (above). */
enum { TILE_M = 64, TILE_N = 64, TILE_K = 128, CONSUMERS = 2 };
/* Stage tensors start on cache lines. */
#define STAGE_ALIGN 64u

enum { STAGE_A, STAGE_B, STAGE_SA, STAGE_SB };

_Static_assert(TILE_K * 128 * 128 <= (1 << 24), "a k-block's dot product must be exact in f32");

/* min(limit, n rounded up to a multiple of step); step divides limit. */
static int32_t fit(int64_t n, int32_t step, int32_t limit) {
  return n >= limit ? limit : (int32_t)((n + step - 1) / step * step);
}

static void add_tensor(tp_payload_plan *out, uint32_t bytes) {
  out->tensors[out->num_tensors].bytes = bytes;
  out->tensors[out->num_tensors].align = STAGE_ALIGN;
  out->num_tensors++;
}

void w8a8_cpu_plan(tp_payload_plan *out, const w8a8_tuning *tuning, const tp_gemm_desc *desc) {
  tp_tile_config *t = &out->tile;
  memset(out, 0, sizeof *out);
  t->tile_m = fit(desc->m, 8, TILE_M);
  t->tile_n = fit(desc->n, 8, TILE_N);
  t->tile_k = fit(desc->k, 16, TILE_K);
  t->stages = tuning->stages; /* 0 leaves the depth to the backend */
  t->k_group_size = 1;
  t->cluster_m = 1;
  t->cluster_n = 1;
  t->consumers = CONSUMERS;
  add_tensor(out, (uint32_t)(t->tile_m * t->tile_k));
  add_tensor(out, (uint32_t)(t->tile_n * t->tile_k));
  add_tensor(out, (uint32_t)sizeof(float) * (uint32_t)t->tile_m);
  add_tensor(out, (uint32_t)sizeof(float) * (uint32_t)t->tile_n);
  out->k_blocks = (desc->k + t->tile_k - 1) / t->tile_k;
}

/* rows x cols of the s8 matrix t (K-major, `valid_rows` x `valid_cols`
 * elements) from (r0, c0) into dst, dst_cols bytes a row; zeros where the
 * index falls outside. An s8 code is the int8_t's own byte, so a row is a
 * byte copy. */
static void load_tile(const tp_tensor *t, int64_t valid_rows, int64_t valid_cols, int64_t r0,
                      int64_t c0, int32_t rows, int32_t cols, int8_t *dst) {
  int64_t n = valid_cols - c0;
  n = n < 0 ? 0 : n > cols ? cols : n;
  const unsigned char *src = t->data;
  for (int32_t i = 0; i < rows; i++) {
    int8_t *row = dst + (int64_t)i * cols;
    const int64_t count = r0 + i < valid_rows ? n : 0;
    if (count > 0) memcpy(row, src + (r0 + i) * t->stride[0] + c0, (size_t)count);
    memset(row + count, 0, (size_t)(cols - count));
  }
}

/* count scales from element first of the contiguous f32 vector t (plan.c
 * has checked the unit stride, whichever of its shapes t has); 0 past
 * element `valid`. */
static void load_scales(const tp_tensor *t, int64_t valid, int64_t first, int32_t count,
                        float *dst) {
  for (int32_t i = 0; i < count; i++)
    dst[i] = first + i < valid ? tp_codec_load(TP_DTYPE_F32, t->data, first + i) : 0.0f;
}

void w8a8_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0, int64_t n0,
                   int64_t kb, void *const *stage) {
  const tp_tile_config *t = &plan->tile;
  const int64_t k0 = kb * t->tile_k;
  load_tile(&desc->a, desc->m, desc->k, m0, k0, t->tile_m, t->tile_k, stage[STAGE_A]);
  load_tile(&desc->b, desc->n, desc->k, n0, k0, t->tile_n, t->tile_k, stage[STAGE_B]);
  load_scales(&desc->a_scale, desc->m, m0, t->tile_m, stage[STAGE_SA]);
  load_scales(&desc->b_scale, desc->n, n0, t->tile_n, stage[STAGE_SB]);
}

/* The exact integer dot product of n s8 elements, n a multiple of 16 (the
 * tile's K), in 16 interleaved int32 sums: independent lanes the compiler
 * can keep in vector registers. */
static int32_t dot(const int8_t *a, const int8_t *b, int32_t n) {
  int32_t s[16] = {0};
  for (int32_t k = 0; k < n; k += 16)
    for (int l = 0; l < 16; l++) s[l] += (int32_t)a[k + l] * (int32_t)b[k + l];
  int32_t sum = 0;
  for (int l = 0; l < 16; l++) sum += s[l];
  return sum;
}

void w8a8_cpu_mma(const tp_payload_plan *plan, const void *const *stage, int64_t kb, int32_t r0,
                  int32_t rows, float *acc, int32_t ld_acc) {
  (void)kb; /* the stage holds everything k-block kb needs */
  const int32_t tk = plan->tile.tile_k, tn = plan->tile.tile_n;
  const int8_t *a = stage[STAGE_A], *b = stage[STAGE_B];
  const float *sa = stage[STAGE_SA], *sb = stage[STAGE_SB];
  for (int32_t i = 0; i < rows; i++) {
    const int32_t r = r0 + i;
    const int8_t *arow = a + (int64_t)r * tk;
    float *out = acc + (int64_t)i * ld_acc;
    for (int32_t n = 0; n < tn; n++)
      out[n] += (sa[r] * sb[n]) * (float)dot(arow, b + (int64_t)n * tk, tk);
  }
}
