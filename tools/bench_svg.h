/* tools/bench_svg.h: `tilepipe bench --svg`: the run as one picture, an
 * SVG file any browser shows, written by the tool itself (plain text, no
 * library, no script).
 *
 * A title with the run's settings and where it ran (tools/bench_report.h's
 * meta), then one row per shape, in the run's order, with two panels:
 *   - the ratio tilepipe / cuBLASLt (its time over ours: above 1 we are
 *     faster), a bar against a dashed line at 1.0, green from 1.0, amber
 *     from 0.9, red below; a row whose check is not "ok" says so in red;
 *   - each side's time against the shape's roofline floor, as the floor
 *     over the time (1 = at the floor, the dashed line): tilepipe's bar
 *     above cuBLASLt's. Without floors (no --roofline) the panel says so.
 * Hovering a row shows its numbers (an SVG <title>), a scaled problem's
 * sampled errors among them. A value not measured draws no bar ("not
 * measured"). Every bar carries its row (data-row) and value (data-value),
 * and a row's group its sampled errors (data-tilepipe-err,
 * data-cublaslt-err) when measured, so the file can be read back by a test
 * or a script; the title gives the largest error ratio of the run. The
 * versus sides (--versus) are listed in the title with the geometric mean
 * of their speed x, each row's in its hover text and, where measured, in
 * its group (data-versus1-speed, ...). */
#ifndef TP_TOOLS_BENCH_SVG_H
#define TP_TOOLS_BENCH_SVG_H

#include <stddef.h>
#include <stdio.h>
#include "tools/bench_report.h"

void tp_bench_svg(FILE *f, const tp_bench_meta *meta, const tp_bench_row *rows, size_t count);

#endif
