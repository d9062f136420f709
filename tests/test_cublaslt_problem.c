/* tests/test_cublaslt_problem.c: which problems `tilepipe bench` asks
 * cuBLASLt for (tools/cublaslt_problem.h), decided without the library or
 * a GPU: the path of a row "not compared".
 *
 * The bench's own blockwise_fp8 problems (the reference library's rows
 * aligned to 16 bytes, pad 0) are taken whenever M and N are multiples of 4, K ragged or not,
 * with or without a C of D's dtype: a_scale's rows are exactly M and
 * b_scale's L rounded up to 4. Refused, each naming its rule: M or N not a
 * multiple of 4; a_scale rows longer than M, b_scale rows other than L4; a
 * cuBLASLt older than 12.9; a scale pointer off 16 bytes; C of another
 * dtype than D; an fp8 D; scales of another kind (block_scaled's, per-row
 * vectors of s8 operands). The standard problem is taken by any version.
 * The problems are the payloads' own (tests/problem_registry.h). */
#include <stdint.h>
#include <string.h>

#include <check.h>

#include "tests/problem_registry.h"
#include "tilepipe/reference.h"
#include "tools/cublaslt_problem.h"

enum { V13 = 130000 };

/* The bench's problem of this shape (device pointers left NULL). */
static tp_gemm_desc bench_problem(const char *payload, tp_dtype ab, tp_dtype c, int64_t m,
                                  int64_t n, int64_t k) {
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec,
                                    .registry = tp_test_problem_registry(), .payload = payload,
                                    .a = ab, .b = ab, .d = TP_DTYPE_BF16, .c = c,
                                    .sf_layout = TP_LAYOUT_SF_128X4, .m = m, .n = n, .k = k,
                                    .align_rows = 1, .alpha = 1.0f, .beta = c ? 1.0f : 0.0f};
  ck_assert(spec.registry != NULL);
  tp_gemm_desc d;
  tp_problem problem;
  char err[1024] = "";
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &problem, err, sizeof err) == TP_OK, "%s",
                err);
  return d;
}

static tp_gemm_desc blockwise(int64_t m, int64_t n, int64_t k) {
  return bench_problem("blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_NONE, m, n, k);
}

static void accepted(const tp_gemm_desc *d, size_t version) {
  char err[256] = "";
  ck_assert_msg(tp_cublaslt_check_problem(d, version, err, sizeof err) == TP_OK,
                "%lldx%lldx%lld refused: %s", (long long)d->m, (long long)d->n, (long long)d->k,
                err);
}

static void refused(const tp_gemm_desc *d, size_t version, const char *why) {
  char err[256] = "";
  ck_assert_int_eq(tp_cublaslt_check_problem(d, version, err, sizeof err), TP_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(err, why) != NULL, "\"%s\" lacks \"%s\"", err, why);
}

START_TEST(test_bench_layout_is_taken) {
  static const int64_t shapes[][3] = {
      {4096, 7168, 16384}, {64, 4096, 7168}, {128, 2112, 300}, {4, 4, 1}, {8, 12, 129},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const tp_gemm_desc d = blockwise(shapes[i][0], shapes[i][1], shapes[i][2]);
    const int64_t l = (d.k + 127) / 128;
    ck_assert(tp_cublaslt_is_blockwise(&d));
    ck_assert_int_eq(d.a_scale.stride[0], d.m);
    ck_assert_int_eq(d.b_scale.stride[0], (l + 3) / 4 * 4);
    accepted(&d, V13);
    accepted(&d, TP_CUBLASLT_BLOCKWISE_VERSION);
  }
  const tp_gemm_desc residual =
      bench_problem("blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_BF16, 256, 512, 1024);
  accepted(&residual, V13);
}
END_TEST

START_TEST(test_refusals_name_the_rule) {
  tp_gemm_desc d = blockwise(4097, 7168, 512);
  refused(&d, V13, "M and N multiples of 4 (M = 4097, N = 7168)");
  d = blockwise(128, 130, 512);
  refused(&d, V13, "M and N multiples of 4 (M = 128, N = 130)");
  d = blockwise(128, 256, 300);
  refused(&d, 120800, "cuBLASLt 120800 has no blockwise FP8 scaling");
  tp_gemm_desc bad = d;
  bad.a_scale.stride[0] = 132;
  refused(&bad, V13, "a_scale's must be M = 128, not 132");
  bad = d;
  bad.b_scale.stride[0] = 3;
  refused(&bad, V13, "b_scale's stride must be 4, not 3");
  bad = d;
  bad.b_scale.data = (void *)(uintptr_t)0x1008;
  refused(&bad, V13, "16-byte aligned scales; b_scale");
  bad = d;
  bad.d.dtype = TP_DTYPE_E4M3;
  refused(&bad, V13, "bf16, f16 or f32 D, not e4m3");
  const tp_gemm_desc f32_c =
      bench_problem("blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_F32, 128, 256, 300);
  refused(&f32_c, V13, "C must have D's dtype (C f32, D bf16)");
  const tp_gemm_desc mx =
      bench_problem("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_NONE, 128, 256, 256);
  ck_assert(!tp_cublaslt_is_blockwise(&mx));
  refused(&mx, V13, "unscaled problems and blockwise FP8 (f32 1x128 and 128x128 scales");
}
END_TEST

START_TEST(test_standard_problem) {
  const tp_gemm_desc d = bench_problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16, 7, 9, 11);
  ck_assert(!tp_cublaslt_is_blockwise(&d));
  accepted(&d, 0);
  accepted(&d, V13);
  const tp_gemm_desc int8 =
      bench_problem(TP_TEST_ROW_SCALES, TP_DTYPE_S8, TP_DTYPE_NONE, 8, 8, 8);
  ck_assert(!tp_cublaslt_is_blockwise(&int8));
  refused(&int8, V13, "unscaled problems and blockwise FP8 (f32 1x128 and 128x128 scales");
}
END_TEST

int main(void) {
  Suite *s = suite_create("cublaslt_problem");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, test_bench_layout_is_taken);
  tcase_add_test(tc, test_refusals_name_the_rule);
  tcase_add_test(tc, test_standard_problem);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
