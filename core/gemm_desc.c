/* core/gemm_desc.c: the GEMM descriptor's initializer, and how the library
 * reads a caller's descriptor by its version (gemm_desc.h).
 *
 * Zeroing leaves every tensor absent (TP_DTYPE_NONE, strided, no data), so a
 * caller fills in only what its GEMM has. */
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "core/gemm_desc.h"

void tp_gemm_desc_init(tp_gemm_desc *desc, int64_t m, int64_t n, int64_t k) {
  if (desc == NULL)
    return;
  memset(desc, 0, sizeof *desc);
  desc->struct_size = (uint32_t)sizeof *desc;
  desc->m = m;
  desc->n = n;
  desc->k = k;
  desc->alpha = 1.0f;
  desc->beta = 0.0f;
}

tp_status tp_gemm_desc_read(tp_gemm_desc *copy, const tp_gemm_desc *desc) {
  if (desc == NULL)
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "the GEMM descriptor is NULL");
  uint32_t size;
  memcpy(&size, desc, sizeof size);
  if (size == 0) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT, "tp_gemm_desc.struct_size is 0: initialise the "
                        "descriptor with tp_gemm_desc_init");
  }
  if (size < TP_GEMM_DESC_FIRST_SIZE) {
    return tp_error_set(TP_ERR_INVALID_ARGUMENT,
                        "tp_gemm_desc.struct_size %u is smaller than its first version (%zu "
                        "bytes): initialise the descriptor with tp_gemm_desc_init",
                        size, (size_t)TP_GEMM_DESC_FIRST_SIZE);
  }
  memset(copy, 0, sizeof *copy);
  memcpy(copy, desc, size < sizeof *copy ? size : sizeof *copy);
  copy->struct_size = (uint32_t)sizeof *copy;
  return TP_OK;
}
