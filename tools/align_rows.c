/* tools/align_rows.c: see align_rows.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/align_rows.h"

enum { ROW_ALIGN_BYTES = 16 };

/* t's row stride rounded up to 16 bytes. */
static int64_t aligned_stride(const tp_tensor *t) {
  const int64_t per_align = ROW_ALIGN_BYTES * 8 / (int64_t)tp_dtype_bits(t->dtype);
  return (t->stride[0] + per_align - 1) / per_align * per_align;
}

int64_t tp_tool_buffer_bytes(const tp_tensor *t, int which) {
  const int scale = which == TP_REF_A_SCALE || which == TP_REF_B_SCALE;
  if (scale && t->layout == TP_LAYOUT_STRIDED && t->rank == 2)
    return (int64_t)tp_dtype_bytes(t->dtype, t->shape[0] * t->stride[0]);
  return tp_tensor_span_bytes(t);
}

/* Re-lays tensor i of p with its row stride rounded up to 16 bytes, in a
 * buffer of tp_tool_buffer_bytes. */
static tp_status widen(tp_ref_problem *p, tp_tensor *t, int i, char *err, size_t errlen) {
  tp_tensor wide = *t;
  wide.stride[0] = aligned_stride(t);
  const int64_t bytes = tp_tool_buffer_bytes(&wide, i);
  if (wide.stride[0] == t->stride[0] && bytes == p->bytes[i]) return TP_OK;
  unsigned char *buf = bytes > 0 ? malloc((size_t)bytes) : NULL;
  if (buf == NULL) {
    snprintf(err, errlen, "cannot allocate %lld bytes of host memory", (long long)bytes);
    return TP_ERR_OUT_OF_MEMORY;
  }
  memset(buf, 0xFF, (size_t)bytes);
  const size_t row_bytes = tp_dtype_bytes(t->dtype, t->shape[1]);
  const size_t old_pitch = tp_dtype_bytes(t->dtype, t->stride[0]);
  const size_t new_pitch = tp_dtype_bytes(t->dtype, wide.stride[0]);
  for (int64_t r = 0; r < t->shape[0]; r++)
    memcpy(buf + (size_t)r * new_pitch, (const unsigned char *)t->data + (size_t)r * old_pitch,
           row_bytes);
  free(p->buffer[i]);
  p->buffer[i] = buf;
  p->bytes[i] = bytes;
  wide.data = buf;
  *t = wide;
  return TP_OK;
}

tp_status tp_tool_problem_create(tp_ref_problem *p, const tp_ref_problem_spec *spec,
                                 uint64_t seed, char *err, size_t errlen) {
  tp_status st = tp_ref_problem_create(p, spec, seed, err, errlen);
  if (st != TP_OK) return st;
  tp_gemm_desc *d = &p->desc;
  const int c_is_d = d->c.data != NULL && d->c.data == d->d.data;
  tp_tensor *tensors[TP_REF_TENSORS] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d};
  for (int i = 0; i < TP_REF_TENSORS && st == TP_OK; i++) {
    tp_tensor *t = tensors[i];
    if (t->dtype == TP_DTYPE_NONE || t->layout != TP_LAYOUT_STRIDED || t->rank != 2 ||
        p->buffer[i] == NULL)
      continue; /* absent, tiled, a vector (no rows), or C living in D's buffer */
    st = widen(p, t, i, err, errlen);
  }
  if (c_is_d) d->c = d->d;
  if (st != TP_OK) tp_ref_problem_destroy(p);
  return st;
}

void tp_tool_align_desc(tp_gemm_desc *d) {
  tp_tensor *tensors[] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d};
  for (size_t i = 0; i < sizeof tensors / sizeof tensors[0]; i++)
    if (tensors[i]->dtype != TP_DTYPE_NONE && tensors[i]->layout == TP_LAYOUT_STRIDED &&
        tensors[i]->rank == 2)
      tensors[i]->stride[0] = aligned_stride(tensors[i]);
}
