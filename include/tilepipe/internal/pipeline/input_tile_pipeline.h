/* tilepipe/internal/pipeline/input_tile_pipeline.h: the TMA -> MMA stage ring.
 *
 * The seeds' InputTilePipeline: a ProducerConsumerPipeline (pipeline.h)
 * whose stages are the tiles of a payload (tile_payload.h). A barrier stage
 * holds k_group_size k-blocks; the producer announces all of their bytes with
 * one expect_tx, so there is one full-barrier phase per group, not per
 * k-block.
 *
 * Protocol (counts fixed at init, see tp_input_pipeline_init_barriers):
 *   full[s]   count 1: the producer's arrive.expect_tx(expect_bytes) is the
 *             one arrival; the phase completes when the loads' bytes have
 *             all landed (complete_tx, in either order with the expect).
 *   empty[s]  count = consumer arrivals per stage, as the consumer views
 *             make them (tp_arrival): e.g. on Hopper one per consumer warp,
 *             or with multicast one per consumer warp of every CTA whose
 *             smem this CTA's loads write.
 *
 * expect_bytes = ctas_per_barrier x k_group_size x sum of the payload's tile
 * bytes. ctas_per_barrier is 1 on Hopper: each CTA's own barrier expects the
 * bytes that land in its own shared memory (its own loads and its peers'
 * multicast slices add up to exactly one full stage). SM100's 2-SM MMA
 * (cta_group 2), where the leader CTA's barrier also counts the peer CTA's
 * bytes, would pass 2.
 *
 * Views and stages (one accessor interface for both ways of holding one):
 *
 *   tp_input_producer prod = tp_input_pipeline_producer(&ip);
 *   TP_INPUT_PRODUCE(&prod, s) {                       // scoped: waits empty
 *     tp_input_producer_stage_arrive_expect(&s);      // expect_tx on full
 *                         // (or _arrive_expect_bytes(&s, n): only n bytes come)
 *     for j < k_group_size: TMA A into tp_input_producer_stage_tile(&s, 0, j), ...
 *   }                                                  // release: no signal
 *   tp_input_producer_stage s = tp_input_producer_acquire_stage(&prod); ...
 *   tp_input_producer_stage_release(&s);               // explicit form
 *   tp_input_producer_drain(&prod);                    // before the CTA exits
 *
 *   tp_input_consumer cons = tp_input_pipeline_consumer(&ip, tp_arrival_warp());
 *   TP_INPUT_CONSUME(&cons, s) { ... read tiles ... }  // release = arrive
 *
 * try_acquire probes once; acquire_if_needed(ready) then waits only if the
 * probe said no (TP_INPUT_PRODUCE_IF_NEEDED / TP_INPUT_CONSUME_IF_NEEDED are
 * the scoped forms). Handles hold a pointer to the role's pipeline copy:
 * keep that copy alive and in place while a stage is held. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_INPUT_TILE_PIPELINE_H
#define TILEPIPE_INTERNAL_PIPELINE_INPUT_TILE_PIPELINE_H

#include "tilepipe/internal/pipeline/pipeline.h"
#include "tilepipe/internal/pipeline/tile_payload.h"

typedef struct tp_input_pipeline {
  tp_pipeline pipe;
  tp_tile_payload payload;
  uint32_t expect_bytes; /* per barrier stage, on this CTA's full barrier */
} tp_input_pipeline;

/* full[] count 1 (the expect_tx arrival), empty[] count consumer_arrivals.
 * One thread, before any role runs (see barrier_pair.h). */
TP_PIPE_FN void tp_input_pipeline_init_barriers(tp_mbar *bars, uint32_t stages,
                                                uint32_t consumer_arrivals) {
  tp_barrier_pair_init(bars, stages, 1, consumer_arrivals);
}

TP_PIPE_FN tp_input_pipeline tp_input_pipeline_make(tp_mbar *bars, uint32_t stages,
                                                    const tp_tile_payload *payload,
                                                    uint32_t ctas_per_barrier) {
  tp_input_pipeline ip;
  ip.pipe = tp_pipeline_make(bars, stages);
  ip.payload = *payload;
  ip.expect_bytes = ctas_per_barrier * tp_tile_payload_stage_bytes(payload);
  return ip;
}

/* ------------------------------------------------------------- producer */

typedef struct tp_input_producer {
  tp_input_pipeline *ip;
} tp_input_producer;

typedef struct tp_input_producer_stage {
  tp_producer_stage stage;
  const tp_input_pipeline *ip;
} tp_input_producer_stage;

TP_PIPE_FN tp_input_producer tp_input_pipeline_producer(tp_input_pipeline *ip) {
  tp_input_producer v;
  v.ip = ip;
  return v;
}

/* One probe: has the consumer freed the producer's current stage? */
TP_PIPE_FN bool tp_input_producer_try_acquire(const tp_input_producer *v) {
  return tp_pipeline_try_wait_consumer(&v->ip->pipe);
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_input_producer_stage
tp_input_producer_acquire_if_needed(tp_input_producer *v, bool ready) {
  tp_input_producer_stage s;
  s.stage = tp_pipeline_acquire_producer_if_needed(&v->ip->pipe, ready);
  s.ip = v->ip;
  return s;
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_input_producer_stage
tp_input_producer_acquire_stage(tp_input_producer *v) {
  return tp_input_producer_acquire_if_needed(v, false);
}

/* full[index]: where the expect_tx and the loads' complete_tx go. */
TP_PIPE_FN tp_mbar *tp_input_producer_stage_barrier(const tp_input_producer_stage *s) {
  return s->stage.mbar;
}
TP_PIPE_FN void *tp_input_producer_stage_tile(const tp_input_producer_stage *s, uint32_t t,
                                              uint32_t j) {
  return tp_tile_payload_tile(&s->ip->payload, s->stage.index, t, j);
}
TP_PIPE_FN uint32_t tp_input_producer_stage_expect_bytes(const tp_input_producer_stage *s) {
  return s->ip->expect_bytes;
}
/* The producer's arrival: expect_bytes more bytes to land, then arrive. One
 * thread (the one that issues the loads) calls it once per stage. */
TP_PIPE_FN void tp_input_producer_stage_arrive_expect(const tp_input_producer_stage *s) {
  tp_mbar_arrive_expect_tx(s->stage.mbar, s->ip->expect_bytes);
}
/* The same for a stage the loads fill only in part (rows of a tile past
 * the tensor's end left unloaded): exactly the bytes that will land. */
TP_PIPE_FN void tp_input_producer_stage_arrive_expect_bytes(const tp_input_producer_stage *s,
                                                            uint32_t bytes) {
  tp_mbar_arrive_expect_tx(s->stage.mbar, bytes);
}

/* Steps only: the expect_tx was the arrival. */
TP_PIPE_FN void tp_input_producer_stage_release(tp_input_producer_stage *s) {
  tp_producer_stage_release(&s->stage);
}

/* After the last stage: wait until every stage filled has been released
 * (remote consumers included) so the CTA does not exit under them. */
TP_PIPE_FN void tp_input_producer_drain(tp_input_producer *v) {
  tp_pipeline_drain_producer(&v->ip->pipe);
}

/* ------------------------------------------------------------- consumer */

typedef struct tp_input_consumer {
  tp_input_pipeline *ip;
  tp_arrival arrival; /* how each release signals empty[] */
} tp_input_consumer;

typedef struct tp_input_consumer_stage {
  tp_consumer_stage stage;
  const tp_input_pipeline *ip;
  tp_arrival arrival;
} tp_input_consumer_stage;

TP_PIPE_FN tp_input_consumer tp_input_pipeline_consumer(tp_input_pipeline *ip, tp_arrival arrival) {
  tp_input_consumer v;
  v.ip = ip;
  v.arrival = arrival;
  return v;
}

/* One probe: has the producer filled the consumer's current stage? */
TP_PIPE_FN bool tp_input_consumer_try_acquire(const tp_input_consumer *v) {
  return tp_pipeline_try_wait_producer(&v->ip->pipe);
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_input_consumer_stage
tp_input_consumer_acquire_if_needed(tp_input_consumer *v, bool ready) {
  tp_input_consumer_stage s;
  s.stage = tp_pipeline_acquire_consumer_if_needed(&v->ip->pipe, ready);
  s.ip = v->ip;
  s.arrival = v->arrival;
  return s;
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_input_consumer_stage
tp_input_consumer_acquire_stage(tp_input_consumer *v) {
  return tp_input_consumer_acquire_if_needed(v, false);
}

TP_PIPE_FN void *tp_input_consumer_stage_tile(const tp_input_consumer_stage *s, uint32_t t,
                                              uint32_t j) {
  return tp_tile_payload_tile(&s->ip->payload, s->stage.index, t, j);
}
/* Arrives on empty[index] as the view's arrival says. Call it
 * only once the stage's smem has been read (on Hopper: after the wgmma
 * that reads it has been waited for). */
TP_PIPE_FN void tp_input_consumer_stage_release(tp_input_consumer_stage *s) {
  tp_consumer_stage_release_with(&s->stage, s->arrival);
}

/* Steps without arriving: another role arrives on empty[index] for this
 * stage (the skeleton's store warp, once it has stored the C it read). */
TP_PIPE_FN void tp_input_consumer_stage_release_without_signal(tp_input_consumer_stage *s) {
  tp_consumer_stage_release_without_signal(&s->stage);
}

/* After the last stage: checks (debug) that none is still held. */
TP_PIPE_FN void tp_input_consumer_drain(const tp_input_consumer *v) {
  tp_pipeline_drain_consumer(&v->ip->pipe);
}

/* ---------------------------------------------------------- scoped form */

#define TP_INPUT_PRODUCE(producer, s)                                                      \
  TP_PIPE_SCOPE(tp_input_producer_stage, s, tp_input_producer_acquire_stage(producer),     \
                tp_input_producer_stage_release)
#define TP_INPUT_PRODUCE_IF_NEEDED(producer, ready, s)                                     \
  TP_PIPE_SCOPE(tp_input_producer_stage, s,                                                \
                tp_input_producer_acquire_if_needed(producer, ready),                      \
                tp_input_producer_stage_release)
#define TP_INPUT_CONSUME(consumer, s)                                                      \
  TP_PIPE_SCOPE(tp_input_consumer_stage, s, tp_input_consumer_acquire_stage(consumer),     \
                tp_input_consumer_stage_release)
#define TP_INPUT_CONSUME_IF_NEEDED(consumer, ready, s)                                     \
  TP_PIPE_SCOPE(tp_input_consumer_stage, s,                                                \
                tp_input_consumer_acquire_if_needed(consumer, ready),                      \
                tp_input_consumer_stage_release)

#endif
