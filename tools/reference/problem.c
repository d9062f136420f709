/* tools/reference/problem.c: see problem.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/reference/problem.h"
#include "tools/reference/random_fill.h"

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* A rows x cols strided matrix with `pad` spare elements per row. */
static tp_tensor padded(tp_dtype dtype, int64_t rows, int64_t cols, int64_t pad) {
  if (tp_dtype_bits(dtype) < 8)
    pad += pad % 2; /* packed fp4 rows hold whole bytes */
  return tp_tensor_matrix(dtype, rows, cols, cols + pad, NULL);
}

static const char *const kinds[] = {"standard", "blockwise_fp8", "block_scaled", "int8_w8a8"};
#define NUM_KINDS (sizeof kinds / sizeof kinds[0])

const char *tp_ref_problem_kind(const char *payload, tp_dtype a) {
  for (size_t i = 0; payload != NULL && i < NUM_KINDS; i++)
    if (strcmp(payload, kinds[i]) == 0)
      return kinds[i];
  return a == TP_DTYPE_S8 ? "int8_w8a8" : "standard";
}

/* The scale tensors the payload takes (none for standard). */
static int make_scales(tp_gemm_desc *d, const tp_ref_problem_spec *s, char *err, size_t errlen) {
  if (strcmp(s->payload, "standard") == 0)
    return 1;
  if (strcmp(s->payload, "int8_w8a8") == 0) {
    d->a_scale = tp_tensor_vector(TP_DTYPE_F32, s->m, NULL);
    d->b_scale = tp_tensor_vector(TP_DTYPE_F32, s->n, NULL);
    return 1;
  }
  if (strcmp(s->payload, "blockwise_fp8") == 0) {
    d->a_scale = padded(TP_DTYPE_F32, ceil_div(s->k, 128), s->m, s->pad);
    d->b_scale = padded(TP_DTYPE_F32, ceil_div(s->n, 128), ceil_div(s->k, 128), s->pad);
    return 1;
  }
  if (strcmp(s->payload, "block_scaled") == 0) {
    int nvfp4 = s->a == TP_DTYPE_E2M1;
    tp_dtype dt = nvfp4 ? TP_DTYPE_UE4M3 : TP_DTYPE_UE8M0;
    /* A K the payload refuses (not a multiple of the vector) still gets a
     * scale per started vector, so that its plan says why, not a shape of 0. */
    int64_t cols = ceil_div(s->k, nvfp4 ? 16 : 32);
    if (s->sf_layout == TP_LAYOUT_SF_128X4) {
      d->a_scale = tp_tensor_sf_128x4(dt, s->m, cols, NULL);
      d->b_scale = tp_tensor_sf_128x4(dt, s->n, cols, NULL);
    } else {
      d->a_scale = padded(dt, s->m, cols, s->pad);
      d->b_scale = padded(dt, s->n, cols, s->pad);
    }
    return 1;
  }
  snprintf(err, errlen,
           "unknown payload '%s' (the problem kinds: standard, blockwise_fp8, block_scaled, "
           "int8_w8a8)",
           s->payload);
  return 0;
}

tp_tensor *tp_ref_desc_tensor(tp_gemm_desc *d, int which) {
  tp_tensor *t[TP_REF_TENSORS] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d};
  return t[which];
}

tp_status tp_ref_problem_describe(const tp_ref_problem_spec *s, tp_gemm_desc *d, char *err,
                                  size_t errlen) {
  if (s->m < 1 || s->n < 1 || s->k < 1 || s->pad < 0) {
    snprintf(err, errlen, "sizes must be >= 1 and pad >= 0");
    return TP_ERR_INVALID_ARGUMENT;
  }
  tp_gemm_desc_init(d, s->m, s->n, s->k);
  d->alpha = s->alpha;
  d->beta = s->beta;
  d->a = padded(s->a, s->m, s->k, s->pad);
  d->b = padded(s->b, s->n, s->k, s->pad);
  d->d = padded(s->d, s->m, s->n, s->pad);
  if (!s->c_is_d && s->c != TP_DTYPE_NONE)
    d->c = padded(s->c, s->m, s->n, s->c_pad ? s->c_pad : s->pad + 1);
  if (!make_scales(d, s, err, errlen))
    return TP_ERR_INVALID_ARGUMENT;
  if (s->c_is_d)
    d->c = d->d;
  return TP_OK;
}

tp_status tp_ref_problem_create(tp_ref_problem *p, const tp_ref_problem_spec *s, uint64_t seed,
                                char *err, size_t errlen) {
  memset(p, 0, sizeof *p);
  tp_gemm_desc *d = &p->desc;
  tp_status st = tp_ref_problem_describe(s, d, err, errlen);
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
  if (strcmp(s->payload, "int8_w8a8") == 0) {
    tp_fill_vector_scales(&rng, &d->a_scale);
    tp_fill_vector_scales(&rng, &d->b_scale);
  } else if (d->a_scale.dtype != TP_DTYPE_NONE) {
    tp_fill_scales(&rng, &d->a_scale);
    tp_fill_scales(&rng, &d->b_scale);
  }
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
