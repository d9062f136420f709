/* tilepipe/plugin/kit/cpu_stage.h: the CPU stage format payloads share, the plan
 * that lays it out, the operand loader and the consumer ("the MMA").
 *
 * One k-block kb of output tile (m0, n0), as the producer leaves it:
 *
 *   stage[0]  A   f32 [tile_m][tile_k]   A(m0 + i, kb*tile_k + j), 0 outside A
 *   stage[1]  B   f32 [tile_n][tile_k]   B(n0 + i, kb*tile_k + j), 0 outside B
 *   stage[2]  SA  f32 [tile_m][groups]   scaled payloads only: the scale of
 *   stage[3]  SB  f32 [tile_n][groups]   A's / B's row i over K-group g
 *
 * with groups = tile_k / group_k. The consumer adds, for each of its rows r
 * and each column n,
 *
 *   acc[r][n] += sum_g SA[r][g] * SB[n][g] * dot_g(A[r], B[n])      (scaled)
 *   acc[r][n] += dot(A[r], B[n])                                    (unscaled)
 *
 * where dot_g is the f32 dot product over group g: partial sums are promoted
 * into the accumulator once per scale group, as the GPU's block-scaled and
 * blockwise kernels do. Scales outside the matrices are staged as 0 (their
 * operand rows are zero anyway). A payload's CPU path is this one kernel
 * with its group_k and its scale gathers: tp_kit_cpu_plan in its plan
 * slot, tp_kit_cpu_load_operands plus the gathers as its cpu_load,
 * tp_kit_cpu_mma as its cpu_mma. Part of the plugin kit (libtilepipe_kit). */
#ifndef TILEPIPE_PLUGIN_KIT_CPU_STAGE_H
#define TILEPIPE_PLUGIN_KIT_CPU_STAGE_H

#include <stdint.h>

#include "tilepipe/plugin/kit/tuning.h"
#include "tilepipe/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest CPU tile: tile_k 128 holds whole scale groups of every
 * payload (one blockwise block, 4 MXFP8 or 8 NVFP4 groups); 64x64 outputs
 * keep a tile's operands (64 KB of f32) near L2. Smaller problems get a
 * tile shrunk to them (M and N rounded up to 8, K to a whole scale group, or
 * to 16 otherwise), so a decode-shaped GEMM (M = 1) does not compute 64
 * rows of zeros. Integer operands stay exact: of s8 codes, a product is at
 * most 2^14 and a 128-long dot product, with each of its partial sums, at
 * most 2^21, below f32's 2^24. */
#define TP_KIT_CPU_TILE_M 64
#define TP_KIT_CPU_TILE_N 64
#define TP_KIT_CPU_TILE_K 128
#define TP_KIT_CPU_CONSUMERS 2

/* group_k of a payload whose scales hold along the whole of K (one per row
 * of A, one per row of B, as int8_w8a8's): one group per k-block. */
#define TP_KIT_CPU_GROUP_BLOCK (-1)

enum { TP_KIT_STAGE_A = 0, TP_KIT_STAGE_B = 1, TP_KIT_STAGE_SA = 2, TP_KIT_STAGE_SB = 3 };

/* What the CPU plan keeps in tp_payload_plan.priv. */
typedef struct tp_kit_cpu_stage {
  int32_t group_k; /* K elements sharing one scale; tile_k when unscaled or per row */
  int32_t scaled;  /* stage[2] and stage[3] hold SA and SB */
} tp_kit_cpu_stage;

/* Fills *out for the CPU backend: the tile above, `stages` from the tuning
 * (0 leaves the depth to the backend), the stage tensors above. group_k:
 * 0 unscaled (standard); TP_KIT_CPU_GROUP_BLOCK one scale per row for the
 * whole k-block; else the K elements of a scale group, which must divide
 * TP_KIT_CPU_TILE_K. */
void tp_kit_cpu_plan(tp_payload_plan *out, const tp_kit_tuning *tuning, const tp_gemm_desc *desc,
                     int32_t group_k);

/* What tp_kit_cpu_plan kept in plan's private bytes. */
tp_kit_cpu_stage tp_kit_cpu_stage_get(const tp_payload_plan *plan);

/* The producer's common part: stages A and B of k-block kb (cpu_load of an
 * unscaled payload; scaled ones add their scale gathers). */
void tp_kit_cpu_load_operands(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                              int64_t n0, int64_t kb, void *const *stage);

/* The cpu_mma slot of a payload on this stage format. */
void tp_kit_cpu_mma(const tp_payload_plan *plan, const void *const *stage, int64_t kb, int32_t r0,
                    int32_t rows, float *acc, int32_t ld_acc);

#ifdef __cplusplus
}
#endif

#endif
