/* tools/output_diff.c: see output_diff.h. */
#include <math.h>

#include "tools/output_diff.h"

double tp_output_rel_diff(const tp_tensor *t, const void *x, const void *y) {
  double diff2 = 0.0, ref2 = 0.0;
  for (int64_t r = 0; r < t->shape[0]; r++)
    for (int64_t c = 0; c < t->shape[1]; c++) {
      const int64_t i = r * t->stride[0] + c;
      const double a = tp_dtype_load(t->dtype, x, i), b = tp_dtype_load(t->dtype, y, i);
      if (!isfinite(a) || !isfinite(b)) return INFINITY;
      diff2 += (a - b) * (a - b);
      ref2 += b * b;
    }
  return ref2 > 0.0 ? sqrt(diff2 / ref2) : sqrt(diff2);
}
