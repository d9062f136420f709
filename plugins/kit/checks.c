/* plugins/kit/checks.c: see tilepipe/plugin/kit/checks.h. */
#include <stdio.h>

#include "tilepipe/plugin/dtype_codec.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/error.h"

/* Largest row stride, in bytes, of a scale tensor: the core's bound for
 * matrices (TMA's 2^40), which also keeps row * stride far from overflow. */
#define MAX_STRIDE_BYTES ((int64_t)1 << 40)

int tp_kit_dtype_is_fp8(tp_dtype dtype) { return dtype == TP_DTYPE_E4M3 || dtype == TP_DTYPE_E5M2; }

int tp_kit_dtype_is_half(tp_dtype dtype) { return dtype == TP_DTYPE_BF16 || dtype == TP_DTYPE_F16; }

tp_status tp_kit_tensor_check_absent(const tp_tensor *t, const char *name, const char *why,
                                     char *err, size_t errlen) {
  if (t->dtype == TP_DTYPE_NONE)
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s is given (%s) but not taken: %s",
                     name, tp_codec_name(t->dtype), why);
}

tp_status tp_kit_tensor_check_output(const tp_tensor *t, const char *name, char *err,
                                     size_t errlen) {
  if (t->dtype == TP_DTYPE_F32 || tp_kit_dtype_is_half(t->dtype))
    return TP_OK;
  return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED, "%s is %s; it must be bf16, f16 or f32",
                     name, tp_codec_name(t->dtype));
}

tp_status tp_kit_scale_check(const tp_tensor *t, const tp_kit_scale_rule *r, tp_backend backend,
                             char *err, size_t errlen) {
  const char *dt = tp_codec_name(r->dtype);
  if (t->dtype == TP_DTYPE_NONE)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s is missing: %s scales %s = [%lld, %lld] are needed", r->name, dt,
                       r->shape_text, (long long)r->rows, (long long)r->cols);
  if (t->dtype != r->dtype)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s is %s; it must be %s", r->name,
                       tp_codec_name(t->dtype), dt);
  if (t->layout != TP_LAYOUT_STRIDED && !(r->tiled_ok && t->layout == TP_LAYOUT_SF_128X4))
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has layout %d; it must be strided%s", r->name, (int)t->layout,
                       r->tiled_ok ? " or the 128x4 tiled layout" : " (row-major)");
  if (t->rank != 2)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has rank %d; it must be a rank-2 %s = [%lld, %lld]", r->name,
                       (int)t->rank, r->shape_text, (long long)r->rows, (long long)r->cols);
  if (t->shape[0] != r->rows || t->shape[1] != r->cols)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has shape [%lld, %lld]; it must be %s = [%lld, %lld]", r->name,
                       (long long)t->shape[0], (long long)t->shape[1], r->shape_text,
                       (long long)r->rows, (long long)r->cols);
  if (t->layout == TP_LAYOUT_SF_128X4)
    return TP_OK; /* the tiled layout defines every address itself */
  int64_t bytes = (int64_t)tp_codec_bits(t->dtype) / 8;
  if (t->stride[1] != 1)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has inner stride %lld; rows must be contiguous (stride 1)", r->name,
                       (long long)t->stride[1]);
  if (t->stride[0] < r->cols)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has row stride %lld, shorter than a row of %lld scales", r->name,
                       (long long)t->stride[0], (long long)r->cols);
  if (t->stride[0] >= MAX_STRIDE_BYTES / bytes)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s has row stride %lld: too large",
                       r->name, (long long)t->stride[0]);
  if (backend == TP_BACKEND_CUDA && r->tma_rows && r->rows > 1 && t->stride[0] * bytes % 16 != 0)
    return tp_kit_fail(err, errlen, TP_ERR_UNSUPPORTED,
                       "%s has row stride %lld = %lld bytes, not a multiple of 16 (TMA needs "
                       "16-byte rows); pad the rows",
                       r->name, (long long)t->stride[0], (long long)(t->stride[0] * bytes));
  return TP_OK;
}

/* "[3, 1]": the shape of t as text. */
static void shape_text(const tp_tensor *t, char *buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int32_t i = 0; i < t->rank && i < TP_MAX_RANK && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%lld", i ? ", " : "",
                             (long long)t->shape[i]);
  if (used < size)
    snprintf(buf + used, size - used, "]");
}

tp_status tp_kit_scale_check_vector(const tp_tensor *t, const tp_kit_scale_vector_rule *r,
                                    char *err, size_t errlen) {
  const long long len = (long long)r->length;
  const char *dt = tp_codec_name(r->dtype);
  char rank2[64], shape[96]; /* "[M, 1] = [300, 1]", and t's shape */
  if (r->column)
    snprintf(rank2, sizeof rank2, "[%s, 1] = [%lld, 1]", r->dim, len);
  else
    snprintf(rank2, sizeof rank2, "[1, %s] = [1, %lld]", r->dim, len);
  if (t->dtype == TP_DTYPE_NONE)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s is missing: one %s scale per %s is needed, a vector [%s] = [%lld] "
                       "(tp_tensor_vector) or %s",
                       r->name, dt, r->of, r->dim, len, rank2);
  if (t->dtype != r->dtype)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s is %s; it must be %s", r->name,
                       tp_codec_name(t->dtype), dt);
  if (t->layout != TP_LAYOUT_STRIDED)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has layout %d; it must be strided (a plain vector)", r->name,
                       (int)t->layout);
  /* The dimension that spans the scales: 0 of [L] and [L, 1], 1 of [1, L]. */
  int dim = -1;
  if (t->rank == 1 && t->shape[0] == r->length)
    dim = 0;
  else if (t->rank == 2 && r->column && t->shape[0] == r->length && t->shape[1] == 1)
    dim = 0;
  else if (t->rank == 2 && !r->column && t->shape[0] == 1 && t->shape[1] == r->length)
    dim = 1;
  shape_text(t, shape, sizeof shape);
  if (dim < 0)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has shape %s; it must be [%s] = [%lld] or %s (one scale per %s)",
                       r->name, shape, r->dim, len, rank2, r->of);
  if (t->stride[dim] != 1)
    return tp_kit_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                       "%s has stride %lld along %s; its scales must be contiguous (stride 1)",
                       r->name, (long long)t->stride[dim], r->dim);
  return TP_OK;
}
