/* test_int8_w8a8.c: checks int8_w8a8 through the installed tilepipe.
 *
 *   test_int8_w8a8 /abs/path/tp_int8_w8a8.so [/abs/path/tp_bias_silu.so]
 *
 * (the Makefile's `make check`; BIAS_SILU=... adds the second argument).
 * Writes a registry into a fresh folder under $TMPDIR listing the payload,
 * the installed store and residual epilogues (TP_PLUGINDIR, from
 * pkg-config; each one only if it is there) and bias_silu when given, then:
 *   - the registry keys (the plugin kit's tuning keys): taken in range,
 *     refused outside it or beyond the payload's kernels (tile K 128, no
 *     tile wider than 192), an unknown key refused;
 *   - what the plan refuses: A or B not s8, a scale missing, of the wrong
 *     dtype, layout, shape or stride, and a CUDA plan while the payload
 *     carries no kernel;
 *   - on the CPU backend, random problems over ragged shapes (M, N, K among
 *     1, 7, 127, 129, 300, 1009) through every epilogue found: store (D
 *     bf16, f16, f32), residual (C of D's dtype and f32 with beta != 0, and
 *     C that is D's own memory), bias_silu (an f32 bias); a_scale as [M] or
 *     [M, 1], b_scale as [N] or [1, N]; s8 inputs uniform over all 256
 *     codes, and once only -128 and 127 (the largest products);
 *   - on the GPU, the same through the CUDA backend when tp_device_info
 *     finds one and both plugins carry device code; otherwise it says why
 *     and checks the CPU only.
 * Every problem is new random data, seeded from the clock (the seed is
 * printed; INT8_W8A8_SEED=S repeats a run). D is poisoned (0xFF: NaN in
 * every dtype) before each run; every element is compared with an f64
 * computation written here (the integer dot product exactly, then scales
 * and epilogue in double) within a bound derived from unit roundoffs (see
 * within_bound), which a self-check shows rejects a D computed without
 * b_scale; D's row padding must still be 0xFF. Exit 0 when everything
 * passed, 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tilepipe/device.h>
#include <tilepipe/dtype_codec.h>
#include <tilepipe/tilepipe.h>

#ifndef TP_PLUGINDIR
#error "build with -DTP_PLUGINDIR=\"$(pkg-config --variable=plugindir tilepipe)\""
#endif

static int failures = 0;

#define CHECK(cond, ...)                                                                     \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
      fprintf(stderr, __VA_ARGS__);                                                          \
      fputc('\n', stderr);                                                                   \
      failures++;                                                                            \
    }                                                                                        \
  } while (0)

/* ------------------------------------------------------------ random data */

static uint64_t rng_state;

static uint64_t next_u64(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, 1). */
static double uniform(void) { return (double)(next_u64() >> 11) * 0x1.0p-53; }

/* ------------------------------------------------------------ problems */

typedef enum epilogue { EPI_STORE, EPI_RESIDUAL, EPI_BIAS_SILU, NUM_EPILOGUES } epilogue;
static const char *const epilogue_names[NUM_EPILOGUES] = {"store", "residual", "bias_silu"};

typedef struct spec {
  int64_t m, n, k;
  epilogue epi;
  tp_dtype d;
  tp_dtype c;       /* residual: C's dtype (ignored when c_is_d) */
  int c_is_d;       /* residual: C is D's own memory */
  int scale_rank2;  /* a_scale [M, 1] and b_scale [1, N] instead of vectors */
  int extremes;     /* A and B only -128 and 127 */
  float alpha, beta;
} spec;

enum { BUF_A, BUF_B, BUF_SA, BUF_SB, BUF_C, BUF_D, BUF_BIAS, NUM_BUFS };

typedef struct problem {
  tp_gemm_desc desc;    /* host pointers */
  void *buf[NUM_BUFS];  /* NULL where absent (and C when it is D) */
  size_t bytes[NUM_BUFS];
} problem;

static tp_tensor *tensor_of(tp_gemm_desc *d, int i) {
  tp_tensor *t[NUM_BUFS] = {&d->a, &d->b, &d->a_scale, &d->b_scale, &d->c, &d->d, &d->bias};
  return t[i];
}

/* Row stride for `cols` elements plus a little padding, rounded up to 16
 * bytes (TMA's rule, so one layout serves both backends). */
static int64_t padded_ld(tp_dtype t, int64_t cols) {
  const int64_t per16 = 16 / (int64_t)(tp_codec_bits(t) / 8);
  return (cols + 3 + per16 - 1) / per16 * per16;
}

/* A random s8 code: uniform over -128..127, or only the two extremes. */
static float s8_value(int extremes) {
  const uint64_t r = next_u64() >> 32;
  return extremes ? (r & 1 ? 127.0f : -128.0f) : (float)((int)(r % 256) - 128);
}

/* A positive scale 2^U(-12, -4), as absmax/127 quantization makes them
 * (products near 1 for K in the hundreds, inside f16 everywhere here). */
static float scale_value(void) { return (float)exp2(8.0 * uniform() - 12.0); }

static void fill_matrix(tp_tensor *t, float (*draw)(void)) {
  for (int64_t r = 0; r < t->shape[0]; r++)
    for (int64_t c = 0; c < t->shape[1]; c++)
      tp_codec_store(t->dtype, t->data, r * t->stride[0] + c, draw());
}

static float normal_ish(void) { return (float)(2.0 * uniform() - 1.0); }

/* The problem of s; every buffer starts as 0xFF, then gets its elements. */
static int problem_make(problem *p, const spec *s) {
  memset(p, 0, sizeof *p);
  tp_gemm_desc *d = &p->desc;
  tp_gemm_desc_init(d, s->m, s->n, s->k);
  d->alpha = s->alpha;
  d->beta = s->epi == EPI_RESIDUAL ? s->beta : 0.0f;
  d->a = tp_tensor_matrix(TP_DTYPE_S8, s->m, s->k, padded_ld(TP_DTYPE_S8, s->k), NULL);
  d->b = tp_tensor_matrix(TP_DTYPE_S8, s->n, s->k, padded_ld(TP_DTYPE_S8, s->k), NULL);
  if (s->scale_rank2) {
    d->a_scale = tp_tensor_matrix(TP_DTYPE_F32, s->m, 1, 1, NULL); /* [M, 1], stride (1, 1) */
    d->b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, s->n, s->n, NULL);
  } else {
    d->a_scale = tp_tensor_vector(TP_DTYPE_F32, s->m, NULL);
    d->b_scale = tp_tensor_vector(TP_DTYPE_F32, s->n, NULL);
  }
  d->d = tp_tensor_matrix(s->d, s->m, s->n, padded_ld(s->d, s->n), NULL);
  if (s->epi == EPI_RESIDUAL && !s->c_is_d)
    d->c = tp_tensor_matrix(s->c, s->m, s->n, padded_ld(s->c, s->n + 5), NULL);
  if (s->epi == EPI_BIAS_SILU) d->bias = tp_tensor_vector(TP_DTYPE_F32, s->n, NULL);
  for (int i = 0; i < NUM_BUFS; i++) {
    tp_tensor *t = tensor_of(d, i);
    if (t->dtype == TP_DTYPE_NONE) continue;
    p->bytes[i] = (size_t)tp_tensor_span_bytes(t);
    p->buf[i] = malloc(p->bytes[i]);
    if (p->buf[i] == NULL) return 0;
    memset(p->buf[i], 0xFF, p->bytes[i]);
    t->data = p->buf[i];
  }
  if (s->c_is_d) d->c = d->d; /* same memory, dtype and strides */
  for (int64_t r = 0; r < s->m; r++)
    for (int64_t c = 0; c < s->k; c++)
      tp_codec_store(TP_DTYPE_S8, d->a.data, r * d->a.stride[0] + c, s8_value(s->extremes));
  for (int64_t r = 0; r < s->n; r++)
    for (int64_t c = 0; c < s->k; c++)
      tp_codec_store(TP_DTYPE_S8, d->b.data, r * d->b.stride[0] + c, s8_value(s->extremes));
  /* Element i of either scale form is at data[i] (unit stride). */
  for (int64_t i = 0; i < s->m; i++)
    tp_codec_store(TP_DTYPE_F32, d->a_scale.data, i, scale_value());
  for (int64_t i = 0; i < s->n; i++)
    tp_codec_store(TP_DTYPE_F32, d->b_scale.data, i, scale_value());
  if (d->c.dtype != TP_DTYPE_NONE) fill_matrix(&d->c, normal_ish);
  for (int64_t i = 0; d->bias.dtype != TP_DTYPE_NONE && i < s->n; i++)
    tp_codec_store(TP_DTYPE_F32, d->bias.data, i, (float)(4.0 * uniform() - 2.0));
  return 1;
}

static void problem_free(problem *p) {
  for (int i = 0; i < NUM_BUFS; i++) free(p->buf[i]);
}

/* ------------------------------------------------------------- reference */

typedef struct reference {
  double *want;  /* the epilogue's result, all in f64 */
  double *wrong; /* the same without b_scale (the self-check's wrong answer) */
  double *mag;   /* |alpha| sa sb sum |a b| + |beta C| or + |bias|: what bounds f32 rounding */
} reference;

static double silu(double x) { return x / (1.0 + exp(-x)); }

/* Reads C (and everything else) before a run, so C that is D is still C. */
static int reference_make(reference *r, const tp_gemm_desc *d, epilogue epi) {
  const size_t count = (size_t)(d->m * d->n);
  r->want = malloc(count * sizeof(double));
  r->wrong = malloc(count * sizeof(double));
  r->mag = malloc(count * sizeof(double));
  if (r->want == NULL || r->wrong == NULL || r->mag == NULL) return 0;
  const int8_t *a = d->a.data, *b = d->b.data; /* an s8 code is its int8_t */
  for (int64_t i = 0; i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      int64_t dot = 0, abs_dot = 0;
      for (int64_t kk = 0; kk < d->k; kk++) {
        const int64_t prod = (int64_t)a[i * d->a.stride[0] + kk] * b[j * d->b.stride[0] + kk];
        dot += prod;
        abs_dot += prod < 0 ? -prod : prod;
      }
      const double sa = tp_codec_load(TP_DTYPE_F32, d->a_scale.data, i);
      const double sb = tp_codec_load(TP_DTYPE_F32, d->b_scale.data, j);
      double extra = 0.0; /* beta*C or the bias */
      if (epi == EPI_RESIDUAL && d->beta != 0.0f)
        extra = (double)d->beta * tp_codec_load(d->c.dtype, d->c.data, i * d->c.stride[0] + j);
      if (epi == EPI_BIAS_SILU) extra = tp_codec_load(TP_DTYPE_F32, d->bias.data, j);
      const double x = (double)d->alpha * sa * sb * (double)dot + extra;
      const double x_wrong = (double)d->alpha * sa * (double)dot + extra;
      const size_t e = (size_t)(i * d->n + j);
      r->want[e] = epi == EPI_BIAS_SILU ? silu(x) : x;
      r->wrong[e] = epi == EPI_BIAS_SILU ? silu(x_wrong) : x_wrong;
      r->mag[e] = fabs((double)d->alpha) * sa * sb * (double)abs_dot + fabs(extra);
    }
  return 1;
}

static void reference_free(reference *r) {
  free(r->want);
  free(r->wrong);
  free(r->mag);
}

/* |got - want| within what correct f32 arithmetic allows:
 *   the products are integers, summed exactly in partial sums of at least
 *   32 of them (a CPU k-block, a wgmma k-step), so the f32 result of the
 *   payload is off by at most g * mag with g = (ceil(K/32) + 16) u: the
 *   sums of the partial sums, plus the few roundings of the scales, alpha,
 *   beta*C and the bias add; silu's slope lies in [-0.1, 1.1], so through
 *   bias_silu 1.1 g mag, plus 16 ulps of |y| for exp, the add and the
 *   divide;
 *   rounding to D adds u_out |want| and, near zero, half D's smallest
 *   subnormal.
 * u = 2^-24 on both backends: an integer sum has no accumulator roundoff. */
static int within_bound(double got, double want, double mag, tp_dtype out, int64_t k,
                        epilogue epi) {
  double u_out = 0x1.0p-24, eta = 0x1.0p-150;
  if (out == TP_DTYPE_BF16) u_out = 0x1.0p-8, eta = 0x1.0p-134;
  if (out == TP_DTYPE_F16) u_out = 0x1.0p-11, eta = 0x1.0p-25;
  const double g = ((double)((k + 31) / 32) + 16.0) * 0x1.0p-24;
  const double slope = epi == EPI_BIAS_SILU ? 1.1 : 1.0;
  const double f32_eval = slope * g * mag + 16.0 * 0x1.0p-24 * fabs(want);
  return fabs(got - want) <= u_out * fabs(want) + (1.0 + u_out) * f32_eval + eta;
}

/* Elements of D outside their bound against want[] (NaN counts); reports
 * the first one when `label` is given. */
static int64_t count_bad(const tp_gemm_desc *d, const double *want, const double *mag,
                         epilogue epi, const char *label) {
  int64_t bad = 0;
  for (int64_t i = 0; i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      const double got = tp_codec_load(d->d.dtype, d->d.data, i * d->d.stride[0] + j);
      const size_t e = (size_t)(i * d->n + j);
      if (within_bound(got, want[e], mag[e], d->d.dtype, d->k, epi)) continue;
      if (bad++ == 0 && label)
        fprintf(stderr, "  %s: D[%lld][%lld] = %.9g, reference %.9g\n", label, (long long)i,
                (long long)j, got, want[e]);
    }
  return bad;
}

/* 1 when every byte of D's buffer outside its elements is still 0xFF. */
static int padding_intact(const problem *p) {
  const tp_tensor *d = &p->desc.d;
  const size_t esize = tp_codec_bits(d->dtype) / 8, pitch = (size_t)d->stride[0] * esize;
  const unsigned char *bytes = p->buf[BUF_D];
  for (size_t off = 0; off < p->bytes[BUF_D]; off++) {
    const int element =
        off / pitch < (size_t)d->shape[0] && off % pitch < (size_t)d->shape[1] * esize;
    if (!element && bytes[off] != 0xFF) return 0;
  }
  return 1;
}

/* -------------------------------------------------------------- the runs */

static tp_registry *reg;

/* Copies of the host buffers on the device; desc points at them. */
typedef struct device_copy {
  tp_gemm_desc desc;
  void *buf[NUM_BUFS];
} device_copy;

static int device_copy_make(device_copy *dc, const problem *p) {
  memset(dc, 0, sizeof *dc);
  dc->desc = p->desc;
  for (int i = 0; i < NUM_BUFS; i++) {
    tensor_of(&dc->desc, i)->data = NULL;
    if (p->buf[i] == NULL) continue;
    if (tp_device_alloc(&dc->buf[i], p->bytes[i]) != TP_OK ||
        tp_device_copy_to(dc->buf[i], p->buf[i], p->bytes[i]) != TP_OK)
      return 0;
    tensor_of(&dc->desc, i)->data = dc->buf[i];
  }
  if (p->desc.c.data != NULL && p->desc.c.data == p->desc.d.data) dc->desc.c.data = dc->buf[BUF_D];
  return 1;
}

static void device_copy_free(device_copy *dc) {
  for (int i = 0; i < NUM_BUFS; i++) tp_device_free(dc->buf[i]);
}

/* Plans, poisons D (unless it holds C), runs and checks p (on the device
 * copy dc on the GPU). */
static void plan_run_check(const char *what, tp_backend backend, const spec *s, problem *p,
                           const reference *r, const device_copy *dc, int self_check) {
  const int on_gpu = backend == TP_BACKEND_CUDA;
  const tp_gemm_desc *run_desc = on_gpu ? &dc->desc : &p->desc;
  const int poison = !s->c_is_d;
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, "int8_w8a8", epilogue_names[s->epi], run_desc, backend);
  if (st != TP_OK) {
    CHECK(0, "%s: plan: %s", what, tp_error_message());
    return;
  }
  CHECK(tp_plan_backend(plan) == backend, "%s: planned for %s", what,
        tp_backend_name(tp_plan_backend(plan)));
  if (on_gpu) {
    st = poison ? tp_device_memset(dc->buf[BUF_D], 0xFF, p->bytes[BUF_D]) : TP_OK;
    if (st == TP_OK) st = tp_plan_run(plan, run_desc, NULL);
    if (st == TP_OK) st = tp_device_synchronize(NULL);
    if (st == TP_OK) st = tp_device_copy_from(p->buf[BUF_D], dc->buf[BUF_D], p->bytes[BUF_D]);
  } else {
    if (poison) memset(p->buf[BUF_D], 0xFF, p->bytes[BUF_D]);
    st = tp_plan_run(plan, run_desc, NULL);
  }
  tp_plan_destroy(plan);
  if (st != TP_OK) {
    CHECK(0, "%s: run: %s", what, tp_error_message());
    return;
  }
  const int64_t bad = count_bad(&p->desc, r->want, r->mag, s->epi, what);
  CHECK(bad == 0, "%s: %lld of %lld elements outside their bound", what, (long long)bad,
        (long long)(p->desc.m * p->desc.n));
  CHECK(padding_intact(p), "%s: the run wrote into D's row padding", what);
  if (self_check) /* the bound tells a missing b_scale */
    CHECK(count_bad(&p->desc, r->wrong, r->mag, s->epi, NULL) > 0,
          "%s: self-check: a D without b_scale would have passed", what);
}

/* One random problem through int8_w8a8 x s->epi on `backend`, checked. */
static void run_case(tp_backend backend, const spec *s, int self_check) {
  char what[200];
  snprintf(what, sizeof what, "%s %lldx%lldx%lld %s D %s%s%s%s alpha %g%s",
           tp_backend_name(backend), (long long)s->m, (long long)s->n, (long long)s->k,
           epilogue_names[s->epi], tp_codec_name(s->d),
           s->epi != EPI_RESIDUAL ? "" : s->c_is_d ? " C=D" : " C ",
           s->epi == EPI_RESIDUAL && !s->c_is_d ? tp_codec_name(s->c) : "",
           s->scale_rank2 ? " scales [M,1] [1,N]" : "", (double)s->alpha,
           s->extremes ? " (-128/127 only)" : "");
  problem p;
  reference r = {NULL, NULL, NULL};
  device_copy dc;
  memset(&dc, 0, sizeof dc);
  if (backend == TP_BACKEND_CUDA) printf("  %s\n", what); /* progress, a line per GPU case */
  if (!problem_make(&p, s) || !reference_make(&r, &p.desc, s->epi))
    CHECK(0, "%s: out of host memory", what);
  else if (backend == TP_BACKEND_CUDA && !device_copy_make(&dc, &p))
    CHECK(0, "%s: device buffers: %s", what, tp_error_message());
  else
    plan_run_check(what, backend, s, &p, &r, &dc, self_check);
  device_copy_free(&dc);
  reference_free(&r);
  problem_free(&p);
}

/* ------------------------------------------------------------- refusals */

/* tp_plan_create on backend refuses desc with `status`, naming int8_w8a8
 * and `needle`. */
static void expect_refused_on(tp_backend backend, const tp_gemm_desc *desc, tp_status status,
                              const char *needle) {
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, "int8_w8a8", "store", desc, backend);
  CHECK(st == status && plan == NULL, "expected '%s' (%s), got '%s': %s",
        tp_status_string(status), needle, tp_status_string(st), tp_error_message());
  if (st != TP_OK)
    CHECK(strstr(tp_error_message(), "payload 'int8_w8a8'") != NULL &&
              strstr(tp_error_message(), needle) != NULL,
          "message '%s' lacks '%s'", tp_error_message(), needle);
  tp_plan_destroy(plan);
}

static void expect_refused(const tp_gemm_desc *desc, tp_status status, const char *needle) {
  expect_refused_on(TP_BACKEND_CPU, desc, status, needle);
}

/* On the GPU: the kernel's s32 sums are exact for K < 2^17 only. */
static void check_gpu_refusals(void) {
  const spec s = {.m = 16, .n = 24, .k = 1 << 17, .epi = EPI_STORE, .d = TP_DTYPE_BF16,
                  .alpha = 1.0f};
  problem p;
  if (!problem_make(&p, &s)) {
    CHECK(0, "out of host memory");
    return;
  }
  expect_refused_on(TP_BACKEND_CUDA, &p.desc, TP_ERR_UNSUPPORTED,
                    "K = 131072: the GPU kernel's s32 sums are exact only for K < 131072");
  problem_free(&p);
}

static void check_refusals(void) {
  const spec s = {.m = 16, .n = 24, .k = 32, .epi = EPI_STORE, .d = TP_DTYPE_BF16, .alpha = 1.0f};
  problem p;
  if (!problem_make(&p, &s)) {
    CHECK(0, "out of host memory");
    return;
  }
  tp_gemm_desc d = p.desc;
  d.a.dtype = TP_DTYPE_BF16;
  expect_refused(&d, TP_ERR_UNSUPPORTED, "A is bf16; int8_w8a8 takes s8 A and B");
  d = p.desc;
  d.b.dtype = TP_DTYPE_E4M3;
  expect_refused(&d, TP_ERR_UNSUPPORTED, "B is e4m3");
  d = p.desc;
  d.a_scale.dtype = TP_DTYPE_NONE;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale is missing");
  d = p.desc;
  d.b_scale.dtype = TP_DTYPE_NONE;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "b_scale is missing");
  d = p.desc;
  d.a_scale.dtype = TP_DTYPE_BF16;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale is bf16; it must be f32");
  d = p.desc;
  d.a_scale.shape[0] = 15;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has shape [15]; it must be [M] = [16]");
  d = p.desc;
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 16, 16, p.desc.a_scale.data); /* a row */
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has shape [1, 16]");
  d = p.desc;
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 24, 1, 1, p.desc.b_scale.data); /* a column */
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT,
                 "b_scale has shape [24, 1]; it must be [N] = [24] or [1, N]");
  d = p.desc;
  d.a_scale.stride[0] = 2; /* plans read no data: the span past the buffer is never used */
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has stride 2 along M");
  d = p.desc;
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 24, 24, p.desc.b_scale.data);
  d.b_scale.stride[1] = 0;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "b_scale has stride 0 along N");
  d = p.desc;
  d.a_scale = tp_tensor_sf_128x4(TP_DTYPE_F32, 16, 1, p.desc.a_scale.data);
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has layout");
  /* No kernel: a CUDA plan is refused (by the core, for want of a GPU or
   * of device code) rather than run on the CPU. */
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, "int8_w8a8", "store", &p.desc, TP_BACKEND_CUDA);
  tp_plugin_info info;
  if (tp_registry_find(reg, "int8_w8a8", &info) == TP_OK && !info.has_device_code)
    CHECK(st != TP_OK && plan == NULL, "a CUDA plan of a payload without a kernel was made");
  tp_plan_destroy(plan);
  problem_free(&p);
}

/* ------------------------------------------------------------------ main */

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

/* Writes `body` as registry.ini in a fresh folder under $TMPDIR, opens it
 * into *out, removes it; the status of tp_registry_open. */
static tp_status open_registry(const char *body, tp_registry **out) {
  const char *tmp = getenv("TMPDIR");
  char dir[1024], path[1100];
  snprintf(dir, sizeof dir, "%s/int8_w8a8-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(dir) == NULL) {
    perror("test_int8_w8a8: mkdtemp");
    return TP_ERR_IO;
  }
  snprintf(path, sizeof path, "%s/registry.ini", dir);
  FILE *f = fopen(path, "w");
  const int written = f != NULL && fputs(body, f) >= 0;
  if (f != NULL && fclose(f) != 0) perror("test_int8_w8a8: registry");
  tp_status st = written ? tp_registry_open(out, path) : TP_ERR_IO;
  remove(path);
  rmdir(dir);
  return st;
}

/* The section's keys: values in range are taken; 0 or 17 stages, "4x", a
 * tile K other than 128, a tile wider than the kernels' 192 and an unknown
 * key each mark the plugin broken, naming the key. */
static void check_keys(const char *plugin) {
  static const struct {
    const char *line;
    int ok;
    const char *needle;
  } cases[] = {{"stages = 3", 1, ""},
               {"stages = 16", 1, ""},
               {"stages = 0", 0, "stages"},
               {"stages = 17", 0, "stages"},
               {"stages = 4x", 0, "stages"},
               {"tile = 128x128x128", 1, ""},
               {"tile = 128x192x128", 1, ""},
               {"cluster = 2x1", 1, ""},
               {"tile = 128x128x64", 0, "tile '128x128x64': K must be 128"},
               {"tile = 128x256x128", 0, "tile '128x256x128': the GPU kernels take tiles"},
               {"colour = red", 0, "unknown key 'colour'"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char body[2048];
    snprintf(body, sizeof body, "[int8_w8a8]\nkind = payload\nlibrary = %s\n%s\n", plugin,
             cases[i].line);
    tp_registry *r = NULL;
    tp_plugin_info info;
    if (open_registry(body, &r) != TP_OK || tp_registry_find(r, "int8_w8a8", &info) != TP_OK) {
      CHECK(0, "'%s': cannot open the registry: %s", cases[i].line, tp_error_message());
    } else if (cases[i].ok) {
      CHECK(info.status == TP_OK, "'%s' was refused: %s", cases[i].line, info.error);
    } else {
      CHECK(info.status != TP_OK && strstr(info.error, cases[i].needle) != NULL,
            "'%s' was taken, or refused without naming '%s': %s", cases[i].line,
            cases[i].needle, info.status == TP_OK ? "(ok)" : info.error);
    }
    tp_registry_close(r);
  }
}

/* Every shape through every epilogue in have[] (three variants each, two
 * for bias_silu), then one problem of extreme codes; the number of cases. */
static int run_all(tp_backend backend, const int have[NUM_EPILOGUES]) {
  static const int64_t shapes[][3] = {{1, 1, 1},     {7, 7, 7},       {1, 300, 129},
                                      {127, 129, 300}, {129, 127, 127}, {300, 7, 1},
                                      {7, 129, 1009}, {129, 300, 16}};
  static const tp_dtype outs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};
  const size_t nshapes = sizeof shapes / sizeof shapes[0];
  int cases = 0;
  for (size_t sh = 0; sh < nshapes; sh++)
    for (int e = 0; e < NUM_EPILOGUES; e++) {
      if (!have[e]) continue;
      for (int v = 0; v < 3; v++) { /* three variants of each epilogue */
        spec s = {.m = shapes[sh][0], .n = shapes[sh][1], .k = shapes[sh][2], .epi = (epilogue)e,
                  .d = outs[(sh + (size_t)v) % 3], .scale_rank2 = (int)((sh + (size_t)v) % 2),
                  .alpha = (sh + (size_t)v) % 3 ? 1.0f : -0.75f};
        if (e == EPI_RESIDUAL) {
          s.c = v == 0 ? s.d : TP_DTYPE_F32; /* C of D's dtype, f32, or D itself */
          s.c_is_d = v == 2;
          s.beta = v == 1 ? -1.25f : 0.5f;
          if (v == 2) s.beta = 1.0f;
        }
        if (e == EPI_BIAS_SILU && v == 1) s.d = TP_DTYPE_F32;
        if (e == EPI_BIAS_SILU && v == 2) continue; /* two are enough */
        run_case(backend, &s, sh == 3 && v == 0);
        cases++;
      }
    }
  /* The largest products: only -128 and 127, K long enough for several
   * k-blocks (the partial sums reach 2^21). */
  if (have[EPI_STORE]) {
    const spec s = {.m = 65, .n = 70, .k = 1000, .epi = EPI_STORE, .d = TP_DTYPE_F32,
                    .extremes = 1, .alpha = 1.0f};
    run_case(backend, &s, 0);
    cases++;
  }
  return cases;
}

int main(int argc, char **argv) {
  /* Line-buffered even into a log file: a slow or stuck GPU run still shows
   * how far it got. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc < 2 || argc > 3 || argv[1][0] != '/' || (argc == 3 && argv[2][0] != '/')) {
    fprintf(stderr, "usage: %s /abs/path/tp_int8_w8a8.so [/abs/path/tp_bias_silu.so]\n", argv[0]);
    return 2;
  }
  const char *seed_text = getenv("INT8_W8A8_SEED");
  const uint64_t seed = seed_text && *seed_text ? strtoull(seed_text, NULL, 0)
                                                : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
  rng_state = seed ? seed : 0x9E3779B97F4A7C15ull;
  printf("seed %llu (INT8_W8A8_SEED=%llu repeats this run)\n", (unsigned long long)seed,
         (unsigned long long)seed);

  /* The payload, every installed epilogue this test knows, bias_silu if given. */
  const char *paths[NUM_EPILOGUES] = {TP_PLUGINDIR "/tp_store.so", TP_PLUGINDIR "/tp_residual.so",
                                      argc == 3 ? argv[2] : NULL};
  char body[4096];
  int used = snprintf(body, sizeof body, "[int8_w8a8]\nkind = payload\nlibrary = %s\n", argv[1]);
  int listed[NUM_EPILOGUES] = {0, 0, 0};
  for (int e = 0; e < NUM_EPILOGUES; e++) {
    if (paths[e] == NULL) {
      printf("%-9s not given (make check BIAS_SILU=/abs/path/tp_bias_silu.so): not checked\n",
             epilogue_names[e]);
    } else if (!file_exists(paths[e])) {
      printf("%-9s %s is not there: not checked\n", epilogue_names[e], paths[e]);
    } else {
      used += snprintf(body + used, sizeof body - (size_t)used,
                       "\n[%s]\nkind = epilogue\nlibrary = %s\n", epilogue_names[e], paths[e]);
      listed[e] = 1;
    }
  }
  if (!listed[EPI_STORE]) {
    fprintf(stderr, "test_int8_w8a8: the store epilogue is needed (%s)\n", paths[EPI_STORE]);
    return 1;
  }
  if (open_registry(body, &reg) != TP_OK) {
    fprintf(stderr, "test_int8_w8a8: %s\n", tp_error_message());
    return 1;
  }
  tp_plugin_info info;
  if (tp_registry_find(reg, "int8_w8a8", &info) != TP_OK || info.status != TP_OK) {
    fprintf(stderr, "test_int8_w8a8: plugin int8_w8a8 is unusable: %s\n",
            info.status != TP_OK ? info.error : tp_error_message());
    tp_registry_close(reg);
    return 1;
  }
  const int payload_gpu = info.has_device_code;
  printf("%-9s %s (device code: %s)\n", "int8_w8a8", info.library, payload_gpu ? "yes" : "no");
  int usable[NUM_EPILOGUES] = {0, 0, 0}, gpu_usable[NUM_EPILOGUES] = {0, 0, 0};
  for (int e = 0; e < NUM_EPILOGUES; e++) {
    if (!listed[e]) continue;
    if (tp_registry_find(reg, epilogue_names[e], &info) != TP_OK || info.status != TP_OK) {
      CHECK(0, "plugin %s is unusable: %s", epilogue_names[e],
            info.status != TP_OK ? info.error : tp_error_message());
      continue;
    }
    usable[e] = 1;
    gpu_usable[e] = info.has_device_code;
    printf("%-9s %s (device code: %s)\n", epilogue_names[e], info.library,
           info.has_device_code ? "yes" : "no");
  }

  check_keys(argv[1]);
  check_refusals();
  printf("CPU backend: %d problems checked\n", run_all(TP_BACKEND_CPU, usable));

  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    printf("no GPU (%s): the CUDA backend is not checked\n", tp_error_message());
  } else if (!payload_gpu) {
    printf("int8_w8a8 carries no kernel (its GPU path is not built): the CUDA backend is not "
           "checked\n");
  } else {
    check_gpu_refusals();
    printf("CUDA backend (%s): %d problems checked\n", props.name,
           run_all(TP_BACKEND_CUDA, gpu_usable));
  }
  tp_registry_close(reg);
  printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
