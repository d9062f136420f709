/* tilepipe/internal/pipeline/storage.h: the shared-memory layout and its planner.
 *
 * The seeds' pipeline_storage in C. One rule: the stage count decides the
 * barrier count. The planner takes what one stage holds (the payload's stage
 * tensors), the k_group_size, the output chunk ring and whether the
 * epilogue loads C into it, and a byte budget, and returns every offset and
 * size plus the largest stage count that fits (or exactly the stage count
 * asked for). Host code (plan time, the CPU backend, the tests) and device
 * code (a kernel computing its layout from constants) run the same function
 * (TP_PLAN_FN: host and device under nvcc), so they cannot disagree.
 *
 * Layout, from a base that the kernel aligns to 1024 bytes
 * (extern __shared__ __align__(1024) on the device, an aligned allocation on
 * the host), in the seeds' order, tiles first:
 *
 *   tensor 0 tiles   stages*k_group_size tiles, each at its alignment
 *   ...              (128B-swizzled tiles: 1024), stride = bytes rounded
 *   tensor n-1 tiles up to that alignment
 *   output chunks    output_stages chunks (D before the TMA store; with
 *                    source_in_output also C, loaded ahead of the epilogue)
 *   barriers         8-byte aligned, in this order:
 *     input pair       2*stages mbarriers (full[], empty[])
 *     output pair      2*output_stages
 *     source pair      2*output_stages with source_in_output, else 0
 *     load order       1 with source_in_output, else 0
 *
 * Absent regions have count 0 and sit, empty, where they would start.
 *
 * The epilogue's chunks:
 *   - output_stages_max > output_stages: the output ring grows, chunk by
 *     chunk up to that many, into what the input stages leave of the budget
 *     (the input stage count is decided first, with output_stages chunks);
 *   - source_in_output: the epilogue reads C, and C is loaded into the
 *     output chunks themselves (the epilogue reads a chunk of C and writes D
 *     in place over it), so the source ring (epi_load_pipeline.h) is one
 *     barrier pair per output chunk and no bytes of its own: a ring of n
 *     chunks prefetches n chunks of C. The output chunk must hold C's chunk.
 * The planner adds nothing for alignment of the base. The budget is the
 * device's dynamic shared memory per block (227 KiB, 232448 bytes, on the
 * H100: the structured kernel's planner passes the GPU's figure).
 *
 * Worked example (docs/pipeline.md): bf16 128x256x64, k_group_size 1, a
 * 2-stage ring of bf16 128x64 output chunks, budget 232448: A tiles 16 KiB,
 * B tiles 32 KiB, 4 stages (A at 0, B at 65536, output at 196608, barriers
 * at 229376, total 229472 bytes). */
#ifndef TILEPIPE_INTERNAL_PIPELINE_STORAGE_H
#define TILEPIPE_INTERNAL_PIPELINE_STORAGE_H

#include "tilepipe/internal/pipeline/epi_load_pipeline.h"
#include "tilepipe/internal/pipeline/input_tile_pipeline.h"
#include "tilepipe/internal/pipeline/load_order_barrier.h"
#include "tilepipe/internal/pipeline/output_tile_pipeline.h"
#include "tilepipe/status.h"

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
  uint32_t source_in_output;      /* 1: the epilogue reads C, loaded into the output chunks */
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
  tp_smem_array output;  /* output_stages chunks (with source_in_output also C's) */
  uint32_t output_stages;
  uint32_t source_stages; /* the source ring over the output chunks: output_stages or 0 */
  /* barrier offsets */
  uint32_t input_barriers, output_barriers, source_barriers;
  uint32_t load_order_barrier; /* present iff source_stages > 0 */
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
  r.source_in_output = 0;
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
  if (r->output_stages > TP_STORAGE_MAX_STAGES || r->output_stages_max > TP_STORAGE_MAX_STAGES)
    return "storage: an output ring of more than 32 stages";
  if (r->output_stages_max != 0 && r->output_stages_max < r->output_stages)
    return "storage: output_stages_max is below output_stages";
  if (r->source_in_output > 1u) return "storage: source_in_output is 0 or 1";
  if (r->source_in_output && r->output_stages == 0)
    return "storage: source_in_output needs an output ring";
  if (r->output_chunk.bytes != 0 &&
      (r->output_chunk.bytes % 16u != 0 || !tp_storage_align_ok(r->output_chunk.align)))
    return "storage: the output chunk is not a multiple of 16 bytes at a power-of-two "
           "alignment >= 16";
  uint64_t stage_bytes = 0;
  for (uint32_t t = 0; t < r->num_tensors; ++t) stage_bytes += r->tensors[t].bytes;
  if (stage_bytes * r->k_group_size > TP_MBAR_TX_MAX)
    return "storage: one stage's bytes exceed an mbarrier's transaction count (2^20 - 1)";
  if (r->source_in_output && r->output_chunk.bytes > TP_MBAR_TX_MAX)
    return "storage: an output chunk that C is loaded into exceeds an mbarrier's transaction "
           "count (2^20 - 1)";
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
  const uint32_t source_stages = r->source_in_output ? r->output_stages : 0u;
  L->output_stages = r->output_stages;
  L->source_stages = source_stages;

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
} tp_storage_counts;

/* Initialises every barrier of the layout. One thread, then make it
 * visible (barrier_pair.h). */
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

/* The source ring: its chunks are the output chunks (source_in_output). */
TP_PIPE_FN tp_input_pipeline tp_storage_epi_load_pipeline(unsigned char *base,
                                                          const tp_storage_layout *L) {
  return tp_epi_load_pipeline_make(tp_storage_mbar(base, L->source_barriers), L->source_stages,
                                   tp_storage_tile_array(base, &L->output));
}

TP_PIPE_FN tp_load_order tp_storage_load_order(unsigned char *base, const tp_storage_layout *L) {
  return tp_load_order_make(tp_storage_mbar(base, L->load_order_barrier));
}

#endif
