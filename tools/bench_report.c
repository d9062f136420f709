/* tools/bench_report.c: see bench_report.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tools/bench_report.h"
#include "tools/bench_svg.h"

void tp_bench_date(char *buf, size_t size) {
  const time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static FILE *open_out(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "w");
  if (f == NULL) snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
  return f;
}

static tp_status close_out(FILE *f, const char *path, char *err, size_t errlen) {
  const int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    snprintf(err, errlen, "error writing %s", path);
    return TP_ERR_IO;
  }
  return TP_OK;
}

const char *tp_bench_bound(const tp_bench_row *row) {
  if (isnan(row->roofline.floor_ms)) return "";
  return tp_roofline_memory_bound(&row->roofline) ? "memory" : "compute";
}

/* ------------------------------------------------------------------ CSV */

/* A field in double quotes, quotes doubled (RFC 4180). */
static void csv_text(FILE *f, const char *s, const char *sep) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
  fputs(sep, f);
}

static void csv_number(FILE *f, double v, const char *sep) {
  if (!isnan(v)) fprintf(f, "%.6g", v);
  fputs(sep, f);
}

tp_status tp_bench_write_csv(const char *path, const tp_bench_meta *meta, const tp_bench_row *rows,
                             size_t count, char *err, size_t errlen) {
  FILE *f = open_out(path, err, errlen);
  if (f == NULL) return TP_ERR_IO;
  fputs("gpu,driver,cublaslt,commit,date,payload,epilogue,dtype,out_dtype,warmup,iters,"
        "back_to_back,m,n,k,copies,tilepipe_ms,tilepipe_tflops,cublaslt_ms,cublaslt_tflops,"
        "ratio,store_ms,overhead,"
        "rel_diff,rel_bound,tilepipe_err,cublaslt_err,err_ratio,err_bound,err_samples,plan_ms,"
        "host_us,ceiling_tbps,ceiling_tflops,floor_ms,"
        "tilepipe_of_floor,cublaslt_of_floor,dequant_cublaslt_ms,dequant_speed,bound,check,plan,"
        "note",
        f);
  for (int v = 1; v <= meta->versus_count; v++)
    fprintf(f,
            ",versus%d_payload,versus%d_epilogue,versus%d_ms,versus%d_speed,versus%d_rel_diff,"
            "versus%d_check,versus%d_note",
            v, v, v, v, v, v, v);
  fputc('\n', f);
  for (size_t i = 0; i < count; i++) {
    const tp_bench_row *r = &rows[i];
    csv_text(f, meta->gpu, ",");
    fprintf(f, "%d,%zu,", meta->driver_version, meta->cublaslt_version);
    csv_text(f, meta->commit, ",");
    fprintf(f, "%s,%s,%s,%s,%s,%d,%d,%d,%lld,%lld,%lld,%d,", meta->date, meta->payload,
            meta->epilogue, tp_dtype_name(meta->dtype), tp_dtype_name(meta->out_dtype),
            meta->warmup, meta->iters, meta->back_to_back, (long long)r->shape.m,
            (long long)r->shape.n, (long long)r->shape.k, r->copies);
    const double floor_ms = r->roofline.floor_ms;
    const double values[] = {r->ours_ms,
                             r->ours_tflops,
                             r->lt_ms,
                             r->lt_tflops,
                             r->ratio,
                             r->store_ms,
                             r->overhead,
                             r->rel_diff,
                             r->rel_bound,
                             r->err_ours,
                             r->err_lt,
                             r->err_ours / r->err_lt,
                             r->err_bound,
                             r->err_samples ? (double)r->err_samples : NAN,
                             r->plan_ms,
                             r->host_us,
                             meta->ceilings.bytes_per_s * 1e-12,
                             meta->ceilings.flops_per_s * 1e-12,
                             floor_ms,
                             floor_ms / r->ours_ms,
                             floor_ms / r->lt_ms,
                             r->deq_ms,
                             r->deq_speed};
    for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) csv_number(f, values[v], ",");
    fprintf(f, "%s,%s,", tp_bench_bound(r), r->check);
    csv_text(f, r->plan, ",");
    csv_text(f, r->note, "");
    for (int v = 0; v < meta->versus_count; v++) {
      const tp_bench_versus_row *x = &r->versus[v];
      fputc(',', f);
      csv_text(f, meta->versus[v].payload, ",");
      csv_text(f, meta->versus[v].epilogue, ",");
      csv_number(f, x->ms, ",");
      csv_number(f, x->speed, ",");
      csv_number(f, x->rel_diff, ",");
      fprintf(f, "%s,", x->check);
      csv_text(f, x->note, "");
    }
    fputc('\n', f);
  }
  return close_out(f, path, err, errlen);
}

/* ----------------------------------------------------------------- JSON */

static void json_text(FILE *f, const char *key, const char *s, const char *sep) {
  fprintf(f, "\"%s\": \"", key);
  for (; *s; s++) {
    const unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fprintf(f, "\"%s", sep);
}

static void json_number(FILE *f, const char *key, double v, const char *sep) {
  if (isnan(v) || isinf(v))
    fprintf(f, "\"%s\": null%s", key, sep);
  else
    fprintf(f, "\"%s\": %.6g%s", key, v, sep);
}

tp_status tp_bench_write_json(const char *path, const tp_bench_meta *meta,
                              const tp_bench_row *rows, size_t count, char *err, size_t errlen) {
  FILE *f = open_out(path, err, errlen);
  if (f == NULL) return TP_ERR_IO;
  fputs("{\n  ", f);
  json_text(f, "gpu", meta->gpu, ",\n  ");
  fprintf(f, "\"driver\": %d,\n  \"cublaslt\": %zu,\n  ", meta->driver_version,
          meta->cublaslt_version);
  json_text(f, "commit", meta->commit, ",\n  ");
  json_text(f, "date", meta->date, ",\n  ");
  json_text(f, "payload", meta->payload, ",\n  ");
  json_text(f, "epilogue", meta->epilogue, ",\n  ");
  json_text(f, "dtype", tp_dtype_name(meta->dtype), ",\n  ");
  json_text(f, "out_dtype", tp_dtype_name(meta->out_dtype), ",\n  ");
  fprintf(f, "\"warmup\": %d,\n  \"iters\": %d,\n  \"back_to_back\": %d,\n  ", meta->warmup,
          meta->iters, meta->back_to_back);
  json_number(f, "geomean_ratio", meta->geomean_ratio, ",\n  ");
  json_number(f, "ceiling_tbps", meta->ceilings.bytes_per_s * 1e-12, ",\n  ");
  json_number(f, "ceiling_tflops", meta->ceilings.flops_per_s * 1e-12, ",\n  ");
  if (meta->versus_count) {
    fputs("\"versus\": [", f);
    for (int v = 0; v < meta->versus_count; v++) {
      fputs(v ? ", {" : "{", f);
      json_text(f, "payload", meta->versus[v].payload, ", ");
      json_text(f, "epilogue", meta->versus[v].epilogue, ", ");
      json_number(f, "geomean_speed", meta->versus[v].geomean_speed, "}");
    }
    fputs("],\n  ", f);
  }
  fputs("\"rows\": [", f);
  for (size_t i = 0; i < count; i++) {
    const tp_bench_row *r = &rows[i];
    fprintf(f, "%s\n    {\"m\": %lld, \"n\": %lld, \"k\": %lld, \"copies\": %d, ", i ? "," : "",
            (long long)r->shape.m, (long long)r->shape.n, (long long)r->shape.k, r->copies);
    json_number(f, "tilepipe_ms", r->ours_ms, ", ");
    json_number(f, "tilepipe_tflops", r->ours_tflops, ", ");
    json_number(f, "cublaslt_ms", r->lt_ms, ", ");
    json_number(f, "cublaslt_tflops", r->lt_tflops, ", ");
    json_number(f, "ratio", r->ratio, ", ");
    json_number(f, "store_ms", r->store_ms, ", ");
    json_number(f, "overhead", r->overhead, ", ");
    json_number(f, "rel_diff", r->rel_diff, ", ");
    json_number(f, "rel_bound", r->rel_bound, ", ");
    json_number(f, "tilepipe_err", r->err_ours, ", ");
    json_number(f, "cublaslt_err", r->err_lt, ", ");
    json_number(f, "err_ratio", r->err_ours / r->err_lt, ", ");
    json_number(f, "err_bound", r->err_bound, ", ");
    json_number(f, "err_samples", r->err_samples ? (double)r->err_samples : NAN, ", ");
    json_number(f, "plan_ms", r->plan_ms, ", ");
    json_number(f, "host_us", r->host_us, ", ");
    json_number(f, "floor_ms", r->roofline.floor_ms, ", ");
    json_number(f, "tilepipe_of_floor", r->roofline.floor_ms / r->ours_ms, ", ");
    json_number(f, "cublaslt_of_floor", r->roofline.floor_ms / r->lt_ms, ", ");
    json_number(f, "dequant_cublaslt_ms", r->deq_ms, ", ");
    json_number(f, "dequant_speed", r->deq_speed, ", ");
    json_text(f, "bound", tp_bench_bound(r), ", ");
    json_text(f, "check", r->check, ", ");
    json_text(f, "plan", r->plan, ", ");
    json_text(f, "note", r->note, meta->versus_count ? ", \"versus\": [" : "}");
    for (int v = 0; v < meta->versus_count; v++) {
      const tp_bench_versus_row *x = &r->versus[v];
      fputs(v ? ", {" : "{", f);
      json_text(f, "payload", meta->versus[v].payload, ", ");
      json_number(f, "ms", x->ms, ", ");
      json_number(f, "speed", x->speed, ", ");
      json_number(f, "rel_diff", x->rel_diff, ", ");
      json_text(f, "check", x->check, ", ");
      json_text(f, "note", x->note, v + 1 < meta->versus_count ? "}" : "}]}");
    }
  }
  fputs("\n  ]\n}\n", f);
  return close_out(f, path, err, errlen);
}

/* ------------------------------------------------------------------ SVG */

tp_status tp_bench_write_svg(const char *path, const tp_bench_meta *meta, const tp_bench_row *rows,
                             size_t count, char *err, size_t errlen) {
  FILE *f = open_out(path, err, errlen);
  if (f == NULL) return TP_ERR_IO;
  tp_bench_svg(f, meta, rows, count);
  return close_out(f, path, err, errlen);
}
