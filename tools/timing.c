/* tools/timing.c: see timing.h. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tilepipe/device.h"
#include "tools/timing.h"

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double tp_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double tp_time_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

tp_status tp_time_failed(const char *what, tp_status st, char *err, size_t errlen) {
  snprintf(err, errlen, "%s: %s", what, tp_error_message());
  return st;
}

static tp_status time_on_host(int warmup, int iters, tp_timed_fn fn, void *ctx, double *ms,
                              char *err, size_t errlen) {
  tp_status st = TP_OK;
  for (int i = 0; i < warmup + iters && st == TP_OK; i++) {
    const double t0 = tp_time_now_ms();
    st = fn(ctx, i, err, errlen);
    if (i >= warmup) ms[i - warmup] = tp_time_now_ms() - t0;
  }
  return st;
}

/* Row t < n of the design is 0, 1, n-1, 2, n-2, ... turned by t; rows
 * n..2n-1 are the same rows backwards. */
int tp_time_side_at(int n, int round, int j) {
  const int t = round % (2 * n);
  const int p = t < n ? j : n - 1 - j;
  const int w = p % 2 ? (p + 1) / 2 : (n - p / 2) % n;
  return (w + t) % n;
}

/* Runs sides[0..n) in turn, `chain` runs of a side at a time, each chain
 * timed with its own event pair: ms[s * iters + i] is round i of side s,
 * per run. */
static tp_status time_on_gpu(int n, int warmup, int iters, int chain, const tp_timed_side *sides,
                             double *ms, char *err, size_t errlen) {
  const size_t runs = (size_t)n * (size_t)iters;
  tp_device_timer **timers = calloc(runs, sizeof *timers);
  if (timers == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_status st = TP_OK;
  for (size_t r = 0; r < runs && st == TP_OK; r++)
    if ((st = tp_device_timer_create(&timers[r])) != TP_OK)
      tp_time_failed("timer", st, err, errlen);
  /* Runs are numbered in the order they run, so a side that picks its
   * inputs by run number never gets the ones the run before it has just
   * pulled into L2. */
  int run = 0;
  for (int i = 0; i < warmup && st == TP_OK; i++)
    for (int j = 0; j < n && st == TP_OK; j++) {
      const int s = tp_time_side_at(n, i, j);
      for (int c = 0; c < chain && st == TP_OK; c++)
        st = sides[s].fn(sides[s].ctx, run++, err, errlen);
    }
  for (int i = 0; i < iters && st == TP_OK; i++) {
    for (int j = 0; j < n && st == TP_OK; j++) {
      const int s = tp_time_side_at(n, warmup + i, j);
      tp_device_timer *t = timers[(size_t)s * (size_t)iters + (size_t)i];
      if ((st = tp_device_timer_record(t, TP_TIMER_START, NULL)) != TP_OK) {
        tp_time_failed("timer start", st, err, errlen);
        break;
      }
      for (int c = 0; c < chain && st == TP_OK; c++)
        st = sides[s].fn(sides[s].ctx, run++, err, errlen);
      if (st != TP_OK) break;
      if ((st = tp_device_timer_record(t, TP_TIMER_STOP, NULL)) != TP_OK)
        tp_time_failed("timer stop", st, err, errlen);
    }
  }
  for (size_t r = 0; r < runs && st == TP_OK; r++) {
    float t = 0.0f;
    if ((st = tp_device_timer_elapsed_ms(timers[r], &t)) != TP_OK)
      tp_time_failed("timer", st, err, errlen);
    ms[r] = t / chain;
  }
  for (size_t r = 0; r < runs; r++) tp_device_timer_destroy(timers[r]);
  free(timers);
  return st;
}

static tp_status check_counts(int n, int warmup, int iters, int chain, char *err,
                              size_t errlen) {
  if (n >= 1 && iters >= 1 && warmup >= 0 && chain >= 1) return TP_OK;
  snprintf(err, errlen,
           "need at least one side, one timed run and chains of one run or more (got %d sides, "
           "%d runs, warm-up %d, chains of %d)",
           n, iters, warmup, chain);
  return TP_ERR_INVALID_ARGUMENT;
}

tp_status tp_time_medians_interleaved(int n, int warmup, int iters, int chain,
                                      const tp_timed_side *sides, double *median_ms, char *err,
                                      size_t errlen) {
  tp_status st = check_counts(n, warmup, iters, chain, err, errlen);
  if (st != TP_OK) return st;
  for (int s = 0; s < n; s++) median_ms[s] = 0.0;
  double *ms = calloc((size_t)n * (size_t)iters, sizeof *ms);
  if (ms == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  st = time_on_gpu(n, warmup, iters, chain, sides, ms, err, errlen);
  for (int s = 0; s < n && st == TP_OK; s++)
    median_ms[s] = tp_median(ms + (size_t)s * (size_t)iters, (size_t)iters);
  free(ms);
  return st;
}

tp_status tp_time_median(int on_gpu, int warmup, int iters, tp_timed_fn fn, void *ctx,
                         double *median_ms, char *err, size_t errlen) {
  *median_ms = 0.0;
  if (on_gpu) {
    const tp_timed_side side = {fn, ctx};
    return tp_time_medians_interleaved(1, warmup, iters, 1, &side, median_ms, err, errlen);
  }
  tp_status st = check_counts(1, warmup, iters, 1, err, errlen);
  if (st != TP_OK) return st;
  double *ms = calloc((size_t)iters, sizeof *ms);
  if (ms == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  st = time_on_host(warmup, iters, fn, ctx, ms, err, errlen);
  if (st == TP_OK) *median_ms = tp_median(ms, (size_t)iters);
  free(ms);
  return st;
}
