/* tools/device/seeded_fill.cu: the benchmark's input generator on the
 * device (tools/seeded_values.h says what each element gets), and the
 * dequantization of its scaled operands to bf16 (the anchor of a problem
 * cuBLASLt cannot run as it is: dequantize, then cuBLASLt in bf16).
 *
 * Built by nvcc into a cubin that the tool carries as data and loads
 * through the driver (tools/seeded_device.h); no CUDA runtime. One thread
 * per element, or per byte of a 4-bit dtype (its two elements, so that no
 * two threads share a byte); rows over blockIdx.y, the elements of a row
 * over x, both grid-strided, so any shape fits the launch. Only element
 * bytes are written: row and atom padding keep what the buffer held. */
#include "tools/seeded_values.h"

/* Element (row, col)'s position in elements from data (bytes for the
 * one-byte tiled scales): tilepipe/tensor.h's formulas. */
__device__ __forceinline__ int64_t element_at(const tp_seeded_fill_args *f, int64_t row,
                                              int64_t col) {
  if (f->layout != TP_LAYOUT_SF_128X4) return row * f->row_stride + col * f->col_stride;
  const int64_t col_atoms = (f->cols + 3) / 4;
  return ((row / 128) * col_atoms + col / 4) * 512 + (row % 32) * 16 + ((row % 128) / 32) * 4 +
         col % 4;
}

/* The dtype's code of element (row, col). */
__device__ __forceinline__ uint32_t code_of(const tp_seeded_fill_args *f, int64_t row,
                                            int64_t col) {
  const uint64_t bits = tp_seeded_bits(f->key, (uint64_t)(row * f->cols + col));
  return tp_codec_encode((tp_dtype)f->dtype, tp_seeded_value(f->values, (tp_dtype)f->dtype, bits));
}

extern "C" __global__ void tp_seeded_fill(tp_seeded_fill_args f) {
  const unsigned bits = tp_codec_bits((tp_dtype)f.dtype);
  const int64_t units = bits == 4 ? (f.cols + 1) / 2 : f.cols;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t row = blockIdx.y; row < f.rows; row += gridDim.y) {
    for (int64_t u = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; u < units; u += step) {
      if (bits == 4) {
        /* Element 2u in the low nibble; a row's odd last element leaves
         * the high nibble (padding) as it was. */
        unsigned char *byte = (unsigned char *)f.data + (row * f.row_stride + 2 * u) / 2;
        const uint32_t low = code_of(&f, row, 2 * u);
        const uint32_t high =
            2 * u + 1 < f.cols ? code_of(&f, row, 2 * u + 1) : (uint32_t)(*byte >> 4);
        *byte = (unsigned char)(low | (high << 4));
        continue;
      }
      const int64_t at = element_at(&f, row, u);
      const uint32_t code = code_of(&f, row, u);
      if (bits == 32)
        ((uint32_t *)f.data)[at] = code;
      else if (bits == 16)
        ((uint16_t *)f.data)[at] = (uint16_t)code;
      else
        ((unsigned char *)f.data)[at] = (unsigned char)code;
    }
  }
}

/* Scale of elements (r, c..c+7) of a dequantization's operand (a map's
 * blocks are a multiple of 8 wide, the host checks). */
__device__ __forceinline__ float scale_of(const tp_dequantize_args *a, int64_t r, int64_t c) {
  if (a->scale == NULL) return 1.0f;
  int64_t sr = r / a->map_rows, sc = a->map_k > 0 ? c / a->map_k : 0;
  if (a->map_k_first) {
    const int64_t t = sr;
    sr = sc;
    sc = t;
  }
  int64_t at = sr * a->scale_ld + sc;
  if (a->scale_layout == TP_LAYOUT_SF_128X4)
    at = ((sr / 128) * ((a->scale_cols + 3) / 4) + sc / 4) * 512 + (sr % 32) * 16 +
         ((sr % 128) / 32) * 4 + sc % 4;
  return tp_codec_load((tp_dtype)a->scale_dtype, a->scale, at);
}

/* Eight consecutive elements of a row a thread, grid-strided, for operand
 * dtype DT: one load of their bytes where the row's 8 lie aligned (any
 * problem the payloads take: rows 16-byte aligned, K a multiple of 16),
 * one scale, the eight products rounded to bf16 (exact for the 8- and
 * 4-bit formats times a power of two or a ue4m3 scale) and stored in one
 * 16-byte store where out's row allows. */
template <int DT>
__device__ __forceinline__ void dequantize_rows(const tp_dequantize_args &a) {
  constexpr int bits = DT == TP_DTYPE_E2M1 ? 4 : DT == TP_DTYPE_BF16 || DT == TP_DTYPE_F16 ? 16 : 8;
  const int64_t groups = (a.cols + 7) / 8;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  const bool whole_rows = a.cols % 8 == 0 && (a.ld * bits / 8) % 16 == 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < a.rows * groups;
       i += step) {
    const int64_t r = i / groups, c0 = (i % groups) * 8;
    const float s = scale_of(&a, r, c0);
    float v[8];
    if (whole_rows) {
      const unsigned char *p = (const unsigned char *)a.x + (r * a.ld + c0) * bits / 8;
      if (bits == 8) {
        const uint2 w = *(const uint2 *)p;
#pragma unroll
        for (int j = 0; j < 8; ++j)
          v[j] = tp_codec_decode((tp_dtype)DT, ((j < 4 ? w.x : w.y) >> (8 * (j % 4))) & 0xffu);
      } else if (bits == 4) {
        const uint32_t w = *(const uint32_t *)p;
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j] = tp_codec_decode((tp_dtype)DT, (w >> (4 * j)) & 0xfu);
      } else {
        const uint4 w = *(const uint4 *)p;
        const uint32_t q[4] = {w.x, w.y, w.z, w.w};
#pragma unroll
        for (int j = 0; j < 8; ++j)
          v[j] = tp_codec_decode((tp_dtype)DT, (q[j / 2] >> (16 * (j % 2))) & 0xffffu);
      }
      uint32_t o[4];
#pragma unroll
      for (int j = 0; j < 4; ++j)
        o[j] = tp_bf16_encode(v[2 * j] * s) | tp_bf16_encode(v[2 * j + 1] * s) << 16;
      *(uint4 *)(a.out + r * a.cols + c0) = make_uint4(o[0], o[1], o[2], o[3]);
      continue;
    }
    for (int j = 0; j < 8 && c0 + j < a.cols; ++j)
      a.out[r * a.cols + c0 + j] =
          (uint16_t)tp_bf16_encode(tp_codec_load((tp_dtype)DT, a.x, r * a.ld + c0 + j) * s);
  }
}

extern "C" __global__ void tp_dequantize(tp_dequantize_args a) {
  switch (a.dtype) {
  case TP_DTYPE_E4M3: dequantize_rows<TP_DTYPE_E4M3>(a); break;
  case TP_DTYPE_E5M2: dequantize_rows<TP_DTYPE_E5M2>(a); break;
  case TP_DTYPE_E2M1: dequantize_rows<TP_DTYPE_E2M1>(a); break;
  case TP_DTYPE_S8: dequantize_rows<TP_DTYPE_S8>(a); break;
  case TP_DTYPE_BF16: dequantize_rows<TP_DTYPE_BF16>(a); break;
  case TP_DTYPE_F16: dequantize_rows<TP_DTYPE_F16>(a); break;
  default: break; /* the host takes no other */
  }
}
