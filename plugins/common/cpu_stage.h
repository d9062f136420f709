/* plugins/common/cpu_stage.h: the CPU stage format every payload shares, the
 * plan that lays it out, the operand loader and the consumer ("the MMA").
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
 * operand rows are zero anyway). Every payload's CPU path is this one
 * kernel with a different group_k and different scale gathers. */
#ifndef TP_PLUGINS_COMMON_CPU_STAGE_H
#define TP_PLUGINS_COMMON_CPU_STAGE_H

#include <stdint.h>
#include "tilepipe/plugin.h"
#include "plugins/common/tuning.h"

/* The largest CPU tile: tile_k 128 holds whole scale groups of every
 * payload (one blockwise block, 4 MXFP8 or 8 NVFP4 groups); 64x64 outputs
 * keep a tile's operands (64 KB of f32) near L2. Smaller problems get a
 * tile shrunk to them (M and N rounded up to 8, K to a whole scale group, or
 * to 16 when unscaled), so a decode-shaped GEMM (M = 1) does not compute 64
 * rows of zeros. */
#define TPC_CPU_TILE_M 64
#define TPC_CPU_TILE_N 64
#define TPC_CPU_TILE_K 128
#define TPC_CPU_CONSUMERS 2

enum { TPC_STAGE_A = 0, TPC_STAGE_B = 1, TPC_STAGE_SA = 2, TPC_STAGE_SB = 3 };

/* What the CPU plan keeps in tp_payload_plan.priv. */
typedef struct tpc_cpu_stage {
  int32_t group_k; /* K elements sharing one scale; tile_k when unscaled */
  int32_t scaled;  /* stage[2] and stage[3] hold SA and SB */
} tpc_cpu_stage;

/* Fills *out for the CPU backend: the tile above, `stages` from the tuning
 * (0 leaves the depth to the backend), the stage tensors above; group_k 0
 * means unscaled (standard), else it must divide TPC_CPU_TILE_K. */
void tpc_cpu_plan(tp_payload_plan *out, const tpc_tuning *tuning, const tp_gemm_desc *desc,
                  int32_t group_k);

tpc_cpu_stage tpc_cpu_stage_of(const tp_payload_plan *plan);

/* The producer's common part: stages A and B of k-block kb (cpu_load of an
 * unscaled payload; scaled ones add their scale gathers). */
void tpc_cpu_load_operands(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                           int64_t n0, int64_t kb, void *const *stage);

/* The cpu_mma slot of every payload. */
void tpc_cpu_mma(const tp_payload_plan *plan, const void *const *stage, int64_t kb, int32_t r0,
                 int32_t rows, float *acc, int32_t ld_acc);

#endif
