/* tilepipe/internal/pipeline/barrier_pair.h: the barriers of an N-stage pipeline.
 *
 * A barrier pair for N stages is 2N mbarriers, 16·N bytes: full[0..N) then
 * empty[0..N). full[s] says "stage s holds data" (the producer's arrival,
 * usually TMA's expect_tx plus the landed bytes); empty[s] says "stage s may
 * be refilled" (the consumers' arrivals). The stage count is the only input:
 * it fixes the barrier count, so storage and pipeline cannot disagree. The
 * storage planner (storage.h) places the pairs of a layout:
 *
 *   tp_barrier_pair_init(bars, 4, 1, consumers);   // one thread
 *   tp_pipeline p = tp_pipeline_make(bars, 4);
 */
#ifndef TILEPIPE_INTERNAL_PIPELINE_BARRIER_PAIR_H
#define TILEPIPE_INTERNAL_PIPELINE_BARRIER_PAIR_H

#include "tilepipe/internal/pipeline/mbarrier.h"

/* Bytes of a barrier pair for `stages` stages. */
#define TP_BARRIER_PAIR_BYTES(stages) (16u * (uint32_t)(stages))

TP_PIPE_FN tp_mbar *tp_barrier_pair_full(tp_mbar *bars, uint32_t stages, uint32_t s) {
  (void)stages;
  return bars + s;
}

TP_PIPE_FN tp_mbar *tp_barrier_pair_empty(tp_mbar *bars, uint32_t stages, uint32_t s) {
  return bars + stages + s;
}

/* Initialises full[] to producer_count and empty[] to consumer_count
 * arrivals. Call from one thread, then make it visible: on the device
 * tp_mbar_fence_init() and a CTA (or cluster) barrier; on the host, start the
 * role threads after it (thread creation orders it). */
TP_PIPE_FN void tp_barrier_pair_init(tp_mbar *bars, uint32_t stages, uint32_t producer_count,
                                     uint32_t consumer_count) {
  for (uint32_t s = 0; s < stages; ++s) {
    tp_mbar_init(tp_barrier_pair_full(bars, stages, s), producer_count);
    tp_mbar_init(tp_barrier_pair_empty(bars, stages, s), consumer_count);
  }
}

#endif
