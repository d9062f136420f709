/* tools/bench_shape.c: see bench_shape.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tilepipe/device.h"
#include "tilepipe/plan.h"
#include "tools/bench_accuracy.h"
#include "tools/bench_shape.h"
#include "tools/cublaslt_problem.h"
#include "tools/output_diff.h"
#include "tools/seeded_problem.h"
#include "tools/timing.h"

enum { MAX_COPIES = 64 };
/* Sides timed against each other: ours, our store as a residual's
 * baseline, the versus sides, cuBLASLt, and dequantize + cuBLASLt. */
enum { MAX_SIDES = 4 + TP_BENCH_MAX_VERSUS };

/* Everything one shape holds; a[0], b[0] are the gpu problem's own. */
typedef struct shape_state {
  tp_seeded_problem gpu;
  void *a[MAX_COPIES], *b[MAX_COPIES];
  int copies;
  /* A problem cuBLASLt takes only dequantized (tp_bench_dequantizes): A's
   * and B's copies in bf16 for its side (the originals where an operand is
   * bf16 and unscaled already), and the buffers the dequantize + cuBLASLt
   * side writes them into at each run. */
  void *deq_a[MAX_COPIES], *deq_b[MAX_COPIES];
  void *deq_scratch_a, *deq_scratch_b;
  void *lt_d;    /* cuBLASLt's D */
  void *store_d; /* the store baseline's D (residual runs) */
  void *versus_d[TP_BENCH_MAX_VERSUS]; /* each versus side's D */
  tp_plan *plan;
  tp_plan *store_plan; /* a residual's baseline: our store on the same inputs */
  tp_plan *versus_plan[TP_BENCH_MAX_VERSUS];
  tp_cublaslt_gemm *lt;
} shape_state;

/* One implementation, run by tp_time_medians_interleaved. */
typedef struct side {
  const char *name;            /* for the progress: "ours", "store", a section, "cuBLASLt" */
  tp_plan *plan;               /* ours, or */
  const tp_cublaslt_gemm *lt;  /* cuBLASLt's */
  tp_gemm_desc desc;           /* A and B change per run */
  void *const *a, *const *b;   /* the copies it rotates over (s's own, or dequantized) */
  const tp_seeded_device *dequantize; /* set: each run dequantizes its copy first */
  const shape_state *s;
} side;

/* Operand `which` (TP_REF_A or B) of copy i, dequantized into out. */
static tp_status dequantize_operand(const tp_seeded_device *gen, const shape_state *s, int which,
                                    int i, void *out, char *err, size_t errlen) {
  const int a = which == TP_REF_A;
  tp_tensor x = a ? s->gpu.desc.a : s->gpu.desc.b;
  x.data = a ? s->a[i] : s->b[i];
  const tp_scale_map map = a ? s->gpu.problem.a_scale : s->gpu.problem.b_scale;
  return tp_seeded_device_dequantize(gen, &x, map.rows > 0 ? (a ? &s->gpu.desc.a_scale
                                                                 : &s->gpu.desc.b_scale)
                                                            : NULL,
                                     map, out, err, errlen);
}

static tp_status run_side(void *ctx, int iteration, char *err, size_t errlen) {
  side *x = ctx;
  const int i = iteration % x->s->copies;
  x->desc.a.data = (x->a ? x->a : x->s->a)[i];
  x->desc.b.data = (x->b ? x->b : x->s->b)[i];
  if (x->dequantize) {
    tp_status st;
    if (x->s->deq_scratch_a &&
        (st = dequantize_operand(x->dequantize, x->s, TP_REF_A, i, x->s->deq_scratch_a, err,
                                 errlen)) != TP_OK)
      return st;
    if (x->s->deq_scratch_b &&
        (st = dequantize_operand(x->dequantize, x->s, TP_REF_B, i, x->s->deq_scratch_b, err,
                                 errlen)) != TP_OK)
      return st;
    if (x->s->deq_scratch_a) x->desc.a.data = x->s->deq_scratch_a;
    if (x->s->deq_scratch_b) x->desc.b.data = x->s->deq_scratch_b;
  }
  if (x->lt) return tp_cublaslt_gemm_run(x->lt, &x->desc, NULL, err, errlen);
  tp_status st = tp_plan_run(x->plan, &x->desc, NULL);
  if (st != TP_OK) snprintf(err, errlen, "%s", tp_error_message());
  return st;
}

/* Host time of one run call: back-to-back calls from an idle device only
 * queue their launches, so the host clock measures the call itself
 * (checks, parameters, TMA descriptors, the launch). NaN on a failure. */
static double host_overhead(side *x) {
  enum { CALLS = 64 };
  char err[256];
  if (tp_device_synchronize(NULL) != TP_OK) return NAN;
  const double t0 = tp_time_now_ms();
  for (int i = 0; i < CALLS; i++) {
    if (run_side(x, i, err, sizeof err) != TP_OK) return NAN;
  }
  const double us = (tp_time_now_ms() - t0) * 1e3 / CALLS;
  return tp_device_synchronize(NULL) == TP_OK ? us : NAN;
}

static void note(tp_bench_row *row, const char *who, const char *why) {
  const size_t used = strlen(row->note);
  snprintf(row->note + used, sizeof row->note - used, "%s%s: %s", used ? "; " : "", who, why);
}

/* Copies of A and B until they span twice the L2 (at least one, at most
 * MAX_COPIES). */
static int rotation_copies(const tp_seeded_problem *gp, size_t l2_bytes) {
  const double inputs = (double)(gp->bytes[TP_REF_A] + gp->bytes[TP_REF_B]);
  const double copies = ceil(2.0 * (double)l2_bytes / inputs);
  return copies < 1.0 ? 1 : copies > MAX_COPIES ? MAX_COPIES : (int)copies;
}

/* The problem made on the device, the rotated copies, cuBLASLt's D. */
static tp_status upload(const tp_bench_env *env, tp_shape shape, shape_state *s, char *err,
                        size_t errlen) {
  const int residual = strcmp(env->epilogue, "residual") == 0;
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = env->registry,
                              .payload = env->payload, .a = env->dtype, .b = env->b_dtype,
                              .b_scale = env->b_scale,
                              .d = env->out_dtype, .c = residual ? env->out_dtype : TP_DTYPE_NONE,
                              .m = shape.m, .n = shape.n, .k = shape.k, .align_rows = 1,
                              .alpha = 1.0f, .beta = residual ? 1.0f : 0.0f};
  tp_status st = tp_seeded_problem_create(&s->gpu, env->inputs, &spec, env->seed, err, errlen);
  if (st != TP_OK) return st;
  s->copies = rotation_copies(&s->gpu, env->l2_bytes);
  s->a[0] = s->gpu.buffer[TP_REF_A];
  s->b[0] = s->gpu.buffer[TP_REF_B];
  for (int i = 1; i < s->copies; i++) {
    void **dst[2] = {&s->a[i], &s->b[i]};
    const int which[2] = {TP_REF_A, TP_REF_B};
    for (int j = 0; j < 2; j++) {
      const size_t bytes = (size_t)s->gpu.bytes[which[j]];
      if ((st = tp_device_alloc(dst[j], bytes)) != TP_OK ||
          (st = tp_device_copy_within(*dst[j], s->gpu.buffer[which[j]], bytes, NULL)) != TP_OK)
        goto device_error;
    }
  }
  if (env->cublaslt) {
    const size_t d_bytes = (size_t)s->gpu.bytes[TP_REF_D];
    if ((st = tp_device_alloc(&s->lt_d, d_bytes)) != TP_OK ||
        (st = tp_device_memset(s->lt_d, 0xFF, d_bytes)) != TP_OK)
      goto device_error;
  }
  /* The fills and copies are queued: wait, so that the inputs' time (and
   * any fault) shows here, not in the next phase. */
  if ((st = tp_device_synchronize(NULL)) != TP_OK) goto device_error;
  return TP_OK;
device_error:
  snprintf(err, errlen, "%s", tp_error_message());
  return st;
}

static void release(shape_state *s) {
  tp_cublaslt_gemm_destroy(s->lt);
  tp_plan_destroy(s->plan);
  tp_plan_destroy(s->store_plan);
  for (int v = 0; v < TP_BENCH_MAX_VERSUS; v++) {
    tp_plan_destroy(s->versus_plan[v]);
    tp_device_free(s->versus_d[v]);
  }
  for (int i = 1; i < MAX_COPIES; i++) {
    tp_device_free(s->a[i]);
    tp_device_free(s->b[i]);
  }
  for (int i = 0; i < MAX_COPIES; i++) {
    tp_device_free(s->deq_a[i]);
    tp_device_free(s->deq_b[i]);
  }
  tp_device_free(s->deq_scratch_a);
  tp_device_free(s->deq_scratch_b);
  tp_device_free(s->lt_d);
  tp_device_free(s->store_d);
  tp_seeded_problem_destroy(&s->gpu);
}

/* Times the sides that could be set up against each other (interleaved,
 * tools/timing.h) into *ms[i]; NaN and a note when they cannot run. */
static void time_sides(const tp_bench_env *env, side *const *sides, double *const *ms, int n,
                       tp_bench_row *row) {
  tp_timed_side timed[MAX_SIDES];
  double median[MAX_SIDES];
  char err[256];
  if (n == 0) return;
  for (int i = 0; i < n; i++) timed[i] = (tp_timed_side){run_side, sides[i]};
  if (tp_time_medians_interleaved(n, env->warmup, env->iters, env->back_to_back, timed, median, err,
                                  sizeof err) != TP_OK) {
    note(row, "timing", err);
    return;
  }
  for (int i = 0; i < n; i++) *ms[i] = median[i];
}

/* The epilogue's cost over a plain store, for an epilogue other than store:
 * our store plan of the same problem without C, into a D of its own, timed
 * in the same rounds as the others (an overhead against our own store must
 * not compare runs minutes apart, whose clocks differ). */
static int plan_store_baseline(const tp_bench_env *env, shape_state *s, side *store,
                               tp_bench_row *row) {
  *store = (side){.name = "store", .desc = s->gpu.desc, .s = s};
  store->desc.c.dtype = TP_DTYPE_NONE;
  store->desc.c.data = NULL;
  store->desc.beta = 0.0f;
  const size_t d_bytes = (size_t)s->gpu.bytes[TP_REF_D];
  if (tp_device_alloc(&s->store_d, d_bytes) != TP_OK) {
    note(row, "store", tp_error_message());
    return 0;
  }
  store->desc.d.data = s->store_d;
  tp_bench_progress_phase(env->progress, TP_BENCH_PLAN, "store");
  if (tp_plan_create(&s->store_plan, env->registry, env->payload, "store", &store->desc,
                     TP_BACKEND_CUDA) != TP_OK) {
    note(row, "store", tp_error_message());
    return 0;
  }
  store->plan = s->store_plan;
  return 1;
}

/* A run of a side before timing, waited for: a refusal at run time
 * (cuBLASLt's status the heuristic did not foresee, a versus kernel that
 * does not launch) costs the row that side, not the timing of the
 * others. */
static tp_status trial_run(side *x, char *err, size_t errlen) {
  tp_status st = run_side(x, 0, err, errlen);
  if (st == TP_OK && (st = tp_device_synchronize(NULL)) != TP_OK)
    snprintf(err, errlen, "trial run: %s", tp_error_message());
  return st;
}

/* Versus side v: its sections' plan of our descriptor, into a poisoned D
 * of its own, run once; whether it can be timed (else its note says
 * why). */
static int plan_versus(const tp_bench_env *env, shape_state *s, int v, side *x,
                       tp_bench_versus_row *vr) {
  const tp_bench_versus *w = &env->versus[v];
  *x = (side){.name = w->payload, .desc = s->gpu.desc, .s = s};
  const size_t d_bytes = (size_t)s->gpu.bytes[TP_REF_D];
  if (tp_device_alloc(&s->versus_d[v], d_bytes) != TP_OK ||
      tp_device_memset(s->versus_d[v], 0xFF, d_bytes) != TP_OK) {
    snprintf(vr->note, sizeof vr->note, "its D: %s", tp_error_message());
    return 0;
  }
  x->desc.d.data = s->versus_d[v];
  char what[96];
  snprintf(what, sizeof what, "versus %s", w->payload);
  tp_bench_progress_phase(env->progress, TP_BENCH_PLAN, what);
  if (tp_plan_create(&s->versus_plan[v], env->registry, w->payload, w->epilogue, &x->desc,
                     TP_BACKEND_CUDA) != TP_OK) {
    snprintf(vr->note, sizeof vr->note, "%s", tp_error_message());
    return 0;
  }
  x->plan = s->versus_plan[v];
  char err[256];
  if (trial_run(x, err, sizeof err) != TP_OK) {
    snprintf(vr->note, sizeof vr->note, "%s", err);
    return 0;
  }
  return 1;
}

/* Each timed versus side's D against ours (host copy `ours`), read into
 * the host buffer `buf`; the bound goes to the row when one is compared. */
static void check_versus(const tp_bench_env *env, const shape_state *s, const void *ours,
                         void *buf, double bound, tp_bench_row *row) {
  const size_t bytes = (size_t)s->gpu.bytes[TP_REF_D];
  for (int v = 0; v < env->versus_count; v++) {
    tp_bench_versus_row *vr = &row->versus[v];
    if (isnan(vr->ms)) continue;
    if (tp_device_copy_from(buf, s->versus_d[v], bytes) != TP_OK) {
      snprintf(vr->note, sizeof vr->note, "check: %s", tp_error_message());
      continue;
    }
    vr->rel_diff = tp_output_rel_diff(&s->gpu.desc.d, buf, ours);
    row->rel_bound = bound;
    vr->check = vr->rel_diff <= bound ? "ok" : "MISMATCH";
    if (vr->rel_diff > bound) row->check = "MISMATCH";
  }
}

/* Whether the problem has scale tensors: then both sides' Ds are judged
 * against the f64 reference on a sample too. */
static int scaled(const tp_seeded_problem *gp) {
  return gp->problem.a_scale.rows > 0 || gp->problem.b_scale.rows > 0;
}

int tp_bench_dequantizes(const tp_bench_env *env, const tp_gemm_desc *desc,
                         const tp_problem *problem) {
  return env->cublaslt != NULL && (problem->a_scale.rows > 0 || problem->b_scale.rows > 0) &&
         !tp_cublaslt_is_blockwise(desc);
}

/* Whether operand `which` of a problem cuBLASLt takes dequantized needs
 * it: scaled, or of another dtype than bf16. */
static int needs_dequantize(const shape_state *s, int which) {
  const int a = which == TP_REF_A;
  const tp_tensor *x = a ? &s->gpu.desc.a : &s->gpu.desc.b;
  return x->dtype != TP_DTYPE_BF16 ||
         (a ? s->gpu.problem.a_scale.rows : s->gpu.problem.b_scale.rows) > 0;
}

/* cuBLASLt's side of a problem it takes only dequantized: each rotated
 * copy's A and B dequantized to bf16 once (its operands), the buffers the
 * dequantize + cuBLASLt side writes them into at each run, and both
 * sides' descriptor (bf16, no scales) into theirs and deq. 0, and a note,
 * when a step fails. */
static int plan_dequantized(const tp_bench_env *env, shape_state *s, side *theirs, side *deq,
                            tp_bench_row *row) {
  const tp_gemm_desc *d = &s->gpu.desc;
  char err[256];
  tp_status st = TP_OK;
  for (int which = TP_REF_A; which <= TP_REF_B && st == TP_OK; which++) {
    if (!needs_dequantize(s, which)) continue;
    const int a = which == TP_REF_A;
    const size_t bytes = (size_t)(a ? d->m : d->n) * (size_t)d->k * 2u;
    void **copies = a ? s->deq_a : s->deq_b;
    for (int i = 0; i < s->copies && st == TP_OK; i++)
      if ((st = tp_device_alloc(&copies[i], bytes)) == TP_OK)
        st = dequantize_operand(env->inputs, s, which, i, copies[i], err, sizeof err);
    if (st == TP_OK) st = tp_device_alloc(a ? &s->deq_scratch_a : &s->deq_scratch_b, bytes);
    if (st == TP_OK) {
      tp_tensor *x = a ? &theirs->desc.a : &theirs->desc.b;
      *x = tp_tensor_matrix(TP_DTYPE_BF16, a ? d->m : d->n, d->k, d->k, NULL);
      if (a)
        theirs->a = s->deq_a;
      else
        theirs->b = s->deq_b;
    }
  }
  if (st == TP_OK && (st = tp_device_synchronize(NULL)) != TP_OK)
    snprintf(err, sizeof err, "%s", tp_error_message());
  if (st != TP_OK) {
    note(row, "dequantize", err);
    return 0;
  }
  theirs->desc.a_scale = theirs->desc.b_scale = (tp_tensor){.dtype = TP_DTYPE_NONE};
  *deq = *theirs;
  deq->name = "dequantize + cuBLASLt";
  deq->a = deq->b = NULL; /* the originals, dequantized at each run */
  deq->dequantize = env->inputs;
  return 1;
}

/* Our D checked, copied back to the host: against cuBLASLt's when it ran
 * (compared), and for a problem with scale tensors both against the f64
 * reference on a sample (tools/bench_accuracy.h). Without cuBLASLt the row
 * stays "not compared" unless our own error breaks the payload's bound.
 * Then each timed versus side's D against ours. */
static void check(const tp_bench_env *env, shape_state *s, int compared, tp_bench_row *row) {
  const tp_gemm_desc *d = &s->gpu.desc;
  const size_t bytes = (size_t)s->gpu.bytes[TP_REF_D];
  void *ours = malloc(bytes), *theirs = malloc(bytes);
  tp_status st = ours && theirs ? tp_device_copy_from(ours, s->gpu.buffer[TP_REF_D], bytes)
                                : TP_ERR_OUT_OF_MEMORY;
  if (st == TP_OK && compared) st = tp_device_copy_from(theirs, s->lt_d, bytes);
  if (st != TP_OK) {
    note(row, "check", st == TP_ERR_OUT_OF_MEMORY ? "out of host memory" : tp_error_message());
    row->check = "error";
    free(ours);
    free(theirs);
    return;
  }
  int same = 1, accurate = 1;
  const double bound =
      2.0 *
      tp_ref_tolerance_for(d->d.dtype, d->k, tp_ref_acc_bits(&s->gpu.problem, TP_BACKEND_CUDA))
          .rel;
  if (compared) {
    row->rel_diff = tp_output_rel_diff(&d->d, ours, theirs);
    row->rel_bound = bound;
    same = row->rel_diff <= row->rel_bound;
  }
  char err[256];
  if (scaled(&s->gpu) &&
      tp_bench_accuracy(d, &s->gpu.problem, strcmp(env->epilogue, "residual") == 0, ours,
                        compared ? theirs : NULL, env->seed, row, &accurate, err,
                        sizeof err) != TP_OK) {
    note(row, "accuracy", err);
    row->check = "error";
  } else if (!same || !accurate) {
    row->check = "MISMATCH";
  } else {
    row->check = compared ? "ok" : "not compared";
  }
  if (strcmp(row->check, "error") != 0) check_versus(env, s, ours, theirs, bound, row);
  free(ours);
  free(theirs);
}

/* What the check phase compares, for the progress. */
static void check_phase(const tp_bench_env *env, const shape_state *s, int compared,
                        int versus_timed) {
  char what[128] = "ours against";
  const char *sep = " ";
  if (compared) {
    strcat(what, " cuBLASLt");
    sep = " and ";
  }
  if (scaled(&s->gpu)) {
    snprintf(what + strlen(what), sizeof what - strlen(what), "%sa sampled f64 reference", sep);
    sep = " and ";
  }
  if (versus_timed)
    snprintf(what + strlen(what), sizeof what - strlen(what), "%s%d versus side%s", sep,
             versus_timed, versus_timed > 1 ? "s" : "");
  tp_bench_progress_phase(env->progress, TP_BENCH_CHECK, what);
}

void tp_bench_shape(const tp_bench_env *env, tp_shape shape, tp_bench_row *row) {
  memset(row, 0, sizeof *row);
  row->shape = shape;
  row->ours_ms = row->ours_tflops = row->lt_ms = row->lt_tflops = row->ratio = NAN;
  row->deq_ms = row->deq_speed = NAN;
  row->plan_ms = row->host_us = row->store_ms = row->overhead = NAN;
  row->rel_diff = row->rel_bound = row->err_ours = row->err_lt = row->err_bound = NAN;
  row->roofline.flops = row->roofline.bytes = row->roofline.memory_ms = NAN;
  row->roofline.compute_ms = row->roofline.floor_ms = NAN;
  row->check = "error";
  for (int v = 0; v < TP_BENCH_MAX_VERSUS; v++)
    row->versus[v] = (tp_bench_versus_row){NAN, NAN, NAN, "not compared", ""};
  shape_state s;
  memset(&s, 0, sizeof s);
  char err[256];
  tp_bench_progress_phase(env->progress, TP_BENCH_INPUTS, NULL);
  if (upload(env, shape, &s, err, sizeof err) != TP_OK) {
    note(row, "inputs", err);
    for (int v = 0; v < env->versus_count; v++)
      snprintf(row->versus[v].note, sizeof row->versus[v].note, "no inputs (see the row's note)");
    release(&s);
    return;
  }
  row->copies = s.copies;
  row->roofline = tp_roofline_of(&s.gpu.desc, env->ceilings);
  side ours = {.name = "ours", .desc = s.gpu.desc, .s = &s}, store,
       theirs = {.name = "cuBLASLt", .desc = s.gpu.desc, .s = &s}, versus[TP_BENCH_MAX_VERSUS];
  side *sides[MAX_SIDES];
  double *ms[MAX_SIDES];
  int n = 0;
  tp_bench_progress_phase(env->progress, TP_BENCH_PLAN, "ours");
  const double t0 = tp_time_now_ms();
  if (tp_plan_create(&s.plan, env->registry, env->payload, env->epilogue, &s.gpu.desc,
                     TP_BACKEND_CUDA) == TP_OK) {
    row->plan_ms = tp_time_now_ms() - t0;
    tp_plan_describe(s.plan, row->plan, sizeof row->plan);
    ours.plan = s.plan;
    sides[n] = &ours;
    ms[n++] = &row->ours_ms;
    if (strcmp(env->epilogue, "store") != 0 && plan_store_baseline(env, &s, &store, row)) {
      sides[n] = &store;
      ms[n++] = &row->store_ms;
    }
  } else {
    note(row, "tilepipe", tp_error_message());
  }
  for (int v = 0; v < env->versus_count; v++)
    if (plan_versus(env, &s, v, &versus[v], &row->versus[v])) {
      sides[n] = &versus[v];
      ms[n++] = &row->versus[v].ms;
    }
  theirs.desc.d.data = s.lt_d;
  const int dequant = tp_bench_dequantizes(env, &s.gpu.desc, &s.gpu.problem);
  side deq = {.name = NULL};
  if (env->cublaslt && (!dequant || plan_dequantized(env, &s, &theirs, &deq, row))) {
    tp_bench_progress_phase(env->progress, TP_BENCH_PLAN, "cuBLASLt");
    if (tp_cublaslt_gemm_create(&s.lt, env->cublaslt, &theirs.desc, env->workspace,
                                env->workspace_bytes, err, sizeof err) == TP_OK)
      theirs.lt = deq.lt = s.lt;
    if (theirs.lt && trial_run(&theirs, err, sizeof err) == TP_OK) {
      sides[n] = &theirs;
      ms[n++] = &row->lt_ms;
      if (dequant && trial_run(&deq, err, sizeof err) == TP_OK) {
        sides[n] = &deq;
        ms[n++] = &row->deq_ms;
      } else if (dequant) {
        note(row, "dequantize + cuBLASLt", err);
      }
    } else {
      note(row, "cuBLASLt", err);
    }
  }
  char names[320] = "";
  for (int i = 0; i < n; i++)
    snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
             sides[i]->name);
  if (n) tp_bench_progress_phase(env->progress, TP_BENCH_TIMING, names);
  time_sides(env, sides, ms, n, row);
  if (ours.plan) row->host_us = host_overhead(&ours);
  row->overhead = row->ours_ms / row->store_ms - 1.0;
  const double flops = 2.0 * (double)shape.m * (double)shape.n * (double)shape.k;
  row->ours_tflops = flops / (row->ours_ms * 1e9);
  row->lt_tflops = flops / (row->lt_ms * 1e9);
  row->ratio = row->ours_tflops / row->lt_tflops;
  row->deq_speed = row->deq_ms / row->ours_ms;
  int versus_timed = 0;
  for (int v = 0; v < env->versus_count; v++) {
    row->versus[v].speed = row->versus[v].ms / row->ours_ms;
    versus_timed += !isnan(row->versus[v].ms);
  }
  const int compared = !isnan(row->lt_ms);
  if (!isnan(row->ours_ms) && (compared || versus_timed || scaled(&s.gpu))) {
    check_phase(env, &s, compared, versus_timed);
    check(env, &s, compared, row);
  } else if (!isnan(row->ours_ms)) {
    row->check = "not compared";
  }
  /* A side left uncompared without a reason of its own shares the row's. */
  for (int v = 0; v < env->versus_count; v++) {
    tp_bench_versus_row *vr = &row->versus[v];
    if (strcmp(vr->check, "not compared") == 0 && !vr->note[0])
      snprintf(vr->note, sizeof vr->note, "%s (see the row's note)",
               isnan(vr->ms) ? "not timed" : "not checked");
  }
  release(&s);
}
