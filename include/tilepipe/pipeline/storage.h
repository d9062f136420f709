/* tilepipe/pipeline/storage.h: the shared-memory layout and its planner.
 *
 * The seeds' pipeline_storage in C. One rule: the stage count decides the
 * barrier count. The planner takes what one stage holds (the payload's stage
 * tensors, tile_storage.h), the k_group_size, the output and source chunk
 * rings, the optional ping-pong ordering barrier and escape hatches, and a
 * byte budget, and returns every offset and size plus the largest stage
 * count that fits (or exactly the stage count asked for). Host code (plan
 * time, the CPU backend, the tests) and device code (a kernel computing its
 * layout from constants) run the same function (TP_PLAN_FN: host and device
 * under nvcc), so they cannot disagree.
 *
 * Layout, from a base that the kernel aligns to 1024 bytes
 * (extern __shared__ __align__(1024) on the device, an aligned allocation on
 * the host), in the seeds' order, tiles first:
 *
 *   tensor 0 tiles   stages*k_group_size tiles, each at its alignment
 *   ...              (128B-swizzled tiles: 1024), stride = bytes rounded
 *   tensor n-1 tiles up to that alignment
 *   output chunks    output_stages chunks (D, before the TMA store)
 *   source chunks    source_stages chunks (C, the epilogue-load ring);
 *                    none with source_in_output (below)
 *   raw region       escape hatch: one region of the kernel's own
 *   barriers         8-byte aligned, in this order:
 *     input pair       2*stages mbarriers (full[], empty[])
 *     output pair      2*output_stages
 *     source pair      2*source_stages
 *     load order       1 when there is a source ring, else 0
 *     order barrier    order_depth*order_groups (ping-pong), else 0
 *     raw barriers     raw_barriers (escape hatch, the kernel inits them)
 *
 * Absent regions have count 0 and sit, empty, where they would start.
 *
 * Two choices trade the epilogue's bytes against input stages:
 *   - output_stages_max > output_stages: the output ring grows, chunk by
 *     chunk up to that many, into what the input stages leave of the budget
 *     (the input stage count is decided first, with output_stages chunks);
 *   - source_in_output: C is loaded into the output chunks themselves (the
 *     epilogue reads a chunk of C and writes D in place over it), so the
 *     source ring is one barrier pair per output chunk and no bytes of its
 *     own: a ring of n chunks then prefetches n chunks of C, where separate
 *     rings of n/2 each prefetch n/2. The output chunk must hold C's chunk.
 * On the H100 a CTA may take 227 KiB of dynamic shared memory
 * (TP_SMEM_BUDGET_H100); the planner adds nothing for alignment of the base.
 *
 * Worked example (docs/pipeline.md): bf16 128x256x64, k_group_size 1, a
 * 2-stage ring of bf16 128x64 output chunks, budget 232448: A tiles 16 KiB,
 * B tiles 32 KiB, 4 stages (A at 0, B at 65536, output at 196608, barriers
 * at 229376, total 229472 bytes). */
#ifndef TILEPIPE_PIPELINE_STORAGE_H
#define TILEPIPE_PIPELINE_STORAGE_H

#include "tilepipe/pipeline/epi_load_pipeline.h"
#include "tilepipe/pipeline/input_tile_pipeline.h"
#include "tilepipe/pipeline/load_order_barrier.h"
#include "tilepipe/pipeline/order_barrier.h"
#include "tilepipe/pipeline/output_tile_pipeline.h"
#include "tilepipe/pipeline/tile_storage.h"
#include "tilepipe/status.h"

/* Dynamic shared memory one CTA may use on the H100 (227 KiB). */
#define TP_SMEM_BUDGET_H100 232448u
/* Most input stages the planner returns (and the most it accepts). */
#define TP_STORAGE_MAX_STAGES 32u
/* Largest transaction byte count one mbarrier phase can expect (PTX). */
#define TP_MBAR_TX_MAX ((1u << 20) - 1u)

typedef struct tp_storage_request {
  uint32_t num_tensors; /* 1..TP_MAX_STAGE_TENSORS */
  tp_stage_tensor tensors[TP_MAX_STAGE_TENSORS];
  uint32_t k_group_size;          /* k-blocks per barrier stage, >= 1 */
  uint32_t stages;                /* 0: the most that fit; else exactly this many */
  tp_stage_tensor output_chunk;   /* bytes 0: no output ring */
  uint32_t output_stages;
  uint32_t output_stages_max;     /* 0: output_stages exactly; else grow up to this */
  tp_stage_tensor source_chunk;   /* bytes 0: no source ring of its own */
  uint32_t source_stages;
  uint32_t source_in_output;      /* 1: C in the output chunks; source_chunk/_stages 0 */
  uint32_t order_depth, order_groups; /* ping-pong ordering barrier; 0, 0: none */
  tp_stage_tensor raw;            /* escape hatch: a region of the kernel's own; bytes 0: none */
  uint32_t raw_barriers;          /* escape hatch: mbarriers of the kernel's own */
  uint32_t budget;                /* bytes */
} tp_storage_request;

/* A tile array in the layout: count tiles of `bytes`, `stride` apart. */
typedef struct tp_smem_array {
  uint32_t offset;
  uint32_t bytes;
  uint32_t stride;
  uint32_t count;
} tp_smem_array;

typedef struct tp_storage_layout {
  uint32_t stages;       /* input barrier stages: the one source of the barrier count */
  uint32_t k_group_size;
  uint32_t num_tensors;
  uint32_t expect_bytes; /* bytes one input stage receives: k_group_size x sum of tile bytes */
  tp_smem_array tensors[TP_MAX_STAGE_TENSORS]; /* stages*k_group_size tiles each */
  tp_smem_array output;  /* output_stages chunks */
  tp_smem_array source;  /* source_stages chunks (the output chunks with source_in_output) */
  tp_smem_array raw;     /* 1 or 0 regions */
  uint32_t output_stages, source_stages;
  uint32_t order_depth, order_groups;
  uint32_t raw_barrier_count;
  /* barrier offsets */
  uint32_t input_barriers, output_barriers, source_barriers;
  uint32_t load_order_barrier; /* present iff source_stages > 0 */
  uint32_t order_barriers, raw_barriers;
  uint32_t barrier_offset, barrier_bytes;
  uint32_t total_bytes;  /* dynamic shared memory to ask for */
  /* on failure: what went wrong (static text), and for a budget failure the
   * bytes that the smallest (or the requested) stage count needs */
  const char *error;
  uint64_t need_bytes;
} tp_storage_layout;

/* An empty request for `budget` bytes: no tensors yet, k_group_size 1, the
 * most stages that fit, no rings. */
TP_PLAN_FN tp_storage_request tp_storage_request_make(uint32_t budget) {
  tp_storage_request r;
  tp_stage_tensor none;
  none.bytes = 0;
  none.align = 0;
  r.num_tensors = 0;
  for (uint32_t t = 0; t < TP_MAX_STAGE_TENSORS; ++t) r.tensors[t] = none;
  r.k_group_size = 1;
  r.stages = 0;
  r.output_chunk = none;
  r.output_stages = 0;
  r.output_stages_max = 0;
  r.source_chunk = none;
  r.source_stages = 0;
  r.source_in_output = 0;
  r.order_depth = 0;
  r.order_groups = 0;
  r.raw = none;
  r.raw_barriers = 0;
  r.budget = budget;
  return r;
}

/* ------------------------------------------------------------- planning */

TP_PLAN_FN uint64_t tp_storage_align_up(uint64_t x, uint64_t align) {
  return (x + align - 1u) / align * align;
}

TP_PLAN_FN bool tp_storage_align_ok(uint32_t align) {
  return align >= 16u && (align & (align - 1u)) == 0;
}

/* Places `count` tiles of t at the cursor; returns the new cursor. */
TP_PLAN_FN uint64_t tp_storage_place(uint64_t cursor, tp_stage_tensor t, uint32_t count,
                                     tp_smem_array *out) {
  uint32_t align = t.bytes ? t.align : 1u;
  uint64_t start = tp_storage_align_up(cursor, align);
  out->offset = (uint32_t)start;
  out->bytes = t.bytes;
  out->stride = (uint32_t)tp_storage_align_up(t.bytes, align);
  out->count = t.bytes ? count : 0;
  return start + (uint64_t)out->stride * out->count;
}

/* Checks what does not depend on the stage count; NULL when fine. */
TP_PLAN_FN const char *tp_storage_check(const tp_storage_request *r) {
  if (r->num_tensors == 0 || r->num_tensors > TP_MAX_STAGE_TENSORS)
    return "storage: a payload stages 1 to 4 tensors";
  for (uint32_t t = 0; t < r->num_tensors; ++t) {
    if (r->tensors[t].bytes == 0 || r->tensors[t].bytes % 16u != 0)
      return "storage: a stage tensor's tile is empty or not a multiple of 16 bytes";
    if (!tp_storage_align_ok(r->tensors[t].align))
      return "storage: a stage tensor's alignment is not a power of two >= 16";
  }
  if (r->k_group_size == 0 || r->k_group_size > TP_STORAGE_MAX_STAGES)
    return "storage: k_group_size must be 1 to 32";
  if (r->stages > TP_STORAGE_MAX_STAGES) return "storage: more than 32 stages asked for";
  if ((r->output_chunk.bytes == 0) != (r->output_stages == 0))
    return "storage: the output ring needs both a chunk size and a stage count, or neither";
  if ((r->source_chunk.bytes == 0) != (r->source_stages == 0))
    return "storage: the source ring needs both a chunk size and a stage count, or neither";
  if (r->output_stages > TP_STORAGE_MAX_STAGES || r->source_stages > TP_STORAGE_MAX_STAGES ||
      r->output_stages_max > TP_STORAGE_MAX_STAGES)
    return "storage: an output or source ring of more than 32 stages";
  if (r->output_stages_max != 0 && r->output_stages_max < r->output_stages)
    return "storage: output_stages_max is below output_stages";
  if (r->source_in_output > 1u) return "storage: source_in_output is 0 or 1";
  if (r->source_in_output && (r->output_stages == 0 || r->source_stages != 0))
    return "storage: source_in_output needs an output ring and no source ring of its own";
  const tp_stage_tensor *rings[3] = {&r->output_chunk, &r->source_chunk, &r->raw};
  for (int i = 0; i < 3; ++i) {
    if (rings[i]->bytes != 0 && (rings[i]->bytes % 16u != 0 || !tp_storage_align_ok(rings[i]->align)))
      return "storage: an output, source or raw region is not a multiple of 16 bytes at a "
             "power-of-two alignment >= 16";
  }
  if ((r->order_depth == 0) != (r->order_groups == 0))
    return "storage: the ordering barrier needs both a depth and a group count, or neither";
  if (r->order_depth > 8 || r->order_groups > 8 || r->raw_barriers > 64)
    return "storage: more than 8x8 ordering barriers or 64 raw barriers";
  uint64_t stage_bytes = 0;
  for (uint32_t t = 0; t < r->num_tensors; ++t) stage_bytes += r->tensors[t].bytes;
  if (stage_bytes * r->k_group_size > TP_MBAR_TX_MAX)
    return "storage: one stage's bytes exceed an mbarrier's transaction count (2^20 - 1)";
  if (r->source_chunk.bytes > TP_MBAR_TX_MAX)
    return "storage: a source chunk exceeds an mbarrier's transaction count (2^20 - 1)";
  return 0;
}

/* Lays the request out with `stages` input stages; returns the total bytes
 * (64-bit, so an oversized request cannot wrap around the budget). */
TP_PLAN_FN uint64_t tp_storage_lay_out(const tp_storage_request *r, uint32_t stages,
                                       tp_storage_layout *L) {
  uint64_t c = 0;
  L->stages = stages;
  L->k_group_size = r->k_group_size;
  L->num_tensors = r->num_tensors;
  L->expect_bytes = 0;
  for (uint32_t t = 0; t < TP_MAX_STAGE_TENSORS; ++t) {
    tp_stage_tensor none;
    none.bytes = 0;
    none.align = 0;
    bool used = t < r->num_tensors;
    c = tp_storage_place(c, used ? r->tensors[t] : none, stages * r->k_group_size, &L->tensors[t]);
    if (used) L->expect_bytes += r->tensors[t].bytes * r->k_group_size;
  }
  c = tp_storage_place(c, r->output_chunk, r->output_stages, &L->output);
  c = tp_storage_place(c, r->source_chunk, r->source_stages, &L->source);
  if (r->source_in_output) L->source = L->output;
  c = tp_storage_place(c, r->raw, 1, &L->raw);
  const uint32_t source_stages = r->source_in_output ? r->output_stages : r->source_stages;
  L->output_stages = r->output_stages;
  L->source_stages = source_stages;
  L->order_depth = r->order_depth;
  L->order_groups = r->order_groups;
  L->raw_barrier_count = r->raw_barriers;

  c = tp_storage_align_up(c, 8);
  L->barrier_offset = (uint32_t)c;
  L->input_barriers = (uint32_t)c;
  c += TP_BARRIER_PAIR_BYTES(stages);
  L->output_barriers = (uint32_t)c;
  c += TP_BARRIER_PAIR_BYTES(r->output_stages);
  L->source_barriers = (uint32_t)c;
  c += TP_BARRIER_PAIR_BYTES(source_stages);
  L->load_order_barrier = (uint32_t)c;
  c += source_stages ? 8u : 0u;
  L->order_barriers = (uint32_t)c;
  c += TP_ORDER_BARRIER_BYTES(r->order_depth, r->order_groups);
  L->raw_barriers = (uint32_t)c;
  c += 8u * (uint64_t)r->raw_barriers;
  L->barrier_bytes = (uint32_t)(c - L->barrier_offset);
  L->total_bytes = c > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)c;
  L->error = 0;
  L->need_bytes = c;
  return c;
}

/* Plans the layout. TP_OK, or TP_ERR_INVALID_ARGUMENT (a malformed request)
 * or TP_ERR_UNSUPPORTED (it does not fit the budget), with L->error saying
 * what and, for the budget, L->need_bytes how much was needed. */
TP_PLAN_FN tp_status tp_storage_plan(const tp_storage_request *r, tp_storage_layout *L) {
  if (L == 0) return TP_ERR_INVALID_ARGUMENT;
  L->need_bytes = 0;
  if (r == 0) {
    L->error = "storage: no request";
    return TP_ERR_INVALID_ARGUMENT;
  }
  const char *bad = tp_storage_check(r);
  if (bad) {
    L->error = bad;
    return TP_ERR_INVALID_ARGUMENT;
  }
  uint32_t s = r->stages;
  if (s != 0) {
    if (tp_storage_lay_out(r, s, L) > r->budget) {
      L->error = "storage: the requested stage count does not fit the budget";
      return TP_ERR_UNSUPPORTED;
    }
  } else {
    if (tp_storage_lay_out(r, 1, L) > r->budget) {
      L->error = "storage: not even one stage fits the budget";
      return TP_ERR_UNSUPPORTED;
    }
    /* The total grows with the stage count: take the last count that fits. */
    s = 1;
    while (s < TP_STORAGE_MAX_STAGES && tp_storage_lay_out(r, s + 1, L) <= r->budget) ++s;
  }
  /* Then the output ring takes what the input stages left, chunk by chunk. */
  tp_storage_request grown = *r;
  while (grown.output_stages < r->output_stages_max) {
    ++grown.output_stages;
    if (tp_storage_lay_out(&grown, s, L) > r->budget) {
      --grown.output_stages;
      break;
    }
  }
  tp_storage_lay_out(&grown, s, L);
  return TP_OK;
}

/* ------------------------------------------------ the layout, in memory */

/* base: the 1024-aligned start of the layout (dynamic shared memory). */

TP_PIPE_FN tp_tile_array tp_storage_tile_array(unsigned char *base, const tp_smem_array *a) {
  tp_tile_array t;
  t.base = base + a->offset;
  t.bytes = a->bytes;
  t.stride = a->stride;
  return t;
}

TP_PIPE_FN tp_mbar *tp_storage_mbar(unsigned char *base, uint32_t offset) {
  return (tp_mbar *)(void *)(base + offset);
}

TP_PIPE_FN tp_tile_payload tp_storage_input_payload(unsigned char *base, const tp_storage_layout *L) {
  tp_tile_payload p;
  p.num_tensors = L->num_tensors;
  p.k_group_size = L->k_group_size;
  for (uint32_t t = 0; t < TP_MAX_STAGE_TENSORS; ++t)
    p.tensors[t] = tp_storage_tile_array(base, &L->tensors[t]);
  return p;
}

/* Arrival counts of the pipelines in a layout (see each pipeline's header). */
typedef struct tp_storage_counts {
  uint32_t input_consumers; /* empty[] of the input pipeline */
  uint32_t output_writers;  /* full[] of the output ring */
  uint32_t source_readers;  /* empty[] of the source ring */
  uint32_t order_arrivals;  /* each ordering barrier */
} tp_storage_counts;

/* Initialises every barrier of the layout but the raw ones. One thread,
 * then make it visible (barrier_pair.h). */
TP_PIPE_FN void tp_storage_init_barriers(unsigned char *base, const tp_storage_layout *L,
                                         const tp_storage_counts *n) {
  tp_input_pipeline_init_barriers(tp_storage_mbar(base, L->input_barriers), L->stages,
                                  n->input_consumers);
  if (L->output_stages)
    tp_output_pipeline_init_barriers(tp_storage_mbar(base, L->output_barriers), L->output_stages,
                                     n->output_writers);
  if (L->source_stages) {
    tp_epi_load_pipeline_init_barriers(tp_storage_mbar(base, L->source_barriers),
                                       L->source_stages, n->source_readers);
    tp_load_order_init(tp_storage_mbar(base, L->load_order_barrier));
  }
  if (L->order_depth)
    tp_order_barrier_init(tp_storage_mbar(base, L->order_barriers), L->order_depth,
                          L->order_groups, n->order_arrivals);
}

TP_PIPE_FN tp_input_pipeline tp_storage_input_pipeline(unsigned char *base,
                                                       const tp_storage_layout *L,
                                                       uint32_t ctas_per_barrier) {
  tp_tile_payload p = tp_storage_input_payload(base, L);
  return tp_input_pipeline_make(tp_storage_mbar(base, L->input_barriers), L->stages, &p,
                                ctas_per_barrier);
}

TP_PIPE_FN tp_output_pipeline tp_storage_output_pipeline(unsigned char *base,
                                                         const tp_storage_layout *L) {
  return tp_output_pipeline_make(tp_storage_mbar(base, L->output_barriers), L->output_stages,
                                 tp_storage_tile_array(base, &L->output));
}

TP_PIPE_FN tp_input_pipeline tp_storage_epi_load_pipeline(unsigned char *base,
                                                          const tp_storage_layout *L) {
  return tp_epi_load_pipeline_make(tp_storage_mbar(base, L->source_barriers), L->source_stages,
                                   tp_storage_tile_array(base, &L->source));
}

TP_PIPE_FN tp_load_order tp_storage_load_order(unsigned char *base, const tp_storage_layout *L) {
  return tp_load_order_make(tp_storage_mbar(base, L->load_order_barrier));
}

TP_PIPE_FN tp_order_barrier tp_storage_order_barrier(unsigned char *base,
                                                     const tp_storage_layout *L, uint32_t group) {
  return tp_order_barrier_make(tp_storage_mbar(base, L->order_barriers), L->order_depth,
                               L->order_groups, group);
}

/* Escape hatches: the kernel's own barriers (it initialises them) and region. */
TP_PIPE_FN tp_mbar *tp_storage_raw_barriers(unsigned char *base, const tp_storage_layout *L) {
  return tp_storage_mbar(base, L->raw_barriers);
}

TP_PIPE_FN void *tp_storage_raw(unsigned char *base, const tp_storage_layout *L) {
  return base + L->raw.offset;
}

#endif
