/* plugins/kit/cpu_epilogue.c: see tilepipe/plugin/kit/cpu_epilogue.h. */
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/cpu_epilogue.h"

/* x rounded to bf16 as tp_bf16_encode rounds it (nearest, ties to even, by
 * the carry into the high half; NaN through the codec), in a few integer
 * operations the compiler vectorizes. */
static inline uint16_t bf16_round(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)tp_bf16_encode(x);
  return (uint16_t)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

/* Elements of a row formed at a time (the whole row of a kit tile). */
#define CHUNK 256

/* cols (<= CHUNK) elements of a row of D: v[j] = alpha * acc (+ beta * C),
 * then stored. f32 and bf16 D, the usual ones, are written by their own
 * loops; the codec's tp_codec_store (a switch per element) serves the
 * others. */
static void store_chunk(const tp_gemm_desc *desc, const tp_tensor *source, int64_t drow,
                        int64_t crow, int32_t cols, const float *arow) {
  const tp_tensor *d = &desc->d;
  float v[CHUNK];
  for (int32_t j = 0; j < cols; j++) v[j] = desc->alpha * arow[j];
  if (source != NULL)
    for (int32_t j = 0; j < cols; j++)
      v[j] += desc->beta * tp_codec_load(source->dtype, source->data, crow + j);
  if (d->dtype == TP_DTYPE_F32) {
    memcpy((float *)d->data + drow, v, sizeof(float) * (size_t)cols);
  } else if (d->dtype == TP_DTYPE_BF16) {
    uint16_t *out = (uint16_t *)d->data + drow;
    for (int32_t j = 0; j < cols; j++) out[j] = bf16_round(v[j]);
  } else {
    for (int32_t j = 0; j < cols; j++) tp_codec_store(d->dtype, d->data, drow + j, v[j]);
  }
}

void tp_kit_cpu_epilogue_apply(const tp_gemm_desc *desc, const tp_tensor *source, int64_t m0,
                               int64_t n0, int32_t rows, int32_t cols, const float *acc,
                               int32_t ld_acc) {
  const tp_tensor *d = &desc->d;
  for (int32_t i = 0; i < rows; i++) {
    const float *arow = acc + (int64_t)i * ld_acc;
    const int64_t drow = (m0 + i) * d->stride[0] + n0;
    const int64_t crow = source ? (m0 + i) * source->stride[0] + n0 : 0;
    for (int32_t j = 0; j < cols; j += CHUNK)
      store_chunk(desc, source, drow + j, crow + j, cols - j < CHUNK ? cols - j : CHUNK,
                  arow + j);
  }
}
