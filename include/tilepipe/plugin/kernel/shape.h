/* tilepipe/plugin/kernel/shape.h: step 1 of planning a GEMM on the structured
 * kernel: the tile, the K split, the cluster and the tile walk.
 *
 * The heuristic, in order (each choice can be forced by the INI's tuning
 * keys, within what the kernels take; docs/kernel.md, "Choosing the tile",
 * has the measurements behind each figure, which live in
 * plugins/kit/kernel_shape.c):
 *   - the width and the K split together: the pair whose work units
 *     (tiles x splits) fill the SMs' waves best, weighted by how fast a
 *     full tile of that width runs (SPEED in tiles.h), by the share of its
 *     columns inside N and by what the split costs. Shapes with fewer
 *     128 x 128 tiles than SMs (few tiles: bound by memory) may also take
 *     narrow widths where one tile row holds M (128 x 64; 64 x 64 and, for
 *     a 16-bit D with C absent or in its dtype, 64 x 48 where M <= 64),
 *     and split every tile's K when the tiles alone occupy fewer than a
 *     saturating share of the SMs, into the fewest splits that reach it;
 *     other shapes may split the tiles of their partial last wave (tail
 *     splits) or share its k-blocks out evenly (stream-K), and may take a
 *     width that is not whole chunks of D (144, 160, 176, 208);
 *   - single CTAs: 2-CTA clusters (B multicast) when the INI asks, or for
 *     1-byte operands whose rows are not whole 128-byte lines apart, on
 *     shapes of more tiles than SMs; such rows also rule out the
 *     tail-chunk width;
 *   - tiles walked in groups of raster_m cluster rows, for L2 reuse
 *     (tilepipe/plugin/kernel/schedule.h).
 * C11; compiled into each plugin from the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KERNEL_SHAPE_H
#define TILEPIPE_PLUGIN_KERNEL_SHAPE_H

#include <stddef.h>

#include "tilepipe/plugin/kernel/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most ways a tile's K is split: by the heuristic, or by the INI's
 * splits and tail_splits. */
#define TP_KERNEL_MAX_SPLITS 16

/* Step 1: the tile shape, the splits, the cluster and the tile walk of
 * rq's GEMM for its mainloop (k-tile, k-tiles a k-block, widest tile,
 * width block); the INI's choices (rq->tuning) where it made them,
 * checked against the kernels, the heuristic's elsewhere. Resets *kp. */
tp_status tp_kernel_plan_shape(tp_kernel_plan *kp, const tp_kernel_request *rq, char *err,
                               size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
