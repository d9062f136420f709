/* tests/test_gpu_block_scaled.c: the block_scaled payload's fused GPU
 * kernels (MXFP8 W8A16: bf16 A, e4m3 or e5m2 B with a ue8m0 scale per 32
 * K-elements of each row) against the naive f64 reference, which applies
 * every scale exactly.
 *
 * Scale codes drawn over 2^-64 .. 2^64 (2^-4 .. 2^4 under an f16 D), so
 * that neighbouring groups of a row weigh orders of magnitude apart, in
 * both layouts (128x4 tiled, strided with row padding); tests/gpu_case.h
 * runs each case: fresh random inputs, D poisoned before every run, every
 * element checked, D's row padding untouched. Ragged shapes with M and N
 * among 1, 7, 127, 129, 1000 and 4097 and K among 32, 96 and 4128 (a
 * k-block of one group, a last one half past K), every D dtype, the store
 * and the residual epilogue (C in D's dtype, f32 C, C aliasing D), and,
 * forced through registry sections, the tiles (128 x 256, 128 x 128,
 * 128 x 64, 64 x 64, 64 x 48), 2-CTA clusters, split-K, split tails and
 * stream-K. MXFP8 W8A8 has no GPU kernel: the CUDA backend refuses it,
 * naming the mode, and TP_BACKEND_AUTO runs it on the CPU, saying why.
 * Exits 77 when there is no usable GPU. */
#include <check.h>
#include <string.h>

#include "tests/gpu_case.h"
#include "tilepipe/reference.h"

#define BS "block_scaled"
#define BF16 TP_DTYPE_BF16
#define E4M3 TP_DTYPE_E4M3
#define E5M2 TP_DTYPE_E5M2
#define TILED TP_LAYOUT_SF_128X4
#define STRIDED TP_LAYOUT_STRIDED

static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};

/* M, N, K: each of M's and N's sizes in each role, each K with several. */
static const int64_t shapes[][3] = {
    {1, 1, 32},       {7, 127, 96},    {127, 129, 4128}, {129, 1000, 32},
    {1000, 7, 4128},  {4097, 129, 96}, {129, 4097, 32},  {1000, 1000, 4128},
    {1, 4097, 4128},  {4097, 1, 96},
};
#define NUM_SHAPES (sizeof shapes / sizeof shapes[0])

START_TEST(store_every_d) {
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    for (size_t o = 0; o < 3; ++o) {
      const gpu_case gc = {BS,       BF16, s % 2 ? E5M2 : E4M3, outputs[o], TP_DTYPE_NONE,
                           "store",  0,    0,                   1.5f,       0.0f,
                           shapes[s][0], shapes[s][1], shapes[s][2], (int64_t)(s % 3) * 8, 1};
      run_case_sf(&gc, (s + o) % 2 ? TILED : STRIDED, 100u * s + o);
    }
  }
}
END_TEST

START_TEST(residual_sources) {
  for (size_t s = 0; s < NUM_SHAPES; ++s) {
    const tp_dtype d = outputs[s % 3];
    const tp_layout sf = s % 2 ? STRIDED : TILED;
    const gpu_case same = {BS,     BF16, s % 2 ? E4M3 : E5M2, d,     d,
                           "residual", 0, 0,                  0.75f, -1.25f,
                           shapes[s][0], shapes[s][1], shapes[s][2], 8, 1};
    run_case_sf(&same, sf, 1000u + s);
    gpu_case f32c = same;
    f32c.c = TP_DTYPE_F32;
    f32c.d = TP_DTYPE_BF16;
    run_case_sf(&f32c, sf, 2000u + s);
    gpu_case alias = same;
    alias.c_is_d = 1;
    run_case_sf(&alias, sf, 3000u + s);
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
  };
  /* Each case's scale layout, in turn. */
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    run_case_sf(&cases[i], i % 2 ? STRIDED : TILED, 4000u + i);
}
END_TEST

/* MXFP8 W8A8 (e4m3 A and B, both scaled): the CUDA backend refuses it,
 * naming the mode and the one the GPU kernel takes; AUTO plans it on the
 * CPU and says why. */
START_TEST(w8a8_without_gpu_kernel) {
  char err[256] = "";
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                    .payload = BS, .a = E4M3, .b = E4M3, .d = TP_DTYPE_BF16,
                                    .sf_layout = TILED, .m = 64, .n = 64, .k = 128,
                                    .align_rows = 1, .alpha = 1.0f};
  tp_ref_problem *prob;
  ck_assert_msg(tp_ref_problem_create(&prob, &spec, 7, err, sizeof err) == TP_OK, "%s", err);
  tp_plan *plan = NULL;
  ck_assert_int_eq(tp_plan_create(&plan, gpu_case_registry, BS, "store",
                                  tp_ref_problem_desc(prob), TP_BACKEND_CUDA),
                   TP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(tp_error_message(),
                       "A e4m3 x B e4m3 (MXFP8, both scaled) has no GPU kernel; the CPU backend "
                       "runs it, the GPU kernel takes MXFP8 W8A16") != NULL,
                "%s", tp_error_message());
  ck_assert_ptr_null(plan);
  ck_assert_msg(tp_plan_create(&plan, gpu_case_registry, BS, "store", tp_ref_problem_desc(prob),
                               TP_BACKEND_AUTO) == TP_OK,
                "%s", tp_error_message());
  ck_assert_int_eq(tp_plan_backend(plan), TP_BACKEND_CPU);
  char text[1024];
  tp_plan_describe(plan, text, sizeof text);
  ck_assert_msg(strstr(text, "; auto chose the CPU: payload 'block_scaled': A e4m3 x B e4m3") !=
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
};

static void add_tests(TCase *tc) {
  tcase_add_test(tc, store_every_d);
  tcase_add_test(tc, residual_sources);
  tcase_add_test(tc, tiles_clusters_splits);
  tcase_add_test(tc, w8a8_without_gpu_kernel);
}

int main(void) {
  return tp_gpu_cases_main("test_gpu_block_scaled", 1, tunings,
                           sizeof tunings / sizeof tunings[0], add_tests);
}
