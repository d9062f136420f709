/* tests/device/link_ws_unbounded.cu: the warp-specialized kernel without
 * __launch_bounds__'s min-blocks argument. ptxas cannot tell the register
 * count at entry and ignores setmaxnreg (C7508): linking this blob must fail
 * the link-log check. */
#include "warp_specialized.cuh"

extern "C" __global__ void __launch_bounds__(384)
    tp_test_ws_unbounded(const float *x, const float *y, float *out, int n, int chunk) {
  tp_test_ws_body(x, y, out, n, chunk);
}
