/* plugins/residual/cpu.c: residual on the CPU backend,
 * D = alpha * acc + beta * C, C read only when the plan has a source. */
#include "tilepipe/plugin/kit/cpu_epilogue.h"
#include "plugins/residual/residual.h"

void residual_cpu_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                        int64_t n0, int32_t rows, int32_t cols, const float *acc, int32_t ld_acc) {
  const tp_tensor *source = plan->source_dtype != TP_DTYPE_NONE ? &desc->c : NULL;
  tp_kit_cpu_epilogue_apply(desc, source, m0, n0, rows, cols, acc, ld_acc);
}
