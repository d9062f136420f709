/* core/backend/cuda/tma_encode.c: TMA descriptors for plugins (tma_encode.h). */
#include <stdint.h>
#include <stdio.h>

#include "config.h"
#include "core/backend/cuda/tma_encode.h"

#if TP_HAVE_CUDA
#include "core/backend/cuda/driver.h"

static int tma_dtype(tp_dtype dtype, CUtensorMapDataType *out) {
  switch (dtype) {
  case TP_DTYPE_F32: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; return 1;
  case TP_DTYPE_BF16: *out = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; return 1;
  case TP_DTYPE_F16: *out = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; return 1;
  case TP_DTYPE_E4M3:
  case TP_DTYPE_E5M2:
  case TP_DTYPE_UE8M0:
  case TP_DTYPE_UE4M3:
  case TP_DTYPE_E2M1: /* as bytes: two elements each, tp_cuda_tma_encode_2d */
  case TP_DTYPE_S8: *out = CU_TENSOR_MAP_DATA_TYPE_UINT8; return 1; /* TMA moves bytes */
  default: return 0;
  }
}

static int tma_swizzle(uint32_t bytes, CUtensorMapSwizzle *out) {
  switch (bytes) {
  case 0: *out = CU_TENSOR_MAP_SWIZZLE_NONE; return 1;
  case 32: *out = CU_TENSOR_MAP_SWIZZLE_32B; return 1;
  case 64: *out = CU_TENSOR_MAP_SWIZZLE_64B; return 1;
  case 128: *out = CU_TENSOR_MAP_SWIZZLE_128B; return 1;
  default: return 0;
  }
}

tp_status tp_cuda_tma_encode_2d(void *out, const tp_tma_2d *r, char *err, size_t errlen) {
  CUtensorMapDataType type;
  CUtensorMapSwizzle swizzle;
  if (out == NULL || r == NULL || ((uintptr_t)out % 64) != 0) {
    snprintf(err, errlen, "tma: output must be a 64-byte aligned 128-byte buffer");
    return TP_ERR_INVALID_ARGUMENT;
  }
  if (!tma_dtype(r->dtype, &type)) {
    snprintf(err, errlen, "tma: dtype %s has no TMA element type", tp_dtype_name(r->dtype));
    return TP_ERR_UNSUPPORTED;
  }
  if (!tma_swizzle(r->swizzle, &swizzle)) {
    snprintf(err, errlen, "tma: swizzle %u is not 0, 32, 64 or 128 bytes", r->swizzle);
    return TP_ERR_INVALID_ARGUMENT;
  }
  /* A packed sub-byte dtype moves as bytes: its columns, row stride and
   * box width (in elements) become bytes, and must be whole ones. */
  const uint64_t bits = tp_dtype_bits(r->dtype), per_byte = bits < 8 ? 8 / bits : 1;
  const uint64_t elem = bits < 8 ? 1 : bits / 8;
  if (per_byte > 1 && (r->cols % per_byte || r->row_stride % per_byte || r->box_cols % per_byte)) {
    snprintf(err, errlen, "tma: %s [%lld x %lld], row stride %lld, box width %u: TMA moves "
             "it as bytes, each a whole number of bytes", tp_dtype_name(r->dtype),
             (long long)r->rows, (long long)r->cols, (long long)r->row_stride, r->box_cols);
    return TP_ERR_INVALID_ARGUMENT;
  }
  const int64_t cols = r->cols / (int64_t)per_byte, row_stride = r->row_stride / (int64_t)per_byte;
  const uint32_t box_cols = r->box_cols / (uint32_t)per_byte;
  if (r->global == NULL || (uintptr_t)r->global % 16 != 0) {
    snprintf(err, errlen, "tma: global address %p is not 16-byte aligned", r->global);
    return TP_ERR_INVALID_ARGUMENT;
  }
  if (r->rows < 1 || r->cols < 1 || row_stride < cols ||
      (r->rows > 1 && (row_stride * elem) % 16 != 0)) {
    snprintf(err, errlen, "tma: [%lld x %lld] with row stride %lld elements: rows must be "
             "16-byte aligned and no shorter than a row", (long long)r->rows, (long long)r->cols,
             (long long)r->row_stride);
    return TP_ERR_INVALID_ARGUMENT;
  }
  if (r->box_rows < 1 || r->box_rows > 256 || box_cols < 1 || box_cols > 256 ||
      (box_cols * elem) % 16 != 0 || (r->swizzle && box_cols * elem > r->swizzle)) {
    snprintf(err, errlen, "tma: box %u x %u of %s does not fit the rules (1..256 each, rows of a "
             "multiple of 16 bytes, within the %u-byte swizzle)", r->box_rows, r->box_cols,
             tp_dtype_name(r->dtype), r->swizzle);
    return TP_ERR_INVALID_ARGUMENT;
  }
  const tp_cuda_driver *cu;
  tp_status st = tp_cuda_driver_get(&cu);
  if (st != TP_OK) {
    snprintf(err, errlen, "tma: no CUDA driver");
    return st;
  }
  const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)r->rows};
  /* A single row needs no stride, but the driver wants a valid one. */
  const cuuint64_t strides[1] = {
      (cuuint64_t)((r->rows > 1 ? row_stride : (cols + 15) / 16 * 16) * elem)};
  const cuuint32_t box[2] = {box_cols, r->box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  CUresult res = cu->TensorMapEncodeTiled((CUtensorMap *)out, type, 2, (void *)r->global, dims,
                                          strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                                          swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (res != CUDA_SUCCESS) {
    const char *name = "?";
    cu->GetErrorName(res, &name);
    snprintf(err, errlen, "tma: cuTensorMapEncodeTiled failed (%s) for [%lld x %lld] %s, box %u x %u",
             name, (long long)r->rows, (long long)r->cols, tp_dtype_name(r->dtype), r->box_rows,
             r->box_cols);
    return TP_ERR_CUDA;
  }
  return TP_OK;
}

#else

tp_status tp_cuda_tma_encode_2d(void *out, const tp_tma_2d *request, char *err, size_t errlen) {
  (void)out;
  (void)request;
  snprintf(err, errlen, "tma: tilepipe was built without the CUDA toolkit");
  return TP_ERR_NO_DEVICE;
}

#endif
