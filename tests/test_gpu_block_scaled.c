/* tests/test_gpu_block_scaled.c: the block_scaled payload's fused GPU
 * kernels, MXFP8 (e4m3 or e5m2 elements, a ue8m0 scale per 32 K-elements
 * of each row), against the naive f64 reference, which applies every
 * scale exactly:
 *
 *   W8A16 (bf16 A, MXFP8 B): exact conversion, judged as a bf16 GEMM;
 *   W8A8 (MXFP8 A and B, every fp8 pairing): a prologue folds each block
 *     of 128 of K's scales into its elements (device/fold.h,
 *     docs/payloads.md) for blockwise FP8's kernel. Its D is judged against the reference of the
 *     folded problem, folded on the values (tests/mx_fold.c), independently of the
 *     kernel's bit arithmetic, under the usual bound; and, in the worst
 *     case (blocks mixing scales 2^40 apart), against the reference of the
 *     problem as drawn under the documented error bound of the fold.
 *
 * Scale codes drawn wide (tests/gpu_case.c: W8A16's B over 2^-64 .. 2^64,
 * W8A8's A and B over 2^-12 .. 2^12, 2^-4 .. 2^4 under an f16 D), so that
 * neighbouring groups of a row weigh orders of magnitude apart, in both
 * layouts (128x4 tiled, strided with row padding); tests/gpu_case.h runs
 * each case: fresh random inputs, D poisoned before every run, every
 * element checked, D's row padding untouched. Ragged shapes with M and N
 * among 1, 7, 127, 129, 1000 and 4097 and K among 32, 96 and 4128 (a
 * k-block of one group, a last one half past K), every D dtype, the store
 * and the residual epilogue (C in D's dtype, f32 C, C aliasing D), and,
 * forced through registry sections, the tiles each mode takes, 2-CTA
 * clusters, split-K, split tails and stream-K; W8A16 at decode M on the
 * transposed tiles (B's rows by A's: each width, split K, C aliasing D),
 * and which orientation each M takes. W4A16 (bf16 A, NVFP4 or MXFP4 B):
 * transposed, or on B dequantized, each format and layout; W4A4 on both
 * dequantized. W4A8 has no GPU kernel: the CUDA backend refuses it,
 * naming the format, and TP_BACKEND_AUTO runs it on the CPU, saying why.
 * Exits 77 when there is no usable GPU. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/gpu_case.h"
#include "tests/mx_fold.h"
#include "tilepipe/reference.h"

#define BS "block_scaled"
#define BF16 TP_DTYPE_BF16
#define E4M3 TP_DTYPE_E4M3
#define E5M2 TP_DTYPE_E5M2
#define TILED TP_LAYOUT_SF_128X4
#define STRIDED TP_LAYOUT_STRIDED

/* ------------------------------------------------- MXFP8 W8A8's fold */

/* A copy of a host buffer, to restore it from. */
static void *saved(tp_ref_problem *prob, tp_ref_tensor which, int64_t *bytes) {
  const void *data = tp_ref_problem_buffer(prob, which, bytes);
  void *copy = malloc((size_t)*bytes);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, data, (size_t)*bytes);
  return copy;
}

/* The expected D of an MXFP8 W8A8 problem: the reference of its folded
 * operands, the drawn ones then restored for the run, with no rounding
 * bound (the fold's rounding is in the expected values); the weight-only
 * modes' and W4A4's (MXFP4's ue8m0 A scales too: the prologue dequantizes
 * it exactly) as drawn. */
static tp_status fold_expect(tp_ref_problem *prob, tp_ref_epilogue epi, char *err,
                             size_t errlen) {
  tp_gemm_desc *desc = tp_ref_problem_desc(prob);
  if (desc->a_scale.dtype != TP_DTYPE_UE8M0 || desc->a.dtype == TP_DTYPE_E2M1)
    return tp_ref_problem_expect(prob, epi, err, errlen);
  static const tp_ref_tensor kept[] = {TP_REF_A, TP_REF_B, TP_REF_A_SCALE, TP_REF_B_SCALE};
  void *copies[4];
  int64_t bytes[4];
  for (int i = 0; i < 4; i++) copies[i] = saved(prob, kept[i], &bytes[i]);
  tp_test_mx_fold(&desc->a, &desc->a_scale, desc->m, desc->k, 1);
  tp_test_mx_fold(&desc->b, &desc->b_scale, desc->n, desc->k, 128);
  const tp_status st = tp_ref_problem_expect(prob, epi, err, errlen);
  double *spread, *rounding = tp_ref_problem_rounding(prob, &spread);
  if (st == TP_OK && rounding != NULL) {
    memset(rounding, 0, sizeof *rounding * (size_t)(desc->m * desc->n));
    memset(spread, 0, sizeof *spread * (size_t)(desc->m * desc->n));
  }
  for (int i = 0; i < 4; i++) {
    memcpy(tp_ref_problem_buffer(prob, kept[i], NULL), copies[i], (size_t)bytes[i]);
    free(copies[i]);
  }
  return st;
}

static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};

/* M, N, K: each of M's and N's sizes in each role, each K with several. */
static const int64_t shapes[][3] = {
    {1, 1, 32},       {7, 127, 96},    {127, 129, 4128}, {129, 1000, 32},
    {1000, 7, 4128},  {4097, 129, 96}, {129, 4097, 32},  {1000, 1000, 4128},
    {1, 4097, 4128},  {4097, 1, 96},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

/* W8A8's fp8 pairs, in turn. */
static const tp_dtype pairs[4][2] = {{E4M3, E4M3}, {E4M3, E5M2}, {E5M2, E4M3}, {E5M2, E5M2}};

START_TEST(store_every_d) {
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    for (size_t o = 0; o < 3; ++o) {
      const gpu_case gc = {BS,       BF16, s % 2 ? E5M2 : E4M3, outputs[o], TP_DTYPE_NONE,
                           "store",  0,    0,                   1.5f,       0.0f,
                           shapes[s][0], shapes[s][1], shapes[s][2], (int64_t)(s % 3) * 8, 1};
      run_case_sf(&gc, (s + o) % 2 ? TILED : STRIDED, 100u * s + o);
      gpu_case w8a8 = gc;
      w8a8.a = pairs[(s + o) % 4][0];
      w8a8.b = pairs[(s + o) % 4][1];
      run_case_sf(&w8a8, (s + o) % 2 ? STRIDED : TILED, 500u + 100u * s + o);
    }
  }
}
END_TEST

START_TEST(residual_sources) {
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    const tp_dtype d = outputs[s % 3];
    const tp_layout sf = s % 2 ? STRIDED : TILED;
    for (int mode = 0; mode < 2; ++mode) {
      const gpu_case same = {BS,
                             mode ? pairs[s % 4][0] : BF16,
                             mode ? pairs[s % 4][1] : s % 2 ? E4M3 : E5M2,
                             d,
                             d,
                             "residual",
                             0,
                             0,
                             0.75f,
                             -1.25f,
                             shapes[s][0],
                             shapes[s][1],
                             shapes[s][2],
                             8,
                             1};
      const uint64_t seed = 1000u + s + 100u * (uint64_t)mode;
      run_case_sf(&same, sf, seed);
      gpu_case f32c = same;
      f32c.c = TP_DTYPE_F32;
      f32c.d = TP_DTYPE_BF16;
      run_case_sf(&f32c, sf, seed + 1000u);
      gpu_case alias = same;
      alias.c_is_d = 1;
      run_case_sf(&alias, sf, seed + 2000u);
    }
  }
}
END_TEST

/* Each tile, forced, over tiles past M and N; 2-CTA clusters (B
 * multicast: the converted tile is the whole B tile in each CTA), split-K
 * (two runs: the counters return to 0), a split tail, stream-K, and the
 * heuristic's choices at decode M and long K. */
START_TEST(tiles_clusters_splits) {
  static const gpu_case cases[] = {
      {"bs_n256", BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 1000,
       1000, 1024, 0, 1},
      {"bs_n128", BF16, E5M2, TP_DTYPE_F32, TP_DTYPE_F32, "residual", 0, 0, 0.5f, 2.0f, 1025,
       2017, 1056, 8, 1},
      {"bs_n64", BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0, 0, 1.0f, -1.0f, 129,
       1000, 4128, 0, 2},
      {"bs_m64", BF16, E4M3, TP_DTYPE_F16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 300, 1000,
       992, 8, 1},
      {"bs_n48", BF16, E5M2, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 1, 0, 1.0f, 1.0f, 100,
       1009, 1024, 0, 1},
      {"bs_cluster2", BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 300,
       1000, 1024, 0, 2},
      {"bs_m64_cluster2", BF16, E5M2, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0, 1.0f, 1.0f,
       300, 264, 1024, 8, 1},
      {"bs_split3", BF16, E4M3, TP_DTYPE_F32, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 129, 1000,
       4128, 0, 2},
      {"bs_tail3", BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0, 0, 1.0f, 1.0f, 1025,
       2017, 1024, 0, 1},
      {"bs_stream", BF16, E5M2, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0, 1.0f, 1.0f, 300,
       1000, 4000, 0, 2},
      {BS, BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 16, 4096, 4096, 0,
       2},
      {BS, BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0, 1.0f, 1.0f, 128, 2112,
       7168, 0, 1},
      /* W8A16 at decode M: the transposed tiles, each width (8 to 64 rows
       * of A), split K over few tiles, the last wave's split over many
       * (two runs: the counters return to 0), C aliasing D; a forced tile
       * takes the converting kernel instead. */
      {BS, BF16, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0, 1.0f, 1.0f, 8, 300, 2048,
       0, 1},
      {BS, BF16, E4M3, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0, 1.0f, 1.0f, 33, 1000, 4128,
       8, 1},
      {BS, BF16, E5M2, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 17, 17000, 1056,
       0, 2},
      {BS, BF16, E4M3, TP_DTYPE_F32, TP_DTYPE_F32, "residual", 0, 0, 0.5f, 2.0f, 64, 129, 1056, 8,
       1},
      {"bs_m64", BF16, E5M2, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 16, 1000,
       1024, 0, 1},
      /* W8A8 */
      {"bs8_n128", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 1000,
       1000, 1024, 0, 1},
      {"bs8_n64", E4M3, E5M2, TP_DTYPE_F32, TP_DTYPE_F32, "residual", 0, 0, 0.5f, 2.0f, 129,
       1000, 4128, 8, 2},
      {"bs8_m64", E5M2, E4M3, TP_DTYPE_F16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 300, 1000,
       992, 8, 1},
      {"bs8_cluster2", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 1, 0, 1.0f, 1.0f,
       300, 1000, 1024, 0, 1},
      {"bs8_m64_cluster2", E5M2, E5M2, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f,
       300, 264, 1024, 8, 2},
      {"bs8_split3", E4M3, E4M3, TP_DTYPE_F32, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 129,
       1000, 4128, 0, 2},
      {"bs8_tail3", E4M3, E5M2, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0, 0, 1.0f, 1.0f, 1025,
       2017, 1024, 0, 1},
      {"bs8_stream", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0, 1.0f, 1.0f, 300,
       1000, 4000, 0, 2},
      {BS, E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 16, 4096, 4096, 0,
       2},
      {BS, E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0, 1.0f, 1.0f, 2048, 2112,
       7168, 0, 1},
  };
  /* Each case's scale layout, in turn. */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    run_case_sf(&cases[i], i % 2 ? STRIDED : TILED, 4000u + i);
}
END_TEST

/* The fold's worst case: every block of 128 of K mixes codes 40 apart
 * in each row of A and B (2^-40: whole groups flushed), and rows of a
 * block of B differ, for each fp8 pairing and both layouts, a last block
 * of three groups. D (f32) against the reference of the problem as drawn,
 * each element's bound widened by the fold's documented one
 * (docs/payloads.md), which the problem's description carries and the
 * reference applies on the GPU (tp_ref_rounding_at; tests/test_ref_rounding.c
 * checks it against the fold's definition): |alpha| sum over k of
 *
 *   dA(m, k) |B(n, k)| + dB(n, k) |A(m, k)| + dA(m, k) dB(n, k)
 *
 * with A and B scaled and dA, dB how far the fold moves each element (to
 * the nearest multiple of the dtype's smallest subnormal, 2^-9 for e4m3,
 * 2^-16 for e5m2, times the scale of its fold block's reference; 0 for one
 * that stays normal), within the documented u_a Sa, u_b Sb. */
START_TEST(fold_worst_case) {
  for (int i = 0; i < 8; ++i) {
    char err[256] = "";
    const tp_dtype a = pairs[i % 4][0], b = pairs[i % 4][1];
    const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                      .payload = BS, .a = a, .b = b, .d = TP_DTYPE_F32,
                                      .sf_layout = i < 4 ? TILED : STRIDED, .m = 200, .n = 300,
                                      .k = 1120, .pad = 8, .align_rows = 1, .alpha = 1.0f};
    tp_ref_problem *prob;
    ck_assert_msg(tp_ref_problem_create(&prob, &spec, 9000u + (uint64_t)i, err, sizeof err) ==
                      TP_OK,
                  "%s", err);
    tp_gemm_desc *desc = tp_ref_problem_desc(prob);
    const int64_t m = desc->m, n = desc->n, k = desc->k, groups = k / 32;
    /* Alternate groups 40 codes apart, rows a code or two apart. */
    for (int64_t r = 0; r < m; r++)
      for (int64_t g = 0; g < groups; g++)
        *tp_test_code_at(&desc->a_scale, r, g) =
            (uint8_t)(127 - (g % 2 ? 40 : 0) + (int)(r % 3) - 1);
    for (int64_t r = 0; r < n; r++)
      for (int64_t g = 0; g < groups; g++)
        *tp_test_code_at(&desc->b_scale, r, g) =
            (uint8_t)(127 - ((g + 1) % 2 ? 40 : 0) + (int)(r % 5) - 2);
    ck_assert_msg(tp_ref_problem_expect(prob, TP_REF_STORE, err, sizeof err) == TP_OK, "%s", err);
    ck_assert_ptr_nonnull(tp_ref_problem_rounding(prob, NULL)); /* the fold's bound applies */
    const tp_ref_tolerance tol = tp_ref_problem_tolerance(prob, TP_BACKEND_CUDA);
    ck_assert(tol.rounding == 1.0);
    ck_assert_msg(tp_ref_problem_upload(prob, err, sizeof err) == TP_OK, "%s", err);
    tp_plan *plan = NULL;
    ck_assert_msg(tp_plan_create(&plan, gpu_case_registry, BS, "store",
                                 tp_ref_problem_device_desc(prob), TP_BACKEND_CUDA) == TP_OK,
                  "%s", tp_error_message());
    ck_assert_msg(tp_ref_problem_run(prob, plan, err, sizeof err) == TP_OK, "%s", err);
    tp_ref_report rep = {.struct_size = sizeof rep};
    /* The fold's errors are not of random sign: the bound is per element. */
    tp_ref_tolerance elementwise = tol;
    elementwise.rel = INFINITY;
    ck_assert_int_eq(tp_ref_problem_check(prob, &elementwise, &rep), TP_OK);
    tp_ref_report_format(&rep, err, sizeof err);
    ck_assert_msg(rep.pass, "A %s x B %s, %s scales: %s", tp_dtype_name(a), tp_dtype_name(b),
                  i < 4 ? "tiled" : "strided", err);
    tp_plan_destroy(plan);
    tp_ref_problem_destroy(prob);
  }
}
END_TEST

/* W8A16 runs transposed up to M = 64 (tiles of 128 rows of B by the
 * narrowest width of 8, 16, 32 or 64 that holds M), and on the converting
 * kernel past it or where the registry forces a tile. */
START_TEST(w8a16_orientation) {
  static const struct {
    const char *section;
    int64_t m;
    const char *kernel;
  } cases[] = {
      {BS, 1, "_t128x8_c1"},  {BS, 9, "_t128x16_c1"}, {BS, 32, "_t128x32_c1"},
      {BS, 64, "_t128x64_c1"}, {BS, 65, "_128x"},      {"bs_m64", 16, "_64x64_c1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char err[256] = "";
    const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                      .payload = cases[i].section, .a = BF16, .b = E4M3,
                                      .d = TP_DTYPE_BF16, .sf_layout = TILED, .m = cases[i].m,
                                      .n = 4096, .k = 4096, .align_rows = 1, .alpha = 1.0f};
    tp_ref_problem *prob;
    ck_assert_msg(tp_ref_problem_create(&prob, &spec, 11, err, sizeof err) == TP_OK, "%s", err);
    tp_plan *plan = NULL;
    ck_assert_msg(tp_plan_create(&plan, gpu_case_registry, cases[i].section, "store",
                                 tp_ref_problem_desc(prob), TP_BACKEND_CUDA) == TP_OK,
                  "%s", tp_error_message());
    char text[1024];
    tp_plan_describe(plan, text, sizeof text);
    char want[64];
    snprintf(want, sizeof want, "kernel tp_block_scaled_bf16_mx8_bf16%s", cases[i].kernel);
    ck_assert_msg(strstr(text, want) != NULL, "M = %lld (%s): want %s in: %s",
                  (long long)cases[i].m, cases[i].section, want, text);
    tp_plan_destroy(plan);
    tp_ref_problem_destroy(prob);
  }
}
END_TEST

/* W4A16 (bf16 A, e2m1 B: NVFP4, MXFP4), each format and scale layout,
 * every D, store and residual (C aliasing D): the transposed kernels up
 * to M = 64 (e2m1 converted in registers), B dequantized to bf16 by the
 * prologue past it; W4A4 (A in B's format, both dequantized) on every
 * other shape; and which kernel each M takes. */
START_TEST(four_bit_modes) {
  static const int64_t w4[][3] = {
      {1, 1, 32},   {7, 127, 96},    {16, 4097, 4128}, {64, 1000, 96},   {1, 4097, 4128},
      {33, 129, 4128}, {65, 129, 32}, {127, 1000, 4128}, {1000, 7, 96}, {4097, 129, 4128},
  };
  for (size_t s = 0; s < sizeof w4 / sizeof w4[0]; ++s) {
    for (int mx = 0; mx < 2; ++mx) {
      const tp_dtype d = outputs[(s + (size_t)mx) % 3];
      const gpu_case gc = {BS,       BF16,     TP_DTYPE_E2M1, d,    TP_DTYPE_NONE,
                           "store",  0,        0,             1.5f, 0.0f,
                           w4[s][0], w4[s][1], w4[s][2], (int64_t)(s % 2) * 32, 1};
      gpu_case_b_scale = mx ? TP_DTYPE_UE8M0 : TP_DTYPE_NONE;
      const tp_layout sf = (s + (size_t)mx) % 2 ? TILED : STRIDED;
      run_case_sf(&gc, sf, 3000u + 10u * s + (uint64_t)mx);
      gpu_case alias = gc;
      alias.epilogue = "residual";
      alias.c = d;
      alias.c_is_d = 1;
      alias.beta = -0.5f;
      run_case_sf(&alias, sf == TILED ? STRIDED : TILED, 4000u + 10u * s + (uint64_t)mx);
      if (s % 3 == 1) { /* W4A4 */
        gpu_case w4a4 = gc;
        w4a4.a = TP_DTYPE_E2M1;
        run_case_sf(&w4a4, sf, 5000u + 10u * s + (uint64_t)mx);
        alias.a = TP_DTYPE_E2M1;
        run_case_sf(&alias, sf, 6000u + 10u * s + (uint64_t)mx);
      }
    }
  }
  gpu_case_b_scale = TP_DTYPE_NONE;
  static const struct {
    int64_t m;
    const char *kernel;
  } picks[] = {{1, "bf16_fp4_bf16_t128x8_c1"}, {64, "bf16_fp4_bf16_t128x64_c1"},
               {65, "bf16_bf16_bf16_"}, {-1, "bf16_bf16_bf16_"}};
  for (size_t i = 0; i < sizeof picks / sizeof picks[0]; ++i) {
    char err[256] = "";
    const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                      .payload = BS,
                                      .a = picks[i].m < 0 ? TP_DTYPE_E2M1 : BF16,
                                      .b = TP_DTYPE_E2M1, .d = TP_DTYPE_BF16, .sf_layout = TILED,
                                      .m = picks[i].m < 0 ? 16 : picks[i].m,
                                      .n = 4096, .k = 4096, .align_rows = 1, .alpha = 1.0f};
    tp_ref_problem *prob;
    ck_assert_msg(tp_ref_problem_create(&prob, &spec, 13, err, sizeof err) == TP_OK, "%s", err);
    tp_plan *plan = NULL;
    ck_assert_msg(tp_plan_create(&plan, gpu_case_registry, BS, "store", tp_ref_problem_desc(prob),
                                 TP_BACKEND_CUDA) == TP_OK,
                  "%s", tp_error_message());
    char text[1024];
    tp_plan_describe(plan, text, sizeof text);
    char want[64];
    snprintf(want, sizeof want, "kernel tp_block_scaled_%s", picks[i].kernel);
    ck_assert_msg(strstr(text, want) != NULL, "M = %lld: want %s in: %s", (long long)picks[i].m,
                  want, text);
    tp_plan_destroy(plan);
    tp_ref_problem_destroy(prob);
  }
}
END_TEST

/* W4A8 (MXFP8 A, NVFP4 B): the CUDA backend refuses it, naming the
 * format and the modes the GPU kernels take; AUTO plans it on the CPU and
 * says why. */
START_TEST(w4a8_without_gpu_kernel) {
  char err[256] = "";
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                    .payload = BS, .a = E4M3, .b = TP_DTYPE_E2M1,
                                    .d = TP_DTYPE_BF16, .sf_layout = TILED, .m = 64, .n = 64,
                                    .k = 128, .align_rows = 1, .alpha = 1.0f};
  tp_ref_problem *prob;
  ck_assert_msg(tp_ref_problem_create(&prob, &spec, 7, err, sizeof err) == TP_OK, "%s", err);
  tp_plan *plan = NULL;
  ck_assert_int_eq(tp_plan_create(&plan, gpu_case_registry, BS, "store",
                                  tp_ref_problem_desc(prob), TP_BACKEND_CUDA),
                   TP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(tp_error_message(),
                       "A e4m3 x B e2m1 (NVFP4 W4A8) has no GPU kernel; the CPU backend runs it, "
                       "the GPU kernels take MXFP8") != NULL,
                "%s", tp_error_message());
  ck_assert_ptr_null(plan);
  ck_assert_msg(tp_plan_create(&plan, gpu_case_registry, BS, "store", tp_ref_problem_desc(prob),
                               TP_BACKEND_AUTO) == TP_OK,
                "%s", tp_error_message());
  ck_assert_int_eq(tp_plan_backend(plan), TP_BACKEND_CPU);
  char text[1024];
  tp_plan_describe(plan, text, sizeof text);
  ck_assert_msg(strstr(text, "; auto chose the CPU: payload 'block_scaled': A e4m3 x B e2m1") !=
                    NULL,
                "%s", text);
  tp_plan_destroy(plan);
  tp_ref_problem_destroy(prob);
}
END_TEST

static const tp_test_tuning tunings[] = {
    {"bs_n256", BS, "tile = 128x256x64"},
    {"bs_n128", BS, "tile = 128x128x64"},
    {"bs_n64", BS, "tile = 128x64x64"},
    {"bs_m64", BS, "tile = 64x64x64"},
    {"bs_n48", BS, "tile = 64x48x64"},
    {"bs_cluster2", BS, "tile = 128x128x64\ncluster = 2x1"},
    {"bs_m64_cluster2", BS, "tile = 64x64x64\ncluster = 2x1"},
    {"bs_split3", BS, "tile = 128x128x64\nsplits = 3"},
    {"bs_tail3", BS, "tile = 128x128x64\ntail_splits = 3"},
    {"bs_stream", BS, "tile = 128x256x64\nstream_k = on"},
    {"bs8_n128", BS, "tile = 128x128x128"},
    {"bs8_n64", BS, "tile = 128x64x128"},
    {"bs8_m64", BS, "tile = 64x64x128"},
    {"bs8_cluster2", BS, "tile = 128x128x128\ncluster = 2x1"},
    {"bs8_m64_cluster2", BS, "tile = 64x64x128\ncluster = 2x1"},
    {"bs8_split3", BS, "tile = 128x128x128\nsplits = 3"},
    {"bs8_tail3", BS, "tile = 128x128x128\ntail_splits = 3"},
    {"bs8_stream", BS, "tile = 128x128x128\nstream_k = on"},
};

static void add_tests(TCase *tc) {
  tcase_add_test(tc, store_every_d);
  tcase_add_test(tc, residual_sources);
  tcase_add_test(tc, tiles_clusters_splits);
  tcase_add_test(tc, fold_worst_case);
  tcase_add_test(tc, w4a8_without_gpu_kernel);
  tcase_add_test(tc, w8a16_orientation);
  tcase_add_test(tc, four_bit_modes);
}

int main(void) {
  gpu_case_expect = fold_expect;
  return tp_gpu_cases_main("test_gpu_block_scaled", 1, tunings,
                           sizeof tunings / sizeof tunings[0], add_tests);
}
