/* tilepipe/internal/pipeline/output_tile_pipeline.h: accumulator chunks -> TMA store.
 *
 * The seeds' OutputTilePipeline hands TMEM accumulator stages from the MMA
 * warp to the epilogue warps. Hopper has no TMEM: wgmma accumulators live in
 * the registers of the consumer warpgroups, which run the epilogue
 * themselves, so there is no MMA -> epilogue hand-off to synchronise. What
 * remains is the hand-off of the finished output to the warp that stores it:
 * here an output stage is one chunk of the output tile (BM x EPI_N, in the
 * output dtype) in a ring of chunk buffers in shared memory.
 *
 *   writers  (pipeline producer side) = the consumer warps. Per chunk: wait
 *            empty (the store has finished reading the buffer), write the
 *            chunk from registers, fence.proxy.async (generic-proxy writes
 *            become visible to the TMA, which reads through the async
 *            proxy), one arrival per warp on full.
 *   store    (pipeline consumer side) = one elected thread of the store warp
 *            (bulk async-groups belong to the thread that commits them, so
 *            the thread that issues a store must be the one that waits on
 *            it). Per chunk: wait full, issue the TMA store and commit it,
 *            cp.async.bulk.wait_group.read until that store has read the
 *            buffer, then arrive on empty. Before it exits it waits for its
 *            stores to complete (cp.async.bulk.wait_group 0).
 *
 *   full[s]  count = writer arrivals per chunk: the writer warps of the
 *            tile (8 for the structured kernel's two cooperative consumer
 *            warpgroups).
 *   empty[s] count 1: the store thread.
 *
 * The ring lets the writers fill chunk c+1 while chunk c is being stored
 * (two stages double-buffer, as the seeds' OutputTileStorage). A store
 * thread may also hold several stages and release each one only after a
 * lagging wait_group.read<n>, as long as it releases them in order.
 *
 * No per-K variant: the seeds need OutputKPipeline for blockwise FP8 because
 * the SM100 MMA accumulates in TMEM, which cannot apply per-128-K scales, so
 * each K block's partial is handed to the epilogue warps to be scaled. On
 * Hopper the consumer warpgroup that issues the wgmma also owns the
 * accumulator registers: per 128-K block it runs its wgmmas into a temporary
 * accumulator, waits for them, reads the stage's A-scales and adds
 * tmp * (sa[row] * sb) into the main accumulator, all before it releases the
 * input stage. The promotion never leaves the warpgroup, so there is no
 * hand-off for a barrier to order. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_OUTPUT_TILE_PIPELINE_H
#define TILEPIPE_INTERNAL_PIPELINE_OUTPUT_TILE_PIPELINE_H

#include "tilepipe/internal/pipeline/pipeline.h"
#include "tilepipe/internal/pipeline/tile_payload.h"

/* Makes this thread's generic-proxy shared-memory writes visible to the
 * async proxy (TMA). On the host the "TMA" is a plain copy and the release
 * of the following arrival is enough. */
TP_PIPE_FN void tp_fence_proxy_async_shared(void) {
#if TP_PIPE_DEVICE
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

typedef struct tp_output_pipeline {
  tp_pipeline pipe;
  tp_tile_array chunks; /* chunk s is stage s */
} tp_output_pipeline;

/* full[] count writer_arrivals, empty[] count 1 (the store thread). */
TP_PIPE_FN void tp_output_pipeline_init_barriers(tp_mbar *bars, uint32_t stages,
                                                 uint32_t writer_arrivals) {
  tp_barrier_pair_init(bars, stages, writer_arrivals, 1);
}

TP_PIPE_FN tp_output_pipeline tp_output_pipeline_make(tp_mbar *bars, uint32_t stages,
                                                      tp_tile_array chunks) {
  tp_output_pipeline op;
  op.pipe = tp_pipeline_make(bars, stages);
  op.chunks = chunks;
  return op;
}

/* --------------------------------------------------------------- writers */

typedef struct tp_output_writer {
  tp_output_pipeline *op;
  tp_arrival arrival; /* normally tp_arrival_warp() */
} tp_output_writer;

typedef struct tp_output_write_stage {
  tp_producer_stage stage;
  const tp_output_pipeline *op;
  tp_arrival arrival;
} tp_output_write_stage;

TP_PIPE_FN tp_output_writer tp_output_pipeline_writer(tp_output_pipeline *op, tp_arrival arrival) {
  tp_output_writer v;
  v.op = op;
  v.arrival = arrival;
  return v;
}

/* One probe: has the store finished with the writers' current chunk? */
TP_PIPE_FN bool tp_output_writer_try_acquire(const tp_output_writer *v) {
  return tp_pipeline_try_wait_consumer(&v->op->pipe);
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_output_write_stage
tp_output_writer_acquire_if_needed(tp_output_writer *v, bool ready) {
  tp_output_write_stage s;
  s.stage = tp_pipeline_acquire_producer_if_needed(&v->op->pipe, ready);
  s.op = v->op;
  s.arrival = v->arrival;
  return s;
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_output_write_stage tp_output_writer_acquire_stage(tp_output_writer *v) {
  return tp_output_writer_acquire_if_needed(v, false);
}

TP_PIPE_FN void *tp_output_write_stage_tile(const tp_output_write_stage *s) {
  return tp_tile_array_tile(&s->op->chunks, s->stage.index);
}

/* The chunk is written: fence it for the TMA, arrive on full. Every
 * writing thread calls it (all lanes of a warp when arrivals are per warp). */
TP_PIPE_FN void tp_output_write_stage_release(tp_output_write_stage *s) {
  tp_fence_proxy_async_shared();
  tp_producer_stage_release_with(&s->stage, s->arrival);
}

/* After the last chunk: checks (debug) that none is held. It does not wait
 * for the store: the store thread waits for its own bulk stores before it
 * exits, and the CTA's shared memory lives while any of its threads runs. */
TP_PIPE_FN void tp_output_writer_drain(const tp_output_writer *v) {
#if TP_PIPELINE_DEBUG
  const tp_pipeline *p = &v->op->pipe;
  if (p->producer_acquired != p->producer_released) {
    TP_PIPE_FAIL("output writer finishes while %u chunk(s) are still held",
                 p->producer_acquired - p->producer_released);
  }
#else
  (void)v;
#endif
}

/* ----------------------------------------------------------------- store */

typedef struct tp_output_store {
  tp_output_pipeline *op;
} tp_output_store;

typedef struct tp_output_store_stage {
  tp_consumer_stage stage;
  const tp_output_pipeline *op;
} tp_output_store_stage;

TP_PIPE_FN tp_output_store tp_output_pipeline_store(tp_output_pipeline *op) {
  tp_output_store v;
  v.op = op;
  return v;
}

/* One probe: have the writers finished the store's current chunk? */
TP_PIPE_FN bool tp_output_store_try_acquire(const tp_output_store *v) {
  return tp_pipeline_try_wait_producer(&v->op->pipe);
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_output_store_stage
tp_output_store_acquire_if_needed(tp_output_store *v, bool ready) {
  tp_output_store_stage s;
  s.stage = tp_pipeline_acquire_consumer_if_needed(&v->op->pipe, ready);
  s.op = v->op;
  return s;
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_output_store_stage tp_output_store_acquire_stage(tp_output_store *v) {
  return tp_output_store_acquire_if_needed(v, false);
}

TP_PIPE_FN void *tp_output_store_stage_tile(const tp_output_store_stage *s) {
  return tp_tile_array_tile(&s->op->chunks, s->stage.index);
}

/* The store has read the chunk (after wait_group.read): arrive on empty so
 * the writers may refill it. One thread calls it. */
TP_PIPE_FN void tp_output_store_stage_release(tp_output_store_stage *s) {
  tp_consumer_stage_release(&s->stage);
}

TP_PIPE_FN void tp_output_store_drain(const tp_output_store *v) {
  tp_pipeline_drain_consumer(&v->op->pipe);
}

/* ---------------------------------------------------------- scoped form */

#define TP_OUTPUT_WRITE(writer, s)                                                         \
  TP_PIPE_SCOPE(tp_output_write_stage, s, tp_output_writer_acquire_stage(writer),          \
                tp_output_write_stage_release)
#define TP_OUTPUT_STORE(store, s)                                                          \
  TP_PIPE_SCOPE(tp_output_store_stage, s, tp_output_store_acquire_stage(store),            \
                tp_output_store_stage_release)

#endif
