/* tests/test_gpu_blockwise.c: the blockwise_fp8 payload's fused GPU kernels
 * against the naive f64 reference.
 *
 * e4m3 A and B with f32 scales per 1 x 128 of A and per 128 x 128 of B,
 * drawn over 2^-20 .. 2^20 (tests/gpu_case.h runs each case: fresh random
 * inputs, D poisoned before every run, every element checked, D's row
 * padding untouched). Ragged shapes with M, N and K among 1, 7, 127, 129,
 * 1000 and 4097 (a partial last K block, a single one, tiles past M and
 * N), every D dtype, the store and the residual epilogue (C in D's dtype,
 * f32 C, C aliasing D), and, forced through registry sections, every tile
 * the payload takes (128 x 128, 128 x 64, 64 x 64), 2-CTA clusters,
 * split-K and split tails; a wider tile is refused at plan time. An
 * a_scale that TMA cannot load (not 16-byte aligned) is refused at run
 * time with a message naming it.
 * Exits 77 when there is no usable GPU. */
#include <check.h>
#include <string.h>

#include "tests/gpu_case.h"
#include "tilepipe/device.h"
#include "tilepipe/reference.h"

#define BW "blockwise_fp8"
#define E4M3 TP_DTYPE_E4M3

static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};

/* M, N, K among the ragged sizes: each size in each role at least once. */
static const int64_t shapes[][3] = {
    {1, 1, 1},      {7, 127, 129},  {127, 129, 1000}, {129, 1000, 127},
    {1000, 7, 4097}, {4097, 129, 7}, {129, 4097, 1},   {1000, 1000, 1000},
};

/* A store problem of M x N x 512 into a bf16 D, on the host. */
static tp_ref_problem *bf16_d_problem(int64_t m, int64_t n, uint64_t seed) {
  char err[256] = "";
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = gpu_case_registry,
                                    .payload = BW, .a = E4M3, .b = E4M3, .d = TP_DTYPE_BF16,
                                    .m = m, .n = n, .k = 512, .align_rows = 1, .alpha = 1.0f};
  tp_ref_problem *prob;
  ck_assert_msg(tp_ref_problem_create(&prob, &spec, seed, err, sizeof err) == TP_OK, "%s", err);
  return prob;
}

START_TEST(store_every_d) {
  const size_t n = sizeof shapes / sizeof shapes[0];
  for (size_t s = 0; s < n; ++s) {
    for (size_t o = 0; o < 3; ++o) {
      gpu_case gc = {BW, E4M3, E4M3, outputs[o], TP_DTYPE_NONE, "store", 0, 0, 1.5f, 0.0f,
                     shapes[s][0], shapes[s][1], shapes[s][2], 3, 1};
      run_case(&gc, 100u * s + o);
    }
  }
}
END_TEST

START_TEST(residual_sources) {
  const size_t n = sizeof shapes / sizeof shapes[0];
  for (size_t s = 0; s < n; ++s) {
    const tp_dtype d = outputs[s % 3];
    gpu_case same = {BW, E4M3, E4M3, d, d, "residual", 0, 0, 0.75f, -1.25f,
                     shapes[s][0], shapes[s][1], shapes[s][2], 5, 1};
    run_case(&same, 1000u + s);
    gpu_case f32c = same;
    f32c.c = TP_DTYPE_F32;
    f32c.d = TP_DTYPE_BF16;
    run_case(&f32c, 2000u + s);
    gpu_case alias = same;
    alias.c_is_d = 1;
    run_case(&alias, 3000u + s);
  }
}
END_TEST

/* Each tile, forced, over tiles past M and N and more tiles than SMs, and
 * M = 20 under the heuristic (A's box of 24 rows, the rest of every A
 * tile zeroed at the kernel's start);
 * a tile wider than 128 (its columns would span two blocks of B's scales)
 * is refused at plan time, naming the tiles there are. */
START_TEST(tiles) {
  static const gpu_case cases[] = {
      {"bw_n128", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 1000,
       1000, 1000, 3, 1},
      {"bw_n128", E4M3, E4M3, TP_DTYPE_F32, TP_DTYPE_F32, "residual", 0, 0, 0.5f, 2.0f, 1000,
       4097, 257, 3, 1},
      {"bw_n64", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0, 0, 1.0f, -1.0f, 129,
       1000, 4097, 3, 2},
      {"bw_n64", E4M3, E4M3, TP_DTYPE_F16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 4097, 529,
       385, 3, 2},
      {"bw_m64", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 300, 1000,
       1000, 3, 1},
      {"bw_m64", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_F32, "residual", 0, 0, 1.0f, 1.0f, 7, 129,
       4097, 3, 1},
      {BW, E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 20, 3000, 2000,
       0, 2},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 4000u);

  /* A width past the kernels' 128: the section is refused when the
   * registry opens, and a plan of it names why. */
  tp_ref_problem *prob = bf16_d_problem(256, 1024, 8);
  tp_plan *plan = NULL;
  ck_assert_int_eq(tp_plan_create(&plan, gpu_case_registry, "bw_n192", "store",
                                  tp_ref_problem_desc(prob), TP_BACKEND_CUDA),
                   TP_ERR_REGISTRY);
  ck_assert_msg(strstr(tp_error_message(), "take tiles (MxN) 128x128, 128x64 or 64x64") != NULL,
                "%s", tp_error_message());
  ck_assert_ptr_null(plan);
  tp_ref_problem_destroy(prob);
}
END_TEST

/* 2-CTA clusters (B multicast; each CTA its own rows of A's scales),
 * split-K (uneven k-blocks per split, two runs: the counters return to 0),
 * a split tail, and the heuristic's own choices at small M and long K. */
START_TEST(clusters_and_splits) {
  static const gpu_case cases[] = {
      {"bw_cluster2", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 300,
       1000, 1000, 3, 2},
      {"bw_cluster2", E4M3, E4M3, TP_DTYPE_F16, TP_DTYPE_F16, "residual", 1, 0, 1.0f, 1.0f, 129,
       4097, 129, 3, 1},
      {"bw_split3", E4M3, E4M3, TP_DTYPE_F32, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 129, 1000,
       4097, 3, 2},
      {"bw_split3", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 1, 0, 0.5f, 1.0f, 300,
       300, 1000, 3, 1},
      {"bw_tail2", E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 1025,
       2017, 1105, 3, 2},
      {BW, E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, "store", 0, 0, 1.0f, 0.0f, 64, 4096, 7168, 0,
       2},
      {BW, E4M3, E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, "residual", 0, 0, 1.0f, 1.0f, 128, 2112,
       7168, 0, 1},
  };
  run_cases(cases, sizeof cases / sizeof cases[0], 5000u);
}
END_TEST

/* a_scale 4 bytes off a 16-byte boundary: the run is refused, naming it. */
START_TEST(misaligned_a_scale_refused) {
  tp_ref_problem *prob = bf16_d_problem(64, 256, 9);
  char err[256];
  ck_assert_msg(tp_ref_problem_upload(prob, err, sizeof err) == TP_OK, "%s", err);
  tp_plan *plan = NULL;
  ck_assert_msg(tp_plan_create(&plan, gpu_case_registry, BW, "store",
                               tp_ref_problem_device_desc(prob), TP_BACKEND_CUDA) == TP_OK,
                "%s", tp_error_message());
  tp_gemm_desc shifted = *tp_ref_problem_device_desc(prob);
  void *scales = NULL;
  int64_t bytes;
  tp_ref_problem_buffer(prob, TP_REF_A_SCALE, &bytes);
  ck_assert_int_eq(tp_device_alloc(&scales, (size_t)bytes + 16), TP_OK);
  shifted.a_scale.data = (char *)scales + 4;
  ck_assert_int_eq(tp_plan_run(plan, &shifted, NULL), TP_ERR_INVALID_ARGUMENT);
  ck_assert_msg(strstr(tp_error_message(), "a_scale") != NULL &&
                    strstr(tp_error_message(), "16-byte aligned") != NULL,
                "%s", tp_error_message());
  tp_device_free(scales);
  tp_plan_destroy(plan);
  tp_ref_problem_destroy(prob);
}
END_TEST

static const tp_test_tuning tunings[] = {
    {"bw_n192", BW, "tile = 128x192x128"}, {"bw_n128", BW, "tile = 128x128x128"},
    {"bw_n64", BW, "tile = 128x64x128"},
    {"bw_m64", BW, "tile = 64x64x128"},    {"bw_cluster2", BW, "cluster = 2x1"},
    {"bw_split3", BW, "splits = 3"},       {"bw_tail2", BW, "tile = 128x128x128\ntail_splits = 2"},
};

static void add_tests(TCase *tc) {
  tcase_add_test(tc, store_every_d);
  tcase_add_test(tc, residual_sources);
  tcase_add_test(tc, tiles);
  tcase_add_test(tc, clusters_and_splits);
  tcase_add_test(tc, misaligned_a_scale_refused);
}

int main(void) {
  return tp_gpu_cases_main("test_gpu_blockwise", 1, tunings, sizeof tunings / sizeof tunings[0],
                           add_tests);
}
