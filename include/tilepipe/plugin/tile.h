/* tilepipe/plugin/tile.h: the tile configuration and what one pipeline stage holds.
 *
 * Shared by the plugin ABI, the storage planner (tilepipe/internal/pipeline/storage.h),
 * both backends and the device code; plain data, valid C11 and CUDA C++. */
#ifndef TILEPIPE_PLUGIN_TILE_H
#define TILEPIPE_PLUGIN_TILE_H

#include <stdint.h>

#ifdef __cplusplus
#define TP_ALIGNAS(n) alignas(n)
extern "C" {
#else
#define TP_ALIGNAS(n) _Alignas(n)
#endif

/* How the work of one GEMM is cut. */
typedef struct tp_tile_config {
  int32_t tile_m, tile_n, tile_k; /* output tile of one CTA (or CPU worker) and its k-block */
  int32_t stages;                 /* input pipeline barrier stages; 0: as many as fit */
  int32_t k_group_size;           /* k-blocks per barrier stage (one expect_tx each) */
  int32_t cluster_m, cluster_n;   /* CTAs per cluster along M and N (GPU) */
  int32_t consumers;              /* consumer warpgroups (GPU) or threads (CPU; 0: the
                                     backend's choice, the cores) */
} tp_tile_config;

#define TP_MAX_STAGE_TENSORS 4

/* Alignment that TMA needs for a 128-byte-swizzled tile in shared memory. */
#define TP_SWIZZLE_128B_ALIGN 1024u

/* One tensor's tile inside one k-block of a stage (A, B, a scale vector...). */
typedef struct tp_stage_tensor {
  uint32_t bytes; /* one k-block's tile */
  uint32_t align; /* power of two: 1024 for 128B-swizzled tiles, >= 16 otherwise */
} tp_stage_tensor;

#ifdef __cplusplus
}
#endif
#endif
