/* int8_w8a8.h: what the files of the int8_w8a8 payload share.
 *
 *   acc(m, n) = a_scale[m] * b_scale[n] * sum_k A(m, k) * B(n, k)
 *
 * A [M, K] and B [N, K] are s8, K-major; a_scale holds one f32 scale per
 * row of A (per token), b_scale one per row of B (per output channel):
 * SmoothQuant-style W8A8. The product is integer arithmetic, exact; the
 * scales apply before the epilogue sees acc.
 *
 *   plugin.c              the descriptor, the entry point and the registry keys
 *   plan.c                the plan slot: what the payload accepts, then the
 *                         CPU tiles
 *   problem.c             the problem slot: the scale tensors tools make
 *                         for it, and what they mean
 *   cpu.c                 the CPU producer (the kit's stage format and consumer)
 *   gpu.c                 the gpu_plan and gpu_args slots
 *   int8_w8a8_kernel.cu   the GPU mainloop on tilepipe's structured kernel
 *   int8_w8a8_params.h    the kernel's parameter struct (gpu.c and the .cu)
 *
 * TP_KIT_DEVICE_CODE says whether the GPU path is built (the kit's
 * plugin.mk sets it when it finds nvcc); without it the payload's plans run on the
 * CPU backend. What every plugin needs besides (error reports, the tuning
 * keys, the scale checks, the CPU stage) comes from the installed plugin
 * kit, <tilepipe/plugin/kit/...> (pkg-config tilepipe-kit). */
#ifndef INT8_W8A8_H
#define INT8_W8A8_H

#include <stddef.h>
#include <stdint.h>

#include <tilepipe/plugin/abi.h>

#ifndef TP_KIT_DEVICE_CODE
#define TP_KIT_DEVICE_CODE 0
#endif

/* The GPU kernel's largest K + 1: its s32 sums of K products of at most
 * 128 x 128 = 2^14 must stay below 2^31. */
#define W8A8_GPU_MAX_K (1 << 17)

/* plan.c: an operand the payload takes (s8), and the plan slot. */
tp_status w8a8_check_operand(const tp_tensor *t, const char *name, char *err, size_t errlen);
tp_status w8a8_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                    tp_payload_plan *out, char *err, size_t errlen);

/* problem.c: the problem slot (what tools make and check for it). */
tp_status w8a8_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                       tp_problem *out, char *err, size_t errlen);

/* cpu.c: the cpu_load slot (cpu_mma is the kit's tp_kit_cpu_mma). */
void w8a8_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0, int64_t n0,
                   int64_t kb, void *const *stage);

#if TP_KIT_DEVICE_CODE
/* gpu.c: the kernel's plan and parameters. */
tp_status w8a8_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                        const tp_epilogue_plan *epilogue, tp_payload_plan *plan,
                        tp_gpu_launch *launch, char *err, size_t errlen);
tp_status w8a8_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epilogue,
                        const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                        char *err, size_t errlen);
#endif

#endif
