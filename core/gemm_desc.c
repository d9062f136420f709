/* core/gemm_desc.c: the GEMM descriptor's initializer.
 *
 * Zeroing leaves every tensor absent (TP_DTYPE_NONE, strided, no data), so a
 * caller fills in only what its GEMM has. */
#include <string.h>

#include "tilepipe/gemm.h"

void tp_gemm_desc_init(tp_gemm_desc *desc, int64_t m, int64_t n, int64_t k) {
  if (desc == NULL)
    return;
  memset(desc, 0, sizeof *desc);
  desc->m = m;
  desc->n = n;
  desc->k = k;
  desc->alpha = 1.0f;
  desc->beta = 0.0f;
}
