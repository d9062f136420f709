/* core/tensor.c: tensor descriptor constructors and the storage span.
 *
 * The span is what buffer sizing and bounds checks rely on, so it never
 * wraps: a descriptor it cannot measure (rank outside 1..TP_MAX_RANK, a
 * negative dimension or stride, an unknown dtype or layout, a size past
 * INT64_MAX) gives -1, never a small number that a check would pass. */
#include <stdint.h>

#include "tilepipe/dtype.h"
#include "tilepipe/tensor.h"

tp_tensor tp_tensor_matrix(tp_dtype dtype, int64_t rows, int64_t cols, int64_t ld, void *data) {
  tp_tensor t = {0};
  t.dtype = dtype;
  t.layout = TP_LAYOUT_STRIDED;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = cols;
  t.stride[0] = ld;
  t.stride[1] = 1;
  t.data = data;
  return t;
}

tp_tensor tp_tensor_vector(tp_dtype dtype, int64_t n, void *data) {
  tp_tensor t = {0};
  t.dtype = dtype;
  t.layout = TP_LAYOUT_STRIDED;
  t.rank = 1;
  t.shape[0] = n;
  t.stride[0] = 1;
  t.data = data;
  return t;
}

/* Strides stay 0: the tiled layout defines the addresses itself. */
tp_tensor tp_tensor_sf_128x4(tp_dtype dtype, int64_t rows, int64_t sf_cols, void *data) {
  tp_tensor t = {0};
  t.dtype = dtype;
  t.layout = TP_LAYOUT_SF_128X4;
  t.rank = 2;
  t.shape[0] = rows;
  t.shape[1] = sf_cols;
  t.data = data;
  return t;
}

/* a * b for non-negative operands, -1 past INT64_MAX. */
static int64_t mul_or_fail(int64_t a, int64_t b) {
  if (a < 0 || b < 0 || (b != 0 && a > INT64_MAX / b))
    return -1;
  return a * b;
}

/* 1 + sum (shape-1) * stride elements: the offset of the last element, + 1. */
static int64_t strided_span(const tp_tensor *t) {
  int64_t last = 0;
  for (int32_t d = 0; d < t->rank; d++) {
    /* mul_or_fail refuses a negative stride. */
    int64_t reach = mul_or_fail(t->shape[d] - 1, t->stride[d]);
    if (reach < 0 || last > INT64_MAX - 1 - reach)
      return -1;
    last += reach;
  }
  size_t bytes = tp_dtype_bytes(t->dtype, last + 1);
  return bytes > (uint64_t)INT64_MAX ? -1 : (int64_t)bytes;
}

/* Whole 512-byte atoms of 128 rows x 4 one-byte scale columns. */
static int64_t sf_128x4_span(const tp_tensor *t) {
  if (t->rank != 2 || tp_dtype_bits(t->dtype) != 8)
    return -1;
  int64_t row_atoms = t->shape[0] / 128 + (t->shape[0] % 128 != 0);
  int64_t col_atoms = t->shape[1] / 4 + (t->shape[1] % 4 != 0);
  return mul_or_fail(mul_or_fail(row_atoms, col_atoms), 512);
}

int64_t tp_tensor_span_bytes(const tp_tensor *t) {
  if (t == NULL || t->dtype == TP_DTYPE_NONE)
    return 0;
  if (t->rank < 1 || t->rank > TP_MAX_RANK || tp_dtype_bits(t->dtype) == 0)
    return -1;
  for (int32_t d = 0; d < t->rank; d++) {
    if (t->shape[d] < 0)
      return -1;
  }
  for (int32_t d = 0; d < t->rank; d++) {
    if (t->shape[d] == 0)
      return 0;
  }
  switch (t->layout) {
  case TP_LAYOUT_STRIDED: return strided_span(t);
  case TP_LAYOUT_SF_128X4: return sf_128x4_span(t);
  }
  return -1;
}
