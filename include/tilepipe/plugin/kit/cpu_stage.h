/* tilepipe/plugin/kit/cpu_stage.h: the CPU stage format payloads share, the plan
 * that lays it out, the operand loader and the consumer ("the MMA").
 *
 * One k-block kb of output tile (m0, n0), as the producer leaves it:
 *
 *   stage[0]  A   f32 packed in panels of TP_KIT_CPU_MR rows: A(m0 + i,
 *                 kb*tile_k + k) at [i / MR][k][i % MR], 0 outside A
 *   stage[1]  B   f32 packed in panels of TP_KIT_CPU_NR rows: B(n0 + j,
 *                 kb*tile_k + k) at [j / NR][k][j % NR], 0 outside B
 *   stage[2]  SA  f32 [tile_m][groups]   scaled payloads only: the scale of
 *   stage[3]  SB  f32 [tile_n][groups]   A's / B's row i over K-group g
 *
 * The panels are what the consumer's micro-kernels (BLIS's outer-product
 * form) stream through: each k step of a panel pair is MR elements of A,
 * each broadcast over NR of B, contiguous.
 *
 * Where A and B are both bf16 and the CPU multiplies bf16 itself (AVX-512
 * BF16: plugins/kit/cpu_microkernel.c), tp_kit_cpu_plan chooses bf16
 * panels instead (tp_kit_cpu_stage.bf16_pairs): the codes unconverted, in
 * K-pairs, element (i, k) of a panel at [k / 2][i % width][k % 2], each
 * row's two k of a pair side by side as vdpbf16ps takes them; half the
 * bytes, the same panels otherwise.
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
 * payload (one blockwise block, 4 MXFP8 or 8 NVFP4 groups); 512 x 256
 * outputs make the packing small beside the multiplying: a k-block's
 * panels of B are decoded once for 512 rows of A, those of A once for 256
 * columns of B, 768 rows of 128 against 33.5 MFLOP (128 x 256 packed twice
 * as much per FLOP and ran 1.3x slower on bf16 2048^3; 64 x 64 bounded the
 * runs by the packing: bench/results/2026-11-28d-cpu-microkernels.txt and
 * 2026-11-28h-cpu-bench.txt). A stage is then 384 KiB, the default 4
 * stages 1.5 MiB, within a core's L2 on current x86 servers. Smaller
 * problems get a tile shrunk to them (M rounded up to 8, N to 32, K to a
 * whole scale group, or to 16 otherwise), so a decode-shaped GEMM (M = 1)
 * does not compute 512 rows of zeros. Integer operands stay exact: of s8
 * codes, a product is at most 2^14 and a 128-long dot product, with each
 * of its partial sums, at most 2^21, below f32's 2^24. */
#define TP_KIT_CPU_TILE_M 512
#define TP_KIT_CPU_TILE_N 256
#define TP_KIT_CPU_TILE_K 128
/* The panels' widths: a micro-kernel's 8 x 32 block of outputs. Tiles are
 * whole panels (tile_m a multiple of 8, tile_n of 32). */
#define TP_KIT_CPU_MR 8
#define TP_KIT_CPU_NR 32

/* group_k of a payload whose scales hold along the whole of K (one per row
 * of A, one per row of B, as int8_w8a8's): one group per k-block. */
#define TP_KIT_CPU_GROUP_BLOCK (-1)

enum { TP_KIT_STAGE_A = 0, TP_KIT_STAGE_B = 1, TP_KIT_STAGE_SA = 2, TP_KIT_STAGE_SB = 3 };

/* What the CPU plan keeps in tp_payload_plan.priv. */
typedef struct tp_kit_cpu_stage {
  int32_t group_k; /* K elements sharing one scale; tile_k when unscaled or per row */
  int32_t scaled;  /* stage[2] and stage[3] hold SA and SB */
  int32_t bf16_pairs; /* A and B are bf16 panels in K-pairs, not f32 */
} tp_kit_cpu_stage;

/* Fills *out for the CPU backend: the tile above, `stages` from the tuning
 * (0 leaves the depth to the backend), the consumers to the backend (0:
 * the cores the process may use), the stage tensors above. group_k:
 * 0 unscaled (standard); TP_KIT_CPU_GROUP_BLOCK one scale per row for the
 * whole k-block; else the K elements of a scale group, which must divide
 * TP_KIT_CPU_TILE_K. bf16 panels where A and B are bf16 and the CPU's
 * micro-kernel takes them at this tile's height (few rows by default:
 * plugins/kit/cpu_microkernel.c says why; any with
 * TILEPIPE_CPU_KERNEL=avx512bf16). */
void tp_kit_cpu_plan(tp_payload_plan *out, const tp_kit_tuning *tuning, const tp_gemm_desc *desc,
                     int32_t group_k);

/* What tp_kit_cpu_plan kept in plan's private bytes. */
tp_kit_cpu_stage tp_kit_cpu_stage_get(const tp_payload_plan *plan);

/* The producer's common part: stages A and B of k-block kb, decoded and
 * packed (cpu_load of an unscaled payload; scaled ones add their scale
 * gathers). */
void tp_kit_cpu_load_operands(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                              int64_t n0, int64_t kb, void *const *stage);

/* The cpu_mma slot of a payload on this stage format: per panel pair and
 * scale group, the CPU's micro-kernel (AVX-512 BF16 on bf16 panels;
 * AVX-512, AVX2 with FMA, or portable C on f32 ones:
 * plugins/kit/cpu_microkernel.c), its block promoted into acc with the
 * group's scales. Any rows [r0, r0 + rows) of the tile. */
void tp_kit_cpu_mma(const tp_payload_plan *plan, const void *const *stage, int64_t kb, int32_t r0,
                    int32_t rows, float *acc, int32_t ld_acc);

#ifdef __cplusplus
}
#endif

#endif
