/* plugins/store/cpu.c: store on the CPU backend, D = alpha * acc. */
#include "tilepipe/plugin/kit/cpu_epilogue.h"
#include "plugins/store/store.h"

void store_cpu_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                     int64_t n0, int32_t rows, int32_t cols, const float *acc, int32_t ld_acc) {
  (void)plan;
  tp_kit_cpu_epilogue_apply(desc, NULL, m0, n0, rows, cols, acc, ld_acc);
}
