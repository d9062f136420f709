/* tests/gpu_case.c: see gpu_case.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gpu_case.h"
#include "tilepipe/reference.h"
#include "tools/seeded_values.h"

tp_registry *gpu_case_registry;
int gpu_case_wide_scales;
tp_dtype gpu_case_b_scale = TP_DTYPE_NONE;
tp_status (*gpu_case_expect)(tp_ref_problem *, tp_ref_epilogue, char *, size_t) =
    tp_ref_problem_expect;

/* f32 scales drawn over 2^-e .. 2^e, so that each k-block's and each B
 * block's weight in a sum differs by orders of magnitude (an absent or
 * other tensor keeps the payload's values). */
static void fill_wide_scales(const tp_tensor *t, uint64_t seed, double e) {
  if (t->dtype != TP_DTYPE_F32 || t->rank != 2 || t->layout != TP_LAYOUT_STRIDED) return;
  float *v = t->data;
  uint64_t drawn = 0;
  for (int64_t r = 0; r < t->shape[0]; r++)
    for (int64_t c = 0; c < t->shape[1]; c++) {
      const double u = (double)(tp_seeded_bits(seed, drawn++) >> 11) * 0x1.0p-53; /* [0, 1) */
      v[r * t->stride[0] + c] = (float)exp2(e * (2.0 * u - 1.0));
    }
}

/* A scale tensor's ue8m0 codes drawn over 2^-e .. 2^e: every byte of the
 * buffer (a strided layout's row padding and the tiled layout's, never
 * read, too). */
static void fill_wide_codes(tp_ref_problem *prob, tp_ref_tensor which, uint64_t seed, int e) {
  int64_t bytes = 0;
  unsigned char *codes = tp_ref_problem_buffer(prob, which, &bytes);
  for (int64_t i = 0; i < bytes; i++)
    codes[i] = (unsigned char)(127 - e + (int)(tp_seeded_bits(seed, (uint64_t)i) % (2u * e + 1)));
}

/* A scale tensor's ue4m3 codes (NVFP4) over the whole finite range: each
 * code one of the subnormals 2^-9 .. 7 x 2^-9 once in 512 (a warp's
 * k-block of the transposed kernels, 128 codes, holds one about a fifth of
 * the time), else a normal 2^-6 .. 448. */
static void fill_ue4m3_codes(tp_ref_problem *prob, tp_ref_tensor which, uint64_t seed) {
  int64_t bytes = 0;
  unsigned char *codes = tp_ref_problem_buffer(prob, which, &bytes);
  for (int64_t i = 0; i < bytes; i++) {
    const uint64_t x = tp_seeded_bits(seed, (uint64_t)i);
    codes[i] = (unsigned char)(x % 512u == 0u ? 1u + (x >> 9) % 7u : 8u + (x >> 9) % 0x77u);
  }
}

void run_case(const gpu_case *gc, uint64_t seed) { run_case_sf(gc, TP_LAYOUT_STRIDED, seed); }

void run_case_sf(const gpu_case *gc, tp_layout sf, uint64_t seed) {
  char err[256] = "";
  const tp_ref_problem_spec spec = {
      .struct_size = sizeof spec,
      .registry = gpu_case_registry,
      .payload = gc->payload,
      .a = gc->a,
      .b = gc->b,
      .b_scale = gpu_case_b_scale,
      .d = gc->d,
      .c = gc->c,
      .c_is_d = gc->c_is_d,
      .c_nan = gc->c_nan,
      .m = gc->m,
      .n = gc->n,
      .k = gc->k,
      .pad = gc->pad,
      .sf_layout = sf,
      .c_pad = gc->pad + 16, /* C's strides differ from D's */
      .align_rows = 1,
      .alpha = gc->alpha,
      .beta = gc->beta,
  };
  tp_ref_problem *prob;
  ck_assert_msg(tp_ref_problem_create(&prob, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  const tp_gemm_desc *desc = tp_ref_problem_desc(prob);
  if (gpu_case_wide_scales) {
    /* 2^-20 .. 2^20 each where D holds their products times a k-block's
     * sum (bf16, f32); 2^-4 .. 2^4 under an f16 D (6e-8 .. 65504). */
    const double e = gc->d == TP_DTYPE_F16 ? 4.0 : 20.0;
    fill_wide_scales(&desc->a_scale, seed ^ 0xA5A5u, e);
    fill_wide_scales(&desc->b_scale, seed ^ 0x5A5Au, e);
    /* ue8m0 codes: B's 2^-64 .. 2^64 where A is unscaled (MXFP8 W8A16),
     * a 4096-long sum of 448 x 2^64 and A's values staying far inside f32
     * and bf16 (2^128); 2^-12 .. 2^12 each where both are (W8A8), so that
     * a 128-wide block mixes exact shifts, partial and whole flushes
     * (block_scaled_mainloop.cu); 2^-4 .. 2^4 under an f16 D. */
    if (desc->b_scale.dtype == TP_DTYPE_UE4M3 && desc->a_scale.dtype == TP_DTYPE_NONE &&
        gc->d != TP_DTYPE_F16)
      fill_ue4m3_codes(prob, TP_REF_B_SCALE, seed ^ 0x3C3Cu);
    if (desc->b_scale.dtype == TP_DTYPE_UE8M0) {
      const int a_scaled = desc->a_scale.dtype == TP_DTYPE_UE8M0;
      const int ce = gc->d == TP_DTYPE_F16 ? 4 : a_scaled ? 12 : 64;
      fill_wide_codes(prob, TP_REF_B_SCALE, seed ^ 0x3C3Cu, ce);
      if (a_scaled) fill_wide_codes(prob, TP_REF_A_SCALE, seed ^ 0xC3C3u, ce);
    }
  }
  const tp_ref_epilogue epi =
      strcmp(gc->epilogue, "residual") == 0 ? TP_REF_RESIDUAL : TP_REF_STORE;
  ck_assert_msg(gpu_case_expect(prob, epi, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_msg(tp_ref_problem_upload(prob, err, sizeof err) == TP_OK, "%s", err);

  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, gpu_case_registry, gc->payload, gc->epilogue,
                                tp_ref_problem_device_desc(prob), TP_BACKEND_CUDA);
  ck_assert_msg(st == TP_OK, "plan %s: %s x %s -> %s (%s) %lldx%lldx%lld: %s", gc->payload,
                tp_dtype_name(gc->a), tp_dtype_name(gc->b), tp_dtype_name(gc->d), gc->epilogue,
                (long long)gc->m, (long long)gc->n, (long long)gc->k, tp_error_message());
  char describe[640];
  ck_assert_msg(tp_test_tuned_plan_is_asked(gc->payload, plan, describe, sizeof describe), "%s",
                describe);
  const tp_ref_tolerance tol = tp_ref_problem_tolerance(prob, TP_BACKEND_CUDA);

  /* D poisoned before each run (tp_ref_problem_run): every element must be
   * written by it. A second run of the plan finds what the first left in
   * its workspace (split-K counters). */
  for (int run = 0; run < gc->runs; ++run) {
    ck_assert_msg(tp_ref_problem_run(prob, plan, err, sizeof err) == TP_OK, "%s: %s", describe,
                  err);
    tp_ref_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(tp_ref_problem_check(prob, &tol, &rep), TP_OK);
    tp_ref_report_format(&rep, err, sizeof err);
    const int64_t row_bytes = desc->d.stride[0] * (int64_t)(tp_dtype_bits(gc->d) / 8);
    char where[96] = "";
    if (rep.padding_at >= 0)
      snprintf(where, sizeof where, " (row %lld, byte %lld of the row)",
               (long long)(rep.padding_at / row_bytes), (long long)(rep.padding_at % row_bytes));
    ck_assert_msg(rep.pass, "%s (run %d): %s%s", describe, run + 1, err, where);
    int64_t row, col;
    const int64_t unwritten = tp_ref_problem_unwritten(prob, &tol, &row, &col);
    ck_assert_msg(unwritten == 0, "%s (run %d): %lld elements of D still hold C, first D[%lld][%lld]",
                  describe, run + 1, (long long)unwritten, (long long)row, (long long)col);
  }

  tp_plan_destroy(plan);
  tp_ref_problem_destroy(prob);
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
