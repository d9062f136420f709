/* tools/bench_report.h: the benchmark's results and their CSV and JSON
 * files. Every file carries what bench/results/ needs to place a number:
 * GPU, driver, cuBLASLt version, tilepipe commit and date, with the run's
 * settings; one record per shape. A value that was not measured (NaN) is
 * an empty CSV field and a JSON null. With the ceilings measured, each
 * record also carries its floor (tools/roofline.h), what bounds it, and
 * the floor as a share of each side's time (1 = at the floor). Rows of a
 * problem with scale tensors carry each side's error against the f64
 * reference on a sample of D (tools/bench_accuracy.h), their ratio and the
 * payload's bound. With --versus, every record also carries each versus side (another
 * payload section of the registry timed in the same rounds): its time, its
 * speed against ours (its time over ours: above 1, ours is faster), how far
 * its D is from ours and its check. The same results can also be drawn
 * (tools/bench_svg.h). */
#ifndef TP_TOOLS_BENCH_REPORT_H
#define TP_TOOLS_BENCH_REPORT_H

#include <stddef.h>
#include "tilepipe/dtype.h"
#include "tilepipe/status.h"
#include "tools/roofline.h"
#include "tools/shapes.h"

/* The most versus sides one run times besides ours and cuBLASLt. */
enum { TP_BENCH_MAX_VERSUS = 4 };

/* A versus side of the run: the sections it plans with. */
typedef struct tp_bench_versus {
  const char *payload, *epilogue;
  double geomean_speed;     /* over the rows where both sides were timed; NaN: none */
} tp_bench_versus;

typedef struct tp_bench_meta {
  const char *gpu;
  int driver_version;       /* 13000 = CUDA 13.0 */
  size_t cublaslt_version;  /* 0: cuBLASLt was not available */
  const char *commit;       /* $TILEPIPE_COMMIT, or "unknown" */
  char date[32];            /* UTC, ISO 8601 */
  const char *payload, *epilogue;
  tp_dtype dtype, out_dtype;
  int warmup, iters;
  int back_to_back;         /* runs of a side timed in a row per pair of events */
  double geomean_ratio;     /* NaN when no ratio was measured */
  tp_ceilings ceilings;     /* measured in the same run (tools/ceilings.h); NaN when not */
  int versus_count;         /* 0 .. TP_BENCH_MAX_VERSUS */
  tp_bench_versus versus[TP_BENCH_MAX_VERSUS];
} tp_bench_meta;

/* One versus side on one shape. */
typedef struct tp_bench_versus_row {
  double ms;                /* its median; NaN when not measured */
  double speed;             /* ms / the row's ours_ms: above 1, ours is faster */
  double rel_diff;          /* ||D_versus - D_ours|| / ||D_ours||, judged against the
                               row's rel_bound; NaN: not compared */
  const char *check;        /* "ok", "MISMATCH", "not compared" */
  char note[256];           /* why it was not compared */
} tp_bench_versus_row;

typedef struct tp_bench_row {
  tp_shape shape;
  int copies;                         /* rotated copies of A and B */
  double ours_ms, ours_tflops;        /* NaN when not measured */
  double lt_ms, lt_tflops, ratio;     /* ratio = ours_tflops / lt_tflops; for a problem
                                         cuBLASLt cannot run as it is, cuBLASLt bf16 on
                                         the operands dequantized once (not timed) */
  double deq_ms, deq_speed;           /* such a problem's other anchor: the dequantization
                                         and cuBLASLt bf16, both timed; deq_ms / ours_ms
                                         (NaN elsewhere) */
  double store_ms;                    /* our store epilogue on the same inputs (residual
                                         runs only; else NaN) */
  double overhead;                    /* ours_ms / store_ms - 1 */
  tp_roofline roofline;               /* the problem's floor under the run's ceilings
                                         (NaN times without them) */
  double rel_diff;                    /* ||D_ours - D_cublaslt|| / ||D_cublaslt|| */
  double rel_bound;                   /* what rel_diff (and each versus side's) is judged
                                         against */
  double err_ours, err_lt;            /* scaled problems: ||D - ref|| / ||ref|| of each side
                                         on the sampled elements (NaN: not measured) */
  double err_bound;                   /* the payload's normwise bound, err_ours's limit */
  int64_t err_samples;                /* elements of D sampled (0: none) */
  double plan_ms;                     /* tp_plan_create, wall clock (link or cache hit) */
  double host_us;                     /* host time of one tp_plan_run call (queueing only) */
  const char *check;                  /* "ok", "MISMATCH", "not compared", "error" */
  char plan[256];
  char note[256];                     /* why something is missing */
  tp_bench_versus_row versus[TP_BENCH_MAX_VERSUS]; /* the meta's versus sides, in order */
} tp_bench_row;

/* The current UTC time as "2025-01-31T12:00:00Z". */
void tp_bench_date(char *buf, size_t size);

/* "memory" or "compute": which of its two times sets the row's floor; ""
 * without ceilings. */
const char *tp_bench_bound(const tp_bench_row *row);

tp_status tp_bench_write_csv(const char *path, const tp_bench_meta *meta, const tp_bench_row *rows,
                             size_t count, char *err, size_t errlen);
tp_status tp_bench_write_json(const char *path, const tp_bench_meta *meta,
                              const tp_bench_row *rows, size_t count, char *err, size_t errlen);
/* The picture of tools/bench_svg.h. */
tp_status tp_bench_write_svg(const char *path, const tp_bench_meta *meta, const tp_bench_row *rows,
                             size_t count, char *err, size_t errlen);

#endif
