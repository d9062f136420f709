/* tools/bench_table.h: `tilepipe bench`'s table on stdout, a header and a
 * row per shape.
 *
 * The first nine columns are fixed, whatever the run: M N K, the rotated
 * copies, our ms and TFLOP/s, cuBLASLt's ms and TFLOP/s, the ratio
 * (bench/ab.sh, bench/tune.sh and bench/gpu-session.sh read them by
 * position). Then two columns per versus side, in the order given (its ms,
 * its speed x = its ms / ours), so versus side i's ms is column 10 + 2 i
 * (from 0); then the optional columns (the residual's store time and
 * overhead, a scaled problem's sampled errors, the roofline's floor), plan
 * ms, host us, and the check: the row's word, cuBLASLt's distance, and each
 * versus side that is not "ok" named with its check. Under a row, a note
 * line for the row's note and one per versus side that has one. A value
 * not measured prints as "nan". */
#ifndef TP_TOOLS_BENCH_TABLE_H
#define TP_TOOLS_BENCH_TABLE_H

#include <stdio.h>
#include "tools/bench_report.h"

/* The optional columns. */
typedef struct tp_bench_columns {
  int store;    /* the residual's: our store's time, the overhead */
  int floor;    /* the roofline's: the floor, its bound, each side's share */
  int accuracy; /* a problem with scale tensors: each side's sampled error, their ratio */
  int dequant;  /* one cuBLASLt cannot run as it is: the dequantization + cuBLASLt's time,
                   its speed over ours */
} tp_bench_columns;

void tp_bench_table_header(FILE *f, const tp_bench_meta *meta, tp_bench_columns c);

/* Row r and its note lines; flushes f. */
void tp_bench_table_row(FILE *f, const tp_bench_meta *meta, const tp_bench_row *r,
                        tp_bench_columns c);

#endif
