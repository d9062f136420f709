/* tests/plugins/fixture_skip_last.c: a store epilogue with one defect: it
 * never writes D's last element (M-1, N-1). test_tool.sh lists it as
 * [store] in a scratch registry and expects `tilepipe run --verify` to
 * report FAIL and exit 1: the tool poisons D before the run, so the
 * skipped element stays NaN, and its check looks at every element. */
#include "fixture.h"
#include "tilepipe/plugin/dtype_codec.h"

static tp_status skip_last_plan(void *state, const tp_gemm_desc *desc, tp_backend backend,
                                tp_epilogue_plan *out, char *err, size_t errlen) {
  if (desc->c.dtype != TP_DTYPE_NONE) {
    snprintf(err, errlen, "fixture_skip_last: takes no C");
    return TP_ERR_UNSUPPORTED;
  }
  *out = (tp_epilogue_plan){.source_dtype = TP_DTYPE_NONE};
  return TP_OK;
}

static void skip_last_apply(const tp_epilogue_plan *plan, const tp_gemm_desc *desc, int64_t m0,
                            int64_t n0, int32_t rows, int32_t cols, const float *acc,
                            int32_t ld_acc) {
  for (int32_t i = 0; i < rows; i++)
    for (int32_t j = 0; j < cols; j++) {
      const int64_t m = m0 + i, n = n0 + j;
      if (m == desc->m - 1 && n == desc->n - 1) continue; /* the defect */
      tp_codec_store(desc->d.dtype, desc->d.data, m * desc->d.stride[0] + n,
                     desc->alpha * acc[(int64_t)i * ld_acc + j]);
    }
}

TP_PLUGIN_EXPORT const tp_plugin_desc *tp_plugin_entry(const tp_host_api *host) {
  static const tp_epilogue_ops ops = {
      .struct_size = sizeof(tp_epilogue_ops),
      .plan = skip_last_plan,
      .cpu_apply = skip_last_apply,
  };
  static tp_plugin_desc desc;
  desc = fixture_desc("fixture_skip_last", TP_PLUGIN_EPILOGUE);
  desc.epilogue = &ops;
  return &desc;
}
