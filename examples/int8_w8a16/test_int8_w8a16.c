/* test_int8_w8a16.c: checks int8_w8a16 through the installed tilepipe and
 * its f64 reference (libtilepipe_reference, tilepipe/reference.h).
 *
 *   test_int8_w8a16 /abs/path/tp_int8_w8a16.so
 *
 * (the Makefile's `make check`). Opens a registry (tp_ref_registry_open)
 * listing the payload and the installed store and residual epilogues
 * (TP_PLUGINDIR, from pkg-config), then:
 *   - the registry keys: the plugin kit's tuning keys taken in range, a
 *     tile K other than the kernels' 64 refused;
 *   - what the plan refuses: A not bf16, B not s8, an a_scale, a b_scale
 *     missing or of the wrong dtype or shape;
 *   - on the CPU backend, random problems over ragged shapes (M, N among 1,
 *     7, 64, 127, 129, 300; K among 16, 64, 1008, 4096: rows of s8 B are
 *     whole 16 bytes, the CUDA backend's rule) through store (D bf16, f16,
 *     f32) and residual (C of D's dtype, C in f32, C that is D's own
 *     memory), b_scale as [N] or [1, N];
 *   - on the GPU, the same through the CUDA backend when tp_device_info
 *     finds one and the payload carries device code, plus shapes of more
 *     tiles than SMs whose last tile row holds one warpgroup's rows of M
 *     (the two warpgroups convert together in some tiles, the first alone
 *     in others), in the planner's kernels, in 2-CTA clusters and in 3
 *     splits of K (tuned sections of the registry), and a split-K decode
 *     M; the reference computes every element of each.
 * Every problem is the reference library's, shaped by the payload's own
 * description (its problem slot): new random data from a seed of its own
 * after the run's, which is 1 unless INT8_W8A16_SEED=S picks another, and
 * is printed. D is poisoned (NaN) before each run,
 * every element is judged against the f64 reference within its bound, and
 * D's row padding must be intact; a self-check shows the bound rejects a
 * D computed without b_scale. Exit 0 when everything passed on both
 * backends, 77 (skip) when the CPU's passed but the CUDA backend could not
 * be checked, 1 on a failure. */
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

static uint64_t next_seed; /* each problem's, counting up from the run's */

/* One case: M x N x K through store or residual, D of dtype d; for the
 * residual, C of dtype c or (c_is_d) D's own memory; through the payload
 * section `section` (NULL: int8_w8a16, the kernels the planner picks). */
typedef struct spec {
  int64_t m, n, k;
  int residual, c_is_d, b_scale_row;
  tp_dtype d, c;
  const char *section;
} spec;

/* Runs s on backend and judges D; with self_check, the bound must also
 * reject the expected values of the same problem without b_scale. */
static void run_case(tp_registry *reg, tp_backend backend, const spec *s, int self_check) {
  char what[200], err[512];
  const char *section = s->section ? s->section : "int8_w8a16";
  snprintf(what, sizeof what, "%s %s %lldx%lldx%lld %s D %s%s%s%s", section,
           tp_backend_name(backend),
           (long long)s->m, (long long)s->n, (long long)s->k, s->residual ? "residual" : "store",
           tp_dtype_name(s->d), !s->residual ? "" : s->c_is_d ? " C=D" : " C ",
           s->residual && !s->c_is_d ? tp_dtype_name(s->c) : "",
           s->b_scale_row ? " b_scale [1, N]" : "");
  const tp_ref_problem_spec rs = {
      .struct_size = sizeof rs, .registry = reg, .payload = section, .m = s->m, .n = s->n,
      .k = s->k, .d = s->d, .c = s->residual && !s->c_is_d ? s->c : TP_DTYPE_NONE,
      .c_is_d = s->residual && s->c_is_d, .pad = 8, .c_pad = 24, .align_rows = 1,
      .alpha = s->residual ? -0.75f : 1.0f, .beta = s->residual ? 0.5f : 0.0f};
  tp_ref_problem *p = NULL;
  tp_status st = tp_ref_problem_create(&p, &rs, next_seed++, err, sizeof err);
  const tp_ref_epilogue epi = s->residual ? TP_REF_RESIDUAL : TP_REF_STORE;
  if (st == TP_OK) st = tp_ref_problem_expect(p, epi, err, sizeof err);
  tp_gemm_desc *d = p ? tp_ref_problem_desc(p) : NULL;
  double *wrong = NULL;
  if (st == TP_OK && self_check) { /* the same problem, its scales ignored */
    tp_gemm_desc unscaled = *d;
    tp_problem plain = *tp_ref_problem_description(p);
    unscaled.b_scale = (tp_tensor){.dtype = TP_DTYPE_NONE};
    plain.b_scale = (tp_scale_map){0};
    wrong = malloc(sizeof(double) * (size_t)(d->m * d->n));
    st = wrong ? tp_ref_gemm(&unscaled, &plain, epi, wrong, NULL, err, sizeof err)
               : TP_ERR_OUT_OF_MEMORY;
  }
  if (st == TP_OK && s->b_scale_row) /* the same elements: the expected values stay */
    d->b_scale = tp_tensor_matrix(TP_DTYPE_F32, 1, s->n, s->n, d->b_scale.data);
  tp_ref_tolerance tol = tp_ref_problem_tolerance(p, backend);
  tol.rel = INFINITY; /* tiny random D may cancel: every element is judged alone */
  tp_ref_report rep = {.struct_size = sizeof rep};
  if (st == TP_OK)
    st = tp_ref_problem_verify(p, reg, section, s->residual ? "residual" : "store", backend, &tol,
                               &rep, err, sizeof err);
  if (st == TP_OK) tp_ref_report_format(&rep, err, sizeof err);
  CHECK(st == TP_OK && rep.pass, "%s: %s", what, err);
  if (st == TP_OK && wrong != NULL) {
    double *mag;
    tp_ref_problem_expected(p, &mag);
    tp_ref_report off = {.struct_size = sizeof off};
    CHECK(tp_ref_compare(&d->d, d->m, d->n, wrong, mag, NULL, &tol, &off) == TP_OK && off.bad > 0,
          "%s: self-check: a D without b_scale would have passed", what);
  }
  free(wrong);
  tp_ref_problem_destroy(p);
}

/* Every shape (each K) through store and residual, the variants rotating
 * D's dtype, C's and b_scale's form; the number of cases. */
static int run_all(tp_registry *reg, tp_backend backend) {
  static const int64_t mn[][2] = {{1, 7}, {7, 1}, {64, 129}, {127, 300}, {129, 64}, {300, 127}};
  static const int64_t ks[] = {16, 64, 1008, 4096};
  static const tp_dtype outs[] = {TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_F32};
  int cases = 0;
  for (size_t i = 0; i < sizeof mn / sizeof mn[0]; i++)
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
      const size_t v = i + j;
      const spec store = {mn[i][0], mn[i][1], ks[j], 0, 0, (int)(v % 2), outs[v % 3], 0, NULL};
      const spec residual = {mn[i][0], mn[i][1], ks[j], 1, v % 3 == 2, (int)(v % 2) ^ 1,
                             outs[(v + 1) % 3], v % 3 ? TP_DTYPE_F32 : outs[(v + 1) % 3], NULL};
      run_case(reg, backend, &store, i == 3 && j == 2);
      run_case(reg, backend, &residual, 0);
      cases += 2;
    }
  if (backend == TP_BACKEND_CUDA) {
    /* Split K over few tiles; more tiles than SMs, so that a CTA takes a
     * tile with one warpgroup's rows in M (M = 1025: the last tile row)
     * beside tiles with both, in the planner's kernels, in 2-CTA clusters
     * and in 3 splits of K (the registry's tuned sections). */
    static const spec many[] = {
        {16, 4096, 4096, 0, 0, 0, TP_DTYPE_BF16, 0, NULL},
        {1025, 4096, 1024, 0, 0, 0, TP_DTYPE_BF16, 0, NULL},
        {1025, 2017, 1008, 0, 0, 0, TP_DTYPE_BF16, 0, "int8_w8a16_c2"},
        {1025, 2017, 1008, 1, 1, 0, TP_DTYPE_BF16, 0, "int8_w8a16_c2"},
        {1025, 2017, 1008, 0, 0, 0, TP_DTYPE_F32, 0, "int8_w8a16_split3"}};
    for (size_t i = 0; i < sizeof many / sizeof many[0]; i++, cases++)
      run_case(reg, backend, &many[i], 0);
  }
  return cases;
}

/* tp_plan_create refuses desc with `status`, the message naming needle. */
static void expect_refused(tp_registry *reg, const tp_gemm_desc *desc, tp_status status,
                           const char *needle) {
  tp_plan *plan = NULL;
  tp_status st = tp_plan_create(&plan, reg, "int8_w8a16", "store", desc, TP_BACKEND_CPU);
  CHECK(st == status && plan == NULL && strstr(tp_error_message(), needle) != NULL,
        "expected '%s' (%s), got '%s': %s", tp_status_string(status), needle,
        tp_status_string(st), tp_error_message());
  tp_plan_destroy(plan);
}

static void check_refusals(tp_registry *reg) {
  const tp_ref_problem_spec rs = {.struct_size = sizeof rs, .registry = reg,
                                  .payload = "int8_w8a16", .m = 16, .n = 24, .k = 32,
                                  .d = TP_DTYPE_BF16, .alpha = 1.0f};
  char err[512];
  tp_ref_problem *p = NULL;
  if (tp_ref_problem_create(&p, &rs, next_seed++, err, sizeof err) != TP_OK) {
    CHECK(0, "the refusals' problem: %s", err);
    return;
  }
  const tp_gemm_desc *made = tp_ref_problem_desc(p);
  tp_gemm_desc d = *made;
  d.a.dtype = TP_DTYPE_F16;
  expect_refused(reg, &d, TP_ERR_UNSUPPORTED, "A is f16 and B s8; int8_w8a16 takes bf16 A");
  d = *made;
  d.b.dtype = TP_DTYPE_E4M3;
  expect_refused(reg, &d, TP_ERR_UNSUPPORTED, "B e4m3");
  d = *made;
  d.a_scale = tp_tensor_vector(TP_DTYPE_F32, 16, made->b_scale.data);
  expect_refused(reg, &d, TP_ERR_INVALID_ARGUMENT, "int8_w8a16 scales only B");
  d = *made;
  d.b_scale.dtype = TP_DTYPE_NONE;
  expect_refused(reg, &d, TP_ERR_INVALID_ARGUMENT, "b_scale is missing");
  d = *made;
  d.b_scale.dtype = TP_DTYPE_BF16;
  expect_refused(reg, &d, TP_ERR_INVALID_ARGUMENT, "b_scale is bf16; it must be f32");
  d = *made;
  d.b_scale = tp_tensor_matrix(TP_DTYPE_F32, 24, 1, 1, made->b_scale.data); /* a column */
  expect_refused(reg, &d, TP_ERR_INVALID_ARGUMENT, "b_scale has shape [24, 1]");
  tp_ref_problem_destroy(p);
}

/* The section's keys: taken in range, a tile K other than 64 refused. */
static void check_keys(const char *plugin) {
  static const struct {
    const char *line;
    const char *refusal; /* NULL: taken */
  } cases[] = {{"stages = 6", NULL},
               {"tile = 128x128x64", NULL},
               {"cluster = 2x1", NULL},
               {"tile = 128x128x128", "tile '128x128x128': K must be 64"},
               {"colour = red", "unknown key 'colour'"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char body[2048];
    snprintf(body, sizeof body, "[int8_w8a16]\nkind = payload\nlibrary = %s\n%s\n", plugin,
             cases[i].line);
    tp_registry *r = NULL;
    tp_plugin_info info;
    char err[512];
    if (tp_ref_registry_open(&r, body, err, sizeof err) != TP_OK)
      CHECK(0, "'%s': cannot open the registry: %s", cases[i].line, err);
    else if (tp_registry_find(r, "int8_w8a16", &info) != TP_OK)
      CHECK(0, "'%s': %s", cases[i].line, tp_error_message());
    else if (cases[i].refusal == NULL)
      CHECK(info.status == TP_OK, "'%s' was refused: %s", cases[i].line, info.error);
    else
      CHECK(info.status != TP_OK && strstr(info.error, cases[i].refusal) != NULL,
            "'%s' was taken, or refused without '%s': %s", cases[i].line, cases[i].refusal,
            info.status == TP_OK ? "(ok)" : info.error);
    tp_registry_close(r);
  }
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc != 2 || argv[1][0] != '/') {
    fprintf(stderr, "usage: %s /abs/path/tp_int8_w8a16.so\n", argv[0]);
    return 2;
  }
  const char *seed_text = getenv("INT8_W8A16_SEED");
  next_seed = seed_text && *seed_text ? strtoull(seed_text, NULL, 0) : 1;
  printf("seed %llu (INT8_W8A16_SEED=%llu repeats this run)\n", (unsigned long long)next_seed,
         (unsigned long long)next_seed);
  char body[4096];
  snprintf(body, sizeof body,
           "[int8_w8a16]\nkind = payload\nlibrary = %s\n\n"
           "[int8_w8a16_c2]\nkind = payload\nlibrary = %s\ntile = 128x128x64\ncluster = 2x1\n\n"
           "[int8_w8a16_split3]\nkind = payload\nlibrary = %s\ntile = 128x128x64\nsplits = 3\n\n"
           "[store]\nkind = epilogue\nlibrary = %s/tp_store.so\n\n"
           "[residual]\nkind = epilogue\nlibrary = %s/tp_residual.so\n",
           argv[1], argv[1], argv[1], TP_PLUGINDIR, TP_PLUGINDIR);
  tp_registry *reg = NULL;
  tp_plugin_info info;
  char err[512];
  if (tp_ref_registry_open(&reg, body, err, sizeof err) != TP_OK) {
    fprintf(stderr, "test_int8_w8a16: %s\n", err);
    return 1;
  }
  const char *names[] = {"int8_w8a16", "store", "residual"};
  int gpu_code = 1;
  for (size_t i = 0; i < 3; i++) {
    if (tp_registry_find(reg, names[i], &info) != TP_OK || info.status != TP_OK) {
      fprintf(stderr, "test_int8_w8a16: plugin %s is unusable: %s\n", names[i],
              info.status != TP_OK ? info.error : tp_error_message());
      tp_registry_close(reg);
      return 1;
    }
    printf("%-10s %s (device code: %s)\n", names[i], info.library,
           info.has_device_code ? "yes" : "no");
    gpu_code = gpu_code && info.has_device_code;
  }
  check_keys(argv[1]);
  check_refusals(reg);
  printf("CPU backend: %d problems checked\n", run_all(reg, TP_BACKEND_CPU));
  tp_device_props props;
  const int gpu_checked = tp_device_info(&props) == TP_OK && gpu_code;
  if (tp_device_info(&props) != TP_OK)
    printf("no GPU (%s): the CUDA backend is not checked\n", tp_error_message());
  else if (!gpu_code)
    printf("a plugin carries no device code: the CUDA backend is not checked\n");
  else
    printf("CUDA backend (%s): %d problems checked\n", props.name,
           run_all(reg, TP_BACKEND_CUDA));
  tp_registry_close(reg);
  /* 77, a skip: the CPU backend passed, the CUDA backend was not checked. */
  const int rc = failures != 0 ? 1 : gpu_checked ? 0 : 77;
  puts(rc == 1 ? "FAIL" : rc == 0 ? "PASS" : "SKIP (the CUDA backend was not checked)");
  return rc;
}
