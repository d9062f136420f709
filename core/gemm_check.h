/* core/gemm_check.h: the generic validation of a GEMM descriptor.
 *
 * What every payload and epilogue relies on, checked once by the core before
 * any plugin sees the descriptor: sizes, ranks, shapes against M/N/K, unit
 * inner strides, row strides, TMA's 16-byte row rule on the GPU, the bias's
 * shape ([N] or [1, N], contiguous), every strided tensor's span below 2^63
 * bytes (tp_tensor_span_bytes measures it), and at run time the data pointers
 * (present, aligned, D not overlapping the inputs, the bias included).
 * Payload-specific rules (dtypes, scale tensors) and which dtypes C and the
 * bias may have belong to the plugins. Both checks take the core's full-size
 * copies of the caller's descriptors (gemm_desc.h), never NULL. */
#ifndef TP_CORE_GEMM_CHECK_H
#define TP_CORE_GEMM_CHECK_H

#include "tilepipe/gemm.h"
#include "tilepipe/plan.h"

/* Plan time: everything but the data pointers. backend is CPU or CUDA. */
tp_status tp_gemm_check_desc(const tp_gemm_desc *desc, tp_backend backend);

/* Run time: desc describes the same problem as planned (only data pointers
 * may differ), and the pointers are usable. */
tp_status tp_gemm_check_run(const tp_gemm_desc *planned, const tp_gemm_desc *desc,
                            tp_backend backend);

#endif
