/* tilepipe/plugin/kit/cpu_epilogue.h: the CPU epilogue loop of alpha*acc +
 * beta*C (the store and residual epilogues: store is residual without a
 * source).
 *
 *   D(m0+i, n0+j) = alpha * acc[i][j]                          source == NULL
 *   D(m0+i, n0+j) = alpha * acc[i][j] + beta * C(m0+i, n0+j)   source == &desc->c
 *
 * for 0 <= i < rows, 0 <= j < cols (the core clips both to D). The sum is
 * formed in f32 and rounded once to D's dtype (nearest, ties to even). Each
 * element of C is read right before the same element of D is written, by the
 * one thread that owns it: so C may be D itself (same memory, dtype and
 * strides, the only overlap the core lets through) and the update is exactly
 * in place. A NULL source reads no C at all. Part of the plugin kit
 * (libtilepipe_kit). */
#ifndef TILEPIPE_PLUGIN_KIT_CPU_EPILOGUE_H
#define TILEPIPE_PLUGIN_KIT_CPU_EPILOGUE_H

#include <stdint.h>

#include "tilepipe/gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

void tp_kit_cpu_epilogue_apply(const tp_gemm_desc *desc, const tp_tensor *source, int64_t m0,
                               int64_t n0, int32_t rows, int32_t cols, const float *acc,
                               int32_t ld_acc);

#ifdef __cplusplus
}
#endif

#endif
