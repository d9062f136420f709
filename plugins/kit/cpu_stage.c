/* plugins/kit/cpu_stage.c: see tilepipe/plugin/kit/cpu_stage.h. */
#include <string.h>

#include "plugins/kit/cpu_microkernel.h"
#include "tilepipe/plugin/kit/cpu_stage.h"
#include "tilepipe/plugin/kit/tile_load.h"

/* Stage tensors start on cache lines: consumers on different rows of one
 * stage never share a line with the producer's next write. */
#define CPU_ALIGN 64u

_Static_assert(sizeof(tp_kit_cpu_stage) <= TP_PLAN_PRIVATE_BYTES, "plan private data too small");

/* min(limit, n rounded up to a multiple of step); step divides limit. */
static int32_t fit(int64_t n, int32_t step, int32_t limit) {
  return n >= limit ? limit : (int32_t)((n + step - 1) / step * step);
}

/* Appends a stage tensor of `bytes` (at most A, B and two scale tiles:
 * within TP_MAX_STAGE_TENSORS). */
static void add_tensor(tp_payload_plan *out, uint32_t bytes) {
  out->tensors[out->num_tensors].bytes = bytes;
  out->tensors[out->num_tensors].align = CPU_ALIGN;
  out->num_tensors++;
}

void tp_kit_cpu_plan(tp_payload_plan *out, const tp_kit_tuning *tuning, const tp_gemm_desc *desc,
                     int32_t group_k) {
  tp_tile_config *t = &out->tile;
  memset(out, 0, sizeof *out);
  t->tile_m = fit(desc->m, TP_KIT_CPU_MR, TP_KIT_CPU_TILE_M);
  t->tile_n = fit(desc->n, TP_KIT_CPU_NR, TP_KIT_CPU_TILE_N);
  /* Unscaled or per row: the k-block is one group, K rounded up to 16. */
  const int whole = group_k == 0 || group_k == TP_KIT_CPU_GROUP_BLOCK;
  t->tile_k = fit(desc->k, whole ? 16 : group_k, TP_KIT_CPU_TILE_K);
  tp_kit_cpu_stage cs = {whole ? t->tile_k : group_k, group_k != 0, 0};
  /* A micro-kernel's K-pairs within each scale group; tiles as tall as
   * the kernel multiplies bf16 faster than f32 at. */
  const tp_kit_cpu_ukernel uk = tp_kit_cpu_ukernel_get();
  cs.bf16_pairs = desc->a.dtype == TP_DTYPE_BF16 && desc->b.dtype == TP_DTYPE_BF16 &&
                  cs.group_k % 2 == 0 && uk.fn_bf16 != NULL && t->tile_m <= uk.bf16_tile_m;
  const uint32_t elem = cs.bf16_pairs ? sizeof(uint16_t) : sizeof(float);
  uint32_t groups = (uint32_t)(t->tile_k / cs.group_k);
  t->stages = tuning->kernel.stages;
  t->k_group_size = 1;
  t->cluster_m = 1;
  t->cluster_n = 1;
  t->consumers = 0; /* the backend's: the cores */
  add_tensor(out, elem * (uint32_t)(t->tile_m * t->tile_k));
  add_tensor(out, elem * (uint32_t)(t->tile_n * t->tile_k));
  if (cs.scaled) {
    add_tensor(out, (uint32_t)sizeof(float) * t->tile_m * groups);
    add_tensor(out, (uint32_t)sizeof(float) * t->tile_n * groups);
  }
  out->k_blocks = (desc->k + t->tile_k - 1) / t->tile_k;
  memcpy(out->priv, &cs, sizeof cs);
}

tp_kit_cpu_stage tp_kit_cpu_stage_get(const tp_payload_plan *plan) {
  tp_kit_cpu_stage cs;
  memcpy(&cs, plan->priv, sizeof cs);
  return cs;
}

/* A panel's rows before transposing: width x tile_cols f32, or bf16
 * codes (L1-sized). */
typedef union panel_rows {
  float f32[TP_KIT_CPU_NR * TP_KIT_CPU_TILE_K];
  uint16_t bf16[TP_KIT_CPU_NR * TP_KIT_CPU_TILE_K];
} panel_rows;

/* Rows [r0, r0 + tile_rows) of t (rows x cols), K-columns [c0, c0 +
 * tile_cols), as panels of `width` rows (at most TP_KIT_CPU_NR), 0 outside
 * t: f32, (i, k) at [i / width][k][i % width], or (pairs) bf16 codes,
 * (i, k) at [i / width][k / 2][i % width][k % 2]. A panel's rows are
 * decoded (or copied) into buf, then transposed into the panel by the
 * micro-kernel's instruction set, in 4-byte words: an f32, or a K-pair
 * (tile_cols is even). */
static void load_panels(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                        int32_t tile_rows, int32_t tile_cols, int32_t width, int pairs,
                        panel_rows *buf, void *dst) {
  const tp_kit_cpu_transpose_fn transpose = tp_kit_cpu_ukernel_get().transpose;
  const int32_t words = pairs ? tile_cols / 2 : tile_cols; /* of a row */
  for (int32_t p = 0; p * width < tile_rows; p++) {
    const int64_t first = r0 + (int64_t)p * width;
    if (pairs)
      tp_kit_tile_load_bf16(t, rows, cols, first, c0, width, tile_cols, buf->bf16);
    else
      tp_kit_tile_load_f32(t, rows, cols, first, c0, width, tile_cols, buf->f32);
    transpose(buf, words, width, words, (char *)dst + (int64_t)p * words * width * 4);
  }
}

void tp_kit_cpu_load_operands(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                              int64_t n0, int64_t kb, void *const *stage) {
  const tp_tile_config *t = &plan->tile;
  const int64_t k0 = kb * t->tile_k;
  const int pairs = tp_kit_cpu_stage_get(plan).bf16_pairs;
  panel_rows buf;
  load_panels(&desc->a, desc->m, desc->k, m0, k0, t->tile_m, t->tile_k, TP_KIT_CPU_MR, pairs, &buf,
              stage[TP_KIT_STAGE_A]);
  load_panels(&desc->b, desc->n, desc->k, n0, k0, t->tile_n, t->tile_k, TP_KIT_CPU_NR, pairs, &buf,
              stage[TP_KIT_STAGE_B]);
}

void tp_kit_cpu_mma(const tp_payload_plan *plan, const void *const *stage, int64_t kb, int32_t r0,
                    int32_t rows, float *acc, int32_t ld_acc) {
  (void)kb; /* the stage holds everything k-block kb needs */
  const tp_kit_cpu_stage cs = tp_kit_cpu_stage_get(plan);
  const tp_kit_cpu_ukernel uk = tp_kit_cpu_ukernel_get();
  const int32_t tk = plan->tile.tile_k, tn = plan->tile.tile_n, gk = cs.group_k;
  const int32_t groups = tk / gk;
  /* The panels' elements: f32, or bf16 in K-pairs (the same offsets,
   * counted in elements). */
  const tp_kit_cpu_ukernel_fn kernel = cs.bf16_pairs ? uk.fn_bf16 : uk.fn;
  const int64_t elem = cs.bf16_pairs ? (int64_t)sizeof(uint16_t) : (int64_t)sizeof(float);
  const char *a = stage[TP_KIT_STAGE_A], *b = stage[TP_KIT_STAGE_B];
  const float *sa = cs.scaled ? stage[TP_KIT_STAGE_SA] : NULL;
  const float *sb = cs.scaled ? stage[TP_KIT_STAGE_SB] : NULL;
  float c[TP_KIT_CPU_MR * TP_KIT_CPU_NR];
  /* A B panel's scales group by group, [g][j] (groups <= tile_k): each
   * block's promotion then reads its 32 column scales contiguously, a
   * loop the compiler vectorizes (SB's [n][g] is a gather per element). */
  float sbt[TP_KIT_CPU_TILE_K * TP_KIT_CPU_NR];
  for (int32_t p = r0 / TP_KIT_CPU_MR; p * TP_KIT_CPU_MR < r0 + rows; p++) {
    const char *ap = a + (int64_t)p * tk * TP_KIT_CPU_MR * elem;
    /* the panel's rows inside [r0, r0 + rows) */
    const int32_t lo = p * TP_KIT_CPU_MR < r0 ? r0 - p * TP_KIT_CPU_MR : 0;
    const int32_t hi = (p + 1) * TP_KIT_CPU_MR > r0 + rows ? r0 + rows - p * TP_KIT_CPU_MR
                                                            : TP_KIT_CPU_MR;
    for (int32_t q = 0; q < tn / TP_KIT_CPU_NR; q++) {
      const char *bq = b + (int64_t)q * tk * TP_KIT_CPU_NR * elem;
      if (cs.scaled)
        for (int32_t g = 0; g < groups; g++)
          for (int32_t j = 0; j < TP_KIT_CPU_NR; j++)
            sbt[g * TP_KIT_CPU_NR + j] = sb[(q * TP_KIT_CPU_NR + j) * groups + g];
      for (int32_t g = 0; g < groups; g++) {
        kernel(ap + (int64_t)g * gk * TP_KIT_CPU_MR * elem,
               bq + (int64_t)g * gk * TP_KIT_CPU_NR * elem, gk, c);
        const int32_t r = p * TP_KIT_CPU_MR + lo; /* the first row promoted */
        uk.promote(c, lo, hi, cs.scaled ? sa + r * groups + g : NULL, groups,
                   sbt + g * TP_KIT_CPU_NR, acc + (int64_t)(r - r0) * ld_acc + q * TP_KIT_CPU_NR,
                   ld_acc);
      }
    }
  }
}
