/* tests/test_plugins_cpu.c: every payload x epilogue x dtype combination of
 * the shipped plugins on the CPU backend, end to end through tp_plan_create
 * and tp_plan_run, against the naive f64 reference (tilepipe/reference.h).
 *
 * Each combination runs on two ragged shapes (M, N, K among 1, 7, 64, 127,
 * 129, 300; block_scaled K rounded up to its vector size; its formats
 * MXFP8, NVFP4 and MXFP4 in every mode: W8A16, W8A8, W4A16, W4A8, W4A4)
 * with fresh inputs
 * from its own seed. D starts as 0xFF bytes (NaN in every dtype), so an
 * element the run skips fails the check; every element is compared
 * (tp_ref_problem_check), and D's row padding must stay untouched.
 * Residual runs with C of D's dtype (with other strides than D), C in f32,
 * C aliasing D (in-place accumulate), and beta = 0 with C full of NaN
 * (which must not reach D). The plugins come from the build tree's registry
 * (TP_TEST_REGISTRY). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/build_registry.h"

#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"


/* ------------------------------------------------------------ the cases */

typedef enum c_mode {
  C_NONE,  /* store */
  C_SAME,  /* residual, C of D's dtype in its own buffer */
  C_F32,   /* residual, f32 C */
  C_ALIAS, /* residual, C is D */
  C_NAN    /* residual, beta = 0, C full of NaN */
} c_mode;

typedef struct operands {
  const char *payload;
  tp_dtype a, b;
  tp_layout sf_layout;
  tp_dtype b_scale; /* e2m1 B's format: NONE NVFP4 (ue4m3), ue8m0 MXFP4 */
} operands;

static const operands operand_sets[] = {
    {"standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"standard", TP_DTYPE_F16, TP_DTYPE_F16, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"standard", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"standard", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"standard", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"standard", TP_DTYPE_E5M2, TP_DTYPE_E5M2, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_LAYOUT_SF_128X4, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_LAYOUT_SF_128X4, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E5M2, TP_DTYPE_E5M2, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_LAYOUT_SF_128X4, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_BF16, TP_DTYPE_E5M2, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_LAYOUT_SF_128X4, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_LAYOUT_SF_128X4, TP_DTYPE_UE8M0},
    {"block_scaled", TP_DTYPE_BF16, TP_DTYPE_E2M1, TP_LAYOUT_SF_128X4, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_BF16, TP_DTYPE_E2M1, TP_LAYOUT_STRIDED, TP_DTYPE_UE8M0},
    {"block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E2M1, TP_LAYOUT_STRIDED, TP_DTYPE_NONE},
    {"block_scaled", TP_DTYPE_E5M2, TP_DTYPE_E2M1, TP_LAYOUT_SF_128X4, TP_DTYPE_UE8M0},
};
#define NUM_OPERAND_SETS (int)(sizeof operand_sets / sizeof operand_sets[0])

static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};
#define NUM_OUTPUTS 3
static const c_mode c_modes[] = {C_NONE, C_SAME, C_F32, C_ALIAS, C_NAN};
#define NUM_C_MODES 5
#define NUM_COMBOS (NUM_OPERAND_SETS * NUM_OUTPUTS * NUM_C_MODES)

/* Every size appears in every position; the rotation below gives each
 * combination two of them. 521 passes the CPU's largest tile (512 x 256
 * x 128) by 9: a ragged last tile, or k-block, in every direction. */
static const int64_t shapes[][3] = {
    {1, 1, 1},      {7, 129, 7},     {64, 7, 300},   {127, 300, 129}, {129, 64, 127},
    {300, 127, 64}, {1, 300, 129},   {300, 1, 7},    {129, 129, 300}, {7, 64, 1},
    {64, 127, 127}, {127, 7, 64},    {521, 7, 64},   {64, 521, 7},    {7, 64, 521},
};
#define NUM_SHAPES (int)(sizeof shapes / sizeof shapes[0])
#define SHAPES_PER_COMBO 2

static const char *c_mode_name(c_mode c) {
  static const char *names[] = {"store", "residual C=D-dtype", "residual C=f32",
                                "residual C aliases D", "residual beta=0 NaN C"};
  return names[c];
}

/* block_scaled K is a multiple of its vectors: 16 for NVFP4 on both
 * operands, else 32. */
static int64_t k_for(const operands *ops, int64_t k) {
  if (strcmp(ops->payload, "block_scaled") != 0)
    return k;
  const int64_t vec =
      ops->a == TP_DTYPE_E2M1 && ops->b == TP_DTYPE_E2M1 && ops->b_scale != TP_DTYPE_UE8M0 ? 16
                                                                                        : 32;
  return (k + vec - 1) / vec * vec;
}

/* Runs one case; returns 0 when the combination does not exist (f32 C and
 * an f32 D are the C_SAME case already). */
static int run_case(int combo, int shape_index) {
  const operands *ops = &operand_sets[combo / (NUM_OUTPUTS * NUM_C_MODES)];
  const tp_dtype d = outputs[combo / NUM_C_MODES % NUM_OUTPUTS];
  const c_mode cm = c_modes[combo % NUM_C_MODES];
  if (cm == C_F32 && d == TP_DTYPE_F32)
    return 0;
  const int64_t *shape = shapes[shape_index];
  tp_ref_problem_spec spec = {
      .struct_size = sizeof spec,
      .registry = build_registry,
      .payload = ops->payload,
      .a = ops->a,
      .b = ops->b,
      .d = d,
      .c = cm == C_SAME || cm == C_NAN ? d : cm == C_F32 ? TP_DTYPE_F32 : TP_DTYPE_NONE,
      .c_is_d = cm == C_ALIAS,
      .c_nan = cm == C_NAN,
      .sf_layout = ops->sf_layout,
      .b_scale = ops->b_scale,
      .m = shape[0],
      .n = shape[1],
      .k = k_for(ops, shape[2]),
      .pad = combo % 3,
      .alpha = combo % 2 ? 1.5f : -0.75f,
      .beta = cm == C_NAN || cm == C_NONE ? 0.0f : cm == C_ALIAS ? 1.0f : -0.5f,
  };
  const uint64_t seed = (uint64_t)combo * 1000 + (uint64_t)shape_index;
  const char *epilogue = cm == C_NONE ? "store" : "residual";
  char what[256];
  snprintf(what, sizeof what, "%s A=%s B=%s%s%s D=%s %s, M=%lld N=%lld K=%lld, seed %llu",
           ops->payload, tp_dtype_name(ops->a), tp_dtype_name(ops->b),
           ops->b_scale == TP_DTYPE_UE8M0 ? " (MXFP4)" : "",
           strcmp(ops->payload, "block_scaled") != 0 ? ""
           : ops->sf_layout == TP_LAYOUT_SF_128X4 ? " (sf 128x4)"
                                                  : " (sf strided)",
           tp_dtype_name(d), c_mode_name(cm), (long long)spec.m, (long long)spec.n,
           (long long)spec.k, (unsigned long long)seed);

  char err[1024];
  tp_ref_problem *p;
  ck_assert_msg(tp_ref_problem_create(&p, &spec, seed, err, sizeof err) == TP_OK, "%s: %s", what,
                err);
  ck_assert_msg(tp_ref_problem_expect(p, cm == C_NONE ? TP_REF_STORE : TP_REF_RESIDUAL, err,
                                      sizeof err) == TP_OK,
                "%s: reference: %s", what, err);

  const tp_ref_tolerance tol = tp_ref_problem_tolerance(p, TP_BACKEND_CPU);
  tp_ref_report rep = {.struct_size = sizeof rep};
  ck_assert_msg(tp_ref_problem_verify(p, build_registry, ops->payload, epilogue, TP_BACKEND_CPU, &tol, &rep,
                                      err, sizeof err) == TP_OK,
                "%s: %s", what, err);
  tp_ref_report_format(&rep, err, sizeof err);
  ck_assert_msg(rep.pass, "%s: %s", what, err);
  ck_assert_int_eq(tp_ref_problem_unwritten(p, &tol, NULL, NULL), 0);
  tp_ref_problem_destroy(p);
  return 1;
}

/* One combination (the loop index) on its two shapes. */
START_TEST(test_combination) {
  ck_assert_msg(build_registry != NULL, "no registry at %s", TP_TEST_REGISTRY);
  for (int s = 0; s < SHAPES_PER_COMBO; s++)
    if (!run_case(_i, (_i * SHAPES_PER_COMBO + s * 5) % NUM_SHAPES))
      return;
}
END_TEST

/* The combination table itself covers what it claims: every payload, both
 * epilogues, every D dtype, both scale layouts (a guard against a table
 * edit silently dropping coverage). */
START_TEST(test_table_covers_every_plugin) {
  int payload_seen[3] = {0}, layout_seen[2] = {0}, nvfp4 = 0, mxfp4 = 0, w4a16 = 0, w4a8 = 0;
  const char *payloads[3] = {"standard", "blockwise_fp8", "block_scaled"};
  for (int i = 0; i < NUM_OPERAND_SETS; i++) {
    for (int p = 0; p < 3; p++)
      payload_seen[p] += strcmp(operand_sets[i].payload, payloads[p]) == 0;
    if (strcmp(operand_sets[i].payload, "block_scaled") == 0)
      layout_seen[operand_sets[i].sf_layout == TP_LAYOUT_SF_128X4]++;
    const int fp4_b = operand_sets[i].b == TP_DTYPE_E2M1;
    nvfp4 += operand_sets[i].a == TP_DTYPE_E2M1 && operand_sets[i].b_scale != TP_DTYPE_UE8M0;
    mxfp4 += fp4_b && operand_sets[i].b_scale == TP_DTYPE_UE8M0;
    w4a16 += fp4_b && operand_sets[i].a == TP_DTYPE_BF16;
    w4a8 += fp4_b && (operand_sets[i].a == TP_DTYPE_E4M3 || operand_sets[i].a == TP_DTYPE_E5M2);
  }
  for (int p = 0; p < 3; p++)
    ck_assert_msg(payload_seen[p] > 0, "no case for %s", payloads[p]);
  ck_assert(layout_seen[0] > 0 && layout_seen[1] > 0 && nvfp4 >= 2);
  ck_assert(mxfp4 >= 3 && w4a16 >= 2 && w4a8 >= 2); /* MXFP4 in each 4-bit mode */
  int sizes_seen[7] = {0};
  const int64_t sizes[7] = {1, 7, 64, 127, 129, 300, 521};
  for (int s = 0; s < NUM_SHAPES; s++)
    for (int d = 0; d < 3; d++)
      for (int v = 0; v < 7; v++)
        sizes_seen[v] |= (shapes[s][d] == sizes[v]) << d;
  for (int v = 0; v < 7; v++)
    ck_assert_msg(sizes_seen[v] == 7, "size %lld is not used as each of M, N and K",
                  (long long)sizes[v]);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plugins_cpu");
  TCase *tc = tcase_create("combinations");
  tcase_add_unchecked_fixture(tc, build_registry_open, build_registry_close);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_table_covers_every_plugin);
  tcase_add_loop_test(tc, test_combination, 0, NUM_COMBOS);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
