/* tools/bench_svg.c: see bench_svg.h. */
#include <math.h>
#include <string.h>

#include "tools/bench_svg.h"

/* The layout, in pixels: labels right-aligned at LABEL_X, the check word
 * at CHECK_X, two panels PANEL_W wide from RATIO_X and FLOOR_X, rows
 * ROW_H high from TOP. */
enum { WIDTH = 1000, CHECK_X = 8, LABEL_X = 196, RATIO_X = 206, FLOOR_X = 610, PANEL_W = 330 };
enum { TOP = 104, ROW_H = 20 };

static const char style[] =
    "text{font-family:sans-serif;font-size:11px;fill:#222}"
    ".title{font-size:15px;font-weight:bold}.head{font-weight:bold}.na{fill:#888}"
    ".band{fill:#f3f3f3}.grid{stroke:#ddd}.one{stroke:#000;stroke-dasharray:4 3}"
    ".good{fill:#2e7d32}.fair{fill:#f9a825}.poor{fill:#c62828}.bad{fill:#c62828}"
    ".ours{fill:#1565c0}.cublas{fill:#9e9e9e}";

/* s with XML's five special characters escaped. */
static void put_text(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': fputs("&amp;", f); break;
    case '<': fputs("&lt;", f); break;
    case '>': fputs("&gt;", f); break;
    case '"': fputs("&quot;", f); break;
    case '\'': fputs("&apos;", f); break;
    default: fputc(*s, f);
    }
  }
}

static int measured(double v) { return isfinite(v) && v >= 0.0; }

/* An axis from 0 to a round number at or above `top`, in at most 8 steps. */
typedef struct axis {
  double max, step;
} axis;

static axis axis_to(double top) {
  static const double steps[] = {0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 1000};
  axis a = {top, steps[sizeof steps / sizeof steps[0] - 1]};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if (top / steps[i] <= 8.0) {
      a.step = steps[i];
      break;
    }
  a.max = ceil(top / a.step - 1e-9) * a.step;
  return a;
}

/* Grid lines and tick labels (above the rows and below), the dashed 1.0. */
static void draw_axis(FILE *f, double x0, axis a, double bottom) {
  for (int i = 0; i * a.step <= a.max + 1e-9; i++) {
    const double v = i * a.step, x = x0 + PANEL_W * v / a.max;
    fprintf(f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, TOP - 4,
            x, bottom);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", x, TOP - 8, v);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x, bottom + 14, v);
  }
  const double one = x0 + PANEL_W / a.max;
  fprintf(f, "<line class=\"one\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\"/>\n", one, TOP - 4,
          one, bottom);
}

static void bar(FILE *f, const char *cls, size_t row, double value, double x0, axis a, double y,
                double h) {
  fprintf(f,
          "<rect class=\"%s\" data-row=\"%zu\" data-value=\"%.6g\" x=\"%d\" y=\"%.1f\" "
          "width=\"%.2f\" height=\"%.1f\"/>\n",
          cls, row, value, (int)x0, y, PANEL_W * fmin(value, a.max) / a.max, h);
}

/* "1.234 ms" or "not measured". */
static const char *ms_text(char *buf, size_t size, double ms) {
  if (measured(ms))
    snprintf(buf, size, "%.4g ms", ms);
  else
    snprintf(buf, size, "not measured");
  return buf;
}

/* The row's numbers, for hovering. */
static void row_title(FILE *f, const tp_bench_meta *m, const tp_bench_row *r) {
  char ours[32], lt[32];
  fprintf(f, "<title>%lld x %lld x %lld: tilepipe %s, cuBLASLt %s", (long long)r->shape.m,
          (long long)r->shape.n, (long long)r->shape.k, ms_text(ours, sizeof ours, r->ours_ms),
          ms_text(lt, sizeof lt, r->lt_ms));
  if (measured(r->ratio)) fprintf(f, ", ratio %.3f", r->ratio);
  if (measured(r->roofline.floor_ms)) {
    fprintf(f, "; floor %.4g ms (%s)", r->roofline.floor_ms, tp_bench_bound(r));
    if (measured(r->ours_ms))
      fprintf(f, ", %.0f%% of tilepipe's time", 100.0 * r->roofline.floor_ms / r->ours_ms);
    if (measured(r->lt_ms))
      fprintf(f, ", %.0f%% of cuBLASLt's", 100.0 * r->roofline.floor_ms / r->lt_ms);
  }
  if (r->err_samples > 0) {
    fprintf(f, "; error on %lld sampled elements: tilepipe %.3g, cuBLASLt ",
            (long long)r->err_samples, r->err_ours);
    if (isnan(r->err_lt))
      fputs("not measured", f);
    else
      fprintf(f, "%.3g (%.2fx)", r->err_lt, r->err_ours / r->err_lt);
    fprintf(f, ", bound %.3g", r->err_bound);
  }
  for (int v = 0; v < m->versus_count; v++) {
    char ms[32];
    fputs("; versus ", f);
    put_text(f, m->versus[v].payload);
    fprintf(f, " %s", ms_text(ms, sizeof ms, r->versus[v].ms));
    if (measured(r->versus[v].speed)) fprintf(f, " (speed x %.3f)", r->versus[v].speed);
    fprintf(f, ", %s", r->versus[v].check);
  }
  fputs("; check ", f);
  put_text(f, r->check);
  if (r->plan[0]) {
    fputs("; plan ", f);
    put_text(f, r->plan);
  }
  if (r->note[0]) {
    fputs("; note: ", f);
    put_text(f, r->note);
  }
  fputs("</title>\n", f);
}

static void draw_row(FILE *f, const tp_bench_meta *m, const tp_bench_row *r, size_t i,
                     axis ratio, axis share, int with_floor) {
  const double y = TOP + (double)i * ROW_H;
  fprintf(f, "<g class=\"row\" data-row=\"%zu\"", i);
  if (measured(r->err_ours)) fprintf(f, " data-tilepipe-err=\"%.6g\"", r->err_ours);
  if (measured(r->err_lt)) fprintf(f, " data-cublaslt-err=\"%.6g\"", r->err_lt);
  for (int v = 0; v < m->versus_count; v++)
    if (measured(r->versus[v].speed))
      fprintf(f, " data-versus%d-speed=\"%.6g\"", v + 1, r->versus[v].speed);
  fputs(">\n", f);
  row_title(f, m, r);
  fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%lldx%lldx%lld</text>\n", LABEL_X,
          y + 14, (long long)r->shape.m, (long long)r->shape.n, (long long)r->shape.k);
  if (strcmp(r->check, "ok") != 0) {
    const int bad = strcmp(r->check, "MISMATCH") == 0 || strcmp(r->check, "error") == 0;
    fprintf(f, "<text class=\"%s\" x=\"%d\" y=\"%.1f\">", bad ? "bad" : "na", CHECK_X, y + 14);
    put_text(f, r->check);
    fputs("</text>\n", f);
  }
  if (measured(r->ratio)) {
    const char *grade = r->ratio >= 1.0 ? "good" : r->ratio >= 0.9 ? "fair" : "poor";
    char cls[32];
    snprintf(cls, sizeof cls, "ratio %s", grade);
    bar(f, cls, i, r->ratio, RATIO_X, ratio, y + 4, 12);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%.3f</text>\n",
            RATIO_X + PANEL_W * fmin(r->ratio, ratio.max) / ratio.max + 4, y + 14, r->ratio);
  } else {
    fprintf(f, "<text class=\"na\" x=\"%d\" y=\"%.1f\">not measured</text>\n", RATIO_X + 4, y + 14);
  }
  if (with_floor) {
    const double ours = r->roofline.floor_ms / r->ours_ms;
    const double lt = r->roofline.floor_ms / r->lt_ms;
    if (measured(ours)) bar(f, "floor ours", i, ours, FLOOR_X, share, y + 3, 7);
    if (measured(lt)) bar(f, "floor cublas", i, lt, FLOOR_X, share, y + 10, 7);
    if (!measured(ours) && !measured(lt))
      fprintf(f, "<text class=\"na\" x=\"%d\" y=\"%.1f\">not measured</text>\n", FLOOR_X + 4,
              y + 14);
  }
  fputs("</g>\n", f);
}

static void swatch(FILE *f, double x, double y, const char *cls, const char *label) {
  fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"10\"/>\n", cls, x,
          y - 9);
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x + 16, y, label);
}

/* The title's three lines; worst_err: the largest error ratio of the rows
 * (NaN: none measured). */
static void header(FILE *f, const tp_bench_meta *m, int ratios, double worst_err) {
  fputs("<text class=\"title\" x=\"8\" y=\"22\">tilepipe bench: ", f);
  put_text(f, m->payload);
  fputs(" x ", f);
  put_text(f, m->epilogue);
  fprintf(f, ", A/B %s, D %s</text>\n<text x=\"8\" y=\"40\">", tp_dtype_name(m->dtype),
          tp_dtype_name(m->out_dtype));
  put_text(f, m->gpu);
  fprintf(f, ", driver %d.%d, cuBLASLt %zu, commit ", m->driver_version / 1000,
          m->driver_version % 1000 / 10, m->cublaslt_version);
  put_text(f, m->commit);
  fputs(", ", f);
  put_text(f, m->date);
  fprintf(f, "; warm-up %d, median of %d", m->warmup, m->iters);
  if (m->back_to_back > 1) fprintf(f, ", %d runs back to back", m->back_to_back);
  fputs("</text>\n<text x=\"8\" y=\"56\">", f);
  if (ratios)
    fprintf(f, "geometric mean of the ratios %.3f over %d shapes", m->geomean_ratio, ratios);
  else
    fputs("no ratio measured", f);
  if (measured(m->ceilings.bytes_per_s) && measured(m->ceilings.flops_per_s))
    fprintf(f, "; ceilings %.2f TB/s, %.0f TFLOP/s", m->ceilings.bytes_per_s * 1e-12,
            m->ceilings.flops_per_s * 1e-12);
  if (!isnan(worst_err))
    fprintf(f, "; error against the sampled f64 reference, tilepipe / cuBLASLt: at most %.2f",
            worst_err);
  for (int v = 0; v < m->versus_count; v++) {
    fputs(v ? ", " : "; versus (speed x, its time / ours) ", f);
    put_text(f, m->versus[v].payload);
    fputs(" x ", f);
    put_text(f, m->versus[v].epilogue);
    if (measured(m->versus[v].geomean_speed))
      fprintf(f, " %.3f", m->versus[v].geomean_speed);
    else
      fputs(" not measured", f);
  }
  fputs("</text>\n", f);
}

void tp_bench_svg(FILE *f, const tp_bench_meta *meta, const tp_bench_row *rows, size_t count) {
  double top_ratio = 1.2, top_share = 1.0, worst_err = NAN;
  int ratios = 0, with_floor = 0;
  for (size_t i = 0; i < count; i++) {
    const tp_bench_row *r = &rows[i];
    if (measured(r->ratio) && r->ratio > 0.0) {
      ratios++;
      top_ratio = fmax(top_ratio, r->ratio);
    }
    const double err_ratio = r->err_ours / r->err_lt;
    if (measured(err_ratio) && (isnan(worst_err) || err_ratio > worst_err)) worst_err = err_ratio;
    const double shares[2] = {r->roofline.floor_ms / r->ours_ms, r->roofline.floor_ms / r->lt_ms};
    for (int s = 0; s < 2; s++)
      if (measured(shares[s])) {
        with_floor = 1;
        top_share = fmax(top_share, shares[s]);
      }
  }
  const axis ratio = axis_to(top_ratio), share = axis_to(top_share);
  const double bottom = TOP + (double)count * ROW_H;
  const int height = (int)bottom + 48;
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
          "viewBox=\"0 0 %d %d\">\n<style>%s</style>\n"
          "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
          WIDTH, height, WIDTH, height, style, WIDTH, height);
  header(f, meta, ratios, worst_err);
  fprintf(f,
          "<text class=\"head\" x=\"%d\" y=\"80\">tilepipe / cuBLASLt (above 1: tilepipe "
          "faster)</text>\n",
          RATIO_X);
  fprintf(f,
          "<text class=\"head\" x=\"%d\" y=\"80\">roofline floor / time (1: at the "
          "floor)</text>\n",
          FLOOR_X);
  /* Bands under the grid, the grid under the bars. */
  for (size_t i = 1; i < count; i += 2)
    fprintf(f, "<rect class=\"band\" x=\"0\" y=\"%.1f\" width=\"%d\" height=\"%d\"/>\n",
            TOP + (double)i * ROW_H, WIDTH, ROW_H);
  draw_axis(f, RATIO_X, ratio, bottom);
  if (with_floor) draw_axis(f, FLOOR_X, share, bottom);
  for (size_t i = 0; i < count; i++) draw_row(f, meta, &rows[i], i, ratio, share, with_floor);
  if (!with_floor)
    fprintf(f, "<text class=\"na\" x=\"%d\" y=\"%d\">no floors: run with --roofline</text>\n",
            FLOOR_X + 4, TOP + 14);
  const double legend = bottom + 36;
  swatch(f, RATIO_X, legend, "good", "1 and above");
  swatch(f, RATIO_X + 100, legend, "fair", "0.9 to 1");
  swatch(f, RATIO_X + 190, legend, "poor", "below 0.9");
  if (with_floor) {
    swatch(f, FLOOR_X, legend, "ours", "tilepipe");
    swatch(f, FLOOR_X + 100, legend, "cublas", "cuBLASLt");
  }
  fputs("</svg>\n", f);
}
