/* tilepipe/plugin/fast_div.h: division by a divisor fixed at plan time, without
 * a divide instruction.
 *
 * GPUs have no integer divide: `n / d` with d known only at run time is a
 * reciprocal estimate and a correction, some twenty dependent instructions.
 * A persistent kernel that maps its next work unit to a tile with a few of
 * those (the standard payload's takes five) pays them at every tile, on the
 * path from one tile's epilogue to the next tile's mainloop. The host
 * computes, once, a multiplier and a shift; the kernel then divides with
 * one wide multiply:
 *
 *   n / d == (n * mul) >> shift   for 0 <= n < 2^31, 1 <= d < 2^31,
 *
 * with shift = 31 + ceil(log2 d) and mul = ceil(2^shift / d) (< 2^32): the
 * rounding error of mul, times n, stays below 2^shift (Granlund and
 * Montgomery's round-up method). Plain data for host C and device code. */
#ifndef TILEPIPE_PLUGIN_FAST_DIV_H
#define TILEPIPE_PLUGIN_FAST_DIV_H

#include <stdint.h>

#ifdef __CUDACC__
#define TP_FAST_DIV_FN static __host__ __device__ __forceinline__
#else
#define TP_FAST_DIV_FN static inline
#endif

typedef struct tp_fast_div {
  uint32_t divisor, mul, shift;
} tp_fast_div;

/* d must be in [1, 2^31). */
TP_FAST_DIV_FN tp_fast_div tp_fast_div_make(uint32_t d) {
  uint32_t log2_ceil = 0;
  while (((uint64_t)1 << log2_ceil) < d) ++log2_ceil;
  tp_fast_div f;
  f.divisor = d;
  f.shift = 31 + log2_ceil;
  f.mul = (uint32_t)((((uint64_t)1 << f.shift) + d - 1) / d);
  return f;
}

/* n / f.divisor, for n in [0, 2^31). */
TP_FAST_DIV_FN uint32_t tp_fast_div_quot(tp_fast_div f, uint32_t n) {
  return (uint32_t)(((uint64_t)n * f.mul) >> f.shift);
}

#endif
