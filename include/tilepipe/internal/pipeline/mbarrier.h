/* tilepipe/internal/pipeline/mbarrier.h: the 8-byte shared-memory barrier.
 *
 * A tp_mbar follows the PTX mbarrier: it counts down pending arrivals and a
 * signed transaction byte count; when both reach zero its phase completes (the
 * phase parity flips) and the arrival count resets. A wait names a parity and
 * returns once the phase with that parity has completed:
 *
 *   tp_mbar_init(b, count)           one thread, before anyone uses b
 *   tp_mbar_arrive(b)                one arrival
 *   tp_mbar_arrive_expect_tx(b, n)   n more bytes to come, then one arrival
 *   tp_mbar_expect_tx(b, n)          n more bytes to come, no arrival
 *   tp_mbar_complete_tx(b, n)        n bytes have landed (what TMA does)
 *   tp_mbar_try_wait(b, parity)      one probe: has that phase completed?
 *   tp_mbar_wait(b, parity)          probe until it has
 *   tp_mbar_arrive_warp(b)           one arrival for a whole warp (below)
 *   tp_mbar_arrive_with(b, arrival)  per thread, per warp, or on cluster CTAs
 *
 * On the device these are the PTX instructions (mbarrier_device.h); on the host
 * an emulation on one 64-bit C11 atomic (mbarrier_host.h) with the same
 * semantics, release on arrive and acquire on a successful wait. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_MBARRIER_H
#define TILEPIPE_INTERNAL_PIPELINE_MBARRIER_H

#include "tilepipe/internal/pipeline/defs.h"

#if TP_PIPE_DEVICE
#include "tilepipe/internal/pipeline/mbarrier_device.h"
#else
#include "tilepipe/internal/pipeline/mbarrier_host.h"
#endif

/* One arrival on behalf of a whole warp. On the device every lane calls it
 * (converged): __syncwarp orders all lanes' earlier shared-memory accesses
 * before lane 0's arrival, so a barrier counting warps instead of threads
 * still covers every lane's reads and writes. On the host one thread stands
 * for one warp and simply arrives. */
TP_PIPE_FN void tp_mbar_arrive_warp(tp_mbar *b) {
#if TP_PIPE_DEVICE
  __syncwarp();
  if (tp_lane_id() == 0) tp_mbar_arrive(b);
#else
  tp_mbar_arrive(b);
#endif
}

/* How a role signals a barrier it releases, fixed when its view is made so
 * that the barrier's arrival count and the arrivals agree:
 *   per_warp 0: one arrival per calling thread; 1: one per warp (all lanes
 *     call, see tp_mbar_arrive_warp; a host thread is one warp);
 *   cta_mask 0: this CTA's barrier; else (device) the barrier at the same
 *     offset in each CTA of the cluster whose bit is set (rank < 16), e.g.
 *     the CTAs whose multicast loads filled the stage. The host has one CTA
 *     and ignores the mask.
 * Per-warp arrivals are valid under the PTX memory model, but
 * compute-sanitizer racecheck does not follow "lanes access shared memory,
 * __syncwarp, lane 0 arrives" and reports the other lanes' accesses: code
 * run under racecheck arrives per thread and sizes its counts with
 * tp_arrival_count (the device pipeline test's --thread-arrivals). */
typedef struct tp_arrival {
  uint32_t per_warp;
  uint32_t cta_mask;
} tp_arrival;

TP_PIPE_FN tp_arrival tp_arrival_make(uint32_t per_warp, uint32_t cta_mask) {
  tp_arrival a;
  a.per_warp = per_warp;
  a.cta_mask = cta_mask;
  return a;
}
TP_PIPE_FN tp_arrival tp_arrival_thread(void) { return tp_arrival_make(0, 0); }
TP_PIPE_FN tp_arrival tp_arrival_warp(void) { return tp_arrival_make(1, 0); }

/* The arrivals `warps` warps make on one barrier with arrival a: size the
 * barrier's count with it so that count and unit cannot disagree. A host
 * thread stands for a warp, so on the host it is `warps` either way. */
TP_PIPE_FN uint32_t tp_arrival_count(tp_arrival a, uint32_t warps) {
#if TP_PIPE_DEVICE
  return a.per_warp ? warps : 32u * warps;
#else
  (void)a;
  return warps;
#endif
}

TP_PIPE_FN void tp_mbar_arrive_with(tp_mbar *b, tp_arrival a) {
#if TP_PIPE_DEVICE
  if (a.cta_mask != 0) {
    if (a.per_warp) __syncwarp();
    /* Lane r makes the arrival on CTA r: remote arrivals spread over lanes. */
    uint32_t lane = tp_lane_id();
    for (uint32_t r = 0; r < 16u; ++r) {
      if (((a.cta_mask >> r) & 1u) && (!a.per_warp || lane == r)) tp_mbar_arrive_cluster(b, r);
    }
    return;
  }
#endif
  if (a.per_warp) {
    tp_mbar_arrive_warp(b);
  } else {
    tp_mbar_arrive(b);
  }
}
#endif
