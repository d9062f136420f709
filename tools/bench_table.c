/* tools/bench_table.c: see bench_table.h. */
#include <math.h>
#include <string.h>

#include "tools/bench_table.h"

/* The width of versus side v's ms column: its header, "P ms", fits. */
static int versus_width(const tp_bench_meta *meta, int v) {
  const int w = (int)strlen(meta->versus[v].payload) + 3;
  return w > 10 ? w : 10;
}

void tp_bench_table_header(FILE *f, const tp_bench_meta *meta, tp_bench_columns c) {
  fprintf(f, "%6s %6s %6s %3s %10s %8s %10s %8s %6s", "M", "N", "K", "cp", "ours ms", "TFLOP/s",
          "cuBLAS ms", "TFLOP/s", "ratio");
  for (int v = 0; v < meta->versus_count; v++) {
    char head[160];
    snprintf(head, sizeof head, "%s ms", meta->versus[v].payload);
    fprintf(f, " %*s %7s", versus_width(meta, v), head, "speed x");
  }
  if (c.dequant) fprintf(f, " %10s %7s", "deq+LT ms", "speed x");
  if (c.store) fprintf(f, " %10s %7s", "store ms", "over");
  if (c.accuracy) fprintf(f, " %9s %10s %5s", "ours err", "cuBLAS err", "err x");
  if (c.floor) fprintf(f, " %9s %7s %6s %7s", "floor ms", "bound", "ours", "cuBLAS");
  fprintf(f, " %8s %7s  %s\n", "plan ms", "host us", "check");
}

void tp_bench_table_row(FILE *f, const tp_bench_meta *meta, const tp_bench_row *r,
                        tp_bench_columns c) {
  fprintf(f, "%6lld %6lld %6lld %3d %10.4f %8.1f %10.4f %8.1f %6.3f", (long long)r->shape.m,
          (long long)r->shape.n, (long long)r->shape.k, r->copies, r->ours_ms, r->ours_tflops,
          r->lt_ms, r->lt_tflops, r->ratio);
  for (int v = 0; v < meta->versus_count; v++)
    fprintf(f, " %*.4f %7.3f", versus_width(meta, v), r->versus[v].ms, r->versus[v].speed);
  if (c.dequant) fprintf(f, " %10.4f %7.3f", r->deq_ms, r->deq_speed);
  if (c.store) fprintf(f, " %10.4f %+6.1f%%", r->store_ms, 100.0 * r->overhead);
  if (c.accuracy)
    fprintf(f, " %9.2e %10.2e %5.2f", r->err_ours, r->err_lt, r->err_ours / r->err_lt);
  if (c.floor)
    fprintf(f, " %9.4f %7s %5.0f%% %6.0f%%", r->roofline.floor_ms, tp_bench_bound(r),
            100.0 * r->roofline.floor_ms / r->ours_ms, 100.0 * r->roofline.floor_ms / r->lt_ms);
  fprintf(f, " %8.1f %7.1f  %s", r->plan_ms, r->host_us, r->check);
  if (!isnan(r->rel_diff)) fprintf(f, " (rel %.2g, bound %.2g)", r->rel_diff, r->rel_bound);
  for (int v = 0; v < meta->versus_count; v++) {
    const tp_bench_versus_row *x = &r->versus[v];
    if (strcmp(x->check, "ok") == 0) continue;
    fprintf(f, "; versus %s %s", meta->versus[v].payload, x->check);
    if (!isnan(x->rel_diff)) fprintf(f, " (rel %.2g, bound %.2g)", x->rel_diff, r->rel_bound);
  }
  fputc('\n', f);
  if (r->note[0]) fprintf(f, "       note: %s\n", r->note);
  for (int v = 0; v < meta->versus_count; v++)
    if (r->versus[v].note[0])
      fprintf(f, "       note: versus %s: %s\n", meta->versus[v].payload, r->versus[v].note);
  fflush(f);
}
