/* tools/reference/problem.c: a whole random problem in host memory, shaped
 * by its payload's description (tilepipe/reference.h: tp_ref_problem_*),
 * with its expected values.
 *
 * The payload's word on A's and B's dtypes and on the scale tensors comes
 * first (tp_problem_describe); the operands, C, D and the bias are laid out
 * after, with `pad` spare elements per row and, under align_rows, every
 * strided matrix's row stride rounded up to 16 bytes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/device.h"
#include "tools/reference/codec.h"
#include "tools/reference/internal.h"
#include "tools/seeded_values.h"

enum { ROW_ALIGN_BYTES = 16 };

void tp_ref_fail(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

int tp_ref_versioned(uint32_t struct_size, size_t size, const char *what, char *err,
                     size_t errlen) {
  if (struct_size >= size) return 1;
  tp_ref_fail(err, errlen, "%s.struct_size is %u; set it to sizeof(%s) (%zu here)", what,
              (unsigned)struct_size, what, size);
  return 0;
}

/* A row stride of `stride` elements rounded up to 16 bytes. */
static int64_t aligned(tp_dtype dtype, int64_t stride) {
  const int64_t per_align = ROW_ALIGN_BYTES * 8 / (int64_t)tp_dtype_bits(dtype);
  return (stride + per_align - 1) / per_align * per_align;
}

/* A rows x cols strided matrix with `pad` spare elements per row, its row
 * stride rounded up to 16 bytes when `align`. */
static tp_tensor padded(tp_dtype dtype, int64_t rows, int64_t cols, int64_t pad, int align) {
  if (tp_dtype_bits(dtype) < 8) pad += pad % 2; /* packed fp4 rows hold whole bytes */
  return tp_tensor_matrix(dtype, rows, cols, align ? aligned(dtype, cols + pad) : cols + pad,
                          NULL);
}

/* The payload's strided rank-2 scale tensors with their rows aligned too;
 * vectors have no rows, tiled tensors their own layout. */
static void align_scales(tp_gemm_desc *d) {
  tp_tensor *scales[2] = {&d->a_scale, &d->b_scale};
  for (int i = 0; i < 2; i++)
    if (scales[i]->dtype != TP_DTYPE_NONE && scales[i]->layout == TP_LAYOUT_STRIDED &&
        scales[i]->rank == 2)
      scales[i]->stride[0] = aligned(scales[i]->dtype, scales[i]->stride[0]);
}

tp_status tp_ref_problem_describe(const tp_ref_problem_spec *spec, tp_gemm_desc *d,
                                  tp_problem *problem, char *err, size_t errlen) {
  if (spec == NULL || d == NULL || problem == NULL) {
    tp_ref_fail(err, errlen, "tp_ref_problem_describe: a NULL argument");
    return TP_ERR_INVALID_ARGUMENT;
  }
  if (!tp_ref_versioned(spec->struct_size, sizeof *spec, "tp_ref_problem_spec", err, errlen))
    return TP_ERR_INVALID_ARGUMENT;
  tp_ref_problem_spec s;
  memcpy(&s, spec, sizeof s); /* the fields this version knows */
  if (s.m < 1 || s.n < 1 || s.k < 1 || s.pad < 0 || s.c_pad < 0) {
    tp_ref_fail(err, errlen, "sizes must be >= 1 and pad, c_pad >= 0");
    return TP_ERR_INVALID_ARGUMENT;
  }
  if (s.d == TP_DTYPE_NONE) {
    tp_ref_fail(err, errlen, "D's dtype is missing (tp_ref_problem_spec.d)");
    return TP_ERR_INVALID_ARGUMENT;
  }
  tp_gemm_desc_init(d, s.m, s.n, s.k);
  d->a.dtype = s.a;
  d->b.dtype = s.b;
  d->d.dtype = s.d;
  d->c.dtype = s.c_is_d ? s.d : s.c;
  const tp_problem_options opt = {.struct_size = sizeof opt, .scale_layout = s.sf_layout,
                                  .pad = s.pad, .b_scale_dtype = s.b_scale};
  *problem = (tp_problem){.struct_size = sizeof *problem};
  tp_status st = tp_problem_describe(s.registry, s.payload, &opt, d, problem);
  if (st != TP_OK) {
    tp_ref_fail(err, errlen, "%s", tp_error_message());
    return st;
  }
  d->alpha = s.alpha;
  d->beta = s.beta;
  d->a = padded(d->a.dtype, s.m, s.k, s.pad, s.align_rows);
  d->b = padded(d->b.dtype, s.n, s.k, s.pad, s.align_rows);
  d->d = padded(s.d, s.m, s.n, s.pad, s.align_rows);
  d->c = (tp_tensor){.dtype = TP_DTYPE_NONE};
  if (s.c_is_d)
    d->c = d->d;
  else if (s.c != TP_DTYPE_NONE)
    d->c = padded(s.c, s.m, s.n, s.c_pad ? s.c_pad : s.pad + 1, s.align_rows);
  if (s.bias != TP_DTYPE_NONE) d->bias = tp_tensor_vector(s.bias, s.n, NULL);
  if (s.align_rows) align_scales(d);
  return TP_OK;
}

tp_status tp_ref_problem_create(tp_ref_problem **out, const tp_ref_problem_spec *spec,
                                uint64_t seed, char *err, size_t errlen) {
  if (out == NULL) {
    tp_ref_fail(err, errlen, "tp_ref_problem_create: the problem pointer is NULL");
    return TP_ERR_INVALID_ARGUMENT;
  }
  *out = NULL;
  tp_ref_problem *p = calloc(1, sizeof *p);
  if (p == NULL) {
    tp_ref_fail(err, errlen, "cannot allocate a problem");
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_gemm_desc *d = &p->desc;
  tp_status st = tp_ref_problem_describe(spec, d, &p->problem, err, errlen);
  if (st != TP_OK) {
    free(p);
    return st;
  }
  const int c_is_d = spec->c_is_d;
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    tp_tensor *t = tp_ref_desc_tensor(d, (tp_ref_tensor)i);
    if (t->dtype == TP_DTYPE_NONE || (i == TP_REF_C && c_is_d))
      continue; /* absent, or C living in D's buffer (pointed at below) */
    p->bytes[i] = tp_tensor_span_bytes(t);
    p->buffer[i] = p->bytes[i] > 0 ? malloc((size_t)p->bytes[i]) : NULL;
    if (p->buffer[i] == NULL) {
      tp_ref_fail(err, errlen, "cannot allocate %lld bytes", (long long)p->bytes[i]);
      tp_ref_problem_destroy(p);
      return TP_ERR_OUT_OF_MEMORY;
    }
    memset(p->buffer[i], 0xFF, (size_t)p->bytes[i]);
    t->data = p->buffer[i];
  }
  if (c_is_d) d->c = d->d;

  /* Each input from its own key (the device generator's, stream = which);
   * D none, a NaN C its NaN. */
  const tp_scale_map *maps[2] = {&p->problem.a_scale, &p->problem.b_scale};
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    const tp_tensor *t = tp_ref_desc_tensor(d, (tp_ref_tensor)i);
    if (t->dtype == TP_DTYPE_NONE || i == TP_REF_D) continue; /* C in D's buffer is filled */
    if (i == TP_REF_C && spec->c_nan)
      tp_ref_tensor_set(t, NAN);
    else
      tp_ref_tensor_fill(t, i == TP_REF_A_SCALE || i == TP_REF_B_SCALE ? maps[i - TP_REF_A_SCALE]
                                                                        : NULL,
                         tp_seeded_key(seed, (uint64_t)i));
  }
  *out = p;
  return TP_OK;
}

void tp_ref_problem_destroy(tp_ref_problem *p) {
  if (p == NULL) return;
  for (int i = 0; i < TP_REF_TENSORS; i++) {
    free(p->buffer[i]);
    if (p->uploaded) tp_device_free(p->device[i]);
  }
  free(p->ref);
  free(p->mag);
  free(p->rounding);
  free(p->spread);
  free(p->c_copy);
  free(p);
}

tp_gemm_desc *tp_ref_problem_desc(tp_ref_problem *p) { return &p->desc; }

const tp_problem *tp_ref_problem_description(const tp_ref_problem *p) { return &p->problem; }

void *tp_ref_problem_buffer(const tp_ref_problem *p, tp_ref_tensor which, int64_t *bytes) {
  const int ok = which >= 0 && which < TP_REF_TENSORS;
  if (bytes != NULL) *bytes = ok ? p->bytes[which] : 0;
  return ok ? p->buffer[which] : NULL;
}

void tp_ref_problem_poison_d(tp_ref_problem *p) {
  if (p->desc.c.data != p->desc.d.data)
    memset(p->buffer[TP_REF_D], 0xFF, (size_t)p->bytes[TP_REF_D]);
}

int64_t tp_ref_padding_written(const tp_ref_problem *p) {
  const tp_tensor *d = &p->desc.d;
  const unsigned char *bytes = p->buffer[TP_REF_D];
  const int64_t esize = tp_dtype_bits(d->dtype) / 8, row_bytes = d->stride[0] * esize;
  for (int64_t off = 0; off < p->bytes[TP_REF_D]; off++) {
    const int in_element = off / row_bytes < d->shape[0] && off % row_bytes < d->shape[1] * esize;
    if (!in_element && bytes[off] != 0xFF) return off;
  }
  return -1;
}

/* Whether C is D's own memory (same dtype and strides, which
 * tp_gemm_check_run asks of C at D's address). */
static int c_is_d(const tp_ref_problem *p) {
  return p->desc.c.dtype != TP_DTYPE_NONE && p->desc.c.data == p->desc.d.data;
}

int64_t tp_ref_problem_unwritten(const tp_ref_problem *p, const tp_ref_tolerance *tol,
                                 int64_t *row, int64_t *col) {
  if (row != NULL) *row = -1;
  if (col != NULL) *col = -1;
  if (!c_is_d(p) || p->ref == NULL || p->c_copy == NULL) return 0;
  const tp_tensor *d = &p->desc.d;
  const size_t esize = (size_t)tp_dtype_bits(d->dtype) / 8;
  const int64_t n = p->desc.n;
  int64_t count = 0;
  for (int64_t i = 0; i < p->desc.m; i++)
    for (int64_t j = 0; j < n; j++) {
      const int64_t at = tp_ref_index(d, i, j);
      if (memcmp((const char *)d->data + at * (int64_t)esize,
                 (const char *)p->c_copy + at * (int64_t)esize, esize) != 0)
        continue;
      const double c = tp_ref_load(d->dtype, p->c_copy, at), want = p->ref[i * n + j];
      const double rnd = p->rounding != NULL ? tol->rounding * p->rounding[i * n + j] : 0.0;
      const double margin = tol->u_out * (fabs(want) + fabs(c)) + tol->eta_out +
                            16.0 * tol->u_acc * p->mag[i * n + j] + rnd;
      if (!(fabs(want - c) > margin)) continue;
      if (count++ == 0) {
        if (row != NULL) *row = i;
        if (col != NULL) *col = j;
      }
    }
  return count;
}

/* No expected values rather than stale ones. */
static void forget_expected(tp_ref_problem *p) {
  free(p->ref);
  free(p->mag);
  free(p->rounding);
  free(p->spread);
  p->ref = p->mag = p->rounding = p->spread = NULL;
}

tp_status tp_ref_problem_expect(tp_ref_problem *p, tp_ref_epilogue epilogue, char *err,
                                size_t errlen) {
  const size_t count = (size_t)(p->desc.m * p->desc.n);
  const int rounds = p->problem.a_rounding.rows != 0 || p->problem.b_rounding.rows != 0;
  if (p->ref == NULL) {
    p->ref = malloc(count * sizeof *p->ref);
    p->mag = malloc(count * sizeof *p->mag);
    p->rounding = rounds ? malloc(count * sizeof *p->rounding) : NULL;
    p->spread = rounds ? malloc(count * sizeof *p->spread) : NULL;
  }
  /* C's values as D's span holds them, wherever the descriptor points D. */
  const int64_t c_bytes = c_is_d(p) ? tp_tensor_span_bytes(&p->desc.d) : 0;
  free(p->c_copy);
  p->c_copy = c_bytes > 0 ? malloc((size_t)c_bytes) : NULL;
  if (p->ref == NULL || p->mag == NULL || (rounds && (p->rounding == NULL || p->spread == NULL)) ||
      (c_bytes > 0 && p->c_copy == NULL)) {
    forget_expected(p);
    tp_ref_fail(err, errlen, "reference: out of memory for %zu expected values", count);
    return TP_ERR_OUT_OF_MEMORY;
  }
  if (c_bytes > 0) memcpy(p->c_copy, p->desc.d.data, (size_t)c_bytes);
  tp_status st = tp_ref_gemm(&p->desc, &p->problem, epilogue, p->ref, p->mag, err, errlen);
  if (st == TP_OK && rounds)
    st = tp_ref_rounding_at(&p->desc, &p->problem, NULL, p->desc.m, NULL, p->desc.n,
                            p->rounding, p->spread, err, errlen);
  if (st != TP_OK) forget_expected(p);
  return st;
}

double *tp_ref_problem_expected(tp_ref_problem *p, double **mag) {
  if (mag != NULL) *mag = p->mag;
  return p->ref;
}

double *tp_ref_problem_rounding(tp_ref_problem *p, double **spread) {
  if (spread != NULL) *spread = p->spread;
  return p->rounding;
}
