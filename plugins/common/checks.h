/* plugins/common/checks.h: the validation rules several plugins share.
 *
 * The core has already checked the generic parts of the descriptor (sizes,
 * A/B/C/D shapes and row strides, the scale tensors' ranks and non-negative
 * shapes and strides); these rules cover what only plugins know: which dtypes
 * they take and what their scale tensors must look like. Every failure names
 * the tensor, what it is and what it must be. Statuses: a dtype the plugin
 * does not take is TP_ERR_UNSUPPORTED, a malformed or missing tensor
 * TP_ERR_INVALID_ARGUMENT. */
#ifndef TP_PLUGINS_COMMON_CHECKS_H
#define TP_PLUGINS_COMMON_CHECKS_H

#include <stddef.h>
#include "tilepipe/plan.h"
#include "tilepipe/tensor.h"

int tpc_is_fp8(tp_dtype dtype);   /* e4m3 or e5m2 */
int tpc_is_half(tp_dtype dtype);  /* bf16 or f16 */

/* A tensor the plugin does not take must be absent; `why` says what to do
 * instead ("fold per-tensor scales into alpha"). */
tp_status tpc_check_absent(const tp_tensor *t, const char *name, const char *why, char *err,
                           size_t errlen);

/* D (or C) dtype of the epilogues: bf16, f16 or f32. */
tp_status tpc_check_output_dtype(const tp_tensor *t, const char *name, char *err, size_t errlen);

/* What a scale tensor must be: a rank-2 [rows, cols] tensor of one dtype,
 * strided with unit inner stride and a row stride >= cols, or (when
 * tiled_ok) in the SM100 128x4 tiled layout, where strides are ignored. */
typedef struct tpc_scale_rule {
  const char *name;       /* "a_scale" */
  tp_dtype dtype;
  int64_t rows, cols;
  const char *shape_text; /* how the shape follows from M, N, K: "[ceil(K/128), M]" */
  int tiled_ok;           /* TP_LAYOUT_SF_128X4 is accepted too */
  int tma_rows;           /* the GPU kernel loads its rows with TMA: 16-byte row stride */
} tpc_scale_rule;

tp_status tpc_check_scale(const tp_tensor *t, const tpc_scale_rule *rule, tp_backend backend,
                          char *err, size_t errlen);

#endif
