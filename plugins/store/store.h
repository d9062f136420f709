/* plugins/store/store.h: the store epilogue's slots, D = alpha * acc
 * (docs/epilogues.md). Internal to tp_store.so. */
#ifndef TP_PLUGINS_STORE_H
#define TP_PLUGINS_STORE_H

#include "tilepipe/plugin/abi.h"

tp_status store_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                     tp_epilogue_plan *out, char *err, size_t errlen);
void store_cpu_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                     int64_t n0, int32_t rows, int32_t cols, const float *acc, int32_t ld_acc);

#endif
