/* tools/reference/naive_gemm.c: the f64 reference of D
 * (tilepipe/reference.h: tp_ref_gemm, tp_ref_gemm_at, tp_ref_operand_f32). Deliberately plain:
 * one dequantized f64 copy of the rows of A and of B that the grid needs
 * (all of them for tp_ref_gemm), then a triple loop. The scale rules and
 * the dequantization (internal.h) serve rounding.c too. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/reference/codec.h"
#include "tools/reference/internal.h"

double tp_ref_scale_at(const tp_ref_scale_rule *s, int64_t row, int64_t k) {
  if (s->t == NULL)
    return 1.0;
  const tp_tensor *t = s->t;
  const int64_t r = row / s->map.rows, kb = s->map.k ? k / s->map.k : 0;
  if (t->rank == 1)
    return tp_ref_load(t->dtype, t->data, r * t->stride[0]);
  return tp_ref_load(t->dtype, t->data,
                       s->map.k_first ? tp_ref_index(t, kb, r) : tp_ref_index(t, r, kb));
}

int tp_ref_scale_rule_of(const tp_tensor *t, const tp_scale_map *map, const char *name,
                         int64_t rows, int64_t k, tp_ref_scale_rule *s, char *err,
                         size_t errlen) {
  *s = (tp_ref_scale_rule){NULL, *map};
  if (map->rows < 0 || (t->dtype == TP_DTYPE_NONE) != (map->rows == 0)) {
    tp_ref_fail(err, errlen, "%s is %s but its map has rows %d: a scale tensor and its map come "
                "together", name, t->dtype == TP_DTYPE_NONE ? "absent" : "present", map->rows);
    return 0;
  }
  if (map->rows == 0)
    return 1;
  /* The extents a map reaches along rows and along K. */
  const int64_t need_rows = (rows - 1) / map->rows + 1;
  const int64_t need_k = map->k > 0 ? (k - 1) / map->k + 1 : 1;
  int fits;
  if (t->rank == 1)
    fits = map->k == 0 && t->shape[0] >= need_rows;
  else
    fits = t->rank == 2 && map->k >= 0 &&
           t->shape[map->k_first ? 1 : 0] >= need_rows &&
           t->shape[map->k_first ? 0 : 1] >= need_k;
  if (!fits) {
    char shape[64];
    if (t->rank == 1)
      snprintf(shape, sizeof shape, "[%lld]", (long long)t->shape[0]);
    else
      snprintf(shape, sizeof shape, "[%lld, %lld] (rank %d)", (long long)t->shape[0],
               (long long)t->shape[1], (int)t->rank);
    tp_ref_fail(err, errlen, "%s of shape %s does not hold its map's scales: a scale per %d rows "
                "of %lld and per %d of K = %lld%s", name, shape, map->rows, (long long)rows,
                map->k, (long long)k, map->k_first ? ", K first" : "");
    return 0;
  }
  s->t = t;
  return 1;
}

void tp_ref_dequantize(const tp_tensor *t, const int64_t *rows, int64_t count, int64_t k,
                       const tp_ref_scale_rule *s, double *out, float *out32) {
  for (int64_t i = 0; i < count; i++) {
    const int64_t r = rows ? rows[i] : i;
    for (int64_t j = 0; j < k; j++) {
      const double v = (double)tp_ref_load(t->dtype, t->data, tp_ref_index(t, r, j)) *
                       tp_ref_scale_at(s, r, j);
      if (out != NULL) out[i * k + j] = v;
      else out32[i * k + j] = (float)v;
    }
  }
}

tp_status tp_ref_operand_f32(const tp_gemm_desc *desc, const tp_problem *problem,
                             tp_ref_tensor which, float *out, char *err, size_t errlen) {
  if (which != TP_REF_A && which != TP_REF_B) {
    tp_ref_fail(err, errlen, "tp_ref_operand_f32: tensor %d is not A or B", (int)which);
    return TP_ERR_INVALID_ARGUMENT;
  }
  const int is_a = which == TP_REF_A;
  const int64_t rows = is_a ? desc->m : desc->n;
  tp_ref_scale_rule s;
  if (!tp_ref_scale_rule_of(is_a ? &desc->a_scale : &desc->b_scale,
                     is_a ? &problem->a_scale : &problem->b_scale, is_a ? "a_scale" : "b_scale",
                     rows, desc->k, &s, err, errlen))
    return TP_ERR_INVALID_ARGUMENT;
  tp_ref_dequantize(is_a ? &desc->a : &desc->b, NULL, rows, desc->k, &s, NULL, out);
  return TP_OK;
}

tp_status tp_ref_gemm(const tp_gemm_desc *desc, const tp_problem *problem,
                      tp_ref_epilogue epilogue, double *ref, double *mag, char *err,
                      size_t errlen) {
  return tp_ref_gemm_at(desc, problem, epilogue, NULL, desc->m, NULL, desc->n, ref, mag, err,
                        errlen);
}

tp_status tp_ref_gemm_at(const tp_gemm_desc *desc, const tp_problem *problem,
                         tp_ref_epilogue epilogue, const int64_t *rows, int64_t nrows,
                         const int64_t *cols, int64_t ncols, double *ref, double *mag, char *err,
                         size_t errlen) {
  const int64_t k = desc->k;
  tp_ref_scale_rule sa, sb;
  if (!tp_ref_scale_rule_of(&desc->a_scale, &problem->a_scale, "a_scale", desc->m, k, &sa, err,
                     errlen) ||
      !tp_ref_scale_rule_of(&desc->b_scale, &problem->b_scale, "b_scale", desc->n, k, &sb, err,
                            errlen))
    return TP_ERR_INVALID_ARGUMENT;
  double *a = malloc(sizeof(double) * (size_t)(nrows * k));
  double *b = malloc(sizeof(double) * (size_t)(ncols * k));
  if (a == NULL || b == NULL) {
    free(a);
    free(b);
    tp_ref_fail(err, errlen, "reference: out of memory for %lldx%lldx%lld", (long long)nrows,
                (long long)ncols, (long long)k);
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_ref_dequantize(&desc->a, rows, nrows, k, &sa, a, NULL);
  tp_ref_dequantize(&desc->b, cols, ncols, k, &sb, b, NULL);
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
      double c = read_c ? beta * tp_ref_load(desc->c.dtype, desc->c.data,
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
