/* test_bias_silu.c: checks bias_silu through the installed tilepipe and its
 * f64 reference (libtilepipe_reference, tilepipe/reference.h).
 *
 *   test_bias_silu /abs/path/tp_bias_silu.so     (the Makefile's `make check`)
 *
 * Opens a registry (tp_ref_registry_open) listing the installed standard,
 * blockwise_fp8 and block_scaled payloads (TP_PLUGINDIR/tp_*.so, from
 * pkg-config) and the bias_silu plugin given, then:
 *   - what the plan refuses: no bias, a bias of the wrong dtype, an
 *     unsupported D, a C it would ignore;
 *   - on the CPU backend, random problems over ragged shapes, with bf16, f16
 *     and e4m3 inputs, D in bf16, f16 and f32, the bias in f32 or D's dtype,
 *     alpha not 1; the same epilogue after blockwise_fp8 (e4m3 with f32
 *     scales per 1x128 of A and 128x128 of B, K not a multiple of 128) and
 *     after block_scaled's MXFP8 W8A16 (bf16 A, e4m3 B with a ue8m0 scale
 *     per 32 of K);
 *   - on the GPU (when tp_device_info finds one), the same for the CUDA
 *     backend, each payload x bias_silu fused at plan time, standard with
 *     bf16 and e4m3 inputs, larger shapes included. Without a GPU it says so
 *     and checks only the CPU part.
 * Every problem is the reference library's, shaped by its payload's own
 * description (the scaled payloads' scale tensors included), each from a
 * seed of its own after the run's, which is 1 unless BIAS_SILU_SEED=S picks
 * another, and is printed. tp_ref_problem_run poisons D (0xFF: NaN in every dtype)
 * before each run; every element is checked against the reference's f64
 * alpha * A x B (the scales applied as the payload's maps say) with the
 * bias and silu applied here in double, within a bound derived from unit
 * roundoffs (see expect_bias_silu); D's row padding must still be 0xFF. A
 * self-check shows the bound rejects a D computed without the silu. Exit 0
 * when everything passed on both backends, 77 (skip) when the CPU's passed
 * but the CUDA backend could not be checked, 1 on a failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tilepipe/device.h>
#include <tilepipe/reference.h>
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

static tp_registry *reg;
static uint64_t next_seed; /* each problem's, counting up from the run's */

/* A random problem of payload x bias_silu: rows padded by 3 elements and on
 * to 16 bytes (TMA's rule, so one layout serves both backends); NULL after
 * reporting why not. */
static tp_ref_problem *problem_make(const char *payload, int64_t m, int64_t n, int64_t k,
                                   tp_dtype in, tp_dtype out, tp_dtype bias, float alpha,
                                   const char *what) {
  const tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg,
                                    .payload = payload, .m = m, .n = n, .k = k, .a = in,
                                    .b = in, .d = out, .bias = bias, .pad = 3, .align_rows = 1,
                                    .alpha = alpha};
  char err[512];
  tp_ref_problem *p = NULL;
  if (tp_ref_problem_create(&p, &spec, next_seed++, err, sizeof err) != TP_OK)
    CHECK(0, "%s: problem: %s", what, err);
  return p;
}

/* The expected values of bias_silu, from the reference's x0 = alpha * acc
 * (TP_REF_STORE): y = silu(x), x = x0 + bias[n]; into *wrong, when not
 * NULL, x itself (the self-check's wrong answer). Their bound under tol
 * (tp_ref_compare's g * mag, g = (K + 16) u_acc: a sum of K products in
 * any order, plus the roundings of alpha and the bias add): silu's slope
 * lies in [-0.1, 1.1], so y is off by 1.1 times x's bound, plus 16 f32
 * ulps of |y| for exp, the add and the divide. Every element is judged
 * alone (tol->rel INFINITY): silu multiplies the relative error of a
 * negative x by up to |x|, which the normwise bound does not describe. */
static tp_status expect_bias_silu(tp_ref_problem *p, tp_ref_tolerance *tol, double **wrong,
                                  char *err, size_t errlen) {
  tp_status st = tp_ref_problem_expect(p, TP_REF_STORE, err, errlen);
  if (st != TP_OK) return st;
  const tp_gemm_desc *d = tp_ref_problem_desc(p);
  double *mag, *ref = tp_ref_problem_expected(p, &mag);
  if (wrong != NULL && (*wrong = malloc(sizeof(double) * (size_t)(d->m * d->n))) == NULL) {
    snprintf(err, errlen, "out of host memory");
    return TP_ERR_OUT_OF_MEMORY;
  }
  for (int64_t i = 0; i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      const int64_t e = i * d->n + j;
      const double bias = tp_dtype_load(d->bias.dtype, d->bias.data, j);
      const double x = ref[e] + bias, y = x / (1.0 + exp(-x));
      if (wrong != NULL) (*wrong)[e] = x;
      ref[e] = y;
      mag[e] = 1.1 * (mag[e] + fabs(bias)) + 16.0 * 0x1.0p-24 * fabs(y) / tol->g;
    }
  tol->rel = INFINITY;
  return TP_OK;
}

/* One random problem through payload x bias_silu on `backend`, checked;
 * with self_check, the bound must reject a D without the silu. */
static void run_case(const char *payload, tp_backend backend, int64_t m, int64_t n, int64_t k,
                     tp_dtype in, tp_dtype out, tp_dtype bias, float alpha, int self_check) {
  char what[192], err[512];
  snprintf(what, sizeof what, "%s %s %lldx%lldx%lld %s->%s bias %s alpha %g", payload,
           tp_backend_name(backend), (long long)m, (long long)n, (long long)k,
           tp_dtype_name(in), tp_dtype_name(out), tp_dtype_name(bias), (double)alpha);
  if (backend == TP_BACKEND_CUDA) printf("  %s\n", what); /* progress, a line per GPU case */
  tp_ref_problem *p = problem_make(payload, m, n, k, in, out, bias, alpha, what);
  if (p == NULL) return;
  tp_ref_tolerance tol = tp_ref_problem_tolerance(p, backend);
  double *wrong = NULL;
  tp_status st = expect_bias_silu(p, &tol, self_check ? &wrong : NULL, err, sizeof err);
  const tp_gemm_desc *d = tp_ref_problem_desc(p);
  tp_ref_report rep = {.struct_size = sizeof rep};
  if (st == TP_OK)
    st = tp_ref_problem_verify(p, reg, payload, "bias_silu", backend, &tol, &rep, err, sizeof err);
  if (st == TP_OK) tp_ref_report_format(&rep, err, sizeof err);
  CHECK(st == TP_OK && rep.pass, "%s: %s", what, err);
  if (st == TP_OK && wrong != NULL) { /* the bound tells silu from no silu */
    double *mag;
    tp_ref_problem_expected(p, &mag);
    tp_ref_report off = {.struct_size = sizeof off};
    CHECK(tp_ref_compare(&d->d, m, n, wrong, mag, NULL, &tol, &off) == TP_OK && off.bad > 0,
          "%s: self-check: a D without silu would have passed", what);
  }
  free(wrong);
  tp_ref_problem_destroy(p);
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
  tp_ref_problem *p = problem_make("standard", 16, 24, 32, TP_DTYPE_BF16, TP_DTYPE_BF16,
                                   TP_DTYPE_F32, 1.0f, "the refusals");
  if (p == NULL) return;
  const tp_gemm_desc *made = tp_ref_problem_desc(p);
  tp_gemm_desc d = *made;
  d.bias.dtype = TP_DTYPE_NONE;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "the bias is missing");
  d = *made;
  d.bias.dtype = TP_DTYPE_F16; /* neither f32 nor D's bf16 */
  expect_refused(&d, TP_ERR_UNSUPPORTED, "the bias is f16; it must be f32 or D's dtype (bf16)");
  d = *made;
  d.d.dtype = TP_DTYPE_E4M3;
  expect_refused(&d, TP_ERR_UNSUPPORTED, "D is e4m3");
  d = *made;
  d.c = d.d;
  d.beta = 1.0f;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "bias_silu reads no C");
  tp_ref_problem_destroy(p);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv) {
  /* Line-buffered even into a log file: a slow or stuck GPU run still shows
   * how far it got. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc != 2 || argv[1][0] != '/') {
    fprintf(stderr, "usage: %s /absolute/path/to/tp_bias_silu.so\n", argv[0]);
    return 2;
  }
  const char *seed_text = getenv("BIAS_SILU_SEED");
  next_seed = seed_text && *seed_text ? strtoull(seed_text, NULL, 0) : 1;
  printf("seed %llu (BIAS_SILU_SEED=%llu repeats this run)\n", (unsigned long long)next_seed,
         (unsigned long long)next_seed);
  char ini[8192], err[512];
  const int len =
      snprintf(ini, sizeof ini,
               "; the installed payloads and the bias_silu example\n"
               "[standard]\nkind = payload\nlibrary = %s/tp_standard.so\n\n"
               "[blockwise_fp8]\nkind = payload\nlibrary = %s/tp_blockwise_fp8.so\n\n"
               "[block_scaled]\nkind = payload\nlibrary = %s/tp_block_scaled.so\n\n"
               "[bias_silu]\nkind = epilogue\nlibrary = %s\n",
               TP_PLUGINDIR, TP_PLUGINDIR, TP_PLUGINDIR, argv[1]);
  if (len < 0 || (size_t)len >= sizeof ini) {
    fprintf(stderr, "test_bias_silu: the registry's paths are too long\n");
    return 2;
  }
  if (tp_ref_registry_open(&reg, ini, err, sizeof err) != TP_OK) {
    fprintf(stderr, "test_bias_silu: %s\n", err);
    return 1;
  }
  const char *names[4] = {"standard", "blockwise_fp8", "block_scaled", "bias_silu"};
  int device_code[4];
  for (int i = 0; i < 4; i++) {
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
  /* block_scaled's default problem, MXFP8 W8A16 (bf16 A, e4m3 B with a
   * scale per 32 of K): K a multiple of 32. */
  static const int64_t mx_shapes[][3] = {{1, 1, 32}, {37, 129, 96}, {130, 257, 320}};
  for (size_t s = 0; s < sizeof mx_shapes / sizeof mx_shapes[0]; s++)
    for (size_t o = 0; o < 3; o++, cases++)
      run_case("block_scaled", TP_BACKEND_CPU, mx_shapes[s][0], mx_shapes[s][1], mx_shapes[s][2],
               TP_DTYPE_NONE, outs[o], o % 2 ? outs[o] : TP_DTYPE_F32, o == 2 ? -1.25f : 0.75f,
               s == 1);
  printf("CPU backend: %d problems checked\n", cases);

  tp_device_props props;
  const int gpu_checked =
      tp_device_info(&props) == TP_OK && device_code[0] && device_code[1] && device_code[2] &&
      device_code[3];
  if (tp_device_info(&props) != TP_OK) {
    printf("no GPU (%s): the CUDA backend is not checked\n", tp_error_message());
  } else if (!device_code[0] || !device_code[1] || !device_code[2] || !device_code[3]) {
    int i = 0;
    while (device_code[i]) i++;
    printf("%s carries no device code (built without nvcc): the CUDA backend is not checked\n",
           names[i]);
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
    /* block_scaled's MXFP8 W8A16 x bias_silu, K rounded up to its 32. */
    for (size_t s = 0; s < nshapes; s++)
      for (size_t o = 0; o < 3; o++) {
        if (s >= 3 && o != (s + 1) % 3) continue;
        run_case("block_scaled", TP_BACKEND_CUDA, gpu_shapes[s][0], gpu_shapes[s][1],
                 (gpu_shapes[s][2] + 31) / 32 * 32, TP_DTYPE_NONE, outs[o],
                 o % 2 ? outs[o] : TP_DTYPE_F32, o == 2 ? -1.25f : 0.75f, s == 2);
        cases++;
      }
    printf("CUDA backend (%s): %d problems checked\n", props.name, cases);
  }
  tp_registry_close(reg);
  /* 77, a skip: the CPU backend passed, the CUDA backend was not checked. */
  const int rc = failures != 0 ? 1 : gpu_checked ? 0 : 77;
  puts(rc == 1 ? "FAIL" : rc == 0 ? "PASS" : "SKIP (the CUDA backend was not checked)");
  return rc;
}
