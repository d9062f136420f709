/* tests/device/warp_specialized.cuh: the body of the warp-specialized test
 * kernels (one producer and two consumer warpgroups, 384 threads).
 *
 * The producer warpgroup gives registers back with setmaxnreg.dec and stages
 * x into dynamic shared memory; the consumers take registers with
 * setmaxnreg.inc and compute out = tp_test_hook(x, y) from the staged x. The
 * includer sets __launch_bounds__: with (384, 1) ptxas knows the register
 * count at entry and honours setmaxnreg; without the min-blocks argument it
 * ignores it (C7508). Each block handles `chunk` elements; chunk * 4 bytes of
 * dynamic shared memory are needed. */
#ifndef TP_TESTS_WARP_SPECIALIZED_CUH
#define TP_TESTS_WARP_SPECIALIZED_CUH

extern "C" __device__ float tp_test_hook(float x, float y);

static __device__ __forceinline__ void tp_test_ws_body(const float *x, const float *y, float *out,
                                                       int n, int chunk) {
  extern __shared__ float staged[];
  const int base = blockIdx.x * chunk;
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    for (int j = threadIdx.x; j < chunk; j += 128)
      staged[j] = base + j < n ? x[base + j] : 0.0f;
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
  }
  __syncthreads();
  if (warpgroup != 0) {
    for (int j = threadIdx.x - 128; j < chunk; j += 256)
      if (base + j < n) out[base + j] = tp_test_hook(staged[j], y[base + j]);
  }
}

#endif
