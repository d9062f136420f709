/* tests/gemm_case.c: see gemm_case.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gemm_case.h"

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
      .struct_size = sizeof spec,
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
      /* TMA's rule on the GPU; the CPU takes any stride, and is tested so. */
      .align_rows = backend == TP_BACKEND_CUDA,
      .alpha = is_residual(c) ? 0.75f : 1.5f,
      .beta = is_residual(c) ? -1.25f : 0.0f,
  };
  if (tp_ref_problem_create(&p->host, &spec, seed, err, errlen) != TP_OK) return 0;
  int64_t d_bytes;
  const void *d = tp_ref_problem_buffer(p->host, TP_REF_D, &d_bytes);
  p->d_start = malloc((size_t)d_bytes);
  if (p->d_start == NULL) {
    snprintf(err, errlen, "out of memory");
    gemm_problem_free(p);
    return 0;
  }
  memcpy(p->d_start, d, (size_t)d_bytes);
  if (tp_ref_problem_expect(p->host, is_residual(c) ? TP_REF_RESIDUAL : TP_REF_STORE, err,
                            errlen) != TP_OK) {
    gemm_problem_free(p);
    return 0;
  }
  p->tol = tp_ref_problem_tolerance(p->host, backend);
  return 1;
}

int gemm_problem_check(const gemm_problem *p, char *err, size_t errlen) {
  tp_ref_report rep = {.struct_size = sizeof rep};
  if (tp_ref_problem_check(p->host, &p->tol, &rep) != TP_OK) {
    snprintf(err, errlen, "the check could not run");
    return 0;
  }
  if (!rep.pass) {
    tp_ref_report_format(&rep, err, errlen);
    return 0;
  }
  int64_t row, col;
  const int64_t unwritten = tp_ref_problem_unwritten(p->host, &p->tol, &row, &col);
  if (unwritten > 0)
    snprintf(err, errlen, "%lld elements of D still hold C, first D[%lld][%lld]",
             (long long)unwritten, (long long)row, (long long)col);
  return unwritten == 0;
}

void gemm_problem_restart(gemm_problem *p) {
  int64_t d_bytes;
  void *d = tp_ref_problem_buffer(p->host, TP_REF_D, &d_bytes);
  memcpy(d, p->d_start, (size_t)d_bytes);
}

void gemm_problem_free(gemm_problem *p) {
  tp_ref_problem_destroy(p->host);
  free(p->d_start);
  memset(p, 0, sizeof *p);
}
