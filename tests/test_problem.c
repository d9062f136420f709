/* tests/test_problem.c: tp_problem_describe (tilepipe/problem.h), a
 * payload's description of its own problem.
 *
 * Each shipped payload (the build tree's registry): its default dtypes and
 * B following A; its scale tensors' dtype, layout, shape and strides (the
 * pad asked for) and data NULL; its maps and the values they draw
 * (blockwise_fp8's wide, narrow under an f16 D; block_scaled's by format,
 * in either layout); its acc bits; the GPU's rounding of the operands
 * (block_scaled's W8A8 fold, by fp8 dtype; none elsewhere); the dtypes it
 * refuses, the message
 * naming the payload and the problem. A payload without the slot
 * (fixture_payload), and one built for ABI 2.0, before it
 * (fixture_abi_first_minor, with a poisoned slot past its struct_size), get
 * the plain problem. A
 * payload with the slot (fixture_problem) describes the
 * per-row scale vectors; each way its slot can go wrong is refused with
 * TP_ERR_PLUGIN naming the fault (a map without its tensor, a tensor its
 * map overruns, exponents out of range, a dtype changed or left NONE, a
 * rounding without a block along K, an exact operand's rounding not zeroed),
 * and a refusing slot's own status and reason come through. Refused too:
 * an unknown payload, an epilogue named as one, bad arguments (NULL, sizes
 * of 0, a struct_size too small, an unknown layout, a negative pad). A
 * refusal leaves the descriptor and the problem as they were; a caller's
 * larger (newer) tp_problem gets its tail zeroed, an older one (before
 * acc_k, before the roundings) nothing past its end. */
#include <stddef.h>
#include <string.h>

#include <check.h>

#include "tests/registry_util.h"
#include "tilepipe/problem.h"
#include "tilepipe/tilepipe.h"

static tp_registry *shipped; /* the build tree's */
static tp_registry *fixtures;

/* The fixtures' registry, each describe mode a section of fixture_problem. */
static const char fixtures_ini[] =
    "[plain]\nkind = payload\nlibrary = fixture_payload\n"
    "[old]\nkind = payload\nlibrary = fixture_abi_first_minor\n"
    "[rows]\nkind = payload\nlibrary = fixture_problem\n"
    "[refuse]\nkind = payload\nlibrary = fixture_problem\ndescribe = refuse\n"
    "[short]\nkind = payload\nlibrary = fixture_problem\ndescribe = short\n"
    "[unmapped]\nkind = payload\nlibrary = fixture_problem\ndescribe = unmapped\n"
    "[wide]\nkind = payload\nlibrary = fixture_problem\ndescribe = wide\n"
    "[retype]\nkind = payload\nlibrary = fixture_problem\ndescribe = retype\n"
    "[none]\nkind = payload\nlibrary = fixture_problem\ndescribe = none\n"
    "[unblocked]\nkind = payload\nlibrary = fixture_problem\ndescribe = unblocked\n"
    "[stray]\nkind = payload\nlibrary = fixture_problem\ndescribe = stray\n"
    "[store]\nkind = epilogue\nlibrary = fixture_epilogue\n";

static void setup(void) {
  tu_setup();
  ck_assert_msg(tp_registry_open(&shipped, TP_TEST_REGISTRY) == TP_OK, "%s", tp_error_message());
  ck_assert_msg(tu_open(&fixtures, "fixtures.ini", fixtures_ini) == TP_OK, "%s",
                tp_error_message());
}

static void teardown(void) {
  tp_registry_close(shipped);
  tp_registry_close(fixtures);
  tu_teardown();
}

/* M x N x K with A, B and D of these dtypes (NONE: the payload's). */
static tp_gemm_desc asked(int64_t m, int64_t n, int64_t k, tp_dtype a, tp_dtype b, tp_dtype d) {
  tp_gemm_desc desc;
  tp_gemm_desc_init(&desc, m, n, k);
  desc.a.dtype = a;
  desc.b.dtype = b;
  desc.d.dtype = d;
  return desc;
}

static tp_problem describe_ok(tp_registry *reg, const char *payload,
                              const tp_problem_options *opt, tp_gemm_desc *desc) {
  tp_problem p = {.struct_size = sizeof p};
  ck_assert_msg(tp_problem_describe(reg, payload, opt, desc, &p) == TP_OK, "%s: %s", payload,
                tp_error_message());
  ck_assert_uint_eq(p.struct_size, sizeof p);
  return p;
}

static void expect_map(const tp_scale_map *m, int32_t rows, int32_t k, int32_t k_first,
                       int32_t exp_min, int32_t exp_count) {
  ck_assert_int_eq(m->rows, rows);
  ck_assert_int_eq(m->k, k);
  ck_assert_int_eq(m->k_first, k_first);
  ck_assert_int_eq(m->exp_min, exp_min);
  ck_assert_int_eq(m->exp_count, exp_count);
}

static void expect_rounding(const tp_operand_rounding *r, int32_t rows, int32_t k, int32_t exp) {
  ck_assert_int_eq(r->rows, rows);
  ck_assert_int_eq(r->k, k);
  ck_assert_int_eq(r->exp, exp);
}

static void expect_tensor(const tp_tensor *t, tp_dtype dtype, tp_layout layout, int32_t rank,
                          int64_t rows, int64_t cols, int64_t stride) {
  ck_assert_int_eq(t->dtype, dtype);
  ck_assert_int_eq(t->layout, layout);
  ck_assert_int_eq(t->rank, rank);
  ck_assert_int_eq(t->shape[0], rows);
  if (rank == 2) ck_assert_int_eq(t->shape[1], cols);
  ck_assert_int_eq(t->stride[0], stride);
  ck_assert_ptr_null(t->data);
}

static void expect_absent(const tp_tensor *t) {
  ck_assert_int_eq(t->dtype, TP_DTYPE_NONE);
  ck_assert_int_eq(t->rank, 0);
  ck_assert_int_eq(t->shape[0], 0);
  ck_assert_ptr_null(t->data);
}

static void expect_unscaled(const tp_gemm_desc *d, const tp_problem *p) {
  static const tp_scale_map none;
  expect_absent(&d->a_scale);
  expect_absent(&d->b_scale);
  ck_assert_mem_eq(&p->a_scale, &none, sizeof none);
  ck_assert_mem_eq(&p->b_scale, &none, sizeof none);
}

/* What a describe may change of a descriptor, as it was. */
static void expect_same(const tp_gemm_desc *d, const tp_gemm_desc *before) {
  ck_assert_int_eq(d->a.dtype, before->a.dtype);
  ck_assert_int_eq(d->b.dtype, before->b.dtype);
  const tp_tensor *now[2] = {&d->a_scale, &d->b_scale}, *was[2] = {&before->a_scale,
                                                                    &before->b_scale};
  for (int i = 0; i < 2; i++) {
    ck_assert_int_eq(now[i]->dtype, was[i]->dtype);
    ck_assert_int_eq(now[i]->rank, was[i]->rank);
    ck_assert_int_eq(now[i]->shape[0], was[i]->shape[0]);
    ck_assert_ptr_eq(now[i]->data, was[i]->data);
  }
}

/* The refusal's status and its message's parts; desc and the problem as
 * they were. */
static void expect_refused_with(tp_registry *reg, const char *payload,
                                const tp_problem_options *opt, tp_gemm_desc desc,
                                tp_status status, const char *needle) {
  const tp_gemm_desc before = desc;
  tp_problem p = {.struct_size = sizeof p, .acc_bits = 7};
  ck_assert_int_eq(tp_problem_describe(reg, payload, opt, &desc, &p), status);
  const char *msg = tp_error_message();
  TU_ASSERT_HAS(msg, needle);
  expect_same(&desc, &before);
  ck_assert_int_eq(p.acc_bits, 7);
}

static void expect_refused(tp_registry *reg, const char *payload, tp_gemm_desc desc,
                           tp_status status, const char *needle) {
  expect_refused_with(reg, payload, NULL, desc, status, needle);
}

START_TEST(test_standard) {
  tp_gemm_desc d = asked(7, 9, 11, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_BF16);
  d.a_scale = tp_tensor_vector(TP_DTYPE_F32, 7, NULL); /* the slot starts from none */
  tp_problem p = describe_ok(shipped, "standard", NULL, &d);
  ck_assert_int_eq(d.a.dtype, TP_DTYPE_BF16);
  ck_assert_int_eq(d.b.dtype, TP_DTYPE_BF16);
  expect_unscaled(&d, &p);
  ck_assert_int_eq(p.acc_bits, 22);
  ck_assert_int_eq(p.acc_k, 0); /* the whole of K in wgmma's running sum */
  d = asked(7, 9, 11, TP_DTYPE_E5M2, TP_DTYPE_NONE, TP_DTYPE_F32);
  p = describe_ok(shipped, "standard", NULL, &d);
  ck_assert_int_eq(d.b.dtype, TP_DTYPE_E5M2);
  ck_assert_int_eq(p.acc_bits, 14);
  ck_assert_int_eq(p.acc_k, 0);
  d = asked(7, 9, 11, TP_DTYPE_NONE, TP_DTYPE_F16, TP_DTYPE_F32);
  describe_ok(shipped, "standard", NULL, &d);
  ck_assert_int_eq(d.a.dtype, TP_DTYPE_F16);
  expect_refused(shipped, "standard", asked(7, 9, 11, TP_DTYPE_S8, TP_DTYPE_NONE, TP_DTYPE_BF16),
                 TP_ERR_UNSUPPORTED,
                 "payload 'standard', problem 7x9x11 (A s8, B none, D bf16): A is s8; standard "
                 "takes bf16, f16, e4m3 or e5m2");
  expect_refused(shipped, "standard", asked(7, 9, 11, TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_BF16),
                 TP_ERR_UNSUPPORTED, "A is bf16 and B is f16");
}
END_TEST

START_TEST(test_blockwise_fp8) {
  const tp_problem_options pad = {.struct_size = sizeof pad, .pad = 3};
  tp_gemm_desc d = asked(100, 300, 257, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_BF16);
  tp_problem p = describe_ok(shipped, "blockwise_fp8", &pad, &d);
  ck_assert_int_eq(d.a.dtype, TP_DTYPE_E4M3);
  ck_assert_int_eq(d.b.dtype, TP_DTYPE_E4M3);
  /* L = ceil(257 / 128) = 3; ceil(300 / 128) = 3. */
  expect_tensor(&d.a_scale, TP_DTYPE_F32, TP_LAYOUT_STRIDED, 2, 3, 100, 103);
  expect_tensor(&d.b_scale, TP_DTYPE_F32, TP_LAYOUT_STRIDED, 2, 3, 3, 6);
  expect_map(&p.a_scale, 1, 128, 1, -8, 16);
  expect_map(&p.b_scale, 128, 128, 0, -8, 16);
  ck_assert_int_eq(p.acc_bits, 14);
  ck_assert_int_eq(p.acc_k, 128); /* each scale block's sum promoted */
  /* Under an f16 D the values narrow (their products would overflow it). */
  d = asked(100, 300, 257, TP_DTYPE_E4M3, TP_DTYPE_NONE, TP_DTYPE_F16);
  p = describe_ok(shipped, "blockwise_fp8", NULL, &d);
  expect_map(&p.a_scale, 1, 128, 1, -2, 4);
  expect_map(&p.b_scale, 128, 128, 0, -2, 4);
  expect_tensor(&d.a_scale, TP_DTYPE_F32, TP_LAYOUT_STRIDED, 2, 3, 100, 100);
  expect_refused(shipped, "blockwise_fp8",
                 asked(4, 4, 4, TP_DTYPE_BF16, TP_DTYPE_NONE, TP_DTYPE_BF16), TP_ERR_UNSUPPORTED,
                 "A is bf16; blockwise_fp8 takes e4m3");
}
END_TEST

START_TEST(test_block_scaled) {
  const tp_problem_options tiled = {.struct_size = sizeof tiled,
                                    .scale_layout = TP_LAYOUT_SF_128X4, .pad = 5};
  const tp_problem_options strided = {.struct_size = sizeof strided, .pad = 2};
  /* MXFP8 (the default), K = 100: a scale per started vector of 32. */
  tp_gemm_desc d = asked(130, 7, 100, TP_DTYPE_NONE, TP_DTYPE_E5M2, TP_DTYPE_BF16);
  tp_problem p = describe_ok(shipped, "block_scaled", &tiled, &d);
  ck_assert_int_eq(d.a.dtype, TP_DTYPE_E5M2);
  expect_tensor(&d.a_scale, TP_DTYPE_UE8M0, TP_LAYOUT_SF_128X4, 2, 130, 4, 0);
  expect_tensor(&d.b_scale, TP_DTYPE_UE8M0, TP_LAYOUT_SF_128X4, 2, 7, 4, 0);
  expect_map(&p.a_scale, 1, 32, 0, -2, 5);
  expect_map(&p.b_scale, 1, 32, 0, -2, 5);
  ck_assert_int_eq(p.acc_bits, 14);
  ck_assert_int_eq(p.acc_k, 128); /* folded into blockwise FP8's form */
  /* The fold rounds to e5m2's smallest subnormal, 2^-16, per row of A
   * and per 128 rows of B, each 128 of K; e4m3's is 2^-9. */
  expect_rounding(&p.a_rounding, 1, 128, -16);
  expect_rounding(&p.b_rounding, 128, 128, -16);
  d = asked(130, 7, 100, TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_BF16);
  p = describe_ok(shipped, "block_scaled", &strided, &d);
  expect_rounding(&p.a_rounding, 1, 128, -9);
  expect_rounding(&p.b_rounding, 128, 128, -16);
  /* NVFP4, strided with the pad. */
  d = asked(130, 7, 64, TP_DTYPE_E2M1, TP_DTYPE_NONE, TP_DTYPE_F16);
  p = describe_ok(shipped, "block_scaled", &strided, &d);
  ck_assert_int_eq(d.b.dtype, TP_DTYPE_E2M1);
  expect_tensor(&d.a_scale, TP_DTYPE_UE4M3, TP_LAYOUT_STRIDED, 2, 130, 4, 6);
  expect_tensor(&d.b_scale, TP_DTYPE_UE4M3, TP_LAYOUT_STRIDED, 2, 7, 4, 6);
  expect_map(&p.a_scale, 1, 16, 0, -2, 4);
  expect_refused(shipped, "block_scaled",
                 asked(4, 4, 64, TP_DTYPE_E2M1, TP_DTYPE_E4M3, TP_DTYPE_BF16), TP_ERR_UNSUPPORTED,
                 "4-bit A takes 4-bit B in its format (W4A4)");
  /* MXFP4 asked through the options: e2m1 with ue8m0 per 32, A in B's format. */
  const tp_problem_options mx = {.struct_size = sizeof mx, .pad = 2,
                                 .b_scale_dtype = TP_DTYPE_UE8M0};
  d = asked(130, 7, 64, TP_DTYPE_E2M1, TP_DTYPE_NONE, TP_DTYPE_F16);
  p = describe_ok(shipped, "block_scaled", &mx, &d);
  expect_tensor(&d.a_scale, TP_DTYPE_UE8M0, TP_LAYOUT_STRIDED, 2, 130, 2, 4);
  expect_tensor(&d.b_scale, TP_DTYPE_UE8M0, TP_LAYOUT_STRIDED, 2, 7, 2, 4);
  expect_map(&p.b_scale, 1, 32, 0, -2, 5);
  /* W4A16 (bf16 A, NVFP4 B): no a_scale, bf16 products. */
  d = asked(130, 7, 64, TP_DTYPE_BF16, TP_DTYPE_E2M1, TP_DTYPE_BF16);
  p = describe_ok(shipped, "block_scaled", &strided, &d);
  expect_absent(&d.a_scale);
  expect_tensor(&d.b_scale, TP_DTYPE_UE4M3, TP_LAYOUT_STRIDED, 2, 7, 4, 6);
  expect_map(&p.b_scale, 1, 16, 0, -2, 4);
  ck_assert_int_eq(p.acc_bits, 22);
  expect_rounding(&p.a_rounding, 0, 0, 0); /* no fold: each operand exact */
  expect_rounding(&p.b_rounding, 0, 0, 0);
  /* W4A8 (MXFP8 A, MXFP4 B): each operand its own vector of 32. */
  d = asked(130, 7, 96, TP_DTYPE_E4M3, TP_DTYPE_E2M1, TP_DTYPE_BF16);
  p = describe_ok(shipped, "block_scaled", &mx, &d);
  expect_tensor(&d.a_scale, TP_DTYPE_UE8M0, TP_LAYOUT_STRIDED, 2, 130, 3, 5);
  expect_map(&p.a_scale, 1, 32, 0, -2, 5);
  /* A scale dtype the payload does not describe is refused, by the core
   * (a payload without the slot has no scales at all). */
  const tp_problem_options nv = {.struct_size = sizeof nv, .b_scale_dtype = TP_DTYPE_UE4M3};
  expect_refused_with(shipped, "block_scaled", &nv,
                      asked(4, 4, 64, TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_DTYPE_BF16),
                      TP_ERR_UNSUPPORTED, "its b_scale is ue8m0, not the ue4m3 asked");
  expect_refused_with(shipped, "standard", &mx,
                      asked(4, 4, 64, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16),
                      TP_ERR_UNSUPPORTED, "its b_scale is none, not the ue8m0 asked");
  /* MXFP8 W8A16: bf16 products in wgmma over the whole of K. */
  d = asked(130, 7, 100, TP_DTYPE_BF16, TP_DTYPE_NONE, TP_DTYPE_BF16);
  p = describe_ok(shipped, "block_scaled", NULL, &d);
  ck_assert_int_eq(d.b.dtype, TP_DTYPE_E4M3);
  ck_assert_int_eq(p.acc_bits, 22);
  ck_assert_int_eq(p.acc_k, 0);
  expect_rounding(&p.a_rounding, 0, 0, 0);
  expect_rounding(&p.b_rounding, 0, 0, 0);
}
END_TEST

START_TEST(test_without_the_slot) {
  const char *sections[] = {"plain", "old"};
  for (int i = 0; i < 2; i++) {
    tp_gemm_desc d = asked(3, 5, 7, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_F32);
    tp_problem p = describe_ok(fixtures, sections[i], NULL, &d);
    ck_assert_int_eq(d.a.dtype, TP_DTYPE_BF16);
    ck_assert_int_eq(d.b.dtype, TP_DTYPE_BF16);
    expect_unscaled(&d, &p);
    ck_assert_int_eq(p.acc_bits, 22);
    ck_assert_int_eq(p.acc_k, 0);
    d = asked(3, 5, 7, TP_DTYPE_NONE, TP_DTYPE_E2M1, TP_DTYPE_F32);
    p = describe_ok(fixtures, sections[i], NULL, &d);
    ck_assert_int_eq(d.a.dtype, TP_DTYPE_E2M1);
    ck_assert_int_eq(p.acc_bits, 14);
    d = asked(3, 5, 7, TP_DTYPE_S8, TP_DTYPE_NONE, TP_DTYPE_F32);
    p = describe_ok(fixtures, sections[i], NULL, &d);
    ck_assert_int_eq(d.b.dtype, TP_DTYPE_S8);
    ck_assert_int_eq(p.acc_bits, 24);
  }
}
END_TEST

START_TEST(test_row_scales) {
  tp_gemm_desc d = asked(33, 40, 257, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_F16);
  d.a_scale.data = &d; /* the caller's scales are no part of the request */
  tp_problem p = describe_ok(fixtures, "rows", NULL, &d);
  ck_assert_int_eq(d.a.dtype, TP_DTYPE_S8);
  expect_tensor(&d.a_scale, TP_DTYPE_F32, TP_LAYOUT_STRIDED, 1, 33, 0, 1);
  expect_tensor(&d.b_scale, TP_DTYPE_F32, TP_LAYOUT_STRIDED, 1, 40, 0, 1);
  expect_map(&p.a_scale, 1, 0, 0, -12, 8);
  expect_map(&p.b_scale, 1, 0, 0, -12, 8);
  ck_assert_int_eq(p.acc_bits, 24);
  ck_assert_int_eq(d.m, 33);
  ck_assert_int_eq(d.d.dtype, TP_DTYPE_F16);
}
END_TEST

START_TEST(test_slot_faults) {
  const tp_gemm_desc d = asked(33, 40, 257, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_BF16);
  expect_refused(fixtures, "refuse", d, TP_ERR_UNSUPPORTED,
                 "payload 'refuse', problem 33x40x257 (A none, B none, D bf16): fixture_problem "
                 "refuses to describe anything");
  expect_refused(fixtures, "short", d, TP_ERR_PLUGIN,
                 "a_scale is a vector of 32 scales; its map (a scale per 1 rows of 33) needs 33");
  expect_refused(fixtures, "unmapped", d, TP_ERR_PLUGIN,
                 "b_scale's map has rows 0, k 0, k_first 0: it needs rows >= 1");
  expect_refused(fixtures, "wide", d, TP_ERR_PLUGIN,
                 "a_scale's values 2^[120, 120 + 16) are out of bounds");
  tp_gemm_desc s8 = d;
  s8.a.dtype = TP_DTYPE_S8;
  expect_refused(fixtures, "retype", s8, TP_ERR_PLUGIN,
                 "A was asked as s8 but the slot made it bf16");
  expect_refused(fixtures, "none", d, TP_ERR_PLUGIN, "A's dtype is left none");
  expect_refused(fixtures, "unblocked", d, TP_ERR_PLUGIN,
                 "a_rounding has rows 1, k 0, exp -10: it needs rows >= 1, k >= 1 and exp "
                 "within [-149, 0]");
  expect_refused(fixtures, "stray", d, TP_ERR_PLUGIN,
                 "b_rounding has rows 0 (exact) but k 0, exp -3: an exact operand's rounding is "
                 "zeroed");
}
END_TEST

START_TEST(test_refusals) {
  const tp_gemm_desc d = asked(4, 4, 4, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_BF16);
  expect_refused(shipped, "nosuch", d, TP_ERR_NOT_FOUND, "no payload plugin 'nosuch' in ");
  expect_refused(shipped, "store", d, TP_ERR_INVALID_ARGUMENT,
                 "plugin 'store' is of kind epilogue, not payload");
  expect_refused(fixtures, "store", d, TP_ERR_INVALID_ARGUMENT, "payload 'store', problem 4x4x4");
  expect_refused(shipped, "standard", asked(0, 4, 4, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_BF16),
                 TP_ERR_INVALID_ARGUMENT, "sizes must be >= 1 (M = 0, N = 4, K = 4)");
  tp_gemm_desc bad = d;
  bad.b.dtype = TP_DTYPE_COUNT;
  expect_refused(shipped, "standard", bad, TP_ERR_INVALID_ARGUMENT, "B's dtype");
  tp_gemm_desc copy = d;
  tp_problem p = {.struct_size = sizeof p};
  ck_assert_int_eq(tp_problem_describe(NULL, "standard", NULL, &copy, &p),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_problem_describe(shipped, NULL, NULL, &copy, &p), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_problem_describe(shipped, "standard", NULL, NULL, &p),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(tp_problem_describe(shipped, "standard", NULL, &copy, NULL),
                   TP_ERR_INVALID_ARGUMENT);
  tp_problem old = {.struct_size = offsetof(tp_problem, acc_bits)};
  ck_assert_int_eq(tp_problem_describe(shipped, "standard", NULL, &copy, &old),
                   TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "tp_problem struct_size");
  tp_problem_options opt = {.struct_size = 4};
  ck_assert_int_eq(tp_problem_describe(shipped, "standard", &opt, &copy, &p),
                   TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "tp_problem_options struct_size");
  opt = (tp_problem_options){.struct_size = sizeof opt, .scale_layout = (tp_layout)7};
  ck_assert_int_eq(tp_problem_describe(shipped, "block_scaled", &opt, &copy, &p),
                   TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "scale_layout 7");
  opt = (tp_problem_options){.struct_size = sizeof opt, .pad = -1};
  ck_assert_int_eq(tp_problem_describe(shipped, "block_scaled", &opt, &copy, &p),
                   TP_ERR_INVALID_ARGUMENT);
  TU_ASSERT_HAS(tp_error_message(), "pad -1 is negative");
  expect_same(&copy, &d);
}
END_TEST

/* A caller built against a later tilepipe passes a larger tp_problem: the
 * fields this one knows are set, the rest zeroed. */
START_TEST(test_newer_caller) {
  struct {
    tp_problem known;
    int32_t later[4];
  } newer;
  memset(&newer, 0xAB, sizeof newer);
  newer.known.struct_size = sizeof newer;
  tp_gemm_desc d = asked(3, 5, 7, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_F32);
  ck_assert_int_eq(tp_problem_describe(fixtures, "rows", NULL, &d, &newer.known), TP_OK);
  ck_assert_uint_eq(newer.known.struct_size, sizeof newer);
  ck_assert_int_eq(newer.known.acc_bits, 24);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(newer.later[i], 0);
}
END_TEST

/* A caller built before acc_k (tp_problem's first version) is served the
 * fields it has, and nothing past them is written. */
START_TEST(test_first_version_caller) {
  struct {
    tp_problem known;
    int32_t canary;
  } old;
  memset(&old, 0xAB, sizeof old);
  old.known.struct_size = offsetof(tp_problem, acc_k);
  tp_gemm_desc d = asked(3, 5, 7, TP_DTYPE_NONE, TP_DTYPE_NONE, TP_DTYPE_BF16);
  ck_assert_int_eq(tp_problem_describe(shipped, "blockwise_fp8", NULL, &d, &old.known), TP_OK);
  ck_assert_int_eq(old.known.acc_bits, 14);
  int32_t acc_k;
  memcpy(&acc_k, &old.known.acc_k, sizeof acc_k);
  ck_assert_int_eq(acc_k, (int32_t)0xABABABAB);
  ck_assert_int_eq(old.canary, (int32_t)0xABABABAB);
}
END_TEST

/* A caller built before the roundings (plugin ABI 2.3) is served acc_k
 * and nothing past it, though block_scaled's W8A8 rounds both operands. */
START_TEST(test_caller_before_roundings) {
  struct {
    tp_problem known;
    int32_t canary;
  } old;
  memset(&old, 0xAB, sizeof old);
  old.known.struct_size = offsetof(tp_problem, a_rounding);
  tp_gemm_desc d = asked(3, 5, 64, TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16);
  ck_assert_int_eq(tp_problem_describe(shipped, "block_scaled", NULL, &d, &old.known), TP_OK);
  ck_assert_int_eq(old.known.acc_k, 128);
  unsigned char tail[2 * sizeof(tp_operand_rounding)], poison[sizeof tail];
  memcpy(tail, &old.known.a_rounding, sizeof tail);
  memset(poison, 0xAB, sizeof poison);
  ck_assert_mem_eq(tail, poison, sizeof tail);
  ck_assert_int_eq(old.canary, (int32_t)0xABABABAB);
}
END_TEST

int main(void) {
  Suite *s = suite_create("problem");
  TCase *tc = tcase_create("describe");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_standard);
  tcase_add_test(tc, test_blockwise_fp8);
  tcase_add_test(tc, test_block_scaled);
  tcase_add_test(tc, test_without_the_slot);
  tcase_add_test(tc, test_row_scales);
  tcase_add_test(tc, test_slot_faults);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_newer_caller);
  tcase_add_test(tc, test_first_version_caller);
  tcase_add_test(tc, test_caller_before_roundings);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
