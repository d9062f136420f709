/* tests/test_gpu_warm.c: on a GPU, plans read what a warm linked.
 *
 * A child process warms the kernel cache (a fresh folder) for three
 * standard x store problems and one standard x residual problem, its
 * target taken from the device, two links at a time; then this process,
 * whose nvJitLink cannot be opened ($TILEPIPE_NVJITLINK names no file), creates
 * their plans: each can only come from the cache, which proves the warm
 * picked the very kernels the plans pick. It prints each plan's creation
 * time (from the disk cache; tilepipe/warm.h). Exits 77 without a GPU.
 *
 * The warm runs in a child forked before this process touches CUDA (a
 * child of a process that has run cuInit may not use CUDA). No Check: one
 * straight run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/tmpdir.h"
#include "tilepipe/device.h"
#include "tilepipe/reference.h"
#include "tilepipe/tilepipe.h"

typedef struct warm_case {
  const char *epilogue;
  int64_t m, n, k;
} warm_case;

static const warm_case cases[] = {
    {"store", 4096, 4096, 4096},
    {"store", 64, 4096, 7168},
    {"store", 1000, 1024, 1008},
    {"residual", 4096, 4096, 4096},
};
#define NUM_CASES (sizeof cases / sizeof cases[0])

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The case's problem (bf16, D bf16; the residual's C bf16, beta = 1; data
 * pointers NULL, which planning never reads). */
static int describe(tp_registry *reg, const warm_case *wc, tp_gemm_desc *desc) {
  const int residual = strcmp(wc->epilogue, "residual") == 0;
  tp_ref_problem_spec spec = {.struct_size = sizeof spec, .registry = reg,
                              .payload = "standard", .a = TP_DTYPE_BF16, .b = TP_DTYPE_BF16,
                              .d = TP_DTYPE_BF16,
                              .c = residual ? TP_DTYPE_BF16 : TP_DTYPE_NONE,
                              .c_pad = residual ? 8 : 0, .m = wc->m, .n = wc->n, .k = wc->k,
                              .alpha = 1.0f, .beta = residual ? 1.0f : 0.0f};
  tp_problem problem;
  char err[1024];
  if (tp_ref_problem_describe(&spec, desc, &problem, err, sizeof err) != TP_OK) {
    fprintf(stderr, "test_gpu_warm: %s\n", err);
    return -1;
  }
  return 0;
}

/* The child: warms every case's kernel, pair by pair; 0 on success, 77
 * without a GPU to take the target from. */
static int warm_all(tp_registry *reg) {
  for (size_t i = 0; i < NUM_CASES; i++) {
    tp_gemm_desc desc;
    if (describe(reg, &cases[i], &desc) != 0) return 1;
    tp_warm_options opt = {.struct_size = sizeof opt, .target = NULL, .jobs = 2};
    tp_warm_result r = {.struct_size = sizeof r};
    const double t0 = now_ms();
    const tp_status st = tp_cache_warm(reg, "standard", cases[i].epilogue, &desc, 1, &opt, &r);
    if (st == TP_ERR_NO_DEVICE) {
      printf("test_gpu_warm: no GPU to plan for (%s); skipped\n", tp_error_message());
      return 77;
    }
    if (st != TP_OK) {
      fprintf(stderr, "FAIL: warm: %s\n", tp_error_message());
      return 1;
    }
    printf("warm %s %lldx%lldx%lld: %d linked, %d cached, %.0f ms\n", cases[i].epilogue,
           (long long)cases[i].m, (long long)cases[i].n, (long long)cases[i].k, r.linked, r.cached,
           now_ms() - t0);
  }
  return 0;
}

int main(void) {
  char dir[1024];
  if (tp_test_tmpdir_make(dir, sizeof dir, "tilepipe-test-gpu-warm") != 0) {
    perror("test_gpu_warm: scratch folder");
    return 99;
  }
  setenv("TILEPIPE_CACHE_DIR", dir, 1);
  tp_registry *reg = NULL;
  if (tp_registry_open(&reg, TP_TEST_REGISTRY) != TP_OK) {
    fprintf(stderr, "test_gpu_warm: %s\n", tp_error_message());
    tp_test_tmpdir_remove(dir);
    return 99;
  }
  fflush(stdout);
  const pid_t pid = fork();
  if (pid == 0) {
    const int child = warm_all(reg);
    fflush(stdout);
    _exit(child);
  }
  int status = 0, rc = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) {
    perror("test_gpu_warm: the warming child");
    rc = 99;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    tp_device_props props;
    setenv("TILEPIPE_NVJITLINK", "/nonexistent/libnvJitLink.so", 1);
    if (tp_device_info(&props) != TP_OK) { /* the context, before timing plans */
      fprintf(stderr, "FAIL: the child found a GPU, this process does not: %s\n",
              tp_error_message());
      rc = 1;
    }
    for (size_t i = 0; rc == 0 && i < NUM_CASES; i++) {
      tp_gemm_desc desc;
      tp_plan *plan = NULL;
      char line[512];
      if (describe(reg, &cases[i], &desc) != 0) {
        rc = 1;
        break;
      }
      const double t0 = now_ms();
      const tp_status st =
          tp_plan_create(&plan, reg, "standard", cases[i].epilogue, &desc, TP_BACKEND_CUDA);
      const double ms = now_ms() - t0;
      if (st != TP_OK) {
        fprintf(stderr, "FAIL: plan %s %lldx%lldx%lld did not come from the warmed cache: %s\n",
                cases[i].epilogue, (long long)cases[i].m, (long long)cases[i].n,
                (long long)cases[i].k, tp_error_message());
        rc = 1;
      } else {
        tp_plan_describe(plan, line, sizeof line);
        printf("plan from the disk cache in %.2f ms: %s\n", ms, line);
      }
      tp_plan_destroy(plan);
    }
  } else {
    rc = WIFEXITED(status) && WEXITSTATUS(status) == 77 ? 77 : 1;
  }
  tp_registry_close(reg);
  tp_test_tmpdir_remove(dir);
  return rc;
}
