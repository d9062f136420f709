/* plugins/residual/residual.h: the residual epilogue's slots,
 * D = alpha * acc + beta * C (docs/epilogues.md). Internal to tp_residual.so. */
#ifndef TP_PLUGINS_RESIDUAL_H
#define TP_PLUGINS_RESIDUAL_H

#include "tilepipe/plugin/abi.h"

tp_status residual_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                        tp_epilogue_plan *out, char *err, size_t errlen);
void residual_cpu_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                        int64_t n0, int32_t rows, int32_t cols, const float *acc, int32_t ld_acc);

#endif
