/* tilepipe/plugin/device/warpgroup.h: warp roles, register budgets, named barriers,
 * and the cluster of CTAs.
 *
 * Warpgroup = 4 consecutive warps starting at a warp index divisible by 4
 * (wgmma's rule). setmaxnreg moves registers between warpgroups: producers
 * give theirs up, consumers take them; it only works when the kernel has a
 * register cap at entry (__launch_bounds__(threads, 1)) and each role is one
 * branch of a warpgroup-uniform if/else (ptxas warns C7508 otherwise, and the
 * link check turns that into a failure). */
#ifndef TILEPIPE_PLUGIN_DEVICE_WARPGROUP_H
#define TILEPIPE_PLUGIN_DEVICE_WARPGROUP_H

#include <stdint.h>

#define TP_WG_FN static __device__ __forceinline__

template <int REGS>
TP_WG_FN void tp_setmaxnreg_inc(void) {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}

template <int REGS>
TP_WG_FN void tp_setmaxnreg_dec(void) {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}

/* Named barrier `id` (1..15; 0 is __syncthreads) over `threads` threads. */
TP_WG_FN void tp_named_barrier_sync(uint32_t id, uint32_t threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

/* One lane of the warp is elected (lane 0 when all are active). */
TP_WG_FN bool tp_elect_one(void) {
  uint32_t pred = 0;
  asm volatile(
      "{\n\t.reg .b32 lane;\n\t.reg .pred p;\n\t"
      "elect.sync lane|p, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, p;\n\t}"
      : "=r"(pred));
  return pred != 0;
}

TP_WG_FN uint32_t tp_cluster_ctarank(void) {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

/* All threads of all CTAs of the cluster meet (release/acquire). Not the
 * .aligned form: threads of one warp may arrive at different times (an
 * elected lane returns late from its role). */
TP_WG_FN void tp_cluster_sync(void) {
  asm volatile("barrier.cluster.arrive.release;\n\t"
               "barrier.cluster.wait.acquire;" ::: "memory");
}

#endif
