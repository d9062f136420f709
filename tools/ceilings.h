/* tools/ceilings.h: the two ceilings of a roofline (tools/roofline.h),
 * measured on the device by the process that benchmarks, so that a shape's
 * floor and its times come from the same clocks.
 *
 * Memory: a copy of 1 GiB within the device (twenty times the H100's L2),
 * counted as the bytes read plus the bytes written, the median of its runs.
 * Arithmetic: cuBLASLt's median rate on an 8192^3 GEMM of the benchmark's
 * A/B and D dtypes (the largest of the public shapes, where it runs closest
 * to the chip's rate), its A and B a block of random rows repeated down the
 * matrix: never zeros, which run faster than data. These are measured
 * rates, not the datasheet's: a kernel may beat them by a little. */
#ifndef TP_TOOLS_CEILINGS_H
#define TP_TOOLS_CEILINGS_H

#include <stddef.h>
#include "tilepipe/dtype.h"
#include "tilepipe/status.h"
#include "tools/cublaslt.h"
#include "tools/roofline.h"

/* The memory ceiling's copy, in MiB; the arithmetic ceiling's problem,
 * M = N = K = TP_CEILING_GEMM_SIZE. */
enum { TP_CEILING_COPY_MIB = 1024, TP_CEILING_GEMM_SIZE = 8192 };

/* What the arithmetic ceiling runs on: cuBLASLt (NULL: not measured, its
 * ceiling NaN) with its workspace, and the benchmark's dtypes. */
typedef struct tp_ceiling_gemm {
  tp_cublaslt *lt;
  void *workspace;
  size_t workspace_bytes;
  tp_dtype ab, d;
} tp_ceiling_gemm;

/* Measures both ceilings into *out. On failure (the reason in err) the
 * ceilings not measured are NaN; the memory one is measured first. */
tp_status tp_ceilings_measure(const tp_ceiling_gemm *gemm, tp_ceilings *out, char *err,
                              size_t errlen);

#endif
