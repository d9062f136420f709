/* tests/test_bench_output.c: what `tilepipe bench` shows besides its
 * table, without a GPU: the progress lines (tools/bench_progress.h) and
 * the SVG picture (tools/bench_svg.h), both written into memory, and the
 * CSV and JSON records (tools/bench_report.h), written to a scratch folder.
 *
 * Progress: on a fake clock, the exact lines of one shape through every
 * phase (a phase entered twice adds up), in a log and on a terminal (in
 * place, "\r" and "\033[K", one newline at the end), the index padded to
 * the count's width, and a shape that fails at its inputs.
 * SVG: for a fixed set of rows (faster, a little slower, much slower and
 * mismatched, not measured), the document is closed and balanced, text is
 * escaped, the title says how many runs were timed back to back, each
 * measured row has one ratio bar of its value and grade whose length over
 * the dashed 1.0 line's is the ratio, the floor panel's bars
 * are floor / time on their own axis, an unmeasured row draws no bar and
 * says so, non-ok checks are named, and without floors the panel says how
 * to get them; blockwise_fp8's sampled errors go into their rows' groups
 * and titles, their largest ratio into the title, and nowhere for rows
 * without them.
 * CSV and JSON: a header naming every column, the error columns (each
 * side's error, their ratio, the bound, the sample's size) filled for a
 * row that has them and empty (null) for one that has not; the runs timed
 * back to back in every row and in the JSON's header; no versus columns
 * without versus sides.
 * Versus sides (--versus): the table's first nine columns are the same
 * with and without them, each side's ms and speed x are columns 10 + 2i
 * and 11 + 2i under a header naming the side, a side that is not ok is
 * named in the check with its check (and distance), each side's note gets
 * a line; the CSV has each side's seven columns after the note, the JSON
 * the sides in its header (with the geometric mean of their speed) and in
 * each row; the SVG lists them in its title, hover text and data
 * attributes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/tmpdir.h"
#include "tools/bench_progress.h"
#include "tools/bench_svg.h"
#include "tools/bench_table.h"

/* ------------------------------------------------------------ progress */

static double fake_now;
static double fake_clock(void) { return fake_now; }

/* Runs one shape through its phases on the fake clock; the text written. */
static char *one_shape(int live) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_progress p;
  fake_now = 1000.0;
  tp_bench_progress_start(&p, f, live, fake_clock, 12);
  fake_now = 66000.0;
  tp_bench_progress_shape(&p, 2, (tp_shape){4096, 7168, 16384});
  tp_bench_progress_phase(&p, TP_BENCH_INPUTS, NULL);
  fake_now = 66040.0;
  tp_bench_progress_phase(&p, TP_BENCH_PLAN, "ours");
  fake_now = 68100.0;
  tp_bench_progress_phase(&p, TP_BENCH_PLAN, "cuBLASLt");
  fake_now = 68160.0;
  tp_bench_progress_phase(&p, TP_BENCH_TIMING, "ours, cuBLASLt");
  fake_now = 68770.0;
  tp_bench_progress_phase(&p, TP_BENCH_CHECK, "ours against cuBLASLt");
  fake_now = 69030.0;
  tp_bench_progress_done(&p, "ok");
  ck_assert_int_eq(fclose(f), 0);
  return text;
}

START_TEST(test_progress_in_a_log) {
  char *text = one_shape(0);
  ck_assert_str_eq(text,
                   "[ 3/12] 4096x7168x16384  inputs  0.0 s (run 1:05)\n"
                   "[ 3/12] 4096x7168x16384  plan/link ours  0.0 s (run 1:05)\n"
                   "[ 3/12] 4096x7168x16384  plan/link cuBLASLt  2.1 s (run 1:07)\n"
                   "[ 3/12] 4096x7168x16384  timing ours, cuBLASLt  2.2 s (run 1:07)\n"
                   "[ 3/12] 4096x7168x16384  check ours against cuBLASLt  2.8 s (run 1:07)\n"
                   "[ 3/12] 4096x7168x16384  ok in 3.0 s: inputs 0.04, plan/link 2.12, "
                   "timing 0.61, check 0.26 (run 1:08)\n");
  free(text);
}
END_TEST

START_TEST(test_progress_on_a_terminal) {
  char *text = one_shape(1);
  ck_assert_str_eq(text,
                   "\r[ 3/12] 4096x7168x16384  inputs  0.0 s (run 1:05)\033[K"
                   "\r[ 3/12] 4096x7168x16384  plan/link ours  0.0 s (run 1:05)\033[K"
                   "\r[ 3/12] 4096x7168x16384  plan/link cuBLASLt  2.1 s (run 1:07)\033[K"
                   "\r[ 3/12] 4096x7168x16384  timing ours, cuBLASLt  2.2 s (run 1:07)\033[K"
                   "\r[ 3/12] 4096x7168x16384  check ours against cuBLASLt  2.8 s (run 1:07)"
                   "\033[K"
                   "\r[ 3/12] 4096x7168x16384  ok in 3.0 s: inputs 0.04, plan/link 2.12, "
                   "timing 0.61, check 0.26 (run 1:08)\033[K\n");
  free(text);
}
END_TEST

START_TEST(test_progress_failed_inputs_and_widths) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_progress p;
  fake_now = 0.0;
  tp_bench_progress_start(&p, f, 0, fake_clock, 5);
  tp_bench_progress_shape(&p, 0, (tp_shape){1, 2, 3});
  tp_bench_progress_phase(&p, TP_BENCH_INPUTS, NULL);
  fake_now = 1500.0;
  tp_bench_progress_done(&p, "error");
  /* The next shape starts its phases from zero. */
  fake_now = 125000.0;
  tp_bench_progress_shape(&p, 1, (tp_shape){7, 8, 9});
  fake_now = 125300.0;
  tp_bench_progress_done(&p, "not compared");
  ck_assert_int_eq(fclose(f), 0);
  ck_assert_str_eq(text,
                   "[1/5] 1x2x3  inputs  0.0 s (run 0:00)\n"
                   "[1/5] 1x2x3  error in 1.5 s: inputs 1.50, plan/link 0.00, timing 0.00, "
                   "check 0.00 (run 0:01)\n"
                   "[2/5] 7x8x9  not compared in 0.3 s: inputs 0.00, plan/link 0.00, timing "
                   "0.00, check 0.00 (run 2:05)\n");
  free(text);
  /* No progress asked for: nothing happens. */
  tp_bench_progress_phase(NULL, TP_BENCH_TIMING, "ours");
  tp_bench_progress_start(&p, NULL, 0, fake_clock, 1);
  tp_bench_progress_shape(&p, 0, (tp_shape){1, 1, 1});
  tp_bench_progress_phase(&p, TP_BENCH_TIMING, "ours");
  tp_bench_progress_done(&p, "ok");
}
END_TEST

/* ------------------------------------------------------------ svg */

static tp_bench_row row(int64_t m, int64_t n, int64_t k, double ours_ms, double lt_ms,
                        double floor_ms, const char *check) {
  tp_bench_row r;
  memset(&r, 0, sizeof r);
  r.shape = (tp_shape){m, n, k};
  r.ours_ms = ours_ms;
  r.lt_ms = lt_ms;
  r.ratio = lt_ms / ours_ms;
  r.ours_tflops = r.lt_tflops = r.store_ms = r.overhead = r.rel_diff = r.rel_bound = NAN;
  r.err_ours = r.err_lt = r.err_bound = NAN;
  r.deq_ms = r.deq_speed = NAN;
  r.plan_ms = r.host_us = NAN;
  r.roofline.floor_ms = floor_ms;
  r.roofline.memory_ms = floor_ms;
  r.roofline.compute_ms = floor_ms / 2;
  r.check = check;
  return r;
}

enum { ROWS = 4 };

static void fixed_rows(tp_bench_row *rows, int with_floor) {
  const double f = with_floor ? 1.0 : NAN;
  rows[0] = row(4096, 4096, 4096, 0.60, 0.66, 0.50 * f, "ok");        /* ratio 1.10 */
  rows[1] = row(64, 7168, 16384, 0.25, 0.2125, 0.20 * f, "MISMATCH"); /* 0.85 */
  rows[2] = row(1, 6144, 4096, 0.020, 0.019, 0.017 * f, "ok");        /* 0.95 */
  rows[3] = row(777, 3584, 18944, NAN, 1.0, 0.30 * f, "error");       /* not measured */
  snprintf(rows[3].note, sizeof rows[3].note, "tilepipe: no kernel <fits> & so on");
  /* Sampled errors: row 0 close to cuBLASLt's, row 1 twice it. */
  const double errs[2][2] = {{1.6e-3, 1.5e-3}, {3.0e-3, 1.5e-3}};
  for (int i = 0; i < 2; i++) {
    rows[i].err_ours = errs[i][0];
    rows[i].err_lt = errs[i][1];
    rows[i].err_bound = 0.0721;
    rows[i].err_samples = 16384;
  }
  /* Row 0 against dequantize + cuBLASLt too. */
  rows[0].deq_ms = 0.90;
  rows[0].deq_speed = 1.5;
}

static char *draw(const tp_bench_row *rows, size_t count) {
  const tp_bench_meta meta = {.gpu = "NVIDIA H100 80GB HBM3",
                              .driver_version = 13000,
                              .cublaslt_version = 130000,
                              .commit = "abc\"<&>'",
                              .date = "2025-01-31T12:00:00Z",
                              .payload = "standard",
                              .epilogue = "store",
                              .dtype = TP_DTYPE_E4M3,
                              .out_dtype = TP_DTYPE_BF16,
                              .warmup = 10,
                              .iters = 50,
                              .back_to_back = 8,
                              .geomean_ratio = 0.964,
                              .ceilings = {3.0e12, 700.0e12}};
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_svg(f, &meta, rows, count);
  ck_assert_int_eq(fclose(f), 0);
  return text;
}

static int occurrences(const char *text, const char *needle) {
  int n = 0;
  for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

typedef struct bar {
  double value, x, width;
  int found;
} bar;

/* The bars of class `cls` ("ratio", "floor ours", ...) drawn for `row`:
 * how many, and the last one's numbers. */
static bar find_bar(const char *svg, const char *cls, size_t row) {
  bar b = {NAN, NAN, NAN, 0};
  for (const char *p = strstr(svg, "<rect "); p; p = strstr(p + 1, "<rect ")) {
    char c[64];
    size_t r;
    double v, x, y, w;
    if (sscanf(p,
               "<rect class=\"%63[^\"]\" data-row=\"%zu\" data-value=\"%lf\" x=\"%lf\" "
               "y=\"%lf\" width=\"%lf\"",
               c, &r, &v, &x, &y, &w) == 6 &&
        r == row && strncmp(c, cls, strlen(cls)) == 0) {
      b = (bar){v, x, w, b.found + 1};
      if (strcmp(cls, "ratio") == 0) ck_assert_ptr_nonnull(strchr(c, ' ')); /* a grade */
    }
  }
  return b;
}

/* The x of the n-th dashed 1.0 line. */
static double one_line(const char *svg, int n) {
  const char *p = svg;
  for (int i = 0; i <= n; i++) {
    p = strstr(p, "<line class=\"one\"");
    ck_assert_ptr_nonnull(p);
    if (i < n) p++;
  }
  double x = NAN;
  ck_assert_int_eq(sscanf(p, "<line class=\"one\" x1=\"%lf\"", &x), 1);
  return x;
}

/* Element by element: closed tags balance, rects and lines close
 * themselves, and no '&' starts anything but an entity. */
static void assert_well_formed(const char *svg) {
  ck_assert_msg(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0, "%.60s",
                svg);
  const size_t len = strlen(svg);
  ck_assert(len > 7 && strcmp(svg + len - 7, "</svg>\n") == 0);
  ck_assert_int_eq(occurrences(svg, "<svg"), occurrences(svg, "</svg>"));
  ck_assert_int_eq(occurrences(svg, "<g "), occurrences(svg, "</g>"));
  ck_assert_int_eq(occurrences(svg, "<text"), occurrences(svg, "</text>"));
  ck_assert_int_eq(occurrences(svg, "<title>"), occurrences(svg, "</title>"));
  ck_assert_int_eq(occurrences(svg, "<style>"), occurrences(svg, "</style>"));
  for (const char *tags[] = {"<rect ", "<line "}, **t = tags; t < tags + 2; t++)
    for (const char *p = strstr(svg, *t); p; p = strstr(p + 1, *t)) {
      const char *close = strchr(p, '>');
      ck_assert_msg(close && close[-1] == '/' && memchr(p + 1, '<', (size_t)(close - p)) == NULL,
                    "%.80s", p);
    }
  for (const char *p = strchr(svg, '&'); p; p = strchr(p + 1, '&'))
    ck_assert_msg(strncmp(p, "&amp;", 5) == 0 || strncmp(p, "&lt;", 4) == 0 ||
                      strncmp(p, "&gt;", 4) == 0 || strncmp(p, "&quot;", 6) == 0 ||
                      strncmp(p, "&apos;", 6) == 0,
                  "a bare '&': %.20s", p);
}

START_TEST(test_svg_rows) {
  tp_bench_row rows[ROWS];
  fixed_rows(rows, 1);
  char *svg = draw(rows, ROWS);
  assert_well_formed(svg);
  ck_assert_ptr_nonnull(strstr(svg, "commit abc&quot;&lt;&amp;&gt;&apos;,"));
  ck_assert_ptr_null(strstr(svg, "abc\"<"));
  ck_assert_ptr_nonnull(strstr(svg, "no kernel &lt;fits&gt; &amp; so on"));
  ck_assert_ptr_nonnull(strstr(svg, "standard x store, A/B e4m3, D bf16"));
  ck_assert_ptr_nonnull(strstr(svg, "geometric mean of the ratios 0.964 over 3 shapes"));
  ck_assert_ptr_nonnull(strstr(svg, "; warm-up 10, median of 50, 8 runs back to back</text>"));
  ck_assert_int_eq(occurrences(svg, "<g class=\"row\""), ROWS);
  /* Sampled errors: rows 0 and 1 only, in the group and the title. */
  ck_assert_ptr_nonnull(strstr(
      svg, "<g class=\"row\" data-row=\"0\" data-tilepipe-err=\"0.0016\" "
           "data-cublaslt-err=\"0.0015\">"));
  ck_assert_ptr_nonnull(strstr(svg, "data-row=\"1\" data-tilepipe-err=\"0.003\" "));
  ck_assert_ptr_nonnull(strstr(svg, "<g class=\"row\" data-row=\"2\">"));
  ck_assert_int_eq(occurrences(svg, "data-tilepipe-err="), 2);
  ck_assert_ptr_nonnull(strstr(svg, "; error on 16384 sampled elements: tilepipe 0.0016, "
                                    "cuBLASLt 0.0015 (1.07x), bound 0.0721; check ok"));
  ck_assert_int_eq(occurrences(svg, "sampled elements"), 2);
  ck_assert_ptr_nonnull(strstr(svg, "tilepipe / cuBLASLt: at most 2.00</text>"));

  /* Ratios: one bar per measured row, its grade, its length. */
  const double one = one_line(svg, 0);
  const char *grades[] = {"ratio good", "ratio poor", "ratio fair"};
  for (size_t i = 0; i < 3; i++) {
    const bar b = find_bar(svg, grades[i], i);
    ck_assert_int_eq(b.found, 1);
    ck_assert_double_eq_tol(b.value, rows[i].ratio, 1e-5);
    ck_assert_double_eq_tol(b.width / (one - b.x), rows[i].ratio, 1e-3);
  }
  ck_assert_int_eq(find_bar(svg, "ratio", 3).found, 0);
  ck_assert_ptr_nonnull(strstr(svg, ">not measured</text>"));
  ck_assert_ptr_nonnull(strstr(svg, "class=\"bad\" x=\"8\" y=\"138.0\">MISMATCH</text>"));
  ck_assert_ptr_nonnull(strstr(svg, "class=\"bad\" x=\"8\" y=\"178.0\">error</text>"));
  ck_assert_int_eq(occurrences(svg, ">ok</text>"), 0);

  /* Floors: floor / time for each side, against the second 1.0 line. */
  const double floor_one = one_line(svg, 1);
  for (size_t i = 0; i < 3; i++) {
    const double ours = rows[i].roofline.floor_ms / rows[i].ours_ms;
    const double lt = rows[i].roofline.floor_ms / rows[i].lt_ms;
    const bar o = find_bar(svg, "floor ours", i), c = find_bar(svg, "floor cublas", i);
    ck_assert_int_eq(o.found, 1);
    ck_assert_int_eq(c.found, 1);
    ck_assert_double_eq_tol(o.value, ours, 1e-5);
    ck_assert_double_eq_tol(c.value, lt, 1e-5);
    ck_assert_double_eq_tol(o.width / (floor_one - o.x), ours, 1e-3);
    ck_assert_double_eq_tol(c.width / (floor_one - c.x), lt, 1e-3);
  }
  /* Row 3: cuBLASLt's time and a floor, ours not measured. */
  ck_assert_int_eq(find_bar(svg, "floor ours", 3).found, 0);
  ck_assert_int_eq(find_bar(svg, "floor cublas", 3).found, 1);
  ck_assert_ptr_null(strstr(svg, "no floors"));
  free(svg);
}
END_TEST

START_TEST(test_svg_without_floors) {
  tp_bench_row rows[ROWS];
  fixed_rows(rows, 0);
  char *svg = draw(rows, ROWS);
  assert_well_formed(svg);
  ck_assert_ptr_nonnull(strstr(svg, "no floors: run with --roofline"));
  ck_assert_int_eq(occurrences(svg, "<line class=\"one\""), 1);
  for (size_t i = 0; i < ROWS; i++) {
    ck_assert_int_eq(find_bar(svg, "floor", i).found, 0);
    ck_assert_int_eq(find_bar(svg, "ratio", i).found, i < 3);
  }
  free(svg);
}
END_TEST

START_TEST(test_svg_large_ratio_and_no_rows) {
  /* A ratio far above 1 stretches the axis to a round number past it. */
  tp_bench_row rows[ROWS];
  fixed_rows(rows, 0);
  rows[0].ratio = 3.7;
  char *svg = draw(rows, 1);
  assert_well_formed(svg);
  const bar b = find_bar(svg, "ratio good", 0);
  ck_assert_int_eq(b.found, 1);
  ck_assert_double_eq_tol(b.width / (one_line(svg, 0) - b.x), 3.7, 1e-3);
  ck_assert_ptr_nonnull(strstr(svg, ">4</text>")); /* the axis ends at 4 */
  free(svg);
  svg = draw(rows, 0);
  assert_well_formed(svg);
  ck_assert_ptr_nonnull(strstr(svg, "no ratio measured"));
  ck_assert_ptr_null(strstr(svg, "at most"));
  free(svg);
}
END_TEST

/* ------------------------------------------------------------ records */

static const tp_bench_meta record_meta = {.gpu = "NVIDIA H100 80GB HBM3",
                                          .driver_version = 13000,
                                          .cublaslt_version = 130000,
                                          .commit = "abc",
                                          .date = "2025-01-31T12:00:00Z",
                                          .payload = "blockwise_fp8",
                                          .epilogue = "store",
                                          .dtype = TP_DTYPE_E4M3,
                                          .out_dtype = TP_DTYPE_BF16,
                                          .warmup = 10,
                                          .iters = 50,
                                          .back_to_back = 8,
                                          .geomean_ratio = 0.9,
                                          .ceilings = {NAN, NAN}};

/* The whole of file dir/name, NUL-terminated. */
static char *slurp(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  char *text = calloc(1, 1 << 16);
  ck_assert_ptr_nonnull(text);
  const size_t got = fread(text, 1, (1 << 16) - 1, f);
  ck_assert_int_gt(got, 0);
  fclose(f);
  return text;
}

/* CSV field `name` of line `line` (0: the header), as text. */
static void csv_field(const char *csv, int line, const char *name, char *out, size_t size) {
  const char *header_end = strchr(csv, '\n');
  ck_assert_ptr_nonnull(header_end);
  int column = 0;
  const char *p = csv;
  for (;;) {
    const char *comma = memchr(p, ',', (size_t)(header_end - p));
    const size_t len = comma ? (size_t)(comma - p) : (size_t)(header_end - p);
    if (len == strlen(name) && strncmp(p, name, len) == 0) break;
    ck_assert_msg(comma != NULL, "no CSV column %s", name);
    p = comma + 1;
    column++;
  }
  const char *at = csv;
  for (int l = 0; l < line; l++) at = strchr(at, '\n') + 1;
  for (int c = 0; c < column; c++) { /* fields before it: quoted text has no commas here */
    at = strchr(at, ',');
    ck_assert_ptr_nonnull(at);
    at++;
  }
  const size_t len = strcspn(at, ",\n");
  ck_assert_uint_lt(len, size);
  memcpy(out, at, len);
  out[len] = '\0';
}

START_TEST(test_records_carry_the_errors) {
  tp_bench_row rows[ROWS];
  fixed_rows(rows, 0);
  char dir[4096], err[256] = "", path[4200], field[64];
  ck_assert_int_eq(tp_test_tmpdir_make(dir, sizeof dir, "bench-output"), 0);
  snprintf(path, sizeof path, "%s/run.csv", dir);
  ck_assert_int_eq(tp_bench_write_csv(path, &record_meta, rows, ROWS, err, sizeof err), TP_OK);
  snprintf(path, sizeof path, "%s/run.json", dir);
  ck_assert_int_eq(tp_bench_write_json(path, &record_meta, rows, ROWS, err, sizeof err), TP_OK);

  char *csv = slurp(dir, "run.csv");
  ck_assert_ptr_nonnull(strstr(csv, ",rel_diff,rel_bound,tilepipe_err,cublaslt_err,err_ratio,"
                                    "err_bound,err_samples,plan_ms,"));
  static const struct {
    const char *name, *row0, *row2;
  } want[] = {{"tilepipe_err", "0.0016", ""}, {"cublaslt_err", "0.0015", ""},
              {"err_ratio", "1.06667", ""},   {"err_bound", "0.0721", ""},
              {"err_samples", "16384", ""},   {"check", "ok", "ok"}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    csv_field(csv, 1, want[i].name, field, sizeof field);
    ck_assert_str_eq(field, want[i].row0);
    csv_field(csv, 3, want[i].name, field, sizeof field);
    ck_assert_str_eq(field, want[i].row2);
  }
  csv_field(csv, 2, "err_ratio", field, sizeof field);
  ck_assert_str_eq(field, "2");
  csv_field(csv, 1, "dequant_cublaslt_ms", field, sizeof field);
  ck_assert_str_eq(field, "0.9");
  csv_field(csv, 1, "dequant_speed", field, sizeof field);
  ck_assert_str_eq(field, "1.5");
  csv_field(csv, 2, "dequant_speed", field, sizeof field);
  ck_assert_str_eq(field, "");
  csv_field(csv, 2, "back_to_back", field, sizeof field);
  ck_assert_str_eq(field, "8");

  ck_assert_ptr_null(strstr(csv, "versus"));

  char *json = slurp(dir, "run.json");
  ck_assert_ptr_null(strstr(json, "versus"));
  ck_assert_ptr_nonnull(strstr(json, "\"iters\": 50,\n  \"back_to_back\": 8,\n"));
  ck_assert_ptr_nonnull(strstr(json, "\"dequant_cublaslt_ms\": 0.9, \"dequant_speed\": 1.5, "));
  ck_assert_ptr_nonnull(strstr(json, "\"dequant_cublaslt_ms\": null, \"dequant_speed\": null, "));
  ck_assert_ptr_nonnull(strstr(json, "\"rel_bound\": null, \"tilepipe_err\": 0.0016, "
                                     "\"cublaslt_err\": 0.0015, \"err_ratio\": 1.06667, "
                                     "\"err_bound\": 0.0721, \"err_samples\": 16384, "));
  ck_assert_ptr_nonnull(strstr(json, "\"tilepipe_err\": null, \"cublaslt_err\": null, "
                                     "\"err_ratio\": null, \"err_bound\": null, "
                                     "\"err_samples\": null, "));
  free(csv);
  free(json);
  ck_assert_int_eq(tp_test_tmpdir_remove(dir), 0);
}
END_TEST

/* ------------------------------------------------------------ versus */

/* Two versus sides over fixed_rows: row 0 with both timed, the second's D
 * far from ours; row 1 with the first not compared (its plan failed);
 * rows 2 and 3 with both ok and both unmeasured. */
static tp_bench_meta versus_meta(void) {
  tp_bench_meta m = record_meta;
  m.payload = "standard";
  m.epilogue = "residual";
  m.versus_count = 2;
  m.versus[0] = (tp_bench_versus){"standard_old", "residual_old", 1.02};
  m.versus[1] = (tp_bench_versus){"standard_x.y-z", "residual_x.y-z", NAN};
  return m;
}

static void versus_rows(tp_bench_row *rows) {
  fixed_rows(rows, 0);
  for (size_t i = 0; i < ROWS; i++)
    for (int v = 0; v < 2; v++)
      rows[i].versus[v] = (tp_bench_versus_row){NAN, NAN, NAN, "not compared", ""};
  rows[0].rel_diff = 0.002;
  rows[0].rel_bound = 0.0078;
  rows[0].check = "MISMATCH";
  rows[0].versus[0] = (tp_bench_versus_row){0.63, 1.05, 0.001, "ok", ""};
  rows[0].versus[1] = (tp_bench_versus_row){0.57, 0.95, 0.5, "MISMATCH", ""};
  snprintf(rows[1].versus[0].note, sizeof rows[1].versus[0].note,
           "payload plugin 'standard_old' is unusable: \"ABI 2.0\" not 1.0");
  rows[1].versus[1] = (tp_bench_versus_row){0.30, 1.2, 0.0, "ok", ""};
  rows[1].rel_bound = 0.0078;
  for (int v = 0; v < 2; v++) rows[2].versus[v] = (tp_bench_versus_row){0.021, 1.05, 0.0, "ok", ""};
  snprintf(rows[3].versus[0].note, sizeof rows[3].versus[0].note, "not timed (see the row's note)");
}

/* What the table prints for rows[0..count) under meta, header included. */
static char *table(const tp_bench_meta *meta, const tp_bench_row *rows, size_t count,
                   tp_bench_columns c) {
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_table_header(f, meta, c);
  for (size_t i = 0; i < count; i++) tp_bench_table_row(f, meta, &rows[i], c);
  ck_assert_int_eq(fclose(f), 0);
  return text;
}

/* Line `n` (from 0) of text, without its newline. */
static void line_of(const char *text, int n, char *out, size_t size) {
  for (int i = 0; i < n; i++) {
    text = strchr(text, '\n');
    ck_assert_ptr_nonnull(text);
    text++;
  }
  const size_t len = strcspn(text, "\n");
  ck_assert_uint_lt(len, size);
  memcpy(out, text, len);
  out[len] = '\0';
}

/* Whitespace-separated field `n` (from 1, as awk counts) of line. */
static void field_of(const char *line, int n, char *out, size_t size) {
  const char *p = line;
  for (int i = 1;; i++) {
    p += strspn(p, " ");
    ck_assert_msg(*p != '\0', "no field %d in '%s'", n, line);
    const size_t len = strcspn(p, " ");
    if (i == n) {
      ck_assert_uint_lt(len, size);
      memcpy(out, p, len);
      out[len] = '\0';
      return;
    }
    p += len;
  }
}

START_TEST(test_versus_table) {
  tp_bench_row rows[ROWS];
  versus_rows(rows);
  tp_bench_meta plain = versus_meta();
  plain.versus_count = 0;
  const tp_bench_meta meta = versus_meta();
  const tp_bench_columns c = {1, 0, 0, 0}; /* the residual's store columns */
  char *without = table(&plain, rows, ROWS, c), *with = table(&meta, rows, ROWS, c);
  /* The header: the first nine as ever, then each side's two. */
  char line[1024], plain_line[1024], field[64], plain_field[64];
  line_of(with, 0, line, sizeof line);
  ck_assert_msg(strncmp(line,
                        "     M      N      K  cp    ours ms  TFLOP/s  cuBLAS ms  TFLOP/s  ratio "
                        "standard_old ms speed x standard_x.y-z ms speed x   store ms    over",
                        140) == 0,
                "%s", line);
  line_of(without, 0, plain_line, sizeof plain_line);
  ck_assert_int_eq(strncmp(line, plain_line, 71), 0);
  ck_assert_ptr_nonnull(strstr(plain_line, " ratio   store ms    over  plan ms host us  check"));
  /* Row 0: the same first nine fields (and text) with and without. */
  line_of(with, 1, line, sizeof line);
  line_of(without, 1, plain_line, sizeof plain_line);
  ck_assert_int_eq(strncmp(line, plain_line, 71), 0);
  for (int n = 1; n <= 9; n++) {
    field_of(line, n, field, sizeof field);
    field_of(plain_line, n, plain_field, sizeof plain_field);
    ck_assert_str_eq(field, plain_field);
  }
  field_of(line, 5, field, sizeof field);
  ck_assert_str_eq(field, "0.6000");
  field_of(line, 9, field, sizeof field);
  ck_assert_str_eq(field, "1.100");
  static const char *const want0[] = {"0.6300", "1.050", "0.5700", "0.950"};
  for (int n = 0; n < 4; n++) {
    field_of(line, 10 + n, field, sizeof field);
    ck_assert_str_eq(field, want0[n]);
  }
  ck_assert_msg(strstr(line, "  MISMATCH (rel 0.002, bound 0.0078); versus standard_x.y-z "
                             "MISMATCH (rel 0.5, bound 0.0078)") != NULL,
                "%s", line);
  ck_assert_ptr_null(strstr(line, "versus standard_old"));
  ck_assert_ptr_null(strstr(plain_line, "versus"));
  /* Row 1: the first side not compared, its note on a line of its own. */
  line_of(with, 2, line, sizeof line);
  field_of(line, 10, field, sizeof field);
  ck_assert_str_eq(field, "nan");
  field_of(line, 12, field, sizeof field);
  ck_assert_str_eq(field, "0.3000");
  ck_assert_msg(strstr(line, "  MISMATCH; versus standard_old not compared") != NULL, "%s", line);
  ck_assert_ptr_null(strstr(line, "versus standard_x.y-z"));
  line_of(with, 3, line, sizeof line);
  ck_assert_str_eq(line, "       note: versus standard_old: payload plugin 'standard_old' is "
                         "unusable: \"ABI 2.0\" not 1.0");
  /* Row 2 all ok: its line ends in its check; row 3 our note, then the
   * side's. */
  line_of(with, 4, line, sizeof line);
  ck_assert_msg(strlen(line) > 4 && strcmp(line + strlen(line) - 4, "  ok") == 0, "%s", line);
  line_of(with, 5, line, sizeof line);
  ck_assert_msg(strstr(line, "  error; versus standard_old not compared; versus standard_x.y-z "
                             "not compared") != NULL,
                "%s", line);
  line_of(with, 6, line, sizeof line);
  ck_assert_str_eq(line, "       note: tilepipe: no kernel <fits> & so on");
  line_of(with, 7, line, sizeof line);
  ck_assert_str_eq(line, "       note: versus standard_old: not timed (see the row's note)");
  ck_assert_int_eq(occurrences(with, "\n"), 8);
  ck_assert_int_eq(occurrences(without, "\n"), 6);
  free(without);
  free(with);
}
END_TEST

START_TEST(test_versus_records) {
  tp_bench_row rows[ROWS];
  versus_rows(rows);
  const tp_bench_meta meta = versus_meta();
  char dir[4096], err[256] = "", path[4200], field[128];
  ck_assert_int_eq(tp_test_tmpdir_make(dir, sizeof dir, "bench-versus"), 0);
  snprintf(path, sizeof path, "%s/run.csv", dir);
  ck_assert_int_eq(tp_bench_write_csv(path, &meta, rows, ROWS, err, sizeof err), TP_OK);
  snprintf(path, sizeof path, "%s/run.json", dir);
  ck_assert_int_eq(tp_bench_write_json(path, &meta, rows, ROWS, err, sizeof err), TP_OK);

  char *csv = slurp(dir, "run.csv");
  ck_assert_ptr_nonnull(strstr(
      csv, ",check,plan,note,versus1_payload,versus1_epilogue,versus1_ms,versus1_speed,"
           "versus1_rel_diff,versus1_check,versus1_note,versus2_payload,versus2_epilogue,"
           "versus2_ms,versus2_speed,versus2_rel_diff,versus2_check,versus2_note\n"));
  static const struct {
    const char *name, *row0, *row1, *row3;
  } want[] = {{"versus1_payload", "\"standard_old\"", "\"standard_old\"", "\"standard_old\""},
              {"versus1_epilogue", "\"residual_old\"", "\"residual_old\"", "\"residual_old\""},
              {"versus1_ms", "0.63", "", ""},
              {"versus1_speed", "1.05", "", ""},
              {"versus1_rel_diff", "0.001", "", ""},
              {"versus1_check", "ok", "not compared", "not compared"},
              {"versus2_payload", "\"standard_x.y-z\"", "\"standard_x.y-z\"", "\"standard_x.y-z\""},
              {"versus2_ms", "0.57", "0.3", ""},
              {"versus2_speed", "0.95", "1.2", ""},
              {"versus2_rel_diff", "0.5", "0", ""},
              {"versus2_check", "MISMATCH", "ok", "not compared"},
              {"versus2_note", "\"\"", "\"\"", "\"\""}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    csv_field(csv, 1, want[i].name, field, sizeof field);
    ck_assert_str_eq(field, want[i].row0);
    csv_field(csv, 2, want[i].name, field, sizeof field);
    ck_assert_str_eq(field, want[i].row1);
    csv_field(csv, 4, want[i].name, field, sizeof field);
    ck_assert_str_eq(field, want[i].row3);
  }
  /* A note with quotes in it: the field quoted, its quotes doubled. */
  ck_assert_ptr_nonnull(
      strstr(csv, ",not compared,\"payload plugin 'standard_old' is unusable: \"\"ABI 2.0\"\" "
                  "not 1.0\",\"standard_x.y-z\","));
  /* The run's fields before the versus columns are where they were. */
  csv_field(csv, 1, "check", field, sizeof field);
  ck_assert_str_eq(field, "MISMATCH");

  char *json = slurp(dir, "run.json");
  ck_assert_ptr_nonnull(strstr(
      json, "\"versus\": [{\"payload\": \"standard_old\", \"epilogue\": \"residual_old\", "
            "\"geomean_speed\": 1.02}, {\"payload\": \"standard_x.y-z\", \"epilogue\": "
            "\"residual_x.y-z\", \"geomean_speed\": null}],\n  \"rows\": ["));
  ck_assert_ptr_nonnull(strstr(
      json, "\"check\": \"MISMATCH\", \"plan\": \"\", \"note\": \"\", \"versus\": [{\"payload\": "
            "\"standard_old\", \"ms\": 0.63, \"speed\": 1.05, \"rel_diff\": 0.001, \"check\": "
            "\"ok\", \"note\": \"\"}, {\"payload\": \"standard_x.y-z\", \"ms\": 0.57, \"speed\": "
            "0.95, \"rel_diff\": 0.5, \"check\": \"MISMATCH\", \"note\": \"\"}]}"));
  ck_assert_ptr_nonnull(strstr(
      json, "{\"payload\": \"standard_old\", \"ms\": null, \"speed\": null, \"rel_diff\": null, "
            "\"check\": \"not compared\", \"note\": \"payload plugin 'standard_old' is unusable: "
            "\\\"ABI 2.0\\\" not 1.0\"}"));
  ck_assert_int_eq(occurrences(json, "\"versus\": ["), 1 + ROWS);
  ck_assert_int_eq(occurrences(json, "}]}"), ROWS);
  free(csv);
  free(json);
  ck_assert_int_eq(tp_test_tmpdir_remove(dir), 0);
}
END_TEST

START_TEST(test_versus_svg) {
  tp_bench_row rows[ROWS];
  versus_rows(rows);
  const tp_bench_meta meta = versus_meta();
  char *text = NULL;
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_svg(f, &meta, rows, ROWS);
  ck_assert_int_eq(fclose(f), 0);
  assert_well_formed(text);
  ck_assert_ptr_nonnull(strstr(text, "; versus (speed x, its time / ours) standard_old x "
                                     "residual_old 1.020, standard_x.y-z x residual_x.y-z not "
                                     "measured</text>"));
  ck_assert_ptr_nonnull(strstr(text, "; versus standard_old 0.63 ms (speed x 1.050), ok; versus "
                                     "standard_x.y-z 0.57 ms (speed x 0.950), MISMATCH; check "
                                     "MISMATCH"));
  ck_assert_ptr_nonnull(strstr(text, "; versus standard_old not measured, not compared; versus "
                                     "standard_x.y-z 0.3 ms (speed x 1.200), ok;"));
  ck_assert_ptr_nonnull(strstr(text, "data-row=\"0\" data-tilepipe-err=\"0.0016\" "
                                     "data-cublaslt-err=\"0.0015\" data-versus1-speed=\"1.05\" "
                                     "data-versus2-speed=\"0.95\">"));
  ck_assert_ptr_nonnull(strstr(text, "<g class=\"row\" data-row=\"3\">"));
  ck_assert_int_eq(occurrences(text, "data-versus1-speed="), 2);
  ck_assert_int_eq(occurrences(text, "data-versus2-speed="), 3);
  free(text);
}
END_TEST

/* A problem cuBLASLt runs dequantized: the two columns after the ratio. */
START_TEST(test_dequant_table) {
  tp_bench_row rows[ROWS];
  fixed_rows(rows, 0);
  tp_bench_meta meta = record_meta;
  const tp_bench_columns c = {0, 0, 0, 1};
  char *text = NULL, line[1024], field[64];
  size_t size = 0;
  FILE *f = open_memstream(&text, &size);
  ck_assert_ptr_nonnull(f);
  tp_bench_table_header(f, &meta, c);
  for (int i = 0; i < 2; i++) tp_bench_table_row(f, &meta, &rows[i], c);
  ck_assert_int_eq(fclose(f), 0);
  line_of(text, 0, line, sizeof line);
  ck_assert_msg(strstr(line, "  ratio  deq+LT ms speed x  plan ms") != NULL, "%s", line);
  line_of(text, 1, line, sizeof line);
  field_of(line, 10, field, sizeof field);
  ck_assert_str_eq(field, "0.9000");
  field_of(line, 11, field, sizeof field);
  ck_assert_str_eq(field, "1.500");
  line_of(text, 2, line, sizeof line);
  field_of(line, 10, field, sizeof field);
  ck_assert_str_eq(field, "nan");
  free(text);
}
END_TEST

int main(void) {
  Suite *s = suite_create("bench_output");
  TCase *tc = tcase_create("progress");
  tcase_add_test(tc, test_progress_in_a_log);
  tcase_add_test(tc, test_progress_on_a_terminal);
  tcase_add_test(tc, test_progress_failed_inputs_and_widths);
  suite_add_tcase(s, tc);
  tc = tcase_create("svg");
  tcase_add_test(tc, test_svg_rows);
  tcase_add_test(tc, test_svg_without_floors);
  tcase_add_test(tc, test_svg_large_ratio_and_no_rows);
  suite_add_tcase(s, tc);
  tc = tcase_create("records");
  tcase_add_test(tc, test_records_carry_the_errors);
  tcase_add_test(tc, test_dequant_table);
  suite_add_tcase(s, tc);
  tc = tcase_create("versus");
  tcase_add_test(tc, test_versus_table);
  tcase_add_test(tc, test_versus_records);
  tcase_add_test(tc, test_versus_svg);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
