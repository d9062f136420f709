/* tilepipe/pipeline/order_barrier.h: groups that take turns (ping-pong).
 *
 * When two consumer warpgroups alternate output tiles (ping-pong), their
 * mainloops must not overlap (one warpgroup's wgmmas run while the other
 * does its epilogue) and their epilogues must store in tile order. This is
 * CUTLASS's OrderedSequenceBarrier: `groups` groups pass through `depth`
 * ordered sections (2: mainloop, epilogue) in turn, group 0 first.
 *
 * Barriers: bars[d * groups + g], one per (section, group), each counting
 * the arrivals one group makes when it leaves a section (e.g. 4 for one
 * arrival per warp of a warpgroup). Group g waits on its own barrier of the
 * current section, and on leaving the section arrives on the barrier of
 * group (g + 1) % groups, then steps to the next section (phase flips after
 * the last section). Group 0 starts at phase 1, so its first wait on each
 * fresh barrier passes; the others start at phase 0 and wait for their
 * predecessor. A group can never be a whole lap ahead of its successor
 * (it would need the successor's own arrival first), so parity never
 * aliases.
 *
 *   tp_order_barrier ob = tp_order_barrier_make(bars, 2, 2, warpgroup);
 *   for each tile of this warpgroup:
 *     tp_order_barrier_wait(&ob);  mainloop;  tp_order_barrier_arrive(&ob, tp_arrival_warp());
 *     tp_order_barrier_wait(&ob);  epilogue;  tp_order_barrier_arrive(&ob, tp_arrival_warp());
 */
#ifndef TILEPIPE_PIPELINE_ORDER_BARRIER_H
#define TILEPIPE_PIPELINE_ORDER_BARRIER_H

#include "tilepipe/pipeline/mbarrier.h"

typedef struct tp_order_barrier {
  tp_mbar *bars; /* [depth][groups] */
  uint32_t depth, groups;
  uint32_t group;        /* this group */
  uint32_t stage, phase; /* current section and its parity */
} tp_order_barrier;

/* Bytes of the barriers for depth sections and `groups` groups. */
#define TP_ORDER_BARRIER_BYTES(depth, groups) (8u * (uint32_t)(depth) * (uint32_t)(groups))

/* Every barrier counts `arrivals` (one group leaving a section). One thread. */
TP_PIPE_FN void tp_order_barrier_init(tp_mbar *bars, uint32_t depth, uint32_t groups,
                                      uint32_t arrivals) {
  for (uint32_t i = 0; i < depth * groups; ++i) tp_mbar_init(bars + i, arrivals);
}

/* Group `group`'s view (each group keeps its own copy). */
TP_PIPE_FN tp_order_barrier tp_order_barrier_make(tp_mbar *bars, uint32_t depth, uint32_t groups,
                                                  uint32_t group) {
  tp_order_barrier ob;
  ob.bars = bars;
  ob.depth = depth;
  ob.groups = groups;
  ob.group = group;
  ob.stage = 0;
  ob.phase = group == 0 ? 1u : 0u;
  return ob;
}

/* Waits for this group's turn in the current section. */
TP_PIPE_FN void tp_order_barrier_wait(const tp_order_barrier *ob) {
  tp_mbar_wait(ob->bars + ob->stage * ob->groups + ob->group, ob->phase);
}

TP_PIPE_FN bool tp_order_barrier_try_wait(const tp_order_barrier *ob) {
  return tp_mbar_try_wait(ob->bars + ob->stage * ob->groups + ob->group, ob->phase);
}

/* Leaves the current section: passes the turn to the next group, steps. */
TP_PIPE_FN void tp_order_barrier_arrive(tp_order_barrier *ob, tp_arrival arrival) {
  uint32_t next = (ob->group + 1u) % ob->groups;
  tp_mbar_arrive_with(ob->bars + ob->stage * ob->groups + next, arrival);
  if (++ob->stage == ob->depth) {
    ob->stage = 0;
    ob->phase ^= 1u;
  }
}

#endif
