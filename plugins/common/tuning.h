/* plugins/common/tuning.h: the GPU tuning keys every payload takes from its
 * registry section, their parsing and their ranges.
 *
 *   key        value     range (docs/payloads.md)
 *   tile       MxNxK     M in {64,128,192,256}, N a multiple of 16 in 16..256,
 *                        K in {32,64,128,256} (blockwise_fp8: K = 128 only)
 *   stages     S         1..16 input pipeline stages (default: as many as fit
 *                        the shared memory on the GPU, the backend's on the CPU)
 *   cluster    MxN       each 1, 2, 4 or 8, at most 8 CTAs (Hopper's portable
 *                        cluster size)
 *   consumers  C         1 or 2 consumer warpgroups; M must be a multiple of 64*C
 *                        (each warpgroup owns whole 64-row wgmma blocks)
 *   splits     S         1..16: K of each output tile split over S CTAs whose
 *                        partial sums meet in a workspace (split-K)
 *   tail_splits S        1..16: the same for the tiles of a partial last wave
 *                        only (1: none)
 *   stream_k   on|off    the tiles of a partial last wave as stream-K: every
 *                        CTA an equal share of their k-blocks
 *
 * Only `stages` steers the CPU backend (the pipeline depth means the same
 * there); the rest shape the GPU kernel. Keys arrive one at a time in file
 * order, so a rule tying two keys (tile M vs consumers) is checked when the
 * second of them arrives, whichever it is. The state is one registry
 * section's; the plugin's init/fini/set_option slots are these functions. */
#ifndef TP_PLUGINS_COMMON_TUNING_H
#define TP_PLUGINS_COMMON_TUNING_H

#include <stddef.h>
#include <stdint.h>
#include "tilepipe/kernel/plan.h"
#include "tilepipe/plugin.h"

typedef struct tpc_tuning {
  tp_kernel_tuning kernel; /* every field 0: not set, the payload's choice */
  int32_t only_tile_k;     /* 0, or the one tile K the payload takes */
} tpc_tuning;

/* Allocates a section's state with nothing set; only_tile_k as above. */
tp_status tpc_tuning_create(void **state, int32_t only_tile_k, char *err, size_t errlen);

/* The init slot of a payload that takes any tile K. */
tp_status tpc_tuning_init(const tp_host_api *host, void **state, char *err, size_t errlen);
void tpc_tuning_fini(void *state);
tp_status tpc_tuning_set_option(void *state, const char *key, const char *value, char *err,
                                size_t errlen);

#endif
