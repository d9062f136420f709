/* tests/test_gpu_multi.c: two GPUs of one host, each from a thread of its
 * own (docs/threads.md: devices). Exits 77 with fewer than two usable GPUs,
 * saying why ("needs 2 GPUs, found N", or the library's reason).
 *
 * - Side by side: one thread per GPU makes that GPU's primary context
 *   current (tp_device_select), then plans several problems on it (the
 *   standard payload with the store and the residual epilogue, C in f32
 *   and C in D, fp8, a split-K plan with its device workspace, ragged
 *   shapes such as 129x300x1009 and a larger one), with an empty disk
 *   cache, so that both threads link and load the same kernels at the same
 *   time; then both run every plan ROUNDS times, each run from D's
 *   starting bytes (poison, or C when C is D), while the other thread does
 *   the same on its GPU. Every D is checked against the f64 reference, and
 *   every plan's description names its thread's device.
 * - The wrong device: a plan made on GPU 0, run while GPU 1's context is
 *   current, is refused with TP_ERR_INVALID_ARGUMENT naming both devices;
 *   its D, poisoned on GPU 0, is untouched; the plan then runs right on
 *   GPU 0, and is destroyed (its workspace freed) while GPU 1's context is
 *   current.
 * - No context: a plan made on GPU 1, run from a new thread with no current
 *   context, runs on GPU 1 (not on the default device) and is right.
 * Workers never assert: each keeps its first failure, and the test's
 * thread asserts on them after joining. Runs without fork (CUDA cannot be
 * used in a child forked after cuInit). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "tests/gemm_case.h"
#include "tests/tuned_registry.h"
#include "tilepipe/device.h"
#include "tilepipe/tilepipe.h"

#define GPUS 2
#define ROUNDS 4

static tp_registry *reg;

static const tp_test_tuning tunings[] = {
    {"multi_split2", "standard", "tile = 128x64x64\nsplits = 2"},
};

/* Rows are padded to 16 bytes by gemm_problem_make, so the shapes need not
 * be. */
static const gemm_case cases[] = {
    {"standard", "store", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 129, 300, 1009, 0, 0},
    {"standard", "residual", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F32, TP_DTYPE_F32, 0,
     TP_LAYOUT_STRIDED, 300, 521, 1009, 3, 5},
    {"multi_split2", "residual", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, 0,
     TP_LAYOUT_STRIDED, 129, 257, 1009, 0, 0},
    {"standard", "residual", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, 1,
     TP_LAYOUT_STRIDED, 1000, 1000, 1000, 0, 0},
    {"standard", "store", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 1536, 2048, 1024, 0, 0},
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])
enum { SPLIT_K_CASE = 2 };

/* One problem of a thread: host side, reference and device copy; plan. */
typedef struct planned {
  gemm_problem p;
  tp_plan *plan;
  int made; /* p holds memory */
} planned;

typedef struct worker {
  int gpu;
  pthread_barrier_t *start, *planned_all;
  int runs;        /* runs checked */
  char error[768]; /* the first failure; "" when none */
} worker;

static void worker_fail(worker *w, const gemm_case *c, const char *what, const char *why) {
  if (w->error[0]) return;
  char name[160];
  gemm_case_name(c, name, sizeof name);
  snprintf(w->error, sizeof w->error, "GPU %d, %s: %s: %s", w->gpu, name, what, why);
}

/* "device N" in a plan's description, N the thread's GPU. */
static int describes_device(const tp_plan *plan, int gpu, char *text, size_t size) {
  char want[32];
  tp_plan_describe(plan, text, size);
  snprintf(want, sizeof want, ", device %d", gpu);
  const char *at = strstr(text, want);
  return at != NULL && at[strlen(want)] == '\0';
}

/* Problem, reference, device buffers and plan of case c on the current
 * device; 0 after recording why not. */
static int plan_case(worker *w, const gemm_case *c, uint64_t seed, planned *out) {
  char err[256], text[512];
  memset(out, 0, sizeof *out);
  if (!gemm_problem_make(&out->p, reg, c, seed, TP_BACKEND_CUDA, err, sizeof err)) {
    worker_fail(w, c, "problem", err);
    return 0;
  }
  out->made = 1;
  if (tp_ref_problem_upload(out->p.host, err, sizeof err) != TP_OK) {
    worker_fail(w, c, "device buffers", err);
    return 0;
  }
  if (tp_plan_create(&out->plan, reg, c->payload, c->epilogue,
                     tp_ref_problem_device_desc(out->p.host), TP_BACKEND_CUDA) != TP_OK) {
    worker_fail(w, c, "plan", tp_error_message());
    return 0;
  }
  if (!describes_device(out->plan, w->gpu, text, sizeof text)) {
    worker_fail(w, c, "plan on the wrong device", text);
    return 0;
  }
  if (!tp_test_tuned_plan_is_asked(c->payload, out->plan, text, sizeof text)) {
    worker_fail(w, c, "plan", text);
    return 0;
  }
  return 1;
}

static void unplan(planned *pl) {
  tp_plan_destroy(pl->plan);
  if (pl->made) gemm_problem_free(&pl->p);
  memset(pl, 0, sizeof *pl);
}

/* The problem with D's starting bytes on the device, one run on the
 * default stream of the current context, D back and checked. */
static int run_checked(worker *w, const gemm_case *c, planned *pl) {
  char err[256];
  gemm_problem_restart(&pl->p);
  if (tp_ref_problem_upload(pl->p.host, err, sizeof err) != TP_OK) {
    worker_fail(w, c, "upload", err);
    return 0;
  }
  if (tp_plan_run(pl->plan, tp_ref_problem_device_desc(pl->p.host), NULL) != TP_OK) {
    worker_fail(w, c, "run", tp_error_message());
    return 0;
  }
  if (tp_device_synchronize(NULL) != TP_OK) {
    worker_fail(w, c, "after the run", tp_error_message());
    return 0;
  }
  if (tp_ref_problem_download_d(pl->p.host, err, sizeof err) != TP_OK) {
    worker_fail(w, c, "after the run", err);
    return 0;
  }
  if (!gemm_problem_check(&pl->p, err, sizeof err)) {
    worker_fail(w, c, "result", err);
    return 0;
  }
  w->runs++;
  return 1;
}

static void *gpu_worker(void *arg) {
  worker *w = arg;
  planned pl[NUM_CASES];
  memset(pl, 0, sizeof pl);
  tp_device_props props;
  int ready = tp_device_select(w->gpu) == TP_OK && tp_device_info(&props) == TP_OK;
  if (!ready)
    snprintf(w->error, sizeof w->error, "GPU %d: select: %s", w->gpu, tp_error_message());
  else if (props.ordinal != w->gpu)
    snprintf(w->error, sizeof w->error, "GPU %d: tp_device_info says device %d", w->gpu,
             props.ordinal);
  pthread_barrier_wait(w->start);
  for (int i = 0; ready && !w->error[0] && i < NUM_CASES; i++)
    plan_case(w, &cases[i], 1000u * (unsigned)w->gpu + (unsigned)i, &pl[i]);
  /* Every plan of both GPUs made (kernels linked, loaded, opted in on
   * each) before the runs start, so that they overlap. */
  pthread_barrier_wait(w->planned_all);
  for (int r = 0; !w->error[0] && r < ROUNDS; r++)
    for (int i = 0; i < NUM_CASES; i++)
      if (!run_checked(w, &cases[i], &pl[i])) break;
  for (int i = 0; i < NUM_CASES; i++) unplan(&pl[i]);
  return NULL;
}

START_TEST(side_by_side) {
  pthread_barrier_t start, planned_all;
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, GPUS), 0);
  ck_assert_int_eq(pthread_barrier_init(&planned_all, NULL, GPUS), 0);
  worker w[GPUS];
  pthread_t t[GPUS];
  for (int g = 0; g < GPUS; g++) {
    w[g] = (worker){.gpu = g, .start = &start, .planned_all = &planned_all};
    ck_assert_int_eq(pthread_create(&t[g], NULL, gpu_worker, &w[g]), 0);
  }
  for (int g = 0; g < GPUS; g++) ck_assert_int_eq(pthread_join(t[g], NULL), 0);
  pthread_barrier_destroy(&start);
  pthread_barrier_destroy(&planned_all);
  for (int g = 0; g < GPUS; g++) {
    ck_assert_msg(w[g].error[0] == '\0', "%s", w[g].error);
    ck_assert_int_eq(w[g].runs, ROUNDS * NUM_CASES);
  }
  printf("side by side: %d runs on each of %d GPUs checked\n", ROUNDS * NUM_CASES, GPUS);
}
END_TEST

/* 1 when every byte of D's device buffer is still 0xFF (copied back into
 * the host's D). */
static int d_untouched(planned *pl) {
  char err[256];
  ck_assert_msg(tp_ref_problem_download_d(pl->p.host, err, sizeof err) == TP_OK, "%s", err);
  int64_t bytes;
  const unsigned char *d = tp_ref_problem_buffer(pl->p.host, TP_REF_D, &bytes);
  int64_t i = 0;
  while (i < bytes && d[i] == 0xFF) i++;
  return i == bytes;
}

/* D poisoned (0xFF) on the device. */
static void poison_d(planned *pl) {
  char err[256];
  tp_ref_problem_poison_d(pl->p.host);
  ck_assert_msg(tp_ref_problem_upload(pl->p.host, err, sizeof err) == TP_OK, "%s", err);
}

#define ck_assert_ok(call) ck_assert_msg((call) == TP_OK, "%s: %s", #call, tp_error_message())

START_TEST(wrong_device_is_refused) {
  const gemm_case *c = &cases[SPLIT_K_CASE]; /* a workspace, freed under the other context */
  worker w = {.gpu = 0};
  planned pl;
  ck_assert_ok(tp_device_select(0));
  ck_assert_msg(plan_case(&w, c, 7000u, &pl), "%s", w.error);
  poison_d(&pl);
  ck_assert_ok(tp_device_synchronize(NULL));

  ck_assert_ok(tp_device_select(1));
  ck_assert_int_eq(tp_plan_run(pl.plan, tp_ref_problem_device_desc(pl.p.host), NULL),
                   TP_ERR_INVALID_ARGUMENT);
  const char *msg = tp_error_message();
  printf("refused: %s\n", msg);
  ck_assert_msg(strstr(msg, "belongs to CUDA device 0") && strstr(msg, "context is on device 1"),
                "the refusal names the wrong devices: %s", msg);
  tp_device_props props;
  ck_assert_ok(tp_device_info(&props));
  ck_assert_msg(props.ordinal == 1, "the refusal changed the current device to %d",
                props.ordinal);
  ck_assert_ok(tp_device_synchronize(NULL));

  ck_assert_ok(tp_device_select(0));
  ck_assert_ok(tp_device_synchronize(NULL));
  ck_assert_msg(d_untouched(&pl), "a refused run wrote D");
  ck_assert_msg(run_checked(&w, c, &pl), "%s", w.error);

  ck_assert_ok(tp_device_select(1));
  tp_plan_destroy(pl.plan);
  pl.plan = NULL;
  ck_assert_ok(tp_device_info(&props));
  ck_assert_int_eq(props.ordinal, 1); /* destroying left GPU 1's context current */
  ck_assert_ok(tp_device_select(0));
  unplan(&pl);
}
END_TEST

typedef struct no_context_run {
  planned *pl;
  worker w;
  int ordinal; /* the device the thread works on after the run */
} no_context_run;

/* A new thread has no current context: its first call, the run, must make
 * the plan's device current (not the default device), and the device calls
 * after it then work on that device. D holds the poison it was made with. */
static void *run_without_context(void *arg) {
  no_context_run *r = arg;
  const gemm_case *c = &cases[0];
  char err[256];
  tp_device_props props;
  if (tp_plan_run(r->pl->plan, tp_ref_problem_device_desc(r->pl->p.host), NULL) != TP_OK) {
    worker_fail(&r->w, c, "run", tp_error_message());
    return NULL;
  }
  if (tp_device_info(&props) != TP_OK || tp_device_synchronize(NULL) != TP_OK) {
    worker_fail(&r->w, c, "after the run", tp_error_message());
    return NULL;
  }
  if (tp_ref_problem_download_d(r->pl->p.host, err, sizeof err) != TP_OK) {
    worker_fail(&r->w, c, "after the run", err);
    return NULL;
  }
  r->ordinal = props.ordinal;
  if (!gemm_problem_check(&r->pl->p, err, sizeof err)) worker_fail(&r->w, c, "result", err);
  return NULL;
}

START_TEST(no_context_runs_on_the_plans_device) {
  no_context_run r = {.w = {.gpu = 1}, .ordinal = -1};
  planned pl;
  r.pl = &pl;
  ck_assert_ok(tp_device_select(1));
  ck_assert_msg(plan_case(&r.w, &cases[0], 8000u, &pl), "%s", r.w.error);
  poison_d(&pl);
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, run_without_context, &r), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_msg(r.w.error[0] == '\0', "%s", r.w.error);
  ck_assert_int_eq(r.ordinal, 1);
  unplan(&pl);
}
END_TEST

/* 77 unless GPUs 0 and 1 are both usable; prints them. */
static int enough_gpus(void) {
  int count = 0;
  if (tp_device_count(&count) != TP_OK) {
    printf("SKIP: no usable GPU: %s\n", tp_error_message());
    return 0;
  }
  if (count < GPUS) {
    printf("SKIP: needs %d GPUs, found %d\n", GPUS, count);
    return 0;
  }
  for (int g = 0; g < GPUS; g++) {
    tp_device_props props;
    if (tp_device_select(g) != TP_OK || tp_device_info(&props) != TP_OK) {
      printf("SKIP: needs %d usable GPUs: %s\n", GPUS, tp_error_message());
      return 0;
    }
    printf("GPU %d: %s, %d SMs\n", props.ordinal, props.name, props.sm_count);
  }
  return 1;
}

static void add_tests(TCase *tc) {
  tcase_add_test(tc, side_by_side);
  tcase_add_test(tc, wrong_device_is_refused);
  tcase_add_test(tc, no_context_runs_on_the_plans_device);
}

int main(void) {
  if (!enough_gpus()) return 77;
  return tp_test_tuned_run("test_gpu_multi", tunings, sizeof tunings / sizeof tunings[0], 1, 900,
                           &reg, add_tests);
}
