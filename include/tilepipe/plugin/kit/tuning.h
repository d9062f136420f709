/* tilepipe/plugin/kit/tuning.h: the tuning keys a payload takes from its registry
 * section, parsed and checked against the structured kernel's tile table
 * (tilepipe/plugin/kernel/tiles.h) when the registry is opened.
 *
 *   key          value   range (docs/payloads.md)
 *   tile         MxNxK   M x N a tile of the table that the payload's
 *                        kernels have (no wider than its max_tile_n, a
 *                        width dividing its n_block), in the cluster set by
 *                        `cluster` if any; K one of its tile_k (a k-block is
 *                        one 128-byte row of an operand: 64 for 16-bit
 *                        dtypes, 128 for 8-bit, 256 for 4-bit)
 *   stages       S       1..TP_KIT_TUNING_MAX_STAGES input pipeline stages
 *                        (default: as many as fit the shared memory on the
 *                        GPU, the backend's on the CPU)
 *   cluster      MxN     a cluster the table has (for the tile, when set):
 *                        1x1, or 2x1 (B multicast to 2 CTAs along M)
 *   splits       S       1..TP_KERNEL_MAX_SPLITS: K of each output tile split
 *                        over S CTAs whose partial sums meet in a workspace
 *                        (split-K); above 1 only with single CTAs
 *   tail_splits  S       1..TP_KERNEL_MAX_SPLITS: the same for the tiles of
 *                        a partial last wave only (1: none)
 *   stream_k     on|off  the tiles of a partial last wave as stream-K:
 *                        every CTA an equal share of their k-blocks
 *
 * A value no kernel of the table honours is refused with what the table
 * has; the core prefixes the INI file and line. What depends on the problem
 * (the tile K of the operands' dtype, a width that D's dtype lacks, more
 * splits than K has k-blocks) is the planner's to refuse at plan time.
 * Only `stages` steers the CPU backend (the pipeline depth means the same
 * there); the rest shape the GPU kernel. Keys arrive one at a time in file
 * order, so a rule tying two keys (tile and cluster, cluster and splits) is
 * checked when the second of them arrives, whichever it is.
 *
 * One section's state is a tp_kit_tuning; a payload's init slot creates it
 * with the payload's limits, and its fini and set_option slots are
 * tp_kit_tuning_fini and tp_kit_tuning_set_option:
 *
 *     static tp_status my_init(const tp_host_api *host, void **state, char *err,
 *                              size_t errlen) {
 *       static const tp_kit_tuning_limits limits = {.tile_k = {128}, .max_tile_n = 192};
 *       (void)host;
 *       return tp_kit_tuning_create(state, &limits, err, errlen);
 *     }
 *
 * gpu_plan hands `kernel` to the planner (tilepipe/plugin/kernel/plan.h), the CPU
 * plan hands the tuning to tp_kit_cpu_plan. Part of the plugin kit
 * (libtilepipe_kit). */
#ifndef TILEPIPE_PLUGIN_KIT_TUNING_H
#define TILEPIPE_PLUGIN_KIT_TUNING_H

#include <stddef.h>
#include <stdint.h>

#include "tilepipe/plugin/kernel/plan.h"
#include "tilepipe/plugin/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The deepest input pipeline a section may ask for. */
#define TP_KIT_TUNING_MAX_STAGES 16

/* How many tile K values a payload may list: one per operand width the
 * skeleton's 128-byte k-block holds (32, 16, 8 and 4 bits). */
#define TP_KIT_TUNING_TILE_KS 4

/* What a payload's kernels take, beyond the table's own bounds. */
typedef struct tp_kit_tuning_limits {
  /* The tile K values, 0 ending the list early; at least one, each 32, 64,
   * 128 or 256 (a 128-byte row of a 32-, 16-, 8- or 4-bit operand). */
  int32_t tile_k[TP_KIT_TUNING_TILE_KS];
  int32_t max_tile_n; /* its mainloop's max_tile_n; 0: the table's widest */
  int32_t n_block;    /* tile widths divide it (its mainloop's n_block); 0: any */
} tp_kit_tuning_limits;

/* One registry section's tuning. */
typedef struct tp_kit_tuning {
  tp_kernel_tuning kernel; /* every field 0: not set, the payload's choice */
  tp_kit_tuning_limits limits;
} tp_kit_tuning;

/* Allocates a section's state with nothing set; TP_ERR_PLUGIN where the
 * limits leave no tile K or no kernel of the table. */
tp_status tp_kit_tuning_create(void **state, const tp_kit_tuning_limits *limits, char *err,
                               size_t errlen);
void tp_kit_tuning_fini(void *state);
tp_status tp_kit_tuning_set_option(void *state, const char *key, const char *value, char *err,
                                   size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
