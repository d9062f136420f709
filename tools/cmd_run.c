/* tools/cmd_run.c: `tilepipe run`: one GEMM through a payload and an
 * epilogue plugin on random inputs.
 *
 * The payload describes the problem (tp_problem_describe: A's and B's
 * default dtypes, its scale tensors and what they mean), so any payload
 * runs and verifies, in tree or out. The plan comes next, from the
 * problem's shape alone, so that a problem the plugins refuse fails with
 * their reason before any input is made. The problem comes from the
 * reference library (tilepipe/reference.h) with its rows padded to 16
 * bytes, so the same problem runs on either backend. D starts poisoned
 * (NaN in every element). On the CUDA backend the problem is copied into
 * device memory, run there and D copied back. The time is the median of
 * --repeat runs after --warmup ones;
 * --verify compares D with the naive f64 reference (every element against
 * its own bound, and the normwise relative error) and checks that D's row
 * padding was not written. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"
#include "tools/cli.h"
#include "tools/commands.h"
#include "tools/dtype_args.h"
#include "tools/registry_view.h"
#include "tools/timing.h"

typedef struct run_args {
  const char *registry, *payload, *epilogue, *backend, *sf_layout;
  const char *dtype, *op_dtype[4]; /* --dtype; --a/b/c/d-dtype */
  int64_t m, n, k, seed, repeat, warmup;
  float alpha, beta;
  int verify;
} run_args;

typedef struct run_ctx {
  tp_plan *plan;
  const tp_gemm_desc *desc;
} run_ctx;

static tp_status run_once(void *ctx, int iteration, char *err, size_t errlen) {
  (void)iteration;
  const run_ctx *r = ctx;
  tp_status st = tp_plan_run(r->plan, r->desc, NULL);
  if (st != TP_OK) snprintf(err, errlen, "%s", tp_error_message());
  return st;
}

/* A tilepipe failure: exit 77 when an explicitly requested GPU is absent. */
static int failed(const run_args *a, tp_status st, const char *what, const char *why) {
  const int no_gpu = st == TP_ERR_NO_DEVICE && strcmp(a->backend, "cuda") == 0;
  return tp_cli_fail("run", no_gpu ? TP_EXIT_NO_GPU : TP_EXIT_ERROR, "%s: %s", what, why);
}

/* The problem's expected D (tp_ref_problem_expect); on failure the message
 * is printed and the exit status returned. */
static int expect(tp_ref_problem *p, const char *epilogue) {
  if (strcmp(epilogue, "residual") != 0 && strcmp(epilogue, "store") != 0)
    return tp_cli_fail("run", TP_EXIT_USAGE,
                       "--verify knows the store and residual epilogues, not '%s'", epilogue);
  char err[256];
  const tp_ref_epilogue e = strcmp(epilogue, "residual") == 0 ? TP_REF_RESIDUAL : TP_REF_STORE;
  if (tp_ref_problem_expect(p, e, err, sizeof err) != TP_OK)
    return tp_cli_fail("run", TP_EXIT_ERROR, "--verify: reference: %s", err);
  return TP_EXIT_OK;
}

static int verdict(const tp_ref_problem *p, tp_backend backend) {
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, backend);
  tp_ref_report rep = {.struct_size = sizeof rep};
  if (tp_ref_problem_check(p, &tol, &rep) != TP_OK)
    return tp_cli_fail("run", TP_EXIT_ERROR, "--verify: no expected values to check against");
  printf("verify:   max abs error %.3g, relative error %.3g (bound %.3g): %s\n", rep.max_abs,
         rep.rel, rep.rel_bound, rep.pass ? "PASS" : "FAIL");
  if (rep.bad > 0)
    printf("          %lld elements outside their bound; first D[%lld][%lld] = %.9g, "
           "reference %.9g\n",
           (long long)rep.bad, (long long)rep.bad_row, (long long)rep.bad_col, rep.bad_value,
           rep.bad_ref);
  if (rep.padding_at >= 0) printf("          the run wrote into D's row padding\n");
  return rep.pass ? TP_EXIT_OK : TP_EXIT_FAIL;
}

/* Runs and times the plan on p, verifies; returns the exit status. */
static int execute(const run_args *a, tp_plan *plan, tp_ref_problem *p) {
  tp_status st;
  const tp_backend backend = tp_plan_backend(plan);
  char text[1024];
  tp_plan_describe(plan, text, sizeof text);
  printf("backend:  %s\nplan:     %s\n", tp_backend_name(backend), text);

  int rc = a->verify ? expect(p, a->epilogue) : TP_EXIT_OK;
  const int on_gpu = backend == TP_BACKEND_CUDA;
  run_ctx ctx = {plan, tp_ref_problem_desc(p)};
  tp_ref_problem_poison_d(p); /* on the device too, through the upload */
  if (rc == TP_EXIT_OK && on_gpu) {
    if ((st = tp_ref_problem_upload(p, text, sizeof text)) != TP_OK)
      rc = failed(a, st, "device buffers", text);
    ctx.desc = tp_ref_problem_device_desc(p);
  }
  double ms = 0.0;
  const int warmup = a->warmup >= 0 ? (int)a->warmup : on_gpu;
  if (rc == TP_EXIT_OK &&
      (st = tp_time_median(on_gpu, warmup, (int)a->repeat, run_once, &ctx, &ms, text,
                           sizeof text)) != TP_OK)
    rc = failed(a, st, "run failed", text);
  if (rc == TP_EXIT_OK && on_gpu &&
      (st = tp_ref_problem_download_d(p, text, sizeof text)) != TP_OK)
    rc = failed(a, st, "copying D back", text);
  if (rc == TP_EXIT_OK) {
    const double flops = 2.0 * (double)a->m * (double)a->n * (double)a->k;
    printf("time:     %.4f ms (median of %lld, %s)   %.4g TFLOP/s\n", ms, (long long)a->repeat,
           on_gpu ? "CUDA events" : "host clock", ms > 0 ? flops / (ms * 1e9) : INFINITY);
    if (a->verify) rc = verdict(p, backend);
  }
  return rc;
}

/* The problem's shape as its payload describes it (tp_ref_problem_describe:
 * no data yet) into *shape; on failure the exit status. */
static int describe_shape(const tp_ref_problem_spec *spec, tp_gemm_desc *shape) {
  tp_problem problem;
  char err[1024];
  if (tp_ref_problem_describe(spec, shape, &problem, err, sizeof err) != TP_OK)
    return tp_cli_fail("run", TP_EXIT_ERROR, "cannot describe the problem: %s", err);
  return TP_EXIT_OK;
}

static const char *summary =
    "Runs D = epilogue(A x B^T) once (or --repeat times) on seeded random inputs through\n"
    "the named payload and epilogue plugins, and prints the backend, the plan, the median\n"
    "time and TFLOP/s. The payload describes its problem: its scale tensors (in\n"
    "--sf-layout where it takes several layouts), what they mean and the values they\n"
    "get. Rows are padded to 16 bytes. --verify compares D with the naive f64 reference\n"
    "and prints PASS or FAIL (exit status 1 on FAIL).\n\n"
    "Dtypes: --dtype a=bf16,b=bf16,d=bf16,c=f32 (or just --dtype e4m3 for A and B);\n"
    "defaults: A and B the payload's, D = bf16, C = D for residual. The payload\n"
    "defaults to the registry's first usable payload section.";

int tp_cmd_run(int argc, char **argv) {
  run_args a = {.epilogue = "store", .backend = "auto",
                .sf_layout = "128x4", .seed = 1, .repeat = 1, .warmup = -1, .alpha = 1.0f,
                .beta = NAN};
  const int64_t big = TP_GEMM_MAX_DIM;
  const tp_cli_option options[] = {
      {"payload", TP_CLI_STRING, &a.payload, "P",
       "payload plugin (default: the registry's first payload)", 0, 0},
      {"epilogue", TP_CLI_STRING, &a.epilogue, "E", "epilogue plugin (default store)", 0, 0},
      {"m", TP_CLI_INT, &a.m, "M", "rows of A and D (required)", 1, big},
      {"n", TP_CLI_INT, &a.n, "N", "rows of B, columns of D (required)", 1, big},
      {"k", TP_CLI_INT, &a.k, "K", "the reduction length (required)", 1, big},
      {"dtype", TP_CLI_STRING, &a.dtype, "SPEC", "a=DT,b=DT,c=DT,d=DT, or DT for A and B", 0, 0},
      {"a-dtype", TP_CLI_STRING, &a.op_dtype[0], "DT", "dtype of A", 0, 0},
      {"b-dtype", TP_CLI_STRING, &a.op_dtype[1], "DT", "dtype of B", 0, 0},
      {"c-dtype", TP_CLI_STRING, &a.op_dtype[2], "DT", "dtype of C ('none': no C)", 0, 0},
      {"d-dtype", TP_CLI_STRING, &a.op_dtype[3], "DT", "dtype of D", 0, 0},
      {"alpha", TP_CLI_FLOAT, &a.alpha, "X", "scale of the product (default 1)", 0, 0},
      {"beta", TP_CLI_FLOAT, &a.beta, "X", "scale of C (default 1 with C, else 0)", 0, 0},
      {"sf-layout", TP_CLI_STRING, &a.sf_layout, "L",
       "scale layout, for payloads whose scales take several: 128x4 (default) or rowmajor", 0,
       0},
      {"backend", TP_CLI_STRING, &a.backend, "B", "auto (default), cpu or cuda", 0, 0},
      {"verify", TP_CLI_FLAG, &a.verify, NULL, "check D against the naive f64 reference", 0, 0},
      {"seed", TP_CLI_INT, &a.seed, "S", "seed of the random inputs (default 1)", 0, INT64_MAX},
      {"repeat", TP_CLI_INT, &a.repeat, "R", "timed runs; the median is printed (default 1)", 1,
       100000},
      {"warmup", TP_CLI_INT, &a.warmup, "W", "untimed runs first (default 1 on cuda, 0 on cpu)",
       0, 100000},
      {"registry", TP_CLI_STRING, &a.registry, "PATH", "the registry INI", 0, 0},
  };
  const tp_cli_command cmd = {"run", "run [--payload P] [--epilogue E] -m M -n N -k K [options]",
                              summary, options, (int)(sizeof options / sizeof options[0]), 0};
  const char *positional[1];
  int npos;
  int rc = tp_cli_parse(&cmd, argc, argv, positional, &npos);
  if (rc != TP_EXIT_OK) return rc < 0 ? TP_EXIT_OK : rc;
  if (a.m == 0 || a.n == 0 || a.k == 0)
    return tp_cli_fail("run", TP_EXIT_USAGE, "-m, -n and -k are required (see 'tilepipe run --help')");
  if (tp_backend_from_name(a.backend) < 0)
    return tp_cli_fail("run", TP_EXIT_USAGE, "--backend must be auto, cpu or cuda, not '%s'",
                       a.backend);
  if (strcmp(a.sf_layout, "128x4") != 0 && strcmp(a.sf_layout, "rowmajor") != 0)
    return tp_cli_fail("run", TP_EXIT_USAGE, "--sf-layout must be 128x4 or rowmajor, not '%s'",
                       a.sf_layout);
  tp_registry *reg;
  if (tp_registry_open(&reg, a.registry) != TP_OK)
    return tp_cli_fail("run", TP_EXIT_ERROR, "cannot open the registry: %s", tp_error_message());
  tp_operand_dtypes dt;
  if ((rc = tp_dtype_args("run", a.epilogue, a.dtype, a.op_dtype, &dt)) != TP_EXIT_OK ||
      (a.payload == NULL && (a.payload = tp_view_default_payload("run", reg)) == NULL)) {
    tp_registry_close(reg);
    return rc != TP_EXIT_OK ? rc : TP_EXIT_ERROR;
  }
  if (isnan(a.beta)) a.beta = dt.c != TP_DTYPE_NONE ? 1.0f : 0.0f;

  tp_ref_problem_spec spec = {
      .struct_size = sizeof spec, .registry = reg, .payload = a.payload, .a = dt.a, .b = dt.b,
      .b_scale = dt.b_scale,
      .c = dt.c, .d = dt.d,
      .sf_layout = strcmp(a.sf_layout, "128x4") == 0 ? TP_LAYOUT_SF_128X4 : TP_LAYOUT_STRIDED,
      .m = a.m, .n = a.n, .k = a.k, .align_rows = 1, .alpha = a.alpha, .beta = a.beta};
  printf("tilepipe run: %s x %s, M=%lld N=%lld K=%lld\n", a.payload, a.epilogue, (long long)a.m,
         (long long)a.n, (long long)a.k);
  fflush(stdout);

  tp_plan *plan = NULL;
  char err[1024];
  tp_ref_problem *p;
  tp_gemm_desc shape;
  if ((rc = describe_shape(&spec, &shape)) == TP_EXIT_OK) {
    /* The payload's defaults, so that the inputs are made as described. */
    spec.a = shape.a.dtype;
    spec.b = shape.b.dtype;
    printf("operands: A=%s B=%s D=%s C=%s alpha=%g beta=%g seed=%lld\n", tp_dtype_name(spec.a),
           tp_dtype_name(spec.b), tp_dtype_name(dt.d), tp_dtype_name(dt.c), (double)a.alpha,
           (double)a.beta, (long long)a.seed);
    fflush(stdout);
    const tp_status st = tp_plan_create(&plan, reg, a.payload, a.epilogue, &shape,
                                        (tp_backend)tp_backend_from_name(a.backend));
    if (st != TP_OK) rc = failed(&a, st, "cannot plan", tp_error_message());
  }
  if (rc == TP_EXIT_OK) {
    if (tp_ref_problem_create(&p, &spec, (uint64_t)a.seed, err, sizeof err) == TP_OK) {
      rc = execute(&a, plan, p);
      tp_ref_problem_destroy(p);
    } else {
      rc = tp_cli_fail("run", TP_EXIT_ERROR, "cannot make the inputs: %s", err);
    }
  }
  tp_plan_destroy(plan);
  tp_registry_close(reg);
  return rc;
}
