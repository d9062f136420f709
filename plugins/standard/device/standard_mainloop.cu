/* plugins/standard/device/standard_mainloop.cu: the standard payload's
 * kernels on the core's structured kernel.
 *
 * Computes acc[M,N] = A[M,K] x B[N,K]^T for bf16 x bf16, f16 x f16 or fp8
 * (e4m3/e5m2, any pair) operands with f32 accumulation in wgmma: the
 * skeleton's mainloop of plain operands (tilepipe/plugin/device/
 * operands_mainloop.h) on the caller's A and B; the skeleton
 * (tilepipe/plugin/device/kernel.h) runs the rest: the tile schedule,
 * split-K, and the epilogue hook with D in bf16, f16 or f32.
 *
 * Built once per operand pair, the pair's name in TP_DEVICE_GROUP
 * (plugins/standard/local.mk), into LTO-IR images that plugins/standard/
 * embeds, one per pair: a plan's link reads only its pair's kernels.
 * tests/test_gpu_gemm.c runs it, `tilepipe link` links it without a GPU. */
#include "plugins/standard/device/standard_params.h"
#include "tilepipe/plugin/device/kernel.h"
#include "tilepipe/plugin/device/operands_mainloop.h"

/* The kernels of the operand pair TP_DEVICE_GROUP (a NAME of
 * TP_STANDARD_OPERANDS): every tile and D of tilepipe/plugin/kernel/tiles.h, named
 * tp_standard_<operands>_<D>_<BM>x<BN>_c<CM>. */
#ifndef TP_DEVICE_GROUP
#error "standard_mainloop.cu: build it with -DTP_DEVICE_GROUP=<operand pair> (local.mk)"
#endif
#define STANDARD_MAINLOOP(NAME, A, B) \
  typedef tp_operands_mainloop<A, B, tp_standard_params> standard_mainloop_##NAME;
TP_STANDARD_OPERANDS(STANDARD_MAINLOOP)

#define STANDARD_KERNEL(BM, BN, CM, D_NAME, DT, SPEED, NAME)                                     \
  TP_KERNEL_ENTRY(TP_KERNEL_NAME(tp_standard, NAME, BM, BN, CM, D_NAME),                       \
                  standard_mainloop_##NAME, BM, BN, DT, CM)
/* NAME is expanded here, before STANDARD_KERNEL pastes it. */
#define STANDARD_KERNELS(NAME) TP_KERNEL_FOR_EACH_INSTANCE(STANDARD_KERNEL, NAME)
STANDARD_KERNELS(TP_DEVICE_GROUP)
