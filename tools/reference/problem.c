/* tools/reference/problem.c: see problem.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/status.h"
#include "tools/reference/problem.h"
#include "tools/reference/random_fill.h"

/* A rows x cols strided matrix with `pad` spare elements per row. */
static tp_tensor padded(tp_dtype dtype, int64_t rows, int64_t cols, int64_t pad) {
  if (tp_dtype_bits(dtype) < 8)
    pad += pad % 2; /* packed fp4 rows hold whole bytes */
  return tp_tensor_matrix(dtype, rows, cols, cols + pad, NULL);
}

tp_tensor *tp_ref_desc_tensor(tp_gemm_desc *d, int which) {
  tp_tensor *t[TP_REF_TENSORS] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d};
  return t[which];
}

tp_status tp_ref_problem_describe(const tp_ref_problem_spec *s, tp_gemm_desc *d,
                                  tp_problem *problem, char *err, size_t errlen) {
  if (s->m < 1 || s->n < 1 || s->k < 1 || s->pad < 0) {
    snprintf(err, errlen, "sizes must be >= 1 and pad >= 0");
    return TP_ERR_INVALID_ARGUMENT;
  }
  /* The payload's word on A's and B's dtypes and the scales first; the
   * operands are laid out after. */
  tp_gemm_desc_init(d, s->m, s->n, s->k);
  d->a.dtype = s->a;
  d->b.dtype = s->b;
  d->d.dtype = s->d;
  d->c.dtype = s->c_is_d ? s->d : s->c;
  const tp_problem_options opt = {.struct_size = sizeof opt, .scale_layout = s->sf_layout,
                                  .pad = s->pad};
  *problem = (tp_problem){.struct_size = sizeof *problem};
  tp_status st = tp_problem_describe(s->registry, s->payload, &opt, d, problem);
  if (st != TP_OK) {
    snprintf(err, errlen, "%s", tp_error_message());
    return st;
  }
  d->alpha = s->alpha;
  d->beta = s->beta;
  d->a = padded(d->a.dtype, s->m, s->k, s->pad);
  d->b = padded(d->b.dtype, s->n, s->k, s->pad);
  d->d = padded(s->d, s->m, s->n, s->pad);
  d->c = (tp_tensor){.dtype = TP_DTYPE_NONE};
  if (!s->c_is_d && s->c != TP_DTYPE_NONE)
    d->c = padded(s->c, s->m, s->n, s->c_pad ? s->c_pad : s->pad + 1);
  if (s->c_is_d)
    d->c = d->d;
  return TP_OK;
}

tp_status tp_ref_problem_create(tp_ref_problem *p, const tp_ref_problem_spec *s, uint64_t seed,
                                char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  tp_gemm_desc *d = &p->desc;
  tp_status st = tp_ref_problem_describe(s, d, &p->problem, err, errlen);
  if (st != TP_OK) {
    memset(p, 0, sizeof *p);
    return st;
  }
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    tp_tensor *t = tp_ref_desc_tensor(d, i);
    if (t->dtype == TP_DTYPE_NONE || (i == TP_REF_C && s->c_is_d))
      continue; /* absent, or C living in D's buffer (pointed at below) */
    p->bytes[i] = tp_tensor_span_bytes(t);
    p->buffer[i] = p->bytes[i] > 0 ? malloc((size_t)p->bytes[i]) : NULL;
    if (p->buffer[i] == NULL) {
      snprintf(err, errlen, "cannot allocate %lld bytes", (long long)p->bytes[i]);
      tp_ref_problem_destroy(p);
      return TP_ERR_OUT_OF_MEMORY;
    }
    memset(p->buffer[i], 0xFF, (size_t)p->bytes[i]);
    t->data = p->buffer[i];
  }
  if (s->c_is_d)
    d->c = d->d;

  tp_rng rng;
  tp_rng_seed(&rng, seed);
  tp_fill_normal(&rng, &d->a);
  tp_fill_normal(&rng, &d->b);
  tp_fill_scales(&rng, &d->a_scale, &p->problem.a_scale);
  tp_fill_scales(&rng, &d->b_scale, &p->problem.b_scale);
  if (d->c.dtype != TP_DTYPE_NONE) {
    if (s->c_nan)
      tp_fill_value(&d->c, NAN);
    else
      tp_fill_normal(&rng, &d->c);
  }
  return TP_OK;
}

void tp_ref_problem_poison_d(tp_ref_problem *p) {
  if (p->desc.c.data != p->desc.d.data)
    memset(p->buffer[TP_REF_D], 0xFF, (size_t)p->bytes[TP_REF_D]);
}

int64_t tp_ref_problem_padding_written(const tp_ref_problem *p) {
  const tp_tensor *d = &p->desc.d;
  const unsigned char *bytes = p->buffer[TP_REF_D];
  const int64_t esize = tp_dtype_bits(d->dtype) / 8, row_bytes = d->stride[0] * esize;
  for (int64_t off = 0; off < p->bytes[TP_REF_D]; off++) {
    int in_element = off / row_bytes < d->shape[0] && off % row_bytes < d->shape[1] * esize;
    if (!in_element && bytes[off] != 0xFF)
      return off;
  }
  return -1;
}

void tp_ref_problem_destroy(tp_ref_problem *p) {
  for (int i = 0; i < TP_REF_TENSORS; i++)
    free(p->buffer[i]);
  memset(p, 0, sizeof *p);
}
