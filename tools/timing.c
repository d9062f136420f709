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

static tp_status device_failed(const char *what, tp_status st, char *err, size_t errlen) {
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

static tp_status time_on_gpu(int warmup, int iters, tp_timed_fn fn, void *ctx, double *ms,
                             char *err, size_t errlen) {
  tp_device_timer **timers = calloc((size_t)iters, sizeof *timers);
  if (timers == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_status st = TP_OK;
  for (int i = 0; i < iters && st == TP_OK; i++)
    if ((st = tp_device_timer_create(&timers[i])) != TP_OK)
      device_failed("timer", st, err, errlen);
  for (int i = 0; i < warmup && st == TP_OK; i++) st = fn(ctx, i, err, errlen);
  for (int i = 0; i < iters && st == TP_OK; i++) {
    if ((st = tp_device_timer_record(timers[i], TP_TIMER_START, NULL)) != TP_OK) {
      device_failed("timer start", st, err, errlen);
      break;
    }
    if ((st = fn(ctx, warmup + i, err, errlen)) != TP_OK) break;
    if ((st = tp_device_timer_record(timers[i], TP_TIMER_STOP, NULL)) != TP_OK)
      device_failed("timer stop", st, err, errlen);
  }
  for (int i = 0; i < iters && st == TP_OK; i++) {
    float t = 0.0f;
    if ((st = tp_device_timer_elapsed_ms(timers[i], &t)) != TP_OK)
      device_failed("timer", st, err, errlen);
    ms[i] = t;
  }
  for (int i = 0; i < iters; i++) tp_device_timer_destroy(timers[i]);
  free(timers);
  return st;
}

tp_status tp_time_median(int on_gpu, int warmup, int iters, tp_timed_fn fn, void *ctx,
                         double *median_ms, char *err, size_t errlen) {
  *median_ms = 0.0;
  if (iters < 1 || warmup < 0) {
    snprintf(err, errlen, "need at least one timed run (got %d, warm-up %d)", iters, warmup);
    return TP_ERR_INVALID_ARGUMENT;
  }
  double *ms = calloc((size_t)iters, sizeof *ms);
  if (ms == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  tp_status st = on_gpu ? time_on_gpu(warmup, iters, fn, ctx, ms, err, errlen)
                        : time_on_host(warmup, iters, fn, ctx, ms, err, errlen);
  if (st == TP_OK) *median_ms = tp_median(ms, (size_t)iters);
  free(ms);
  return st;
}
