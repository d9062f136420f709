/* tilepipe/plugin/kernel/tiles.h: the kernels of the structured kernel, written
 * once.
 *
 * One X-macro table lists every output tile the skeleton
 * (tilepipe/plugin/device/kernel.h) is instantiated for:
 *
 *   TP_KERNEL_TILES(X, F, CTX)  X(BM, BN, CLUSTER_M, D_SET, SPEED, F, CTX)
 *
 *   BM x BN     the output tile: 128 rows (two consumer warpgroups, 64 rows
 *               each) or 64 (the first warpgroup alone);
 *   CLUSTER_M   CTAs per cluster along M, sharing B by multicast (1 or 2);
 *   D_SET       the D dtypes it exists for: ALL (bf16, f16, f32) or D16
 *               (bf16, f16: widths that end in a tail chunk of a 16-bit D,
 *               tilepipe/internal/kernel/kernel_chunks.h: 144, 160, 176 and 208,
 *               whole chunks and 16, 32, 48 or 16 columns, and 48, the
 *               tail chunk alone);
 *   SPEED       the speed of one full tile relative to 128 x 256, which the
 *               planner weighs against how well a width fills the SMs'
 *               waves (docs/kernel.md, "Choosing the tile").
 *
 * TP_KERNEL_FOR_EACH_INSTANCE(X, CTX) (and _TRANSPOSED_INSTANCE for the
 * transposed tiles below) expands
 * X(BM, BN, CLUSTER_M, D_NAME, D_DTYPE, SPEED, CTX) once per tile and D
 * dtype, CTX passed through (one token, e.g. the operands' name). A
 * payload's device code expands it into its kernels, its host code
 * (through tilepipe/plugin/kernel/instances.h) into the shapes its planner may
 * pick and the INI may force, and both spell a kernel's name from the same
 * pieces:
 *
 *   <prefix>_<operands>_<D_NAME>_<BM>x<BN>_c<CLUSTER_M>
 *
 * e.g. tp_standard_bf16_bf16_128x256_c1: TP_KERNEL_NAME on the device,
 * TP_KERNEL_SUFFIX_STR (the part after the operands) on the host. Plain
 * preprocessor text: C11 and CUDA. */
#ifndef TILEPIPE_PLUGIN_KERNEL_TILES_H
#define TILEPIPE_PLUGIN_KERNEL_TILES_H

#define TP_KERNEL_TILES(X, F, CTX)  \
  X(128, 256, 1, ALL, 1.0, F, CTX)  \
  X(128, 256, 2, ALL, 1.0, F, CTX)  \
  X(128, 192, 1, ALL, 0.96, F, CTX) \
  X(128, 192, 2, ALL, 0.96, F, CTX) \
  X(128, 208, 1, D16, 0.97, F, CTX) \
  X(128, 176, 1, D16, 0.93, F, CTX) \
  X(128, 160, 1, D16, 0.92, F, CTX) \
  X(128, 144, 1, D16, 0.90, F, CTX) \
  X(128, 128, 1, ALL, 0.88, F, CTX) \
  X(128, 128, 2, ALL, 0.88, F, CTX) \
  X(128, 64, 1, ALL, 0.85, F, CTX)  \
  X(128, 64, 2, ALL, 0.85, F, CTX)  \
  X(64, 64, 1, ALL, 0.84, F, CTX)   \
  X(64, 64, 2, ALL, 0.84, F, CTX)   \
  X(64, 48, 1, D16, 0.83, F, CTX)

/* The transposed tiles, for a mainloop whose tile rows are B's rows
 * (tilepipe/plugin/device/kernel_mainloop.h, transposed: the weight on
 * wgmma's 64-row side, the tokens, M of them, on its N side): 128 rows of
 * B by 8 to 64 rows of A, single CTAs, every D (the epilogue writes D
 * transposed from registers, tilepipe/internal/kernel/kernel_epilogue.h).
 * Same speed: they serve decode-sized M, bound by B's bytes. */
#define TP_KERNEL_TILES_TRANSPOSED(X, F, CTX) \
  X(128, 8, 1, ALL, 1.0, F, CTX)              \
  X(128, 16, 1, ALL, 1.0, F, CTX)             \
  X(128, 32, 1, ALL, 1.0, F, CTX)             \
  X(128, 64, 1, ALL, 1.0, F, CTX)

/* The table's widest tile: a mainloop's default max_tile_n. */
#define TP_KERNEL_MAX_TILE_N 256

#define TP_KERNEL_FOR_EACH_INSTANCE(X, CTX) TP_KERNEL_TILES(TP_KERNEL_INSTANCES_OF_TILE_, X, CTX)
#define TP_KERNEL_INSTANCES_OF_TILE_(BM, BN, CM, D_SET, SPEED, X, CTX) \
  TP_KERNEL_INSTANCES_##D_SET##_(BM, BN, CM, SPEED, X, CTX)
#define TP_KERNEL_INSTANCES_ALL_(BM, BN, CM, SPEED, X, CTX) \
  TP_KERNEL_INSTANCES_D16_(BM, BN, CM, SPEED, X, CTX)       \
  X(BM, BN, CM, f32, TP_DTYPE_F32, SPEED, CTX)
#define TP_KERNEL_INSTANCES_D16_(BM, BN, CM, SPEED, X, CTX) \
  X(BM, BN, CM, bf16, TP_DTYPE_BF16, SPEED, CTX)            \
  X(BM, BN, CM, f16, TP_DTYPE_F16, SPEED, CTX)

#define TP_KERNEL_FOR_EACH_TRANSPOSED_INSTANCE(X, CTX) \
  TP_KERNEL_TILES_TRANSPOSED(TP_KERNEL_INSTANCES_OF_TILE_, X, CTX)

/* The kernel's name (an identifier, device side) and the part of it after
 * the operands (a string, host side); a transposed tile's with a t before
 * its shape (tp_block_scaled_bf16_mx8_bf16_t128x16_c1). */
#define TP_KERNEL_NAME(PREFIX, OPERANDS, BM, BN, CM, D_NAME) \
  PREFIX##_##OPERANDS##_##D_NAME##_##BM##x##BN##_c##CM
#define TP_KERNEL_SUFFIX_STR(BM, BN, CM, D_NAME) #D_NAME "_" #BM "x" #BN "_c" #CM
#define TP_KERNEL_NAME_TRANSPOSED(PREFIX, OPERANDS, BM, BN, CM, D_NAME) \
  PREFIX##_##OPERANDS##_##D_NAME##_t##BM##x##BN##_c##CM
#define TP_KERNEL_SUFFIX_STR_TRANSPOSED(BM, BN, CM, D_NAME) \
  #D_NAME "_t" #BM "x" #BN "_c" #CM

#endif
