/* tools/bench_progress.c: see bench_progress.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tools/bench_progress.h"

static const char *const phase_names[TP_BENCH_PHASES] = {"inputs", "plan/link", "timing", "check"};

void tp_bench_progress_start(tp_bench_progress *p, FILE *out, int live, double (*now_ms)(void),
                             size_t count) {
  memset(p, 0, sizeof *p);
  p->out = out;
  p->live = live;
  p->now_ms = now_ms;
  p->count = count;
  p->run_start_ms = now_ms();
  p->phase = -1;
}

void tp_bench_progress_shape(tp_bench_progress *p, size_t index, tp_shape shape) {
  p->index = index;
  p->shape = shape;
  p->shape_start_ms = p->phase_start_ms = p->now_ms();
  p->phase = -1;
  memset(p->phase_ms, 0, sizeof p->phase_ms);
}

/* One line, built up and written at once (stderr is unbuffered: pieces
 * would interleave with whatever else writes there). */
typedef struct line {
  char text[512];
  size_t used;
} line;

static void append(line *l, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf(l->text + l->used, sizeof l->text - l->used, fmt, ap);
  va_end(ap);
  if (n > 0)
    l->used += (size_t)n < sizeof l->text - l->used ? (size_t)n : sizeof l->text - 1 - l->used;
}

/* The current phase's time so far goes to its total; the time now. */
static double close_phase(tp_bench_progress *p) {
  const double now = p->now_ms();
  if (p->phase >= 0) p->phase_ms[p->phase] += now - p->phase_start_ms;
  p->phase_start_ms = now;
  return now;
}

/* "[ 3/49] 4096x7168x16384  " */
static void begin(const tp_bench_progress *p, line *l) {
  int digits = 1;
  for (size_t c = p->count; c >= 10; c /= 10) digits++;
  l->used = 0;
  append(l, "%s[%*zu/%zu] %lldx%lldx%lld  ", p->live ? "\r" : "", digits, p->index + 1, p->count,
         (long long)p->shape.m, (long long)p->shape.n, (long long)p->shape.k);
}

/* " (run 1:05)", the line's end, and out. A live line ends in a newline
 * only when it is the shape's last. */
static void end(const tp_bench_progress *p, line *l, double now, int last) {
  const long run_s = (long)((now - p->run_start_ms) * 1e-3);
  append(l, " (run %ld:%02ld)%s%s", run_s / 60, run_s % 60, p->live ? "\033[K" : "",
         !p->live || last ? "\n" : "");
  fputs(l->text, p->out);
  fflush(p->out);
}

void tp_bench_progress_phase(tp_bench_progress *p, tp_bench_phase phase, const char *what) {
  if (p == NULL || p->out == NULL) return;
  const double now = close_phase(p);
  p->phase = (int)phase;
  line l;
  begin(p, &l);
  append(&l, "%s%s%s  %.1f s", phase_names[phase], what ? " " : "", what ? what : "",
         (now - p->shape_start_ms) * 1e-3);
  end(p, &l, now, 0);
}

void tp_bench_progress_done(tp_bench_progress *p, const char *check) {
  if (p == NULL || p->out == NULL) return;
  const double now = close_phase(p);
  line l;
  begin(p, &l);
  append(&l, "%s in %.1f s:", check, (now - p->shape_start_ms) * 1e-3);
  for (int i = 0; i < TP_BENCH_PHASES; i++)
    append(&l, "%s %s %.2f", i ? "," : "", phase_names[i], p->phase_ms[i] * 1e-3);
  end(p, &l, now, 1);
}
