/* tools/bench_accuracy.c: see bench_accuracy.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tilepipe/device.h"
#include "tools/bench_accuracy.h"
#include "tools/sample.h"

/* A host mirror of a device problem: the descriptor with host pointers to
 * zeroed buffers of each tensor's span (D's none: the caller has both Ds). */
typedef struct mirror {
  tp_gemm_desc desc;
  void *buffer[4]; /* A, B, a_scale, b_scale: owned */
  void *c;         /* C, when the residual reads one: owned */
} mirror;

static void mirror_free(mirror *h) {
  for (int i = 0; i < 4; i++) free(h->buffer[i]);
  free(h->c);
}

/* A zeroed host buffer for t, and t's data pointed at it; 0 when out of
 * memory. */
static int host_buffer(tp_tensor *t, void **buffer) {
  const int64_t bytes = tp_tensor_span_bytes(t);
  *buffer = bytes > 0 ? calloc(1, (size_t)bytes) : NULL;
  t->data = *buffer;
  return *buffer != NULL;
}

/* Rows `rows` of the strided matrix `t` (device data at dev) into host. */
static tp_status copy_rows(const tp_tensor *t, const void *dev, const int64_t *rows, int64_t count,
                           void *host) {
  const size_t pitch = tp_dtype_bytes(t->dtype, t->stride[0]);
  const size_t row_bytes = tp_dtype_bytes(t->dtype, t->shape[1]);
  tp_status st = TP_OK;
  for (int64_t i = 0; i < count && st == TP_OK; i++) {
    const size_t at = (size_t)rows[i] * pitch;
    st = tp_device_copy_from((char *)host + at, (const char *)dev + at, row_bytes);
  }
  return st;
}

/* The sampled rows of A (rows), B (cols) and C (rows), and the scale
 * tensors whole, from the device problem into *h. */
static tp_status fetch(const tp_gemm_desc *dev, int residual, const tp_sample *s, mirror *h,
                       char *err, size_t errlen) {
  h->desc = *dev;
  tp_tensor *t[4] = {&h->desc.a, &h->desc.b, &h->desc.a_scale, &h->desc.b_scale};
  const void *src[4] = {dev->a.data, dev->b.data, dev->a_scale.data, dev->b_scale.data};
  int ok = 1;
  for (int i = 0; i < 4; i++)
    ok = ok && (t[i]->dtype == TP_DTYPE_NONE || host_buffer(t[i], &h->buffer[i]));
  if (residual) ok = ok && host_buffer(&h->desc.c, &h->c);
  if (!ok) {
    snprintf(err, errlen, "out of host memory for the sampled inputs");
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_status st = copy_rows(&h->desc.a, src[0], s->rows, s->nrows, h->buffer[0]);
  if (st == TP_OK) st = copy_rows(&h->desc.b, src[1], s->cols, s->ncols, h->buffer[1]);
  for (int i = 2; i < 4 && st == TP_OK; i++)
    if (t[i]->dtype != TP_DTYPE_NONE) /* a payload may scale one operand only */
      st = tp_device_copy_from(h->buffer[i], src[i], (size_t)tp_tensor_span_bytes(t[i]));
  if (st == TP_OK && residual) st = copy_rows(&h->desc.c, dev->c.data, s->rows, s->nrows, h->c);
  if (st != TP_OK) snprintf(err, errlen, "copying the sampled inputs back: %s", tp_error_message());
  return st;
}

tp_status tp_bench_accuracy(const tp_gemm_desc *desc, const tp_problem *problem, int residual,
                            const void *d_ours, const void *d_theirs, uint64_t seed,
                            tp_bench_row *row, int *passes, char *err, size_t errlen) {
  *passes = 0;
  tp_sample s;
  tp_status st = tp_sample_pick(&s, desc->m, desc->n, TP_BENCH_SAMPLE_ROWS,
                                TP_BENCH_SAMPLE_COLS, seed);
  if (st != TP_OK) {
    snprintf(err, errlen, "cannot pick the sample: %s", tp_status_string(st));
    return st;
  }
  mirror h = {.buffer = {NULL}};
  double *ref = malloc(sizeof *ref * (size_t)(s.nrows * s.ncols));
  double *bound = malloc(sizeof *bound * (size_t)(s.nrows * s.ncols));
  double *spread = malloc(sizeof *spread * (size_t)(s.nrows * s.ncols));
  if (ref == NULL || bound == NULL || spread == NULL) {
    snprintf(err, errlen, "out of host memory for the sampled reference");
    st = TP_ERR_OUT_OF_MEMORY;
  } else {
    st = fetch(desc, residual, &s, &h, err, errlen);
  }
  if (st == TP_OK)
    st = tp_ref_gemm_at(&h.desc, problem, residual ? TP_REF_RESIDUAL : TP_REF_STORE, s.rows,
                        s.nrows, s.cols, s.ncols, ref, NULL, err, errlen);
  if (st == TP_OK)
    st = tp_ref_rounding_at(&h.desc, problem, s.rows, s.nrows, s.cols, s.ncols, bound, spread,
                            err, errlen);
  if (st == TP_OK) {
    tp_tensor d = desc->d;
    d.data = (void *)d_ours;
    row->err_ours = tp_sample_error(&d, &s, ref);
    d.data = (void *)d_theirs;
    row->err_lt = d_theirs ? tp_sample_error(&d, &s, ref) : NAN;
    const int acc_bits = tp_ref_acc_bits(problem, TP_BACKEND_CUDA);
    const tp_ref_tolerance tol = tp_ref_tolerance_for(desc->d.dtype, desc->k, acc_bits);
    /* The operands' rounding on our side alone: its normwise share (the
     * GPU model's, tilepipe/reference.h) is allowed on top of each test
     * (the comparator takes them exactly). */
    const double rounded = tp_ref_tolerance_for_gpu(desc->d.dtype, desc->k, problem).rounding_rel *
                           tp_sample_norm_ratio(&s, spread, ref);
    row->err_bound = tol.rel + rounded;
    row->err_samples = s.nrows * s.ncols;
    *passes = tp_sample_error_within(row->err_ours - rounded, row->err_lt, &tol);
  }
  mirror_free(&h);
  free(ref);
  free(bound);
  free(spread);
  tp_sample_free(&s);
  return st;
}
