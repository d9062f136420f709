/* tilepipe/plugin/kit/checks.h: the validation rules a plugin's plan slot shares
 * with others: which dtypes, absent tensors, the shapes of scale tensors.
 *
 * The core has already checked the generic parts of the descriptor (sizes,
 * A/B/C/D shapes and row strides, the scale tensors' ranks and non-negative
 * shapes and strides); these rules cover what only plugins know: which
 * dtypes they take and what their scale tensors must look like. Every
 * failure names the tensor, what it is and what it must be. Statuses: a
 * dtype the plugin does not take is TP_ERR_UNSUPPORTED, a malformed or
 * missing tensor TP_ERR_INVALID_ARGUMENT. Part of the plugin kit
 * (libtilepipe_kit). */
#ifndef TILEPIPE_PLUGIN_KIT_CHECKS_H
#define TILEPIPE_PLUGIN_KIT_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "tilepipe/plan.h"
#include "tilepipe/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

int tp_kit_dtype_is_fp8(tp_dtype dtype);  /* e4m3 or e5m2 */
int tp_kit_dtype_is_half(tp_dtype dtype); /* bf16 or f16 */

/* A tensor the plugin does not take must be absent; `why` says what to do
 * instead ("fold per-tensor scales into alpha"). */
tp_status tp_kit_tensor_check_absent(const tp_tensor *t, const char *name, const char *why,
                                     char *err, size_t errlen);

/* D (or C) of the epilogues: bf16, f16 or f32. */
tp_status tp_kit_tensor_check_output(const tp_tensor *t, const char *name, char *err,
                                     size_t errlen);

/* A scale matrix: a rank-2 [rows, cols] tensor of one dtype, strided with
 * unit inner stride and a row stride >= cols, or (when tiled_ok) in the
 * SM100 128x4 tiled layout, where strides are ignored. */
typedef struct tp_kit_scale_rule {
  const char *name;       /* "a_scale" */
  tp_dtype dtype;
  int64_t rows, cols;
  const char *shape_text; /* how the shape follows from M, N, K: "[ceil(K/128), M]" */
  int tiled_ok;           /* TP_LAYOUT_SF_128X4 is accepted too */
  int tma_rows;           /* the GPU kernel loads its rows with TMA: 16-byte row stride */
} tp_kit_scale_rule;

tp_status tp_kit_scale_check(const tp_tensor *t, const tp_kit_scale_rule *rule,
                             tp_backend backend, char *err, size_t errlen);

/* A scale vector: one scale per row of A (or of B, or per column of D),
 * `length` of them, contiguous: a vector [L], or its rank-2 form, a column
 * [L, 1] (PyTorch's scale_a) or a row [1, L] (its scale_b); element i is
 * the scale of row i (data[i]). Strided layout only. */
typedef struct tp_kit_scale_vector_rule {
  const char *name; /* "a_scale" */
  tp_dtype dtype;
  const char *of;   /* what one scale is for: "row of A" */
  const char *dim;  /* the dimension it spans: "M" */
  int64_t length;   /* M */
  int column;       /* the rank-2 form is [L, 1] (else [1, L]) */
} tp_kit_scale_vector_rule;

tp_status tp_kit_scale_check_vector(const tp_tensor *t, const tp_kit_scale_vector_rule *rule,
                                    char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
