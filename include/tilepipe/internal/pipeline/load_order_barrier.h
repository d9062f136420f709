/* tilepipe/internal/pipeline/load_order_barrier.h: mainloop loads before C prefetch.
 *
 * The C-load warp must not start a tile's C prefetch before the main-load
 * warp has issued that tile's first (prologue) loads, or the prefetch
 * competes with the loads the mainloop is waiting for. One mbarrier, count
 * 1, shared by the two loaders, which walk the same sequence of tiles.
 *
 * The seeds' form has the main loader arrive once per tile and the C loader
 * wait, each flipping a private phase per tile. That form breaks when the
 * main loader runs two tiles ahead (small K, many stages): two completions
 * bring the parity back, the C loader then waits for a phase that already
 * passed, and it can deadlock against the consumers that wait on its C.
 * Here the C loader acknowledges each tile by arriving too, so the barrier's
 * phases alternate strictly:
 *
 *   phase 2t   completed by the main loader's arrival for tile t;
 *   phase 2t+1 completed by the C loader's acknowledgement of tile t.
 *
 * The main loader, before it arrives for tile t, waits for phase 2t-1 (the
 * acknowledgement of tile t-1; for t = 0 a fresh barrier passes): always a
 * parity-1 wait. The C loader waits for phase 2t, always a parity-0 wait,
 * and acknowledges at once. Neither can get two phases ahead of the other,
 * so the phase each side waits for is a constant and cannot alias. The main
 * loader can still run ahead by one tile; it blocks only when the C loader
 * is two tiles behind, which depends only on consumer progress for tiles
 * whose loads are all issued (the C loader acknowledges before it
 * prefetches), so there is no cycle.
 *
 *   main loader, per tile:  prologue loads; tp_load_order_signal(&lo); rest
 *   C loader, per tile:     tp_load_order_wait(&lo); C loads of the tile
 */
#ifndef TILEPIPE_INTERNAL_PIPELINE_LOAD_ORDER_BARRIER_H
#define TILEPIPE_INTERNAL_PIPELINE_LOAD_ORDER_BARRIER_H

#include "tilepipe/internal/pipeline/mbarrier.h"

typedef struct tp_load_order {
  tp_mbar *mbar;
} tp_load_order;

/* Count 1. One thread, before either loader runs. */
TP_PIPE_FN void tp_load_order_init(tp_mbar *mbar) { tp_mbar_init(mbar, 1); }

TP_PIPE_FN tp_load_order tp_load_order_make(tp_mbar *mbar) {
  tp_load_order lo;
  lo.mbar = mbar;
  return lo;
}

/* Main loader (one thread), once it has issued the loads that C must not
 * delay (the standard kernel: all but a tile's last few k-blocks): wait
 * until the C loader took the previous tile, then release this one. */
TP_PIPE_FN void tp_load_order_signal(const tp_load_order *lo) {
  tp_mbar_wait(lo->mbar, 1);
  tp_mbar_arrive(lo->mbar);
}

/* C loader (one thread): one probe, has the main loader released the tile
 * it is at? (If so, tp_load_order_wait returns at once.) */
TP_PIPE_FN bool tp_load_order_try_wait(const tp_load_order *lo) {
  return tp_mbar_try_wait(lo->mbar, 0);
}

/* C loader, before a tile's C loads: wait for the main loader's release of
 * the tile, then acknowledge it. */
TP_PIPE_FN void tp_load_order_wait(const tp_load_order *lo) {
  tp_mbar_wait(lo->mbar, 0);
  tp_mbar_arrive(lo->mbar);
}

#endif
