/* plugins/standard/device/standard_params.h: the standard kernels' one
 * parameter and the operand pairs they exist for.
 *
 * Built by the plugin's host code (gpu.c, C11) and read by the kernels
 * (standard_mainloop.cu) as a __grid_constant__: plain data, TMA
 * descriptors first (64-byte aligned). */
#ifndef TP_STANDARD_PARAMS_H
#define TP_STANDARD_PARAMS_H

#include "tilepipe/plugin/kernel/params.h"

typedef struct tp_standard_params {
  tp_kernel_operands ab; /* A and B, K-major, 128 bytes of K per k-block */
  tp_kernel_params kernel;
} tp_standard_params;

/* X(NAME, A, B): the A x B dtype pairs with a kernel, NAME their part of
 * the kernel name (tp_standard_<NAME>_...). fp8 pairs with fp8 only:
 * Hopper's wgmma takes no mixed 8/16-bit operands. */
#define TP_STANDARD_OPERANDS(X)                    \
  X(bf16, TP_DTYPE_BF16, TP_DTYPE_BF16)            \
  X(f16, TP_DTYPE_F16, TP_DTYPE_F16)               \
  X(e4m3_e4m3, TP_DTYPE_E4M3, TP_DTYPE_E4M3)       \
  X(e4m3_e5m2, TP_DTYPE_E4M3, TP_DTYPE_E5M2)       \
  X(e5m2_e4m3, TP_DTYPE_E5M2, TP_DTYPE_E4M3)       \
  X(e5m2_e5m2, TP_DTYPE_E5M2, TP_DTYPE_E5M2)

#endif
