/* tilepipe/plugin/device/kernel.h: the structured kernel.
 *
 * Computes D[M,N] = epilogue(mainloop(A, B)) on Hopper (sm_90a) for any
 * payload's mainloop (kernel_mainloop.h) and any epilogue hook
 * (tilepipe/plugin/device/epilogue.h, linked in at plan time by nvJitLink). One
 * CTA = TP_KERNEL_THREADS (384) threads, persistent over work units
 * (kernel_schedule.h) of BM x BN output tiles (tilepipe/plugin/kernel/tiles.h):
 *
 *   warpgroup 0, producers (PRODUCER_REGS registers): warp 0 the main
 *     loader (the mainloop's load), warp 1 the TMA store of D (and, at the
 *     start of a decode-sized GEMM, the mainloop's warm), warp 2 the
 *     source loader of C (kernel_producers.h; a transposed mainloop's
 *     consumers store D and read C themselves, kernel_epilogue.h);
 *   warpgroups 1, 2, consumers (CONSUMER_REGS registers): the mainloop's
 *     mma over rows 64w..64w+63 of the tile, then the epilogue, chunk by
 *     chunk (kernel_consumer.h, kernel_epilogue.h); in a 64-row tile the
 *     second warpgroup has no work and goes to the end.
 *
 * The kernel is launched as the programmatic dependent of the stream's
 * previous kernel (tilepipe/internal/kernel/grid_dependency.h): its setup may run
 * while that kernel ends, and nothing touches A, B, C, D or the workspace
 * before it has.
 *
 * Invariants:
 *   - every role walks the same work-unit sequence;
 *   - every role steps the input pipeline alike: a unit's k-blocks, then
 *     for a tile's last split with staged C one stage more;
 *   - barrier counts (the storage layout's, from the one stage count):
 *     input full 1 (the loader's expect_tx), input empty = the consumer
 *     warps (8 in a 128-row tile, 4 in a 64-row one) x CLUSTER_M (every
 *     consumer warp of every CTA that received our multicast half of B
 *     frees it); output full the consumer warps, empty 1; source full 1,
 *     empty 1 (the store warp); load order 1.
 *
 * A payload's device file defines its kernels with TP_KERNEL_ENTRY, one per
 * tile of tilepipe/plugin/kernel/tiles.h (TP_KERNEL_FOR_EACH_INSTANCE); it is
 * built into LTO-IR (nvcc -dc -fatbin -gencode
 * arch=compute_90a,code=lto_90a), never into a cubin of its own. */
#ifndef TILEPIPE_PLUGIN_DEVICE_KERNEL_H
#define TILEPIPE_PLUGIN_DEVICE_KERNEL_H

#include <stdint.h>

#include "tilepipe/internal/kernel/grid_dependency.h"
#include "tilepipe/internal/kernel/kernel_consumer.h"
#include "tilepipe/internal/kernel/kernel_producers.h"
#include "tilepipe/plugin/kernel/tiles.h"

/* setmaxnreg budgets. A CTA starts with TP_KERNEL_LAUNCH_REGS per thread
 * (what __launch_bounds__(384, 1) leaves: 64K / 384 rounded down to 8), and
 * setmaxnreg.inc waits for registers that a dec has given back, so the
 * consumers can gain no more than the producers give up: 128 x (168 - 40)
 * = 256 x (232 - 168): a producer budget above 40 leaves the consumers'
 * inc waiting forever (the static_assert below). The producers must fit
 * in 40 (no spill: the link check refuses one); the consumers need 232 for
 * 128 accumulators at BN 256. */
enum {
  TP_KERNEL_LAUNCH_REGS = 65536 / TP_KERNEL_THREADS / 8 * 8,
  TP_KERNEL_PRODUCER_REGS = 40,
  TP_KERNEL_CONSUMER_REGS = 232
};
static_assert(128 * (TP_KERNEL_LAUNCH_REGS - TP_KERNEL_PRODUCER_REGS) >=
                  256 * (TP_KERNEL_CONSUMER_REGS - TP_KERNEL_LAUNCH_REGS),
              "the consumers' setmaxnreg.inc would wait forever for registers");

template <class ML, int BM, int BN, int DT, int CLUSTER_M>
TP_KERNEL_FN void tp_kernel_run(const typename ML::params &p) {
  const tp_kernel_params &k = p.kernel;
  const uint32_t warp = threadIdx.x / 32u;
  constexpr uint32_t consumer_warps = 4u * tp_kernel_rows<BM>::warpgroups;
  if (threadIdx.x == 0) {
    tp_storage_counts counts;
    counts.input_consumers = consumer_warps * CLUSTER_M;
    counts.output_writers = consumer_warps;
    counts.source_readers = 1u; /* the store warp */
    tp_storage_init_barriers(tp_kernel_smem(), &k.smem, &counts);
    tp_mbar_fence_init();
    ML::prefetch(p);
    if (k.n_tma > 0) tp_tma_prefetch_desc(&k.d);
  } else if (warp == 1 && k.m <= TP_KERNEL_WARPGROUP_ROWS && tp_elect_one()) {
    /* A decode-sized M is bound by streaming B: its first k-blocks head
     * for L2 while the barriers are set up. Over more rows it measured
     * slower (docs/kernel.md, "One tile"). */
    ML::template warm<BM, BN, CLUSTER_M>(p);
  }
  /* Peers' barriers must be initialised before any multicast lands in them. */
  if (CLUSTER_M > 1) {
    tp_cluster_sync();
  } else {
    __syncthreads();
  }
  /* Launched as the stream's previous kernel's dependent: everything above
   * may overlap its end; A, B, C, D and the workspace wait for it. */
  tp_grid_dependency_wait();

  if (warp < 4) {
    tp_setmaxnreg_dec<TP_KERNEL_PRODUCER_REGS>();
    if (warp == 0 && tp_elect_one()) {
      tp_kernel_loader<ML, BM, BN, DT, CLUSTER_M>(p);
      /* Every load issued: the next kernel may start launching onto the
       * SMs that CTAs leave, its setup under our last tiles (docs/kernel.md,
       * "Back to back"). */
      tp_grid_launch_dependents();
    } else if constexpr (!ML::transposed) {
      /* (Transposed, the consumers write D themselves: kernel_epilogue.h.) */
      if (warp == 1 && tp_elect_one()) {
        tp_kernel_storer<BM, BN, DT, CLUSTER_M>(k);
      } else if (warp == 2 && k.epilogue.source_dtype != TP_DTYPE_NONE && tp_elect_one()) {
        tp_kernel_source_loader<BM, BN, DT, CLUSTER_M>(k);
      }
    }
  } else if (warp < 4u + consumer_warps) {
    tp_setmaxnreg_inc<TP_KERNEL_CONSUMER_REGS>();
    tp_kernel_consumer<ML, BM, BN, DT, CLUSTER_M>(p, warp / 4u - 1u);
  }
  /* No CTA of the cluster may leave while a peer may still arrive on its
   * barriers (remote empty arrivals, multicast bytes). */
  if (CLUSTER_M > 1) tp_cluster_sync();
}

/* The body of a kernel: the skeleton for the tiles the mainloop takes (no
 * wider than its max_tile_n, a width that divides its n_block); another,
 * which the host planner never picks for it (tp_kernel_plan_shape), traps. */
template <class ML, int BM, int BN, int DT, int CLUSTER_M>
TP_KERNEL_FN void tp_kernel_entry(const typename ML::params &p) {
  if constexpr (BN <= ML::max_tile_n && ML::n_block % BN == 0) {
    tp_kernel_run<ML, BM, BN, DT, CLUSTER_M>(p);
  } else {
    __trap();
  }
}

/* Defines the kernel NAME: mainloop ML (one token: a typedef) on a BM x BN
 * tile in clusters of CLUSTER_M, D of dtype DT. */
#define TP_KERNEL_ENTRY(NAME, ML, BM, BN, DT, CLUSTER_M)                                 \
  extern "C" __global__ void __launch_bounds__(TP_KERNEL_THREADS, 1)                     \
      NAME(const __grid_constant__ ML::params p) {                                       \
    tp_kernel_entry<ML, BM, BN, DT, CLUSTER_M>(p);                                       \
  }

#endif
