/* plugins/kit/cpu_epilogue.c: see tilepipe/plugin/kit/cpu_epilogue.h. */
#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/cpu_epilogue.h"

void tp_kit_cpu_epilogue_apply(const tp_gemm_desc *desc, const tp_tensor *source, int64_t m0,
                               int64_t n0, int32_t rows, int32_t cols, const float *acc,
                               int32_t ld_acc) {
  const tp_tensor *d = &desc->d;
  for (int32_t i = 0; i < rows; i++) {
    const float *arow = acc + (int64_t)i * ld_acc;
    const int64_t drow = (m0 + i) * d->stride[0] + n0;
    const int64_t crow = source ? (m0 + i) * source->stride[0] + n0 : 0;
    for (int32_t j = 0; j < cols; j++) {
      float v = desc->alpha * arow[j];
      if (source)
        v += desc->beta * tp_codec_load(source->dtype, source->data, crow + j);
      tp_codec_store(d->dtype, d->data, drow + j, v);
    }
  }
}
