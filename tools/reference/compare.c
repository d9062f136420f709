/* tools/reference/compare.c: see compare.h. */
#include <math.h>

#include "tools/reference/compare.h"
#include "tools/reference/naive_gemm.h"

int tp_ref_acc_bits(const tp_problem *problem, tp_backend backend) {
  return backend == TP_BACKEND_CUDA ? problem->acc_bits : TP_PROBLEM_ACC_BITS_F32;
}

tp_ref_tolerance tp_ref_tolerance_for(tp_dtype d, int64_t k, int acc_bits) {
  tp_ref_tolerance t;
  switch (d) {
  case TP_DTYPE_BF16:
    t.u_out = ldexp(1.0, -8);
    t.eta_out = ldexp(1.0, -134);
    break;
  case TP_DTYPE_F16:
    t.u_out = ldexp(1.0, -11);
    t.eta_out = ldexp(1.0, -25);
    break;
  default:
    t.u_out = ldexp(1.0, -24);
    t.eta_out = ldexp(1.0, -150);
    break;
  }
  t.u_acc = ldexp(1.0, -acc_bits);
  t.g = ((double)k + 16.0) * t.u_acc;
  t.rel = t.u_out + (4.0 * sqrt((double)k) + 16.0) * t.u_acc;
  return t;
}

void tp_ref_compare(const tp_tensor *d, int64_t m, int64_t n, const double *ref, const double *mag,
                    const tp_ref_tolerance *tol, tp_ref_report *out) {
  double err2 = 0.0, ref2 = 0.0;
  *out = (tp_ref_report){0.0, 0.0, 0, -1, -1, 0.0, 0.0, 0};
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      double r = ref[i * n + j];
      double v = tp_dtype_load(d->dtype, d->data, tp_ref_index(d, i, j));
      double e = fabs(v - r);
      double bound = tol->u_out * fabs(r) + (1.0 + tol->u_out) * tol->g * mag[i * n + j] +
                     tol->eta_out;
      if (!(e <= bound)) { /* NaN fails too */
        if (out->bad++ == 0) {
          out->bad_row = i;
          out->bad_col = j;
          out->bad_value = v;
          out->bad_ref = r;
        }
      }
      if (!(e <= out->max_abs))
        out->max_abs = isnan(e) ? INFINITY : e;
      err2 += e * e;
      ref2 += r * r;
    }
  out->rel = ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
  out->pass = out->bad == 0 && out->rel <= tol->rel;
}
