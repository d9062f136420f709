/* tools/reference/compare.h: judging a computed D against the f64 reference.
 *
 * Two tests, both derived from unit roundoffs, so they hold for any correct
 * summation order and fail on any real defect:
 *
 * Per element (every element, NaN fails):
 *   |D - ref| <= u_out * |ref| + (1 + u_out) * g * mag + eta_out
 *   where g = (K + 16) * u_acc bounds the f32 accumulation (the classic
 *   gamma_n bound for a sum of K products, plus the few roundings of scales,
 *   alpha and beta*C), mag is naive_gemm's sum of magnitudes, u_out the unit
 *   roundoff of D's dtype (output rounding dominates for bf16/f16) and eta_out
 *   half D's smallest subnormal (the absolute floor of rounding near 0).
 *
 * Normwise: rel = ||D - ref||_2 / ||ref||_2 <= u_out + (4 sqrt(K) + 16) * u_acc.
 *   A sum of K random-sign terms accumulates about 0.4 sqrt(K) u_acc of
 *   relative error; the bound leaves a factor of 10. For K = 300 this is
 *   3.9e-3 (bf16 D), 4.9e-4 (f16 D), 5e-6 (f32 D). An indexing or scaling
 *   bug costs O(1).
 *
 * u_acc is 2^-24 (f32) wherever products are accumulated in f32: the CPU
 * backend for every payload. On the GPU it is the payload's word
 * (tp_problem.acc_bits, tilepipe/problem.h): f32 for 16-bit operands, and
 * for integer products, summed exactly (s32 in wgmma), whose only
 * roundings are f32 ones (the conversion, the scales, the partial sums);
 * Hopper's fp8 wgmma keeps only about 14 bits of its running sum
 * (DeepSeek-V3 report, see docs/payloads.md), so fp8/fp4 payloads say 14
 * there. tp_ref_acc_bits picks. */
#ifndef TP_TOOLS_REFERENCE_COMPARE_H
#define TP_TOOLS_REFERENCE_COMPARE_H

#include <stdint.h>
#include "tilepipe/plan.h"
#include "tilepipe/problem.h"
#include "tilepipe/tensor.h"

typedef struct tp_ref_tolerance {
  double u_out, eta_out; /* D's unit roundoff and subnormal floor */
  double u_acc;          /* the accumulation's unit roundoff */
  double g;              /* (K + 16) * u_acc */
  double rel;            /* the normwise bound */
} tp_ref_tolerance;

/* Significand bits of the running sum: the problem's acc_bits on the CUDA
 * backend, 24 (f32) on the CPU. */
int tp_ref_acc_bits(const tp_problem *problem, tp_backend backend);

tp_ref_tolerance tp_ref_tolerance_for(tp_dtype d, int64_t k, int acc_bits);

typedef struct tp_ref_report {
  double max_abs;          /* max |D - ref| (inf when some element is NaN) */
  double rel;              /* ||D - ref|| / ||ref|| (||D - ref|| if ref is 0) */
  int64_t bad;             /* elements outside their bound */
  int64_t bad_row, bad_col;/* the first of them, -1 if none */
  double bad_value, bad_ref;
  int pass;                /* bad == 0 && rel <= tol.rel */
} tp_ref_report;

/* Compares D (m x n, host memory, any of bf16/f16/f32) with ref and mag
 * (row-major m x n, from tp_ref_gemm). */
void tp_ref_compare(const tp_tensor *d, int64_t m, int64_t n, const double *ref, const double *mag,
                    const tp_ref_tolerance *tol, tp_ref_report *out);

#endif
