/* tools/bench_progress.h: `tilepipe bench`'s progress, on stderr, so that
 * a long sweep never sits silent while the table (stdout) waits for a
 * shape's row.
 *
 * A line when a shape enters a phase, saying which shape of how many, what
 * runs, and how long the shape and the whole run have taken so far:
 *
 *  [3/9] 64x4096x7168  timing ours, cuBLASLt  1.0 s (run 1:05)
 *
 * and one when it is done, with its check and each phase's seconds:
 *
 *  [3/9] 64x4096x7168  ok in 1.2 s: inputs 0.01, plan/link 0.90, timing 0.20, check 0.05 (run 1:06)
 *
 * On a terminal (`live`) a shape's lines overwrite each other in place
 * ("\r", then "\033[K" to clear the rest) and only its last one stays; in
 * a log or a pipe each is a line of its own. Lines start with '[', never
 * with the digits of a table row, so scripts reading rows out of stdout
 * and stderr together (bench/tune.sh) do not take one for a row. A phase
 * entered again (plan/link for our kernel, then for cuBLASLt) adds to its
 * time. */
#ifndef TP_TOOLS_BENCH_PROGRESS_H
#define TP_TOOLS_BENCH_PROGRESS_H

#include <stddef.h>
#include <stdio.h>
#include "tools/shapes.h"

typedef enum tp_bench_phase {
  TP_BENCH_INPUTS = 0, /* the random problem on the device, rotated copies */
  TP_BENCH_PLAN,       /* plan creation (a link on a cold cache), cuBLASLt's heuristic */
  TP_BENCH_TIMING,     /* the timed rounds, the host overhead */
  TP_BENCH_CHECK,      /* the outputs copied back and compared */
  TP_BENCH_PHASES
} tp_bench_phase;

typedef struct tp_bench_progress {
  FILE *out;              /* NULL: no progress */
  int live;               /* rewrite the shape's line in place */
  double (*now_ms)(void); /* the clock: tp_time_now_ms (tests pass their own) */
  size_t count;           /* shapes in the run */
  double run_start_ms;
  size_t index;           /* the current shape, from 0 */
  tp_shape shape;
  double shape_start_ms, phase_start_ms;
  int phase;              /* a tp_bench_phase; -1 before the shape's first */
  double phase_ms[TP_BENCH_PHASES];
} tp_bench_progress;

/* Starts the run's clock. */
void tp_bench_progress_start(tp_bench_progress *p, FILE *out, int live, double (*now_ms)(void),
                             size_t count);

/* Starts shape `index` (from 0). */
void tp_bench_progress_shape(tp_bench_progress *p, size_t index, tp_shape shape);

/* The shape enters `phase`; `what` (NULL: nothing) says what runs. A NULL
 * p is a no-op. */
void tp_bench_progress_phase(tp_bench_progress *p, tp_bench_phase phase, const char *what);

/* The shape is done; `check` is its row's check. */
void tp_bench_progress_done(tp_bench_progress *p, const char *check);

#endif
