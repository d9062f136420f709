/* tilepipe/internal/pipeline/pipeline.h: the producer/consumer pipeline over N stages.
 *
 * The seeds' ProducerConsumerPipeline, in C. Each role keeps its own copy of
 * the struct (in registers on the device) and uses one side of it:
 *
 *   producer side (stage, phase) starts at (0, 1): its first wait on each
 *     empty[s] passes at once, since a fresh barrier is in phase 0 and a
 *     parity-1 wait asks about the phase before it;
 *   consumer side (stage, phase) starts at (0, 0): it waits for full[s] to
 *     complete phase 0.
 *
 * Stepping moves to the next stage and flips the phase on wrap (all slots of
 * one lap share one parity). An acquire waits for the side's current stage,
 * hands it out and steps at once, so a role may hold several stages at a time
 * (a wgmma consumer keeps stage s until the wgmma group that reads it has
 * retired, while it already issues on stage s+1); a release only signals.
 * Releases come in acquisition order. A stage is held through a handle (the
 * seeds' linear types):
 *
 *     tp_producer_stage s = tp_pipeline_acquire_producer(&p);  // waits empty
 *     ... tp_producer_stage_mbar(&s) is full[index]: TMA expect_tx goes there
 *     tp_producer_stage_release(&s);                            // no signal
 *
 *     tp_consumer_stage c = tp_pipeline_acquire_consumer(&p);  // waits full
 *     ... read stage c.index ...
 *     tp_consumer_stage_release(&c);           // arrive on empty[index]
 *     or _release_with(&c, arrival) for one arrival per warp or arrivals
 *     on cluster CTAs (mbarrier.h's tp_arrival), or, when something else
 *     arrives for it, _release_without_signal(&c).
 *
 *   try-acquire: bool ready = tp_pipeline_try_wait_producer(&p); ...other
 *     work...; c = tp_pipeline_acquire_consumer_if_needed(&p, ready);
 *     (the producer side likewise with try_wait_consumer).
 *
 * The tile pipelines (input_tile_pipeline.h, output_tile_pipeline.h) wrap
 * these handles and add scoped forms (the seeds' context managers) through
 * TP_PIPE_SCOPE: acquire, run the block, release. Leaving the block with
 * break or return skips the release; the debug check reports it at drain.
 *
 * C cannot make the compiler insist on a release, so with TP_PIPELINE_DEBUG
 * every handle carries its acquisition number and the pipeline counts
 * acquisitions and releases per side: a double release, a release of a
 * handle never acquired, an out-of-order release, acquiring more stages than
 * exist, and stages still held at drain all stop the program with a message.
 * acquire is warn_unused_result: a dropped handle is a compiler warning. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_PIPELINE_H
#define TILEPIPE_INTERNAL_PIPELINE_PIPELINE_H

#include "tilepipe/internal/pipeline/barrier_pair.h"

typedef struct tp_pipeline {
  tp_mbar *full;  /* full[0..stages) */
  tp_mbar *empty; /* empty[0..stages) */
  uint32_t stages;
  uint32_t producer_stage, producer_phase;
  uint32_t consumer_stage, consumer_phase;
#if TP_PIPELINE_DEBUG
  uint32_t producer_acquired, producer_released;
  uint32_t consumer_acquired, consumer_released;
#endif
} tp_pipeline;

/* A handle's life: never acquired (zeroed), held, released. */
enum { TP_STAGE_UNACQUIRED = 0, TP_STAGE_HELD = 0x5eed, TP_STAGE_RELEASED = 0xdead };

typedef struct tp_producer_stage {
  tp_pipeline *pipe;
  uint32_t index;
  tp_mbar *mbar; /* full[index] */
#if TP_PIPELINE_DEBUG
  uint32_t seq, state;
#endif
} tp_producer_stage;

typedef struct tp_consumer_stage {
  tp_pipeline *pipe;
  uint32_t index;
  tp_mbar *mbar; /* empty[index] */
#if TP_PIPELINE_DEBUG
  uint32_t seq, state;
#endif
} tp_consumer_stage;

/* A pipeline over a barrier pair of `stages` stages (see barrier_pair.h). */
TP_PIPE_FN tp_pipeline tp_pipeline_make(tp_mbar *bars, uint32_t stages) {
  tp_pipeline p;
  p.full = tp_barrier_pair_full(bars, stages, 0);
  p.empty = tp_barrier_pair_empty(bars, stages, 0);
  p.stages = stages;
  p.producer_stage = 0;
  p.producer_phase = 1;
  p.consumer_stage = 0;
  p.consumer_phase = 0;
#if TP_PIPELINE_DEBUG
  p.producer_acquired = p.producer_released = 0;
  p.consumer_acquired = p.consumer_released = 0;
#endif
  return p;
}

/* ----------------------------------------------------------------- waits */

/* Consumer side: wait until the producer has filled the current stage. */
TP_PIPE_FN void tp_pipeline_wait_producer(const tp_pipeline *p) {
  tp_mbar_wait(p->full + p->consumer_stage, p->consumer_phase);
}

/* Producer side: wait until the consumers have freed the current stage. */
TP_PIPE_FN void tp_pipeline_wait_consumer(const tp_pipeline *p) {
  tp_mbar_wait(p->empty + p->producer_stage, p->producer_phase);
}

/* One non-blocking probe each; pair with the _if_needed waits (try-acquire:
 * probe, do other work, then wait only if the probe said not ready). */
TP_PIPE_FN bool tp_pipeline_try_wait_producer(const tp_pipeline *p) {
  return tp_mbar_try_wait(p->full + p->consumer_stage, p->consumer_phase);
}
TP_PIPE_FN bool tp_pipeline_try_wait_consumer(const tp_pipeline *p) {
  return tp_mbar_try_wait(p->empty + p->producer_stage, p->producer_phase);
}
TP_PIPE_FN void tp_pipeline_wait_producer_if_needed(const tp_pipeline *p, bool ready) {
  if (!ready) tp_pipeline_wait_producer(p);
}
TP_PIPE_FN void tp_pipeline_wait_consumer_if_needed(const tp_pipeline *p, bool ready) {
  if (!ready) tp_pipeline_wait_consumer(p);
}

/* ------------------------------------------------------------------ steps */

TP_PIPE_FN void tp_pipeline_advance(uint32_t *stage, uint32_t *phase, uint32_t stages) {
  if (++*stage == stages) {
    *stage = 0;
    *phase ^= 1u;
  }
}

TP_PIPE_FN void tp_pipeline_producer_step(tp_pipeline *p) {
  tp_pipeline_advance(&p->producer_stage, &p->producer_phase, p->stages);
}

TP_PIPE_FN void tp_pipeline_consumer_step(tp_pipeline *p) {
  tp_pipeline_advance(&p->consumer_stage, &p->consumer_phase, p->stages);
}

/* ---------------------------------------------------------- debug check */

#if TP_PIPELINE_DEBUG
/* Checks a release of handle (seq, state) against the side's counters and
 * counts it. `side` names the side in the message. */
TP_PIPE_FN void tp_pipeline_check_release(const char *side, uint32_t seq, uint32_t *state,
                                          uint32_t acquired, uint32_t *released) {
  if (*state == TP_STAGE_RELEASED) {
    TP_PIPE_FAIL("double release of a %s stage (acquisition #%u)", side, seq);
  }
  if (*state != TP_STAGE_HELD || seq >= acquired) {
    TP_PIPE_FAIL("release of a %s stage that was never acquired", side);
  }
  if (seq < *released) {
    TP_PIPE_FAIL("double release of a %s stage (acquisition #%u, a copy released before)", side,
                 seq);
  }
  if (seq != *released) {
    TP_PIPE_FAIL("out-of-order release of a %s stage: acquisition #%u released before #%u", side,
                 seq, *released);
  }
  *state = TP_STAGE_RELEASED;
  *released += 1;
}

TP_PIPE_FN void tp_pipeline_check_acquire(const char *side, uint32_t acquired, uint32_t released,
                                          uint32_t stages) {
  if (acquired - released >= stages) {
    TP_PIPE_FAIL("%s acquires a stage while all %u stages are held (it would wait forever)", side,
                 stages);
  }
}
#endif

/* -------------------------------------------------------- stage handles */

#if TP_PIPELINE_DEBUG
/* The release check of one handle: `state` tells a zeroed (never acquired)
 * handle from a held or released one before anything else is touched. */
TP_PIPE_FN void tp_pipeline_check_handle(const char *side, uint32_t seq, uint32_t *state,
                                         uint32_t acquired, uint32_t *released) {
  if (*state != TP_STAGE_HELD && *state != TP_STAGE_RELEASED) {
    TP_PIPE_FAIL("release of a %s stage that was never acquired", side);
  }
  tp_pipeline_check_release(side, seq, state, acquired, released);
}
#endif

/* Acquires the producer's current stage; with ready (a try_wait_consumer
 * probe that said the stage is free) it does not wait again. */
TP_PIPE_MUST_USE TP_PIPE_FN tp_producer_stage tp_pipeline_acquire_producer_if_needed(tp_pipeline *p,
                                                                                 bool ready) {
  tp_producer_stage s;
#if TP_PIPELINE_DEBUG
  tp_pipeline_check_acquire("producer", p->producer_acquired, p->producer_released, p->stages);
  s.seq = p->producer_acquired++;
  s.state = TP_STAGE_HELD;
#endif
  tp_pipeline_wait_consumer_if_needed(p, ready);
  s.pipe = p;
  s.index = p->producer_stage;
  s.mbar = p->full + p->producer_stage;
  tp_pipeline_producer_step(p);
  return s;
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_producer_stage tp_pipeline_acquire_producer(tp_pipeline *p) {
  return tp_pipeline_acquire_producer_if_needed(p, false);
}

TP_PIPE_FN tp_mbar *tp_producer_stage_mbar(const tp_producer_stage *s) { return s->mbar; }

/* Ends the producer's hold. No arrival: the expect_tx on mbar (by the thread
 * that issues the loads) is the producer's arrival, the landed bytes
 * complete it; the acquire already stepped. */
TP_PIPE_FN void tp_producer_stage_release(tp_producer_stage *s) {
#if TP_PIPELINE_DEBUG
  tp_pipeline_check_handle("producer", s->seq, &s->state, s->pipe ? s->pipe->producer_acquired : 0,
                           s->pipe ? &s->pipe->producer_released : 0);
#else
  (void)s;
#endif
}

/* For producers whose data is written by threads, not TMA (an output tile
 * written by the consumer warps): after the debug check, arrive on
 * full[index] as `arrival` says. */
TP_PIPE_FN void tp_producer_stage_release_with(tp_producer_stage *s, tp_arrival arrival) {
  tp_mbar *full = s->mbar;
  tp_producer_stage_release(s);
  tp_mbar_arrive_with(full, arrival);
}

/* Acquires the consumer's current stage; with ready (a try_wait_producer
 * probe that said the stage is filled) it does not wait again. */
TP_PIPE_MUST_USE TP_PIPE_FN tp_consumer_stage tp_pipeline_acquire_consumer_if_needed(tp_pipeline *p,
                                                                                 bool ready) {
  tp_consumer_stage s;
#if TP_PIPELINE_DEBUG
  tp_pipeline_check_acquire("consumer", p->consumer_acquired, p->consumer_released, p->stages);
  s.seq = p->consumer_acquired++;
  s.state = TP_STAGE_HELD;
#endif
  tp_pipeline_wait_producer_if_needed(p, ready);
  s.pipe = p;
  s.index = p->consumer_stage;
  s.mbar = p->empty + p->consumer_stage;
  tp_pipeline_consumer_step(p);
  return s;
}

TP_PIPE_MUST_USE TP_PIPE_FN tp_consumer_stage tp_pipeline_acquire_consumer(tp_pipeline *p) {
  return tp_pipeline_acquire_consumer_if_needed(p, false);
}


/* Ends the consumer's hold without arriving (another role arrives for it). */
TP_PIPE_FN void tp_consumer_stage_release_without_signal(tp_consumer_stage *s) {
#if TP_PIPELINE_DEBUG
  tp_pipeline_check_handle("consumer", s->seq, &s->state, s->pipe ? s->pipe->consumer_acquired : 0,
                           s->pipe ? &s->pipe->consumer_released : 0);
#else
  (void)s;
#endif
}

/* Arrives on empty[index] as `arrival` says (per thread, per warp, on
 * cluster CTAs). The debug check runs first, so a bad release never reaches
 * the barrier. */
TP_PIPE_FN void tp_consumer_stage_release_with(tp_consumer_stage *s, tp_arrival arrival) {
  tp_mbar *empty = s->mbar;
  tp_consumer_stage_release_without_signal(s);
  tp_mbar_arrive_with(empty, arrival);
}

/* Arrives on empty[index]: this stage may be refilled. */
TP_PIPE_FN void tp_consumer_stage_release(tp_consumer_stage *s) {
  tp_consumer_stage_release_with(s, tp_arrival_thread());
}

/* ------------------------------------------------------------------ drain */

/* Producer, after its last stage: wait until every stage it filled has been
 * consumed (remote and multicast readers included) before the CTA may exit. */
TP_PIPE_FN void tp_pipeline_drain_producer(tp_pipeline *p) {
#if TP_PIPELINE_DEBUG
  if (p->producer_acquired != p->producer_released) {
    TP_PIPE_FAIL("producer drains while %u stage(s) are still held",
                 p->producer_acquired - p->producer_released);
  }
#endif
  for (uint32_t i = 0; i < p->stages; ++i) {
    tp_pipeline_wait_consumer(p);
    tp_pipeline_producer_step(p);
  }
}

/* Consumer, after its last stage: only checks (debug) that none is held. */
TP_PIPE_FN void tp_pipeline_drain_consumer(const tp_pipeline *p) {
#if TP_PIPELINE_DEBUG
  if (p->consumer_acquired != p->consumer_released) {
    TP_PIPE_FAIL("consumer finishes while %u stage(s) are still held",
                 p->consumer_acquired - p->consumer_released);
  }
#else
  (void)p;
#endif
}

/* ---------------------------------------------------------- scoped form */

#define TP_PIPE_CAT_(a, b) a##b
#define TP_PIPE_CAT(a, b) TP_PIPE_CAT_(a, b)

/* TP_PIPE_SCOPE(type, s, acquire, release) { body }: declares `type s =
 * acquire`, runs body once, then calls release(&s). Every pipeline's scoped
 * form is this one loop, so scoped and explicit code hold the same handle
 * type. `continue` still releases; `break`, `return` and `goto` out of the
 * body skip the release, which the debug check reports at drain. */
#define TP_PIPE_SCOPE(type, s, acquire, release)                                          \
  for (type s = (acquire), *TP_PIPE_CAT(tp_once_, __LINE__) = &s;                          \
       TP_PIPE_CAT(tp_once_, __LINE__); release(&s), TP_PIPE_CAT(tp_once_, __LINE__) = 0)

#endif
