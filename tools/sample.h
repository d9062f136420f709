/* tools/sample.h: an output judged against the f64 reference on a sample
 * of its elements, for problems whose whole reference would take too long
 * (the benchmark's: 4096 x 7168 x 16384 is 4.8e11 multiply-adds, hours on
 * one core).
 *
 * The sample is a grid of up to max_rows rows and max_cols columns of D:
 * all of them where there are no more, else one drawn at random (from the
 * seed) in each of that many equal strata, except that the first stratum
 * gives its first row and the last its last (a single stratum its first),
 * so that every band of D is represented and the ragged edges, where
 * partial tiles lie, always are.
 * tp_ref_gemm_at (tilepipe/reference.h) computes the reference there from
 * just the sampled rows of A, B and C.
 *
 * An output's error on the sample is the normwise relative error
 * ||D - ref||_2 / ||ref||_2 over the sampled elements, an estimate of
 * tp_ref_compare's `rel` over the whole (a grid of 128 x 128 estimates it
 * to a few percent). Two outputs of one problem, ours and a comparator's,
 * are judged by tp_sample_error_within: ours must be within the normwise
 * bound of the reference (tp_ref_tolerance), and no larger than
 * TP_SAMPLE_ERROR_RATIO times the comparator's, unless it is below
 * tp_sample_error_floor: a quarter of D's unit roundoff, at least 2^-20.
 * Rounding into D alone costs each side about 0.4 of D's unit roundoff
 * (values of random significands), so below the floor both sides are at
 * rounding noise (an f32 D of a short K), where a few roundings more or
 * less move the error by more than 25% and tell nothing about either. */
#ifndef TP_TOOLS_SAMPLE_H
#define TP_TOOLS_SAMPLE_H

#include <stdint.h>
#include "tilepipe/reference.h"
#include "tilepipe/status.h"
#include "tilepipe/tensor.h"

/* How much larger than the comparator's our sampled error may be. */
#define TP_SAMPLE_ERROR_RATIO 1.25

typedef struct tp_sample {
  int64_t *rows, *cols; /* ascending, distinct: rows of D in [0, m), columns in [0, n) */
  int64_t nrows, ncols;
} tp_sample;

/* Picks the grid for an m x n output. TP_ERR_INVALID_ARGUMENT when a size
 * or a maximum is below 1, TP_ERR_OUT_OF_MEMORY; *s is empty then. */
tp_status tp_sample_pick(tp_sample *s, int64_t m, int64_t n, int64_t max_rows, int64_t max_cols,
                         uint64_t seed);

void tp_sample_free(tp_sample *s);

/* ||D - ref|| / ||ref|| over the sample (||D - ref|| when ref is all 0),
 * D in host memory laid out as d (only the sampled elements are read), ref
 * as tp_ref_gemm_at wrote it for the sample. INFINITY when a sampled
 * element of D is not finite (a poisoned, unwritten one is NaN). */
double tp_sample_error(const tp_tensor *d, const tp_sample *s, const double *ref);

/* ||x|| / ||ref|| over the sample (||x|| when ref is all 0), both as
 * tp_ref_gemm_at writes them for it: the normwise size of an error of
 * typical size x at each element. */
double tp_sample_norm_ratio(const tp_sample *s, const double *x, const double *ref);

/* Below this error two sides are not told apart. */
double tp_sample_error_floor(const tp_ref_tolerance *tol);

/* Whether our sampled error `ours` passes: ours <= tol->rel, and ours <=
 * max(TP_SAMPLE_ERROR_RATIO * theirs, tp_sample_error_floor(tol)).
 * `theirs` NaN means no comparator: the bound alone. A NaN `ours` fails. */
int tp_sample_error_within(double ours, double theirs, const tp_ref_tolerance *tol);

#endif
