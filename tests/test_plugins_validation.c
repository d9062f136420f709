/* tests/test_plugins_validation.c: what the shipped plugins refuse, and how
 * they are listed.
 *
 * - Each bad descriptor goes through tp_plan_create (CPU backend) and must
 *   return the plugin's status with a message naming the plugin and the
 *   tensor or rule at fault. Descriptors start from a valid problem
 *   (tilepipe/reference.h) that plans fine, then change one thing.
 * - The GPU side of the plan slots (tile choice, stage contents, TMA rules)
 *   cannot go through tp_plan_create without a GPU, so those tests call the
 *   slots of the dlopen'ed plugin directly, as the core would.
 * - The standard payload's device images list every kernel its planner can
 *   name, each in its operand pair's image.
 * - The tuning keys through set_option, and through a registry file.
 * - The build-tree registry and the installed one (resolved through
 *   TILEPIPE_PLUGIN_PATH) list the five plugins, all usable. */
#include <ctype.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/build_registry.h"

#include "config.h"
#include "plugins/standard/device/standard_params.h"
#include "tilepipe/plugin/kernel/gpu_plan.h"
#include "tilepipe/plugin/kit/checks.h"
#include "tilepipe/plugin/kit/tuning.h"
#include "tilepipe/plugin/abi.h"
#include "tilepipe/tilepipe.h"
#include "tilepipe/reference.h"

#define ASSERT_HAS(haystack, needle)                                                          \
  ck_assert_msg(strstr((haystack), (needle)) != NULL, "\"%s\" does not contain \"%s\"",     \
                (haystack), (needle))


/* ----------------------------------------------------------- plan errors */

/* A problem of the reference library and a copy of its descriptor, which
 * a test changes before planning (a plan reads no data). */
typedef struct test_problem {
  tp_ref_problem *owner;
  tp_gemm_desc desc;
} test_problem;

static test_problem problem_of(const tp_ref_problem_spec *spec) {
  test_problem p;
  char err[256];
  ck_assert_msg(build_registry != NULL, "no registry at %s", TP_TEST_REGISTRY);
  ck_assert_msg(tp_ref_problem_create(&p.owner, spec, 1, err, sizeof err) == TP_OK, "%s", err);
  p.desc = *tp_ref_problem_desc(p.owner);
  return p;
}

static void problem_free(test_problem *p) {
  tp_ref_problem_destroy(p->owner);
  p->owner = NULL;
}

/* M = 100, N = 300, K = 256: every scale shape differs from its transpose. */
static test_problem problem(const char *payload, tp_dtype a, tp_dtype b, tp_dtype d,
                            tp_layout sf_layout) {
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                                    .payload = payload, .a = a, .b = b, .d = d,
                                    .sf_layout = sf_layout, .m = 100, .n = 300, .k = 256,
                                    .alpha = 1.0f};
  return problem_of(&spec);
}

static test_problem standard(void) {
  return problem("standard", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_LAYOUT_STRIDED);
}
static test_problem blockwise(void) {
  return problem("blockwise_fp8", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_LAYOUT_STRIDED);
}
static test_problem mxfp8(tp_layout sf) {
  return problem("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_BF16, sf);
}
static test_problem mxfp8_w8a16(tp_layout sf) {
  return problem("block_scaled", TP_DTYPE_BF16, TP_DTYPE_E4M3, TP_DTYPE_BF16, sf);
}
static test_problem nvfp4(tp_layout sf) {
  return problem("block_scaled", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_DTYPE_F16, sf);
}

/* tp_plan_create refuses p's descriptor with `status`, in a message that
 * names the refusing plugin (the payload, or the epilogue when by_epilogue)
 * and contains both needles (needle2 may be NULL). Frees p. */
static void expect_refused(test_problem *p, const char *payload, const char *epilogue,
                           int by_epilogue, tp_status status, const char *needle,
                           const char *needle2) {
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, build_registry, payload, epilogue, &p->desc, TP_BACKEND_CPU);
  ck_assert_msg(st == status, "%s x %s: status '%s', expected '%s' (%s)", payload, epilogue,
                tp_status_string(st), tp_status_string(status), tp_error_message());
  ck_assert_ptr_null(plan);
  const char *msg = tp_error_message();
  char who[64];
  snprintf(who, sizeof who, "%s '%s'", by_epilogue ? "epilogue" : "payload",
           by_epilogue ? epilogue : payload);
  ASSERT_HAS(msg, who);
  ASSERT_HAS(msg, needle);
  if (needle2)
    ASSERT_HAS(msg, needle2);
  problem_free(p);
}

/* The refusals of a payload, and of an epilogue (with the standard payload). */
#define PAYLOAD_REFUSES(p, payload, status, needle, needle2)                                 \
  expect_refused(p, payload, "store", 0, status, needle, needle2)
#define EPILOGUE_REFUSES(p, epilogue, status, needle, needle2)                               \
  expect_refused(p, "standard", epilogue, 1, status, needle, needle2)

static void expect_planned(test_problem *p, const char *payload, const char *epilogue) {
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, build_registry, payload, epilogue, &p->desc, TP_BACKEND_CPU);
  ck_assert_msg(st == TP_OK, "%s x %s: %s", payload, epilogue, tp_error_message());
  tp_plan_destroy(plan);
}

/* AUTO that resolves to the CPU says why in the plan's description:
 * block_scaled's W4A8 has no GPU kernel (its plan refuses the CUDA
 * backend where there is a GPU; without one, the driver is what is
 * missing; a build without CUDA has no toolkit); an explicit CPU plan has
 * nothing to explain. */
START_TEST(test_auto_says_why_cpu) {
#if TP_HAVE_CUDA
  const char *why = "; auto chose the CPU: ";
#else
  const char *why = "; auto chose the CPU: tilepipe was built without the CUDA toolkit";
#endif
  /* Rows 16-byte aligned, so that a GPU takes the descriptor. */
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                                    .payload = "block_scaled", .a = TP_DTYPE_E4M3,
                                    .b = TP_DTYPE_E2M1, .d = TP_DTYPE_BF16,
                                    .sf_layout = TP_LAYOUT_SF_128X4, .m = 100, .n = 300,
                                    .k = 256, .align_rows = 1, .alpha = 1.0f};
  test_problem p = problem_of(&spec);
  tp_plan *plan = NULL;
  char text[1024];
  ck_assert_msg(tp_plan_create(&plan, build_registry, "block_scaled", "store", &p.desc, TP_BACKEND_AUTO) ==
                    TP_OK, "%s", tp_error_message());
  ck_assert_int_eq(tp_plan_backend(plan), TP_BACKEND_CPU);
  const int n = tp_plan_describe(plan, text, sizeof text);
  ck_assert_int_eq(n, (int)strlen(text));
  ASSERT_HAS(text, "block_scaled x store on cpu: tile ");
  ASSERT_HAS(text, why);
#if TP_HAVE_CUDA
  ck_assert_msg(strstr(text, "(NVFP4 W4A8) has no GPU kernel; the CPU backend runs it") ||
                    strstr(text, "CUDA driver"),
                "\"%s\" gives no reason for the CPU", text);
#endif
  /* A buffer that ends inside the reason holds its start, NUL-terminated,
   * and the return value is the whole line's length. */
  char cut[1024];
  ck_assert_int_eq(tp_plan_describe(plan, cut, (size_t)n - 4), n);
  ck_assert_uint_eq(strlen(cut), (size_t)n - 5);
  ck_assert_int_eq(strncmp(cut, text, (size_t)n - 5), 0);
  tp_plan_destroy(plan);
  ck_assert_int_eq(tp_plan_create(&plan, build_registry, "block_scaled", "store", &p.desc, TP_BACKEND_CPU),
                   TP_OK);
  tp_plan_describe(plan, text, sizeof text);
  ck_assert_msg(strstr(text, "auto chose") == NULL, "\"%s\" explains an explicit CPU plan", text);
  tp_plan_destroy(plan);
  problem_free(&p);
}
END_TEST

START_TEST(test_valid_problems_plan) {
  test_problem p[8] = {standard(),
                       blockwise(),
                       mxfp8(TP_LAYOUT_SF_128X4),
                       mxfp8(TP_LAYOUT_STRIDED),
                       mxfp8_w8a16(TP_LAYOUT_SF_128X4),
                       mxfp8_w8a16(TP_LAYOUT_STRIDED),
                       nvfp4(TP_LAYOUT_SF_128X4),
                       nvfp4(TP_LAYOUT_STRIDED)};
  const char *payloads[8] = {"standard",     "blockwise_fp8", "block_scaled", "block_scaled",
                             "block_scaled", "block_scaled",  "block_scaled", "block_scaled"};
  for (int i = 0; i < 8; i++) {
    expect_planned(&p[i], payloads[i], "store");
    expect_planned(&p[i], payloads[i], "residual");
    problem_free(&p[i]);
  }
}
END_TEST

START_TEST(test_standard_refuses_dtypes) {
  test_problem p = standard();
  p.desc.a.dtype = TP_DTYPE_F32;
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_UNSUPPORTED, "A is f32", "bf16, f16, e4m3 or e5m2");
  p = standard();
  p.desc.b.dtype = TP_DTYPE_F16;
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_UNSUPPORTED, "A is bf16 and B is f16", NULL);
  p = standard();
  p.desc.a.dtype = TP_DTYPE_E4M3;
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_UNSUPPORTED, "A is e4m3 and B is bf16", NULL);
  p = standard();
  p.desc.b.dtype = TP_DTYPE_E2M1;
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_UNSUPPORTED, "B is e2m1", NULL);
  p = standard();
  p.desc.a.dtype = TP_DTYPE_S8;
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_UNSUPPORTED, "A is s8", "bf16, f16, e4m3 or e5m2");
}
END_TEST

START_TEST(test_standard_refuses_scales) {
  test_problem p = standard();
  p.desc.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 1, 1, NULL);
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_INVALID_ARGUMENT, "a_scale is given", "alpha");
  p = standard();
  p.desc.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 1, 1, NULL);
  PAYLOAD_REFUSES(&p, "standard", TP_ERR_INVALID_ARGUMENT, "b_scale is given", NULL);
}
END_TEST

START_TEST(test_blockwise_refuses_dtypes) {
  test_problem p = blockwise();
  p.desc.a.dtype = TP_DTYPE_BF16;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_UNSUPPORTED, "A is bf16", "e4m3");
  p = blockwise();
  p.desc.b.dtype = TP_DTYPE_E5M2;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_UNSUPPORTED, "B is e5m2", NULL);
  p = blockwise();
  p.desc.b.dtype = TP_DTYPE_S8;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_UNSUPPORTED, "B is s8", "e4m3");
}
END_TEST

START_TEST(test_blockwise_refuses_bad_a_scale) {
  test_problem p = blockwise();
  p.desc.a_scale.dtype = TP_DTYPE_NONE;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "a_scale is missing",
                 "[ceil(K/128), M] = [2, 100]");
  p = blockwise();
  p.desc.a_scale.dtype = TP_DTYPE_UE8M0;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "a_scale is ue8m0",
                 "must be f32");
  p = blockwise();
  p.desc.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 100, 2, 2, p.desc.a_scale.data); /* [M][L] */
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT,
                 "a_scale has shape [100, 2]", "[ceil(K/128), M] = [2, 100]");
  p = blockwise();
  p.desc.a_scale.stride[0] = 99;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "a_scale has row stride 99",
                 NULL);
  p = blockwise();
  p.desc.a_scale.stride[1] = 2;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "a_scale has inner stride 2",
                 NULL);
  p = blockwise();
  p.desc.a_scale.layout = TP_LAYOUT_SF_128X4;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "a_scale has layout",
                 "strided");
  p = blockwise();
  p.desc.a_scale.rank = 1;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "a_scale has rank 1", NULL);
}
END_TEST

START_TEST(test_blockwise_refuses_bad_b_scale) {
  test_problem p = blockwise();
  p.desc.b_scale.dtype = TP_DTYPE_NONE;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "b_scale is missing",
                 "[ceil(N/128), ceil(K/128)] = [3, 2]");
  p = blockwise();
  p.desc.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 2, 3, 3, p.desc.b_scale.data); /* transposed */
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "b_scale has shape [2, 3]",
                 NULL);
  p = blockwise();
  p.desc.b_scale.stride[0] = 1;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "b_scale has row stride 1",
                 NULL);
  p = blockwise();
  p.desc.b_scale.dtype = TP_DTYPE_BF16;
  PAYLOAD_REFUSES(&p, "blockwise_fp8", TP_ERR_INVALID_ARGUMENT, "b_scale is bf16", NULL);
}
END_TEST

START_TEST(test_block_scaled_refuses_dtypes) {
  test_problem p = mxfp8(TP_LAYOUT_SF_128X4);
  p.desc.a.dtype = TP_DTYPE_F16;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_UNSUPPORTED, "A is f16", "or bf16 activations");
  p = mxfp8(TP_LAYOUT_SF_128X4);
  p.desc.b.dtype = TP_DTYPE_BF16;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_UNSUPPORTED, "B is bf16", "MXFP8");
  /* Weight-only modes (W8A16, W4A16): A unscaled. */
  p = nvfp4(TP_LAYOUT_SF_128X4);
  p.desc.a.dtype = TP_DTYPE_BF16;
  p.desc.a.stride[0] = p.desc.a.shape[1];
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale",
                 "bf16 activations are not scaled (W4A16 scales B only)");
  /* e2m1 B's format is its scales' dtype: ue4m3 or ue8m0, nothing else. */
  p = nvfp4(TP_LAYOUT_STRIDED);
  p.desc.b_scale.dtype = TP_DTYPE_F32;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_UNSUPPORTED, "b_scale is f32",
                 "ue4m3 scales per 16 K-elements (NVFP4) or ue8m0 per 32 (MXFP4)");
  /* W4A8: fp8 A is MXFP8, whatever B's 4-bit format. */
  p = nvfp4(TP_LAYOUT_SF_128X4);
  p.desc.a.dtype = TP_DTYPE_E4M3;
  p.desc.a.stride[0] = p.desc.a.shape[1];
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale is ue4m3",
                 "must be ue8m0");
  p = mxfp8(TP_LAYOUT_STRIDED);
  p.desc.a.dtype = TP_DTYPE_BF16;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale",
                 "bf16 activations are not scaled");
  p = mxfp8(TP_LAYOUT_SF_128X4);
  p.desc.a.dtype = TP_DTYPE_S8;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_UNSUPPORTED, "A is s8", "MXFP8");
  p = nvfp4(TP_LAYOUT_SF_128X4);
  p.desc.b.dtype = TP_DTYPE_E4M3;
  p.desc.b.stride[0] = p.desc.b.shape[1];
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_UNSUPPORTED, "A is e2m1 and B is e4m3",
                 "4-bit A takes 4-bit B in its format (W4A4)");
}
END_TEST

START_TEST(test_block_scaled_refuses_ragged_k) {
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                              .payload = "block_scaled", .a = TP_DTYPE_E4M3, .b = TP_DTYPE_E4M3,
                              .d = TP_DTYPE_F32, .sf_layout = TP_LAYOUT_SF_128X4, .m = 8, .n = 8,
                              .k = 100, .alpha = 1.0f};
  test_problem p = problem_of(&spec);
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT,
                 "K = 100 is not a multiple of 32", "MXFP8");
  spec.a = spec.b = TP_DTYPE_E2M1;
  spec.k = 40;
  p = problem_of(&spec);
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT,
                 "K = 40 is not a multiple of 16", "NVFP4");
  /* W4A8 over NVFP4 B: A's MXFP8 vector of 32 rules K. */
  spec.a = TP_DTYPE_E4M3;
  spec.k = 48;
  p = problem_of(&spec);
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT,
                 "K = 48 is not a multiple of 32: A's MXFP8", NULL);
}
END_TEST

START_TEST(test_block_scaled_refuses_bad_scales) {
  test_problem p = mxfp8(TP_LAYOUT_SF_128X4);
  p.desc.a_scale.dtype = TP_DTYPE_UE4M3;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale is ue4m3",
                 "must be ue8m0");
  p = mxfp8(TP_LAYOUT_SF_128X4);
  p.desc.b_scale.dtype = TP_DTYPE_UE4M3;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "b_scale is ue4m3",
                 "must be ue8m0");
  /* ue8m0 scales make e2m1 B MXFP4: 4-bit A must then be MXFP4 too. */
  p = nvfp4(TP_LAYOUT_SF_128X4);
  p.desc.b_scale.dtype = TP_DTYPE_UE8M0;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale is ue4m3",
                 "must be ue8m0");
  p = mxfp8(TP_LAYOUT_SF_128X4);
  p.desc.a_scale.shape[1] = 16; /* K/16: NVFP4's vector on MXFP8 data */
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale has shape [100, 16]",
                 "[M, K/32] = [100, 8]");
  p = nvfp4(TP_LAYOUT_STRIDED);
  p.desc.b_scale.stride[0] = 15;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "b_scale has row stride 15",
                 NULL);
  p = mxfp8(TP_LAYOUT_STRIDED);
  p.desc.b_scale.dtype = TP_DTYPE_NONE;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "b_scale is missing",
                 "[N, K/32] = [300, 8]");
  p = mxfp8(TP_LAYOUT_STRIDED);
  p.desc.a_scale.rank = 3;
  p.desc.a_scale.shape[2] = 1;
  PAYLOAD_REFUSES(&p, "block_scaled", TP_ERR_INVALID_ARGUMENT, "a_scale has rank 3", NULL);
}
END_TEST

START_TEST(test_store_refuses) {
  test_problem p = standard();
  p.desc.d.dtype = TP_DTYPE_E4M3;
  EPILOGUE_REFUSES(&p, "store", TP_ERR_UNSUPPORTED, "D is e4m3", "bf16, f16 or f32");
  p = standard();
  p.desc.d.dtype = TP_DTYPE_S8;
  EPILOGUE_REFUSES(&p, "store", TP_ERR_UNSUPPORTED, "D is s8", "bf16, f16 or f32");
  p = standard();
  p.desc.c = p.desc.d;
  p.desc.beta = 0.5f;
  EPILOGUE_REFUSES(&p, "store", TP_ERR_INVALID_ARGUMENT, "C is given with beta = 0.5",
                 "residual");
}
END_TEST

START_TEST(test_residual_refuses) {
  test_problem p = standard();
  p.desc.beta = 2.0f;
  EPILOGUE_REFUSES(&p, "residual", TP_ERR_INVALID_ARGUMENT, "C is missing", "beta = 2");
  p = standard(); /* D is f32 */
  p.desc.c = p.desc.d;
  p.desc.c.dtype = TP_DTYPE_BF16;
  p.desc.beta = 1.0f;
  EPILOGUE_REFUSES(&p, "residual", TP_ERR_UNSUPPORTED, "C is bf16",
                 "D's dtype (f32) or f32");
  p = standard();
  p.desc.d.dtype = TP_DTYPE_E5M2;
  EPILOGUE_REFUSES(&p, "residual", TP_ERR_UNSUPPORTED, "D is e5m2", NULL);
}
END_TEST

/* What the epilogues accept besides the obvious: store with a C it ignores
 * (beta = 0), residual without C when beta = 0 (then D = alpha*acc). */
START_TEST(test_epilogues_accept_unread_c) {
  test_problem p = standard();
  p.desc.c = p.desc.d;
  expect_planned(&p, "standard", "store");
  problem_free(&p);
  p = standard();
  expect_planned(&p, "standard", "residual");
  problem_free(&p);
}
END_TEST

/* ------------------------------------------------- the slots, dlopen'ed */

typedef struct loaded {
  void *handle;
  const tp_plugin_desc *desc;
  void *state;
} loaded;

static loaded load(const char *name) {
  tp_plugin_info info;
  loaded l = {NULL, NULL, NULL};
  char err[256] = "";
  ck_assert_msg(build_registry != NULL, "no registry");
  ck_assert_msg(tp_registry_find(build_registry, name, &info) == TP_OK, "%s", tp_error_message());
  l.handle = dlopen(info.library, RTLD_NOW | RTLD_LOCAL);
  ck_assert_msg(l.handle != NULL, "%s", dlerror());
  tp_plugin_entry_fn entry;
  *(void **)&entry = dlsym(l.handle, TP_PLUGIN_ENTRY_NAME);
  ck_assert_ptr_nonnull(entry);
  l.desc = entry(NULL);
  if (l.desc->init)
    ck_assert_msg(l.desc->init(NULL, &l.state, err, sizeof err) == TP_OK, "%s", err);
  return l;
}

static void unload(loaded *l) {
  if (l->desc->fini)
    l->desc->fini(l->state);
  dlclose(l->handle);
}

static tp_status set(loaded *l, const char *key, const char *value, char *err, size_t errlen) {
  err[0] = '\0';
  return l->desc->set_option(l->state, key, value, err, errlen);
}

/* A shipped payload's section state: the kit's tuning. A test sets its
 * fields directly to give the planner what the INI refuses (a tuning that
 * comes from elsewhere), or what it cannot say (tile M alone). */
static tp_kernel_tuning *tuning_of(loaded *l) { return &((tp_kit_tuning *)l->state)->kernel; }

/* The plugin's plan slot for `backend`, called directly. */
static tp_status plan_slot(loaded *l, const tp_gemm_desc *desc, tp_backend backend,
                           tp_payload_plan *out, char *err, size_t errlen) {
  err[0] = '\0';
  return l->desc->payload->plan(l->state, desc, backend, out, err, errlen);
}

/* Whether the shipped plugins carry LTO-IR: all of them, in a CUDA build. */
static int carries_device_code(void) {
#if TP_HAVE_CUDA
  return 1;
#else
  return 0;
#endif
}

START_TEST(test_descriptors) {
  const char *names[5] = {"standard", "blockwise_fp8", "block_scaled", "store", "residual"};
  for (int i = 0; i < 5; i++) {
    loaded l = load(names[i]);
    ck_assert_str_eq(l.desc->name, names[i]);
    ck_assert_str_eq(l.desc->version, PACKAGE_VERSION);
    ck_assert_int_eq(l.desc->abi_major, TP_PLUGIN_ABI_MAJOR);
    ck_assert_uint_eq(l.desc->struct_size, sizeof(tp_plugin_desc));
    /* standard's and block_scaled's device code comes as one image per
     * operand group (below), the others' as one image. */
    const int grouped = strcmp(names[i], "standard") == 0 || strcmp(names[i], "block_scaled") == 0;
    if (carries_device_code()) {
      ck_assert(grouped ? l.desc->device_images != NULL : l.desc->device_image != NULL);
      ck_assert_uint_gt(grouped ? l.desc->num_device_images : l.desc->device_image_size, 0);
#if TP_HAVE_CUDA
      ck_assert_int_eq(l.desc->cuda_version, TP_BUILD_CUDA_VERSION);
#endif
    } else {
      ck_assert_ptr_null(l.desc->device_images);
      ck_assert_uint_eq(l.desc->num_device_images, 0);
      ck_assert_int_eq(l.desc->cuda_version, 0);
    }
    if (grouped || !carries_device_code()) {
      ck_assert_ptr_null(l.desc->device_image);
      ck_assert_uint_eq(l.desc->device_image_size, 0);
    } else {
      ck_assert_ptr_null(l.desc->device_images);
    }
    ck_assert(i < 3 ? l.desc->payload != NULL && l.desc->epilogue == NULL
                    : l.desc->epilogue != NULL && l.desc->payload == NULL);
    /* Only the entry point is exported: -fvisibility=hidden works. */
    ck_assert_ptr_null(dlsym(l.handle, "tp_kit_cpu_mma"));
    ck_assert_ptr_null(dlsym(l.handle, "tp_kit_fail"));
    unload(&l);
  }
}
END_TEST

/* The standard payload's device images, one per operand pair, list every
 * kernel its planner can name (tilepipe/plugin/kernel/instances.h spells the names
 * from tiles.h as the device code does), each in its pair's image only. */
START_TEST(test_standard_device_images) {
#if TP_HAVE_CUDA
  static const char *const pairs[] = {
#define PAIR_NAME(NAME, A, B) #NAME,
      TP_STANDARD_OPERANDS(PAIR_NAME)
#undef PAIR_NAME
  };
  const size_t num_pairs = sizeof pairs / sizeof pairs[0];
  loaded l = load("standard");
  ck_assert_uint_eq(l.desc->num_device_images, num_pairs);
  size_t count, oriented = 0;
  const tp_kernel_instance *instances = tp_kernel_instances(&count);
  /* standard has no transposed mainloop: the table's other tiles only. */
  for (size_t k = 0; k < count; k++) oriented += !instances[k].transposed;
  for (size_t p = 0; p < num_pairs; p++) {
    const tp_device_image *im = &l.desc->device_images[p];
    ck_assert_ptr_nonnull(im->data);
    ck_assert_uint_gt(im->size, 0);
    ck_assert_uint_eq(im->num_kernels, oriented);
    for (size_t k = 0; k < count; k++) {
      if (instances[k].transposed) continue;
      char name[96];
      snprintf(name, sizeof name, "tp_standard_%s_%s", pairs[p], instances[k].suffix);
      for (size_t q = 0; q < num_pairs; q++) {
        const tp_device_image *other = &l.desc->device_images[q];
        size_t found = 0;
        for (size_t j = 0; j < other->num_kernels; j++)
          found += strcmp(other->kernels[j], name) == 0;
        ck_assert_msg(found == (p == q), "%s is listed %zu times in image %zu", name, found, q);
      }
    }
  }
  unload(&l);
#endif
}
END_TEST

START_TEST(test_tuning_keys) {
  /* The status for standard (tile K 64 or 128, every tile of the table),
   * blockwise_fp8 (K 128; 128x128, 128x64, 64x64: widths in one scale
   * block) and block_scaled (K 64, 128 or 256, every tile). */
#define OK TP_OK
#define BAD TP_ERR_INVALID_ARGUMENT
#define UNKNOWN TP_ERR_NOT_FOUND
  static const struct {
    const char *key, *value;
    tp_status status[3];
    const char *needle;
  } cases[] = {
      {"tile", "128x128x128", {OK, OK, OK}, ""},
      {"tile", "64x64x128", {OK, OK, OK}, ""},
      {"tile", "128x256x64", {OK, BAD, OK}, "K must be"},
      {"tile", "128x128x64", {OK, BAD, OK}, "K must be"},
      {"tile", "128x128x256", {BAD, BAD, OK}, "K must be"},
      {"tile", "128x128x32", {BAD, BAD, BAD}, "K must be"},
      {"tile", "192x16x32", {BAD, BAD, BAD}, "K must be"},
      {"tile", "128x128x48", {BAD, BAD, BAD}, "K must be"},
      {"tile", "128x128x512", {BAD, BAD, BAD}, "K must be"},
      {"tile", "128x256x128", {OK, BAD, OK}, "the GPU kernels take tiles (MxN) "},
      {"tile", "128x208x128", {OK, BAD, OK}, "the GPU kernels take tiles (MxN) "},
      {"tile", "64x48x128", {OK, BAD, OK}, "the GPU kernels take tiles (MxN) "},
      {"tile", "128x48x128", {BAD, BAD, BAD}, "the GPU kernels take tiles (MxN) "},
      {"tile", "128x240x128", {BAD, BAD, BAD}, "the GPU kernels take tiles (MxN) "},
      {"tile", "256x256x128", {BAD, BAD, BAD}, "the GPU kernels take tiles (MxN) "},
      {"tile", "192x128x128", {BAD, BAD, BAD}, "the GPU kernels take tiles (MxN) "},
      {"tile", "128x272x128", {BAD, BAD, BAD}, "the GPU kernels take tiles (MxN) "},
      {"tile", "128x128", {BAD, BAD, BAD}, "MxNxK"},
      {"tile", "128x128x64x1", {BAD, BAD, BAD}, "MxNxK"},
      {"tile", "", {BAD, BAD, BAD}, "MxNxK"},
      {"tile", "0x128x128", {BAD, BAD, BAD}, "MxNxK"},
      {"tile", "128x128x 128", {BAD, BAD, BAD}, "MxNxK"},
      {"tile", "99999999x1x1", {BAD, BAD, BAD}, "MxNxK"},
      {"stages", "1", {OK, OK, OK}, ""},
      {"stages", "16", {OK, OK, OK}, ""},
      {"stages", "0", {BAD, BAD, BAD}, "1..16"},
      {"stages", "17", {BAD, BAD, BAD}, "1..16"},
      {"stages", "-1", {BAD, BAD, BAD}, "1..16"},
      {"cluster", "1x1", {OK, OK, OK}, ""},
      {"cluster", "2x1", {OK, OK, OK}, ""},
      {"cluster", "4x2", {BAD, BAD, BAD}, "the GPU kernels run in clusters 1x1 or 2x1"},
      {"cluster", "4x1", {BAD, BAD, BAD}, "the GPU kernels run in clusters 1x1 or 2x1"},
      {"cluster", "1x2", {BAD, BAD, BAD}, "the GPU kernels run in clusters 1x1 or 2x1"},
      {"cluster", "3x1", {BAD, BAD, BAD}, "the GPU kernels run in clusters 1x1 or 2x1"},
      {"cluster", "2", {BAD, BAD, BAD}, "MxN"},
      {"splits", "1", {OK, OK, OK}, ""},
      {"splits", "16", {OK, OK, OK}, ""},
      {"splits", "0", {BAD, BAD, BAD}, "1..16"},
      {"splits", "17", {BAD, BAD, BAD}, "1..16"},
      {"splits", "2x1", {BAD, BAD, BAD}, "1..16"},
      {"tail_splits", "1", {OK, OK, OK}, ""},
      {"tail_splits", "16", {OK, OK, OK}, ""},
      {"tail_splits", "0", {BAD, BAD, BAD}, "tail_splits '0' must be 1..16"},
      {"tail_splits", "17", {BAD, BAD, BAD}, "1..16"},
      {"stream_k", "on", {OK, OK, OK}, ""},
      {"stream_k", "off", {OK, OK, OK}, ""},
      {"stream_k", "1", {BAD, BAD, BAD}, "stream_k '1' must be on or off"},
      {"tiles", "128x128x128", {UNKNOWN, UNKNOWN, UNKNOWN}, "unknown key 'tiles'"},
      {"consumers", "2", {UNKNOWN, UNKNOWN, UNKNOWN}, "unknown key 'consumers'"},
  };
#undef OK
#undef BAD
#undef UNKNOWN
  const char *payloads[3] = {"standard", "blockwise_fp8", "block_scaled"};
  for (int p = 0; p < 3; p++) {
    /* A fresh section per case: a key set by one case ties no other. */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
      loaded l = load(payloads[p]);
      char err[256];
      tp_status want = cases[i].status[p];
      tp_status st = set(&l, cases[i].key, cases[i].value, err, sizeof err);
      ck_assert_msg(st == want, "%s: %s = '%s': status '%s', expected '%s' (%s)", payloads[p],
                    cases[i].key, cases[i].value, tp_status_string(st), tp_status_string(want),
                    err);
      if (st != TP_OK) {
        ASSERT_HAS(err, cases[i].needle);
        ASSERT_HAS(err, cases[i].key);
      }
      unload(&l);
    }
  }
}
END_TEST

/* A refusal names what the table has: each payload's tiles (within its
 * limits) and tile K; the three values, none of which any kernel
 * honours. */
START_TEST(test_tuning_keys_name_the_table) {
  char err[256];
  loaded l = load("standard");
  ck_assert_int_eq(set(&l, "tile", "256x256x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "tile '256x256x64': the GPU kernels take tiles (MxN) 128x256, 128x192, "
                        "128x208, 128x176, 128x160, 128x144, 128x128, 128x64, 64x64 or 64x48");
  ck_assert_int_eq(set(&l, "tile", "128x240x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "tile '128x240x64': the GPU kernels take tiles (MxN) 128x256,");
  ck_assert_int_eq(set(&l, "cluster", "4x2", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "cluster '4x2': the GPU kernels run in clusters 1x1 or 2x1");
  ck_assert_int_eq(set(&l, "tile", "128x128x32", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "tile '128x128x32': K must be 64 or 128 (a k-block of this payload's "
                        "kernels)");
  unload(&l);
  l = load("blockwise_fp8");
  ck_assert_int_eq(set(&l, "tile", "128x192x128", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "tile '128x192x128': the GPU kernels take tiles (MxN) 128x128, 128x64 or "
                        "64x64");
  ck_assert_int_eq(set(&l, "tile", "128x128x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "K must be 128 (");
  unload(&l);
}
END_TEST

/* The kit's parser refuses a payload's limits that name no k-block of the
 * skeleton or leave no kernel of the table; within its limits, a payload
 * with n_block 192 has the widths that divide it: 192, 64 and 48. */
START_TEST(test_tuning_limits) {
  char err[256];
  void *state = NULL;
  const tp_kit_tuning_limits none = {.tile_k = {0}};
  ck_assert_int_eq(tp_kit_tuning_create(&state, &none, err, sizeof err), TP_ERR_PLUGIN);
  ASSERT_HAS(err, "no tile K");
  const tp_kit_tuning_limits odd_k = {.tile_k = {128, 96}};
  ck_assert_int_eq(tp_kit_tuning_create(&state, &odd_k, err, sizeof err), TP_ERR_PLUGIN);
  ASSERT_HAS(err, "tile K 96 is not one 128-byte row of an operand");
  const tp_kit_tuning_limits narrow = {.tile_k = {128}, .max_tile_n = 32};
  ck_assert_int_eq(tp_kit_tuning_create(&state, &narrow, err, sizeof err), TP_ERR_PLUGIN);
  ASSERT_HAS(err, "leave no kernel of the table");
  ck_assert_ptr_null(state);
  const tp_kit_tuning_limits blocks = {.tile_k = {256}, .n_block = 192};
  ck_assert_msg(tp_kit_tuning_create(&state, &blocks, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_int_eq(tp_kit_tuning_set_option(state, "tile", "128x128x256", err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "tile '128x128x256': the GPU kernels take tiles (MxN) 128x192, 128x64, "
                        "64x64 or 64x48");
  ck_assert_int_eq(tp_kit_tuning_set_option(state, "tile", "64x48x256", err, sizeof err), TP_OK);
  ck_assert_int_eq(((tp_kit_tuning *)state)->kernel.tile_n, 48);
  ck_assert_int_eq(tp_kit_tuning_set_option(state, "tile", NULL, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  tp_kit_tuning_fini(state);
}
END_TEST

/* The kit's scale-vector rule (no shipped payload has one; the int8_w8a8
 * example does): [L], [L, 1] for a column rule, [1, L] for a row rule, f32,
 * strided, contiguous along L; every refusal names the tensor. */
START_TEST(test_scale_vector_rule) {
  static float data[8];
  char err[256];
  const tp_kit_scale_vector_rule col = {"a_scale", TP_DTYPE_F32, "row of A", "M", 8, 1};
  const tp_kit_scale_vector_rule row = {"b_scale", TP_DTYPE_F32, "row of B", "N", 8, 0};
  tp_tensor t = tp_tensor_vector(TP_DTYPE_F32, 8, data);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &col, err, sizeof err), TP_OK);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &row, err, sizeof err), TP_OK);
  t = tp_tensor_matrix(TP_DTYPE_F32, 8, 1, 1, data);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &col, err, sizeof err), TP_OK);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &row, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "b_scale has shape [8, 1]; it must be [N] = [8] or [1, N] = [1, 8] (one "
                        "scale per row of B)");
  t = tp_tensor_matrix(TP_DTYPE_F32, 1, 8, 8, data);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &row, err, sizeof err), TP_OK);
  t.stride[1] = 2;
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &row, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "b_scale has stride 2 along N");
  t = tp_tensor_vector(TP_DTYPE_BF16, 8, data);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &col, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "a_scale is bf16; it must be f32");
  t.dtype = TP_DTYPE_NONE;
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &col, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "a_scale is missing: one f32 scale per row of A is needed, a vector [M] = "
                        "[8] (tp_tensor_vector) or [M, 1] = [8, 1]");
  t = tp_tensor_vector(TP_DTYPE_F32, 7, data);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &col, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "a_scale has shape [7]; it must be [M] = [8]");
  t = tp_tensor_sf_128x4(TP_DTYPE_F32, 8, 1, data);
  ck_assert_int_eq(tp_kit_scale_check_vector(&t, &col, err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "a_scale has layout");
}
END_TEST

/* Keys that tie two of them are checked when the second arrives, in
 * either order: a tile and its cluster, a cluster and splits. */
START_TEST(test_tuning_keys_tied) {
  char err[256];
  loaded l = load("standard");
  ck_assert_int_eq(set(&l, "tile", "128x208x64", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "cluster '2x1': the GPU kernels of tile 128x208 (tile = 128x208x64) run "
                        "in clusters 1x1");
  ck_assert_int_eq(set(&l, "cluster", "1x1", err, sizeof err), TP_OK);
  unload(&l);
  l = load("standard");
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "tile", "128x176x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "tile '128x176x64': in clusters of 2 (cluster = 2x1) the GPU kernels take "
                        "tiles (MxN) 128x256, 128x192, 128x128, 128x64 or 64x64");
  ck_assert_int_eq(set(&l, "tile", "64x64x64", err, sizeof err), TP_OK);
  /* Splits above 1 run in single CTAs only. */
  ck_assert_int_eq(set(&l, "splits", "4", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ck_assert_str_eq(err, "splits '4': the GPU kernels split K only over single CTAs, and the "
                        "section sets cluster = 2x1");
  ck_assert_int_eq(set(&l, "splits", "1", err, sizeof err), TP_OK);
  unload(&l);
  l = load("standard");
  ck_assert_int_eq(set(&l, "splits", "2", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "cluster '2x1': the GPU kernels split K only over single CTAs, and the "
                  "section sets splits = 2");
  ck_assert_int_eq(set(&l, "cluster", "1x1", err, sizeof err), TP_OK);
  unload(&l);
  /* blockwise_fp8's limits hold for either order too. */
  l = load("blockwise_fp8");
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "tile", "128x128x128", err, sizeof err), TP_OK);
  unload(&l);
}
END_TEST

/* The bytes of a bf16 operand's element in a CPU stage of tile_m rows: 2
 * where the kit's micro-kernel multiplies bf16 itself (AVX-512 BF16: on
 * tiles of at most 32 rows, or any when TILEPIPE_CPU_KERNEL forces it;
 * plugins/kit/cpu_microkernel.c), else 4 (decoded to f32). */
static uint32_t cpu_bf16_bytes(int32_t tile_m) {
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
  const char *want = getenv("TILEPIPE_CPU_KERNEL");
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16") &&
      ((want == NULL && tile_m <= 32) || (want != NULL && strcmp(want, "avx512bf16") == 0)))
    return 2;
#endif
  (void)tile_m;
  return 4;
}

START_TEST(test_cpu_plans) {
  char err[256];
  tp_payload_plan out;
  test_problem p = standard();
  loaded l = load("standard");
  ck_assert_int_eq(set(&l, "stages", "3", err, sizeof err), TP_OK);
  /* 100 x 300 x 256: M rounded up to the panels' 8, N to the largest
   * tile's 256, K in blocks of 128. */
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CPU, &out, err, sizeof err), TP_OK);
  ck_assert_int_eq(out.tile.tile_m, 104);
  ck_assert_int_eq(out.tile.tile_n, 256);
  ck_assert_int_eq(out.tile.tile_k, 128);
  ck_assert_int_eq(out.tile.stages, 3); /* the one key the CPU honours */
  ck_assert_int_eq(out.tile.consumers, 0); /* the backend's: the cores */
  ck_assert_int_eq(out.tile.k_group_size, 1);
  ck_assert_uint_eq(out.num_tensors, 2);
  ck_assert_uint_eq(out.tensors[0].bytes, 104 * 128 * cpu_bf16_bytes(104)); /* A and B bf16 */
  ck_assert_int_eq(out.k_blocks, 2);
  /* A smaller problem gets a smaller tile: M to 8, N to 32, K to 16. */
  p.desc.m = 1;
  p.desc.n = 9;
  p.desc.k = 7;
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CPU, &out, err, sizeof err), TP_OK);
  ck_assert_int_eq(out.tile.tile_m, 8);
  ck_assert_int_eq(out.tile.tile_n, 32);
  ck_assert_int_eq(out.tile.tile_k, 16);
  ck_assert_uint_eq(out.tensors[1].bytes, 32 * 16 * cpu_bf16_bytes(8));
  ck_assert_int_eq(out.k_blocks, 1);
  unload(&l);
  problem_free(&p);

  p = nvfp4(TP_LAYOUT_SF_128X4);
  l = load("block_scaled");
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CPU, &out, err, sizeof err), TP_OK);
  ck_assert_uint_eq(out.num_tensors, 4);
  ck_assert_uint_eq(out.tensors[0].bytes, 104 * 128 * 4);        /* not bf16 x bf16: f32 */
  ck_assert_uint_eq(out.tensors[2].bytes, 104 * (128 / 16) * 4); /* f32 per row per group */
  ck_assert_int_eq(out.tile.stages, 0);                          /* the backend decides */
  unload(&l);
  problem_free(&p);
}
END_TEST

/* An H100's figures with `sm_count` SMs, for GPU planning without a GPU. */
static tp_gpu_info h100_figures(int32_t sm_count) {
  tp_gpu_info h100 = {.sm_count = sm_count, .cc_major = 9, .smem_per_block = 232448,
                      .name = "H100 (figures)"};
  return h100;
}

START_TEST(test_cuda_plans) {
  char err[256];
  tp_payload_plan out;
  tp_gpu_launch launch;
  tp_gpu_info h100 = h100_figures(132);
  tp_epilogue_plan epi;
  memset(&epi, 0, sizeof epi);
  /* standard: on the CUDA backend plan only validates; the tile is
   * gpu_plan's, the one GPU planner. */
  test_problem p = standard();
  loaded l = load("standard");
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  ck_assert_uint_eq(out.num_tensors, 0);
  ck_assert_int_eq(l.desc->payload->gpu_plan(l.state, &p.desc, &h100, &epi, &out, &launch, err,
                                             sizeof err),
                   TP_OK);
  ck_assert_int_eq(out.tile.tile_k, 64); /* one 128-byte row of bf16 */
  ck_assert_int_eq(out.tile.consumers, out.tile.tile_m / 64);
  ck_assert_int_eq(out.tile.k_group_size, 1);
  ck_assert_uint_eq(out.num_tensors, 2);
  ck_assert_uint_eq(out.tensors[0].bytes, (uint32_t)out.tile.tile_m * 64 * 2);
  ck_assert_uint_eq(out.tensors[1].bytes, (uint32_t)out.tile.tile_n * 64 * 2);
  ck_assert_uint_eq(out.tensors[0].align, 1024);
  ck_assert_int_eq(out.k_blocks, (p.desc.k + 63) / 64);
  ck_assert_int_gt(out.tile.stages, 0); /* as many as the shared memory holds */
  ck_assert_int_eq(set(&l, "tile", "64x64x64", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_OK);
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  ck_assert_int_eq(l.desc->payload->gpu_plan(l.state, &p.desc, &h100, &epi, &out, &launch, err,
                                             sizeof err),
                   TP_OK);
  ck_assert_int_eq(out.tile.tile_m, 64);
  ck_assert_int_eq(out.tile.tile_n, 64);
  ck_assert_int_eq(out.tile.consumers, 1);
  ck_assert_int_eq(out.tile.cluster_m, 2);
  ck_assert_uint_eq(launch.cluster[0], 2);
  ck_assert_str_eq(launch.kernel, "tp_standard_bf16_f32_64x64_c2");
  unload(&l);
  problem_free(&p);

  /* blockwise: a_scale rows go through TMA on the GPU; M = 100 f32 is 400
   * bytes, a multiple of 16, but a row stride of 101 is not. */
  p = blockwise();
  l = load("blockwise_fp8");
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  ck_assert_uint_eq(out.num_tensors, 0);
  p.desc.a_scale.stride[0] = 101;
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err),
                   TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "a_scale has row stride 101 = 404 bytes, not a multiple of 16 (TMA needs "
                  "16-byte rows); pad the rows");
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CPU, &out, err, sizeof err), TP_OK);
  /* b_scale is read by the consumers, not TMA: any row stride its row holds. */
  p.desc.a_scale.stride[0] = 100;
  p.desc.b_scale.stride[0] = 3;
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  /* A scale row stride of 2^40 bytes is as large as the core's matrices may have. */
  p.desc.b_scale.stride[0] = (int64_t)1 << 38;
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CPU, &out, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "b_scale has row stride 274877906944: too large");
  unload(&l);
  problem_free(&p);

  /* A single row of a_scale (K <= 128) has a stride that is never stepped over. */
  l = load("blockwise_fp8");
  tp_ref_problem_spec one_row = {.struct_size = sizeof one_row, .registry = build_registry,
                                 .payload = "blockwise_fp8", .a = TP_DTYPE_E4M3,
                                 .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16, .m = 100, .n = 16,
                                 .k = 128, .align_rows = 1, .alpha = 1.0f};
  p = problem_of(&one_row);
  p.desc.a_scale.stride[0] = 101;
  ck_assert_msg(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err) == TP_OK, "%s",
                err);
  problem_free(&p);
  unload(&l);

  /* block_scaled's consumers read the strided scales themselves: ue8m0
   * rows of 8 bytes take a stride of 8 on the GPU too. */
  l = load("block_scaled");
  p = mxfp8(TP_LAYOUT_STRIDED);
  p.desc.b_scale.stride[0] = 8;
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  problem_free(&p);
  unload(&l);

  /* block_scaled's tile K is one 128-byte row of the wider operand: 64,
   * 128 or 256. Its plan refuses the CUDA backend for W4A8, which has no
   * GPU kernel, after the checks of the CPU's; the other modes' tiles are
   * gpu_plan's. */
  l = load("block_scaled");
  ck_assert_int_eq(set(&l, "tile", "128x128x32", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "K must be 64, 128 or 256");
  p = problem("block_scaled", TP_DTYPE_E4M3, TP_DTYPE_E2M1, TP_DTYPE_F16, TP_LAYOUT_SF_128X4);
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err),
                   TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "A e4m3 x B e2m1 (NVFP4 W4A8) has no GPU kernel; the CPU backend runs it, the GPU "
                  "kernels take MXFP8");
  problem_free(&p);
  p = nvfp4(TP_LAYOUT_SF_128X4);
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  p.desc.b_scale.dtype = TP_DTYPE_NONE;
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err),
                   TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "b_scale is missing");
  problem_free(&p);
  p = mxfp8_w8a16(TP_LAYOUT_STRIDED);
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  ck_assert_uint_eq(out.num_tensors, 0);
  problem_free(&p);
  p = mxfp8(TP_LAYOUT_SF_128X4);
  ck_assert_int_eq(plan_slot(&l, &p.desc, TP_BACKEND_CUDA, &out, err, sizeof err), TP_OK);
  ck_assert_uint_eq(out.num_tensors, 0);
  problem_free(&p);
  unload(&l);
}
END_TEST

/* A payload's plan, then gpu_plan, as the core calls them, on an H100's
 * figures with `sm_count` SMs (no GPU needed), for the epilogue plan epi;
 * the payload plan into *plan. */
static tp_status gpu_plan_with(loaded *l, const tp_gemm_desc *desc, int32_t sm_count,
                               const tp_epilogue_plan *epi, tp_payload_plan *plan,
                               tp_gpu_launch *launch, char *err, size_t errlen) {
  const tp_gpu_info h100 = h100_figures(sm_count);
  memset(plan, 0, sizeof *plan);
  memset(launch, 0, sizeof *launch);
  tp_status st = plan_slot(l, desc, TP_BACKEND_CUDA, plan, err, errlen);
  if (st != TP_OK) return st;
  return l->desc->payload->gpu_plan(l->state, desc, &h100, epi, plan, launch, err, errlen);
}

/* The same with no epilogue source. */
static tp_status gpu_plan_on(loaded *l, const tp_gemm_desc *desc, int32_t sm_count,
                             tp_gpu_launch *launch, char *err, size_t errlen) {
  tp_epilogue_plan epi;
  tp_payload_plan plan;
  memset(&epi, 0, sizeof epi);
  return gpu_plan_with(l, desc, sm_count, &epi, &plan, launch, err, errlen);
}

static tp_status gpu_plan_slot(loaded *l, const tp_gemm_desc *desc, tp_gpu_launch *launch,
                               char *err, size_t errlen) {
  return gpu_plan_on(l, desc, 132, launch, err, errlen);
}

/* M x N x K of `operands` A and B into a bf16 D, rows K elements apart,
 * every pointer NULL: enough to plan. */
static tp_gemm_desc sized_of(tp_dtype operands, int64_t m, int64_t n, int64_t k) {
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                              .payload = "standard", .a = operands, .b = operands,
                              .d = TP_DTYPE_BF16, .m = m, .n = n, .k = k, .alpha = 1.0f};
  tp_gemm_desc d;
  tp_problem described;
  char err[256];
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &described, err, sizeof err) == TP_OK, "%s",
                err);
  return d;
}

static tp_gemm_desc sized(int64_t m, int64_t n, int64_t k) {
  return sized_of(TP_DTYPE_BF16, m, n, k);
}

/* Split-K's workspace for `tiles` tiles of tile_m x tile_n in `splits`:
 * the counters (one per tile and 64-row consumer warpgroup, rounded to 256
 * bytes), then the partial sums. */
static uint64_t split_workspace_m(uint64_t tiles, uint64_t tile_m, uint64_t tile_n,
                                  uint64_t splits) {
  return (tiles * tile_m / 64 * 4 + 255) / 256 * 256 + tiles * (splits - 1) * tile_m * tile_n * 4;
}

static uint64_t split_workspace(uint64_t tiles, uint64_t tile_n, uint64_t splits) {
  return split_workspace_m(tiles, 128, tile_n, splits);
}

/* gpu_plan for bf16 m x n x k plans, launching `kernel` (NULL: any) on
 * `grid` CTAs with `workspace` bytes of workspace. */
static void expect_gpu_plan(loaded *l, int64_t m, int64_t n, int64_t k, const char *kernel,
                            uint32_t grid, uint64_t workspace) {
  char err[256];
  tp_gpu_launch launch;
  const tp_gemm_desc d = sized(m, n, k);
  ck_assert_msg(gpu_plan_slot(l, &d, &launch, err, sizeof err) == TP_OK, "%lldx%lldx%lld: %s",
                (long long)m, (long long)n, (long long)k, err);
  if (kernel) ck_assert_str_eq(launch.kernel, kernel);
  ck_assert_uint_eq(launch.grid[0], grid);
  ck_assert_uint_eq(launch.workspace_bytes, workspace);
}

/* gpu_plan refuses bf16 m x n x k with TP_ERR_UNSUPPORTED, saying `needle`. */
static void expect_gpu_plan_refused(loaded *l, int64_t m, int64_t n, int64_t k,
                                    const char *needle) {
  char err[256];
  tp_gpu_launch launch;
  const tp_gemm_desc d = sized(m, n, k);
  ck_assert_int_eq(gpu_plan_slot(l, &d, &launch, err, sizeof err), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, needle);
}

/* The kernel and grid gpu_plan picks for d. */
static tp_gpu_launch planned(loaded *l, const tp_gemm_desc *d) {
  char err[256];
  tp_gpu_launch launch;
  ck_assert_msg(gpu_plan_slot(l, d, &launch, err, sizeof err) == TP_OK, "%s", err);
  return launch;
}

/* The partial last wave's split, forced: `tail_splits` holds where the
 * tail fits it in one wave, leaves the tail whole where it does not, and 1
 * turns the split off. */
START_TEST(test_gpu_plan_tail_split) {
  char err[256];
  loaded l = load("standard");
  ck_assert_int_eq(set(&l, "tile", "128x256x64", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "tail_splits", "3", err, sizeof err), TP_OK);
  /* 4096 x 8704: 1088 tiles, 8 waves and 32 (96 CTAs in 3 splits). */
  expect_gpu_plan(&l, 4096, 8704, 4096, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(32, 256, 3));
  /* 4096^3: 512 tiles, 3 waves and 116, which 3 splits would not fit. */
  expect_gpu_plan(&l, 4096, 4096, 4096, "tp_standard_bf16_bf16_128x256_c1", 132, 0);
  /* 5 splits: a grid of 130 (a multiple of 5), 8 waves of it and 48 tiles
   * (240 splits) do not fit; the tail stays whole on all 132 SMs. */
  ck_assert_int_eq(set(&l, "tail_splits", "5", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 4096, 8704, 4096, "tp_standard_bf16_bf16_128x256_c1", 132, 0);
  /* Where 5 fit, the grid is 130: 2560 x 13568 makes 1060 tiles, 8 waves
   * of 130 and 20 (100 CTAs in 5 splits). */
  expect_gpu_plan(&l, 2560, 13568, 4096, "tp_standard_bf16_bf16_128x256_c1", 130,
                  split_workspace(20, 256, 5));
  /* 4 fit (128 CTAs). */
  ck_assert_int_eq(set(&l, "tail_splits", "4", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 4096, 8704, 4096, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(32, 256, 4));
  /* A GPU of fewer SMs than the split count (a MIG slice): no grid of a
   * multiple of 16 fits, so the tail stays whole on every SM (the plan
   * divided by a grid of 0). 512 tiles leave no tail on 16 to 20 SMs. */
  ck_assert_int_eq(set(&l, "tail_splits", "16", err, sizeof err), TP_OK);
  for (int32_t sms = 1; sms <= 20; ++sms) {
    tp_gpu_launch launch;
    const tp_gemm_desc d = sized(4096, 4096, 65536);
    ck_assert_msg(gpu_plan_on(&l, &d, sms, &launch, err, sizeof err) == TP_OK, "%d SMs: %s", sms,
                  err);
    ck_assert_uint_eq(launch.grid[0], (uint32_t)sms);
    ck_assert_uint_eq(launch.workspace_bytes, 0);
  }
  /* 1: no split, and 2048 x 7168 x 18432 goes to 176 wide (656 tiles: 5
   * waves, 99% full; 192 wide makes 608, the fifth wave 61% full). */
  ck_assert_int_eq(set(&l, "tail_splits", "1", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 4096, 8704, 4096, "tp_standard_bf16_bf16_128x256_c1", 132, 0);
  unload(&l);
  l = load("standard");
  ck_assert_int_eq(set(&l, "tail_splits", "1", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 2048, 7168, 18432, "tp_standard_bf16_bf16_128x176_c1", 132, 0);
  unload(&l);
}
END_TEST

START_TEST(test_gpu_plan_split_k) {
  char err[256];
  loaded l = load("standard");
  /* Enough tiles for the SMs: no split, no workspace, one CTA per SM. */
  expect_gpu_plan(&l, 4096, 4096, 4096, "tp_standard_bf16_bf16_128x256_c1", 132, 0);
  /* 128 x 4096 x 7168: fewer 128-wide tiles (32) than SMs, so 64-wide ones
   * count too: 64 tiles of 128 x 64, K split in 2. 64-row tiles serve only
   * M <= 64: here two of them would stream each B tile. */
  expect_gpu_plan(&l, 128, 4096, 7168, "tp_standard_bf16_bf16_128x64_c1", 128,
                  split_workspace(64, 64, 2));
  /* M = 64: as many 64 x 64 tiles as 128 x 64 ones (64), K split in 2;
   * the 64 x 64 splits cost half as much (half the partial sums). */
  expect_gpu_plan(&l, 64, 4096, 7168, "tp_standard_bf16_bf16_64x64_c1", 128,
                  split_workspace_m(64, 64, 64, 2));
  /* Unsplit, 128 x 64 counts as the faster: 64 x 7168 x 16384 keeps it. */
  expect_gpu_plan(&l, 64, 7168, 16384, "tp_standard_bf16_bf16_128x64_c1", 112, 0);
  /* 128 x 7168 x 16384: 112 tiles of 128 x 64 fill 85% of the SMs unsplit;
   * 224 of 64 x 64 would take two waves. */
  expect_gpu_plan(&l, 128, 7168, 16384, "tp_standard_bf16_bf16_128x64_c1", 112, 0);
  /* 64 x 128 x 8192: three 64 x 48 tiles (two of 64 x 64 would make 32
   * CTAs), 128 k-blocks: 16 splits (the most); at M = 128 two tiles of
   * 128 x 64 in 16 splits. */
  expect_gpu_plan(&l, 64, 128, 8192, "tp_standard_bf16_bf16_64x48_c1", 48,
                  split_workspace_m(3, 64, 48, 16));
  expect_gpu_plan(&l, 128, 128, 8192, "tp_standard_bf16_bf16_128x64_c1", 32,
                  split_workspace(2, 64, 16));
  /* More rows than one tile: 64 wide no more (each column of narrow tiles
   * would read all of A again); 128 wide, K split in 2: 192 x 4096 x 14336
   * makes 64 such tiles (128 x 256 would need 4 splits of 56 k-blocks,
   * 128 x 192 3: B, streamed from DRAM, dominates its traffic). At 1024 x
   * 1024, where A and B enter the SMs 8 times each, the wider 128 x 256,
   * which reads A half as often, takes 4 splits where they are long
   * enough (bf16 K = 32768 and 16384, e4m3 32768: 64 k-blocks or more)
   * and beats 128 x 128 in 2 splits, whose partial sums would cost less;
   * not at e4m3 K = 16384 (32 k-blocks a split). 8192 x 256 (3.9 times)
   * keeps 128 tiles of 128 x 128 unsplit. */
  expect_gpu_plan(&l, 192, 4096, 14336, "tp_standard_bf16_bf16_128x128_c1", 128,
                  split_workspace(64, 128, 2));
  expect_gpu_plan(&l, 1024, 1024, 32768, "tp_standard_bf16_bf16_128x256_c1", 128,
                  split_workspace(32, 256, 4));
  expect_gpu_plan(&l, 1024, 1024, 16384, "tp_standard_bf16_bf16_128x256_c1", 128,
                  split_workspace(32, 256, 4));
  expect_gpu_plan(&l, 8192, 256, 8192, "tp_standard_bf16_bf16_128x128_c1", 128, 0);
  tp_gemm_desc e = sized_of(TP_DTYPE_E4M3, 1024, 1024, 32768);
  ck_assert_str_eq(planned(&l, &e).kernel, "tp_standard_e4m3_e4m3_bf16_128x256_c1");
  e = sized_of(TP_DTYPE_E4M3, 1024, 1024, 16384);
  ck_assert_str_eq(planned(&l, &e).kernel, "tp_standard_e4m3_e4m3_bf16_128x128_c1");
  /* Short K: a split takes at least 4 k-blocks; 7 k-blocks stay whole. */
  expect_gpu_plan(&l, 128, 128, 448, "tp_standard_bf16_bf16_128x64_c1", 2, 0);
  /* Many tiles: never 64 wide (4096 x 2112: 544 tiles of 128 would fill 8
   * waves of 64-wide ones exactly); 176 wide (384 tiles, 2.9 waves) beats
   * 192 (352, 2.7 waves). */
  expect_gpu_plan(&l, 4096, 2112, 7168, "tp_standard_bf16_bf16_128x176_c1", 132, 0);
  /* The other tail-chunk widths fill one wave where whole chunks leave
   * SMs idle: 384 x 6144 makes 129 tiles of 128 x 144 (105 of 176, 72 of
   * 256), 777 x 3584 126 of 128 x 208 (98 of 256), 512 x 5120 128 of
   * 128 x 160 (120 of 176); their columns are 99-100% inside N. */
  expect_gpu_plan(&l, 384, 6144, 4096, "tp_standard_bf16_bf16_128x144_c1", 129, 0);
  expect_gpu_plan(&l, 777, 3584, 18944, "tp_standard_bf16_bf16_128x208_c1", 126, 0);
  expect_gpu_plan(&l, 512, 5120, 27648, "tp_standard_bf16_bf16_128x160_c1", 128, 0);
  /* 2048 x 7168 x 18432: 448 tiles of 128 x 256 in 3 waves and 52 more;
   * those 52 split in 2 (104 CTAs) finish in about half a tile's time,
   * which beats 176 wide (656 tiles in 5 waves) and 192 wide (608 tiles: a
   * fifth wave 61% full, too many to
   * split) and 128 wide (uncertain speed on the H100). */
  expect_gpu_plan(&l, 2048, 7168, 18432, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(52, 256, 2));
  /* 4096 x 18432 x 7168: 2304 tiles, the last 60 split in 2. */
  expect_gpu_plan(&l, 4096, 18432, 7168, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(60, 256, 2));
  /* Short K: 4096 x 24576 x 1536 (24 k-blocks) leaves its 36 tail tiles
   * whole (what a split costs is most of what it saves), and 4096^3 has
   * too many (116: 232 splits would not fit one wave). */
  expect_gpu_plan(&l, 4096, 24576, 1536, "tp_standard_bf16_bf16_128x256_c1", 132, 0);

  /* Forced: 3 splits of 4096 x 4096 x 4096 (many waves): a whole number of
   * tiles' splits per wave (132 SMs: 44 tiles x 3); the narrow tile, whose
   * partial sums cost half as much to add up. */
  ck_assert_int_eq(set(&l, "splits", "3", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 4096, 4096, 4096, NULL, 132, split_workspace(1024, 128, 3));
  /* More splits than k-blocks, and splits with clusters, are refused:
   * the second already by the INI, and by the planner for a tuning from
   * elsewhere. */
  expect_gpu_plan_refused(&l, 128, 128, 128, "splits 3: K = 128 has only 2 k-blocks of 64 to split");
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "split K only over single CTAs");
  tuning_of(&l)->cluster_m = 2;
  tuning_of(&l)->cluster_n = 1;
  expect_gpu_plan_refused(&l, 4096, 4096, 4096, "splits 3 with cluster 2x1");
  /* A tile width without a kernel, naming those there are. */
  ck_assert_int_eq(set(&l, "tile", "128x96x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "in clusters of 2 (cluster = 2x1) the GPU kernels take tiles (MxN) 128x256");
  tuning_of(&l)->tile_m = 128;
  tuning_of(&l)->tile_n = 96;
  tuning_of(&l)->tile_k = 64;
  expect_gpu_plan_refused(&l, 4096, 4096, 4096,
                          "take tiles (MxN) 128x256, 128x192, 128x128, 128x64, 64x64, K 64 (the "
                          "registry asks for 128x96x64; 0: not set)");
  /* 176 wide in a 2-CTA cluster: no such kernel, and the plan says why. */
  ck_assert_int_eq(set(&l, "tile", "128x176x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  tuning_of(&l)->tile_n = 176;
  expect_gpu_plan_refused(&l, 4096, 2112, 7168,
                          "for a bf16 D in clusters of 2 take tiles (MxN) 128x256, 128x192, "
                          "128x128, 128x64, 64x64,");
  unload(&l);
}
END_TEST

/* Rows of A and B off the 128-byte lines (K = 5008: rows 10016 bytes
 * apart in bf16, 5008 in e4m3): no tail-chunk width, and 1-byte operands
 * in 2-CTA clusters, unless the shape has few tiles or the INI sets the
 * cluster. The same shapes with rows on the lines keep their plans. */
START_TEST(test_gpu_plan_rows_off_lines) {
  char err[256];
  loaded l = load("standard");
  /* bf16 5008^3: 128 x 256 (800 tiles, the last 8 split in 2), not the
   * 176 that rows on the lines get (K = 5120). */
  expect_gpu_plan(&l, 5008, 5008, 5008, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(8, 256, 2));
  expect_gpu_plan(&l, 5008, 5008, 5120, "tp_standard_bf16_bf16_128x176_c1", 132, 0);
  /* e4m3: 2-CTA clusters, no split. */
  tp_gemm_desc d = sized_of(TP_DTYPE_E4M3, 5008, 5008, 5008);
  tp_gpu_launch launch = planned(&l, &d);
  ck_assert_str_eq(launch.kernel, "tp_standard_e4m3_e4m3_bf16_128x256_c2");
  ck_assert_uint_eq(launch.cluster[0], 2);
  ck_assert_uint_eq(launch.workspace_bytes, 0);
  /* The same K with rows padded to 5120 bytes: single CTAs. */
  d.a.stride[0] = d.b.stride[0] = 5120;
  ck_assert_str_eq(planned(&l, &d).kernel, "tp_standard_e4m3_e4m3_bf16_128x176_c1");
  /* Few tiles (64 x 4096): their K split, single CTAs. */
  d = sized_of(TP_DTYPE_E4M3, 64, 4096, 5008);
  ck_assert_str_eq(planned(&l, &d).kernel, "tp_standard_e4m3_e4m3_bf16_64x64_c1");
  /* The INI's cluster holds. */
  ck_assert_int_eq(set(&l, "cluster", "1x1", err, sizeof err), TP_OK);
  d = sized_of(TP_DTYPE_E4M3, 5008, 5008, 5008);
  ck_assert_str_eq(planned(&l, &d).kernel, "tp_standard_e4m3_e4m3_bf16_128x256_c1");
  unload(&l);
}
END_TEST

/* A host API whose encoder records each descriptor's box rows, in order. */
static uint32_t box_rows[8];
static int boxes;

static tp_status record_box(void *out, const tp_tma_2d *r, char *err, size_t errlen) {
  (void)err;
  (void)errlen;
  memset(out, 0, sizeof(tp_tma_desc));
  if (boxes < 8) box_rows[boxes] = r->box_rows;
  boxes++;
  return TP_OK;
}

/* The standard payload's kernel parameters for bf16 m x n x k with C of
 * dtype `source` (TP_DTYPE_NONE: none), as gpu_args fills them. */
static tp_standard_params standard_args(loaded *l, int64_t m, int64_t n, int64_t k,
                                        tp_dtype source) {
  static char workspace[256];
  char err[256] = "";
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                              .payload = "standard", .a = TP_DTYPE_BF16, .b = TP_DTYPE_BF16,
                              .d = TP_DTYPE_BF16, .c = source, .m = m, .n = n, .k = k,
                              .alpha = 1.0f, .beta = source == TP_DTYPE_NONE ? 0.0f : 1.0f};
  tp_gemm_desc d;
  tp_problem described;
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &described, err, sizeof err) == TP_OK, "%s",
                err);
  tp_epilogue_plan epi;
  tp_payload_plan plan;
  tp_gpu_launch launch;
  memset(&epi, 0, sizeof epi);
  epi.source_dtype = source;
  ck_assert_msg(gpu_plan_with(l, &d, 132, &epi, &plan, &launch, err, sizeof err) == TP_OK, "%s",
                err);
  ck_assert_uint_eq(launch.params_size, sizeof(tp_standard_params));
  plan.workspace = launch.workspace_bytes ? workspace : NULL;
  tp_host_api host = {.struct_size = sizeof host, .abi_major = TP_PLUGIN_ABI_MAJOR,
                      .abi_minor = TP_PLUGIN_ABI_MINOR, .tma_encode_2d = record_box};
  tp_standard_params p;
  memset(&p, 0xff, sizeof p);
  boxes = 0;
  ck_assert_msg(l->desc->payload->gpu_args(&plan, &epi, &d, &host, &p, err, sizeof err) == TP_OK,
                "%s", err);
  return p;
}

/* A's box holds M rounded up to 8 rows where M < 64 (the kernel zeroes the
 * rest of each A tile once), 64 elsewhere and wherever C is staged through
 * the input stages (it lands in A's tiles). */
START_TEST(test_gpu_args_a_rows) {
  loaded l = load("standard");
  const struct {
    int64_t m, n, k;
    tp_dtype source;
    int32_t rows;
  } cases[] = {
      {1, 6144, 4096, TP_DTYPE_NONE, 8},       {13, 3000, 4104, TP_DTYPE_NONE, 16},
      {8, 7168, 5120, TP_DTYPE_BF16, 8},       {63, 4096, 7168, TP_DTYPE_NONE, 64},
      {64, 4096, 7168, TP_DTYPE_NONE, 64},     {4096, 4096, 4096, TP_DTYPE_NONE, 64},
      {32, 106496, 16384, TP_DTYPE_NONE, 32},  {32, 106496, 16384, TP_DTYPE_BF16, 64},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const tp_standard_params p = standard_args(&l, cases[i].m, cases[i].n, cases[i].k,
                                               cases[i].source);
    ck_assert_msg(p.kernel.a_rows == cases[i].rows && box_rows[0] == (uint32_t)cases[i].rows,
                  "%lldx%lldx%lld: a_rows %d, A's box %u rows, want %d", (long long)cases[i].m,
                  (long long)cases[i].n, (long long)cases[i].k, p.kernel.a_rows, box_rows[0],
                  cases[i].rows);
    /* Staged C is what keeps the full box at M = 32 with C. */
    if (cases[i].m == 32) {
      ck_assert_int_eq(p.kernel.c_staged_count > 0, cases[i].source != TP_DTYPE_NONE);
    }
  }
  unload(&l);
}
END_TEST

/* The 64 x 48 tile: a narrow width of a 16-bit D (one tail chunk), for
 * few tiles in one tile row where C, if any, is in D's dtype; never for
 * blockwise_fp8, whose tiles lie in one 128-column block of B's scales;
 * and a mainloop left with only narrow widths is refused on a shape of
 * many tiles rather than planned on no tile. */
START_TEST(test_gpu_plan_tile_n48) {
  char err[256];
  loaded l = load("standard");
  /* 32 x 5120 x 5120: 107 tiles of 64 x 48 unsplit, where 128 x 128 would
   * take 3 splits and 64 x 64 fill 80 SMs. */
  expect_gpu_plan(&l, 32, 5120, 5120, "tp_standard_bf16_bf16_64x48_c1", 107, 0);
  tp_gemm_desc d = sized_of(TP_DTYPE_E4M3, 32, 5120, 5120);
  ck_assert_str_eq(planned(&l, &d).kernel, "tp_standard_e4m3_e4m3_bf16_64x48_c1");
  /* C in D's dtype keeps the 48 width; f32 C under the bf16 D does not (a
   * tail chunk takes C only in D's dtype), and an f32 D has no 48-wide
   * kernel. */
  ck_assert_int_eq(standard_args(&l, 32, 5120, 5120, TP_DTYPE_BF16).kernel.tiles_n, 107);
  ck_assert_int_ne(standard_args(&l, 32, 5120, 5120, TP_DTYPE_F32).kernel.tiles_n, 107);
  d.d.dtype = TP_DTYPE_F32;
  ck_assert_str_eq(planned(&l, &d).kernel, "tp_standard_e4m3_e4m3_f32_128x128_c1");
  /* Two tile rows of 64 (M = 100): no narrow width. */
  expect_gpu_plan(&l, 100, 5120, 5120, "tp_standard_bf16_bf16_128x128_c1", 120,
                  split_workspace(40, 128, 3));
  /* Tile M 128 alone (128-row tiles, any width) leaves the narrow rule as
   * it is; tile M 64 alone asks for 64-row tiles, all of them narrow. */
  tuning_of(&l)->tile_m = 128;
  expect_gpu_plan(&l, 4096, 4096, 4096, "tp_standard_bf16_bf16_128x256_c1", 132, 0);
  expect_gpu_plan(&l, 4096, 2112, 7168, "tp_standard_bf16_bf16_128x176_c1", 132, 0);
  /* 256 x 4224: 132 tiles of 128 x 64 would fill the SMs, but over two
   * tile rows 128 x 128 in 2 splits reads A half as often. */
  expect_gpu_plan(&l, 256, 4224, 4096, "tp_standard_bf16_bf16_128x128_c1", 132,
                  split_workspace(66, 128, 2));
  tuning_of(&l)->tile_m = 64;
  expect_gpu_plan(&l, 32, 5120, 5120, "tp_standard_bf16_bf16_64x48_c1", 107, 0);
  unload(&l);

  l = load("blockwise_fp8");
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                              .payload = "blockwise_fp8", .a = TP_DTYPE_E4M3,
                              .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16, .m = 32, .n = 5120,
                              .k = 5120, .alpha = 1.0f};
  tp_problem described;
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &described, err, sizeof err) == TP_OK, "%s",
                err);
  ck_assert_ptr_null(strstr(planned(&l, &d).kernel, "x48_"));
  unload(&l);

  /* A mainloop whose widest tile is 48. */
  tp_kernel_plan kp;
  tp_kernel_tuning tu;
  tp_epilogue_plan no_c;
  memset(&tu, 0, sizeof tu);
  memset(&no_c, 0, sizeof no_c);
  const tp_gpu_info h100 = h100_figures(132);
  d = sized(4096, 4096, 4096);
  const tp_kernel_request rq = {.desc = &d,
                                .epilogue = &no_c,
                                .gpu = &h100,
                                .tuning = &tu,
                                .prefix = "tp_test",
                                .operands = "bf16",
                                .max_tile_n = 48};
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "none of the GPU kernels' tiles (MxN) 64x48 suits 4096x4096");
  d = sized(32, 5120, 5120);
  ck_assert_int_eq(tp_kernel_plan_shape(&kp, &rq, err, sizeof err), TP_OK);
  ck_assert_int_eq(kp.tile_n, 48);
}
END_TEST

/* Stream-K: the heuristic's at 4096 x 7168 x 16384 bf16 (896 tiles of 128
 * x 256: 6 whole waves, then every SM an equal share of the last 104
 * tiles' 104 x 256 k-blocks), and forced (`stream_k = on`) at 777 x 3584 x
 * 18944 (whose 126 tiles of 128 x 208 fill a wave without it), after a
 * wave of whole tiles and over few tiles; `stream_k = off` keeps 896 whole
 * tiles. */
START_TEST(test_gpu_plan_stream_k) {
  char err[256];
  loaded l = load("standard");
  tp_standard_params p = standard_args(&l, 4096, 7168, 16384, TP_DTYPE_NONE);
  ck_assert_int_eq(p.kernel.stream_iters, 104 * 256);
  ck_assert_int_eq(p.kernel.split_from, 792);
  ck_assert_int_eq(p.kernel.split_lead, 0);
  /* Shares of 201.7 k-blocks: a tile's 256 fall to at most 3 CTAs. */
  ck_assert_int_eq(p.kernel.splits, 3);
  expect_gpu_plan(&l, 4096, 7168, 16384, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(104, 256, 3));
  expect_gpu_plan(&l, 777, 3584, 18944, "tp_standard_bf16_bf16_128x208_c1", 126, 0);
  ck_assert_int_eq(set(&l, "stream_k", "off", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 4096, 7168, 16384, "tp_standard_bf16_bf16_128x256_c1", 132, 0);
  ck_assert_int_eq(standard_args(&l, 4096, 7168, 16384, TP_DTYPE_NONE).kernel.stream_iters, 0);
  ck_assert_int_eq(set(&l, "stream_k", "on", err, sizeof err), TP_OK);
  /* 98 tiles of 128 x 256, all of them the stream: shares of 219.8 of
   * their 98 x 296 k-blocks. */
  p = standard_args(&l, 777, 3584, 18944, TP_DTYPE_NONE);
  ck_assert_int_eq(p.kernel.split_from, 0);
  ck_assert_int_eq(p.kernel.stream_iters, 98 * 296);
  expect_gpu_plan(&l, 777, 3584, 18944, "tp_standard_bf16_bf16_128x256_c1", 132,
                  split_workspace(98, 256, 3));
  ck_assert_int_eq(set(&l, "stream_k", "on", err, sizeof err), TP_OK);
  ck_assert_int_eq(set(&l, "tile", "128x128x64", err, sizeof err), TP_OK);
  /* 189 tiles: 132 whole, 57 x 16 k-blocks as the stream. */
  p = standard_args(&l, 1025, 2561, 1009, TP_DTYPE_NONE);
  ck_assert_int_eq(p.kernel.split_from, 132);
  ck_assert_int_eq(p.kernel.stream_iters, 57 * 16);
  /* Few tiles, all of them the stream. */
  p = standard_args(&l, 300, 528, 4000, TP_DTYPE_NONE);
  ck_assert_int_eq(p.kernel.split_from, 0);
  ck_assert_int_eq(p.kernel.stream_iters, 15 * 63);
  /* Shares under 4 k-blocks: the tail split instead. */
  ck_assert_int_eq(standard_args(&l, 1025, 2017, 1009, TP_DTYPE_NONE).kernel.stream_iters, 0);
  unload(&l);
}
END_TEST

/* 64-row tiles, forced: through `tile` or through tile M 64 alone (one
 * consumer warpgroup, which also takes the narrow widths over many tiles),
 * in 2-CTA clusters too; the other shapes are refused, naming those there
 * are. */
START_TEST(test_gpu_plan_tile_m64) {
  char err[256];
  loaded l = load("standard");
  ck_assert_int_eq(set(&l, "tile", "64x64x64", err, sizeof err), TP_OK);
  /* 1024^3: 256 tiles, a wave and 124 (too many to split). */
  expect_gpu_plan(&l, 1024, 1024, 1024, "tp_standard_bf16_bf16_64x64_c1", 132, 0);
  ck_assert_int_eq(set(&l, "cluster", "2x1", err, sizeof err), TP_OK);
  expect_gpu_plan(&l, 128, 4096, 7168, "tp_standard_bf16_bf16_64x64_c2", 128, 0);
  unload(&l);
  l = load("standard");
  tuning_of(&l)->tile_m = 64;
  expect_gpu_plan(&l, 1024, 1024, 1024, "tp_standard_bf16_bf16_64x64_c1", 132, 0);
  unload(&l);
  l = load("standard");
  ck_assert_int_eq(set(&l, "tile", "64x128x64", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  ASSERT_HAS(err, "the GPU kernels take tiles (MxN)");
  tuning_of(&l)->tile_m = 64;
  tuning_of(&l)->tile_n = 128;
  tuning_of(&l)->tile_k = 64;
  expect_gpu_plan_refused(&l, 1024, 1024, 1024, "the registry asks for 64x128x64");
  unload(&l);
}
END_TEST

/* blockwise_fp8's k-block is one scale block (k_group 1), a stage, and
 * its mainloop takes two stages a step: the plan keeps at least two, and
 * refuses a tuning that leaves one; the INI's tile K stays one scale
 * block, and a refusal names that K and the INI's tile as written. */
START_TEST(test_gpu_plan_blockwise_k_group) {
  char err[256];
  loaded l = load("blockwise_fp8");
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                              .payload = "blockwise_fp8", .a = TP_DTYPE_E4M3,
                              .b = TP_DTYPE_E4M3, .d = TP_DTYPE_BF16, .m = 4096, .n = 7168,
                              .k = 16384, .alpha = 1.0f};
  tp_gemm_desc d;
  tp_problem described;
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &described, err, sizeof err) == TP_OK, "%s",
                err);
  tp_gpu_info h100 = h100_figures(132);
  tp_epilogue_plan epi;
  tp_payload_plan plan;
  tp_gpu_launch launch;
  memset(&epi, 0, sizeof epi);
  ck_assert_int_eq(plan_slot(&l, &d, TP_BACKEND_CUDA, &plan, err, sizeof err), TP_OK);
  ck_assert_msg(l.desc->payload->gpu_plan(l.state, &d, &h100, &epi, &plan, &launch, err,
                                          sizeof err) == TP_OK,
                "%s", err);
  ck_assert_int_eq(plan.tile.tile_k, 128);
  ck_assert_int_eq(plan.tile.k_group_size, 1);
  ck_assert_int_eq(plan.k_blocks, 16384 / 128);
  ck_assert_int_ge(plan.tile.stages, 4); /* 33,280 bytes a stage at 128 x 128 */
  ck_assert_str_eq(launch.kernel, "tp_blockwise_fp8_e4m3_bf16_128x128_c1");
  ck_assert_int_eq(set(&l, "stages", "1", err, sizeof err), TP_OK);
  ck_assert_int_eq(gpu_plan_slot(&l, &d, &launch, err, sizeof err), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "tp_blockwise_fp8: its mainloop takes 2 stages a step, more than the tuning's "
                  "stages = 1");
  ck_assert_int_eq(set(&l, "stages", "2", err, sizeof err), TP_OK);
  ck_assert_msg(gpu_plan_slot(&l, &d, &launch, err, sizeof err) == TP_OK, "%s", err);
  /* The INI's K of one scale block is taken. */
  ck_assert_int_eq(set(&l, "tile", "128x64x128", err, sizeof err), TP_OK);
  ck_assert_msg(gpu_plan_slot(&l, &d, &launch, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_str_eq(launch.kernel, "tp_blockwise_fp8_e4m3_bf16_128x64_c1");
  ck_assert_int_eq(set(&l, "tile", "128x192x128", err, sizeof err), TP_ERR_INVALID_ARGUMENT);
  tuning_of(&l)->tile_n = 192;
  ck_assert_int_eq(gpu_plan_slot(&l, &d, &launch, err, sizeof err), TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "take tiles (MxN) 128x128, 128x64, 64x64, K 128 (");
  ASSERT_HAS(err, "the registry asks for 128x192x128;");
  unload(&l);
}
END_TEST

/* The kernels of widths that end in a tail chunk (144, 160, 176, 208:
 * their last chunk is 16, 32, 48, 16 columns of D) exist for a 16-bit D
 * only: under an f32 D the heuristic keeps 4096 x 2112 at 192 wide, and
 * each of them forced is refused, naming D's dtype. */
START_TEST(test_gpu_plan_tail_widths_need_16bit_d) {
  char err[256];
  loaded l = load("standard");
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = build_registry,
                              .payload = "standard", .a = TP_DTYPE_BF16, .b = TP_DTYPE_BF16,
                              .d = TP_DTYPE_F32, .m = 4096, .n = 2112, .k = 7168,
                              .alpha = 1.0f};
  tp_gemm_desc d;
  tp_problem described;
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &described, err, sizeof err) == TP_OK, "%s",
                err);
  tp_gpu_launch launch;
  ck_assert_msg(gpu_plan_slot(&l, &d, &launch, err, sizeof err) == TP_OK, "%s", err);
  ck_assert_str_eq(launch.kernel, "tp_standard_bf16_f32_128x192_c1");
  const char *tail_tiles[] = {"128x144x64", "128x160x64", "128x208x64", "128x176x64"};
  for (size_t i = 0; i < sizeof tail_tiles / sizeof tail_tiles[0]; ++i) {
    ck_assert_int_eq(set(&l, "tile", tail_tiles[i], err, sizeof err), TP_OK);
    ck_assert_int_eq(gpu_plan_slot(&l, &d, &launch, err, sizeof err), TP_ERR_UNSUPPORTED);
    ASSERT_HAS(err, "for a f32 D in clusters of 1 take tiles (MxN) 128x256, 128x192, 128x128, "
                    "128x64, 64x64,");
  }
  /* Under a bf16 D, 176 wide takes C only in D's dtype. */
  spec.d = TP_DTYPE_BF16;
  ck_assert_msg(tp_ref_problem_describe(&spec, &d, &described, err, sizeof err) == TP_OK, "%s",
                err);
  tp_gpu_info h100 = h100_figures(132);
  tp_epilogue_plan epi;
  tp_payload_plan plan;
  memset(&epi, 0, sizeof epi);
  epi.source_dtype = TP_DTYPE_F32;
  ck_assert_int_eq(plan_slot(&l, &d, TP_BACKEND_CUDA, &plan, err, sizeof err), TP_OK);
  ck_assert_int_eq(l.desc->payload->gpu_plan(l.state, &d, &h100, &epi, &plan, &launch, err,
                                             sizeof err),
                   TP_ERR_UNSUPPORTED);
  ASSERT_HAS(err, "tile width 176 is not whole chunks of a bf16 D: its kernels take C only in "
                  "D's dtype (here C is f32)");
  unload(&l);
}
END_TEST

/* ------------------------------------------------------------ registries */

static void assert_lists_the_plugins(tp_registry *r, const char *libdir_prefix) {
  const char *names[5] = {"standard", "blockwise_fp8", "block_scaled", "store", "residual"};
  ck_assert_uint_eq(tp_registry_count(r), 5);
  for (int i = 0; i < 5; i++) {
    tp_plugin_info info;
    ck_assert_msg(tp_registry_find(r, names[i], &info) == TP_OK, "%s", tp_error_message());
    ck_assert_msg(info.status == TP_OK, "%s: %s", names[i], info.error);
    ck_assert_int_eq(info.kind, i < 3 ? TP_PLUGIN_PAYLOAD : TP_PLUGIN_EPILOGUE);
    ck_assert_int_eq(info.has_device_code, carries_device_code());
    ck_assert_str_eq(info.version, PACKAGE_VERSION);
    ASSERT_HAS(info.library, libdir_prefix);
  }
}

START_TEST(test_build_registry) {
  ck_assert_msg(build_registry != NULL, "no registry");
  assert_lists_the_plugins(build_registry, TP_TEST_PLUGIN_BUILD_DIR);
}
END_TEST

/* The installed registry names libraries plainly; they resolve through
 * TILEPIPE_PLUGIN_PATH (here: the build folders) like through the installed
 * plugin folder. */
START_TEST(test_installed_registry_resolves) {
  const char *names[5] = {"standard", "blockwise_fp8", "block_scaled", "store", "residual"};
  char path[8 * PATH_MAX] = "";
  for (int i = 0; i < 5; i++) {
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "%s%s/%s/.libs", i ? ":" : "", TP_TEST_PLUGIN_BUILD_DIR,
             names[i]);
  }
  setenv("TILEPIPE_PLUGIN_PATH", path, 1);
  tp_registry *r = NULL;
  ck_assert_msg(tp_registry_open(&r, TP_TEST_INSTALLED_REGISTRY) == TP_OK, "%s",
                tp_error_message());
  assert_lists_the_plugins(r, TP_TEST_PLUGIN_BUILD_DIR);
  tp_registry_close(r);
}
END_TEST

/* A bad tuning value in a registry marks the plugin broken, naming the key's
 * line and the plugin's reason; the others stay usable. */
/* The installed registry's header comment names every tuning key the
 * payloads take: the keys an unknown one's refusal lists. */
START_TEST(test_installed_registry_names_the_keys) {
  char err[256], comment[4096] = "", line[512];
  loaded l = load("standard");
  ck_assert_int_eq(set(&l, "colour", "red", err, sizeof err), TP_ERR_NOT_FOUND);
  unload(&l);
  const char *keys = strstr(err, "(payloads take ");
  ck_assert_msg(keys != NULL, "\"%s\" lists no keys", err);
  keys += strlen("(payloads take ");
  FILE *f = fopen(TP_TEST_INSTALLED_REGISTRY, "r");
  ck_assert_ptr_nonnull(f);
  while (fgets(line, sizeof line, f) != NULL && line[0] == ';')
    strncat(comment, line, sizeof comment - strlen(comment) - 1);
  fclose(f);
  int n = 0;
  for (const char *k = keys; *k && *k != ')'; n++) {
    const size_t len = strcspn(k, ",)");
    char word[32];
    snprintf(word, sizeof word, "%.*s", (int)len, k);
    /* As a word: "splits" must not pass on the strength of "tail_splits". */
    int found = 0;
    for (const char *at = comment; (at = strstr(at, word)) != NULL; at += len)
      found |= (at == comment || !(isalnum((unsigned char)at[-1]) || at[-1] == '_')) &&
               !(isalnum((unsigned char)at[len]) || at[len] == '_');
    ck_assert_msg(found, "the comment of %s does not name the key '%s'",
                  TP_TEST_INSTALLED_REGISTRY, word);
    k += len;
    k += strspn(k, ", ");
  }
  ck_assert_int_eq(n, 6);
}
END_TEST

START_TEST(test_registry_bad_tuning) {
  tp_plugin_info info;
  ck_assert_msg(build_registry != NULL, "no registry");
  ck_assert(tp_registry_find(build_registry, "standard", &info) == TP_OK);
  char text[4 * PATH_MAX + 256], err[1024];
  snprintf(text, sizeof text,
           "[standard]\nkind = payload\nlibrary = %s\nstages = 4\ntile = 128x100x64\n"
           "[tuned]\nkind = payload\nlibrary = %s\ntile = 64x64x64\ncluster = 2x1\n"
           "[wide]\nkind = payload\nlibrary = %s\ntile = 256x256x64\n"
           "[clustered]\nkind = payload\nlibrary = %s\ncluster = 4x2\n",
           info.library, info.library, info.library, info.library);
  tp_registry *r = NULL;
  ck_assert_msg(tp_ref_registry_open(&r, text, err, sizeof err) == TP_OK, "%s", err);
  ck_assert(tp_registry_find(r, "standard", &info) == TP_OK);
  ck_assert_int_ne(info.status, TP_OK);
  ASSERT_HAS(info.error, "registry.ini:5:");
  ASSERT_HAS(info.error, "tile '128x100x64': the GPU kernels take tiles (MxN) 128x256,");
  ck_assert(tp_registry_find(r, "tuned", &info) == TP_OK);
  ck_assert_msg(info.status == TP_OK, "%s", info.error);
  /* What no kernel of the table honours is refused when the registry is
   * opened, not by every plan later, with the file and line. */
  ck_assert(tp_registry_find(r, "wide", &info) == TP_OK);
  ck_assert_int_eq(info.status, TP_ERR_REGISTRY);
  ck_assert_msg(strstr(info.error, "/registry.ini:14: plugin 'standard' refused tile = 256x256x64: "
                                   "tile '256x256x64': the GPU kernels take tiles (MxN) 128x256, "
                                   "128x192, 128x208, 128x176, 128x160, 128x144, 128x128, "
                                   "128x64, 64x64 or 64x48") != NULL,
                "%s", info.error);
  ck_assert(tp_registry_find(r, "clustered", &info) == TP_OK);
  ck_assert_int_eq(info.status, TP_ERR_REGISTRY);
  ASSERT_HAS(info.error, "/registry.ini:18: plugin 'standard' refused cluster = 4x2: cluster "
                         "'4x2': the GPU kernels run in clusters 1x1 or 2x1");
  tp_registry_close(r);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("plugins_validation");
  TCase *tc = tcase_create("plan errors");
  tcase_add_unchecked_fixture(tc, build_registry_open, build_registry_close);
  tcase_add_test(tc, test_valid_problems_plan);
  tcase_add_test(tc, test_auto_says_why_cpu);
  tcase_add_test(tc, test_standard_refuses_dtypes);
  tcase_add_test(tc, test_standard_refuses_scales);
  tcase_add_test(tc, test_blockwise_refuses_dtypes);
  tcase_add_test(tc, test_blockwise_refuses_bad_a_scale);
  tcase_add_test(tc, test_blockwise_refuses_bad_b_scale);
  tcase_add_test(tc, test_block_scaled_refuses_dtypes);
  tcase_add_test(tc, test_block_scaled_refuses_ragged_k);
  tcase_add_test(tc, test_block_scaled_refuses_bad_scales);
  tcase_add_test(tc, test_store_refuses);
  tcase_add_test(tc, test_residual_refuses);
  tcase_add_test(tc, test_epilogues_accept_unread_c);
  suite_add_tcase(s, tc);

  tc = tcase_create("slots");
  tcase_add_unchecked_fixture(tc, build_registry_open, build_registry_close);
  tcase_add_test(tc, test_descriptors);
  tcase_add_test(tc, test_standard_device_images);
  tcase_add_test(tc, test_tuning_keys);
  tcase_add_test(tc, test_tuning_keys_name_the_table);
  tcase_add_test(tc, test_tuning_limits);
  tcase_add_test(tc, test_scale_vector_rule);
  tcase_add_test(tc, test_tuning_keys_tied);
  tcase_add_test(tc, test_cpu_plans);
  tcase_add_test(tc, test_cuda_plans);
  tcase_add_test(tc, test_gpu_plan_split_k);
  tcase_add_test(tc, test_gpu_plan_tail_widths_need_16bit_d);
  tcase_add_test(tc, test_gpu_plan_tile_m64);
  tcase_add_test(tc, test_gpu_plan_tile_n48);
  tcase_add_test(tc, test_gpu_plan_rows_off_lines);
  tcase_add_test(tc, test_gpu_plan_blockwise_k_group);
  tcase_add_test(tc, test_gpu_args_a_rows);
  tcase_add_test(tc, test_gpu_plan_stream_k);
  tcase_add_test(tc, test_gpu_plan_tail_split);
  suite_add_tcase(s, tc);

  tc = tcase_create("registries");
  tcase_add_unchecked_fixture(tc, build_registry_open, build_registry_close);
  tcase_add_test(tc, test_build_registry);
  tcase_add_test(tc, test_installed_registry_resolves);
  tcase_add_test(tc, test_installed_registry_names_the_keys);
  tcase_add_test(tc, test_registry_bad_tuning);
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
