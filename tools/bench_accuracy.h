/* tools/bench_accuracy.h: the accuracy check of a problem with scale
 * tensors in `tilepipe bench`: our D and cuBLASLt's against the f64
 * reference on a sample of D (tools/sample.h), from the device
 * inputs, the scales read by their payload's maps (tilepipe/problem.h).
 *
 * The sample is a grid of up to TP_BENCH_SAMPLE_ROWS rows x
 * TP_BENCH_SAMPLE_COLS columns of D (all of a smaller D, the last row and
 * column always), drawn from the shape's seed. The host mirrors the device
 * problem's layout in zeroed buffers of the same size, into which only the
 * sampled rows of A, B and C are copied back, and the scale tensors
 * whole: tp_ref_gemm_at reads nothing else, and the pages of rows never
 * copied are never touched. The reference costs rows x cols x K
 * multiply-adds in f64 (0.27 G at K = 16384, a fraction of a second).
 *
 * Our error passes when it is within the payload's normwise bound
 * (tp_ref_tolerance, tilepipe/reference.h, with the problem's acc_bits:
 * 14 for the fp8 accumulator of Hopper's wgmma) and no larger than 1.25
 * times cuBLASLt's on the same sample, or below the floor where both are
 * rounding noise (tp_sample_error_within), each test allowing on top the
 * normwise share of the operands' rounding that the payload describes for
 * its GPU route (the GPU model's r_rel times tp_ref_rounding_at's spread
 * over the sample, ||spread|| / ||ref||; 0 for a route that takes them
 * exactly). */
#ifndef TP_TOOLS_BENCH_ACCURACY_H
#define TP_TOOLS_BENCH_ACCURACY_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/gemm.h"
#include "tilepipe/problem.h"
#include "tilepipe/status.h"
#include "tools/bench_report.h"

enum { TP_BENCH_SAMPLE_ROWS = 128, TP_BENCH_SAMPLE_COLS = 128 };

/* Sets row->err_ours, err_lt (NaN when d_theirs is NULL: no comparator),
 * err_bound and err_samples, and *passes (tp_sample_error_within). desc: the
 * problem in device memory, its C read when `residual`, its scales meaning
 * what `problem` says; d_ours, d_theirs:
 * host copies of the two Ds, laid out as desc->d. Fails (reason in err) on
 * a failed copy or out of host memory. */
tp_status tp_bench_accuracy(const tp_gemm_desc *desc, const tp_problem *problem, int residual,
                            const void *d_ours, const void *d_theirs, uint64_t seed,
                            tp_bench_row *row, int *passes, char *err, size_t errlen);

#endif
