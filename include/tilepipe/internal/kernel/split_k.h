/* tilepipe/internal/kernel/split_k.h: split-K partial sums meeting in global memory.
 *
 * When an output tile's K is split over S CTAs, the first S-1 each write
 * their f32 accumulators to a slot of their own and count themselves in the
 * tile's counter; the last waits until the counter reaches S-1, adds the
 * slots in split order (the sum does not depend on which CTA finished
 * first) and runs the epilogue. One warpgroup's worth of threads works
 * together on a slot and a counter:
 *
 *   non-last:  tp_split_k_store<N>(acc, slot, t, 128);
 *              tp_split_k_arrive(counter, bar, t, 128);
 *   last:      tp_split_k_wait(counter, S - 1, bar, t, 128);   (resets it to 0)
 *              for each earlier split: tp_split_k_add<N>(acc, slot, t, 128);
 *
 * N is the accumulator floats per thread (a multiple of 4); t the thread's
 * index in the group of `threads` (thread 0 does the counting); `bar` a
 * named barrier of those threads. A slot keeps each thread's accumulators
 * in its own order, float4 by float4 interleaved across the threads
 * (coalesced; only the same kernel reads it back). The wait spins: every
 * CTA it waits for must be resident or already done, which a persistent
 * grid that gives a tile's splits to consecutive CTAs and puts the last
 * one last guarantees (CTAs of lower index are dispatched first). */
#ifndef TILEPIPE_INTERNAL_KERNEL_SPLIT_K_H
#define TILEPIPE_INTERNAL_KERNEL_SPLIT_K_H

#include <stdint.h>

#include "tilepipe/plugin/device/warpgroup.h"

#define TP_SPLIT_K_FN static __device__ __forceinline__

/* Writes the N accumulators of thread t (of `threads`) into slot. L2 only:
 * the reader is another SM. */
template <int N>
TP_SPLIT_K_FN void tp_split_k_store(const float *acc, float4 *slot, uint32_t t, uint32_t threads) {
#pragma unroll
  for (int v = 0; v < N / 4; ++v) {
    __stcg(slot + v * threads + t,
           make_float4(acc[4 * v], acc[4 * v + 1], acc[4 * v + 2], acc[4 * v + 3]));
  }
}

/* Adds slot's partial sums for thread t into its N accumulators. */
template <int N>
TP_SPLIT_K_FN void tp_split_k_add(float *acc, const float4 *slot, uint32_t t, uint32_t threads) {
#pragma unroll
  for (int v = 0; v < N / 4; ++v) {
    const float4 p = __ldcg(slot + v * threads + t);
    acc[4 * v] += p.x;
    acc[4 * v + 1] += p.y;
    acc[4 * v + 2] += p.z;
    acc[4 * v + 3] += p.w;
  }
}

/* After every thread of the group has stored its part: one arrival on the
 * tile's counter, released at GPU scope (the slot's writes come first). */
TP_SPLIT_K_FN void tp_split_k_arrive(uint32_t *counter, uint32_t bar, uint32_t t,
                                     uint32_t threads) {
  __threadfence();
  tp_named_barrier_sync(bar, threads);
  if (t == 0)
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
}

/* Returns once `arrivals` splits have arrived on counter, their slots
 * visible to every thread of the group; leaves the counter at 0 for the
 * next run. */
TP_SPLIT_K_FN void tp_split_k_wait(uint32_t *counter, uint32_t arrivals, uint32_t bar, uint32_t t,
                                   uint32_t threads) {
  if (t == 0) {
    uint32_t seen = 0;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
    } while (seen < arrivals);
    *(volatile uint32_t *)counter = 0u;
  }
  tp_named_barrier_sync(bar, threads);
}

#endif
