/* int8_w8a16.h: what the files of the int8_w8a16 payload share.
 *
 *   acc(m, n) = b_scale[n] * sum_k A(m, k) * B(n, k)
 *
 * Weight-only int8: A [M, K] bf16 activations, B [N, K] s8 weights, both
 * K-major, and one f32 scale per row of B (per output channel). No a_scale.
 * The products are exact in f32 (an s8 value has at most 8 significant
 * bits, as does bf16); the scale applies before the epilogue sees acc.
 *
 *   plugin.c              the descriptor, the entry point and the registry keys
 *   plan.c                the plan slot: what the payload accepts, then the
 *                         CPU tiles
 *   problem.c             the problem slot: the scale vector tools make for
 *                         it, and what it means
 *   cpu.c                 the CPU producer (the kit's stage format and consumer)
 *   gpu.c                 the gpu_plan and gpu_args slots
 *   int8_w8a16_kernel.cu  the GPU mainloop on tilepipe's structured kernel
 *   int8_w8a16_params.h   the kernel's parameter struct (gpu.c and the .cu)
 *
 * TP_KIT_DEVICE_CODE says whether the GPU path is built (the kit's
 * plugin.mk sets it when it finds nvcc); without it the payload's plans run on the
 * CPU backend. */
#ifndef INT8_W8A16_H
#define INT8_W8A16_H

#include <stddef.h>
#include <stdint.h>

#include <tilepipe/plugin/abi.h>

#ifndef TP_KIT_DEVICE_CODE
#define TP_KIT_DEVICE_CODE 0
#endif

/* plan.c: the operands it takes (bf16 A, s8 B), and the plan slot. */
tp_status w8a16_check_operands(const tp_gemm_desc *desc, char *err, size_t errlen);
tp_status w8a16_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                     tp_payload_plan *out, char *err, size_t errlen);

/* problem.c: the problem slot (what tools make and check for it). */
tp_status w8a16_problem(void *state, tp_gemm_desc *desc, const tp_problem_options *opt,
                        tp_problem *out, char *err, size_t errlen);

/* cpu.c: the cpu_load slot (cpu_mma is the kit's tp_kit_cpu_mma). */
void w8a16_cpu_load(const tp_payload_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                    int64_t n0, int64_t kb, void *const *stage);

#if TP_KIT_DEVICE_CODE
/* gpu.c: the kernel's plan and parameters. */
tp_status w8a16_gpu_plan(void *state, const tp_gemm_desc *desc, const tp_gpu_info *gpu,
                         const tp_epilogue_plan *epilogue, tp_payload_plan *plan,
                         tp_gpu_launch *launch, char *err, size_t errlen);
tp_status w8a16_gpu_args(const tp_payload_plan *plan, const tp_epilogue_plan *epilogue,
                         const tp_gemm_desc *desc, const tp_host_api *host, void *params,
                         char *err, size_t errlen);
#endif

#endif
