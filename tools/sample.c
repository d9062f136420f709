/* tools/sample.c: see sample.h. */
#include <math.h>
#include <stdlib.h>

#include "tools/sample.h"
#include "tools/seeded_values.h"

/* `count` indices of [0, size): all of them, or one per stratum (the first
 * and the last pinned to 0 and size - 1), the draws from key's bits
 * numbered from *drawn on. NULL when out of memory. */
static int64_t *pick(int64_t size, int64_t max, uint64_t key, uint64_t *drawn, int64_t *count) {
  *count = size <= max ? size : max;
  int64_t *v = malloc(sizeof *v * (size_t)*count);
  if (v == NULL) return NULL;
  for (int64_t i = 0; i < *count; i++) {
    if (*count == size) {
      v[i] = i;
      continue;
    }
    /* Stratum i is [lo, hi): non-empty, since size > count. */
    const int64_t lo = i * size / *count, hi = (i + 1) * size / *count;
    const int64_t at = lo + (int64_t)(tp_seeded_bits(key, (*drawn)++) % (uint64_t)(hi - lo));
    v[i] = i == 0 ? 0 : i == *count - 1 ? size - 1 : at;
  }
  return v;
}

tp_status tp_sample_pick(tp_sample *s, int64_t m, int64_t n, int64_t max_rows, int64_t max_cols,
                         uint64_t seed) {
  *s = (tp_sample){NULL, NULL, 0, 0};
  if (m < 1 || n < 1 || max_rows < 1 || max_cols < 1) return TP_ERR_INVALID_ARGUMENT;
  uint64_t drawn = 0;
  s->rows = pick(m, max_rows, seed, &drawn, &s->nrows);
  s->cols = pick(n, max_cols, seed, &drawn, &s->ncols);
  if (s->rows == NULL || s->cols == NULL) {
    tp_sample_free(s);
    return TP_ERR_OUT_OF_MEMORY;
  }
  return TP_OK;
}

void tp_sample_free(tp_sample *s) {
  free(s->rows);
  free(s->cols);
  *s = (tp_sample){NULL, NULL, 0, 0};
}

double tp_sample_error(const tp_tensor *d, const tp_sample *s, const double *ref) {
  double err2 = 0.0, ref2 = 0.0;
  for (int64_t i = 0; i < s->nrows; i++)
    for (int64_t j = 0; j < s->ncols; j++) {
      const double r = ref[i * s->ncols + j];
      const double v = tp_dtype_load(d->dtype, d->data, tp_ref_index(d, s->rows[i], s->cols[j]));
      if (!isfinite(v)) return INFINITY;
      err2 += (v - r) * (v - r);
      ref2 += r * r;
    }
  return ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
}

double tp_sample_norm_ratio(const tp_sample *s, const double *x, const double *ref) {
  double x2 = 0.0, ref2 = 0.0;
  for (int64_t i = 0; i < s->nrows * s->ncols; i++) {
    x2 += x[i] * x[i];
    ref2 += ref[i] * ref[i];
  }
  return ref2 > 0.0 ? sqrt(x2 / ref2) : sqrt(x2);
}

double tp_sample_error_floor(const tp_ref_tolerance *tol) {
  return fmax(tol->u_out / 4.0, 0x1p-20);
}

int tp_sample_error_within(double ours, double theirs, const tp_ref_tolerance *tol) {
  if (!(ours <= tol->rel)) return 0;
  return isnan(theirs) ||
         ours <= fmax(TP_SAMPLE_ERROR_RATIO * theirs, tp_sample_error_floor(tol));
}
