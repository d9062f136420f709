/* plugins/blockwise_fp8/device/blockwise_fp8_mainloop.cu: the blockwise FP8
 * payload's kernels on the core's structured kernel (DeepSeek-V3 scaling).
 *
 *   acc(m, n) = sum_kb a_scale[kb][m] * b_scale[n / 128][kb]
 *                      * sum_{k in block kb} A(m, k) B(n, k)
 *
 * e4m3 A and B, the caller's, with the caller's scales: the skeleton's
 * blockwise-scaled mainloop (tilepipe/plugin/device/blockwise_mainloop.h:
 * the loads, the two-level accumulation, the scales' layouts) runs them as
 * they are; the skeleton (tilepipe/plugin/device/kernel.h) runs the rest:
 * the tile schedule, split-K (the partial sums are scaled already), C and
 * the epilogue hook.
 *
 * Built by build-aux/device.mk into LTO-IR that plugins/blockwise_fp8/
 * embeds; tests/test_gpu_blockwise.c runs it, `tilepipe link` links it
 * without a GPU. The plain reference is tools/reference/naive_gemm.c. */
#include "plugins/blockwise_fp8/device/blockwise_fp8_params.h"
#include "tilepipe/plugin/device/blockwise_mainloop.h"
#include "tilepipe/plugin/device/kernel.h"

typedef tp_blockwise_mainloop<TP_DTYPE_E4M3, TP_DTYPE_E4M3, tp_blockwise_fp8_params>
    blockwise_fp8_mainloop;

/* The kernels: every tile and D of tilepipe/plugin/kernel/tiles.h, named
 * tp_blockwise_fp8_e4m3_<D>_<BM>x<BN>_c<CM> (gpu.c asks for them by name);
 * the tiles wider than TP_BLOCKWISE_MAX_TILE_N or not dividing a block trap
 * (never planned). */
#define BLOCKWISE_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, OPERANDS)                              \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_blockwise_fp8, OPERANDS, BM, BN, CM, D_NAME),              \
                  blockwise_fp8_mainloop, BM, BN, DT, CM)
TP_KERNEL_FOR_EACH_INSTANCE(BLOCKWISE_KERNEL, e4m3)
