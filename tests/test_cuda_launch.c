/* tests/test_cuda_launch.c: linked kernels loaded and launched on the GPU.
 *
 * Exits 77 (skip) when there is no usable GPU, saying why. Otherwise it
 * links tests/device/ (link_kernel + link_hook), loads the kernels through
 * the process cache and checks their results against the host on random
 * data: tp_test_axpy with a plain launch, tp_test_ws (warp-specialized,
 * setmaxnreg, 64 KiB of dynamic shared memory) with a cluster launch and a
 * ragged last block. Runs without fork: CUDA does not survive fork() once
 * the parent initialised it, and main() does to decide whether to skip. The
 * kernel cache lives in a fresh folder under $TMPDIR. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend/cuda/driver.h"
#include "core/backend/cuda/kernel.h"
#include "tests/cuda_blobs.h"
#include "tests/tmpdir.h"

static const tp_cuda_driver *cu;
static tp_cuda_device device;

static tp_link_request pair_request(tp_jit_input inputs[2]) {
  inputs[0] = tp_test_blob_link_kernel();
  inputs[1] = tp_test_blob_link_hook();
  return (tp_link_request){.inputs = inputs, .num_inputs = 2, .arch = TP_CUDA_LINK_ARCH};
}

/* Random floats in [-1, 1) from a fixed seed (xorshift). */
static void fill_random(float *v, int n, uint32_t seed) {
  for (int i = 0; i < n; i++) {
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    v[i] = (float)(seed >> 8) / (float)(1u << 23) - 1.0f;
  }
}

/* Inputs and output of hook(x, y) = 2x + y on n elements, on both sides.
 * No Check assertions in these helpers: a failed step prints and returns -1,
 * so they also serve threads other than the test's. */
typedef struct buffers {
  int n;
  float *x, *y, *out;
  CUdeviceptr dx, dy, dout;
} buffers;

static void buffers_free(buffers *b) {
  if (b->dx) cu->MemFree(b->dx);
  if (b->dy) cu->MemFree(b->dy);
  if (b->dout) cu->MemFree(b->dout);
  free(b->x);
  free(b->y);
  free(b->out);
}

static int failed(const char *what) {
  printf("%s: %s\n", what, tp_error_message());
  return -1;
}

/* Random x and y, copied to the device; out filled with NaNs, so that an
 * element the kernel does not write fails the comparison. */
static int buffers_init(buffers *b, int n) {
  size_t bytes = (size_t)n * sizeof(float);
  *b = (buffers){.n = n, .x = malloc(bytes), .y = malloc(bytes), .out = malloc(bytes)};
  if (!b->x || !b->y || !b->out) return -1;
  fill_random(b->x, n, 12345u);
  fill_random(b->y, n, 67890u);
  if (tp_cuda_check(cu->MemAlloc(&b->dx, bytes), "cuMemAlloc") != TP_OK ||
      tp_cuda_check(cu->MemAlloc(&b->dy, bytes), "cuMemAlloc") != TP_OK ||
      tp_cuda_check(cu->MemAlloc(&b->dout, bytes), "cuMemAlloc") != TP_OK ||
      tp_cuda_check(cu->MemcpyHtoD(b->dx, b->x, bytes), "cuMemcpyHtoD") != TP_OK ||
      tp_cuda_check(cu->MemcpyHtoD(b->dy, b->y, bytes), "cuMemcpyHtoD") != TP_OK ||
      tp_cuda_check(cu->MemsetD8(b->dout, 0xff, bytes), "cuMemsetD8") != TP_OK)
    return failed("buffers_init");
  return 0;
}

/* Waits for the kernel; the number of elements that differ from the host's
 * result (2x is exact, so a fused multiply-add rounds the same), or -1. */
static int buffers_wrong(buffers *b) {
  if (tp_cuda_check(cu->CtxSynchronize(), "cuCtxSynchronize") != TP_OK ||
      tp_cuda_check(cu->MemcpyDtoH(b->out, b->dout, (size_t)b->n * sizeof(float)),
                    "cuMemcpyDtoH") != TP_OK)
    return failed("buffers_wrong");
  int wrong = 0;
  for (int i = 0; i < b->n; i++) wrong += !(b->out[i] == 2.0f * b->x[i] + b->y[i]);
  return wrong;
}

static tp_status launch_on(const tp_cuda_kernel *kernel, const tp_cuda_dims *dims, buffers *b,
                           int chunk) {
  void *params[] = {&b->dx, &b->dy, &b->dout, &b->n, &chunk};
  return tp_cuda_launch(kernel, dims, NULL, params, "the kernel");
}

/* A launch of k with no arguments, for the refusals. */
static tp_status launch_refused(const tp_cuda_kernel *k, const tp_cuda_dims *dims,
                                void **params) {
  return tp_cuda_launch(k, dims, NULL, params, "the kernel");
}

/* Mismatches of one run of kernel over n fresh elements, or -1. */
static int run_and_compare(const tp_cuda_kernel *kernel, const tp_cuda_dims *dims, int n,
                           int chunk) {
  buffers b;
  int wrong = buffers_init(&b, n);
  if (wrong == 0)
    wrong = launch_on(kernel, dims, &b, chunk) == TP_OK ? buffers_wrong(&b) : failed("launch");
  buffers_free(&b);
  return wrong;
}

START_TEST(device_is_a_hopper) {
  ck_assert_int_eq(device.cc_major, 9);
  ck_assert_int_eq(device.cc_minor, 0);
  ck_assert_int_gt(device.sm_count, 0);
  ck_assert_int_ge(device.max_smem_optin, 200 * 1024);
  ck_assert_int_gt(device.l2_bytes, 0);
  ck_assert_int_ge(device.driver_version, 13000);
  ck_assert_int_gt((int)strlen(device.name), 0);
  printf("device %d: %s, %d SMs, %d KiB smem opt-in, %d MiB L2, driver %d\n", device.ordinal,
         device.name, device.sm_count, device.max_smem_optin / 1024, device.l2_bytes >> 20,
         device.driver_version);
}
END_TEST

START_TEST(axpy_runs) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_cuda_kernel k;
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_axpy", 0, &k), TP_OK);
  ck_assert_int_gt(k.stats.registers, 0);
  const int n = 100003;
  tp_cuda_dims dims = {{(n + 255) / 256, 1, 1}, {256, 1, 1}, {0, 0, 0}, 0, 0};
  ck_assert_int_eq(run_and_compare(&k, &dims, n, 0), 0);
}
END_TEST

START_TEST(warp_specialized_cluster_runs) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const int chunk = 16384; /* floats per block: 64 KiB of dynamic shared memory */
  const unsigned smem = chunk * sizeof(float);
  tp_cuda_kernel k;
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_ws", (int)smem, &k), TP_OK);
  ck_assert_int_eq(k.stats.stack_bytes, 0);
  const int n = 5 * chunk + 123; /* 6 blocks, the last one ragged */
  tp_cuda_dims dims = {{6, 1, 1}, {384, 1, 1}, {2, 1, 1}, smem, 0};
  ck_assert_int_eq(run_and_compare(&k, &dims, n, chunk), 0);
}
END_TEST

START_TEST(cached_kernel_is_the_same) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_cuda_kernel a, b;
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_axpy", 0, &a), TP_OK);
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_axpy", 0, &b), TP_OK);
  ck_assert_ptr_eq(a.entry, b.entry);
  ck_assert_ptr_eq(a.kernel, b.kernel);
}
END_TEST

/* Two callers of one kernel asking for different dynamic shared memory (as
 * plans of different stages do): the later, smaller request must not lower
 * the kernel's limit under the earlier one's launches. */
START_TEST(smaller_request_keeps_the_larger_launch) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  const int chunk = 16384;
  const unsigned smem = chunk * sizeof(float);
  tp_cuda_kernel big, small;
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_ws", (int)smem, &big), TP_OK);
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_ws", (int)smem - 8192, &small), TP_OK);
  ck_assert_ptr_eq(big.kernel, small.kernel);
  const int n = 3 * chunk + 5;
  tp_cuda_dims dims = {{4, 1, 1}, {384, 1, 1}, {2, 1, 1}, smem, 0};
  ck_assert_int_eq(run_and_compare(&big, &dims, n, chunk), 0);
}
END_TEST

typedef struct elsewhere {
  const tp_cuda_kernel *kernel;
  buffers *b;
  tp_status status;
} elsewhere;

static void *launch_elsewhere(void *arg) {
  /* A new thread has no current context: tp_cuda_launch makes one current. */
  elsewhere *e = arg;
  tp_cuda_dims dims = {{4, 1, 1}, {256, 1, 1}, {1, 1, 1}, 0, 0};
  e->status = launch_on(e->kernel, &dims, e->b, 0);
  if (e->status == TP_OK) e->status = tp_cuda_check(cu->CtxSynchronize(), "cuCtxSynchronize");
  return NULL;
}

START_TEST(launch_from_another_thread) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_cuda_kernel k;
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_axpy", 0, &k), TP_OK);
  buffers b;
  ck_assert_int_eq(buffers_init(&b, 1000), 0);
  elsewhere e = {&k, &b, TP_ERR_INTERNAL};
  pthread_t t;
  ck_assert_int_eq(pthread_create(&t, NULL, launch_elsewhere, &e), 0);
  ck_assert_int_eq(pthread_join(t, NULL), 0);
  ck_assert_int_eq(e.status, TP_OK);
  ck_assert_int_eq(buffers_wrong(&b), 0);
  buffers_free(&b);
}
END_TEST

START_TEST(bad_kernels_and_launches_are_refused) {
  tp_jit_input in[2];
  tp_link_request r = pair_request(in);
  tp_cuda_kernel k;
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "no_such_kernel", 0, &k), TP_ERR_CUDA);
  ck_assert_ptr_nonnull(strstr(tp_error_message(), "no_such_kernel"));
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_ws", device.max_smem_optin + 1, &k),
                   TP_ERR_UNSUPPORTED);
  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_ws", -1, &k), TP_ERR_INVALID_ARGUMENT);
  tp_jit_input unbounded[2] = {tp_test_blob_link_ws_unbounded(), in[1]};
  tp_link_request bad = r;
  bad.inputs = unbounded;
  ck_assert_int_eq(tp_cuda_kernel_get(&bad, "tp_test_ws_unbounded", 0, &k), TP_ERR_LINK);

  ck_assert_int_eq(tp_cuda_kernel_get(&r, "tp_test_ws", 65536, &k), TP_OK);
  void *params[5] = {NULL};
  tp_cuda_dims cluster_mismatch = {{6, 1, 1}, {384, 1, 1}, {4, 1, 1}, 0, 0};
  ck_assert_int_eq(launch_refused(&k, &cluster_mismatch, params), TP_ERR_INVALID_ARGUMENT);
  tp_cuda_dims half_cluster = {{6, 1, 1}, {384, 1, 1}, {2, 0, 1}, 0, 0};
  ck_assert_int_eq(launch_refused(&k, &half_cluster, params), TP_ERR_INVALID_ARGUMENT);
  tp_cuda_dims big_cluster = {{32, 1, 1}, {384, 1, 1}, {16, 1, 1}, 0, 0};
  ck_assert_int_eq(launch_refused(&k, &big_cluster, params), TP_ERR_INVALID_ARGUMENT);
  tp_cuda_dims too_much_smem = {{2, 1, 1}, {384, 1, 1}, {0, 0, 0}, 65536 + 1024, 0};
  ck_assert_int_eq(launch_refused(&k, &too_much_smem, params), TP_ERR_INVALID_ARGUMENT);
  tp_cuda_dims too_many_threads = {{2, 1, 1}, {1024, 2, 1}, {0, 0, 0}, 0, 0};
  ck_assert_int_eq(launch_refused(&k, &too_many_threads, params), TP_ERR_INVALID_ARGUMENT);
  tp_cuda_dims zero = {{0, 1, 1}, {384, 1, 1}, {0, 0, 0}, 0, 0};
  ck_assert_int_eq(launch_refused(&k, &zero, params), TP_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(launch_refused(NULL, &zero, params), TP_ERR_INVALID_ARGUMENT);
}
END_TEST

int main(void) {
  tp_status st = tp_cuda_device_get(&device);
  if (st == TP_ERR_NO_DEVICE) {
    printf("skipped: %s\n", tp_error_message());
    return 77;
  }
  if (st != TP_OK || tp_cuda_driver_get(&cu) != TP_OK) {
    printf("cannot use the GPU: %s\n", tp_error_message());
    return 99;
  }
  char dir[1024];
  if (tp_test_tmpdir_make(dir, sizeof dir, "tilepipe-test-cuda-launch") != 0) {
    perror("cannot make a scratch folder");
    return 99;
  }
  setenv("TILEPIPE_CACHE_DIR", dir, 1);

  Suite *s = suite_create("cuda_launch");
  TCase *tc = tcase_create("launch");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, device_is_a_hopper);
  tcase_add_test(tc, axpy_runs);
  tcase_add_test(tc, warp_specialized_cluster_runs);
  tcase_add_test(tc, cached_kernel_is_the_same);
  tcase_add_test(tc, smaller_request_keeps_the_larger_launch);
  tcase_add_test(tc, launch_from_another_thread);
  tcase_add_test(tc, bad_kernels_and_launches_are_refused);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  tp_test_tmpdir_remove(dir);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
