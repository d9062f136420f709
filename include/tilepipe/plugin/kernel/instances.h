/* tilepipe/plugin/kernel/instances.h: the structured kernel's kernels on the
 * host, and which of them serve a plan.
 *
 * tilepipe/plugin/kernel/tiles.h lists every tile the skeleton is instantiated
 * for; a payload's device code expands it into its kernels, and this is
 * the same table for its host code: each instance's tile, cluster, D
 * dtype, relative speed and the name suffix that the device code spells
 * from the same pieces. A plan is served by the instances of its cluster
 * and D dtype that its mainloop takes (no wider than max_tile_n, widths
 * dividing n_block). The planner picks among them
 * (tilepipe/plugin/kernel/shape.h); the INI's tuning keys may only name one of
 * them. C11; compiled into each plugin from the plugin kit. */
#ifndef TILEPIPE_PLUGIN_KERNEL_INSTANCES_H
#define TILEPIPE_PLUGIN_KERNEL_INSTANCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tilepipe/plugin/kernel/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One kernel of tiles.h on the host. */
typedef struct tp_kernel_instance {
  int32_t tile_m, tile_n, cluster_m;
  bool transposed; /* tiles.h's transposed tiles: rows of B by rows of A */
  tp_dtype d;
  double speed;
  const char *suffix; /* the kernel name after the operands */
} tp_kernel_instance;

/* Every instance, in tiles.h's order; *count of them. */
const tp_kernel_instance *tp_kernel_instances(size_t *count);

/* Whether instance k serves plan kp: its orientation, its cluster, its D, no wider than
 * the mainloop's widest tile and, where the mainloop's columns come in
 * blocks (n_block), a width that divides them. */
bool tp_kernel_instance_serves(const tp_kernel_instance *k, const tp_kernel_plan *kp);

/* The first instance of tile_m x tile_n that serves kp (0 matches any
 * tile_m, tile_n); NULL when there is none. */
const tp_kernel_instance *tp_kernel_instance_find(const tp_kernel_plan *kp, int32_t tile_m,
                                                  int32_t tile_n);

/* The tiles with an instance that serves kp, as "128x256, 128x192, ..."
 * for a message, into out (size bytes, truncated). */
void tp_kernel_tile_list(char *out, size_t size, const tp_kernel_plan *kp);

/* The one width that tiles of tile_m rows come in for kp (64 for 64-row
 * tiles), or 0 where there are several (or tile_m is 0). */
int32_t tp_kernel_only_width(const tp_kernel_plan *kp, int32_t tile_m);

#ifdef __cplusplus
}
#endif

#endif
