/* plugins/kit/tile_load.c: see tilepipe/plugin/kit/tile_load.h. */
#include <string.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/tile_load.h"

/* One switch per row, not per element: each case is a loop whose dtype is a
 * constant, so the inline codec specializes to that format. */
#define DECODE_CASE(DT)                                                                           \
  case DT:                                                                                        \
    for (int32_t j = 0; j < count; j++)                                                           \
      dst[j] = tp_codec_load(DT, base, first + j);                                                \
    break

static void decode_run(tp_dtype dtype, const void *base, int64_t first, int32_t count, float *dst) {
  switch (dtype) {
    DECODE_CASE(TP_DTYPE_F32);
    DECODE_CASE(TP_DTYPE_BF16);
    DECODE_CASE(TP_DTYPE_F16);
    DECODE_CASE(TP_DTYPE_E4M3);
    DECODE_CASE(TP_DTYPE_E5M2);
    DECODE_CASE(TP_DTYPE_E2M1);
    DECODE_CASE(TP_DTYPE_S8);
  default: /* the plan slots admit no other operand dtype */
    for (int32_t j = 0; j < count; j++)
      dst[j] = tp_codec_load(dtype, base, first + j);
    break;
  }
}

void tp_kit_tile_load_f32(const tp_tensor *t, int64_t rows, int64_t cols, int64_t r0, int64_t c0,
                          int32_t tile_rows, int32_t tile_cols, float *dst) {
  int64_t valid_cols = cols - c0;
  if (valid_cols < 0)
    valid_cols = 0;
  if (valid_cols > tile_cols)
    valid_cols = tile_cols;
  for (int32_t i = 0; i < tile_rows; i++) {
    float *row = dst + (int64_t)i * tile_cols;
    int32_t n = r0 + i < rows ? (int32_t)valid_cols : 0;
    if (n > 0)
      decode_run(t->dtype, t->data, (r0 + i) * t->stride[0] + c0, n, row);
    memset(row + n, 0, sizeof(float) * (size_t)(tile_cols - n));
  }
}
