/* test_int8_w8a8.c: checks int8_w8a8 through the installed tilepipe and its
 * f64 reference (libtilepipe_reference, tilepipe/reference.h).
 *
 *   test_int8_w8a8 /abs/path/tp_int8_w8a8.so [/abs/path/tp_bias_silu.so]
 *
 * (the Makefile's `make check`; BIAS_SILU=... adds the second argument).
 * Opens a registry (tp_ref_registry_open) listing the payload, the
 * installed store and residual epilogues (TP_PLUGINDIR, from pkg-config;
 * each one only if it is there) and bias_silu when given, then:
 *   - the registry keys (the plugin kit's tuning keys): taken in range,
 *     refused outside it or beyond the payload's kernels (tile K 128, no
 *     tile wider than 192), an unknown key refused;
 *   - what the plan refuses: A or B not s8, a scale missing, of the wrong
 *     dtype, layout, shape or stride, and a CUDA plan while the payload
 *     carries no kernel;
 *   - on the CPU backend, random problems over ragged shapes (M, N, K among
 *     1, 7, 16, 127, 129, 300, 1009) through every epilogue found: store (D
 *     bf16, f16, f32), residual (C of D's dtype and f32 with beta != 0, and
 *     C that is D's own memory), bias_silu (an f32 bias); a_scale as [M] or
 *     [M, 1], b_scale as [N] or [1, N]; s8 inputs uniform over all 256
 *     codes, and once only -128 and 127 (the largest products);
 *   - on the GPU, the same through the CUDA backend when tp_device_info
 *     finds one and both plugins carry device code; otherwise it says why
 *     and checks the CPU only.
 * Every problem is the reference library's, shaped by the payload's own
 * description (its problem slot): new random data, each from a seed of its
 * own after the run's, which is 1 unless INT8_W8A8_SEED=S picks another,
 * and printed. tp_ref_problem_run poisons D (0xFF:
 * NaN in every dtype) before each run; every element is compared with the
 * f64 reference (the integer products exactly, then scales and epilogue in
 * double; bias_silu's epilogue applied here) within a bound derived from
 * unit roundoffs (see tolerance), which a self-check shows rejects a D
 * computed without b_scale; D's row padding must still be 0xFF. Exit 0
 * when everything passed on both backends, 77 (skip) when the CPU's passed
 * but the CUDA backend could not be checked, 1 on a failure. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The payload's problem for s: rows padded by 3 elements and on to 16
 * bytes (TMA's rule, so one layout serves both backends), C's rows by 8
 * so that its strides differ from D's; NULL after reporting why not. */
static tp_ref_problem *problem_make(const spec *s, const char *what) {
  const int residual = s->epi == EPI_RESIDUAL;
  const tp_ref_problem_spec rs = {
      .struct_size = sizeof rs, .registry = reg, .payload = "int8_w8a8", .m = s->m, .n = s->n,
      .k = s->k, .d = s->d, .c = residual && !s->c_is_d ? s->c : TP_DTYPE_NONE,
      .c_is_d = residual && s->c_is_d,
      .bias = s->epi == EPI_BIAS_SILU ? TP_DTYPE_F32 : TP_DTYPE_NONE, .pad = 3, .c_pad = 8,
      .align_rows = 1, .alpha = s->alpha, .beta = residual ? s->beta : 0.0f};
  char err[512];
  tp_ref_problem *p = NULL;
  if (tp_ref_problem_create(&p, &rs, next_seed++, err, sizeof err) != TP_OK)
    CHECK(0, "%s: problem: %s", what, err);
  return p;
}

/* Every s8 code of t pushed to an end of the range: -128 or 127. */
static void to_extremes(const tp_tensor *t) {
  for (int64_t r = 0; r < t->shape[0]; r++)
    for (int64_t c = 0; c < t->shape[1]; c++) {
      const int64_t at = tp_ref_index(t, r, c);
      tp_dtype_store(t->dtype, t->data, at, tp_dtype_load(t->dtype, t->data, at) < 0 ? -128 : 127);
    }
}

/* The per-element bound a correct f32 evaluation keeps (tp_ref_compare's),
 * tightened: the products are integers, summed exactly in partial sums of
 * at least 32 of them (a CPU k-block, a wgmma k-step), so only the sums of
 * those round: g = (ceil(K/32) + 16) u, the 16 for the roundings of the
 * scales, alpha, beta*C and the bias add. u = 2^-24 on both backends: an
 * integer sum has no accumulator roundoff. Every element is judged alone
 * (no normwise bound): from random seeds a 1x1 D may cancel in C's add or
 * lie among f16's subnormals, which a statistical bound does not cover. */
static tp_ref_tolerance tolerance(tp_ref_problem *p, tp_backend backend) {
  tp_ref_tolerance tol = tp_ref_problem_tolerance(p, backend);
  tol.g = ((double)((tp_ref_problem_desc(p)->k + 31) / 32) + 16.0) * tol.u_acc;
  tol.rel = INFINITY;
  return tol;
}

/* bias_silu's epilogue on values x = alpha * acc of d (m x n): y = silu(x +
 * bias[n]). Its bound, when mag is given: silu's slope lies in [-0.1,
 * 1.1], so 1.1 times x's, plus 16 f32 ulps of |y| for exp, the add and the
 * divide, as a magnitude of tp_ref_compare's bound (g * mag). */
static void bias_silu(const tp_gemm_desc *d, double *ref, double *mag,
                      const tp_ref_tolerance *tol) {
  for (int64_t i = 0; i < d->m; i++)
    for (int64_t j = 0; j < d->n; j++) {
      const int64_t e = i * d->n + j;
      const double bias = tp_dtype_load(d->bias.dtype, d->bias.data, j);
      const double x = ref[e] + bias, y = x / (1.0 + exp(-x));
      ref[e] = y;
      if (mag) mag[e] = 1.1 * (mag[e] + fabs(bias)) + 16.0 * 0x1.0p-24 * fabs(y) / tol->g;
    }
}

/* The self-check's wrong answer: the problem's epilogue on d without
 * b_scale; NULL after reporting why not. */
static double *without_b_scale(tp_ref_problem *p, const spec *s, const char *what) {
  tp_gemm_desc d = *tp_ref_problem_desc(p);
  tp_problem unscaled = *tp_ref_problem_description(p);
  d.b_scale = (tp_tensor){.dtype = TP_DTYPE_NONE};
  unscaled.b_scale = (tp_scale_map){0};
  double *wrong = malloc(sizeof(double) * (size_t)(d.m * d.n));
  char err[256] = "out of memory";
  if (wrong == NULL ||
      tp_ref_gemm(&d, &unscaled, s->epi == EPI_RESIDUAL ? TP_REF_RESIDUAL : TP_REF_STORE, wrong,
                  NULL, err, sizeof err) != TP_OK) {
    CHECK(0, "%s: self-check: %s", what, err);
    free(wrong);
    return NULL;
  }
  if (s->epi == EPI_BIAS_SILU) bias_silu(&d, wrong, NULL, NULL);
  return wrong;
}

/* One random problem through int8_w8a8 x s->epi on `backend`, checked;
 * with self_check, the bound must reject the D of the problem without
 * b_scale. */
static void run_case(tp_backend backend, const spec *s, int self_check) {
  char what[200], err[512];
  snprintf(what, sizeof what, "%s %lldx%lldx%lld %s D %s%s%s%s alpha %g%s",
           tp_backend_name(backend), (long long)s->m, (long long)s->n, (long long)s->k,
           epilogue_names[s->epi], tp_dtype_name(s->d),
           s->epi != EPI_RESIDUAL ? "" : s->c_is_d ? " C=D" : " C ",
           s->epi == EPI_RESIDUAL && !s->c_is_d ? tp_dtype_name(s->c) : "",
           s->scale_rank2 ? " scales [M,1] [1,N]" : "", (double)s->alpha,
           s->extremes ? " (-128/127 only)" : "");
  if (backend == TP_BACKEND_CUDA) printf("  %s\n", what); /* progress, a line per GPU case */
  tp_ref_problem *p = problem_make(s, what);
  if (p == NULL) return;
  tp_gemm_desc *d = tp_ref_problem_desc(p);
  if (s->extremes) {
    to_extremes(&d->a);
    to_extremes(&d->b);
  }
  /* What D must be, computed before the run (C may be D). */
  tp_ref_tolerance tol = tolerance(p, backend);
  tp_status st = tp_ref_problem_expect(p, s->epi == EPI_RESIDUAL ? TP_REF_RESIDUAL : TP_REF_STORE,
                                       err, sizeof err);
  double *wrong = st == TP_OK && self_check ? without_b_scale(p, s, what) : NULL;
  double *mag, *ref = tp_ref_problem_expected(p, &mag);
  if (st == TP_OK && s->epi == EPI_BIAS_SILU) bias_silu(d, ref, mag, &tol);
  if (s->scale_rank2) { /* the same elements: the expected values stay */
    d->a_scale = tp_tensor_matrix(TP_DTYPE_F32, s->m, 1, 1, d->a_scale.data);
    d->b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, s->n, s->n, d->b_scale.data);
  }
  tp_ref_report rep = {.struct_size = sizeof rep};
  if (st == TP_OK)
    st = tp_ref_problem_verify(p, reg, "int8_w8a8", epilogue_names[s->epi], backend, &tol, &rep,
                               err, sizeof err);
  if (st == TP_OK) tp_ref_report_format(&rep, err, sizeof err);
  CHECK(st == TP_OK && rep.pass, "%s: %s", what, err);
  if (st == TP_OK && wrong != NULL) {
    tp_ref_report off = {.struct_size = sizeof off};
    CHECK(tp_ref_compare(&d->d, d->m, d->n, wrong, mag, NULL, &tol, &off) == TP_OK && off.bad > 0,
          "%s: self-check: a D without b_scale would have passed", what);
  }
  free(wrong);
  tp_ref_problem_destroy(p);
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
  tp_ref_problem *p = problem_make(&s, "the GPU's refusals");
  if (p == NULL) return;
  expect_refused_on(TP_BACKEND_CUDA, tp_ref_problem_desc(p), TP_ERR_UNSUPPORTED,
                    "K = 131072: the GPU kernel's s32 sums are exact only for K < 131072");
  tp_ref_problem_destroy(p);
}

static void check_refusals(void) {
  const spec s = {.m = 16, .n = 24, .k = 32, .epi = EPI_STORE, .d = TP_DTYPE_BF16, .alpha = 1.0f};
  tp_ref_problem *p = problem_make(&s, "the refusals");
  if (p == NULL) return;
  const tp_gemm_desc *made = tp_ref_problem_desc(p);
  tp_gemm_desc d = *made;
  d.a.dtype = TP_DTYPE_BF16;
  expect_refused(&d, TP_ERR_UNSUPPORTED, "A is bf16; int8_w8a8 takes s8 A and B");
  d = *made;
  d.b.dtype = TP_DTYPE_E4M3;
  expect_refused(&d, TP_ERR_UNSUPPORTED, "B is e4m3");
  d = *made;
  d.a_scale.dtype = TP_DTYPE_NONE;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale is missing");
  d = *made;
  d.b_scale.dtype = TP_DTYPE_NONE;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "b_scale is missing");
  d = *made;
  d.a_scale.dtype = TP_DTYPE_BF16;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale is bf16; it must be f32");
  d = *made;
  d.a_scale.shape[0] = 15;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has shape [15]; it must be [M] = [16]");
  d = *made;
  d.a_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 16, 16, made->a_scale.data); /* a row */
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has shape [1, 16]");
  d = *made;
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 24, 1, 1, made->b_scale.data); /* a column */
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT,
                 "b_scale has shape [24, 1]; it must be [N] = [24] or [1, N]");
  d = *made;
  d.a_scale.stride[0] = 2; /* plans read no data: the span past the buffer is never used */
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has stride 2 along M");
  d = *made;
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, 24, 24, made->b_scale.data);
  d.b_scale.stride[1] = 0;
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "b_scale has stride 0 along N");
  d = *made;
  d.a_scale = tp_tensor_sf_128x4(TP_DTYPE_F32, 16, 1, made->a_scale.data);
  expect_refused(&d, TP_ERR_INVALID_ARGUMENT, "a_scale has layout");
  /* No kernel: a CUDA plan is refused (by the core, for want of a GPU or
   * of device code) rather than run on the CPU. */
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, "int8_w8a8", "store", made, TP_BACKEND_CUDA);
  tp_plugin_info info;
  if (tp_registry_find(reg, "int8_w8a8", &info) == TP_OK && !info.has_device_code)
    CHECK(st != TP_OK && plan == NULL, "a CUDA plan of a payload without a kernel was made");
  tp_plan_destroy(plan);
  tp_ref_problem_destroy(p);
}

/* ------------------------------------------------------------------ main */

static int file_exists(const char *path) { return access(path, R_OK) == 0; }

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
    char err[512];
    if (tp_ref_registry_open(&r, body, err, sizeof err) != TP_OK) {
      CHECK(0, "'%s': cannot open the registry: %s", cases[i].line, err);
    } else if (tp_registry_find(r, "int8_w8a8", &info) != TP_OK) {
      CHECK(0, "'%s': %s", cases[i].line, tp_error_message());
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
  const uint64_t seed = seed_text && *seed_text ? strtoull(seed_text, NULL, 0) : 1;
  next_seed = seed;
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
  char err[512];
  if (tp_ref_registry_open(&reg, body, err, sizeof err) != TP_OK) {
    fprintf(stderr, "test_int8_w8a8: %s\n", err);
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
  int gpu_checked = 0;
  if (tp_device_info(&props) != TP_OK) {
    printf("no GPU (%s): the CUDA backend is not checked\n", tp_error_message());
  } else if (!payload_gpu) {
    printf("int8_w8a8 carries no kernel (its GPU path is not built): the CUDA backend is not "
           "checked\n");
  } else {
    check_gpu_refusals();
    printf("CUDA backend (%s): %d problems checked\n", props.name,
           run_all(TP_BACKEND_CUDA, gpu_usable));
    gpu_checked = 1;
  }
  tp_registry_close(reg);
  /* 77, a skip: the CPU backend passed, the CUDA backend was not checked. */
  const int rc = failures != 0 ? 1 : gpu_checked ? 0 : 77;
  puts(rc == 1 ? "FAIL" : rc == 0 ? "PASS" : "SKIP (the CUDA backend was not checked)");
  return rc;
}
