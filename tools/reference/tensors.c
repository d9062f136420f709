/* tools/reference/tensors.c: a problem's tensors by number, where an
 * element lies, and the random values they get (tilepipe/reference.h).
 *
 * The values are the benchmark's seeded ones (tools/seeded_values.h):
 * counter-based, element (r, c) from splitmix64's bits of its key and
 * logical index r * cols + c, so that the device generator
 * (tools/seeded_device.h) writes the very bytes a problem made here holds.
 * Every value is written with the library's codec (tp_dtype_store), one
 * element at a time: for test-sized tensors, not a benchmark's gigabytes. */
#include "tools/reference/internal.h"
#include "tools/seeded_values.h"

tp_tensor *tp_ref_desc_tensor(tp_gemm_desc *d, tp_ref_tensor which) {
  tp_tensor *t[TP_REF_TENSORS] = {&d->a, &d->b, &d->a_scale, &d->b_scale,
                                  &d->c, &d->d, &d->bias};
  return t[which];
}

/* Strided: by the strides. Tiled: the SM100 layout seen as a 5-D row-major
 * array (CUTLASS's view), [row/128][col/4][row%32][(row/32)%4][col%4] with
 * extents [ceil(rows/128)][ceil(cols/4)][32][4][4]. */
int64_t tp_ref_index(const tp_tensor *t, int64_t row, int64_t col) {
  if (t->rank == 1) return col * t->stride[0];
  if (t->layout != TP_LAYOUT_SF_128X4) return row * t->stride[0] + col * t->stride[1];
  const int64_t ext[5] = {0, (t->shape[1] + 3) / 4, 32, 4, 4};
  const int64_t idx[5] = {row / 128, col / 4, row % 32, (row / 32) % 4, col % 4};
  int64_t off = idx[0];
  for (int d = 1; d < 5; d++) off = off * ext[d] + idx[d];
  return off;
}

/* Rows and columns of t, a vector [n] being [1, n]. */
static void extents(const tp_tensor *t, int64_t *rows, int64_t *cols) {
  *rows = t->rank == 1 ? 1 : t->shape[0];
  *cols = t->rank == 1 ? t->shape[0] : t->shape[1];
}

void tp_ref_tensor_fill(const tp_tensor *t, const tp_scale_map *scales, uint64_t key) {
  const tp_seeded_values values = {scales ? scales->exp_min : 0, scales ? scales->exp_count : 0};
  int64_t rows, cols;
  extents(t, &rows, &cols);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      const uint64_t bits = tp_seeded_bits(key, (uint64_t)(r * cols + c));
      tp_dtype_store(t->dtype, t->data, tp_ref_index(t, r, c),
                     tp_seeded_value(values, t->dtype, bits));
    }
}

void tp_ref_tensor_set(const tp_tensor *t, float value) {
  int64_t rows, cols;
  extents(t, &rows, &cols);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++)
      tp_dtype_store(t->dtype, t->data, tp_ref_index(t, r, c), value);
}
