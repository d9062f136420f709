/* tools/reference/rounding.c: what the GPU's rounding of the operands
 * adds to D (tilepipe/reference.h: tp_ref_rounding_at), for a payload
 * whose problem says its route rounds an operand's elements to a grid set
 * by the largest scale of a block (tilepipe/problem.h,
 * tp_operand_rounding).
 *
 * For each sampled row of A and of B it keeps every element's |x| (x
 * dequantized as tp_ref_gemm reads it) and its distance to the nearest
 * grid point, 2^exp times the largest scale of its block (read from the
 * scale tensor by the payload's map, in its own layout); a row in the
 * block of the one before it reuses that row's largest scales. Each
 * element of D then sums, over k, t = da |B'| + db |A'| + da db: the
 * bound is |alpha| sum t, the spread |alpha| sqrt(sum t^2). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/reference/internal.h"

/* One operand's side: its rows x k elements, their scale rule and
 * rounding, and per sampled row and k |x| and its distance to the grid. */
typedef struct side {
  const tp_tensor *t;
  tp_ref_scale_rule scales;
  tp_operand_rounding rounding; /* rows 0: exact */
  int64_t rows;                 /* M or N */
  double *x, *dist;             /* [count][k], owned */
  char *rounded;                /* [count]: whether a row has any distance, owned */
} side;

/* The rounding fields of problem, when its struct reaches them. */
static tp_operand_rounding rounding_of(const tp_problem *problem, int b) {
  const size_t end = offsetof(tp_problem, b_rounding) + sizeof(tp_operand_rounding);
  if (problem->struct_size < end) return (tp_operand_rounding){0, 0, 0};
  return b ? problem->b_rounding : problem->a_rounding;
}

/* The largest |scale| of the block of s holding (row, k): the scale is
 * constant over a map's rows x k cell, so one read per cell. */
static double block_scale(const side *s, int64_t row, int64_t k, int64_t kk) {
  const tp_operand_rounding *r = &s->rounding;
  const int64_t r0 = row - row % r->rows, r1 = r0 + r->rows < s->rows ? r0 + r->rows : s->rows;
  const int64_t k0 = k - k % r->k, k1 = k0 + r->k < kk ? k0 + r->k : kk;
  const int64_t step_r = s->scales.t ? s->scales.map.rows : r->rows;
  const int64_t step_k = s->scales.t && s->scales.map.k ? s->scales.map.k : r->k;
  double top = 0.0;
  for (int64_t i = r0; i < r1; i = (i / step_r + 1) * step_r)
    for (int64_t j = k0; j < k1; j = (j / step_k + 1) * step_k)
      top = fmax(top, fabs(tp_ref_scale_at(&s->scales, i, j)));
  return top;
}

static void side_free(side *s) {
  free(s->x);
  free(s->dist);
  free(s->rounded);
}

/* s->x, s->dist and s->rounded for rows `which` (count of them,
 * ascending; NULL: 0 .. count - 1); 0 when out of memory. */
static int side_fill(side *s, const int64_t *which, int64_t count, int64_t k) {
  const tp_operand_rounding *r = &s->rounding;
  const int64_t blocks = r->rows ? (k + r->k - 1) / r->k : 0;
  double *step = malloc(sizeof *step * (size_t)(blocks + 1));
  s->x = malloc(sizeof *s->x * (size_t)(count * k));
  s->dist = calloc((size_t)(count * k), sizeof *s->dist);
  s->rounded = calloc((size_t)count + 1, 1);
  if (step == NULL || s->x == NULL || s->dist == NULL || s->rounded == NULL) {
    free(step);
    return 0;
  }
  int64_t block_of_step = -1; /* the row block whose steps `step` holds */
  for (int64_t i = 0; i < count; i++) {
    const int64_t row = which ? which[i] : i;
    double *x = &s->x[i * k], *dist = &s->dist[i * k];
    tp_ref_dequantize(s->t, &row, 1, k, &s->scales, x, NULL);
    if (r->rows == 0) {
      for (int64_t j = 0; j < k; j++) x[j] = fabs(x[j]);
      continue;
    }
    if (row / r->rows != block_of_step) {
      block_of_step = row / r->rows;
      for (int64_t b = 0; b < blocks; b++)
        step[b] = ldexp(block_scale(s, row, b * r->k, k), r->exp);
    }
    for (int64_t j = 0; j < k; j++) {
      const double h = step[j / r->k];
      dist[j] = h > 0.0 ? fabs(x[j] - nearbyint(x[j] / h) * h) : 0.0;
      x[j] = fabs(x[j]);
      if (dist[j] != 0.0) s->rounded[i] = 1;
    }
  }
  free(step);
  return 1;
}

tp_status tp_ref_rounding_at(const tp_gemm_desc *desc, const tp_problem *problem,
                             const int64_t *rows, int64_t nrows, const int64_t *cols,
                             int64_t ncols, double *bound, double *spread, char *err,
                             size_t errlen) {
  const int64_t k = desc->k;
  side a = {.t = &desc->a, .rounding = rounding_of(problem, 0), .rows = desc->m};
  side b = {.t = &desc->b, .rounding = rounding_of(problem, 1), .rows = desc->n};
  if (!tp_ref_scale_rule_of(&desc->a_scale, &problem->a_scale, "a_scale", desc->m, k, &a.scales,
                            err, errlen) ||
      !tp_ref_scale_rule_of(&desc->b_scale, &problem->b_scale, "b_scale", desc->n, k, &b.scales,
                            err, errlen))
    return TP_ERR_INVALID_ARGUMENT;
  const size_t count = (size_t)(nrows * ncols);
  memset(bound, 0, sizeof *bound * count);
  if (spread != NULL) memset(spread, 0, sizeof *spread * count);
  if (a.rounding.rows == 0 && b.rounding.rows == 0) return TP_OK;
  if (!side_fill(&a, rows, nrows, k) || !side_fill(&b, cols, ncols, k)) {
    side_free(&a);
    side_free(&b);
    tp_ref_fail(err, errlen, "rounding bound: out of memory for %lldx%lldx%lld",
                (long long)nrows, (long long)ncols, (long long)k);
    return TP_ERR_OUT_OF_MEMORY;
  }
  const double alpha = fabs((double)desc->alpha);
  for (int64_t i = 0; i < nrows; i++)
    for (int64_t j = 0; j < ncols; j++) {
      if (!a.rounded[i] && !b.rounded[j]) continue;
      const double *ax = &a.x[i * k], *ad = &a.dist[i * k];
      const double *bx = &b.x[j * k], *bd = &b.dist[j * k];
      double sum = 0.0, sum2 = 0.0;
      for (int64_t p = 0; p < k; p++) {
        const double t = ad[p] * bx[p] + bd[p] * ax[p] + ad[p] * bd[p];
        sum += t;
        sum2 += t * t;
      }
      bound[i * ncols + j] = alpha * sum;
      if (spread != NULL) spread[i * ncols + j] = alpha * sqrt(sum2);
    }
  side_free(&a);
  side_free(&b);
  return TP_OK;
}
