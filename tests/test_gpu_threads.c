/* tests/test_gpu_threads.c: the thread-safety contract of docs/threads.md
 * on the GPU. Exits 77 when there is no usable GPU.
 *
 * - Cold, then warm: 8 threads started together, each on a stream of its
 *   own (non-blocking: nothing orders it with the others), plan and run
 *   kernels the process has never linked, with an empty disk cache, so
 *   that several threads miss, link and store the same kernel at once;
 *   then the same again with every kernel warm, which must link nothing.
 *   The cases cover several kernels: operand dtypes, tiles, both
 *   epilogues, C in D, and split-K plans with a device workspace (each
 *   run twice, the second from a fresh D, so the workspace's counters must
 *   have come back to zero). Every D is checked against the f64 reference.
 * - One kernel, two plans: plans of the same kernel with different stages
 *   need different dynamic shared memory; making the smaller one after
 *   the larger must not break the larger one's launches.
 * Workers never assert: each keeps its first failure, and the test's
 * thread asserts on them after joining. Runs without fork (CUDA cannot be
 * used in a child forked after cuInit). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "core/backend/cuda/driver.h"
#include "core/backend/cuda/kernel_cache.h"
#include "tests/gemm_case.h"
#include "tests/tuned_registry.h"
#include "tilepipe/device.h"
#include "tilepipe/tilepipe.h"

#define THREADS 8
#define CASES_PER_THREAD 3

static tp_registry *reg;

static const tp_test_tuning tunings[] = {
    {"threads_n64_split2", "standard", "tile = 128x64x64\nsplits = 2"},
    {"threads_split3", "standard", "splits = 3"},
    {"threads_m64", "standard", "tile = 64x64x64"},
    {"threads_stages4", "standard", "tile = 128x128x64\nstages = 4"},
    {"threads_stages3", "standard", "tile = 128x128x64\nstages = 3"},
};

/* Rows of 16-byte multiples (TMA's rule): n + pad and k + pad are
 * multiples of 16, C's rows pad + 16. */
static const gemm_case cases[] = {
    {"standard", "store", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 300, 521, 1009, 15, 31},
    {"threads_n64_split2", "store", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F32, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 129, 257, 1009, 15, 31},
    {"threads_split3", "residual", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_F32, TP_DTYPE_F32, 0,
     TP_LAYOUT_STRIDED, 300, 521, 1009, 15, 31},
    {"threads_m64", "residual", TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_F16, TP_DTYPE_NONE, 1,
     TP_LAYOUT_STRIDED, 1000, 1000, 1000, 8, 24},
    {"standard", "residual", TP_DTYPE_E4M3, TP_DTYPE_E4M3, TP_DTYPE_BF16, TP_DTYPE_BF16, 0,
     TP_LAYOUT_STRIDED, 4097, 513, 257, 15, 31},
    {"threads_stages4", "store", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 1000, 1000, 1000, 8, 24},
    {"threads_stages3", "store", TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_BF16, TP_DTYPE_NONE, 0,
     TP_LAYOUT_STRIDED, 129, 257, 1009, 15, 31},
    {"standard", "residual", TP_DTYPE_E5M2, TP_DTYPE_E4M3, TP_DTYPE_F16, TP_DTYPE_F32, 0,
     TP_LAYOUT_STRIDED, 127, 129, 129, 15, 31},
};
#define NUM_CASES (int)(sizeof cases / sizeof cases[0])

typedef struct worker {
  int index;
  uint64_t seed_base;
  pthread_barrier_t *start;
  int runs;         /* runs checked */
  char error[768];  /* the first failure; "" when none */
} worker;

static void worker_fail(worker *w, const gemm_case *c, const char *what, const char *why) {
  if (w->error[0]) return;
  char name[160];
  gemm_case_name(c, name, sizeof name);
  snprintf(w->error, sizeof w->error, "thread %d, %s: %s: %s", w->index, name, what, why);
}

/* D's starting bytes into the problem's device copy (its inputs are
 * there since the plan), landed before the run; one run on stream, D back
 * and checked. */
static int run_once(worker *w, const gemm_case *c, tp_plan *plan, gemm_problem *p,
                    CUstream stream) {
  const tp_cuda_driver *cu;
  char err[256];
  gemm_problem_restart(p);
  int64_t d_bytes;
  const void *d = tp_ref_problem_buffer(p->host, TP_REF_D, &d_bytes);
  /* A copy from pageable memory may still be landing when the call
   * returns, and a non-blocking stream does not wait for it: the context
   * waits, or D's poison could land over the kernel's results. */
  if (tp_device_copy_to(tp_ref_problem_device_desc(p->host)->d.data, d, (size_t)d_bytes) !=
          TP_OK ||
      tp_device_synchronize(NULL) != TP_OK) {
    worker_fail(w, c, "upload D", tp_error_message());
    return 0;
  }
  if (tp_plan_run(plan, tp_ref_problem_device_desc(p->host), stream) != TP_OK) {
    worker_fail(w, c, "run", tp_error_message());
    return 0;
  }
  if (tp_cuda_driver_get(&cu) != TP_OK ||
      tp_cuda_check(cu->StreamSynchronize(stream), "cuStreamSynchronize") != TP_OK) {
    worker_fail(w, c, "after the run", tp_error_message());
    return 0;
  }
  if (tp_ref_problem_download_d(p->host, err, sizeof err) != TP_OK) {
    worker_fail(w, c, "after the run", err);
    return 0;
  }
  if (!gemm_problem_check(p, err, sizeof err)) {
    worker_fail(w, c, "result", err);
    return 0;
  }
  w->runs++;
  return 1;
}

/* Plans case c on this thread's stream and runs it twice. */
static void plan_and_run(worker *w, const gemm_case *c, uint64_t seed, CUstream stream) {
  char err[256];
  gemm_problem p;
  if (!gemm_problem_make(&p, reg, c, seed, TP_BACKEND_CUDA, err, sizeof err)) {
    worker_fail(w, c, "problem", err);
    return;
  }
  tp_plan *plan = NULL;
  if (tp_ref_problem_upload(p.host, err, sizeof err) != TP_OK) {
    worker_fail(w, c, "device buffers", err);
    gemm_problem_free(&p);
    return;
  }
  char asked[640];
  if (tp_plan_create(&plan, reg, c->payload, c->epilogue, tp_ref_problem_device_desc(p.host),
                     TP_BACKEND_CUDA) != TP_OK)
    worker_fail(w, c, "plan", tp_error_message());
  else if (!tp_test_tuned_plan_is_asked(c->payload, plan, asked, sizeof asked))
    worker_fail(w, c, "plan", asked);
  else if (run_once(w, c, plan, &p, stream))
    run_once(w, c, plan, &p, stream);
  tp_plan_destroy(plan);
  gemm_problem_free(&p);
}

static void *gpu_worker(void *arg) {
  worker *w = arg;
  const tp_cuda_driver *cu = NULL;
  tp_cuda_device device;
  CUstream stream = NULL;
  /* tp_cuda_device_get makes the device's context current on this thread. */
  if (tp_cuda_device_get(&device) != TP_OK || tp_cuda_driver_get(&cu) != TP_OK ||
      tp_cuda_check(cu->StreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate") != TP_OK)
    snprintf(w->error, sizeof w->error, "thread %d: no stream: %s", w->index, tp_error_message());
  pthread_barrier_wait(w->start);
  for (int i = 0; stream != NULL && i < CASES_PER_THREAD; i++) {
    /* Thread t takes cases t, t+1 and t+5: each case is planned by three
     * threads, at the same time for some. */
    const int k = (w->index + (i == 0 ? 0 : i == 1 ? 1 : 5)) % NUM_CASES;
    plan_and_run(w, &cases[k], w->seed_base + (uint64_t)(10 * w->index + i), stream);
  }
  if (stream != NULL) cu->StreamDestroy(stream);
  return NULL;
}

/* THREADS workers together; asserts that none failed and each ran every
 * one of its cases twice. */
static void run_workers(uint64_t seed_base) {
  pthread_barrier_t start;
  ck_assert_int_eq(pthread_barrier_init(&start, NULL, THREADS), 0);
  worker w[THREADS];
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){.index = i, .seed_base = seed_base, .start = &start};
    ck_assert_int_eq(pthread_create(&t[i], NULL, gpu_worker, &w[i]), 0);
  }
  for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_join(t[i], NULL), 0);
  pthread_barrier_destroy(&start);
  for (int i = 0; i < THREADS; i++) {
    ck_assert_msg(w[i].error[0] == '\0', "%s", w[i].error);
    ck_assert_int_eq(w[i].runs, 2 * CASES_PER_THREAD);
  }
}

static tp_kernel_cache_stats cache_stats(void) {
  tp_kernel_cache *cache;
  tp_kernel_cache_stats s;
  ck_assert_int_eq(tp_kernel_cache_global(&cache), TP_OK);
  tp_kernel_cache_stats_get(cache, &s);
  return s;
}

START_TEST(cold_then_warm) {
  const tp_kernel_cache_stats before = cache_stats();
  ck_assert_msg(before.links == 0 && before.disk_hits == 0 && before.memory_hits == 0,
                "the process cache is not cold");
  run_workers(1000);
  const tp_kernel_cache_stats cold = cache_stats();
  printf("cold: %lu links, %lu disk hits, %lu memory hits, %lu disk writes\n", cold.links,
         cold.disk_hits, cold.memory_hits, cold.disk_writes);
  /* A thread that misses after another stored the kernel reads it from
   * the disk: cold plans come from links and disk hits. */
  ck_assert_uint_ge(cold.links, 1);
  ck_assert_uint_ge(cold.links + cold.disk_hits + cold.memory_hits,
                    THREADS * CASES_PER_THREAD);
  run_workers(2000);
  const tp_kernel_cache_stats warm = cache_stats();
  printf("warm: %lu links, %lu disk hits, %lu memory hits\n", warm.links, warm.disk_hits,
         warm.memory_hits);
  ck_assert_uint_eq(warm.links, cold.links);
  ck_assert_uint_eq(warm.disk_hits, cold.disk_hits);
  ck_assert_uint_ge(warm.memory_hits, cold.memory_hits + THREADS * CASES_PER_THREAD);
}
END_TEST

/* "kernel NAME, ..., S bytes smem" of a plan's description. */
static void kernel_and_smem(const tp_plan *plan, char *kernel, size_t size, unsigned *smem) {
  char text[512];
  tp_plan_describe(plan, text, sizeof text);
  const char *k = strstr(text, "kernel ");
  const char *s = strstr(text, " bytes smem");
  ck_assert_msg(k && s, "no kernel or smem in \"%s\"", text);
  snprintf(kernel, size, "%.*s", (int)strcspn(k + 7, ","), k + 7);
  while (s > text && s[-1] >= '0' && s[-1] <= '9') s--;
  *smem = (unsigned)strtoul(s, NULL, 10);
}

START_TEST(one_kernel_two_plans) {
  const gemm_case *big = &cases[5], *small = &cases[6]; /* stages 4, then 3 */
  char err[256];
  gemm_problem p[2];
  tp_plan *plan[2] = {NULL, NULL};
  const gemm_case *c[2] = {big, small};
  for (int i = 0; i < 2; i++) {
    ck_assert_msg(gemm_problem_make(&p[i], reg, c[i], 3000u + (unsigned)i, TP_BACKEND_CUDA, err,
                                    sizeof err),
                  "%s", err);
    ck_assert_msg(tp_ref_problem_upload(p[i].host, err, sizeof err) == TP_OK, "%s", err);
    ck_assert_msg(tp_plan_create(&plan[i], reg, c[i]->payload, c[i]->epilogue,
                                 tp_ref_problem_device_desc(p[i].host), TP_BACKEND_CUDA) == TP_OK,
                  "%s", tp_error_message());
    char asked[640];
    ck_assert_msg(tp_test_tuned_plan_is_asked(c[i]->payload, plan[i], asked, sizeof asked), "%s",
                  asked);
  }
  char kernel[2][128];
  unsigned smem[2];
  for (int i = 0; i < 2; i++) kernel_and_smem(plan[i], kernel[i], sizeof kernel[i], &smem[i]);
  ck_assert_str_eq(kernel[0], kernel[1]);
  ck_assert_msg(smem[0] > smem[1], "stages 4 take %u bytes, stages 3 %u", smem[0], smem[1]);
  /* The larger plan first: its launch must still be allowed its smem. */
  worker w = {.index = 0};
  for (int i = 0; i < 2; i++) {
    run_once(&w, c[i], plan[i], &p[i], NULL);
    ck_assert_msg(w.error[0] == '\0', "%s", w.error);
  }
  for (int i = 0; i < 2; i++) {
    tp_plan_destroy(plan[i]);
    gemm_problem_free(&p[i]);
  }
}
END_TEST

static void add_tests(TCase *tc) {
  tcase_add_test(tc, cold_then_warm);
  tcase_add_test(tc, one_kernel_two_plans);
}

int main(void) {
  if (!tp_test_gpu_usable()) return 77;
  return tp_test_tuned_run("test_gpu_threads", tunings, sizeof tunings / sizeof tunings[0], 1, 900,
                           &reg, add_tests);
}
