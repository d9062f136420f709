/* tests/gemm_case.c: see gemm_case.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gemm_case.h"
#include "tools/align_rows.h"
#include "tools/reference/naive_gemm.h"

static int is_residual(const gemm_case *c) { return strcmp(c->epilogue, "residual") == 0; }

void gemm_case_name(const gemm_case *c, char *buf, size_t size) {
  snprintf(buf, size, "%s x %s %s x %s -> %s%s%s %lldx%lldx%lld", c->payload, c->epilogue,
           tp_dtype_name(c->a), tp_dtype_name(c->b), tp_dtype_name(c->d),
           c->c_is_d ? ", C is D" : c->c != TP_DTYPE_NONE ? ", C " : "",
           c->c_is_d || c->c == TP_DTYPE_NONE ? "" : tp_dtype_name(c->c), (long long)c->m,
           (long long)c->n, (long long)c->k);
}

int gemm_problem_make(gemm_problem *p, const tp_registry *reg, const gemm_case *c, uint64_t seed,
                      tp_backend backend, char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  const tp_ref_problem_spec spec = {
      .registry = reg,
      .payload = c->payload,
      .a = c->a,
      .b = c->b,
      .d = c->d,
      .c = c->c,
      .c_is_d = c->c_is_d,
      .sf_layout = c->sf_layout,
      .m = c->m,
      .n = c->n,
      .k = c->k,
      .pad = c->pad,
      .c_pad = c->c_pad,
      .alpha = is_residual(c) ? 0.75f : 1.5f,
      .beta = is_residual(c) ? -1.25f : 0.0f,
  };
  /* TMA's rule on the GPU; the CPU takes any stride, and is tested so. */
  const tp_status made = backend == TP_BACKEND_CUDA
                             ? tp_tool_problem_create(&p->host, &spec, seed, err, errlen)
                             : tp_ref_problem_create(&p->host, &spec, seed, err, errlen);
  if (made != TP_OK) return 0;
  const size_t mn = (size_t)(c->m * c->n);
  const size_t d_bytes = (size_t)p->host.bytes[TP_REF_D];
  p->ref = malloc(sizeof(double) * mn);
  p->mag = malloc(sizeof(double) * mn);
  p->d_start = malloc(d_bytes);
  if (!p->ref || !p->mag || !p->d_start) {
    snprintf(err, errlen, "out of memory");
    gemm_problem_free(p);
    return 0;
  }
  memcpy(p->d_start, p->host.buffer[TP_REF_D], d_bytes);
  if (tp_ref_gemm(&p->host.desc, &p->host.problem, is_residual(c) ? TP_REF_RESIDUAL : TP_REF_STORE,
                  p->ref, p->mag, err, errlen) != TP_OK) {
    gemm_problem_free(p);
    return 0;
  }
  p->tol = tp_ref_tolerance_for(c->d, c->k, tp_ref_acc_bits(&p->host.problem, backend));
  return 1;
}

int gemm_problem_check(const gemm_problem *p, const gemm_case *c, char *err, size_t errlen) {
  tp_ref_report rep;
  tp_ref_compare(&p->host.desc.d, c->m, c->n, p->ref, p->mag, &p->tol, &rep);
  if (!rep.pass) {
    snprintf(err, errlen,
             "%lld elements out of bounds (first D[%lld][%lld] = %g, reference %.9g); relative "
             "error %g (bound %g)",
             (long long)rep.bad, (long long)rep.bad_row, (long long)rep.bad_col, rep.bad_value,
             rep.bad_ref, rep.rel, p->tol.rel);
    return 0;
  }
  if (!c->c_is_d && tp_ref_problem_padding_written(&p->host) >= 0) {
    snprintf(err, errlen, "the run wrote into D's row padding");
    return 0;
  }
  return 1;
}

void gemm_problem_restart(gemm_problem *p) {
  memcpy(p->host.buffer[TP_REF_D], p->d_start, (size_t)p->host.bytes[TP_REF_D]);
}

void gemm_problem_free(gemm_problem *p) {
  tp_ref_problem_destroy(&p->host);
  free(p->d_start);
  free(p->ref);
  free(p->mag);
  memset(p, 0, sizeof *p);
}
