/* tests/test_threads.c: the thread-safety contract of docs/threads.md on
 * the CPU backend. CI runs it under ThreadSanitizer too (--enable-tsan),
 * which reports any race on the library's or the plugins' state.
 *
 * - Many threads, one registry: 8 threads started together each plan and
 *   run GEMMs of every shipped payload and both epilogues (ragged shapes,
 *   fresh inputs per run) from the one shared registry, looking plugins up
 *   while the others plan, and check every D against the f64 reference.
 * - One plan, many threads: a plan made once is run by 8 threads at once,
 *   each on its own buffers, several times, every D checked.
 * - Errors stay with their thread: 8 threads fail at once, each in its own
 *   way, and each then reads its own message.
 * Workers never assert: each keeps its first failure, and the test's
 * thread asserts on them after joining. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <check.h>

#include "tests/build_registry.h"

#include "tests/gemm_case.h"
#include "tilepipe/tilepipe.h"

#define THREADS 8
#define ROUNDS 3


/* Small, ragged, and over more than one tile and k-block where it counts
 * (the CPU backend's tiles are at most 64 x 64 x 128): the point is many
 * threads at once, under ThreadSanitizer too, not long runs. */
static const gemm_case cases[] = {
    {"standard", "store", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 70, 30, 150, 1, 0},
    {"standard", "residual", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_F32, TP_DTYPE_F32, 0,
     TP_LAYOUT_STRIDED, 29, 70, 131, 0, 0},
    {"standard", "residual", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_NONE, 1,
     TP_LAYOUT_STRIDED, 24, 17, 40, 2, 0},
    {"blockwise_fp8", "store", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 30, 20, 260, 1, 0},
    {"block_scaled", "store", TP_DTYPE_E4M3, TP_DTYPE_E5M2, TP_DTYPE_F32, TP_DTYPE_NONE, 0,
     TP_LAYOUT_SF_128X4, 20, 66, 64, 0, 0},
    {"block_scaled", "residual", TP_DTYPE_E2M1, TP_DTYPE_E2M1, TP_DTYPE_BF16, TP_DTYPE_BF16, 0,
     TP_LAYOUT_STRIDED, 17, 30, 48, 2, 0},
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])

typedef struct worker {
  int index;
  pthread_barrier_t *start;
  tp_plan *shared;        /* one_plan_many_threads: the plan every worker runs */
  const gemm_case *shared_case;
  int runs;               /* GEMMs run and checked */
  char error[768];        /* the first failure; "" when none */
} worker;

static void worker_fail(worker *w, const gemm_case *c, const char *what, const char *why) {
  if (w->error[0]) return;
  char name[160];
  gemm_case_name(c, name, sizeof name);
  snprintf(w->error, sizeof w->error, "thread %d, %s: %s: %s", w->index, name, what, why);
}

/* Runs plan (or a plan of its own when plan is NULL) on a fresh problem
 * of case c and checks D. */
static void run_checked(worker *w, const gemm_case *c, tp_plan *plan, uint64_t seed) {
  char err[256];
  gemm_problem p;
  if (!gemm_problem_make(&p, build_registry, c, seed, TP_BACKEND_CPU, err, sizeof err)) {
    worker_fail(w, c, "problem", err);
    return;
  }
  tp_plan *own = NULL;
  tp_plugin_info info;
  if (plan == NULL && tp_registry_find(build_registry, c->payload, &info) != TP_OK)
    worker_fail(w, c, "find", tp_error_message());
  else if (plan == NULL && tp_plan_create(&own, build_registry, c->payload, c->epilogue,
                                          tp_ref_problem_desc(p.host), TP_BACKEND_CPU) != TP_OK)
    worker_fail(w, c, "plan", tp_error_message());
  else if (tp_plan_run(plan ? plan : own, tp_ref_problem_desc(p.host), NULL) != TP_OK)
    worker_fail(w, c, "run", tp_error_message());
  else if (!gemm_problem_check(&p, err, sizeof err))
    worker_fail(w, c, "result", err);
  else
    w->runs++;
  tp_plan_destroy(own);
  gemm_problem_free(&p);
}

static void *plans_worker(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(w->start);
  for (int r = 0; r < ROUNDS; r++)
    run_checked(w, &cases[(w->index + 3 * r) % NUM_CASES], NULL, (uint64_t)(100 * w->index + r));
  return NULL;
}

static void *shared_plan_worker(void *arg) {
  worker *w = arg;
  pthread_barrier_wait(w->start);
  for (int r = 0; r < ROUNDS; r++)
    run_checked(w, w->shared_case, w->shared, (uint64_t)(1000 + 100 * w->index + r));
  return NULL;
}

/* Starts THREADS workers on fn together, joins them, asserts none failed
 * and that each ran `runs` GEMMs. */
static void run_workers(void *(*fn)(void *), tp_plan *shared, const gemm_case *shared_case,
                        int runs) {
  pthread_barrier_t start;
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
  worker w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){.index = i, .start = &start, .shared = shared, .shared_case = shared_case};
    ck_assert_int_eq(pthread_create(&t[i], NULL, fn, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < THREADS; i++) {
    ck_assert_msg(w[i].error[0] == '\0', "%s", w[i].error);
    ck_assert_int_eq(w[i].runs, runs);
  }
}

START_TEST(plans_from_one_registry) {
  ck_assert_msg(build_registry != NULL, "no registry at %s", TP_TEST_REGISTRY);
  run_workers(plans_worker, NULL, NULL, ROUNDS);
}
END_TEST

/* Every worker's problem has the shared case's shapes and strides, so only
 * its pointers differ from the planned descriptor. */
START_TEST(one_plan_many_threads) {
  ck_assert_msg(build_registry != NULL, "no registry at %s", TP_TEST_REGISTRY);
  const gemm_case *c = &cases[_i];
  char err[256];
  gemm_problem planned;
  ck_assert_msg(gemm_problem_make(&planned, build_registry, c, 7, TP_BACKEND_CPU, err, sizeof err), "%s", err);
  tp_plan *plan = NULL;
  ck_assert_msg(tp_plan_create(&plan, build_registry, c->payload, c->epilogue,
                               tp_ref_problem_desc(planned.host), TP_BACKEND_CPU) == TP_OK,
                "%s", tp_error_message());
  run_workers(shared_plan_worker, plan, c, ROUNDS);
  tp_plan_destroy(plan);
  gemm_problem_free(&planned);
}
END_TEST

typedef struct failer {
  int index;
  pthread_barrier_t *between;
  char message[512]; /* the thread's message after every thread failed */
} failer;

static void *fail_own_way(void *arg) {
  failer *f = arg;
  tp_gemm_desc d;
  tp_gemm_desc_init(&d, -1 - f->index, 8, 8); /* an M of its own */
  tp_plan *plan = NULL;
  tp_plan_create(&plan, build_registry, "standard", "store", &d, TP_BACKEND_CPU);
  pthread_barrier_wait(f->between); /* every thread has failed before any reads */
  snprintf(f->message, sizeof f->message, "%s", tp_error_message());
  return NULL;
}

START_TEST(errors_stay_with_their_thread) {
  ck_assert_msg(build_registry != NULL, "no registry at %s", TP_TEST_REGISTRY);
  pthread_barrier_t between;
  ck_assert_int_eq(pthread_barrier_init(&between, NULL, THREADS), 0);
  failer f[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    f[i] = (failer){.index = i, .between = &between};
    ck_assert_int_eq(pthread_create(&t[i], NULL, fail_own_way, &f[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  pthread_barrier_destroy(&between);
  for (int i = 0; i < THREADS; i++) {
    char own[64];
    snprintf(own, sizeof own, "(got %d, 8, 8)", -1 - i);
    ck_assert_msg(strstr(f[i].message, own) != NULL, "thread %d reads \"%s\", not its own %s", i,
                  f[i].message, own);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("threads");
  TCase *tc = tcase_create("cpu");
  tcase_add_unchecked_fixture(tc, build_registry_open, build_registry_close);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, plans_from_one_registry);
  tcase_add_loop_test(tc, one_plan_many_threads, 0, NUM_CASES);
  tcase_add_test(tc, errors_stay_with_their_thread);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
