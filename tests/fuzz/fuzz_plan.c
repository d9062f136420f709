/* tests/fuzz/fuzz_plan.c: GEMM descriptors through tp_plan_create on the
 * CPU backend, and the plans that accept one run and checked.
 *
 * The input decodes into every field of a tp_gemm_desc: the payload
 * (standard, blockwise_fp8, block_scaled, or a name that is not one) and
 * the epilogue, M, N, K, then each of A, B, a_scale, b_scale, C, D and the
 * bias, either absent, raw (every field from the input, invalid dtypes,
 * layouts, ranks, negative or huge sizes and strides included) or the
 * tensor the payload expects with up to two of its fields replaced; alpha
 * and beta; C in D's memory or not; struct_size (mostly sizeof, as
 * tp_gemm_desc_init sets it; else 0, below the first version, or a newer
 * caller's, larger). The plan is made with data pointers that must not be
 * read (a plan never reads them): 0x10 aligned garbage.
 *
 * What must hold, beyond no crash, leak or sanitizer report:
 *  - a refused descriptor gets a status and a message, and no plan; an
 *    accepted one has tensors whose spans tp_tensor_span_bytes can measure;
 *  - a struct_size of 0 or below the first version is refused, the message
 *    naming struct_size; a larger one reads as sizeof (the library reads no
 *    more than it knows);
 *  - an accepted one whose buffers are small runs on buffers of exactly
 *    tp_tensor_span_bytes (AddressSanitizer sees any access past them),
 *    inputs random (tp_ref_tensor_fill), D poisoned with NaN; the run
 *    succeeds and D matches the naive f64 reference within its bound
 *    (tilepipe/reference.h; when alpha and beta are moderate);
 *  - the same plan refuses a run whose descriptor changed (M, alpha, a
 *    shape, D's pointer NULL, misaligned or overlapping A, struct_size 0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gemm_desc.h"
#include "tests/fuzz/fuzz.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

/* Runs only when the buffers and the work stay small: the point is the
 * descriptors, and a fuzzer wants thousands of them a second. The work
 * counts the CPU backend's tiles: M and N padded to 8, K to 128 (the
 * widest scale group). */
#define RUN_MAX_BYTES ((int64_t)8 << 20)
#define RUN_MAX_MACS ((int64_t)1 << 22)

static tp_registry *reg;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (tp_registry_open(&reg, TP_FUZZ_REGISTRY) != TP_OK) {
    fprintf(stderr, "fuzz_plan: %s\n", tp_error_message());
    abort();
  }
  return 0;
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "fuzz_plan: %s: %s\n", what, detail);
  abort();
}

/* ------------------------------------------------------------ decoding */

enum { T_A, T_B, T_A_SCALE, T_B_SCALE, T_C, T_D, T_BIAS, T_COUNT };

/* Every field is decoded from a record of fixed size (fuzz_take), so that
 * a mutation of one field leaves the others where they were:
 *   payload 1, epilogue 1, M N K 3 each, operands 8, D 2, C 3, bias 2,
 *   alpha 5, beta 5, then A, B, a_scale, b_scale, C, D, bias 28 each
 *   (finish_tensor), the seed 8, the run-time refusal 1 and struct_size 2:
 *   243 bytes. (An input that stops short reads zeros: struct_size sizeof.) */
#define SIZE_BYTES 3
#define STRUCT_SIZE_BYTES 2
#define FLOAT_BYTES 5
#define OPERAND_BYTES 8
#define MUTATION_BYTES (1 + SIZE_BYTES)
#define RAW_BYTES (3 + 2 * TP_MAX_RANK * SIZE_BYTES)
#define TENSOR_BYTES (1 + RAW_BYTES)

/* x + d, kept inside int64_t (the decoder must not overflow itself). */
static int64_t add_sat(int64_t x, int64_t d) {
  if (d > 0 && x > INT64_MAX - d) return INT64_MAX;
  if (d < 0 && x < INT64_MIN - d) return INT64_MIN;
  return x + d;
}

/* Mostly small sizes; also the edges, and any 16 bits at any position of
 * an int64_t (negative ones included). */
static int64_t pick_size(fuzz_input *whole) {
  static const int64_t special[] = {0, -1, 1, 2, 15, 16, 17, 31, 32, 33, 127, 128, 129, 255,
                                    256, INT32_MAX, (int64_t)INT32_MAX + 1, INT64_MAX,
                                    INT64_MIN, (int64_t)1 << 40, -((int64_t)1 << 33)};
  fuzz_input in = fuzz_take(whole, SIZE_BYTES);
  const uint8_t sel = fuzz_u8(&in);
  const uint64_t v = fuzz_uint(&in, 2);
  if (sel < 160) return 1 + (int64_t)(v % 64);
  if (sel < 192) return 1 + (int64_t)(v % 1024);
  if (sel < 224) return special[v % (sizeof special / sizeof special[0])];
  const uint64_t bits = v << (sel % 49);
  int64_t x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static float pick_float(fuzz_input *whole, float usual) {
  static const float special[] = {0.0f, 1.0f, -1.0f, 0.5f, 2.0f, -0.0f, 1e-40f, 3.0e38f,
                                  -0.75f, 1.25f};
  fuzz_input in = fuzz_take(whole, FLOAT_BYTES);
  const uint8_t sel = fuzz_u8(&in);
  const uint32_t bits = (uint32_t)fuzz_uint(&in, 4);
  if (sel < 128) return usual;
  if (sel < 240) return special[bits % (sizeof special / sizeof special[0])];
  if (sel < 250) return sel % 2 ? NAN : (sel % 4 == 0 ? INFINITY : -INFINITY);
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Mostly sizeof, as tp_gemm_desc_init sets it; else 0, one below the
 * first version, or a newer caller's (larger: the library reads only what
 * it knows). */
static uint32_t pick_struct_size(fuzz_input *whole) {
  fuzz_input in = fuzz_take(whole, STRUCT_SIZE_BYTES);
  const uint8_t sel = fuzz_u8(&in), v = fuzz_u8(&in);
  if (sel < 192) return (uint32_t)sizeof(tp_gemm_desc);
  switch (sel % 3) {
  case 0: return 0;
  case 1: return (uint32_t)(v % TP_GEMM_DESC_FIRST_SIZE);
  default: return (uint32_t)sizeof(tp_gemm_desc) + 1u + v;
  }
}

/* Any value, valid or not: -2 .. TP_DTYPE_COUNT + 1. */
static tp_dtype any_dtype(fuzz_input *in) {
  return (tp_dtype)((int)(fuzz_u8(in) % (TP_DTYPE_COUNT + 4)) - 2);
}

static tp_dtype pick_dtype(fuzz_input *in, const tp_dtype *usual, size_t count) {
  const uint8_t sel = fuzz_u8(in);
  return sel < 224 ? usual[sel % count] : (tp_dtype)((int)(sel % (TP_DTYPE_COUNT + 4)) - 2);
}

/* One field of t replaced by whatever the input says. */
static void mutate(fuzz_input *whole, tp_tensor *t) {
  fuzz_input in = fuzz_take(whole, MUTATION_BYTES);
  const uint8_t field = fuzz_u8(&in) % 12;
  switch (field) {
  case 0: t->dtype = any_dtype(&in); break;
  case 1: t->layout = (tp_layout)((int)(fuzz_u8(&in) % 5) - 1); break;
  case 2: t->rank = (int32_t)(fuzz_u8(&in) % 8) - 2; break;
  case 3: case 4: case 5: case 6: t->shape[field - 3] = pick_size(&in); break;
  case 7: case 8: case 9: case 10: t->stride[field - 7] = pick_size(&in); break;
  default: /* a row stride one off the row */
    t->stride[0] = add_sat(t->shape[t->rank == 2 ? 1 : 0], (int64_t)(fuzz_u8(&in) % 3) - 1);
  }
}

static void raw_tensor(fuzz_input *whole, tp_tensor *t) {
  fuzz_input in = fuzz_take(whole, RAW_BYTES);
  t->dtype = any_dtype(&in);
  t->layout = (tp_layout)((int)(fuzz_u8(&in) % 5) - 1);
  t->rank = (int32_t)(fuzz_u8(&in) % 8) - 2;
  for (int i = 0; i < TP_MAX_RANK; i++) t->shape[i] = pick_size(&in);
  for (int i = 0; i < TP_MAX_RANK; i++) t->stride[i] = pick_size(&in);
}

/* The tensor as the payload expects it, then absent, raw or mutated. */
static void finish_tensor(fuzz_input *whole, tp_tensor *t) {
  fuzz_input in = fuzz_take(whole, TENSOR_BYTES);
  const uint8_t mode = fuzz_u8(&in);
  if (mode >= 248) {
    raw_tensor(&in, t);
    t->dtype = TP_DTYPE_NONE; /* absent, whatever else it says */
  } else if (mode >= 232) {
    raw_tensor(&in, t);
  } else if (mode >= 160) {
    mutate(&in, t);
    if (mode >= 200) mutate(&in, t);
  }
}

static tp_tensor padded(tp_dtype dtype, int64_t rows, int64_t cols, uint8_t pad_byte) {
  int64_t pad = pad_byte % 4;
  if (tp_dtype_bits(dtype) < 8) pad *= 2; /* packed rows stay whole bytes */
  return tp_tensor_matrix(dtype, rows, cols, add_sat(cols, pad), NULL);
}

static const char *const payloads[] = {"standard", "blockwise_fp8", "block_scaled", "store"};
static const char *const epilogues[] = {"store", "residual", "standard"};

typedef struct fuzz_case {
  const char *payload, *epilogue;
  tp_gemm_desc desc;
  int c_is_d;
  uint64_t seed;
  uint8_t refusal; /* which run-time change check_refusals makes */
} fuzz_case;

static int64_t ceil_div(int64_t a, int64_t b) { return a <= 0 ? 0 : (a - 1) / b + 1; }

/* A, B and the scale tensors the payload expects for M, N, K, from the
 * operand record: A's dtype, B's, A's pad, B's, then the payload's own. */
static void expected_operands(fuzz_input *whole, int payload, tp_gemm_desc *d) {
  static const tp_dtype standard_a[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_E4M3, TP_DTYPE_E5M2};
  static const tp_dtype fp8[] = {TP_DTYPE_E4M3, TP_DTYPE_E5M2};
  static const tp_dtype e4m3[] = {TP_DTYPE_E4M3};
  static const tp_dtype block_a[] = {TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_E2M1};
  fuzz_input in = fuzz_take(whole, OPERAND_BYTES);
  const uint8_t a_sel = fuzz_u8(&in), b_sel = fuzz_u8(&in);
  const uint8_t a_pad = fuzz_u8(&in), b_pad = fuzz_u8(&in);
  uint8_t own[4];
  for (int i = 0; i < 4; i++) own[i] = fuzz_u8(&in); /* in order: not an initializer list */
  fuzz_input a_in = {&a_sel, 1}, b_in = {&b_sel, 1};
  tp_dtype a, b;
  switch (payload) {
  case 1: /* blockwise_fp8: f32 [ceil(K/128), M] and [ceil(N/128), ceil(K/128)] */
    a = pick_dtype(&a_in, e4m3, 1);
    b = pick_dtype(&b_in, e4m3, 1);
    d->a_scale = padded(TP_DTYPE_F32, ceil_div(d->k, 128), d->m, own[0]);
    d->b_scale = padded(TP_DTYPE_F32, ceil_div(d->n, 128), ceil_div(d->k, 128), own[1]);
    break;
  case 2: { /* block_scaled: MXFP8 (ue8m0 per 32) or NVFP4 (ue4m3 per 16) */
    a = pick_dtype(&a_in, block_a, 3);
    b = a == TP_DTYPE_E2M1 ? pick_dtype(&b_in, &a, 1) : pick_dtype(&b_in, fp8, 2);
    const int64_t vec = a == TP_DTYPE_E2M1 ? 16 : 32;
    const tp_dtype sf = a == TP_DTYPE_E2M1 ? TP_DTYPE_UE4M3 : TP_DTYPE_UE8M0;
    if (own[0] < 192 && d->k > 0 && d->k < INT32_MAX - vec) d->k = ceil_div(d->k, vec) * vec;
    if (own[1] < 128) {
      d->a_scale = tp_tensor_sf_128x4(sf, d->m, d->k / vec, NULL);
      d->b_scale = tp_tensor_sf_128x4(sf, d->n, d->k / vec, NULL);
    } else {
      d->a_scale = padded(sf, d->m, d->k / vec, own[2]);
      d->b_scale = padded(sf, d->n, d->k / vec, own[3]);
    }
    break;
  }
  default: /* standard (and the names that are not payloads) */
    a = pick_dtype(&a_in, standard_a, 4);
    b = a == TP_DTYPE_BF16 || a == TP_DTYPE_F16 ? pick_dtype(&b_in, &a, 1)
                                                : pick_dtype(&b_in, fp8, 2);
    break;
  }
  d->a = padded(a, d->m, d->k, a_pad);
  d->b = padded(b, d->n, d->k, b_pad);
}

static void decode(fuzz_input *in, fuzz_case *fc) {
  static const tp_dtype outputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};
  static const tp_dtype biases[] = {TP_DTYPE_F32, TP_DTYPE_BF16, TP_DTYPE_F16};
  const int payload = fuzz_u8(in) % 4;
  fc->payload = payloads[payload];
  fc->epilogue = epilogues[fuzz_u8(in) % 3];
  tp_gemm_desc *d = &fc->desc;
  const int64_t m = pick_size(in), n = pick_size(in), k = pick_size(in); /* in this order */
  tp_gemm_desc_init(d, m, n, k);
  expected_operands(in, payload, d);
  const tp_dtype d_dtype = pick_dtype(in, outputs, 3);
  d->d = padded(d_dtype, d->m, d->n, fuzz_u8(in));
  const uint8_t c_mode = fuzz_u8(in), c_sel = fuzz_u8(in), c_pad = fuzz_u8(in);
  if (c_mode < 96) {
    d->c.dtype = TP_DTYPE_NONE;
  } else if (c_mode < 160) {
    d->c = d->d;
    fc->c_is_d = 1;
  } else {
    const tp_dtype c_dtypes[] = {d->d.dtype, TP_DTYPE_F32};
    fuzz_input c_in = {&c_sel, 1};
    d->c = padded(pick_dtype(&c_in, c_dtypes, 2), d->m, d->n, c_pad);
  }
  const uint8_t bias_mode = fuzz_u8(in);
  const tp_dtype bias_dtype = pick_dtype(in, biases, 3);
  if (bias_mode >= 224) d->bias = tp_tensor_vector(bias_dtype, d->n, NULL);
  d->alpha = pick_float(in, 1.5f);
  d->beta = pick_float(in, d->c.dtype == TP_DTYPE_NONE ? 0.0f : -0.5f);
  tp_tensor *const tensors[T_COUNT] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d,
                                       &d->bias};
  for (int i = 0; i < T_COUNT; i++) finish_tensor(in, tensors[i]);
  if (fc->c_is_d && memcmp(&d->c, &d->d, sizeof d->c) != 0) fc->c_is_d = 0;
  fc->seed = fuzz_uint(in, 8);
  fc->refusal = fuzz_u8(in);
  d->struct_size = pick_struct_size(in);
}

/* ------------------------------------------------------------- running */

typedef struct buffers {
  void *data[T_COUNT];
} buffers;

static tp_tensor *tensor_of(tp_gemm_desc *d, int i) {
  tp_tensor *const tensors[T_COUNT] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d,
                                       &d->bias};
  return tensors[i];
}

/* Buffers of exactly each tensor's span (C sharing D's when it is D), or 0
 * when the spans are not small enough to run. */
static int buffers_make(tp_gemm_desc *d, int c_is_d, buffers *b) {
  memset(b, 0, sizeof *b);
  int64_t total = 0;
  for (int i = 0; i < T_COUNT; i++) {
    const int64_t span = tp_tensor_span_bytes(tensor_of(d, i));
    if (span < 0 || span > RUN_MAX_BYTES) return 0;
    total += span;
  }
  if (total > RUN_MAX_BYTES) return 0;
  for (int i = 0; i < T_COUNT; i++) {
    tp_tensor *t = tensor_of(d, i);
    if (t->dtype == TP_DTYPE_NONE || (i == T_C && c_is_d)) continue;
    const int64_t span = tp_tensor_span_bytes(t);
    b->data[i] = malloc(span > 0 ? (size_t)span : 1);
    if (!b->data[i]) fail("out of memory", "buffers");
    memset(b->data[i], 0xFF, span > 0 ? (size_t)span : 1); /* NaN in every dtype */
    t->data = b->data[i];
  }
  if (c_is_d) d->c.data = d->d.data;
  return 1;
}

static void buffers_free(buffers *b) {
  for (int i = 0; i < T_COUNT; i++) free(b->data[i]);
}

/* Inputs the reference can read: rank 1 or 2 each (what the plugins take),
 * the scales with their maps' values. */
static int fill_inputs(tp_gemm_desc *d, const tp_problem *problem, uint64_t seed) {
  for (int i = 0; i < T_COUNT; i++) {
    const tp_tensor *t = tensor_of(d, i);
    if (t->dtype == TP_DTYPE_NONE) continue;
    if (t->rank < 1 || t->rank > 2) return 0;
    if (i == T_A_SCALE || i == T_B_SCALE)
      tp_ref_tensor_fill(t, i == T_A_SCALE ? &problem->a_scale : &problem->b_scale, seed + i);
    else if (i != T_D) /* D stays NaN; when C is D, C's fill is D's */
      tp_ref_tensor_fill(t, NULL, seed + i);
  }
  return 1;
}

/* alpha and beta the comparison can judge: results neither overflow nor
 * underflow D (whose normwise bound assumes neither). */
static int moderate(float x) { return x == 0.0f || (fabsf(x) >= 0x1p-6f && fabsf(x) <= 4.0f); }

/* The run's D against the reference computed before it, element by
 * element: the normwise bound is statistical and a fuzzed D of a few
 * elements may exceed it though correct (tilepipe/reference.h; a 1 x 1 x
 * 769 D whose sum cancels to 1/3800 of its terms' magnitude did). */
static void check_result(const fuzz_case *fc, const tp_gemm_desc *d, const tp_problem *problem,
                         const double *ref, const double *mag) {
  tp_ref_tolerance tol =
      tp_ref_tolerance_for(d->d.dtype, d->k, tp_ref_acc_bits(problem, TP_BACKEND_CPU));
  tol.rel = INFINITY;
  tp_ref_report rep = {.struct_size = sizeof rep};
  tp_ref_compare(&d->d, d->m, d->n, ref, mag, NULL, &tol, &rep);
  if (!rep.pass) {
    char what[256];
    snprintf(what, sizeof what,
             "%s x %s %lldx%lldx%lld: %lld bad elements, first (%lld, %lld) = %g vs %g",
             fc->payload, fc->epilogue, (long long)d->m, (long long)d->n, (long long)d->k,
             (long long)rep.bad, (long long)rep.bad_row, (long long)rep.bad_col, rep.bad_value,
             rep.bad_ref);
    fail("a wrong result", what);
  }
}

/* Changes the plan did not see must be refused at run time. */
static void check_refusals(tp_plan *plan, const tp_gemm_desc *d, uint8_t refusal) {
  tp_gemm_desc changed = *d;
  const char *what;
  switch (refusal % 7) {
  case 0: changed.m++; what = "M changed"; break;
  case 1: {
    uint32_t bits;
    memcpy(&bits, &changed.alpha, sizeof bits);
    bits ^= 1; /* the last bit: a different float, or a different NaN */
    memcpy(&changed.alpha, &bits, sizeof bits);
    what = "alpha changed";
    break;
  }
  case 2: changed.a.shape[0]++; what = "A's shape changed"; break;
  case 3: changed.d.data = NULL; what = "D's pointer NULL"; break;
  case 4:
    if (tp_dtype_bits(d->d.dtype) < 16) return;
    changed.d.data = (char *)d->d.data + 1;
    what = "D's pointer misaligned";
    break;
  case 5: changed.d.data = d->a.data; what = "D overlapping A"; break;
  default: changed.struct_size = 0; what = "struct_size 0"; break;
  }
  if (tp_plan_run(plan, &changed, NULL) == TP_OK) fail("a run accepted", what);
  if (tp_error_message()[0] == '\0') fail("a refused run without a message", what);
}

static void run_plan(tp_plan *plan, fuzz_case *fc) {
  tp_gemm_desc *d = &fc->desc;
  if (d->m > RUN_MAX_MACS || d->n > RUN_MAX_MACS || d->k > RUN_MAX_MACS) return;
  const int64_t m = (d->m + 7) / 8 * 8, n = (d->n + 7) / 8 * 8, k = (d->k + 127) / 128 * 128;
  if (m * n > RUN_MAX_MACS || m * n * k > RUN_MAX_MACS) return;
  buffers b;
  if (!buffers_make(d, fc->c_is_d, &b)) {
    buffers_free(&b);
    return;
  }
  /* What the scales mean is the payload's word for this shape and these
   * dtypes; the fuzzed tensors may differ from what it would make, but a
   * plan that took them reads them so. */
  tp_problem problem = {.struct_size = sizeof problem};
  tp_gemm_desc described = *d;
  const tp_layout layout = d->a_scale.layout == TP_LAYOUT_SF_128X4 ? TP_LAYOUT_SF_128X4
                                                                    : TP_LAYOUT_STRIDED;
  const tp_problem_options opt = {.struct_size = sizeof opt, .scale_layout = layout};
  const int compare = tp_problem_describe(reg, fc->payload, &opt, &described, &problem) == TP_OK &&
                      fill_inputs(d, &problem, fc->seed) && moderate(d->alpha) &&
                      moderate(d->beta);
  double *ref = NULL, *mag = NULL;
  if (compare) {
    ref = malloc(sizeof(double) * (size_t)(d->m * d->n));
    mag = malloc(sizeof(double) * (size_t)(d->m * d->n));
    char err[256];
    const tp_ref_epilogue epi =
        strcmp(fc->epilogue, "residual") == 0 ? TP_REF_RESIDUAL : TP_REF_STORE;
    if (!ref || !mag || tp_ref_gemm(d, &problem, epi, ref, mag, err, sizeof err) != TP_OK) {
      free(ref);
      free(mag);
      ref = mag = NULL;
    }
  }
  if (tp_plan_run(plan, d, NULL) != TP_OK) fail("a planned run failed", tp_error_message());
  if (ref) check_result(fc, d, &problem, ref, mag);
  check_refusals(plan, d, fc->refusal);
  free(ref);
  free(mag);
  buffers_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_input in = {data, size};
  fuzz_case fc;
  memset(&fc, 0, sizeof fc);
  decode(&in, &fc);
  /* Plan time never reads data pointers: give it ones that must not be. */
  tp_gemm_desc planned = fc.desc;
  for (int i = 0; i < T_COUNT; i++)
    tensor_of(&planned, i)->data = (void *)(uintptr_t)(0x10 * (i + 1));
  tp_plan *plan = NULL;
  const int size_refused = planned.struct_size < TP_GEMM_DESC_FIRST_SIZE;
  if (tp_plan_create(&plan, reg, fc.payload, fc.epilogue, &planned, TP_BACKEND_CPU) != TP_OK) {
    if (plan != NULL) fail("a refused plan that is not NULL", fc.payload);
    if (tp_error_message()[0] == '\0') fail("a refused plan without a message", fc.payload);
    if (size_refused && strstr(tp_error_message(), "struct_size") == NULL)
      fail("a struct_size refused without naming it", tp_error_message());
    return 0;
  }
  if (size_refused) fail("a plan accepted a struct_size below the first version", fc.payload);
  for (int i = 0; i < T_COUNT; i++)
    if (tp_tensor_span_bytes(tensor_of(&fc.desc, i)) < 0)
      fail("an accepted tensor whose span no buffer can have", fc.payload);
  run_plan(plan, &fc);
  tp_plan_destroy(plan);
  return 0;
}
