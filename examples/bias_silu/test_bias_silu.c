/* test_bias_silu.c: checks bias_silu through the installed tilepipe.
 *
 *   test_bias_silu /abs/path/tp_bias_silu.so     (the Makefile's `make check`)
 *
 * Writes a registry into a fresh folder under $TMPDIR listing the installed
 * standard and blockwise_fp8 payloads (TP_PLUGINDIR/tp_*.so, from
 * pkg-config) and the bias_silu plugin given, then:
 *   - what the plan refuses: no bias, a bias of the wrong dtype, an
 *     unsupported D, a C it would ignore;
 *   - on the CPU backend, random problems over ragged shapes, with bf16, f16
 *     and e4m3 inputs, D in bf16, f16 and f32, the bias in f32 or D's dtype,
 *     alpha not 1: D is poisoned (0xFF: NaN in every dtype) before each run,
 *     then every element is checked against an f64 computation written here
 *     (decode, triple loop, bias, silu in double), and D's row padding must
 *     still be 0xFF; the same epilogue after blockwise_fp8 (e4m3 with f32
 *     scales per 1x128 of A and 128x128 of B, K not a multiple of 128), the
 *     reference scaling each k-block's sum;
 *   - on the GPU (when tp_device_info finds one), the same for the CUDA
 *     backend, each payload x bias_silu fused at plan time, standard with
 *     bf16 and e4m3 inputs, larger shapes included. Without a GPU it says so
 *     and checks only the CPU part.
 * The per-element bound follows from unit roundoffs (see within_bound), and
 * a self-check shows it rejects a D computed without the silu. Exit 0 when
 * everything passed, 1 otherwise. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

/* Uniform in [-1, 1) (xorshift64*). */
static double uniform(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  const uint64_t r = rng_state * 0x2545F4914F6CDD1Dull;
  return (double)(r >> 11) * 0x1.0p-52 - 1.0;
}

/* --------------------------------------------------------------- problems */

typedef struct problem {
  tp_gemm_desc desc;        /* host pointers */
  void *buf[6];             /* A, B, D, bias, and blockwise_fp8's scales */
  size_t bytes[6];
} problem;

enum { BUF_A, BUF_B, BUF_D, BUF_BIAS, BUF_A_SCALE, BUF_B_SCALE, NUM_BUFS };

/* blockwise_fp8's scale block: 128 of K, 128 rows of B. */
#define SCALE_BLOCK 128

/* Row stride for `cols` elements plus a little padding, rounded up to 16
 * bytes (TMA's rule, so one layout serves both backends). */
static int64_t padded_ld(tp_dtype t, int64_t cols) {
  const int64_t per16 = 16 / (int64_t)(tp_codec_bits(t) / 8);
  return (cols + 3 + per16 - 1) / per16 * per16;
}

static tp_tensor *tensor_of(problem *p, int i) {
  tp_tensor *t[NUM_BUFS] = {&p->desc.a,    &p->desc.b,       &p->desc.d,
                            &p->desc.bias, &p->desc.a_scale, &p->desc.b_scale};
  return t[i];
}

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* A random problem; every buffer starts as 0xFF, then gets its elements.
 * `scaled`: blockwise_fp8's scale tensors too (docs/payloads.md), each
 * scale 2^u for u uniform in [-3, 3). */
static int problem_make(problem *p, int64_t m, int64_t n, int64_t k, tp_dtype in, tp_dtype out,
                        tp_dtype bias, float alpha, int scaled) {
  memset(p, 0, sizeof *p);
  tp_gemm_desc_init(&p->desc, m, n, k);
  p->desc.alpha = alpha;
  p->desc.a = tp_tensor_matrix(in, m, k, padded_ld(in, k), NULL);
  p->desc.b = tp_tensor_matrix(in, n, k, padded_ld(in, k), NULL);
  p->desc.d = tp_tensor_matrix(out, m, n, padded_ld(out, n), NULL);
  p->desc.bias = tp_tensor_vector(bias, n, NULL);
  if (scaled) {
    const int64_t blocks = ceil_div(k, SCALE_BLOCK);
    p->desc.a_scale = tp_tensor_matrix(TP_DTYPE_F32, blocks, m, padded_ld(TP_DTYPE_F32, m), NULL);
    p->desc.b_scale = tp_tensor_matrix(TP_DTYPE_F32, ceil_div(n, SCALE_BLOCK), blocks,
                                       padded_ld(TP_DTYPE_F32, blocks), NULL);
  }
  for (int i = 0; i < NUM_BUFS; i++) {
    tp_tensor *t = tensor_of(p, i);
    if (t->dtype == TP_DTYPE_NONE) continue;
    p->bytes[i] = (size_t)tp_tensor_span_bytes(t);
    p->buf[i] = malloc(p->bytes[i]);
    if (p->buf[i] == NULL) return 0;
    memset(p->buf[i], 0xFF, p->bytes[i]);
    t->data = p->buf[i];
  }
  for (int i = 0; i < 2; i++) {
    tp_tensor *t = tensor_of(p, i);
    for (int64_t r = 0; r < t->shape[0]; r++)
      for (int64_t c = 0; c < t->shape[1]; c++)
        tp_codec_store(t->dtype, t->data, r * t->stride[0] + c, (float)uniform());
  }
  for (int64_t c = 0; c < n; c++)
    tp_codec_store(bias, p->buf[BUF_BIAS], c, (float)(2.0 * uniform()));
  for (int i = BUF_A_SCALE; scaled && i <= BUF_B_SCALE; i++) {
    tp_tensor *t = tensor_of(p, i);
    for (int64_t r = 0; r < t->shape[0]; r++)
      for (int64_t c = 0; c < t->shape[1]; c++)
        ((float *)t->data)[r * t->stride[0] + c] = exp2f((float)(3.0 * uniform()));
  }
  return 1;
}

static void problem_free(problem *p) {
  for (int i = 0; i < NUM_BUFS; i++) free(p->buf[i]);
}

/* ------------------------------------------------------------- reference */

typedef struct reference {
  double *y;   /* silu(alpha * acc + bias[n]), all in f64 */
  double *x;   /* alpha * acc + bias[n] (the self-check's wrong answer) */
  double *mag; /* |alpha| * sum |a b| + |bias[n]|: what bounds the f32 rounding of x */
} reference;

/* The scale of A(i, kk) times that of B(j, kk): 1 without scale tensors. */
static double scale_of(const tp_gemm_desc *d, int64_t i, int64_t j, int64_t kk) {
  if (d->a_scale.dtype == TP_DTYPE_NONE) return 1.0;
  const int64_t kb = kk / SCALE_BLOCK;
  const float *sa = d->a_scale.data, *sb = d->b_scale.data;
  return (double)sa[kb * d->a_scale.stride[0] + i] *
         (double)sb[j / SCALE_BLOCK * d->b_scale.stride[0] + kb];
}

/* t's rows decoded to f64, densely: rows x cols. */
static double *decoded(const tp_tensor *t) {
  double *out = malloc((size_t)(t->shape[0] * t->shape[1]) * sizeof(double));
  if (out == NULL) return NULL;
  for (int64_t r = 0; r < t->shape[0]; r++)
    for (int64_t c = 0; c < t->shape[1]; c++)
      out[r * t->shape[1] + c] = tp_codec_load(t->dtype, t->data, r * t->stride[0] + c);
  return out;
}

static int reference_make(reference *r, const tp_gemm_desc *d) {
  const size_t count = (size_t)(d->m * d->n);
  r->y = malloc(count * sizeof(double));
  r->x = malloc(count * sizeof(double));
  r->mag = malloc(count * sizeof(double));
  double *a = decoded(&d->a), *b = decoded(&d->b);
  const int ok = r->y && r->x && r->mag && a && b;
  for (int64_t i = 0; ok && i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      const double *arow = a + i * d->k, *brow = b + j * d->k;
      double acc = 0.0, mag = 0.0;
      for (int64_t kk = 0; kk < d->k; kk++) {
        const double prod = scale_of(d, i, j, kk) * arow[kk] * brow[kk];
        acc += prod;
        mag += fabs(prod);
      }
      const double bias = tp_codec_load(d->bias.dtype, d->bias.data, j);
      const double x = (double)d->alpha * acc + bias;
      r->x[i * d->n + j] = x;
      r->y[i * d->n + j] = x / (1.0 + exp(-x));
      r->mag[i * d->n + j] = fabs((double)d->alpha) * mag + fabs(bias);
    }
  free(a);
  free(b);
  return ok;
}

static void reference_free(reference *r) {
  free(r->y);
  free(r->x);
  free(r->mag);
}

/* |got - want| within what correct f32 arithmetic allows:
 *   x = alpha*acc + bias is off by at most g * mag, g = (K + 16) u_acc
 *     (a sum of K products in any order, plus the roundings of alpha and
 *     the bias add); silu's slope lies in [-0.1, 1.1], so y is off by
 *     1.1 g mag, plus 16 f32 ulps of |y| for exp, the add and the divide;
 *   rounding to D adds u_out |y| and, near zero, half D's smallest
 *     subnormal.
 * u_acc is 2^-24, except for 8-bit inputs on the GPU: Hopper's fp8 wgmma
 * keeps about 14 bits of its running sum. */
static int within_bound(double got, double want, double mag, tp_dtype out, int64_t k,
                        int acc_bits) {
  double u_out = 0x1.0p-24, eta = 0x1.0p-150;
  if (out == TP_DTYPE_BF16) u_out = 0x1.0p-8, eta = 0x1.0p-134;
  if (out == TP_DTYPE_F16) u_out = 0x1.0p-11, eta = 0x1.0p-25;
  const double g = ((double)k + 16.0) * ldexp(1.0, -acc_bits);
  const double f32_eval = 1.1 * g * mag + 16.0 * 0x1.0p-24 * fabs(want);
  return fabs(got - want) <= u_out * fabs(want) + (1.0 + u_out) * f32_eval + eta;
}

/* Elements of D outside their bound against want[] (NaN counts); reports
 * the first one when `label` is given. */
static int64_t count_bad(const tp_gemm_desc *d, const double *want, const double *mag,
                         int acc_bits, const char *label) {
  int64_t bad = 0;
  for (int64_t i = 0; i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      const double got = tp_codec_load(d->d.dtype, d->d.data, i * d->d.stride[0] + j);
      const size_t e = (size_t)(i * d->n + j);
      if (within_bound(got, want[e], mag[e], d->d.dtype, d->k, acc_bits)) continue;
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
    const int element = off / pitch < (size_t)d->shape[0] && off % pitch < (size_t)d->shape[1] * esize;
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
    if (p->buf[i] == NULL) continue;
    if (tp_device_alloc(&dc->buf[i], p->bytes[i]) != TP_OK ||
        tp_device_copy_to(dc->buf[i], p->buf[i], p->bytes[i]) != TP_OK)
      return 0;
  }
  dc->desc.a.data = dc->buf[BUF_A];
  dc->desc.b.data = dc->buf[BUF_B];
  dc->desc.d.data = dc->buf[BUF_D];
  dc->desc.bias.data = dc->buf[BUF_BIAS];
  dc->desc.a_scale.data = dc->buf[BUF_A_SCALE];
  dc->desc.b_scale.data = dc->buf[BUF_B_SCALE];
  return 1;
}

static void device_copy_free(device_copy *dc) {
  for (int i = 0; i < NUM_BUFS; i++) tp_device_free(dc->buf[i]);
}

/* Plans payload x bias_silu, poisons D, runs and checks p (on the device
 * copy dc on the GPU). */
static void plan_run_check(const char *what, const char *payload, tp_backend backend, problem *p,
                           const reference *r, const device_copy *dc, int self_check) {
  const int on_gpu = backend == TP_BACKEND_CUDA;
  const tp_gemm_desc *run_desc = on_gpu ? &dc->desc : &p->desc;
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, payload, "bias_silu", run_desc, backend);
  if (st != TP_OK) {
    CHECK(0, "%s: plan: %s", what, tp_error_message());
    return;
  }
  CHECK(tp_plan_backend(plan) == backend, "%s: planned for %s", what,
        tp_backend_name(tp_plan_backend(plan)));
  /* D poisoned: an element the run does not write stays NaN and fails. */
  if (on_gpu) {
    st = tp_device_memset(dc->buf[BUF_D], 0xFF, p->bytes[BUF_D]);
    if (st == TP_OK) st = tp_plan_run(plan, run_desc, NULL);
    if (st == TP_OK) st = tp_device_synchronize(NULL);
    if (st == TP_OK) st = tp_device_copy_from(p->buf[BUF_D], dc->buf[BUF_D], p->bytes[BUF_D]);
  } else {
    memset(p->buf[BUF_D], 0xFF, p->bytes[BUF_D]);
    st = tp_plan_run(plan, run_desc, NULL);
  }
  tp_plan_destroy(plan);
  if (st != TP_OK) {
    CHECK(0, "%s: run: %s", what, tp_error_message());
    return;
  }
  const int acc_bits = on_gpu && tp_codec_bits(p->desc.a.dtype) <= 8 ? 14 : 24;
  const int64_t bad = count_bad(&p->desc, r->y, r->mag, acc_bits, what);
  CHECK(bad == 0, "%s: %lld of %lld elements outside their bound", what, (long long)bad,
        (long long)(p->desc.m * p->desc.n));
  CHECK(padding_intact(p), "%s: the run wrote into D's row padding", what);
  if (self_check) /* the bound tells silu from no silu */
    CHECK(count_bad(&p->desc, r->x, r->mag, acc_bits, NULL) > 0,
          "%s: self-check: a D without silu would have passed", what);
}

/* One random problem through payload x bias_silu on `backend`, checked;
 * blockwise_fp8's with its scale tensors. */
static void run_case(const char *payload, tp_backend backend, int64_t m, int64_t n, int64_t k,
                     tp_dtype in, tp_dtype out, tp_dtype bias, float alpha, int self_check) {
  char what[192];
  snprintf(what, sizeof what, "%s %s %lldx%lldx%lld %s->%s bias %s alpha %g", payload,
           tp_backend_name(backend), (long long)m, (long long)n, (long long)k,
           tp_codec_name(in), tp_codec_name(out), tp_codec_name(bias), (double)alpha);
  const int scaled = strcmp(payload, "blockwise_fp8") == 0;
  problem p;
  reference r = {NULL, NULL, NULL};
  device_copy dc;
  memset(&dc, 0, sizeof dc);
  if (backend == TP_BACKEND_CUDA) printf("  %s\n", what); /* progress, a line per GPU case */
  if (!problem_make(&p, m, n, k, in, out, bias, alpha, scaled) || !reference_make(&r, &p.desc))
    CHECK(0, "%s: out of host memory", what);
  else if (backend == TP_BACKEND_CUDA && !device_copy_make(&dc, &p))
    CHECK(0, "%s: device buffers: %s", what, tp_error_message());
  else
    plan_run_check(what, payload, backend, &p, &r, &dc, self_check);
  device_copy_free(&dc);
  reference_free(&r);
  problem_free(&p);
}

/* tp_plan_create refuses desc with `status`, naming bias_silu and `needle`. */
static void expect_refused(const tp_gemm_desc *desc, tp_status status, const char *needle) {
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, "standard", "bias_silu", desc, TP_BACKEND_CPU);
  CHECK(st == status && plan == NULL, "expected '%s' (%s), got '%s': %s",
        tp_status_string(status), needle, tp_status_string(st), tp_error_message());
  if (st != TP_OK) {
    CHECK(strstr(tp_error_message(), "epilogue 'bias_silu'") != NULL &&
              strstr(tp_error_message(), needle) != NULL,
          "message '%s' lacks '%s'", tp_error_message(), needle);
  }
  tp_plan_destroy(plan);
}

static void check_refusals(void) {
  problem p;
  if (!problem_make(&p, 16, 24, 32, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, 1.0f, 0)) {
    CHECK(0, "out of host memory");
    return;
  }
  tp_gemm_desc d = p.desc;
  d.bias.dtype = TP_DTYPE_NONE;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "the bias is missing");
  d = p.desc;
  d.bias.dtype = TP_DTYPE_F16; /* neither f32 nor D's bf16 */
  expect_refused(&d, TP_ERR_UNSUPPORTED, "the bias is f16; it must be f32 or D's dtype (bf16)");
  d = p.desc;
  d.d.dtype = TP_DTYPE_E4M3;
  expect_refused(&d, TP_ERR_UNSUPPORTED, "D is e4m3");
  d = p.desc;
  d.c = d.d;
  d.beta = 1.0f;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "bias_silu reads no C");
  problem_free(&p);
}

/* ------------------------------------------------------------------ main */

/* A registry in a fresh folder under $TMPDIR; its path into path. */
static int write_registry(const char *plugin, char *dir, size_t dir_size, char *path,
                          size_t path_size) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, dir_size, "%s/bias_silu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(dir) == NULL) return 0;
  snprintf(path, path_size, "%s/registry.ini", dir);
  FILE *f = fopen(path, "w");
  if (f == NULL) return 0;
  fprintf(f,
          "; the installed standard and blockwise_fp8 payloads and the bias_silu example\n"
          "[standard]\nkind = payload\nlibrary = %s/tp_standard.so\n\n"
          "[blockwise_fp8]\nkind = payload\nlibrary = %s/tp_blockwise_fp8.so\n\n"
          "[bias_silu]\nkind = epilogue\nlibrary = %s\n",
          TP_PLUGINDIR, TP_PLUGINDIR, plugin);
  return fclose(f) == 0;
}

int main(int argc, char **argv) {
  /* Line-buffered even into a log file: a slow or stuck GPU run still shows
   * how far it got. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc != 2 || argv[1][0] != '/') {
    fprintf(stderr, "usage: %s /absolute/path/to/tp_bias_silu.so\n", argv[0]);
    return 2;
  }
  char dir[1024], path[1100];
  if (!write_registry(argv[1], dir, sizeof dir, path, sizeof path)) {
    perror("test_bias_silu: cannot write the registry");
    return 1;
  }
  tp_status st = tp_registry_open(&reg, path);
  remove(path);
  rmdir(dir);
  if (st != TP_OK) {
    fprintf(stderr, "test_bias_silu: %s\n", tp_error_message());
    return 1;
  }
  const char *names[3] = {"standard", "blockwise_fp8", "bias_silu"};
  int device_code[3];
  for (int i = 0; i < 3; i++) {
    tp_plugin_info info;
    if (tp_registry_find(reg, names[i], &info) != TP_OK || info.status != TP_OK) {
      fprintf(stderr, "test_bias_silu: plugin %s is unusable: %s\n", names[i],
                      info.status != TP_OK ? info.error : tp_error_message());
      tp_registry_close(reg);
      return 1;
    }
    device_code[i] = info.has_device_code;
    printf("%-13s %s (device code: %s)\n", names[i], info.library,
           info.has_device_code ? "yes" : "no");
  }

  check_refusals();

  static const tp_dtype outs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};
  static const int64_t cpu_shapes[][3] = {{1, 1, 1}, {7, 9, 13}, {37, 129, 70}, {130, 257, 64},
                                          {200, 100, 300}};
  static const tp_dtype cpu_inputs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_E4M3};
  int cases = 0;
  for (size_t s = 0; s < sizeof cpu_shapes / sizeof cpu_shapes[0]; s++)
    for (size_t i = 0; i < sizeof cpu_inputs / sizeof cpu_inputs[0]; i++)
      for (size_t o = 0; o < 3; o++, cases++)
        run_case("standard", TP_BACKEND_CPU, cpu_shapes[s][0], cpu_shapes[s][1],
                 cpu_shapes[s][2], cpu_inputs[i], outs[o], cases % 2 ? outs[o] : TP_DTYPE_F32,
                 cases % 3 ? 0.75f : -1.25f, cases == 0 || s == 3);
  /* blockwise_fp8: K past one scale block, and not a multiple of it. */
  static const int64_t scaled_shapes[][3] = {{1, 1, 1}, {37, 129, 300}, {130, 257, 129}};
  for (size_t s = 0; s < sizeof scaled_shapes / sizeof scaled_shapes[0]; s++)
    for (size_t o = 0; o < 3; o++, cases++)
      run_case("blockwise_fp8", TP_BACKEND_CPU, scaled_shapes[s][0], scaled_shapes[s][1],
               scaled_shapes[s][2], TP_DTYPE_E4M3, outs[o], o % 2 ? outs[o] : TP_DTYPE_F32,
               o == 1 ? -1.25f : 0.75f, s == 1);
  printf("CPU backend: %d problems checked\n", cases);

  tp_device_props props;
  if (tp_device_info(&props) != TP_OK) {
    printf("no GPU (%s): the CUDA backend is not checked\n", tp_error_message());
  } else if (!device_code[0] || !device_code[1] || !device_code[2]) {
    printf("%s carries no device code (built without nvcc): the CUDA backend is not checked\n",
           !device_code[0] ? "standard" : !device_code[1] ? "blockwise_fp8" : "bias_silu");
  } else {
    static const int64_t gpu_shapes[][3] = {{1, 1, 1},       {7, 7, 7},        {127, 129, 129},
                                            {129, 257, 1009}, {1000, 1000, 1000}, {4097, 513, 257}};
    static const tp_dtype gpu_inputs[] = {TP_DTYPE_BF16, TP_DTYPE_E4M3};
    const size_t nshapes = sizeof gpu_shapes / sizeof gpu_shapes[0];
    cases = 0;
    for (size_t s = 0; s < nshapes; s++)
      for (size_t i = 0; i < 2; i++)
        for (size_t o = 0; o < 3; o++) {
          /* Every combination on the small shapes, one D per input on the large ones. */
          if (s >= 3 && o != (s + i) % 3) continue;
          run_case("standard", TP_BACKEND_CUDA, gpu_shapes[s][0], gpu_shapes[s][1],
                   gpu_shapes[s][2], gpu_inputs[i], outs[o], cases % 2 ? outs[o] : TP_DTYPE_F32,
                   cases % 3 ? 0.75f : -1.25f, s == 2);
          cases++;
        }
    /* blockwise_fp8 x bias_silu: every D on the small shapes, one each on
     * the large ones. */
    for (size_t s = 0; s < nshapes; s++)
      for (size_t o = 0; o < 3; o++) {
        if (s >= 3 && o != s % 3) continue;
        run_case("blockwise_fp8", TP_BACKEND_CUDA, gpu_shapes[s][0], gpu_shapes[s][1],
                 gpu_shapes[s][2], TP_DTYPE_E4M3, outs[o], o % 2 ? outs[o] : TP_DTYPE_F32,
                 o == 1 ? -1.25f : 0.75f, s == 2);
        cases++;
      }
    printf("CUDA backend (%s): %d problems checked\n", props.name, cases);
  }
  tp_registry_close(reg);
  printf("%s\n", failures == 0 ? "PASS" : "FAIL");
  return failures == 0 ? 0 : 1;
}
