/* tests/gpu_case.c: see gpu_case.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gpu_case.h"
#include "tilepipe/device.h"
#include "tools/align_rows.h"
#include "tools/gpu_problem.h"
#include "tools/reference/compare.h"
#include "tools/reference/naive_gemm.h"
#include "tools/reference/problem.h"
#include "tools/reference/random_fill.h"

tp_registry *gpu_case_registry;
int gpu_case_wide_scales;

/* f32 scales drawn over 2^-e .. 2^e, so that each k-block's and each B
 * block's weight in a sum differs by orders of magnitude (an absent or
 * other tensor keeps the payload's values). */
static void fill_wide_scales(const tp_tensor *t, uint64_t seed, double e) {
  if (t->dtype != TP_DTYPE_F32 || t->rank != 2 || t->layout != TP_LAYOUT_STRIDED) return;
  tp_rng rng;
  tp_rng_seed(&rng, seed);
  float *v = t->data;
  for (int64_t r = 0; r < t->shape[0]; r++)
    for (int64_t c = 0; c < t->shape[1]; c++)
      v[r * t->stride[0] + c] = (float)exp2(e * (2.0 * tp_rng_uniform(&rng) - 1.0));
}

void run_case(const gpu_case *gc, uint64_t seed) {
  char err[256] = "";
  tp_ref_problem_spec spec;
  memset(&spec, 0, sizeof spec);
  spec.registry = gpu_case_registry;
  spec.payload = gc->payload;
  spec.a = gc->a;
  spec.b = gc->b;
  spec.d = gc->d;
  spec.c = gc->c;
  spec.c_is_d = gc->c_is_d;
  spec.c_nan = gc->c_nan;
  spec.m = gc->m;
  spec.n = gc->n;
  spec.k = gc->k;
  spec.pad = gc->pad;
  spec.c_pad = gc->pad + 16; /* C's strides differ from D's */
  spec.alpha = gc->alpha;
  spec.beta = gc->beta;
  tp_ref_problem prob;
  ck_assert_msg(tp_tool_problem_create(&prob, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  if (gpu_case_wide_scales) {
    /* 2^-20 .. 2^20 each where D holds their products times a k-block's
     * sum (bf16, f32); 2^-4 .. 2^4 under an f16 D (6e-8 .. 65504). */
    const double e = gc->d == TP_DTYPE_F16 ? 4.0 : 20.0;
    fill_wide_scales(&prob.desc.a_scale, seed ^ 0xA5A5u, e);
    fill_wide_scales(&prob.desc.b_scale, seed ^ 0x5A5Au, e);
  }

  const int64_t mn = gc->m * gc->n;
  double *ref = malloc(sizeof(double) * (size_t)mn), *mag = malloc(sizeof(double) * (size_t)mn);
  ck_assert(ref && mag);
  const tp_ref_epilogue epi =
      strcmp(gc->epilogue, "residual") == 0 ? TP_REF_RESIDUAL : TP_REF_STORE;
  ck_assert_msg(tp_ref_gemm(&prob.desc, &prob.problem, epi, ref, mag, err, sizeof err) == TP_OK,
                "%s", err);

  tp_gpu_problem dev;
  ck_assert_msg(tp_gpu_problem_create(&dev, &prob) == TP_OK, "%s", tp_error_message());
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, gpu_case_registry, gc->payload, gc->epilogue, &dev.desc,
                                TP_BACKEND_CUDA);
  ck_assert_msg(st == TP_OK, "plan %s: %s x %s -> %s (%s) %lldx%lldx%lld: %s", gc->payload,
                tp_dtype_name(gc->a), tp_dtype_name(gc->b), tp_dtype_name(gc->d), gc->epilogue,
                (long long)gc->m, (long long)gc->n, (long long)gc->k, tp_error_message());
  char describe[256];
  tp_plan_describe(plan, describe, sizeof describe);
  const tp_ref_tolerance tol =
      tp_ref_tolerance_for(gc->d, gc->k, tp_ref_acc_bits(&prob.problem, TP_BACKEND_CUDA));

  /* D poisoned before each run: every element must be written by it. A
   * second run of the plan finds what the first left in its workspace
   * (split-K counters). */
  for (int run = 0; run < gc->runs; ++run) {
    ck_assert_msg(tp_gpu_problem_poison_d(&dev) == TP_OK, "%s", tp_error_message());
    ck_assert_int_eq(tp_plan_run(plan, &dev.desc, NULL), TP_OK);
    ck_assert_msg(tp_device_synchronize(NULL) == TP_OK, "%s", tp_error_message());
    ck_assert_msg(tp_gpu_problem_fetch_d(&dev, &prob) == TP_OK, "%s", tp_error_message());
    tp_ref_report rep;
    tp_ref_compare(&prob.desc.d, gc->m, gc->n, ref, mag, &tol, &rep);
    ck_assert_msg(rep.pass,
                  "%s (run %d): %lld bad elements, first (%lld, %lld) = %g vs %g; rel %.3g "
                  "(bound %.3g)",
                  describe, run + 1, (long long)rep.bad, (long long)rep.bad_row,
                  (long long)rep.bad_col, rep.bad_value, rep.bad_ref, rep.rel, tol.rel);
    if (!gc->c_is_d) {
      const int64_t off = tp_ref_problem_padding_written(&prob);
      const int64_t row_bytes = prob.desc.d.stride[0] * (int64_t)(tp_dtype_bits(gc->d) / 8);
      ck_assert_msg(off < 0,
                    "%s: the run wrote D's row padding: byte %lld (row %lld, byte %lld of the row)",
                    describe, (long long)off, (long long)(off / row_bytes),
                    (long long)(off % row_bytes));
    }
  }

  tp_plan_destroy(plan);
  tp_gpu_problem_destroy(&dev);
  free(ref);
  free(mag);
  tp_ref_problem_destroy(&prob);
}

void run_cases(const gpu_case *cases, size_t count, uint64_t first_seed) {
  for (size_t i = 0; i < count; ++i) run_case(&cases[i], first_seed + i);
}

int tp_gpu_cases_main(const char *name, int wide_scales, const tp_test_tuning *tunings,
                      size_t count, void (*add_tests)(TCase *tc)) {
  gpu_case_wide_scales = wide_scales;
  if (!tp_test_gpu_usable()) return 77;
  return tp_test_tuned_run(name, tunings, count, 0, 1200, &gpu_case_registry, add_tests);
}
