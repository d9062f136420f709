/* tilepipe/tensor.h: tensor descriptors.
 *
 * A tensor is a dtype, a layout, a shape and strides counted in elements (not
 * bytes), plus a data pointer. Plans are made from descriptors whose data
 * pointers may still be NULL; runs read the pointers. For packed fp4 (e2m1)
 * shapes and strides still count elements: element i of a row lies in byte
 * i/2, in the low nibble when i is even. */
#ifndef TILEPIPE_TENSOR_H
#define TILEPIPE_TENSOR_H

#include <stdint.h>
#include "tilepipe/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_MAX_RANK 4

typedef enum tp_layout {
  /* shape[] and stride[] say where element (i0, i1, ...) is. */
  TP_LAYOUT_STRIDED = 0,
  /* Scale factors of a block-scaled operand in the 128x4 tiled layout that
   * cuBLAS and CUTLASS use on SM100: logical shape [rows, sf_cols], stored as
   * 512-byte atoms of 128 rows x 4 scale columns, atom (r/128, c/4) at
   * ((r/128) * ceil(sf_cols/4) + c/4) * 512, and inside the atom byte
   * (r%32)*16 + ((r%128)/32)*4 + c%4. Rows pad to 128 and columns to 4;
   * strides are ignored. See docs/payloads.md. */
  TP_LAYOUT_SF_128X4 = 1
} tp_layout;

typedef struct tp_tensor {
  tp_dtype dtype;   /* TP_DTYPE_NONE marks an absent optional tensor */
  tp_layout layout;
  int32_t rank;
  int64_t shape[TP_MAX_RANK];
  int64_t stride[TP_MAX_RANK]; /* in elements; the last dimension is usually 1 */
  void *data;
} tp_tensor;

/* A rows x cols matrix whose rows are `ld` elements apart (row-major). */
tp_tensor tp_tensor_matrix(tp_dtype dtype, int64_t rows, int64_t cols, int64_t ld, void *data);

/* A contiguous vector of n elements (rank 1, stride 1), e.g. the bias. */
tp_tensor tp_tensor_vector(tp_dtype dtype, int64_t n, void *data);

/* Scale factors [rows, sf_cols] in the SM100 128x4 tiled layout. */
tp_tensor tp_tensor_sf_128x4(tp_dtype dtype, int64_t rows, int64_t sf_cols, void *data);

/* Bytes spanned by the tensor's storage, from data to one past its last
 * byte (0 for an absent tensor). Used to size buffers and to bounds-check. */
int64_t tp_tensor_span_bytes(const tp_tensor *t);

#ifdef __cplusplus
}
#endif
#endif
