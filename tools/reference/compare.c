/* tools/reference/compare.c: judging a D against the f64 reference
 * (tilepipe/reference.h: the tolerances, tp_ref_compare, the problem's
 * check and the report's line). Two error models: the classic bounds of a
 * sum rounded to nearest in any order, and the GPU's, fitted to what
 * Hopper's wgmma does and widened by the operands' rounding a payload's
 * GPU route does (rounding.c; reference.h, docs/testing.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tools/reference/internal.h"

int tp_ref_acc_bits(const tp_problem *problem, tp_backend backend) {
  return backend == TP_BACKEND_CUDA ? problem->acc_bits : TP_PROBLEM_ACC_BITS_F32;
}

/* D's unit roundoff and subnormal floor. */
static tp_ref_tolerance output_rounding(tp_dtype d) {
  tp_ref_tolerance t = {0};
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
  return t;
}

tp_ref_tolerance tp_ref_tolerance_for(tp_dtype d, int64_t k, int acc_bits) {
  tp_ref_tolerance t = output_rounding(d);
  t.u_acc = ldexp(1.0, -acc_bits);
  t.g = ((double)k + 16.0) * t.u_acc;
  t.rel = t.u_out + (4.0 * sqrt((double)k) + 16.0) * t.u_acc;
  return t;
}

/* The constants of reference.h's GPU model, fitted on the H100
 * (docs/testing.md, "The error model"). */
#define GPU_G_ACC 16.0     /* g's share of u_acc: measured at most 3.6 */
#define GPU_H_ACC 0.5      /* h's share of L u_acc: measured at most 0.14 */
#define GPU_REL_ACC 4.0    /* rel's share of u_acc sqrt(L / 32): measured at most 1.7 */
#define GPU_REL_OUT 0.866  /* rel's share of u_out: 1.5 x the 1 / sqrt(3) of uniform roundings */
#define GPU_F32_K 64.0     /* K per f32 rounding at most (the shortest k-block a split takes) */
#define GPU_REL_ROUNDING 4.0 /* rel's share of the operands' rounding spread (random signs) */

tp_ref_tolerance tp_ref_tolerance_for_gpu(tp_dtype d, int64_t k, const tp_problem *problem) {
  tp_ref_tolerance t = output_rounding(d);
  const double kk = (double)k;
  const double run = problem->acc_k > 0 && problem->acc_k < k ? (double)problem->acc_k : kk;
  const double f32 = ldexp(1.0, -24);
  t.u_acc = ldexp(1.0, -problem->acc_bits);
  t.g = GPU_G_ACC * t.u_acc + (ceil(kk / GPU_F32_K) + 16.0) * f32;
  t.h = GPU_H_ACC * run * t.u_acc;
  t.rel = hypot(GPU_REL_OUT * t.u_out, GPU_REL_ACC * t.u_acc * sqrt(fmax(run, 32.0) / 32.0)) +
          (sqrt(kk / GPU_F32_K) + 16.0) * f32;
  t.rounding = 1.0; /* the operands as the GPU rounds them, where the problem says it does */
  t.rounding_rel = GPU_REL_ROUNDING;
  return t;
}

/* Fewer elements than this: no normwise verdict (reference.h). */
#define NORMWISE_MIN_ELEMENTS 64

tp_status tp_ref_compare(const tp_tensor *d, int64_t m, int64_t n, const double *ref,
                         const double *mag, const tp_ref_rounding *rounding,
                         const tp_ref_tolerance *tol, tp_ref_report *out) {
  if (out == NULL || !tp_ref_versioned(out->struct_size, sizeof *out, "tp_ref_report", NULL, 0))
    return TP_ERR_INVALID_ARGUMENT;
  tp_ref_report r = {.struct_size = out->struct_size, .elements = m * n, .bad_row = -1,
                     .bad_col = -1, .rel_bound = tol->rel, .padding_at = -1};
  double err2 = 0.0, ref2 = 0.0, coh2 = 0.0, spr2 = 0.0;
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      const double want = ref[i * n + j], mg = mag[i * n + j];
      const double v = tp_dtype_load(d->dtype, d->data, tp_ref_index(d, i, j));
      const double e = fabs(v - want);
      const double rho = mg > 0.0 ? fmin(fabs(want) / mg, 1.0) : 0.0;
      const double coh = tol->h * rho * rho * fabs(want);
      const int64_t at = i * n + j;
      const double rnd = rounding != NULL ? tol->rounding * rounding->bound[at] : 0.0;
      const double spr = rounding != NULL ? tol->rounding_rel * rounding->spread[at] : 0.0;
      const double bound = tol->u_out * fabs(want) +
                           (1.0 + tol->u_out) * (tol->g * mg + coh + rnd) + tol->eta_out;
      if (!(e <= bound) && r.bad++ == 0) { /* NaN fails too */
        r.bad_row = i;
        r.bad_col = j;
        r.bad_value = v;
        r.bad_ref = want;
      }
      if (!(e <= r.max_abs)) r.max_abs = isnan(e) ? INFINITY : e;
      err2 += e * e;
      ref2 += want * want;
      coh2 += coh * coh;
      spr2 += spr * spr;
    }
  r.rel = ref2 > 0.0 ? sqrt(err2 / ref2) : sqrt(err2);
  if (r.elements < NORMWISE_MIN_ELEMENTS)
    r.rel_bound = INFINITY;
  else if (ref2 > 0.0)
    r.rel_bound += sqrt(coh2 / ref2) + sqrt(spr2 / ref2);
  r.pass = r.bad == 0 && r.rel <= r.rel_bound;
  memset(out, 0, out->struct_size);
  memcpy(out, &r, sizeof r);
  return TP_OK;
}

tp_ref_tolerance tp_ref_problem_tolerance(const tp_ref_problem *p, tp_backend backend) {
  if (backend == TP_BACKEND_CUDA)
    return tp_ref_tolerance_for_gpu(p->desc.d.dtype, p->desc.k, &p->problem);
  return tp_ref_tolerance_for(p->desc.d.dtype, p->desc.k, TP_PROBLEM_ACC_BITS_F32);
}

tp_status tp_ref_problem_check(const tp_ref_problem *p, const tp_ref_tolerance *tol,
                               tp_ref_report *report) {
  if (p->ref == NULL) return TP_ERR_INVALID_ARGUMENT; /* no tp_ref_problem_expect yet */
  const tp_ref_rounding rounding = {p->rounding, p->spread};
  const tp_status st = tp_ref_compare(&p->desc.d, p->desc.m, p->desc.n, p->ref, p->mag,
                                      p->rounding != NULL ? &rounding : NULL, tol, report);
  if (st != TP_OK) return st;
  report->padding_at = tp_ref_padding_written(p);
  report->pass = report->pass && report->padding_at < 0;
  return TP_OK;
}

void tp_ref_report_format(const tp_ref_report *r, char *buf, size_t size) {
  if (buf == NULL || size == 0) return;
  int used = snprintf(buf, size, "max abs error %.3g, relative error %.3g (bound %.3g)",
                      r->max_abs, r->rel, r->rel_bound);
  if (r->bad > 0 && used >= 0 && (size_t)used < size)
    used += snprintf(buf + used, size - (size_t)used,
                     "; %lld of %lld elements outside their bound, first D[%lld][%lld] = %.9g "
                     "(reference %.9g)",
                     (long long)r->bad, (long long)r->elements, (long long)r->bad_row,
                     (long long)r->bad_col, r->bad_value, r->bad_ref);
  if (r->padding_at >= 0 && used >= 0 && (size_t)used < size)
    snprintf(buf + used, size - (size_t)used, "; D's row padding written at byte %lld",
             (long long)r->padding_at);
}
