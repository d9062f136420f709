/* tools/bench_cpu.c: see bench_cpu.h. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"
#include "tools/bench_cpu.h"
#include "tools/cli.h"
#include "tools/output_diff.h"
#include "tools/timing.h"

void tp_bench_cpu_model(char *buf, size_t size) {
  char model[128] = "unknown CPU", flags[128] = "";
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  while (f != NULL && fgets(line, sizeof line, f) != NULL) {
    const char *colon = strchr(line, ':');
    if (colon == NULL) continue;
    const char *value = colon + 1 + (colon[1] == ' ');
    if (strncmp(line, "model name", 10) == 0) {
      snprintf(model, sizeof model, "%.*s", (int)strcspn(value, "\n"), value);
    } else if (strncmp(line, "flags", 5) == 0 && flags[0] == '\0') {
      static const char *const wanted[] = {" avx512f", " avx512_bf16", " avx2", " fma", " f16c"};
      size_t used = 0;
      for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
        const size_t len = strlen(wanted[i]);
        for (const char *p = value - 1; (p = strstr(p, wanted[i])) != NULL; p += len) {
          if (p[len] != ' ' && p[len] != '\n') continue;
          used += (size_t)snprintf(flags + used, sizeof flags - used, "%s", wanted[i] + !used);
          break;
        }
      }
    }
  }
  if (f != NULL) fclose(f);
  cpu_set_t set;
  const int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  snprintf(buf, size, "%s, %d cores (%s)", model, cores, flags[0] ? flags : "no AVX2");
}

/* One timed side: our plan on the problem's host descriptor, or BLAS. */
typedef struct ours_side {
  tp_plan *plan;
  const tp_gemm_desc *desc;
} ours_side;

typedef struct blas_side {
  const tp_cpu_blas *blas;
  int64_t m, n, k;
  const float *a, *b;
  float *d;
} blas_side;

static tp_status run_ours(void *ctx, int iteration, char *err, size_t errlen) {
  (void)iteration;
  const ours_side *s = ctx;
  const tp_status st = tp_plan_run(s->plan, s->desc, NULL);
  return st == TP_OK ? TP_OK : tp_time_failed("run", st, err, errlen);
}

static tp_status run_blas(void *ctx, int iteration, char *err, size_t errlen) {
  (void)iteration;
  (void)err;
  (void)errlen;
  const blas_side *s = ctx;
  tp_cpu_blas_sgemm(s->blas, s->m, s->n, s->k, s->a, s->b, s->d);
  return TP_OK;
}

static void note(tp_bench_row *row, const char *what, const char *why) {
  snprintf(row->note, sizeof row->note, "%s: %s", what, why);
  row->check = "error";
}

/* BLAS's side of the row: A and B dequantized, timed, its D rounded into
 * `theirs` (a copy of our D's buffer, so padding matches) and compared. */
static void blas_row(const tp_bench_cpu_env *env, tp_ref_problem *p, const void *ours,
                     tp_bench_row *row) {
  const tp_gemm_desc *desc = tp_ref_problem_desc(p);
  const tp_problem *problem = tp_ref_problem_description(p);
  const int64_t m = desc->m, n = desc->n, k = desc->k;
  int64_t d_bytes;
  tp_ref_problem_buffer(p, TP_REF_D, &d_bytes);
  float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(n * k));
  float *d = malloc(sizeof(float) * (size_t)(m * n));
  void *theirs = malloc((size_t)d_bytes);
  char err[512];
  if (a == NULL || b == NULL || d == NULL || theirs == NULL) {
    note(row, "BLAS", "out of host memory for its f32 operands");
  } else if (tp_ref_operand_f32(desc, problem, TP_REF_A, a, err, sizeof err) != TP_OK ||
             tp_ref_operand_f32(desc, problem, TP_REF_B, b, err, sizeof err) != TP_OK) {
    note(row, "dequantize", err);
  } else {
    blas_side side = {env->blas, m, n, k, a, b, d};
    if (tp_time_median(0, env->warmup, env->iters, run_blas, &side, &row->lt_ms, err,
                       sizeof err) != TP_OK) {
      note(row, "BLAS", err);
    } else {
      row->lt_tflops = 2.0 * (double)m * (double)n * (double)k / (row->lt_ms * 1e9);
      row->ratio = row->ours_tflops / row->lt_tflops;
      memcpy(theirs, ours, (size_t)d_bytes);
      for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++)
          tp_dtype_store(desc->d.dtype, theirs, tp_ref_index(&desc->d, i, j), d[i * n + j]);
      row->rel_diff = tp_output_rel_diff(&desc->d, ours, theirs);
      row->rel_bound =
          2.0 * tp_ref_tolerance_for(desc->d.dtype, k, tp_ref_acc_bits(problem, TP_BACKEND_CPU))
                    .rel;
      row->check = row->rel_diff <= row->rel_bound ? "ok" : "MISMATCH";
    }
  }
  free(a);
  free(b);
  free(d);
  free(theirs);
}

/* Measures one shape into *row (every field set; a failure goes into
 * row->note with row->check "error"). */
static void bench_shape(const tp_bench_cpu_env *env, tp_shape shape, uint64_t seed,
                        tp_bench_row *row) {
  memset(row, 0, sizeof *row);
  row->shape = shape;
  row->copies = 1;
  row->ours_ms = row->ours_tflops = row->lt_ms = row->lt_tflops = row->ratio = NAN;
  row->deq_ms = row->deq_speed = row->store_ms = row->overhead = NAN;
  row->rel_diff = row->rel_bound = row->err_ours = row->err_lt = row->err_bound = NAN;
  row->plan_ms = row->host_us = NAN;
  row->roofline.floor_ms = row->roofline.memory_ms = row->roofline.compute_ms = NAN;
  row->check = "not compared";
  for (int v = 0; v < TP_BENCH_MAX_VERSUS; v++) row->versus[v].check = "ok";
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = env->registry,
                                    .payload = env->payload, .a = env->dtype, .b = env->b_dtype,
                                    .b_scale = env->b_scale, .d = env->out_dtype,
                                    .m = shape.m, .n = shape.n, .k = shape.k, .align_rows = 1,
                                    .alpha = 1.0f};
  char err[1024];
  tp_ref_problem *p;
  if (tp_ref_problem_create(&p, &spec, seed, err, sizeof err) != TP_OK) {
    note(row, "inputs", err);
    return;
  }
  const tp_gemm_desc *desc = tp_ref_problem_desc(p);
  tp_plan *plan = NULL;
  const double t0 = tp_time_now_ms();
  if (tp_plan_create(&plan, env->registry, env->payload, "store", desc, TP_BACKEND_CPU) != TP_OK) {
    note(row, "plan", tp_error_message());
    tp_ref_problem_destroy(p);
    return;
  }
  row->plan_ms = tp_time_now_ms() - t0;
  tp_plan_describe(plan, row->plan, sizeof row->plan);
  tp_ref_problem_poison_d(p);
  ours_side ours = {plan, desc};
  if (tp_time_median(0, env->warmup, env->iters, run_ours, &ours, &row->ours_ms, err,
                     sizeof err) != TP_OK) {
    note(row, "ours", err);
  } else {
    row->ours_tflops =
        2.0 * (double)shape.m * (double)shape.n * (double)shape.k / (row->ours_ms * 1e9);
    if (env->blas != NULL) blas_row(env, p, tp_ref_problem_buffer(p, TP_REF_D, NULL), row);
  }
  tp_plan_destroy(plan);
  tp_ref_problem_destroy(p);
}

int tp_bench_cpu(const tp_bench_cpu_env *env, tp_bench_meta *meta, const tp_shape *shapes,
                 size_t count, uint64_t seed, tp_bench_row *rows) {
  printf("%6s %6s %6s %10s %8s %10s %8s %6s %8s  %s\n", "M", "N", "K", "ours ms", "GFLOP/s",
         "BLAS ms", "GFLOP/s", "ratio", "plan ms", "check");
  int rc = TP_EXIT_OK, ratios = 0;
  double log_sum = 0.0;
  for (size_t i = 0; i < count; i++) {
    tp_bench_row *r = &rows[i];
    bench_shape(env, shapes[i], seed + i, r);
    printf("%6lld %6lld %6lld %10.3f %8.1f %10.3f %8.1f %6.3f %8.1f  %s",
           (long long)r->shape.m, (long long)r->shape.n, (long long)r->shape.k, r->ours_ms,
           r->ours_tflops * 1e3, r->lt_ms, r->lt_tflops * 1e3, r->ratio, r->plan_ms, r->check);
    if (!isnan(r->rel_diff)) printf(" (rel %.2g, bound %.2g)", r->rel_diff, r->rel_bound);
    printf("\n");
    if (r->note[0]) printf("       note: %s\n", r->note);
    fflush(stdout);
    if (r->ratio > 0.0 && !isinf(r->ratio)) {
      log_sum += log(r->ratio);
      ratios++;
    }
    if (strcmp(r->check, "error") == 0) rc = TP_EXIT_ERROR;
    if (strcmp(r->check, "MISMATCH") == 0 && rc == TP_EXIT_OK) rc = TP_EXIT_FAIL;
  }
  meta->geomean_ratio = ratios ? exp(log_sum / ratios) : NAN;
  if (ratios)
    printf("geometric mean of the ratios (tilepipe / BLAS sgemm): %.3f over %d shapes\n",
           exp(log_sum / ratios), ratios);
  return rc;
}
