/* plugins/kit/cpu_stage.c: see tilepipe/plugin/kit/cpu_stage.h. */
#include <string.h>

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
  t->tile_m = fit(desc->m, 8, TP_KIT_CPU_TILE_M);
  t->tile_n = fit(desc->n, 8, TP_KIT_CPU_TILE_N);
  /* Unscaled or per row: the k-block is one group; 16 keeps dot()'s
   * multiple of 8. */
  const int whole = group_k == 0 || group_k == TP_KIT_CPU_GROUP_BLOCK;
  t->tile_k = fit(desc->k, whole ? 16 : group_k, TP_KIT_CPU_TILE_K);
  tp_kit_cpu_stage cs = {whole ? t->tile_k : group_k, group_k != 0};
  uint32_t groups = (uint32_t)(t->tile_k / cs.group_k);
  t->stages = tuning->kernel.stages;
  t->k_group_size = 1;
  t->cluster_m = 1;
  t->cluster_n = 1;
  t->consumers = TP_KIT_CPU_CONSUMERS;
  add_tensor(out, (uint32_t)(sizeof(float) * t->tile_m * t->tile_k));
  add_tensor(out, (uint32_t)(sizeof(float) * t->tile_n * t->tile_k));
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

void tp_kit_cpu_load_operands(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                              int64_t n0, int64_t kb, void *const *stage) {
  const tp_tile_config *t = &plan->tile;
  int64_t k0 = kb * t->tile_k;
  tp_kit_tile_load_f32(&desc->a, desc->m, desc->k, m0, k0, t->tile_m, t->tile_k,
                       stage[TP_KIT_STAGE_A]);
  tp_kit_tile_load_f32(&desc->b, desc->n, desc->k, n0, k0, t->tile_n, t->tile_k,
                       stage[TP_KIT_STAGE_B]);
}

/* f32 dot product of n (a multiple of 8) elements, in 8 interleaved partial
 * sums: independent chains the compiler can keep in one vector register. */
static float dot(const float *a, const float *b, int32_t n) {
  float s[8] = {0};
  for (int32_t k = 0; k < n; k += 8)
    for (int l = 0; l < 8; l++)
      s[l] += a[k + l] * b[k + l];
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

void tp_kit_cpu_mma(const tp_payload_plan *plan, const void *const *stage, int64_t kb, int32_t r0,
                    int32_t rows, float *acc, int32_t ld_acc) {
  (void)kb; /* the stage holds everything k-block kb needs */
  const tp_kit_cpu_stage cs = tp_kit_cpu_stage_get(plan);
  const int32_t tk = plan->tile.tile_k, tn = plan->tile.tile_n;
  const int32_t groups = tk / cs.group_k;
  const float *a = stage[TP_KIT_STAGE_A], *b = stage[TP_KIT_STAGE_B];
  const float *sa = cs.scaled ? stage[TP_KIT_STAGE_SA] : NULL;
  const float *sb = cs.scaled ? stage[TP_KIT_STAGE_SB] : NULL;
  for (int32_t i = 0; i < rows; i++) {
    const int32_t r = r0 + i;
    const float *arow = a + (int64_t)r * tk;
    float *out = acc + (int64_t)i * ld_acc;
    for (int32_t n = 0; n < tn; n++) {
      const float *brow = b + (int64_t)n * tk;
      if (!cs.scaled) {
        out[n] += dot(arow, brow, tk);
        continue;
      }
      float sum = 0.0f;
      for (int32_t g = 0; g < groups; g++)
        sum += sa[r * groups + g] * sb[n * groups + g] *
               dot(arow + g * cs.group_k, brow + g * cs.group_k, cs.group_k);
      out[n] += sum;
    }
  }
}
