/* tools/device/seeded_fill.cu: the benchmark's input generator on the
 * device (tools/seeded_values.h says what each element gets).
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
