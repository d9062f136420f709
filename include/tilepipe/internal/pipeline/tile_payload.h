/* tilepipe/internal/pipeline/tile_payload.h: what one input pipeline stage holds.
 *
 * A payload describes up to TP_MAX_STAGE_TENSORS tile arrays in shared
 * memory (A, B, and scale tiles where the payload has them). Array t holds
 * one tile per k-block: tile i at base + i * stride. A barrier stage groups
 * k_group_size k-blocks, so tile j of barrier stage s is tile s*k_group_size
 * + j of every array, and each array holds stages * k_group_size tiles.
 *
 * The storage planner (storage.h) fills this from its layout; nothing here
 * allocates. Invariants: stride >= bytes, and stride a multiple of the
 * tile's alignment (1024 for 128B-swizzled tiles) when base is aligned, so
 * every tile of the array keeps that alignment. */
#ifndef TILEPIPE_INTERNAL_PIPELINE_TILE_PAYLOAD_H
#define TILEPIPE_INTERNAL_PIPELINE_TILE_PAYLOAD_H

#include "tilepipe/internal/pipeline/defs.h"
#include "tilepipe/plugin/tile.h"

/* A ring of equal tiles in shared memory. */
typedef struct tp_tile_array {
  unsigned char *base; /* tile 0 */
  uint32_t bytes;      /* bytes of one tile (what a TMA load of it delivers) */
  uint32_t stride;     /* bytes from one tile to the next */
} tp_tile_array;

typedef struct tp_tile_payload {
  uint32_t num_tensors;  /* 1..TP_MAX_STAGE_TENSORS */
  uint32_t k_group_size; /* k-blocks per barrier stage, >= 1 */
  tp_tile_array tensors[TP_MAX_STAGE_TENSORS];
} tp_tile_payload;

/* Tile i of a ring. */
TP_PIPE_FN void *tp_tile_array_tile(const tp_tile_array *a, uint32_t i) {
  return a->base + (size_t)i * a->stride;
}

/* Tile j (0..k_group_size) of tensor t in barrier stage `stage`. */
TP_PIPE_FN void *tp_tile_payload_tile(const tp_tile_payload *p, uint32_t stage, uint32_t t,
                                      uint32_t j) {
  return tp_tile_array_tile(&p->tensors[t], stage * p->k_group_size + j);
}

/* Bytes that land in one barrier stage: k_group_size x the tile bytes of
 * every tensor. This is what the stage's expect_tx announces. */
TP_PIPE_FN uint32_t tp_tile_payload_stage_bytes(const tp_tile_payload *p) {
  /* A constant trip count keeps the tensors in registers on the device (a
   * loop bounded by num_tensors would index the array at run time and put
   * the whole payload in local memory). */
  uint32_t sum = 0;
  for (uint32_t t = 0; t < TP_MAX_STAGE_TENSORS; ++t) {
    if (t < p->num_tensors) sum += p->tensors[t].bytes;
  }
  return sum * p->k_group_size;
}

#endif
