/* tools/timing.h: the median time of repeated runs of one piece of work,
 * taken with the host's monotonic clock (CPU backend) or with CUDA events
 * on the default stream (GPU).
 *
 * On the GPU each timed run has its own pair of events and all runs are
 * queued back to back before the first is read, so the host's launch
 * overhead overlaps the previous run instead of being timed; the warm-up
 * runs go first and fill the queue. The median, not the mean, so that one
 * slow run (a clock ramp, a context switch) does not move the result. */
#ifndef TP_TOOLS_TIMING_H
#define TP_TOOLS_TIMING_H

#include <stddef.h>
#include "tilepipe/status.h"

/* One run of the work; `iteration` counts from 0 over warm-up and timed
 * runs, and over the sides of tp_time_medians_interleaved (the benchmark
 * picks its rotated buffers by it). On failure it writes the reason into
 * err. */
typedef tp_status (*tp_timed_fn)(void *ctx, int iteration, char *err, size_t errlen);

/* One of several pieces of work timed against each other. */
typedef struct tp_timed_side {
  tp_timed_fn fn;
  void *ctx;
} tp_timed_side;

/* Runs fn `warmup` times untimed, then `iters` (>= 1) timed times; stores
 * the median in milliseconds. on_gpu selects CUDA events (the work must be
 * queued on the default stream). */
tp_status tp_time_median(int on_gpu, int warmup, int iters, tp_timed_fn fn, void *ctx,
                         double *median_ms, char *err, size_t errlen);

/* Times n (>= 1) sides against each other on the GPU: warm-up rounds, then
 * `iters` rounds, each running every side in turn, `chain` (>= 1) runs of
 * it in a row between one pair of events; median_ms[s] is side s's median
 * time per run. A chain of one times each run alone; longer chains time
 * runs that follow their own kind on the stream, as a model's layers do,
 * where a run's start may overlap the end of the one before it
 * (programmatic dependent launch) and no event stands between them.
 * Interleaving, rather than timing one side after the other, gives every
 * side the same clocks and the same heat, which sides timed in turn do not
 * share. The order changes from round to round so that every side follows
 * every other equally often (over 2n rounds). The run numbers go on in the
 * order of the runs, so that sides reading inputs by run number never read
 * what the run before them has just left in L2. */
tp_status tp_time_medians_interleaved(int n, int warmup, int iters, int chain,
                                      const tp_timed_side *sides, double *median_ms, char *err,
                                      size_t errlen);

/* The side (0..n-1) that runs at position j (0..n-1) of round `round` of
 * tp_time_medians_interleaved, warm-up rounds counted: a Williams design,
 * so that over 2n rounds every side runs right after every other side,
 * inside a round, equally often (twice), and none always follows the same
 * kernel and meets what that kernel left in L2 (a kernel that ends on the
 * part of B the next one starts on gives it a warm start). */
int tp_time_side_at(int n, int round, int j);

/* For timed work (or its setup) whose tilepipe call failed with st: writes
 * "what: <the library's message>" into err and returns st. */
tp_status tp_time_failed(const char *what, tp_status st, char *err, size_t errlen);

/* The host's monotonic clock, in milliseconds. */
double tp_time_now_ms(void);

/* The median of n (>= 1) values; reorders v. */
double tp_median(double *v, size_t n);

#endif
