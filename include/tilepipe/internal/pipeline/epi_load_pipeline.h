/* tilepipe/internal/pipeline/epi_load_pipeline.h: the ring of source C chunks.
 *
 * Residual epilogues (D = alpha*acc + beta*C) read C. The C-load warp
 * prefetches it with TMA into a ring of chunk buffers, BM x EPI_N each, in
 * exactly the order the consumer warps use the chunks. The chunk buffers
 * are the output ring's own (storage.h's source_in_output): the consumer
 * warps read a chunk of C from shared memory and write D in place over it.
 *
 * This is an input tile pipeline (input_tile_pipeline.h) with a one-tensor
 * payload and k_group_size 1, so it shares the whole stage protocol and
 * accessor interface:
 *
 *   full[s]  count 1: one elected thread of the C-load warp,
 *            tp_input_producer_stage_arrive_expect() (expect_tx of one
 *            chunk) then the TMA load into tp_input_producer_stage_tile(&s, 0, 0).
 *   empty[s] count = the arrivals that free a chunk; in the structured
 *            kernel 1: the consumer warps step their stages without a signal
 *            (tp_input_consumer_stage_release_without_signal), and the store
 *            frees each chunk once its TMA store has read it out, with the
 *            release of its tp_input_pipeline_consumer(&ep, tp_arrival_thread())
 *            view. A writer's release would let C land on a chunk the store
 *            has not read yet.
 *
 * The C-load warp drains (tp_input_producer_drain) before it exits. The
 * load-order barrier (load_order_barrier.h) keeps it from prefetching a
 * tile's C before the mainloop loads of that tile are under way. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_EPI_LOAD_PIPELINE_H
#define TILEPIPE_INTERNAL_PIPELINE_EPI_LOAD_PIPELINE_H

#include "tilepipe/internal/pipeline/input_tile_pipeline.h"

/* full[] count 1, empty[] count reader_arrivals. One thread. */
TP_PIPE_FN void tp_epi_load_pipeline_init_barriers(tp_mbar *bars, uint32_t stages,
                                                   uint32_t reader_arrivals) {
  tp_input_pipeline_init_barriers(bars, stages, reader_arrivals);
}

/* The pipeline over `stages` chunk buffers (chunk s is stage s). */
TP_PIPE_FN tp_input_pipeline tp_epi_load_pipeline_make(tp_mbar *bars, uint32_t stages,
                                                       tp_tile_array chunks) {
  tp_tile_payload payload;
  payload.num_tensors = 1;
  payload.k_group_size = 1;
  payload.tensors[0] = chunks;
  for (uint32_t t = 1; t < TP_MAX_STAGE_TENSORS; ++t) {
    payload.tensors[t].base = 0;
    payload.tensors[t].bytes = 0;
    payload.tensors[t].stride = 0;
  }
  return tp_input_pipeline_make(bars, stages, &payload, 1);
}

#endif
