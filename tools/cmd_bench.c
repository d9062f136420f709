/* tools/cmd_bench.c: `tilepipe bench`: our kernel against cuBLASLt, shape
 * by shape (tools/bench_shape.h), on the GPU, for any payload: the problem
 * is the payload's own (tp_problem_describe: its default dtypes, or
 * --dtype, and its scale tensors). cuBLASLt computes what its descriptor
 * allows (tools/cublaslt_problem.h: the unscaled GEMM, blockwise FP8);
 * a problem with other scales on A and B dequantized to bf16
 * (tools/bench_shape.h, tp_bench_dequantizes); other rows are timed
 * alone. A problem with scale tensors has each
 * side's error checked against a sampled f64 reference too
 * (tools/bench_accuracy.h).
 *
 * --backend cpu times the CPU backend against the system BLAS's sgemm
 * instead (tools/bench_cpu.h), on the same shapes and payload options,
 * into the same report files; it needs no GPU.
 *
 * On the GPU it needs a CUDA GPU: without one it says so and exits 77 (after checking
 * the command line, the shapes file and the registry with --versus's
 * sections, so those errors show anywhere).
 * Without cuBLASLt it times our kernel alone and says why. With --roofline
 * it first measures the device's ceilings (tools/ceilings.h) and gives each
 * shape its floor (tools/roofline.h). The inputs are made on the device
 * (tools/seeded_device.h). It prints a table and the geometric mean of the
 * ratios on stdout, each shape's progress on stderr
 * (tools/bench_progress.h), and writes CSV and/or JSON records carrying
 * GPU, driver, cuBLASLt version, commit ($TILEPIPE_COMMIT) and date, and/or
 * a picture of the run (--svg, tools/bench_svg.h).
 *
 * --versus P[:E] (up to TP_BENCH_MAX_VERSUS times) adds a side: the
 * registry's payload section P with epilogue section E (default the run's
 * epilogue), planned on the same inputs and timed in the same rounds
 * (tools/bench_shape.h), its time and speed (its time over ours) in
 * columns right after the ratio (tools/bench_table.h) and a geometric mean
 * of its speed under the table.
 *
 * Exit status: 0 when every shape ran and matched, 1 when some output did
 * not match cuBLASLt's (or ours a versus side's), 3 when some shape could
 * not run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tilepipe/device.h"
#include "tilepipe/tilepipe.h"
#include "tools/bench_accuracy.h"
#include "tools/bench_cpu.h"
#include "tools/bench_report.h"
#include "tools/bench_shape.h"
#include "tools/bench_table.h"
#include "tools/ceilings.h"
#include "tools/cli.h"
#include "tools/cpu_blas.h"
#include "tools/commands.h"
#include "tools/cublaslt_problem.h"
#include "tools/dtype_args.h"
#include "tools/registry_view.h"
#include "tools/sample.h"
#include "tools/seeded_device.h"
#include "tools/shapes.h"
#include "tools/timing.h"

/* Where the shapes come from by default: the checkout's copy of the public
 * set when run from the repository root, else the installed one. */
#define LOCAL_SHAPES "bench/shapes.txt"

typedef struct bench_args {
  const char *registry, *payload, *epilogue, *dtype, *out_dtype, *shapes, *csv, *json, *svg;
  const char *backend; /* "cuda" or "cpu" */
  int64_t m, n, k, warmup, iters, back_to_back, seed; /* warmup -1: the backend's default */
  int roofline;
  tp_cli_list versus; /* "P" or "P:E" */
} bench_args;

/* A --versus value split into its two section names. */
typedef struct versus_names {
  char payload[128], epilogue[128];
} versus_names;

static const char *summary =
    "Times the payload's kernel and cuBLASLt on the same device buffers of random data\n"
    "(the payload's problem: its dtypes and scale tensors), made on the device from\n"
    "--seed, for each shape of\n"
    "--shapes FILE (lines \"M N K\", '#' comments; default ./" LOCAL_SHAPES ", else\n"
    TP_BENCH_SHAPES_FILE ") or the one shape -m -n -k.\n"
    "CUDA-event timing, median of --iters runs after --warmup; inputs rotated over\n"
    "several copies when they fit in L2. --back-to-back N times N runs of a side in a\n"
    "row between one pair of events, per run, as a model's GEMMs follow each other\n"
    "(each of our kernels then starts under the end of the one before it).\n"
    "cuBLASLt runs with f32 compute and, for fp8, without fast accumulation; for\n"
    "1x128 / 128x128 f32 scales of fp8 operands with its block scaling (cuBLAS 12.9\n"
    "or later); other scales on bf16 operands dequantized once (untimed), with the\n"
    "dequantization + cuBLASLt bf16 timed as a second anchor (deq+LT ms, speed x);\n"
    "an unscaled problem it does not compute is timed alone. Each output is checked\n"
    "against cuBLASLt's; outputs of a problem with scale tensors also against the f64\n"
    "reference on 128 x 128 sampled elements of D, ours within 1.25x cuBLASLt's\n"
    "error and the payload's bound.\n"
    "--roofline first measures the device's two ceilings (a 1 GiB copy within the\n"
    "device; cuBLASLt at 8192^3 in the same dtypes) and gives each shape its floor,\n"
    "what bounds it, and the floor as a share of each side's time.\n"
    "--versus P[:E] (up to 4 times) times another payload section P of the registry\n"
    "(with epilogue section E, default --epilogue) on the same inputs in the same\n"
    "rounds: its ms and speed x (its ms / ours, above 1: ours faster) follow the\n"
    "ratio, its D is checked against ours (A/B of kernel builds: bench/ab.sh).\n"
    "The table goes to stdout; each shape's progress (phase, elapsed time) to stderr.\n\n"
    "--backend cpu times the CPU backend instead, against the system BLAS's sgemm\n"
    "(opened at run time: $TILEPIPE_CPU_BLAS, else libopenblas.so.0, libblis.so.4,\n"
    "libmkl_rt.so, libblas.so.3; none: ours alone) on A and B dequantized once to f32,\n"
    "host clock, median of --iters runs after --warmup (default 2 on the CPU); GFLOP/s\n"
    "and the ratio per shape, D checked against BLAS's. No GPU needed; --versus,\n"
    "--roofline, --svg, --back-to-back and --epilogue residual are the GPU's.\n\n"
    "Record results under bench/results/ (docs/tool.md): set TILEPIPE_COMMIT to\n"
    "`git describe --always --dirty` so the files name the commit. --backend cuda\n"
    "needs a CUDA GPU (exit 77 without one).";

/* The shapes to run, from -m -n -k or a file; exit status on failure. */
static int load_shapes(const bench_args *a, tp_shape **shapes, size_t *count) {
  const int given = (a->m > 0) + (a->n > 0) + (a->k > 0);
  if (given > 0 && (given < 3 || a->shapes))
    return tp_cli_fail("bench", TP_EXIT_USAGE,
                       "give either all of -m, -n and -k, or --shapes FILE");
  if (given == 3) {
    *shapes = malloc(sizeof **shapes);
    if (*shapes == NULL) return tp_cli_fail("bench", TP_EXIT_ERROR, "out of host memory");
    (*shapes)[0] = (tp_shape){a->m, a->n, a->k};
    *count = 1;
    return TP_EXIT_OK;
  }
  const char *path = a->shapes ? a->shapes
                     : access(LOCAL_SHAPES, R_OK) == 0 ? LOCAL_SHAPES
                                                        : TP_BENCH_SHAPES_FILE;
  char err[512];
  if (tp_shapes_read(path, shapes, count, err, sizeof err) != TP_OK)
    return tp_cli_fail("bench", TP_EXIT_ERROR, "%s", err);
  return TP_EXIT_OK;
}

/* name as a dtype that bench compares for `flag`: one of the first `count`
 * of `taken` (listed in `list`). */
static int parse_dtype(const char *flag, const char *name, const tp_dtype *taken, int count,
                       const char *list, tp_dtype *out) {
  *out = tp_dtype_from_name(name);
  if (*out == TP_DTYPE_NONE)
    return tp_cli_fail("bench", TP_EXIT_USAGE, "%s: unknown dtype '%s' (%s)", flag, name, list);
  for (int i = 0; i < count; i++)
    if (taken[i] == *out) return TP_EXIT_OK;
  return tp_cli_fail("bench", TP_EXIT_USAGE, "%s: bench does not compare %s (%s)", flag,
                     tp_dtype_name(*out), list);
}

/* The --versus values split into their sections (E defaulting to the
 * run's epilogue), into names[] and versus[]; exit status. */
static int split_versus(const tp_cli_list *list, const char *epilogue, versus_names *names,
                        tp_bench_versus *versus) {
  for (int v = 0; v < list->count; v++) {
    const char *text = list->values[v], *colon = strchr(text, ':');
    const size_t payload_len = colon ? (size_t)(colon - text) : strlen(text);
    const char *e = colon ? colon + 1 : epilogue;
    if (payload_len == 0 || *e == '\0' || strchr(e, ':'))
      return tp_cli_fail("bench", TP_EXIT_USAGE,
                         "--versus '%s': give P or P:E, a payload and an epilogue section", text);
    if (payload_len >= sizeof names[v].payload || strlen(e) >= sizeof names[v].epilogue)
      return tp_cli_fail("bench", TP_EXIT_USAGE, "--versus '%s': too long for a section name",
                         text);
    memcpy(names[v].payload, text, payload_len);
    names[v].payload[payload_len] = '\0';
    snprintf(names[v].epilogue, sizeof names[v].epilogue, "%s", e);
    versus[v] = (tp_bench_versus){names[v].payload, names[v].epilogue, NAN};
  }
  return TP_EXIT_OK;
}

/* Each versus side's sections are in the registry, of their kinds (a
 * section that is there but broken or disabled fails its plans instead,
 * row by row, with the registry's reason); exit status. */
static int check_versus(const tp_registry *reg, const tp_bench_versus *versus, int count) {
  for (int v = 0; v < count; v++) {
    const char *names[2] = {versus[v].payload, versus[v].epilogue};
    const tp_plugin_kind kinds[2] = {TP_PLUGIN_PAYLOAD, TP_PLUGIN_EPILOGUE};
    for (int j = 0; j < 2; j++) {
      tp_plugin_info info;
      if (tp_registry_find(reg, names[j], &info) != TP_OK)
        return tp_cli_fail("bench", TP_EXIT_ERROR, "--versus: no %s section [%s] in %s",
                           tp_plugin_kind_name(kinds[j]), names[j], tp_registry_path(reg));
      if (info.kind != kinds[j])
        return tp_cli_fail("bench", TP_EXIT_ERROR,
                           "--versus: section [%s] is of kind %s, not %s (%s:%d)", names[j],
                           tp_plugin_kind_name(info.kind), tp_plugin_kind_name(kinds[j]),
                           info.ini_file, info.ini_line);
    }
  }
  return TP_EXIT_OK;
}

/* What the rows of a problem with scale tensors compare and how they are
 * judged: desc and problem, the problem at the first shape. */
static void print_scale_settings(const tp_bench_env *env, const tp_gemm_desc *desc,
                                 const tp_problem *problem, size_t version) {
  if (env->cublaslt && tp_cublaslt_is_blockwise(desc))
    printf("cuBLASLt's blockwise FP8: A scaled per 1x128 (VEC128_32F), B per 128x128 "
           "(BLK128x128_32F)%s\n",
           version >= TP_CUBLASLT_BLOCKWISE_VERSION
               ? ""
               : "; this cuBLASLt predates them (12.9): every row is ours alone");
  else if (tp_bench_dequantizes(env, desc, problem))
    printf("cuBLASLt does not take these scales: its side is cuBLASLt bf16 on A and B "
           "dequantized once, outside the timing; deq+LT times the dequantization (one fused "
           "kernel an operand) and cuBLASLt bf16 together, what a user runs today\n");
  const tp_ref_tolerance tol =
      tp_ref_tolerance_for(env->out_dtype, 1, tp_ref_acc_bits(problem, TP_BACKEND_CUDA));
  printf("accuracy: each D against the f64 reference on up to %d x %d sampled elements; ours "
         "within %.2fx cuBLASLt's error (not told apart below %.2g) and the payload's bound\n",
         TP_BENCH_SAMPLE_ROWS, TP_BENCH_SAMPLE_COLS, TP_SAMPLE_ERROR_RATIO,
         tp_sample_error_floor(&tol));
}

/* The payload's problem at the first shape (rep): A's and B's dtypes
 * into env (--dtype, else the payload's defaults). A dtype pair the
 * payload refuses is a usage error; another failure (an unknown payload)
 * an error. */
static int describe_inputs(const bench_args *a, tp_bench_env *env, tp_shape first,
                           tp_gemm_desc *desc, tp_problem *problem) {
  /* --dtype as run's (a bare dtype for A and B, or a=..,b=..); D and C
   * are --out-dtype's. */
  static const char *const no_flags[4] = {NULL, NULL, NULL, NULL};
  tp_operand_dtypes dt;
  const int rc = tp_dtype_args("bench", "", a->dtype, no_flags, &dt);
  if (rc != TP_EXIT_OK) return rc;
  const int residual = strcmp(a->epilogue, "residual") == 0;
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = env->registry,
                                    .payload = env->payload, .a = dt.a, .b = dt.b,
                                    .b_scale = dt.b_scale,
                                    .d = env->out_dtype,
                                    .c = residual ? env->out_dtype : TP_DTYPE_NONE,
                                    .m = first.m, .n = first.n, .k = first.k, .alpha = 1.0f,
                                    .beta = residual ? 1.0f : 0.0f};
  char err[1024];
  const tp_status st = tp_ref_problem_describe(&spec, desc, problem, err, sizeof err);
  if (st != TP_OK)
    return tp_cli_fail("bench", st == TP_ERR_UNSUPPORTED ? TP_EXIT_USAGE : TP_EXIT_ERROR, "%s%s",
                       st == TP_ERR_UNSUPPORTED ? "--dtype: " : "", err);
  env->dtype = desc->a.dtype;
  env->b_dtype = desc->b.dtype;
  env->b_scale = dt.b_scale;
  return TP_EXIT_OK;
}

/* Opens cuBLASLt and its workspace; NULL (and a printed reason) without. */
static tp_cublaslt *open_cublaslt(void **workspace, size_t bytes) {
  char err[512];
  tp_cublaslt *lt;
  if (tp_cublaslt_open(&lt, err, sizeof err) != TP_OK) {
    printf("cuBLASLt: not available (%s); timing tilepipe alone\n", err);
    return NULL;
  }
  if (tp_device_alloc(workspace, bytes) != TP_OK) {
    printf("cuBLASLt: no workspace (%s); timing tilepipe alone\n", tp_error_message());
    tp_cublaslt_close(lt);
    return NULL;
  }
  return lt;
}

/* A geometric mean, built up one positive value at a time (others are
 * skipped: not measured). */
typedef struct geomean {
  double log_sum;
  int count;
} geomean;

static void geomean_add(geomean *g, double v) {
  if (!(v > 0.0) || isinf(v)) return;
  g->log_sum += log(v);
  g->count++;
}

static double geomean_value(const geomean *g) {
  return g->count ? exp(g->log_sum / g->count) : NAN;
}

/* Runs every shape, prints the table (with the sampled errors when the
 * problem is `scaled`), writes the files; the exit status. */
static int bench(const bench_args *a, tp_bench_env *env, tp_bench_meta *meta,
                 const tp_shape *shapes, size_t count, int scaled, int dequant) {
  tp_bench_row *rows = calloc(count, sizeof *rows);
  if (rows == NULL) return tp_cli_fail("bench", TP_EXIT_ERROR, "out of host memory");
  const tp_bench_columns cols = {strcmp(a->epilogue, "store") != 0, env->ceilings != NULL,
                                 scaled, dequant};
  tp_bench_table_header(stdout, meta, cols);
  double worst = NAN;
  geomean ratios = {0.0, 0}, deq_speeds = {0.0, 0}, ours_share = {0.0, 0}, lt_share = {0.0, 0};
  geomean speeds[TP_BENCH_MAX_VERSUS] = {{0.0, 0}};
  int rc = TP_EXIT_OK;
  tp_bench_progress progress;
  tp_bench_progress_start(&progress, stderr, isatty(fileno(stderr)), tp_time_now_ms, count);
  env->progress = &progress;
  for (size_t i = 0; i < count; i++) {
    env->seed = (uint64_t)a->seed + i;
    fflush(stdout); /* what is on stdout goes before the progress, in a shared log too */
    tp_bench_progress_shape(&progress, i, shapes[i]);
    tp_bench_shape(env, shapes[i], &rows[i]);
    tp_bench_progress_done(&progress, rows[i].check);
    tp_bench_table_row(stdout, meta, &rows[i], cols);
    if (!isnan(rows[i].overhead) && (isnan(worst) || rows[i].overhead > worst))
      worst = rows[i].overhead;
    geomean_add(&ratios, rows[i].ratio);
    geomean_add(&deq_speeds, rows[i].deq_speed);
    for (int v = 0; v < meta->versus_count; v++) geomean_add(&speeds[v], rows[i].versus[v].speed);
    geomean_add(&ours_share, rows[i].roofline.floor_ms / rows[i].ours_ms);
    geomean_add(&lt_share, rows[i].roofline.floor_ms / rows[i].lt_ms);
    if (strcmp(rows[i].check, "error") == 0) rc = TP_EXIT_ERROR;
    if (strcmp(rows[i].check, "MISMATCH") == 0 && rc == TP_EXIT_OK) rc = TP_EXIT_FAIL;
  }
  meta->geomean_ratio = geomean_value(&ratios);
  if (ratios.count)
    printf("geometric mean of the ratios (tilepipe / cuBLASLt): %.3f over %d shapes\n",
           meta->geomean_ratio, ratios.count);
  if (deq_speeds.count)
    printf("geometric mean of speed x over dequantize + cuBLASLt bf16 (its ms / ours): %.3f over "
           "%d shapes\n",
           geomean_value(&deq_speeds), deq_speeds.count);
  for (int v = 0; v < meta->versus_count; v++) {
    meta->versus[v].geomean_speed = geomean_value(&speeds[v]);
    if (speeds[v].count)
      printf("geometric mean of speed x (versus %s ms / ours, above 1: ours faster): %.3f over "
             "%d shapes\n",
             meta->versus[v].payload, meta->versus[v].geomean_speed, speeds[v].count);
  }
  if (cols.store && !isnan(worst))
    printf("largest overhead over our store epilogue (same process): %+.1f%%\n", 100.0 * worst);
  if (ours_share.count)
    printf("geometric mean of the floor over the time: tilepipe %.2f, cuBLASLt %.2f (1 = at the "
           "floor)\n",
           geomean_value(&ours_share), geomean_value(&lt_share));
  char err[512];
  if (a->csv && tp_bench_write_csv(a->csv, meta, rows, count, err, sizeof err) != TP_OK)
    rc = tp_cli_fail("bench", TP_EXIT_ERROR, "%s", err);
  if (a->json && tp_bench_write_json(a->json, meta, rows, count, err, sizeof err) != TP_OK)
    rc = tp_cli_fail("bench", TP_EXIT_ERROR, "%s", err);
  if (a->svg && tp_bench_write_svg(a->svg, meta, rows, count, err, sizeof err) != TP_OK)
    rc = tp_cli_fail("bench", TP_EXIT_ERROR, "%s", err);
  free(rows);
  return rc;
}

/* The two ceilings into meta (NaN where not measured), said in one line;
 * whether every shape can have its floor. */
static int measure_ceilings(const tp_bench_env *env, tp_bench_meta *meta) {
  const tp_ceiling_gemm gemm = {env->cublaslt, env->workspace, env->workspace_bytes, env->dtype,
                                env->out_dtype};
  char err[512];
  const tp_status st = tp_ceilings_measure(&gemm, &meta->ceilings, err, sizeof err);
  printf("ceilings: memory ");
  if (isnan(meta->ceilings.bytes_per_s)) printf("not measured");
  else printf("%.2f TB/s (%d MiB copied within the device, read + written)",
              meta->ceilings.bytes_per_s * 1e-12, TP_CEILING_COPY_MIB);
  printf(", arithmetic ");
  if (isnan(meta->ceilings.flops_per_s)) printf("not measured");
  else printf("%.0f TFLOP/s (cuBLASLt, %d^3, %s -> %s)", meta->ceilings.flops_per_s * 1e-12,
              TP_CEILING_GEMM_SIZE, tp_dtype_name(env->dtype), tp_dtype_name(env->out_dtype));
  if (st != TP_OK) printf("; no floors: %s", err);
  printf("\n");
  return st == TP_OK;
}

/* The options only the GPU's bench has, refused with --backend cpu; exit
 * status. */
static int check_cpu_options(const bench_args *a) {
  const char *gpu_only = a->versus.count ? "--versus"
                         : a->roofline    ? "--roofline"
                         : a->svg         ? "--svg"
                         : a->back_to_back > 1 ? "--back-to-back"
                         : strcmp(a->epilogue, "store") != 0 ? "--epilogue residual"
                                                             : NULL;
  if (gpu_only != NULL)
    return tp_cli_fail("bench", TP_EXIT_USAGE, "%s is not for --backend cpu (the GPU's only)",
                       gpu_only);
  return TP_EXIT_OK;
}

/* `bench --backend cpu` on the described inputs: BLAS opened (or ours
 * alone, saying why), the table, the report files; the exit status. */
static int bench_cpu(const bench_args *a, const tp_bench_env *env, const tp_shape *shapes,
                     size_t count) {
  tp_bench_row *rows = calloc(count, sizeof *rows);
  if (rows == NULL) return tp_cli_fail("bench", TP_EXIT_ERROR, "out of host memory");
  char err[1024], cpu[256];
  tp_cpu_blas *blas = NULL;
  const int have_blas = tp_cpu_blas_open(&blas, err, sizeof err) == TP_OK;
  tp_bench_cpu_model(cpu, sizeof cpu);
  const char *commit = getenv("TILEPIPE_COMMIT");
  tp_bench_meta meta = {.gpu = cpu, .commit = commit && *commit ? commit : "unknown",
                        .payload = env->payload, .epilogue = a->epilogue, .dtype = env->dtype,
                        .out_dtype = env->out_dtype, .warmup = env->warmup,
                        .iters = env->iters, .back_to_back = 1, .ceilings = {NAN, NAN}};
  tp_bench_date(meta.date, sizeof meta.date);
  printf("CPU %s, BLAS %s, tilepipe %s (%s), %s\n", cpu,
         have_blas ? tp_cpu_blas_name(blas) : "none", tp_version(), meta.commit, meta.date);
  if (!have_blas) printf("BLAS: not available (%s); timing tilepipe alone\n", err);
  printf("%s x store on the CPU backend, A %s, B %s, D %s, warm-up %d, median of %d; BLAS "
         "sgemm on A and B dequantized to f32 once (untimed)\n",
         env->payload, tp_dtype_name(env->dtype), tp_dtype_name(env->b_dtype),
         tp_dtype_name(env->out_dtype), env->warmup, env->iters);
  const tp_bench_cpu_env cenv = {env->registry, env->payload, env->dtype, env->b_dtype,
                                 env->b_scale, env->out_dtype, env->warmup, env->iters,
                                 blas};
  int rc = tp_bench_cpu(&cenv, &meta, shapes, count, (uint64_t)a->seed, rows);
  if (a->csv && tp_bench_write_csv(a->csv, &meta, rows, count, err, sizeof err) != TP_OK)
    rc = tp_cli_fail("bench", TP_EXIT_ERROR, "%s", err);
  if (a->json && tp_bench_write_json(a->json, &meta, rows, count, err, sizeof err) != TP_OK)
    rc = tp_cli_fail("bench", TP_EXIT_ERROR, "%s", err);
  tp_cpu_blas_close(blas);
  free(rows);
  return rc;
}

int tp_cmd_bench(int argc, char **argv) {
  bench_args a = {.epilogue = "store", .out_dtype = "bf16", .backend = "cuda",
                  .warmup = -1, .iters = 50, .back_to_back = 1, .seed = 1};
  const int64_t big = TP_GEMM_MAX_DIM;
  const tp_cli_option options[] = {
      {"shapes", TP_CLI_STRING, &a.shapes, "FILE", "the shapes to run (\"M N K\" lines)", 0, 0},
      {"m", TP_CLI_INT, &a.m, "M", "one shape instead of a file: rows of A and D", 1, big},
      {"n", TP_CLI_INT, &a.n, "N", "columns of D", 1, big},
      {"k", TP_CLI_INT, &a.k, "K", "the reduction length", 1, big},
      {"payload", TP_CLI_STRING, &a.payload, "P",
       "payload plugin (default: the registry's first payload)", 0, 0},
      {"epilogue", TP_CLI_STRING, &a.epilogue, "E",
       "store (default) or residual (beta = 1, C of the output dtype)", 0, 0},
      {"dtype", TP_CLI_STRING, &a.dtype, "SPEC",
       "A and B: a dtype, or a=DT,b=DT, any the payload takes (default: the payload's)", 0, 0},
      {"out-dtype", TP_CLI_STRING, &a.out_dtype, "DT", "D (and C): bf16 (default), f16, f32", 0,
       0},
      {"warmup", TP_CLI_INT, &a.warmup, "W",
       "untimed runs per side and shape (default 10; 2 on the CPU)", 0, 100000},
      {"iters", TP_CLI_INT, &a.iters, "I", "timed runs, median reported (>= 20, default 50)", 20,
       100000},
      {"back-to-back", TP_CLI_INT, &a.back_to_back, "N",
       "time N runs of a side in a row per pair of events (default 1: each run alone)", 1, 1000},
      {"seed", TP_CLI_INT, &a.seed, "S", "seed of the random inputs (default 1)", 0, INT64_MAX / 2},
      {"csv", TP_CLI_STRING, &a.csv, "FILE", "write the results as CSV", 0, 0},
      {"json", TP_CLI_STRING, &a.json, "FILE", "write the results as JSON", 0, 0},
      {"svg", TP_CLI_STRING, &a.svg, "FILE",
       "draw the run (ratio per shape, time against the floor) as SVG", 0, 0},
      {"roofline", TP_CLI_FLAG, &a.roofline, NULL,
       "measure the device's ceilings first; give each shape its floor", 0, 0},
      {"versus", TP_CLI_LIST, &a.versus, "P[:E]",
       "also time payload section P (epilogue section E) on the same inputs; up to 4 times", 0,
       TP_BENCH_MAX_VERSUS},
      {"backend", TP_CLI_STRING, &a.backend, "B",
       "cuda (default: the GPU against cuBLASLt) or cpu (against the system BLAS)", 0, 0},
      {"registry", TP_CLI_STRING, &a.registry, "PATH", "the registry INI", 0, 0},
  };
  const tp_cli_command cmd = {"bench", "bench [--shapes FILE | -m M -n N -k K] [options]", summary,
                              options, (int)(sizeof options / sizeof options[0]), 0};
  const char *positional[1];
  int npos;
  int rc = tp_cli_parse(&cmd, argc, argv, positional, &npos);
  if (rc != TP_EXIT_OK) return rc < 0 ? TP_EXIT_OK : rc;
  const int on_cpu = strcmp(a.backend, "cpu") == 0;
  if (!on_cpu && strcmp(a.backend, "cuda") != 0)
    return tp_cli_fail("bench", TP_EXIT_USAGE, "--backend must be cuda or cpu, not '%s'",
                       a.backend);
  if (a.warmup < 0) a.warmup = on_cpu ? 2 : 10;
  if (strcmp(a.epilogue, "store") != 0 && strcmp(a.epilogue, "residual") != 0)
    return tp_cli_fail("bench", TP_EXIT_USAGE,
                       "--epilogue must be store or residual (what cuBLASLt can compare), not "
                       "'%s'",
                       a.epilogue);
  tp_bench_env env = {.payload = a.payload, .epilogue = a.epilogue, .warmup = (int)a.warmup,
                      .iters = (int)a.iters, .back_to_back = (int)a.back_to_back,
                      .workspace_bytes = (size_t)32 << 20};
  versus_names names[TP_BENCH_MAX_VERSUS];
  tp_bench_versus versus[TP_BENCH_MAX_VERSUS];
  memset(versus, 0, sizeof versus);
  if ((rc = split_versus(&a.versus, a.epilogue, names, versus)) != TP_EXIT_OK) return rc;
  if (tp_registry_open(&env.registry, a.registry) != TP_OK)
    return tp_cli_fail("bench", TP_EXIT_ERROR, "cannot open the registry: %s", tp_error_message());
  static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};
  tp_shape *shapes = NULL;
  size_t count = 0;
  tp_gemm_desc first;
  tp_problem problem;
  if ((rc = parse_dtype("--out-dtype", a.out_dtype, outputs, 3, "bf16, f16, f32",
                        &env.out_dtype)) != TP_EXIT_OK ||
      (rc = load_shapes(&a, &shapes, &count)) != TP_EXIT_OK ||
      (env.payload == NULL &&
       (env.payload = tp_view_default_payload("bench", env.registry)) == NULL) ||
      (rc = describe_inputs(&a, &env, shapes[0], &first, &problem)) != TP_EXIT_OK ||
      (rc = check_versus(env.registry, versus, a.versus.count)) != TP_EXIT_OK) {
    tp_registry_close(env.registry);
    free(shapes);
    return rc != TP_EXIT_OK ? rc : TP_EXIT_ERROR;
  }
  if (on_cpu) {
    if ((rc = check_cpu_options(&a)) == TP_EXIT_OK) rc = bench_cpu(&a, &env, shapes, count);
    tp_registry_close(env.registry);
    free(shapes);
    return rc;
  }
  const int scaled = problem.a_scale.rows > 0 || problem.b_scale.rows > 0;

  tp_device_props dev;
  tp_status st = tp_device_info(&dev);
  if (st != TP_OK) {
    tp_registry_close(env.registry);
    free(shapes);
    return tp_cli_fail("bench", st == TP_ERR_NO_DEVICE ? TP_EXIT_NO_GPU : TP_EXIT_ERROR,
                       "needs a CUDA GPU: %s", tp_error_message());
  }
  /* After tp_device_info: the generator loads into the context it made
   * current. */
  tp_seeded_device *generator;
  char err[512];
  if (tp_seeded_device_open(&generator, err, sizeof err) != TP_OK) {
    tp_registry_close(env.registry);
    free(shapes);
    return tp_cli_fail("bench", TP_EXIT_ERROR, "cannot load the input generator: %s", err);
  }
  env.inputs = generator;
  env.l2_bytes = dev.l2_bytes ? dev.l2_bytes : (size_t)50 << 20;
  /* Each row asks cuBLASLt for its problem (tools/cublaslt_problem.h);
   * one it does not compute is ours alone, the reason in the row's note. */
  env.cublaslt = open_cublaslt(&env.workspace, env.workspace_bytes);
  const char *commit = getenv("TILEPIPE_COMMIT");
  tp_bench_meta meta = {.gpu = dev.name, .driver_version = dev.driver_version,
                        .cublaslt_version = env.cublaslt ? tp_cublaslt_version(env.cublaslt) : 0,
                        .commit = commit && *commit ? commit : "unknown",
                        .payload = env.payload, .epilogue = a.epilogue, .dtype = env.dtype,
                        .out_dtype = env.out_dtype, .warmup = env.warmup, .iters = env.iters,
                        .back_to_back = env.back_to_back,
                        .ceilings = {NAN, NAN}, .versus_count = a.versus.count};
  memcpy(meta.versus, versus, sizeof versus);
  env.versus = meta.versus;
  env.versus_count = meta.versus_count;
  tp_bench_date(meta.date, sizeof meta.date);
  printf("GPU %s (%d SMs, cc %d.%d, L2 %zu MiB), driver %d.%d, cuBLASLt %zu, tilepipe %s (%s), "
         "%s\n",
         dev.name, dev.sm_count, dev.cc_major, dev.cc_minor, env.l2_bytes >> 20,
         dev.driver_version / 1000, dev.driver_version % 1000 / 10, meta.cublaslt_version,
         tp_version(), meta.commit, meta.date);
  printf("%s x %s, A %s, B %s, D %s, warm-up %d, median of %d", env.payload, a.epilogue,
         tp_dtype_name(env.dtype), tp_dtype_name(env.b_dtype), tp_dtype_name(env.out_dtype),
         env.warmup, env.iters);
  if (env.back_to_back > 1)
    printf(", %d runs of a side back to back per timing (ms per run)", env.back_to_back);
  printf("\n");
  for (int v = 0; v < meta.versus_count; v++)
    printf("versus %s x %s: on the same inputs, in the same rounds; speed x = its ms / ours "
           "(above 1: ours faster)\n",
           meta.versus[v].payload, meta.versus[v].epilogue);
  if (scaled) print_scale_settings(&env, &first, &problem, meta.cublaslt_version);
  if (a.roofline && measure_ceilings(&env, &meta)) env.ceilings = &meta.ceilings;
  rc = bench(&a, &env, &meta, shapes, count, scaled, tp_bench_dequantizes(&env, &first, &problem));
  tp_seeded_device_close(generator);
  tp_device_free(env.workspace);
  tp_cublaslt_close(env.cublaslt);
  tp_registry_close(env.registry);
  free(shapes);
  return rc;
}
