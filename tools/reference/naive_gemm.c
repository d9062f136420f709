/* tools/reference/naive_gemm.c: see naive_gemm.h. Deliberately plain: one
 * dequantized f64 copy of the rows of A and of B that the grid needs (all
 * of them for tp_ref_gemm), then a triple loop. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/reference/naive_gemm.h"

/* How the scale of operand element (row, k) is found. */
typedef struct scale_rule {
  const tp_tensor *t; /* NULL: unscaled */
  int64_t row_div;    /* the scale's first index is row / row_div ... */
  int64_t k_div;      /* ... and its second k / k_div */
  int swap;           /* blockwise A: the tensor is indexed [k_block][row] */
  int vector;         /* s8 operands: one scale per row, element `row` of a vector */
  int64_t vstride;    /* ... whose elements lie this many elements apart */
} scale_rule;

/* Strided: by the strides. Tiled: the SM100 layout seen as a 5-D row-major
 * array (CUTLASS's view), [row/128][col/4][row%32][(row/32)%4][col%4] with
 * extents [ceil(rows/128)][ceil(cols/4)][32][4][4]. */
int64_t tp_ref_index(const tp_tensor *t, int64_t row, int64_t col) {
  if (t->layout != TP_LAYOUT_SF_128X4)
    return row * t->stride[0] + col * t->stride[1];
  const int64_t ext[5] = {0, (t->shape[1] + 3) / 4, 32, 4, 4};
  const int64_t idx[5] = {row / 128, col / 4, row % 32, (row / 32) % 4, col % 4};
  int64_t off = idx[0];
  for (int d = 1; d < 5; d++)
    off = off * ext[d] + idx[d];
  return off;
}

static double scale_at(const scale_rule *s, int64_t row, int64_t k) {
  if (s->t == NULL)
    return 1.0;
  if (s->vector)
    return tp_dtype_load(s->t->dtype, s->t->data, row * s->vstride);
  int64_t i = row / s->row_div, j = k / s->k_div;
  if (s->swap) {
    int64_t tmp = i;
    i = j;
    j = tmp;
  }
  return tp_dtype_load(s->t->dtype, s->t->data, tp_ref_index(s->t, i, j));
}

/* The per-row scales of an s8 operand with `rows` rows: a strided vector
 * [rows], or of rank 2 [rows, 1] (`column`, a_scale) or [1, rows] (b_scale).
 * 0 (reason in err) for any other shape. */
static int vector_rule(const tp_tensor *t, const char *name, int64_t rows, int column,
                       scale_rule *s, char *err, size_t errlen) {
  const int64_t *sh = t->shape;
  const int strided = t->layout == TP_LAYOUT_STRIDED;
  int dim = -1; /* the dimension that spans the rows */
  if (strided && t->rank == 1 && sh[0] == rows)
    dim = 0;
  else if (strided && t->rank == 2 && column && sh[0] == rows && sh[1] == 1)
    dim = 0;
  else if (strided && t->rank == 2 && !column && sh[0] == 1 && sh[1] == rows)
    dim = 1;
  if (dim < 0) {
    snprintf(err, errlen, "s8 operands take %s as a strided vector of shape [%lld] or %s%lld%s",
             name, (long long)rows, column ? "[" : "[1, ", (long long)rows, column ? ", 1]" : "]");
    return 0;
  }
  *s = (scale_rule){t, 1, 1, 0, 1, t->stride[dim]};
  return 1;
}

/* The scale rules of A and B implied by the scale tensors' dtypes (and,
 * for f32 scales, the operands'). */
static int scale_rules(const tp_gemm_desc *desc, scale_rule *a, scale_rule *b, char *err,
                       size_t errlen) {
  tp_dtype as = desc->a_scale.dtype, bs = desc->b_scale.dtype;
  *a = (scale_rule){NULL, 1, 1, 0, 0, 0};
  *b = (scale_rule){NULL, 1, 1, 0, 0, 0};
  if (as != bs) {
    snprintf(err, errlen, "a_scale is %s but b_scale is %s: no payload mixes them",
             tp_dtype_name(as), tp_dtype_name(bs));
    return 0;
  }
  const int s8 = desc->a.dtype == TP_DTYPE_S8 || desc->b.dtype == TP_DTYPE_S8;
  switch (as) {
  case TP_DTYPE_NONE: return 1;
  case TP_DTYPE_F32:
    if (s8)
      return vector_rule(&desc->a_scale, "a_scale", desc->m, 1, a, err, errlen) &&
             vector_rule(&desc->b_scale, "b_scale", desc->n, 0, b, err, errlen);
    *a = (scale_rule){&desc->a_scale, 1, 128, 1, 0, 0};
    *b = (scale_rule){&desc->b_scale, 128, 128, 0, 0, 0};
    return 1;
  case TP_DTYPE_UE8M0:
  case TP_DTYPE_UE4M3: {
    int64_t vec = as == TP_DTYPE_UE8M0 ? 32 : 16;
    *a = (scale_rule){&desc->a_scale, 1, vec, 0, 0, 0};
    *b = (scale_rule){&desc->b_scale, 1, vec, 0, 0, 0};
    return 1;
  }
  default:
    snprintf(err, errlen, "scales of dtype %s match no payload", tp_dtype_name(as));
    return 0;
  }
}

/* out[i * k + j] = op(row i, j) * its scale for the rows x k operand,
 * row i being rows[i] (i itself when rows is NULL). */
static void dequantize(const tp_tensor *t, const int64_t *rows, int64_t count, int64_t k,
                       const scale_rule *s, double *out) {
  for (int64_t i = 0; i < count; i++) {
    const int64_t r = rows ? rows[i] : i;
    for (int64_t j = 0; j < k; j++)
      out[i * k + j] =
          (double)tp_dtype_load(t->dtype, t->data, tp_ref_index(t, r, j)) * scale_at(s, r, j);
  }
}

tp_status tp_ref_gemm(const tp_gemm_desc *desc, tp_ref_epilogue epilogue, double *ref, double *mag,
                      char *err, size_t errlen) {
  return tp_ref_gemm_at(desc, epilogue, NULL, desc->m, NULL, desc->n, ref, mag, err, errlen);
}

tp_status tp_ref_gemm_at(const tp_gemm_desc *desc, tp_ref_epilogue epilogue, const int64_t *rows,
                         int64_t nrows, const int64_t *cols, int64_t ncols, double *ref,
                         double *mag, char *err, size_t errlen) {
  const int64_t k = desc->k;
  scale_rule sa, sb;
  if (!scale_rules(desc, &sa, &sb, err, errlen))
    return TP_ERR_INVALID_ARGUMENT;
  double *a = malloc(sizeof(double) * (size_t)(nrows * k));
  double *b = malloc(sizeof(double) * (size_t)(ncols * k));
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    snprintf(err, errlen, "reference: out of memory for %lldx%lldx%lld", (long long)nrows,
             (long long)ncols, (long long)k);
    return TP_ERR_OUT_OF_MEMORY;
  }
  dequantize(&desc->a, rows, nrows, k, &sa, a);
  dequantize(&desc->b, cols, ncols, k, &sb, b);
  const int read_c = epilogue == TP_REF_RESIDUAL && desc->beta != 0.0f;
  const double alpha = desc->alpha, beta = desc->beta;
  for (int64_t i = 0; i < nrows; i++)
    for (int64_t j = 0; j < ncols; j++) {
      double acc = 0.0, abs_acc = 0.0;
      for (int64_t p = 0; p < k; p++) {
        double prod = a[i * k + p] * b[j * k + p];
        acc += prod;
        abs_acc += fabs(prod);
      }
      const int64_t row = rows ? rows[i] : i, col = cols ? cols[j] : j;
      double c = read_c ? beta * tp_dtype_load(desc->c.dtype, desc->c.data,
                                               tp_ref_index(&desc->c, row, col))
                        : 0.0;
      ref[i * ncols + j] = alpha * acc + c;
      if (mag != NULL)
        mag[i * ncols + j] = fabs(alpha) * abs_acc + fabs(c);
    }
  free(a);
  free(b);
  return TP_OK;
}
