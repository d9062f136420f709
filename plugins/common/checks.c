/* plugins/common/checks.c: see checks.h. */
#include "tilepipe/dtype_codec.h"
#include "plugins/common/checks.h"
#include "plugins/common/errmsg.h"

/* Largest row stride, in bytes, of a scale tensor: the core's bound for
 * matrices (TMA's 2^40), which also keeps row * stride far from overflow. */
#define TPC_MAX_STRIDE_BYTES ((int64_t)1 << 40)

int tpc_is_fp8(tp_dtype dtype) { return dtype == TP_DTYPE_E4M3 || dtype == TP_DTYPE_E5M2; }

int tpc_is_half(tp_dtype dtype) { return dtype == TP_DTYPE_BF16 || dtype == TP_DTYPE_F16; }

tp_status tpc_check_absent(const tp_tensor *t, const char *name, const char *why, char *err,
                           size_t errlen) {
  if (t->dtype == TP_DTYPE_NONE)
    return TP_OK;
  return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s is given (%s) but not taken: %s", name,
                  tp_codec_name(t->dtype), why);
}

tp_status tpc_check_output_dtype(const tp_tensor *t, const char *name, char *err, size_t errlen) {
  if (t->dtype == TP_DTYPE_F32 || tpc_is_half(t->dtype))
    return TP_OK;
  return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED, "%s is %s; it must be bf16, f16 or f32", name,
                  tp_codec_name(t->dtype));
}

tp_status tpc_check_scale(const tp_tensor *t, const tpc_scale_rule *r, tp_backend backend,
                          char *err, size_t errlen) {
  const char *dt = tp_codec_name(r->dtype);
  if (t->dtype == TP_DTYPE_NONE)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "%s is missing: %s scales %s = [%lld, %lld] are needed", r->name, dt,
                    r->shape_text, (long long)r->rows, (long long)r->cols);
  if (t->dtype != r->dtype)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s is %s; it must be %s", r->name,
                    tp_codec_name(t->dtype), dt);
  if (t->layout != TP_LAYOUT_STRIDED && !(r->tiled_ok && t->layout == TP_LAYOUT_SF_128X4))
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "%s has layout %d; it must be strided%s", r->name, (int)t->layout,
                    r->tiled_ok ? " or the 128x4 tiled layout" : " (row-major)");
  if (t->rank != 2)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "%s has rank %d; it must be a rank-2 %s = [%lld, %lld]", r->name, (int)t->rank,
                    r->shape_text, (long long)r->rows, (long long)r->cols);
  if (t->shape[0] != r->rows || t->shape[1] != r->cols)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "%s has shape [%lld, %lld]; it must be %s = [%lld, %lld]", r->name,
                    (long long)t->shape[0], (long long)t->shape[1], r->shape_text,
                    (long long)r->rows, (long long)r->cols);
  if (t->layout == TP_LAYOUT_SF_128X4)
    return TP_OK; /* the tiled layout defines every address itself */
  int64_t bytes = (int64_t)tp_codec_bits(t->dtype) / 8;
  if (t->stride[1] != 1)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "%s has inner stride %lld; rows must be contiguous (stride 1)", r->name,
                    (long long)t->stride[1]);
  if (t->stride[0] < r->cols)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT,
                    "%s has row stride %lld, shorter than a row of %lld scales", r->name,
                    (long long)t->stride[0], (long long)r->cols);
  if (t->stride[0] >= TPC_MAX_STRIDE_BYTES / bytes)
    return tpc_fail(err, errlen, TP_ERR_INVALID_ARGUMENT, "%s has row stride %lld: too large",
                    r->name, (long long)t->stride[0]);
  if (backend == TP_BACKEND_CUDA && r->tma_rows && r->rows > 1 && t->stride[0] * bytes % 16 != 0)
    return tpc_fail(err, errlen, TP_ERR_UNSUPPORTED,
                    "%s has row stride %lld = %lld bytes, not a multiple of 16 (TMA needs "
                    "16-byte rows); pad the rows",
                    r->name, (long long)t->stride[0], (long long)(t->stride[0] * bytes));
  return TP_OK;
}
