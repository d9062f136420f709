/* tests/device/link_kernel.cu: the "payload" side of the link tests.
 *
 * Two kernels that call tp_test_hook, which only link_hook.cu defines, so
 * this blob links only together with that one:
 *   tp_test_axpy: one thread per element, out = hook(x, y);
 *   tp_test_ws:   the warp-specialized kernel of warp_specialized.cuh with
 *                 __launch_bounds__(384, 1), which must link without any
 *                 C75xx diagnostic (setmaxnreg honoured, no extern call). */
#include "warp_specialized.cuh"

extern "C" __global__ void tp_test_axpy(const float *x, const float *y, float *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tp_test_hook(x[i], y[i]);
}

extern "C" __global__ void __launch_bounds__(384, 1)
    tp_test_ws(const float *x, const float *y, float *out, int n, int chunk) {
  tp_test_ws_body(x, y, out, n, chunk);
}
